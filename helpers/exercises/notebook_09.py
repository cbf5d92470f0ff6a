"""Checks for the exercises of notebook 09 (the decoder).

Hand-written: edit this file itself; no notebook generates it.

Each check runs the student's function on cases built here, prints a verdict in words and returns
None; it never raises, and it leaves the notebook's random number generators untouched.
"""

from collections.abc import Callable

import torch

from helpers.exercises import (
    call_solution,
    count_parameters,
    failed,
    on_cpu,
    passed,
    reports_crashes,
)
from helpers.language import tr
from helpers.model.decoder import Decoder, DecoderLayer
from helpers.model.masks import look_ahead_mask, padding_mask


@reports_crashes
def check_decoder_layer_parameters(decoder_layer_parameters: Callable) -> None:
    """decoder_layer_parameters(d_model, d_ff) vs the parameters of a built DecoderLayer."""
    cases = [(32, 64, 4), (48, 96, 4), (512, 2048, 8)]
    with torch.random.fork_rng(devices=[]):
        for d_model, d_ff, n_heads in cases:
            expected = count_parameters(DecoderLayer(d_model, n_heads, d_ff))
            result, problem = call_solution(decoder_layer_parameters, d_model, d_ff)
            if problem:
                return failed(problem)
            if isinstance(result, float) and result.is_integer():
                result = int(result)
            if not isinstance(result, int) or isinstance(result, bool):
                return failed(tr("expected an int, got {type}").format(type=type(result).__name__))
            if result == expected:
                continue
            difference = expected - result
            attention = 4 * d_model**2 + 4 * d_model
            if difference == attention:
                hint = tr(
                    "a decoder layer has two attentions: masked self-attention and cross-attention"
                )
            elif difference == 2 * d_model:
                hint = tr("a decoder layer has three layer norms, one per sublayer")
            elif difference == attention + 2 * d_model:
                hint = tr("the cross-attention sublayer brings an attention and a layer norm")
            else:
                hint = tr("count two attentions, one feed-forward network and three layer norms")
            return failed(
                tr(
                    "d_model={d_model}, d_ff={d_ff}: expected {expected:,}, got {result:,}. {hint}"
                ).format(d_model=d_model, d_ff=d_ff, expected=expected, result=result, hint=hint)
            )
    return passed(tr("your formula matches DecoderLayer for every size tried"))


@reports_crashes
def check_decode_without_cache(decode_without_cache: Callable) -> None:
    """decode_without_cache(decoder, tgt, memory, memory_mask) must equal the parallel pass."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(9)
        decoder = Decoder(11, 16, 2, 32, 2).eval()
        tgt = torch.tensor([[2, 5, 6, 7, 8], [2, 9, 10, 0, 0]])
        src = torch.tensor([[4, 5, 6, 0], [4, 5, 6, 7]])
        memory = torch.randn(2, 4, 16)
        memory_mask = padding_mask(src, 0)
        expected, _, _ = decoder(tgt, memory, look_ahead_mask(5), memory_mask)
        result, problem = call_solution(decode_without_cache, decoder, tgt, memory, memory_mask)
        if problem:
            return failed(problem)
        if isinstance(result, tuple):
            return failed(
                tr(
                    "return only the outputs tensor (the decoder returns a triple: keep its first element)"
                )
            )
        if not isinstance(result, torch.Tensor) or result.shape != expected.shape:
            shape = (
                tuple(result.shape) if isinstance(result, torch.Tensor) else type(result).__name__
            )
            return failed(
                tr("expected shape (batch, tgt_len, d_model) = {shape}, got {got}").format(
                    shape=tuple(expected.shape), got=shape
                )
            )
        result = on_cpu(result)
        if torch.allclose(result[:, :1], expected[:, :1], atol=1e-5) and not torch.allclose(
            result, expected, atol=1e-5
        ):
            hint = tr(
                "position 0 is right but later ones are not: keep the LAST output of each "
                "prefix (output[:, -1:]) and use a look-ahead mask of the prefix's length"
            )
        else:
            hint = tr("run the decoder on tgt[:, : t + 1] with look_ahead_mask(t + 1) for each t")
        if not torch.allclose(result, expected, atol=1e-5, rtol=1e-5):
            return failed(
                tr("your outputs differ from the parallel pass. {hint}").format(hint=hint)
            )
    return passed(tr("prefix by prefix gives the parallel pass's output"))


@reports_crashes
def check_torch_decoder_masks(torch_decoder_masks: Callable) -> None:
    """torch_decoder_masks(tgt, src, pad_id) -> PyTorch's (tgt_mask, tgt_key_padding_mask, memory_key_padding_mask)."""
    pad_id = 0
    tgt = torch.tensor([[2, 5, 6, 7], [2, 8, 0, 0], [2, 9, 10, 0]])
    src = torch.tensor([[4, 5, 6, 0, 0], [4, 5, 6, 7, 8], [4, 0, 0, 0, 0]])
    names = ("tgt_mask", "tgt_key_padding_mask", "memory_key_padding_mask")
    expected = (
        torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1),
        tgt == pad_id,
        src == pad_id,
    )
    result, problem = call_solution(torch_decoder_masks, tgt, src, pad_id)
    if problem:
        return failed(problem)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        return failed(
            tr("expected a tuple of three masks ({names}), got {type}").format(
                names=", ".join(names), type=type(result).__name__
            )
        )
    for name, mask, wanted in zip(names, result, expected, strict=True):
        if not isinstance(mask, torch.Tensor):
            return failed(
                tr("{name}: expected a tensor, got {type}").format(
                    name=name, type=type(mask).__name__
                )
            )
        if mask.dtype != torch.bool:
            return failed(
                tr("{name}: expected dtype torch.bool, got {dtype}").format(
                    name=name, dtype=mask.dtype
                )
            )
        if mask.shape != wanted.shape:
            return failed(
                tr("{name}: expected shape {shape}, got {got}").format(
                    name=name, shape=tuple(wanted.shape), got=tuple(mask.shape)
                )
            )
        mask = on_cpu(mask)
        if torch.equal(mask, ~wanted):
            return failed(
                tr("{name} is inverted: PyTorch wants True where attention is NOT allowed").format(
                    name=name
                )
            )
        if name == "tgt_mask" and torch.equal(mask, torch.ones(4, 4, dtype=torch.bool).triu()):
            return failed(
                tr(
                    "tgt_mask blocks the diagonal too: a position may attend to itself (triu with diagonal=1)"
                )
            )
        if not torch.equal(mask, wanted):
            return failed(
                tr("{name} is not what PyTorch expects; check it on a small example").format(
                    name=name
                )
            )
    return passed(tr("all three masks are in PyTorch's convention, True = not allowed"))
