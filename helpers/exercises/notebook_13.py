"""Checks for the exercises of notebook 13 (why self-attention).

Hand-written: edit this file itself; no notebook generates it.

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

from collections.abc import Callable

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

from helpers.evaluation.complexity import RestrictedSelfAttention
from helpers.exercises import call_solution, failed, keeps_random_state, on_cpu, passed
from helpers.language import tr


def _as_int(result: object) -> int | None:
    """An int from an int, a numpy integer or a one-element integer tensor; None otherwise."""
    if isinstance(result, bool):
        return None
    if isinstance(result, (int, np.integer)):
        return int(result)
    if isinstance(result, torch.Tensor) and result.numel() == 1 and not result.is_floating_point():
        return int(result.item())
    return None


def _causal_conv_layers_truth(n: int, kernel_size: int, dilated: bool) -> int:
    """Follows the receptive field position by position: which inputs can output n - 1 see?"""
    seen = {n - 1}  # positions output n - 1 depends on after the layers so far
    layers = 0
    while 0 not in seen:
        dilation = kernel_size**layers if dilated else 1
        seen = {p - tap * dilation for p in seen for tap in range(kernel_size)}
        seen = {p for p in seen if p >= 0}
        layers += 1
    return layers


def check_causal_conv_layers(function: Callable[[int, int, bool], int]) -> None:
    """Exercise 1: causal_conv_layers(n, kernel_size, dilated) for several sizes."""
    cases = [
        (16, 3, False),
        (16, 3, True),
        (2, 2, False),
        (100, 5, False),
        (100, 5, True),
        (1025, 2, True),
        (1000, 4, True),
    ]
    for n, kernel_size, dilated in cases:
        expected = _causal_conv_layers_truth(n, kernel_size, dilated)
        result, problem = call_solution(function, n, kernel_size, dilated)
        if problem is not None:
            return failed(problem)
        answer = _as_int(result)
        if answer is None:
            return failed(
                tr("expected an int (a number of layers), got {type}").format(
                    type=type(result).__name__
                )
            )
        if answer != expected:
            hint = (
                tr(
                    "layer l has dilation kernel_size**l and reaches (kernel_size - 1) * dilation "
                    "back"
                )
                if dilated
                else tr("each causal layer reaches kernel_size - 1 positions back, not (k - 1) / 2")
            )
            return failed(
                tr(
                    "n={n}, kernel_size={kernel_size}, dilated={dilated}: expected {expected} "
                    "layers, got {answer} ({hint})"
                ).format(
                    n=n,
                    kernel_size=kernel_size,
                    dilated=dilated,
                    expected=expected,
                    answer=answer,
                    hint=hint,
                )
            )
    return passed(
        tr("causal_conv_layers is right in all {count} cases, dilated and contiguous").format(
            count=len(cases)
        )
    )


def _prefix_lm_truth(length: int, prefix_length: int) -> torch.Tensor:
    query = torch.arange(length)[:, None]
    key = torch.arange(length)[None, :]
    return (key <= query) | ((query < prefix_length) & (key < prefix_length))


def check_prefix_lm_mask(function: Callable[[int, int], torch.Tensor]) -> None:
    """Exercise 2: prefix_lm_mask(length, prefix_length) for several lengths and prefixes."""
    cases = [(5, 2), (6, 3), (4, 0), (4, 1), (4, 4), (1, 1), (7, 5)]
    for length, prefix_length in cases:
        expected = _prefix_lm_truth(length, prefix_length)
        result, problem = call_solution(function, length, prefix_length)
        if problem is not None:
            return failed(problem)
        if not isinstance(result, torch.Tensor):
            return failed(
                tr("expected a bool tensor, got {type}").format(type=type(result).__name__)
            )
        if result.dtype != torch.bool:
            return failed(
                tr("expected dtype torch.bool (True = may attend), got {dtype}").format(
                    dtype=result.dtype
                )
            )
        if result.shape != expected.shape:
            return failed(
                tr("length={length}: expected shape {shape} (queries x keys), got {got}").format(
                    length=length, shape=tuple(expected.shape), got=tuple(result.shape)
                )
            )
        result = on_cpu(result)
        if not torch.equal(result, expected):
            wrong = (result != expected).nonzero()[0].tolist()
            query, key = wrong
            message = (
                tr(
                    "length={length}, prefix_length={prefix_length}: query {query} may attend "
                    "to key {key}, your mask says {says}"
                )
                if expected[query, key]
                else tr(
                    "length={length}, prefix_length={prefix_length}: query {query} may not attend "
                    "to key {key}, your mask says {says}"
                )
            )
            return failed(
                message.format(
                    length=length,
                    prefix_length=prefix_length,
                    query=query,
                    key=key,
                    says=bool(result[query, key]),
                )
            )
    return passed(
        tr(
            "prefix_lm_mask is right for all {count} cases, from a pure look-ahead mask "
            "(prefix 0) to a full one (prefix = length)"
        ).format(count=len(cases))
    )


def _restricted_attention_flops_truth(n: int, d_model: int, n_heads: int, window: int) -> int:
    torch.manual_seed(0)
    layer = RestrictedSelfAttention(d_model, n_heads, window)
    x = torch.randn(1, n, d_model)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        layer(x)
    return counter.get_total_flops()


@keeps_random_state
def check_restricted_attention_flops(function: Callable[[int, int, int], int]) -> None:
    """Exercise 3: restricted_attention_flops(n, d_model, window) against FlopCounterMode."""
    cases = [(8, 16, 2, 3), (16, 8, 4, 5), (64, 64, 4, 9), (100, 32, 8, 7), (1, 12, 3, 3)]
    for n, d_model, n_heads, window in cases:
        expected = _restricted_attention_flops_truth(n, d_model, n_heads, window)
        result, problem = call_solution(function, n, d_model, window)
        if problem is not None:
            return failed(problem)
        answer = _as_int(result)
        if answer is None and isinstance(result, float) and result.is_integer():
            answer = int(result)
        if answer is None:
            return failed(
                tr("expected an int (a number of FLOPs), got {type}").format(
                    type=type(result).__name__
                )
            )
        if answer != expected:
            projections = 8 * n * d_model * d_model
            if answer == projections:
                hint = tr("that is the four projections alone: add the scores and the weighted sum")
            elif answer == projections + 4 * n * n * d_model:
                hint = tr("that is full attention: each query meets only the keys of its window")
            elif 2 * answer == expected:
                hint = tr("count 2 FLOPs per multiply-add")
            else:
                hint = tr(
                    "four projections of 2 * n * d_model^2 FLOPs each, then each query against "
                    "its window of keys and the weighted sum of its window of values, padding "
                    "slots included, summed over the heads"
                )
            return failed(
                tr(
                    "n={n}, d_model={d_model}, window={window} ({n_heads} heads): "
                    "FlopCounterMode counts {expected:,} FLOPs, you said {answer:,} ({hint})"
                ).format(
                    n=n,
                    d_model=d_model,
                    window=window,
                    n_heads=n_heads,
                    expected=expected,
                    answer=answer,
                    hint=hint,
                )
            )
    return passed(
        tr(
            "restricted_attention_flops matches FlopCounterMode for all {count} sizes, whatever "
            "the number of heads"
        ).format(count=len(cases))
    )
