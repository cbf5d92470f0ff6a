"""Checks for the exercises of notebook 10 (the Transformer).

Hand-written: edit this file itself; no notebook generates it.

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

import inspect
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from helpers.exercises import call_solution, failed, keeps_random_state, on_cpu, passed
from helpers.language import tr
from helpers.model.transformer import Transformer, TransformerConfig


def _small_config(**overrides) -> TransformerConfig:
    sizes = dict(src_vocab_size=11, tgt_vocab_size=13, d_model=16, n_heads=2, d_ff=32, n_layers=1)
    sizes.update(overrides)
    return TransformerConfig(**sizes)


class _LooksAhead(nn.Module):
    """A model that is not causal: it reads the target backwards, so position t sees tokens > t."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        return self.model(src, tgt.flip(1)).flip(1)


def _as_bool(result) -> bool | None:
    if isinstance(result, (bool, np.bool_)):
        return bool(result)
    if isinstance(result, torch.Tensor) and result.numel() == 1 and result.dtype == torch.bool:
        return bool(result.item())
    return None


@keeps_random_state
def check_is_causal(function: Callable[[nn.Module, torch.Tensor, torch.Tensor], bool]) -> None:
    """Exercise 1: is_causal(model, src, tgt) says True for our model and False for a leaky one."""
    torch.manual_seed(0)
    model = Transformer(_small_config(n_layers=2)).eval()
    src = torch.randint(1, 11, (2, 5))
    tgt = torch.randint(1, 13, (2, 6))
    cases = [
        (tr("our Transformer"), model, True),
        (tr("a model that reads ahead"), _LooksAhead(model), False),
    ]
    for name, candidate, expected in cases:
        result, problem = call_solution(function, candidate, src.clone(), tgt.clone())
        if problem is not None:
            return failed(tr("on {name}: {problem}").format(name=name, problem=problem))
        answer = _as_bool(result)
        if answer is None:
            return failed(
                tr("expected True or False, got {type}").format(type=type(result).__name__)
            )
        if answer != expected:
            why = (
                tr(
                    "its logits before position k do not change when later tokens change; "
                    "compare with a tolerance such as atol=1e-6, not exact equality"
                )
                if expected
                else tr(
                    "its logits at early positions change when the last tokens change: change "
                    "the tokens from k on and compare the logits before k"
                )
            )
            return failed(
                tr("{name}: expected {expected}, got {answer} ({why})").format(
                    name=name, expected=expected, answer=answer, why=why
                )
            )
    return passed(tr("is_causal accepts the Transformer and catches a model that looks ahead"))


@keeps_random_state
def check_cached_decode_logits(
    function: Callable[[Transformer, torch.Tensor, torch.Tensor], torch.Tensor],
) -> None:
    """Exercise 2: logits computed one position at a time with a cache equal model(src, tgt)."""
    torch.manual_seed(0)
    model = Transformer(_small_config(n_layers=2)).eval()
    src = torch.randint(1, 11, (2, 5))
    src[1, 3:] = model.config.pad_id  # source padding must still be masked in cross-attention
    tgt = torch.randint(1, 13, (2, 4))
    with torch.no_grad():
        expected = model(src, tgt)

    calls = []
    original_decode = model.decode

    signature = inspect.signature(original_decode)

    def watched_decode(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append(
            (
                bound.arguments["tgt"].shape[1],
                bound.arguments["cache"] is not None,
                bound.arguments["start"],
            )
        )
        return original_decode(*args, **kwargs)

    model.decode = watched_decode  # an instance attribute: records the calls, changes nothing
    result, problem = call_solution(function, model, src, tgt)
    if problem is not None:
        return failed(problem)
    if not isinstance(result, torch.Tensor):
        return failed(
            tr("expected a tensor of logits, got {type}").format(type=type(result).__name__)
        )
    if result.shape != expected.shape:
        return failed(
            tr("expected logits of shape {shape} (batch, tgt_len, tgt_vocab), got {got}").format(
                shape=tuple(expected.shape), got=tuple(result.shape)
            )
        )
    if len(calls) != tgt.shape[1] or any(length != 1 or not cached for length, cached, _ in calls):
        return failed(
            tr(
                "expected {count} calls of model.decode with one position each and "
                "cache=..., got {got} call(s) with lengths {lengths}"
            ).format(count=tgt.shape[1], got=len(calls), lengths=[length for length, _, _ in calls])
        )
    if [start for _, _, start in calls] != list(range(tgt.shape[1])):
        return failed(
            tr("expected start=0, 1, 2, ..., got {starts}").format(
                starts=[start for _, _, start in calls]
            )
        )
    result = on_cpu(result).float()
    if not torch.allclose(result, expected, atol=1e-5, rtol=0):
        difference = (result - expected).abs().max().item()
        return failed(
            tr(
                "the logits differ from model(src, tgt) by up to {difference:.3g}: use one cache "
                "for all steps, created once with model.decoder.new_cache()"
            ).format(difference=difference)
        )
    return passed(
        tr(
            "one position per call with a cache gives the logits of model(src, tgt), {count} steps"
        ).format(count=tgt.shape[1])
    )
