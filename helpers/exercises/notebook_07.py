"""Checks for the exercises of notebook 07 (residuals, layer norm, dropout; Post-LN vs Pre-LN).

Hand-written: edit this file itself; no notebook generates it.

Each check draws its inputs inside ``torch.random.fork_rng``, so running a check never changes
the random numbers the notebook draws afterwards.
"""

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from helpers.exercises import (
    as_number,
    call_solution,
    failed,
    keeps_random_state,
    on_cpu,
    passed,
    tensor_problem,
)
from helpers.language import tr
from helpers.model.sublayers import ResidualSublayer


def _close(result: torch.Tensor, expected: torch.Tensor) -> bool:
    return torch.allclose(result, expected, rtol=1e-5, atol=1e-5)


def check_rms_norm(rms_norm: Callable) -> None:
    """rms_norm(x, gain, eps) -> gain * x / sqrt(mean(x**2 over the last dim) + eps)."""
    eps = 1e-6
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(7)
        # A non-zero mean, so that subtracting it (LayerNorm) gives a different answer.
        x = 2.0 * torch.randn(2, 3, 8) + 1.5
        gain = 0.5 + torch.rand(8)
    expected = F.rms_norm(x, (8,), gain, eps)
    result, problem = call_solution(rms_norm, x.clone(), gain.clone(), eps)
    if problem is None:
        problem = tensor_problem(result, expected, tr("the normalised x"))
    if problem is not None:
        return failed(problem)
    result = on_cpu(result)
    if _close(result, expected):
        return passed(tr("rms_norm matches F.rms_norm: x / RMS(x) times the gain"))

    centred = x - x.mean(-1, keepdim=True)
    rms = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    mistakes = [
        (
            gain * centred / torch.sqrt(centred.pow(2).mean(-1, keepdim=True) + eps),
            tr(
                "you subtracted the mean: that is LayerNorm; RMSNorm divides x itself by its root mean square"
            ),
        ),
        (x / rms, tr("almost: multiply by the gain")),
        (
            gain * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps),
            tr("eps goes inside the square root: sqrt(mean(x**2) + eps)"),
        ),
        (
            gain * x / torch.sqrt(x.pow(2).mean(0, keepdim=True) + eps),
            tr("normalise over the last dimension (the features of one position), dim=-1"),
        ),
        (
            gain * x / torch.sqrt(x.pow(2).sum(-1, keepdim=True) + eps),
            tr("use the mean of x**2 over the features, not the sum"),
        ),
    ]
    for wrong, message in mistakes:
        if _close(result, wrong):
            return failed(message)
    return failed(
        tr("wrong values: expected gain * x / sqrt(mean(x**2, dim=-1, keepdim=True) + eps)")
    )


def check_dropout_moments(dropout_moments: Callable) -> None:
    """dropout_moments(p) -> (mean, variance) of m / (1 - p), m ~ Bernoulli(1 - p)."""
    for p in (0.1, 0.3, 0.5):
        exact_mean, exact_variance = 1.0, p / (1 - p)
        result, problem = call_solution(dropout_moments, p)
        if problem is not None:
            return failed(problem)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return failed(
                tr("expected a pair (mean, variance), got {result!r}").format(result=result)
            )
        mean, variance = as_number(result[0]), as_number(result[1])
        if mean is None or variance is None:
            return failed(
                tr("expected two numbers (mean, variance), got {result!r}").format(result=result)
            )
        if abs(mean - exact_mean) > 0.01:
            if abs(mean - (1 - p)) < 0.01:
                message = tr(
                    "the mean is 1 - p only without the 1/(1 - p) scaling; inverted dropout keeps it at 1"
                )
            else:
                message = tr(
                    "for p={p} the mean should be 1 (the expectation is preserved), got {mean:.4f}"
                ).format(p=p, mean=mean)
            return failed(message)
        if abs(variance - exact_variance) > 0.01 * exact_variance:
            if abs(variance - p * (1 - p)) < 1e-3:
                message = tr(
                    "p(1 - p) is the variance of the mask m; dividing by 1 - p divides it by (1 - p)**2"
                )
            elif abs(variance - p) < 1e-3:
                message = tr("p is not it: Var[m] = p(1 - p), then divide by (1 - p)**2")
            else:
                message = tr(
                    "for p={p} the variance should be {expected:.4f}, got {variance:.4f}"
                ).format(p=p, expected=exact_variance, variance=variance)
            return failed(message)
    return passed(
        tr(
            "mean 1 and variance p/(1 - p): 0.1111 for p = 0.1, 1 for p = 0.5; dropout keeps the mean, "
            "not the spread"
        )
    )


class _OtherResidual(nn.Module):
    """Another library's Add & Norm: the same two placements, other names, nothing to read."""

    def __init__(self, d_model: int, pre: bool):
        super().__init__()
        self._layer_norm = nn.LayerNorm(d_model)
        self._pre = pre

    def forward(self, x: torch.Tensor, sublayer: Callable) -> torch.Tensor:
        if self._pre:
            return x + sublayer(self._layer_norm(x))
        return self._layer_norm(x + sublayer(x))


@keeps_random_state
def check_is_pre_norm(is_pre_norm: Callable) -> None:
    """is_pre_norm(residual, d_model) -> True for a Pre-LN wrapper, False for a Post-LN one."""
    torch.manual_seed(5)
    d_model = 8
    cases = []
    for pre in (False, True, True, False):
        cases.append((ResidualSublayer(d_model, dropout=0.1, norm_first=pre).train(), pre))
        cases.append((_OtherResidual(d_model, pre), pre))
    for residual, pre in cases:
        result, problem = call_solution(is_pre_norm, residual, d_model)
        if problem is not None:
            return failed(problem)
        if isinstance(result, torch.Tensor) and result.numel() == 1:
            result = bool(result.item())
        if not isinstance(result, bool):
            return failed(
                tr("expected True or False, got {type}").format(type=type(result).__name__)
            )
        if result != pre:
            return failed(
                tr(
                    "a {placement} wrapper got {answer}: with a zero sublayer, Pre-LN returns x "
                    "itself and Post-LN returns norm(x), which differs from x unless x is "
                    "already normalised"
                ).format(placement="Pre-LN" if pre else "Post-LN", answer=result)
            )
    return passed(
        tr("you told Pre-LN from Post-LN in {count} wrappers, by probing them alone").format(
            count=len(cases)
        )
    )
