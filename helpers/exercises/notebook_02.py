"""Checks for the exercises of notebook 02 (embeddings and positional encoding).

Hand-written: edit this file itself; no notebook generates it.

Each check calls the student's function on a few cases, prints a one-line verdict in words and
returns None; it never raises, whatever the function does.
"""

import math
from collections.abc import Callable
from typing import Any

import torch

from helpers.exercises import call_solution, failed, keeps_random_state, on_cpu, passed, verdict
from helpers.language import tr
from helpers.model.embeddings import PositionalEncoding, TokenEmbedding, sinusoidal_table


def _as_float64(value: Any) -> torch.Tensor | None:
    """The value as a float64 tensor, or None when it cannot be one."""
    try:
        return on_cpu(torch.as_tensor(value)).double()
    except (TypeError, ValueError, RuntimeError):
        return None


def check_wavelengths(wavelengths: Callable[[int], Any], pairs_within_50: Any = None) -> None:
    """wavelengths(d_model) must be 2*pi*10000^(2i/d_model) for each of the ceil(d_model/2) pairs;
    pairs_within_50, once given, the number of pairs of d_model=512 shorter than 50 positions."""
    for d_model in (8, 512, 5):
        result, problem = call_solution(wavelengths, d_model)
        if problem:
            return failed(problem)
        values = _as_float64(result)
        if values is None:
            return failed(
                tr("expected a 1-D tensor, got {type}").format(type=type(result).__name__)
            )
        two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
        expected = 2 * math.pi * 10000 ** (two_i / d_model)
        if values.shape != expected.shape:
            return failed(
                tr(
                    "for d_model={d_model}: expected {count} wavelengths (one per "
                    "sine/cosine pair, ceil(d_model / 2)), got shape {shape}"
                ).format(d_model=d_model, count=expected.numel(), shape=tuple(values.shape))
            )
        if not torch.allclose(values, expected, rtol=1e-5, atol=0.0):
            if torch.allclose(values, expected / (2 * math.pi), rtol=1e-5):
                return failed(tr("close: a wavelength in positions includes the 2*pi"))
            return failed(
                tr(
                    "for d_model={d_model}: the first wavelength should be 2*pi = {first:.4f} "
                    "and the last {last:.1f}; got {got_first:.4f} and {got_last:.1f}"
                ).format(
                    d_model=d_model,
                    first=expected[0],
                    last=expected[-1],
                    got_first=values.flatten()[0],
                    got_last=values.flatten()[-1],
                )
            )
    if pairs_within_50 is None:
        return passed(
            tr(
                "wavelengths are right, from 2*pi to nearly 10000*2*pi; now count the pairs of "
                "d_model=512 whose wavelength is shorter than 50 positions and set pairs_within_50"
            )
        )
    two_i = torch.arange(0, 512, 2, dtype=torch.float64)
    count = int((2 * math.pi * 10000 ** (two_i / 512) < 50).sum())
    right = not isinstance(pairs_within_50, bool) and pairs_within_50 == count
    return verdict(
        right,
        tr(
            "wavelengths are right, and {count} of the 256 pairs of d_model=512 repeat within 50 "
            "positions: the other pairs tell the positions of a short sentence apart"
        ).format(count=count),
        tr(
            "wavelengths are right, but {got} is not the number of pairs of d_model=512 whose "
            "wavelength is shorter than 50 positions; count them in wavelengths(512)"
        ).format(got=pairs_within_50),
    )


@keeps_random_state
def check_embed_with_positions(
    embed_with_positions: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], Any],
) -> None:
    """embed_with_positions(ids, weight, table) must equal PositionalEncoding(TokenEmbedding(ids))."""
    generator = torch.Generator().manual_seed(2)
    vocab_size, d_model, max_positions = 11, 16, 12
    token_embedding = TokenEmbedding(vocab_size, d_model)
    with torch.no_grad():
        token_embedding.embedding.weight.copy_(
            torch.randn(vocab_size, d_model, generator=generator) * d_model**-0.5
        )
    positional_encoding = PositionalEncoding(d_model, max_positions=max_positions).eval()
    ids = torch.randint(0, vocab_size, (3, 7), generator=generator)
    weight = token_embedding.embedding.weight.detach().clone()
    table = sinusoidal_table(max_positions, d_model)
    with torch.no_grad():
        expected = positional_encoding(token_embedding(ids)).double()

    result, problem = call_solution(embed_with_positions, ids.clone(), weight, table.clone())
    if problem:
        return failed(problem)
    values = _as_float64(result)
    if values is None:
        return failed(tr("expected a tensor, got {type}").format(type=type(result).__name__))
    if values.shape != expected.shape:
        return failed(
            tr(
                "for ids of shape {ids_shape} expected shape {shape} "
                "(batch, seq_len, d_model), got {got}"
            ).format(
                ids_shape=tuple(ids.shape), shape=tuple(expected.shape), got=tuple(values.shape)
            )
        )
    if torch.allclose(values, expected, atol=1e-5):
        return passed(tr("embed_with_positions matches TokenEmbedding + PositionalEncoding"))
    unscaled = weight[ids].double() + table[: ids.shape[1]].double()
    without_positions = weight[ids].double() * math.sqrt(d_model)
    if torch.allclose(values, unscaled, atol=1e-5):
        hint = tr("the embeddings are not multiplied by sqrt(d_model) (§3.4)")
    elif torch.allclose(values, without_positions, atol=1e-5):
        hint = tr("the positional table is not added")
    else:
        hint = tr("compare with weight[ids] * sqrt(d_model) + table[:seq_len]")
    return failed(tr("not the same as the modules: {hint}").format(hint=hint))


def check_dot_product_at_offset(dot_product_at_offset: Callable[[int, int], Any]) -> None:
    """dot_product_at_offset(d_model, k) must equal PE[pos] . PE[pos + k] for every pos."""
    for d_model in (16, 128):
        table = sinusoidal_table(200, d_model).double()
        for k in (0, 1, 7, 50):
            result, problem = call_solution(dot_product_at_offset, d_model, k)
            if problem:
                return failed(problem)
            try:
                value = float(result)
            except (TypeError, ValueError, RuntimeError):
                return failed(
                    tr("expected a number, got {type}").format(type=type(result).__name__)
                )
            measured = (table[: 200 - k] * table[k:]).sum(dim=1)  # every pos from 0 to 199 - k
            if not torch.allclose(measured, torch.full_like(measured, value), atol=1e-3):
                return failed(
                    tr(
                        "for d_model={d_model}, k={k}: PE[pos] . PE[pos+k] is "
                        "{measured:.4f} for every pos, you returned {value:.4f}"
                    ).format(d_model=d_model, k=k, measured=measured[0].item(), value=value)
                    + (tr(" (k=0 gives d_model / 2: sin^2 + cos^2 = 1 per pair)") if k == 0 else "")
                )
    return passed(tr("dot_product_at_offset matches the table for every pos: it depends on k only"))
