"""Checks for the exercises of notebook 03 (scaled dot-product attention)."""

import math
from collections.abc import Callable

import torch

from helpers.exercises import call_solution, on_cpu, verdict


def _random(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _shape_problem(
    result: object, shape: tuple[int, ...], meaning: str, inputs: str, swapped: str, what: str
) -> str | None:
    """None when result is a tensor of this shape, else what is wrong with it, in words.

    meaning names the dimensions ("(batch, len_q, len_k)"), inputs the shapes given ("for query
    (2, 5, 6) and key (2, 7, 4)"), swapped the product that has one row per query (said when the
    result's last two dimensions are exchanged), and what the tensor asked for ("the weights
    tensor, not (output, weights)").
    """
    if isinstance(result, (tuple, list)):
        return (
            f"expected one tensor, got a {type(result).__name__} of {len(result)}: return only "
            f"{what}"
        )
    if not isinstance(result, torch.Tensor):
        return f"expected a tensor, got {type(result).__name__}"
    got = tuple(result.shape)
    if got == shape:
        return None
    problem = f"{inputs}: expected shape {shape} = {meaning}, got {got}"
    if got == shape[:-2] + shape[-1:] + shape[-2:-1]:
        problem += f", the transpose: queries and keys are swapped, one row per query is {swapped}"
    return problem


def _has_shape(function: Callable, shape: tuple[int, ...], *args: torch.Tensor) -> bool:
    """Whether function(*args) runs and returns a tensor of this shape (it never raises)."""
    result, problem = call_solution(function, *(arg.clone() for arg in args))
    return problem is None and isinstance(result, torch.Tensor) and tuple(result.shape) == shape


def _raised(problem: str) -> str:
    """'your function raised RuntimeError' from call_solution's message, without the error text."""
    return problem.split(":", 1)[0]


TRANSPOSE_LAST_TWO = (
    "transpose only the last two dimensions, key.transpose(-2, -1) (key.T reverses all of "
    "them, and transpose(1, 2) swaps the last two only of a 3-D tensor)"
)


def check_attention_weights(attention_weights: Callable) -> None:
    """attention_weights(query, key) should return softmax(Q K^T / sqrt(d_k)) over the keys."""
    query, key = _random(2, 3, 5, 8, seed=1), _random(2, 3, 7, 8, seed=2)
    result, problem = call_solution(attention_weights, query.clone(), key.clone())
    if problem is not None and problem.startswith("your function raised"):
        if _has_shape(attention_weights, (2, 3, 5, 7), query, key.transpose(-2, -1)):
            problem = (
                f"{_raised(problem)}: query @ key multiplies (len_q, d_k) by (len_k, d_k); "
                "transpose the key's last two dimensions first, key.transpose(-2, -1)"
            )
        elif _has_shape(attention_weights, (3, 5, 7), query[0], key[0]) or _has_shape(
            attention_weights, (5, 7), query[0, 0], key[0, 0]
        ):
            problem = (
                f"{_raised(problem)} on 4-D inputs (batch, heads, len, d_k) but works on smaller "
                f"ones: {TRANSPOSE_LAST_TWO}"
            )
    if problem is None:
        problem = _shape_problem(
            result,
            (2, 3, 5, 7),
            "(batch, heads, len_q, len_k)",
            "for query (2, 3, 5, 8) and key (2, 3, 7, 8)",
            "query @ key.transpose(-2, -1)",
            "the weights tensor, not (output, weights)",
        )
    if problem is not None:
        return verdict(False, "", problem)
    result = on_cpu(result).float()
    scores = query @ key.transpose(-2, -1)
    expected = torch.softmax(scores / math.sqrt(8), dim=-1)
    if torch.allclose(result, expected, atol=1e-5):
        return verdict(True, "attention_weights is softmax(Q K^T / sqrt(d_k)) over the keys", "")
    fix = "divide by sqrt(d_k), with d_k = query.shape[-1] = 8"
    wrong_scales = [
        (1.0, "the scores are not scaled: divide Q K^T by sqrt(d_k), d_k = query.shape[-1]"),
        (8.0, f"the scores are divided by d_k = 8 itself: {fix}"),
        (1 / math.sqrt(8), f"the scores are multiplied by sqrt(d_k): {fix}"),
    ]
    for size, name in ((5, "len_q"), (7, "len_k"), (2, "the batch size"), (3, "the heads")):
        wrong_scales += [
            (math.sqrt(size), f"the scores are divided by sqrt({size}), {name}: {fix}"),
            (float(size), f"the scores are divided by {size}, {name}: {fix}"),
        ]
    for divisor, failure in wrong_scales:
        if torch.allclose(result, torch.softmax(scores / divisor, dim=-1), atol=1e-5):
            return verdict(False, "", failure)
    if torch.allclose(result.sum(dim=-2), torch.ones(2, 3, 7), atol=1e-4):
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
        except (TypeError, ValueError, RuntimeError):
            got = type(result).__name__
            if isinstance(result, torch.Tensor):
                got = f"a tensor of shape {tuple(result.shape)}: return one number"
            return verdict(False, "", f"expected a number, got {got}")
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
    if problem is not None and problem.startswith("your function raised"):
        if _has_shape(general_scores, (2, 5, 7), query, key.transpose(-2, -1), w):
            problem = (
                f"{_raised(problem)}: (query @ w) is (batch, len_q, d_k) and key is (batch, len_k, "
                "d_k); transpose the key's last two dimensions first, key.transpose(-2, -1)"
            )
        elif _has_shape(general_scores, (2, 5, 7), query, key, w.T):
            problem = (
                f"{_raised(problem)}: w is already (d_q, d_k), so query @ w needs no transpose of w"
            )
        elif _has_shape(general_scores, (5, 7), query[0], key[0], w):
            problem = (
                f"{_raised(problem)} on 3-D inputs (batch, len, d) but works on 2-D ones: "
                f"{TRANSPOSE_LAST_TWO}"
            )
    if problem is None:
        problem = _shape_problem(
            result,
            (2, 5, 7),
            "(batch, len_q, len_k)",
            "for query (2, 5, 6), key (2, 7, 4) and w (6, 4)",
            "(query @ w) @ key.transpose(-2, -1)",
            "the scores tensor",
        )
    if problem is not None:
        return verdict(False, "", problem)
    result = on_cpu(result).float()
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
