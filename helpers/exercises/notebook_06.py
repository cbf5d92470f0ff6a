"""Checks for the exercises of notebook 06 (position-wise feed-forward).

Hand-written: edit this file itself; no notebook generates it.

Each check builds its own small modules and inputs inside ``torch.random.fork_rng``, so running a
check never changes the random numbers the notebook draws afterwards.
"""

from collections.abc import Callable

import torch
from torch import nn

from helpers.exercises import call_solution, failed, on_cpu, passed
from helpers.language import tr
from helpers.model.feed_forward import PositionwiseFeedForward
from helpers.model.masks import look_ahead_mask
from helpers.model.multi_head_attention import MultiHeadAttention


def check_feed_forward_by_hand(feed_forward_by_hand: Callable) -> None:
    """feed_forward_by_hand(ffn, x) -> FFN(x) from ffn's weights, (batch, seq_len, d_model)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        ffn = PositionwiseFeedForward(d_model=6, d_ff=24).eval()
        x = torch.randn(2, 3, 6)
    with torch.no_grad():
        expected = ffn(x)
        result, problem = call_solution(feed_forward_by_hand, ffn, x.clone())
        no_relu = ffn.linear2(ffn.linear1(x))
    # A crash that speaks of shapes or sizes, or a result of the wrong shape: say how nn.Linear
    # stores its weight (decided on the English error text, never on the translated message).
    crash = problem.error if problem is not None else None
    crash_text = f"{type(crash).__name__}: {crash}" if crash is not None else ""
    about_shapes = "shape" in crash_text or "size" in crash_text
    if problem is None and not isinstance(result, torch.Tensor):
        problem = tr("expected a torch.Tensor, got {type}").format(type=type(result).__name__)
    if problem is None and tuple(result.shape) != tuple(expected.shape):
        problem = tr("expected shape {shape} like x, got {got}").format(
            shape=tuple(expected.shape), got=tuple(result.shape)
        )
        about_shapes = True
    if problem is not None:
        if about_shapes:
            problem += tr(
                " (nn.Linear stores its weight as (out_features, in_features): "
                "x W1 is x @ linear1.weight.T)"
            )
        return failed(problem)
    result = on_cpu(result)
    if torch.allclose(result, expected, atol=1e-5, rtol=1e-5):
        return passed(tr("max(0, x W1 + b1) W2 + b2 reproduces the module"))
    if torch.allclose(result, no_relu, atol=1e-5, rtol=1e-5):
        return failed(tr("apply max(0, .) (the ReLU) between the two layers"))
    return failed(
        tr(
            "wrong values; compute torch.relu(x @ linear1.weight.T + linear1.bias) "
            "@ linear2.weight.T + linear2.bias"
        )
    )


def check_conv3_from_linear(conv3_from_linear: Callable) -> None:
    """conv3_from_linear(linear) -> an nn.Conv1d(kernel_size=3, padding=1) computing linear at
    every position, reading neither neighbour."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        linear = nn.Linear(5, 7)
        x = torch.randn(2, 4, 5)  # (batch, seq_len, in_features)
        with torch.no_grad():
            conv, problem = call_solution(conv3_from_linear, linear)
    if problem is None and not isinstance(conv, nn.Conv1d):
        problem = tr("expected an nn.Conv1d, got {type}").format(type=type(conv).__name__)
    if problem is not None:
        return failed(problem)
    shape = (conv.in_channels, conv.out_channels, conv.kernel_size, conv.padding)
    if shape != (5, 7, (3,), (1,)):
        return failed(
            tr(
                "expected Conv1d(in_channels=5, out_channels=7, kernel_size=3, padding=1), got "
                "Conv1d({in_channels}, {out_channels}, kernel_size={kernel_size}, "
                "padding={padding})"
            ).format(
                in_channels=conv.in_channels,
                out_channels=conv.out_channels,
                kernel_size=conv.kernel_size[0],
                padding=conv.padding[0] if isinstance(conv.padding, tuple) else conv.padding,
            )
        )
    if conv.bias is None:
        return failed(tr("the convolution has no bias; the Linear has one"))
    with torch.no_grad():
        expected = linear(x)
        try:
            # Conv1d reads (batch, channels, length): features are channels.
            result = conv(x.transpose(1, 2)).transpose(1, 2)
        except Exception as error:  # a check reports, it does not crash the notebook
            return failed(
                tr("the convolution raised {error}: {message}").format(
                    error=type(error).__name__, message=error
                )
            )
    if torch.allclose(result, expected, atol=1e-5, rtol=1e-5):
        return passed(
            tr(
                "a kernel of size 3 whose side taps are zero is position-wise again: the same "
                "Linear at every position"
            )
        )
    inner = slice(1, -1)
    if torch.allclose(result[:, inner], expected[:, inner], atol=1e-5, rtol=1e-5):
        return failed(
            tr("right inside, wrong at the ends: keep padding=1, the zero column the ends read")
        )
    shifted = torch.allclose(
        result[:, 1:], expected[:, :-1], atol=1e-5, rtol=1e-5
    ) or torch.allclose(result[:, :-1], expected[:, 1:], atol=1e-5, rtol=1e-5)
    if shifted:
        return failed(
            tr(
                "the output is shifted by one position: with padding=1, the middle tap (index 1) "
                "reads the position itself"
            )
        )
    return failed(
        tr(
            "wrong values: each output position must read its own input only, so the Linear's "
            "weight goes into one tap and the other two must be exactly zero"
        )
    )


class _SelfAttention(nn.Module):
    """Self-attention as a one-input module, with or without the look-ahead mask."""

    def __init__(self, d_model: int, causal: bool):
        super().__init__()
        self.attention = MultiHeadAttention(d_model, n_heads=2)
        self.causal = causal

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mask = look_ahead_mask(x.shape[1], x.device) if self.causal else None
        return self.attention(x, x, x, mask)[0]


def check_inputs_read(inputs_read: Callable) -> None:
    """inputs_read(module, x, position) -> bool (seq_len,): the input positions that output
    `position` depends on, from its gradient."""
    seq_len, position = 5, 2
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(2)
        x = torch.randn(2, seq_len, 8)
        positions = torch.arange(seq_len)
        cases = [
            (tr("the feed-forward block"), PositionwiseFeedForward(8, 32), positions == position),
            (tr("causal self-attention"), _SelfAttention(8, causal=True), positions <= position),
            (tr("self-attention"), _SelfAttention(8, causal=False), positions >= 0),
        ]
        for name, module, expected in cases:
            module.eval()
            result, problem = call_solution(inputs_read, module, x.clone(), position)
            if problem is not None:
                return failed(problem)
            try:
                result = on_cpu(torch.as_tensor(result)).to(torch.bool).flatten()
            except (TypeError, ValueError, RuntimeError):
                return failed(
                    tr("expected {count} booleans, got {result!r}").format(
                        count=seq_len, result=result
                    )
                )
            if result.numel() != seq_len:
                return failed(
                    tr("expected one boolean per position ({count}), got {got} values").format(
                        count=seq_len, got=result.numel()
                    )
                )
            if not torch.equal(result, expected):
                return failed(
                    tr(
                        "for {name}, output position {position} reads inputs {expected}, got "
                        "{got}; back-propagate from that output alone and see which rows of the "
                        "gradient of x are not zero"
                    ).format(
                        name=name,
                        position=position,
                        expected=expected.tolist(),
                        got=result.tolist(),
                    )
                )
    return passed(
        tr(
            "an output reads only its own input in the feed-forward block, itself and earlier "
            "ones under the look-ahead mask, and every input in self-attention"
        )
    )
