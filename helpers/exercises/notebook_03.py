"""Checks for the exercises of notebook 03 (scaled dot-product attention).

Hand-written: edit this file itself; no notebook generates it.
"""

import math
from collections.abc import Callable

import torch

from helpers.exercises import Problem, call_solution, failed, on_cpu, passed
from helpers.language import tr


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
        return tr("expected one tensor, got a {type} of {count}: return only {what}").format(
            type=type(result).__name__, count=len(result), what=what
        )
    if not isinstance(result, torch.Tensor):
        return tr("expected a tensor, got {type}").format(type=type(result).__name__)
    got = tuple(result.shape)
    if got == shape:
        return None
    problem = tr("{inputs}: expected shape {shape} = {meaning}, got {got}").format(
        inputs=inputs, shape=shape, meaning=meaning, got=got
    )
    if got == shape[:-2] + shape[-1:] + shape[-2:-1]:
        problem += tr(
            ", the transpose: queries and keys are swapped, one row per query is {swapped}"
        ).format(swapped=swapped)
    return problem


def _has_shape(function: Callable, shape: tuple[int, ...], *args: torch.Tensor) -> bool:
    """Whether function(*args) runs and returns a tensor of this shape (it never raises)."""
    result, problem = call_solution(function, *(arg.clone() for arg in args))
    return problem is None and isinstance(result, torch.Tensor) and tuple(result.shape) == shape


def _crashed(problem: Problem | None) -> bool:
    """Whether call_solution's problem is that the student's function raised."""
    return problem is not None and problem.error is not None


def _raised(problem: Problem) -> str:
    """'your function raised RuntimeError': call_solution's message without the error text."""
    return tr("your function raised {error}").format(error=type(problem.error).__name__)


def _transpose_last_two() -> str:
    return tr(
        "transpose only the last two dimensions, key.transpose(-2, -1) (key.T reverses all of "
        "them, and transpose(1, 2) swaps the last two only of a 3-D tensor)"
    )


def check_attention_weights(attention_weights: Callable) -> None:
    """attention_weights(query, key) should return softmax(Q K^T / sqrt(d_k)) over the keys."""
    query, key = _random(2, 3, 5, 8, seed=1), _random(2, 3, 7, 8, seed=2)
    result, problem = call_solution(attention_weights, query.clone(), key.clone())
    if _crashed(problem):
        if _has_shape(attention_weights, (2, 3, 5, 7), query, key.transpose(-2, -1)):
            problem = tr(
                "{raised}: query @ key multiplies (len_q, d_k) by (len_k, d_k); "
                "transpose the key's last two dimensions first, key.transpose(-2, -1)"
            ).format(raised=_raised(problem))
        elif _has_shape(attention_weights, (3, 5, 7), query[0], key[0]) or _has_shape(
            attention_weights, (5, 7), query[0, 0], key[0, 0]
        ):
            problem = tr(
                "{raised} on 4-D inputs (batch, heads, len, d_k) but works on smaller ones: {fix}"
            ).format(raised=_raised(problem), fix=_transpose_last_two())
    if problem is None:
        problem = _shape_problem(
            result,
            (2, 3, 5, 7),
            "(batch, heads, len_q, len_k)",
            tr("for query (2, 3, 5, 8) and key (2, 3, 7, 8)"),
            "query @ key.transpose(-2, -1)",
            tr("the weights tensor, not (output, weights)"),
        )
    if problem is not None:
        return failed(problem)
    result = on_cpu(result).float()
    scores = query @ key.transpose(-2, -1)
    expected = torch.softmax(scores / math.sqrt(8), dim=-1)
    if torch.allclose(result, expected, atol=1e-5):
        return passed(tr("attention_weights is softmax(Q K^T / sqrt(d_k)) over the keys"))
    fix = tr("divide by sqrt(d_k), with d_k = query.shape[-1] = 8")
    wrong_scales = [
        (1.0, tr("the scores are not scaled: divide Q K^T by sqrt(d_k), d_k = query.shape[-1]")),
        (8.0, tr("the scores are divided by d_k = 8 itself: {fix}").format(fix=fix)),
        (1 / math.sqrt(8), tr("the scores are multiplied by sqrt(d_k): {fix}").format(fix=fix)),
    ]
    sizes = ((5, "len_q"), (7, "len_k"), (2, tr("the batch size")), (3, tr("the heads")))
    for size, name in sizes:
        wrong_scales += [
            (
                math.sqrt(size),
                tr("the scores are divided by sqrt({size}), {name}: {fix}").format(
                    size=size, name=name, fix=fix
                ),
            ),
            (
                float(size),
                tr("the scores are divided by {size}, {name}: {fix}").format(
                    size=size, name=name, fix=fix
                ),
            ),
        ]
    for divisor, failure in wrong_scales:
        if torch.allclose(result, torch.softmax(scores / divisor, dim=-1), atol=1e-5):
            return failed(failure)
    if torch.allclose(result.sum(dim=-2), torch.ones(2, 3, 7), atol=1e-4):
        failure = tr(
            "your columns sum to 1: take the softmax over the keys, dim=-1, not the queries"
        )
    elif not torch.allclose(result.sum(dim=-1), torch.ones(2, 3, 5), atol=1e-4):
        failure = tr("each row (one query) should sum to 1: apply torch.softmax(..., dim=-1)")
    else:
        failure = tr("rows sum to 1 but the values differ from softmax(Q K^T / sqrt(d_k))")
    return failed(failure)


