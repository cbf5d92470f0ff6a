"""Checks for the exercises of notebook 17 (the modern block, one change at a time).

Hand-written: edit this file itself; no notebook generates it.

Each check prints its answer in words and returns None; it never raises on a wrong or
unfinished answer.
"""

from collections.abc import Callable

import torch

from helpers.exercises import call_solution, failed, keeps_random_state, passed
from helpers.language import tr


def _shape_problem(result: object, shape: tuple) -> str | None:
    if not isinstance(result, torch.Tensor) or tuple(result.shape) != shape:
        return tr("expected a tensor of shape {shape}, got {got}").format(
            shape=shape, got=tuple(getattr(result, "shape", ())) or type(result).__name__
        )
    return None


@keeps_random_state
def check_rms_norm(function: Callable[..., torch.Tensor]) -> None:
    """Exercise 1: rms_norm(x, weight, eps), RMSNorm as a function, against torch's."""
    torch.manual_seed(0)
    cases = [(torch.randn(3, 8) * 4 + 2, torch.linspace(0.5, 2.0, 8)),
             (torch.randn(2, 5, 16), torch.ones(16))]  # fmt: skip
    for x, weight in cases:
        result, problem = call_solution(function, x.clone(), weight.clone(), 1e-5)
        if problem is not None:
            return failed(problem)
        problem = _shape_problem(result, tuple(x.shape))
        if problem is not None:
            return failed(problem)
        result = result.detach().cpu().float()
        expected = torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, 1e-5)
        if torch.allclose(result, expected, atol=1e-5):
            continue
        centred = x - x.mean(dim=-1, keepdim=True)
        layer_norm = centred * torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + 1e-5) * weight
        if torch.allclose(result, layer_norm, atol=1e-5):
            hint = tr("that is LayerNorm: RMSNorm does not subtract the mean")
        elif torch.allclose(result * weight, expected, atol=1e-5):
            hint = tr("multiply by the gain weight at the end")
        else:
            hint = tr("divide x by sqrt(mean(x^2) + eps) over the last dimension")
        return failed(tr("rms_norm differs from torch.nn.functional.rms_norm ({hint})").format(
            hint=hint))  # fmt: skip
    return passed(tr("rms_norm = torch.nn.functional.rms_norm in all {count} cases").format(
        count=len(cases)))  # fmt: skip


def check_kv_cache_bytes(function: Callable[..., int]) -> None:
    """Exercise 2: kv_cache_bytes(n_layers, n_kv_heads, d_k, bytes_per_value), per token."""
    cases = [((32, 32, 128, 2), 524_288), ((80, 8, 128, 2), 327_680), ((2, 2, 16, 4), 512),
             ((1, 1, 1, 1), 2)]  # fmt: skip
    for arguments, expected in cases:
        result, problem = call_solution(function, *arguments)
        if problem is not None:
            return failed(problem)
        if result == expected:
            continue
        hint = (
            tr("a key and a value: count both")
            if result == expected // 2
            else tr("every layer keeps n_kv_heads heads of d_k numbers")
        )
        return failed(tr("kv_cache_bytes{arguments}: expected {expected:,}, got {got!r} ({hint})")
                      .format(arguments=arguments, expected=expected, got=result, hint=hint))  # fmt: skip
    return passed(tr("kv_cache_bytes is right in all {count} cases, Llama 2's included").format(
        count=len(cases)))  # fmt: skip


@keeps_random_state
def check_repeat_kv(function: Callable[[torch.Tensor, int], torch.Tensor]) -> None:
    """Exercise 3: repeat_kv(k, group): (batch, n_kv_heads, seq, d) -> (batch, n_kv_heads * group,
    seq, d), query head j reading key head j // group."""
    torch.manual_seed(0)
    cases = [
        (torch.randn(2, 2, 5, 4), 3),
        (torch.randn(1, 4, 3, 2), 2),
        (torch.randn(1, 1, 3, 2), 4),
    ]
    for k, group in cases:
        result, problem = call_solution(function, k.clone(), group)
        if problem is not None:
            return failed(problem)
        shape = (k.shape[0], k.shape[1] * group, *k.shape[2:])
        problem = _shape_problem(result, shape)
        if problem is not None:
            return failed(problem)
        result = result.detach().cpu()
        if torch.equal(result, k.repeat_interleave(group, dim=1)):
            continue
        if torch.equal(result, k.repeat(1, group, 1, 1)):
            hint = tr("the heads are tiled: query head j must read key head j // group, not "
                      "j % n_kv_heads")  # fmt: skip
        else:
            hint = tr("repeat each key head group times, side by side")
        return failed(tr("repeat_kv(k, {group}) puts the wrong key heads in place ({hint})").format(
            group=group, hint=hint))  # fmt: skip
    return passed(tr("repeat_kv matches enable_gqa's grouping in all {count} cases").format(
        count=len(cases)))  # fmt: skip
