"""Checks for the exercises of notebook 08 (the encoder).

Hand-written: edit this file itself; no notebook generates it.

Each check runs the student's function on cases built here, prints a verdict in words and returns
None; it never raises, and it leaves the notebook's random number generators untouched.
"""

import math
from collections.abc import Callable

import torch
from torch import nn

from helpers.exercises import (
    call_solution,
    count_parameters,
    failed,
    keeps_random_state,
    passed,
    reports_crashes,
)
from helpers.language import tr
from helpers.model.encoder import Encoder, EncoderLayer


@keeps_random_state
def check_clones(clones: Callable) -> None:
    """clones(layer, n) -> nn.ModuleList of n independent copies of layer, each starting with its
    weights."""
    torch.manual_seed(8)
    layer = EncoderLayer(8, 2, 16).eval()
    n = 3
    result, problem = call_solution(clones, layer, n)
    if problem is not None:
        return failed(problem)
    if not isinstance(result, nn.ModuleList):
        return failed(
            tr(
                "expected an nn.ModuleList, got {type}: a plain list hides its layers from "
                ".parameters(), .to(device) and the optimiser"
            ).format(type=type(result).__name__)
        )
    if len(result) != n or not all(isinstance(copy, EncoderLayer) for copy in result):
        return failed(tr("expected {n} EncoderLayers, got {got}").format(n=n, got=len(result)))
    start = layer.state_dict()
    for copy in result:
        for name, tensor in copy.state_dict().items():
            if not torch.equal(tensor, start[name]):
                return failed(
                    tr("each copy should start with the weights of layer ({name} differs)").format(
                        name=name
                    )
                )
    per_layer = count_parameters(layer)
    seen = count_parameters(result)  # parameters() counts a shared tensor once
    if seen != n * per_layer:
        return failed(
            tr(
                "the optimiser would see {seen:,} parameters, not {n} x {per_layer:,}: your "
                "copies share one set of weights, so the stack would train a single layer "
                "{n} times over"
            ).format(seen=seen, n=n, per_layer=per_layer)
        )
    return passed(
        tr(
            "{n} layers with the same starting weights and {total:,} parameters: each will "
            "train on its own"
        ).format(n=n, total=seen)
    )


@reports_crashes
def check_encoder_parameter_count(encoder_parameter_count: Callable) -> None:
    """encoder_parameter_count(vocab_size, d_model, d_ff, n_layers, norm_first) vs a built Encoder."""
    cases = [
        (13, 32, 64, 2, False, 4),
        (13, 32, 64, 2, True, 4),
        (100, 64, 256, 3, False, 8),
        (1000, 128, 512, 6, True, 8),
    ]
    with torch.random.fork_rng(devices=[]):
        for vocab_size, d_model, d_ff, n_layers, norm_first, n_heads in cases:
            sizes = (vocab_size, d_model, d_ff, n_layers, norm_first)
            expected = count_parameters(
                Encoder(
                    vocab_size,
                    d_model,
                    n_heads,
                    d_ff,
                    n_layers,
                    norm_first=norm_first,
                    max_positions=1,
                )
            )
            result, problem = call_solution(encoder_parameter_count, *sizes)
            if problem:
                return failed(problem)
            if not isinstance(result, int) or isinstance(result, bool):
                if isinstance(result, float) and result.is_integer():
                    result = int(result)
                else:
                    return failed(
                        tr("expected an int, got {type}").format(type=type(result).__name__)
                    )
            if result == expected:
                continue
            name = (
                f"vocab_size={vocab_size}, d_model={d_model}, d_ff={d_ff}, "
                f"n_layers={n_layers}, norm_first={norm_first}"
            )
            difference = result - expected
            if difference == -2 * d_model and norm_first:
                hint = tr("Pre-LN has one more LayerNorm at the end of the stack (2·d_model)")
            elif difference == 2 * d_model and not norm_first:
                hint = tr("Post-LN has no final LayerNorm: its layers already end with one")
            elif difference == -vocab_size * d_model:
                hint = tr("did you forget the embedding table (vocab_size · d_model)?")
            elif difference % n_layers == 0 and difference != 0:
                hint = tr(
                    "the per-layer count is off: check the attention, feed-forward and two norms"
                )
            else:
                hint = tr("count the embedding, N layers and the final norm of Pre-LN")
            return failed(
                tr("for {name}: expected {expected:,}, got {result:,}. {hint}").format(
                    name=name, expected=expected, result=result, hint=hint
                )
            )
    return passed(
        tr("your formula matches Encoder in all {count} configurations, Post-LN and Pre-LN").format(
            count=len(cases)
        )
    )


@reports_crashes
def check_matching_embedding_std(matching_embedding_std: Callable) -> None:
    """matching_embedding_std(d_model) must make scaled embeddings as long as positional rows."""
    for d_model in (32, 100, 512):
        expected = 1 / math.sqrt(2 * d_model)
        result, problem = call_solution(matching_embedding_std, d_model)
        if problem:
            return failed(problem)
        if isinstance(result, torch.Tensor) and result.numel() == 1:
            result = result.item()
        if not isinstance(result, (int, float)) or isinstance(result, bool):
            return failed(tr("expected a number, got {type}").format(type=type(result).__name__))
        if abs(result - expected) <= 0.03 * expected:
            continue
        if abs(result - d_model**-0.5) <= 0.03 * d_model**-0.5:
            hint = tr(
                "that is the N(0, 1/d_model) initialisation, which gives a ratio of sqrt(2): "
                "a row of PE has norm sqrt(d_model / 2), not sqrt(d_model)"
            )
        else:
            hint = tr("solve sigma · sqrt(d_model) · sqrt(d_model) = sqrt(d_model / 2) for sigma")
        return failed(
            tr("d_model={d_model}: expected about {expected:.4f}, got {result:.4f}. {hint}").format(
                d_model=d_model, expected=expected, result=result, hint=hint
            )
        )
    return passed(tr("σ = 1/sqrt(2·d_model): scaled tokens and positions are equally long"))