def check_score_scale(score_scale: Callable) -> None:
    """score_scale(d_k, sigma) should be sqrt(d_k) * sigma**2, the std of q·k."""
    cases = [(64, 1.0), (16, 2.0), (1, 0.5), (512, 0.1)]
    answers = []
    for d_k, sigma in cases:
        result, problem = call_solution(score_scale, d_k, sigma)
        if problem is not None:
            return failed(problem)
        try:
            answers.append(float(result))
        except (TypeError, ValueError, RuntimeError):
            got = type(result).__name__
            if isinstance(result, torch.Tensor):
                got = tr("a tensor of shape {shape}: return one number").format(
                    shape=tuple(result.shape)
                )
            return failed(tr("expected a number, got {type}").format(type=got))
    expected = [math.sqrt(d_k) * sigma**2 for d_k, sigma in cases]
    if all(math.isclose(a, e, rel_tol=1e-6) for a, e in zip(answers, expected, strict=True)):
        # Measure it too: q·k / scale has unit variance for random q, k of std sigma.
        d_k, sigma = 16, 2.0
        generator = torch.Generator().manual_seed(0)
        q = sigma * torch.randn(20_000, d_k, generator=generator)
        k = sigma * torch.randn(20_000, d_k, generator=generator)
        variance = ((q * k).sum(dim=-1) / answers[1]).var().item()
        return passed(
            tr(
                "right: sqrt(d_k) * sigma^2; measured on random vectors (d_k=16, sigma=2) the "
                "scaled variance is {variance:.2f}"
            ).format(variance=variance)
        )
    if all(
        math.isclose(a, math.sqrt(d_k), rel_tol=1e-6)
        for a, (d_k, _) in zip(answers, cases, strict=True)
    ):
        failure = tr("sqrt(d_k) is right only for sigma = 1: where does sigma enter the variance?")
    elif all(
        math.isclose(a, math.sqrt(d_k) * sigma, rel_tol=1e-6)
        for a, (d_k, sigma) in zip(answers, cases, strict=True)
    ):
        failure = tr(
            "a product of two entries of variance sigma^2 has variance sigma^4, so its std is "
            "sigma^2, not sigma"
        )
    elif all(
        math.isclose(a, d_k * sigma**4, rel_tol=1e-6)
        for a, (d_k, sigma) in zip(answers, cases, strict=True)
    ):
        failure = tr(
            "that is the variance of q·k; divide by its standard deviation (a square root)"
        )
    else:
        failure = tr("for (d_k, sigma) = {case} expected {expected:.4g}, got {got:.4g}").format(
            case=cases[1], expected=expected[1], got=answers[1]
        )
    return failed(failure)


def check_general_scores(general_scores: Callable) -> None:
    """general_scores(query, key, w) should return q_i^T W k_j for every pair, (batch, len_q, len_k)."""
    query, key, w = _random(2, 5, 6, seed=3), _random(2, 7, 4, seed=4), _random(6, 4, seed=5)
    result, problem = call_solution(general_scores, query.clone(), key.clone(), w.clone())
    if _crashed(problem):
        if _has_shape(general_scores, (2, 5, 7), query, key.transpose(-2, -1), w):
            problem = tr(
                "{raised}: (query @ w) is (batch, len_q, d_k) and key is (batch, len_k, "
                "d_k); transpose the key's last two dimensions first, key.transpose(-2, -1)"
            ).format(raised=_raised(problem))
        elif _has_shape(general_scores, (2, 5, 7), query, key, w.T):
            problem = tr(
                "{raised}: w is already (d_q, d_k), so query @ w needs no transpose of w"
            ).format(raised=_raised(problem))
        elif _has_shape(general_scores, (5, 7), query[0], key[0], w):
            problem = tr(
                "{raised} on 3-D inputs (batch, len, d) but works on 2-D ones: {fix}"
            ).format(raised=_raised(problem), fix=_transpose_last_two())
    if problem is None:
        problem = _shape_problem(
            result,
            (2, 5, 7),
            "(batch, len_q, len_k)",
            tr("for query (2, 5, 6), key (2, 7, 4) and w (6, 4)"),
            "(query @ w) @ key.transpose(-2, -1)",
            tr("the scores tensor"),
        )
    if problem is not None:
        return failed(problem)
    result = on_cpu(result).float()
    expected = torch.einsum("bqd,de,bke->bqk", query, w, key)
    if torch.allclose(result, expected, atol=1e-4):
        return passed(tr("general_scores computes q^T W k for every (query, key) pair"))
    if torch.allclose(result, expected / math.sqrt(4), atol=1e-4) or torch.allclose(
        result, expected / math.sqrt(6), atol=1e-4
    ):
        failure = tr("Luong's general score has no scaling: return q^T W k itself")
    else:
        failure = tr(
            "scores differ from q_i^T W k_j: project the queries with w (query @ w), then take "
            "dot products with the keys (@ key.transpose(-2, -1))"
        )
    return failed(failure)
