"""Checks for the exercises of notebook 05 (multi-head attention).

Hand-written: edit this file itself; no notebook generates it.

Each check builds its own small module and inputs inside ``torch.random.fork_rng``, so running a
check never changes the random numbers the notebook draws afterwards.
"""

import math
import numbers
from collections.abc import Callable

import torch
from torch import nn

from helpers.exercises import (
    call_solution,
    count_parameters,
    failed,
    on_cpu,
    passed,
    tensor_problem,
)
from helpers.language import tr
from helpers.model.multi_head_attention import MultiHeadAttention


def _small_attention(seed: int = 0) -> tuple[MultiHeadAttention, torch.Tensor]:
    """A MultiHeadAttention(12, 3) in eval mode and an input x of shape (2, 5, 12)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attention = MultiHeadAttention(d_model=12, n_heads=3).eval()
        x = torch.randn(2, 5, 12)
    return attention, x


def check_split_heads(split_heads: Callable) -> None:
    """split_heads(x, n_heads): (batch, seq_len, n_heads * d_head) -> (batch, n_heads, seq_len, d_head)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        cases = [torch.randn(2, 5, 12), torch.randn(3, 4, 8)]
    for x, n_heads in zip(cases, (3, 2), strict=True):
        batch, seq_len, width = x.shape
        d_head = width // n_heads
        expected = x.view(batch, seq_len, n_heads, d_head).transpose(1, 2)
        result, problem = call_solution(split_heads, x.clone(), n_heads)
        if problem is None:
            problem = tensor_problem(
                result,
                expected,
                tr("(batch, n_heads, seq_len, d_head) for x {shape}").format(shape=tuple(x.shape)),
            )
        if problem is not None:
            return failed(problem)
        result = on_cpu(result)
        if torch.equal(result, expected):
            continue
        if torch.equal(result, x.reshape(batch, n_heads, seq_len, d_head)):
            return failed(
                tr(
                    "right shape, wrong values: reshaping straight to (batch, n_heads, seq_len, d_head) "
                    "mixes positions; head i of position t is x[:, t, i*d_head:(i+1)*d_head]"
                )
            )
        return failed(
            tr(
                "right shape, wrong values: head i of position t should be x[:, t, i*d_head:(i+1)*d_head]"
            )
        )
    return passed(tr("split_heads puts features i*d_head:(i+1)*d_head of every position in head i"))


def check_output_as_sum_over_heads(output_as_sum_over_heads: Callable) -> None:
    """output_as_sum_over_heads(mha, x) -> the self-attention output, (batch, seq_len, d_model)."""
    attention, x = _small_attention(seed=1)
    with torch.no_grad():
        expected, _ = attention(x, x, x)
        result, problem = call_solution(output_as_sum_over_heads, attention, x.clone())
    if problem is None:
        problem = tensor_problem(result, expected, tr("the output"))
    if problem is not None:
        return failed(problem)
    result = on_cpu(result)
    if torch.allclose(result, expected, atol=1e-5, rtol=1e-5):
        return passed(
            tr(
                "Concat(head_1, ..., head_h) W^O equals b^O plus the sum over heads of "
                "head_i times its slice of W^O"
            )
        )
    with torch.no_grad():
        without_bias = expected - attention.w_o.bias
    if torch.allclose(result, without_bias, atol=1e-5, rtol=1e-5):
        return failed(tr("almost: add the bias of w_o once (not once per head)"))
    if torch.allclose(
        result, without_bias + attention.n_heads * attention.w_o.bias, atol=1e-5, rtol=1e-5
    ):
        return failed(tr("the bias of w_o was added once per head: add it only once"))
    return failed(
        tr(
            "wrong values; head i uses columns i*d_v:(i+1)*d_v of w_o.weight: "
            "output = sum_i head_i @ w_o.weight[:, i*d_v:(i+1)*d_v].T + w_o.bias"
        )
    )


def _multi_query_count(d_model: int, n_heads: int) -> int:
    """Parameters of multi-query attention, counted from real nn.Linear layers."""
    d_k = d_model // n_heads
    layers = [
        nn.Linear(d_model, n_heads * d_k),  # queries: one per head, as before
        nn.Linear(d_model, d_k),  # keys: one head shared by all query heads
        nn.Linear(d_model, d_k),  # values: one head shared by all query heads
        nn.Linear(n_heads * d_k, d_model),  # output projection, as before
    ]
    return sum(count_parameters(layer) for layer in layers)


def check_multi_query_parameter_count(multi_query_parameter_count: Callable) -> None:
    """multi_query_parameter_count(d_model, n_heads) -> int, for d_k = d_v = d_model / n_heads."""
    with torch.random.fork_rng(devices=[]):
        for d_model, n_heads in [(512, 8), (32, 4), (64, 1), (96, 12)]:
            expected = _multi_query_count(d_model, n_heads)
            result, problem = call_solution(multi_query_parameter_count, d_model, n_heads)
            if problem is not None:
                return failed(problem)
            if isinstance(result, bool) or not isinstance(result, numbers.Real | torch.Tensor):
                return failed(
                    tr("expected a number of parameters, got {type}").format(
                        type=type(result).__name__
                    )
                )
            try:
                value = float(result)
            except (TypeError, ValueError, RuntimeError):
                return failed(tr("expected a single number, got {result!r}").format(result=result))
            if math.isclose(value, expected):
                continue
            where = tr(
                "for d_model={d_model}, n_heads={n_heads}: expected {expected:,}, got {value:,.0f}"
            ).format(d_model=d_model, n_heads=n_heads, expected=expected, value=value)
            if math.isclose(value, 4 * d_model**2 + 4 * d_model):
                hint = tr(
                    "that is ordinary multi-head attention; here K and V have one head of d_k"
                )
            elif math.isclose(value, expected - d_model - 2 * (d_model // n_heads) - d_model):
                hint = tr("did you forget the biases?")
            else:
                hint = tr(
                    "count W^Q and W^O (d_model x d_model) and W^K, W^V (d_model x d_k), with biases"
                )
            return failed(tr("{where}; {hint}").format(where=where, hint=hint))
    return passed(
        tr("multi-query attention: 2 d_model^2 + 2 d_model d_k + 2 d_model + 2 d_k parameters")
    )
