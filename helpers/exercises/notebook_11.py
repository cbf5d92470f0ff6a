"""Checks for the exercises of notebook 11 (training).

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from helpers.exercises import as_number, call_solution, on_cpu, verdict
from helpers.language import tr
from helpers.pipeline.training import smoothed_targets, warmup_lambda


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


def _paper_rate(step: int, d_model: int, warmup_steps: int) -> float:
    return d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)


def check_noam_rate(function: Callable[[int, int, int], float]) -> None:
    """Exercise 1: noam_rate(step, d_model, warmup_steps), step counted from 1."""
    cases = [
        (d_model, warmup, step)
        for d_model, warmup in ((512, 4000), (256, 4000), (128, 100))
        for step in (1, 2, warmup // 2, warmup - 1, warmup, warmup + 1, 3 * warmup, 100_000)
    ]
    for d_model, warmup, step in cases:
        expected = warmup_lambda(d_model, warmup)(step - 1)  # the LambdaLR counts from 0
        result, problem = call_solution(function, step, d_model, warmup)
        if problem is not None and isinstance(problem.error, ZeroDivisionError):
            problem = tr(
                "your function raised ZeroDivisionError at step {step}: the step is counted from "
                "1, so step 0 never occurs; use step as it is, do not subtract 1"
            ).format(step=step)
        if problem is not None:
            return verdict(False, "", problem)
        value = as_number(result)
        if value is None:
            return verdict(False, "", _not_a_number(result, tr("a float"), tr("return one number")))
        if math.isclose(value, expected, rel_tol=1e-6):
            continue
        where = tr("step {step}, d_model {d_model}, warmup_steps {warmup}").format(
            step=step, d_model=d_model, warmup=warmup
        )
        if step == 1 and (value == 0 or not math.isfinite(value)):
            hint = tr("the step is counted from 1, so step 0 never occurs: do not subtract 1")
        elif math.isclose(value, _paper_rate(step + 1, d_model, warmup), rel_tol=1e-6):
            hint = tr("off by one: here step counts from 1 (the paper's step), not from 0")
        elif step > 1 and math.isclose(value, _paper_rate(step - 1, d_model, warmup), rel_tol=1e-6):
            hint = tr("off by one: the step is counted from 1 already, do not subtract 1")
        elif math.isclose(value, expected * d_model**0.5, rel_tol=1e-6):
            hint = tr("the factor d_model^-0.5 is missing")
        elif step < warmup and math.isclose(value, d_model**-0.5 * step**-0.5, rel_tol=1e-6):
            hint = tr("during the warm-up the smaller of the two terms wins: use min, not max")
        elif step > warmup and math.isclose(
            value, d_model**-0.5 * step * warmup**-1.5, rel_tol=1e-6
        ):
            hint = tr("after the warm-up the smaller of the two terms wins: use min, not max")
        else:
            hint = tr("compare with d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)")
        return verdict(
            False,
            "",
            tr("{where}: expected {expected:.6g}, got {value:.6g} ({hint})").format(
                where=where, expected=expected, value=value, hint=hint
            ),
        )
    return verdict(
        True,
        tr("noam_rate matches the schedule of §5.3 at {count} steps, warm-up and decay").format(
            count=len(cases)
        ),
        "",
    )


def check_padding_fraction(function: Callable[[torch.Tensor, int], float]) -> None:
    """Exercise 2: padding_fraction(batch, pad_id) -> fraction of entries equal to pad_id."""
    cases = [
        (tr("two rows, 3 pads in 6"), torch.tensor([[5, 6, 0], [7, 0, 0]]), 0, 0.5),
        (tr("no padding"), torch.tensor([[4, 5], [6, 7]]), 0, 0.0),
        (tr("pad id 3, 1 pad in 8"), torch.tensor([[4, 5, 6, 7], [8, 9, 10, 3]]), 3, 0.125),
        (tr("one row, 3 pads in 4"), torch.tensor([[9, 0, 0, 0]]), 0, 0.75),
    ]
    for name, batch, pad_id, expected in cases:
        result, problem = call_solution(function, batch.clone(), pad_id)
        if problem is not None:
            return verdict(False, "", problem)
        value = as_number(result)
        if value is None:
            return verdict(
                False,
                "",
                _not_a_number(
                    result,
                    tr("a float"),
                    tr(
                        "average over every entry with .mean() (no dim), then .item() gives a float"
                    ),
                ),
            )
        if math.isclose(value, expected, abs_tol=1e-9):
            continue
        pads = int((batch == pad_id).sum())
        if math.isclose(value, pads, abs_tol=1e-9) and pads != expected:
            hint = tr("that is the number of pads: divide by the number of entries")
        elif math.isclose(value, 1 - expected, abs_tol=1e-9):
            hint = tr("that is the fraction of real tokens: count the entries equal to pad_id")
        elif math.isclose(value, pads / batch.shape[0], abs_tol=1e-9):
            hint = tr("divide by every entry, batch * seq_len, not by the number of rows")
        else:
            hint = tr("count the entries equal to pad_id and divide by batch.numel()")
        return verdict(
            False,
            "",
            tr("{name}: expected {expected}, got {value:.4g} ({hint})").format(
                name=name, expected=expected, value=value, hint=hint
            ),
        )
    return verdict(
        True, tr("padding_fraction is right on all {count} batches").format(count=len(cases)), ""
    )


def check_smoothed_targets(function: Callable[[torch.Tensor, int, float], torch.Tensor]) -> None:
    """Exercise 3: smooth(target, vocab_size, epsilon) -> (n, vocab_size) distributions."""
    cases = [
        (torch.tensor([4, 5, 6, 7, 3]), 8, 0.1),
        (torch.tensor([0, 9, 2]), 10, 0.2),
        (torch.tensor([1, 1]), 5, 0.0),
    ]
    for target, vocab_size, epsilon in cases:
        expected = smoothed_targets(target, vocab_size, epsilon)
        result, problem = call_solution(function, target.clone(), vocab_size, epsilon)
        if problem is not None:
            return verdict(False, "", problem)
        if not isinstance(result, torch.Tensor):
            return verdict(
                False, "", tr("expected a tensor, got {type}").format(type=type(result).__name__)
            )
        where = tr("targets {targets}, V = {vocab_size}, ε = {epsilon}").format(
            targets=target.tolist(), vocab_size=vocab_size, epsilon=epsilon
        )
        if tuple(result.shape) != tuple(expected.shape):
            return verdict(
                False,
                "",
                tr("{where}: expected shape {shape} (n, vocab_size), got {got}").format(
                    where=where, shape=tuple(expected.shape), got=tuple(result.shape)
                ),
            )
        result = on_cpu(result).double()
        if torch.allclose(result, expected.double(), atol=1e-6, rtol=0):
            continue
        rows = torch.arange(len(target))
        gold = result[rows, target]
        if not torch.allclose(result.sum(dim=1), torch.ones(len(target), dtype=torch.double)):
            hint = tr("each row should sum to 1")
            if torch.allclose(gold, torch.full_like(gold, 1 - epsilon)):
                hint += tr(": the gold id keeps its own share ε/V too, 1 - ε + ε/V")
        elif torch.allclose(gold, torch.full_like(gold, 1 - epsilon)):
            hint = tr(
                "this spreads ε over the V - 1 wrong words only; here (and in PyTorch) ε is "
                "spread over all V words, so the gold id gets 1 - ε + ε/V"
            )
        else:
            hint = tr("expected 1 - ε + ε/V on each row's target id and ε/V elsewhere")
        return verdict(
            False, "", tr("{where}: wrong values ({hint})").format(where=where, hint=hint)
        )
    return verdict(
        True,
        tr("smooth matches smoothed_targets in all {count} cases").format(count=len(cases)),
        "",
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
    for epsilon in (0.1, 0.0, 0.3):
        expected = F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), label_smoothing=epsilon, ignore_index=0
        )
        result, problem = call_solution(function, logits.clone(), target.clone(), epsilon, 0)
        if problem is not None:
            return verdict(False, "", problem)
        value = as_number(result)
        if value is None:
            return verdict(
                False,
                "",
                _not_a_number(
                    result,
                    tr("a scalar tensor (the mean loss)"),
                    tr("one loss per position; average it with .mean()"),
                ),
            )
        if math.isclose(value, expected.item(), rel_tol=1e-5, abs_tol=1e-6):
            continue
        with_pads = F.cross_entropy(logits.flatten(0, 1), target.flatten(), label_smoothing=epsilon)
        if math.isclose(value, with_pads.item(), rel_tol=1e-5):
            hint = tr(
                "the pad positions are counted: keep only the positions where target != pad_id"
            )
        else:
            hint = tr("check both terms: (1 - ε) times -log p(y), plus ε times the mean of -log p")
        return verdict(
            False,
            "",
            tr(
                "ε = {epsilon}: expected {expected:.5f} (F.cross_entropy with "
                "label_smoothing and ignore_index), got {value:.5f} ({hint})"
            ).format(epsilon=epsilon, expected=expected.item(), value=value, hint=hint),
        )
    return verdict(
        True,
        tr(
            "two_term_smoothing_loss equals F.cross_entropy(label_smoothing=ε, ignore_index=pad) "
            "for ε = 0.1, 0 and 0.3"
        ),
        "",
    )
