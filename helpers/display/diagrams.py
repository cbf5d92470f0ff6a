"""The paper's Figure 1 drawn with matplotlib, each box tagged with the notebook that builds it.

Hand-written: edit this file itself; no notebook generates it.

Notebook 00 shows it with one call, ``fig, boxes = draw_transformer()``. The drawing is plain
boxes, arrows and text. Every patch carries a ``gid`` that says what it is, so a test can read the
figure's content back from ``fig.axes[0].patches`` instead of comparing pixels:

- ``"box:<kind>"`` for a component box (kind: embedding, attention, add_norm, feed_forward,
  linear, softmax);
- ``"residual"`` for a residual connection, ``"memory"`` for an arrow that carries the encoder's
  output to the cross-attention, ``"flow"`` for the other arrows, ``"frame"`` for a layer's frame.

The axes fill the figure and one data unit is one inch, so sizes below are in inches.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import path as mpath
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

from helpers.language import tr

COLOURS = {
    "embedding": "#f9d5d3",
    "attention": "#fbdcb0",
    "add_norm": "#f1f1b8",
    "feed_forward": "#c9e6f5",
    "linear": "#dcd8f3",
    "softmax": "#cdeac5",
    "layer": "#ececec",
    "memory": "#1f5fa8",
    "line": "#333333",
}
BOX_WIDTH, BOX_HEIGHT = 3.1, 0.56

# One sublayer of a layer: (name, label, tag, inputs). name: its key among the boxes returned
# (English); label: the text drawn in its box (in the notebook's language); inputs: "self" (Q, K,
# V all from the stream), "cross" (only Q from the stream; K and V arrive from the memory) or
# "ffn".
Sublayer = tuple[str, str, str, str]


def draw_box(ax: Axes, x: float, y: float, name: str, tag: str, kind: str) -> FancyBboxPatch:
    """A rounded box centred at (x, y): the component's name, and under it the notebook tag.

    kind: a key of COLOURS; the box's gid is ``"box:<kind>"``.
    """
    if kind not in COLOURS:
        raise ValueError(
            tr("kind: expected one of {kinds}, got {kind!r}").format(
                kinds=sorted(COLOURS), kind=kind
            )
        )
    box = FancyBboxPatch(
        (x - BOX_WIDTH / 2, y - BOX_HEIGHT / 2),
        BOX_WIDTH,
        BOX_HEIGHT,
        boxstyle="round,pad=0,rounding_size=0.08",
        facecolor=COLOURS[kind],
        edgecolor="#555555",
        linewidth=1.0,
        gid=f"box:{kind}",
        zorder=3,
    )
    ax.add_patch(box)
    ax.text(x, y + 0.1, name, ha="center", va="center", fontsize=9.5, weight="bold", zorder=4)
    ax.text(x, y - 0.14, tag, ha="center", va="center", fontsize=8, color="#444444", zorder=4)
    return box


def draw_arrow(
    ax: Axes,
    points: list[tuple[float, float]],
    gid: str = "flow",
    colour: str = COLOURS["line"],
    head: bool = True,
) -> FancyArrowPatch:
    """A polyline through ``points`` (at least two), with an arrow head at the last one."""
    if len(points) < 2:
        raise ValueError(
            tr("points: expected at least 2 points, got {count}").format(count=len(points))
        )
    arrow = FancyArrowPatch(
        path=mpath.Path(points),
        arrowstyle="-|>" if head else "-",
        mutation_scale=11,
        shrinkA=0,  # start and end exactly at the given points
        shrinkB=0,
        color=colour,
        linewidth=1.3,
        gid=gid,
        zorder=2,
    )
    ax.add_patch(arrow)
    return arrow


def draw_input_letters(ax: Axes, xs: list[float], y: float, letters: str) -> None:
    """Small Q / K / V labels beside the arrows that enter an attention box."""
    for x, letter in zip(xs, letters, strict=True):
        ax.text(x + 0.06, y, letter, ha="left", va="center", fontsize=7.5, color="#444444")


def draw_embedding(
    ax: Axes, x: float, side: int, label: str, label_tag: str, name: str, text_y: float = 0.35
) -> float:
    """Tokens -> embedding -> (+) positional encoding, drawn on ``side`` (-1 left, +1 right).

    Returns the height where the stream leaves the (+).
    """
    ax.text(x, text_y + 0.1, label, ha="center", va="center", fontsize=9.5, weight="bold")
    ax.text(x, text_y - 0.13, label_tag, ha="center", va="center", fontsize=8, color="#444444")
    embedding_y, plus_y, radius = 1.2, 2.0, 0.13
    draw_arrow(ax, [(x, text_y + 0.25), (x, embedding_y - BOX_HEIGHT / 2)])
    draw_box(ax, x, embedding_y, name, tr("02 · embeddings, × √d_model"), "embedding")
    draw_arrow(ax, [(x, embedding_y + BOX_HEIGHT / 2), (x, plus_y - radius)])
    ax.add_patch(Circle((x, plus_y), radius, facecolor="white", edgecolor=COLOURS["line"], lw=1.3))
    ax.text(x, plus_y, "+", ha="center", va="center", fontsize=11, weight="bold")
    # The positional-encoding symbol: a circle with one period of a sine wave in it.
    pe_x, pe_radius = x + side * 0.85, 0.2
    ax.add_patch(
        Circle((pe_x, plus_y), pe_radius, facecolor="white", edgecolor=COLOURS["line"], lw=1.3)
    )
    wave_x = np.linspace(-0.14, 0.14, 40)
    ax.plot(
        pe_x + wave_x, plus_y + 0.08 * np.sin(wave_x / 0.14 * np.pi), color=COLOURS["line"], lw=1
    )
    draw_arrow(ax, [(pe_x - side * pe_radius, plus_y), (x + side * radius, plus_y)])
    ax.text(
        pe_x + side * 0.3,
        plus_y,
        tr("Positional\nencoding\n02 · sinusoids"),
        ha="left" if side > 0 else "right",
        va="center",
        fontsize=8,
        color="#222222",
    )
    return plus_y + radius


def draw_layer(
    ax: Axes,
    x: float,
    stream_y: float,
    sublayers: list[Sublayer],
    side: int,
    tag: str,
    repeat_label_x: float,
) -> tuple[dict[str, FancyBboxPatch], float, float]:
    """One encoder or decoder layer, framed and marked "x N".

    Each sublayer is followed by Add & Norm, with its residual connection drawn on ``side``
    (-1 left, +1 right). A "cross" sublayer gets only its Q arrow here; the caller draws the
    memory's K and V. Returns the boxes by name, in English whatever the language of the labels
    (an Add & Norm as ``"<name> / add & norm"``),
    the height where the stream leaves the layer, and the frame's top.
    """
    frame_bottom = stream_y + 0.2
    y = frame_bottom + 0.55 + BOX_HEIGHT / 2
    boxes = {}
    for name, label, sub_tag, inputs in sublayers:
        box_bottom = y - BOX_HEIGHT / 2
        kind = "feed_forward" if inputs == "ffn" else "attention"
        boxes[name] = draw_box(ax, x, y, label, sub_tag, kind)
        if inputs == "self":  # the stream forks into queries, keys and values
            fork_y, offsets = box_bottom - 0.17, (-0.8, 0.0, 0.8)
            draw_arrow(ax, [(x, stream_y), (x, fork_y)], head=False)
            for dx in offsets:
                draw_arrow(ax, [(x, fork_y), (x + dx, fork_y), (x + dx, box_bottom)])
            draw_input_letters(ax, [x + dx for dx in offsets], box_bottom - 0.08, "QKV")
        else:
            draw_arrow(ax, [(x, stream_y), (x, box_bottom)])
            if inputs == "cross":
                draw_input_letters(ax, [x], box_bottom - 0.08, "Q")
        # Residual connection: leave the stream below the sublayer, rejoin at Add & Norm.
        norm_y = y + 0.82
        branch_y = box_bottom - 0.34
        outer_x = x + side * (BOX_WIDTH / 2 + 0.28)
        draw_arrow(
            ax,
            [
                (x, branch_y),
                (outer_x, branch_y),
                (outer_x, norm_y),
                (x + side * BOX_WIDTH / 2, norm_y),
            ],
            gid="residual",
        )
        draw_arrow(ax, [(x, y + BOX_HEIGHT / 2), (x, norm_y - BOX_HEIGHT / 2)])
        boxes[f"{name} / add & norm"] = draw_box(
            ax, x, norm_y, tr("Add & Norm"), tr("07 · residuals, layer norm"), "add_norm"
        )
        stream_y = norm_y + BOX_HEIGHT / 2
        y = norm_y + 1.0
    frame_top = stream_y + 0.38
    # The frame is wider on the residual side, where the residual arrows run.
    left = x - BOX_WIDTH / 2 - (0.5 if side < 0 else 0.2)
    right = x + BOX_WIDTH / 2 + (0.5 if side > 0 else 0.2)
    frame = FancyBboxPatch(
        (left, frame_bottom),
        right - left,
        frame_top - frame_bottom,
        boxstyle="round,pad=0,rounding_size=0.2",
        facecolor=COLOURS["layer"],
        edgecolor="#999999",
        linewidth=1.0,
        gid="frame",
        zorder=1,
    )
    ax.add_patch(frame)
    ax.text(
        left + 0.12, frame_top - 0.18, tag, ha="left", va="center", fontsize=8.5, style="italic"
    )
    # "x N": a bracket beside the frame, since the layer is stacked N times.
    bracket_x = repeat_label_x + (0.25 if side < 0 else -0.25)
    tick = 0.08 if side < 0 else -0.08
    ax.plot(
        [bracket_x + tick, bracket_x, bracket_x, bracket_x + tick],
        [frame_bottom, frame_bottom, frame_top, frame_top],
        color=COLOURS["line"],
        lw=1.2,
    )
    ax.text(
        repeat_label_x,
        (frame_bottom + frame_top) / 2,
        "N×" if side < 0 else "×N",
        ha="center",
        va="center",
        fontsize=13,
        weight="bold",
    )
    return boxes, stream_y, frame_top


def draw_transformer() -> tuple[Figure, dict[str, FancyBboxPatch]]:
    """The paper's Figure 1, with the notebook that builds each part under every box.

    Returns the figure (10 x 10.8 inches, one axes) and the component boxes by English name
    (the labels drawn are in the notebook's language): the
    sublayers ("Multi-head self-attention", "Masked multi-head attention",
    "Multi-head cross-attention", "Feed forward", each with its "<name> / add & norm"),
    "Linear" and "Softmax". The two "Feed forward" boxes share a name: the decoder's wins.
    """
    fig = plt.figure(figsize=(10, 10.8))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10.8)
    ax.set_aspect("equal")
    ax.axis("off")
    x_encoder, x_decoder = 2.85, 7.25

    # Encoder: source tokens -> embedding + positional encoding -> N encoder layers.
    stream = draw_embedding(
        ax,
        x_encoder,
        -1,
        tr("Inputs"),
        tr("01 · tokens, vocabularies, batches"),
        tr("Input embedding"),
    )
    encoder_boxes, encoder_out, encoder_top = draw_layer(
        ax,
        x_encoder,
        stream,
        [
            (
                "Multi-head self-attention",
                tr("Multi-head self-attention"),
                tr("05 · multi-head, 03 · scaled dot-product"),
                "self",
            ),
            (
                "Feed forward",
                tr("Feed forward"),
                tr("06 · position-wise feed-forward"),
                "ffn",
            ),
        ],
        side=-1,
        tag=tr("08 · encoder layer"),
        repeat_label_x=0.35,
    )

    # Decoder: target tokens shifted right -> embedding + PE -> N decoder layers.
    stream = draw_embedding(
        ax,
        x_decoder,
        +1,
        tr("Outputs (shifted right)"),
        tr("01 · teacher forcing"),
        tr("Output embedding"),
    )
    decoder_boxes, decoder_out, decoder_top = draw_layer(
        ax,
        x_decoder,
        stream,
        [
            (
                "Masked multi-head attention",
                tr("Masked multi-head attention"),
                tr("05 · multi-head, 04 · look-ahead mask"),
                "self",
            ),
            (
                "Multi-head cross-attention",
                tr("Multi-head cross-attention"),
                tr("05 · keys and values from the encoder"),
                "cross",
            ),
            (
                "Feed forward",
                tr("Feed forward"),
                tr("06 · position-wise feed-forward"),
                "ffn",
            ),
        ],
        side=+1,
        tag=tr("09 · decoder layer"),
        repeat_label_x=9.78,
    )

    # Memory: the encoder's output is the keys and values of every decoder layer's cross-attention.
    cross = decoder_boxes["Multi-head cross-attention"]
    cross_bottom = cross.get_y()
    memory_y, route_y = cross_bottom - 0.17, encoder_top + 0.3
    gap_x = (x_encoder + BOX_WIDTH / 2 + 0.2 + x_decoder - BOX_WIDTH / 2 - 0.2) / 2
    key_x, value_x = x_decoder - 1.05, x_decoder - 0.6
    memory_colour = COLOURS["memory"]
    draw_arrow(
        ax,
        [
            (x_encoder, encoder_out),
            (x_encoder, route_y),
            (gap_x, route_y),
            (gap_x, memory_y),
            (key_x, memory_y),
            (key_x, cross_bottom),
        ],
        gid="memory",
        colour=memory_colour,
    )
    draw_arrow(
        ax,
        [(key_x, memory_y), (value_x, memory_y), (value_x, cross_bottom)],
        gid="memory",
        colour=memory_colour,
    )
    draw_input_letters(ax, [key_x, value_x], cross_bottom - 0.08, "KV")
    ax.text(
        (x_encoder + gap_x) / 2,
        route_y + 0.2,
        tr("memory (encoder output)"),
        ha="center",
        va="center",
        fontsize=8.5,
        color=memory_colour,
        weight="bold",
    )

    # Output: linear projection to the vocabulary, softmax, probabilities of the next token.
    linear_y = decoder_top + 0.65
    softmax_y = linear_y + 0.85
    draw_arrow(ax, [(x_decoder, decoder_out), (x_decoder, linear_y - BOX_HEIGHT / 2)])
    linear = draw_box(
        ax,
        x_decoder,
        linear_y,
        tr("Linear"),
        tr("10 · output projection, tied weights"),
        "linear",
    )
    draw_arrow(
        ax, [(x_decoder, linear_y + BOX_HEIGHT / 2), (x_decoder, softmax_y - BOX_HEIGHT / 2)]
    )
    softmax = draw_box(
        ax, x_decoder, softmax_y, "Softmax", tr("10 · the whole Transformer"), "softmax"
    )
    draw_arrow(ax, [(x_decoder, softmax_y + BOX_HEIGHT / 2), (x_decoder, softmax_y + 0.55)])
    ax.text(
        x_decoder,
        softmax_y + 0.72,
        tr("Output probabilities"),
        ha="center",
        va="center",
        fontsize=9.5,
        weight="bold",
    )

    # The empty corner: what the rest of the series does with this model.
    ax.text(
        0.3,
        softmax_y + 0.2,
        tr(
            "The Transformer (Vaswani et al. 2017, Figure 1)\nwith the notebook that builds each "
            "part"
        ),
        ha="left",
        va="center",
        fontsize=12,
        weight="bold",
    )
    ax.text(
        0.3,
        softmax_y - 1.0,
        tr(
            "Then, with the finished model:\n"
            "11 · training on a CPU\n"
            "12 · greedy and beam search, BLEU\n"
            "13 · why self-attention; BERT, GPT, BART\n"
            "14 · sub-words: byte-pair encoding\n"
            "15 · real German from a dictionary"
        ),
        ha="left",
        va="center",
        fontsize=9,
        linespacing=1.6,
        color="#222222",
    )
    return fig, {**encoder_boxes, **decoder_boxes, "Linear": linear, "Softmax": softmax}
