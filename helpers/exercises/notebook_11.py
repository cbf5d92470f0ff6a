"""Checks for the exercises of notebook 11 (training).

Hand-written: edit this file itself; no notebook generates it.

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from helpers.exercises import as_number, call_solution, failed, on_cpu, passed
from helpers.language import tr
from helpers.training.transformer import smoothed_targets


def _not_a_number(result, expected: str, fix: str) -> str:
    """Why result is not the number expected ("a float"); fix is said for a tensor of many values."""
    if isinstance(result, torch.Tensor):
        if result.numel() != 1:
            return tr("expected {expected}, got a tensor of shape {shape}: {fix}").format(
                expected=expected, shape=tuple(result.shape), fix=fix
            )
        return tr("expected {expected}, got a one-element tensor of dtype {dtype}").format(
            expected=expected, dtype=result.dtype
        )
    return tr("expected {expected}, got {type}").format(
        expected=expected, type=type(result).__name__
    )


def check_steps_to_fall(function: Callable[[int, int, float], int]) -> None:
    """Exercise 1: steps_to_fall(d_model, warmup_steps, fraction) -> the first step after the
    peak whose rate is at most fraction times the peak rate (steps counted from 1)."""
    cases = [
        (d_model, warmup, fraction)
        for d_model, warmup in ((512, 4000), (128, 100), (256, 4000))
        for fraction in (0.9, 0.6, 0.3)
    ]
    for d_model, warmup, fraction in cases:
        expected = math.ceil(warmup / fraction**2)  # none of these cases is a whole number
        result, problem = call_solution(function, d_model, warmup, fraction)
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None or value != int(value):
            return failed(
                tr("expected a whole step number (an int), got {result!r}").format(result=result)
            )
        if value == expected:
            continue
        where = tr("d_model {d_model}, warmup_steps {warmup}, fraction {fraction}").format(
            d_model=d_model, warmup=warmup, fraction=fraction
        )
        if value <= warmup:
            hint = tr("that step is in the warm-up, before the peak: look after the peak")
        elif value == expected - 1:
            hint = tr("at that step the rate is still above the fraction: one step later")
        elif value == expected + 1:
            hint = tr("the step before already has a rate at most the fraction")
        elif value == math.ceil(warmup / fraction):
            hint = tr("after the peak the rate falls like 1/sqrt(step), not like 1/step")
        else:
            hint = tr("compare the rate after the peak with the peak rate, both from §5.3")
        return failed(
            tr("{where}: expected step {expected}, got {value:.0f} ({hint})").format(
                where=where, expected=expected, value=value, hint=hint
            )
        )
    return passed(
        tr(
            "steps_to_fall is right in all {count} cases, three schedules and three fractions"
        ).format(count=len(cases))
    )


def _cross_entropy(logits: torch.Tensor, target: torch.Tensor, pad_id: int | None) -> float:
    index = -100 if pad_id is None else pad_id
    return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=index).item()


def check_perplexity(function: Callable[[torch.Tensor, torch.Tensor, int], float]) -> None:
    """Exercise 2: perplexity(logits, target, pad_id) -> e to the mean cross-entropy per
    non-pad target token."""
    generator = torch.Generator().manual_seed(2)
    random_logits = 2 * torch.randn(3, 5, 9, generator=generator)
    padded = torch.randint(4, 9, (3, 5), generator=generator)
    padded[1, 3:], padded[2, 1:] = 0, 0
    confident = torch.full((2, 4, 9), -20.0)
    gold = torch.randint(4, 9, (2, 4), generator=generator)
    confident.scatter_(-1, gold[..., None], 20.0)
    other_pad = padded.masked_fill(padded == 0, 3)
    cases = [
        (tr("uniform logits, V = 9"), torch.zeros(2, 4, 9), gold, 0),
        (tr("random logits, padded targets"), random_logits, padded, 0),
        (tr("pad id 3"), random_logits, other_pad, 3),
        (tr("confident and right"), confident, gold, 0),
    ]
    for name, logits, target, pad_id in cases:
        expected = math.exp(_cross_entropy(logits, target, pad_id))
        result, problem = call_solution(function, logits.clone(), target.clone(), pad_id)
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None:
            return failed(
                _not_a_number(result, tr("a float"), tr("average over every non-pad position"))
            )
        if math.isclose(value, expected, rel_tol=1e-5):
            continue
        keep = target != pad_id
        per_token = F.cross_entropy(logits[keep], target[keep], reduction="none")
        if math.isclose(value, math.log(expected), rel_tol=1e-5, abs_tol=1e-9):
            hint = tr("that is the mean cross-entropy: the perplexity is e to it")
        elif math.isclose(value, math.exp(_cross_entropy(logits, target, None)), rel_tol=1e-5):
            hint = tr("the padding counts as targets: average over the non-pad positions only")
        elif math.isclose(value, per_token.exp().mean().item(), rel_tol=1e-5):
            hint = tr("take e to the mean loss, not the mean of each token's e to its loss")
        else:
            hint = tr("e to the mean cross-entropy over the non-pad target positions")
        return failed(
            tr("{name}: expected {expected:.4f}, got {value:.4g} ({hint})").format(
                name=name, expected=expected, value=value, hint=hint
            )
        )
    return passed(
        tr(
            "perplexity is right in all {count} cases: {vocab_size} for a uniform guess over "
            "{vocab_size} words, about 1 for a confident right one"
        ).format(count=len(cases), vocab_size=9)
    )


def check_smoothed_targets(function: Callable[[torch.Tensor, int, float], torch.Tensor]) -> None:
    """Exercise 3: smooth(target, vocab_size, label_smoothing) -> (n, vocab_size) distributions."""
    cases = [
        (torch.tensor([4, 5, 6, 7, 3]), 8, 0.1),
        (torch.tensor([0, 9, 2]), 10, 0.2),
        (torch.tensor([1, 1]), 5, 0.0),
    ]
    for target, vocab_size, label_smoothing in cases:
        expected = smoothed_targets(target, vocab_size, label_smoothing)
        result, problem = call_solution(function, target.clone(), vocab_size, label_smoothing)
        if problem is not None:
            return failed(problem)
        if not isinstance(result, torch.Tensor):
            return failed(tr("expected a tensor, got {type}").format(type=type(result).__name__))
        where = tr("targets {targets}, V = {vocab_size}, ε = {label_smoothing}").format(
            targets=target.tolist(), vocab_size=vocab_size, label_smoothing=label_smoothing
        )
        if tuple(result.shape) != tuple(expected.shape):
            return failed(
                tr("{where}: expected shape {shape} (n, vocab_size), got {got}").format(
                    where=where, shape=tuple(expected.shape), got=tuple(result.shape)
                )
            )
        result = on_cpu(result).double()
        if torch.allclose(result, expected.double(), atol=1e-6, rtol=0):
            continue
        rows = torch.arange(len(target))
        gold = result[rows, target]
        if not torch.allclose(result.sum(dim=1), torch.ones(len(target), dtype=torch.double)):
            hint = tr("each row should sum to 1")
            if torch.allclose(gold, torch.full_like(gold, 1 - label_smoothing)):
                hint += tr(": the gold id keeps its own share ε/V too, 1 - ε + ε/V")
        elif torch.allclose(gold, torch.full_like(gold, 1 - label_smoothing)):
            hint = tr(
                "this spreads ε over the V - 1 wrong words only; here (and in PyTorch) ε is "
                "spread over all V words, so the gold id gets 1 - ε + ε/V"
            )
        else:
            hint = tr("expected 1 - ε + ε/V on each row's target id and ε/V elsewhere")
        return failed(tr("{where}: wrong values ({hint})").format(where=where, hint=hint))
    return passed(
        tr("smooth matches smoothed_targets in all {count} cases").format(count=len(cases))
    )


def check_two_term_smoothing_loss(
    function: Callable[[torch.Tensor, torch.Tensor, float, int], torch.Tensor],
) -> None:
    """Exercise 4: the smoothed loss as (1 - eps) * NLL + eps * mean(-log p), pads ignored."""
    generator = torch.Generator().manual_seed(11)
    logits = 3 * torch.randn(3, 6, 17, generator=generator)
    target = torch.randint(4, 17, (3, 6), generator=generator)
    target[1, 4:] = 0
    target[2, 2:] = 0
    for label_smoothing in (0.1, 0.0, 0.3):
        expected = F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), label_smoothing=label_smoothing, ignore_index=0
        )
        result, problem = call_solution(
            function, logits.clone(), target.clone(), label_smoothing, 0
        )
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None:
            return failed(
                _not_a_number(
                    result,
                    tr("a scalar tensor (the mean loss)"),
                    tr("one loss per position; average it with .mean()"),
                )
            )
        if math.isclose(value, expected.item(), rel_tol=1e-5, abs_tol=1e-6):
            continue
        with_pads = F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), label_smoothing=label_smoothing
        )
        if math.isclose(value, with_pads.item(), rel_tol=1e-5):
            hint = tr(
                "the pad positions are counted: keep only the positions where target != pad_id"
            )
        else:
            hint = tr("check both terms: (1 - ε) times -log p(y), plus ε times the mean of -log p")
        return failed(
            tr(
                "ε = {label_smoothing}: expected {expected:.5f} (F.cross_entropy with "
                "label_smoothing and ignore_index), got {value:.5f} ({hint})"
            ).format(
                label_smoothing=label_smoothing, expected=expected.item(), value=value, hint=hint
            )
        )
    return passed(
        tr(
            "two_term_smoothing_loss equals F.cross_entropy(label_smoothing=ε, ignore_index=pad) "
            "for ε = 0.1, 0 and 0.3"
        )
    )
