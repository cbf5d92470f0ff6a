"""Checks for the exercises of notebook 03 (scaled dot-product attention)."""

import math
from collections.abc import Callable

import torch

from helpers.exercises import call_solution, verdict


def _random(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _is_tensor_of_shape(result: object, shape: tuple[int, ...]) -> str | None:
    """None when result is a tensor of this shape, else what is wrong with it."""
    if not isinstance(result, torch.Tensor):
        return f"expected a tensor, got {type(result).__name__}"
    if tuple(result.shape) != shape:
        return f"expected shape {shape}, got {tuple(result.shape)}"
    return None


def check_attention_weights(attention_weights: Callable) -> None:
    """attention_weights(query, key) should return softmax(Q K^T / sqrt(d_k)) over the keys."""
    query, key = _random(2, 3, 5, 8, seed=1), _random(2, 3, 7, 8, seed=2)
    result, problem = call_solution(attention_weights, query.clone(), key.clone())
    if problem is None:
        problem = _is_tensor_of_shape(result, (2, 3, 5, 7))
        if problem is not None:
            problem += " = (batch, heads, len_q, len_k) for query (2, 3, 5, 8) and key (2, 3, 7, 8)"
    if problem is not None:
        return verdict(False, "", problem)
    result = result.detach().float()
    scores = query @ key.transpose(-2, -1)
    expected = torch.softmax(scores / math.sqrt(8), dim=-1)
    if torch.allclose(result, expected, atol=1e-5):
        return verdict(True, "attention_weights is softmax(Q K^T / sqrt(d_k)) over the keys", "")
    if torch.allclose(result, torch.softmax(scores, dim=-1), atol=1e-5):
        failure = "the scores are not scaled: divide Q K^T by sqrt(d_k), d_k = query.shape[-1]"
    elif torch.allclose(result.sum(dim=-2), torch.ones(2, 3, 7), atol=1e-4):
        failure = "your columns sum to 1: take the softmax over the keys, dim=-1, not the queries"
    elif not torch.allclose(result.sum(dim=-1), torch.ones(2, 3, 5), atol=1e-4):
        failure = "each row (one query) should sum to 1: apply torch.softmax(..., dim=-1)"
    else:
        failure = "rows sum to 1 but the values differ from softmax(Q K^T / sqrt(d_k))"
    return verdict(False, "", failure)


def check_score_scale(score_scale: Callable) -> None:
    """score_scale(d_k, sigma) should be sqrt(d_k) * sigma**2, the std of q·k."""
    cases = [(64, 1.0), (16, 2.0), (1, 0.5), (512, 0.1)]
    answers = []
    for d_k, sigma in cases:
        result, problem = call_solution(score_scale, d_k, sigma)
        if problem is not None:
            return verdict(False, "", problem)
        try:
            answers.append(float(result))
        except (TypeError, ValueError):
            return verdict(False, "", f"expected a number, got {type(result).__name__}")
    expected = [math.sqrt(d_k) * sigma**2 for d_k, sigma in cases]
    if all(math.isclose(a, e, rel_tol=1e-6) for a, e in zip(answers, expected, strict=True)):
        # Measure it too: q·k / scale has unit variance for random q, k of std sigma.
        d_k, sigma = 16, 2.0
        generator = torch.Generator().manual_seed(0)
        q = sigma * torch.randn(20_000, d_k, generator=generator)
        k = sigma * torch.randn(20_000, d_k, generator=generator)
        variance = ((q * k).sum(dim=-1) / answers[1]).var().item()
        return verdict(
            True,
            f"right: sqrt(d_k) * sigma^2; measured on random vectors (d_k=16, sigma=2) the "
            f"scaled variance is {variance:.2f}",
            "",
        )
    if all(
        math.isclose(a, math.sqrt(d_k), rel_tol=1e-6)
        for a, (d_k, _) in zip(answers, cases, strict=True)
    ):
        failure = "sqrt(d_k) is right only for sigma = 1: where does sigma enter the variance?"
    elif all(
        math.isclose(a, math.sqrt(d_k) * sigma, rel_tol=1e-6)
        for a, (d_k, sigma) in zip(answers, cases, strict=True)
    ):
        failure = (
            "a product of two entries of variance sigma^2 has variance sigma^4, so its std is "
            "sigma^2, not sigma"
        )
    elif all(
        math.isclose(a, d_k * sigma**4, rel_tol=1e-6)
        for a, (d_k, sigma) in zip(answers, cases, strict=True)
    ):
        failure = "that is the variance of q·k; divide by its standard deviation (a square root)"
    else:
        failure = f"for (d_k, sigma) = {cases[1]} expected {expected[1]:.4g}, got {answers[1]:.4g}"
    return verdict(False, "", failure)


def check_general_scores(general_scores: Callable) -> None:
    """general_scores(query, key, w) should return q_i^T W k_j for every pair, (batch, len_q, len_k)."""
    query, key, w = _random(2, 5, 6, seed=3), _random(2, 7, 4, seed=4), _random(6, 4, seed=5)
    result, problem = call_solution(general_scores, query.clone(), key.clone(), w.clone())
    if problem is None:
        problem = _is_tensor_of_shape(result, (2, 5, 7))
        if problem is not None:
            problem += " = (batch, len_q, len_k)"
    if problem is not None:
        return verdict(False, "", problem)
    result = result.detach().float()
    expected = torch.einsum("bqd,de,bke->bqk", query, w, key)
    if torch.allclose(result, expected, atol=1e-4):
        return verdict(True, "general_scores computes q^T W k for every (query, key) pair", "")
    if torch.allclose(result, expected / math.sqrt(4), atol=1e-4) or torch.allclose(
        result, expected / math.sqrt(6), atol=1e-4
    ):
        failure = "Luong's general score has no scaling: return q^T W k itself"
    else:
        failure = (
            "scores differ from q_i^T W k_j: project the queries with w (query @ w), then take "
            "dot products with the keys (@ key.transpose(-2, -1))"
        )
    return verdict(False, "", failure)
