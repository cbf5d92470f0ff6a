"""Explore the masks (notebook 04): padding, look-ahead, combined, and what they do to attention.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from helpers.display.plots import plot_heatmap, plot_mask
from helpers.display.shapes import display_width, pad
from helpers.explore.live import Explorer, kind_label
from helpers.language import tr
from helpers.model.attention import scaled_dot_product_attention
from helpers.model.masks import look_ahead_mask, padding_mask

PAD_ID = 0


def masks_view(src_len: int, tgt_len: int, src_pad: int, tgt_pad: int, seed: int = 0) -> dict:
    """The masks of one source and one target sentence, and masked attention weights.

    src_len, tgt_len: lengths including padding. src_pad, tgt_pad: how many of those positions
    are padding (at the end). The weights come from random scores (seeded) so that only the mask
    decides which are zero. Returns bool masks (True = may attend) and weights, all 2-D:
    encoder self (src_len, src_len), decoder self (tgt_len, tgt_len), cross (tgt_len, src_len).
    """
    for name, value in (("src_len", src_len), ("tgt_len", tgt_len)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(
                tr("{name}: expected a positive int, got {value!r}").format(name=name, value=value)
            )
    for name, value, length in (("src_pad", src_pad, src_len), ("tgt_pad", tgt_pad, tgt_len)):
        if not isinstance(value, int) or not 0 <= value < length:
            raise ValueError(
                tr("{name}: expected an int in [0, {last}], got {value!r}").format(
                    name=name, last=length - 1, value=value
                )
            )
    src = torch.ones(1, src_len, dtype=torch.long)
    tgt = torch.ones(1, tgt_len, dtype=torch.long)
    src[0, src_len - src_pad :] = PAD_ID
    tgt[0, tgt_len - tgt_pad :] = PAD_ID
    src_keys = padding_mask(src, PAD_ID)[0, 0]  # (1, src_len): which source keys are real
    tgt_keys = padding_mask(tgt, PAD_ID)[0, 0]  # (1, tgt_len)
    future = look_ahead_mask(tgt_len)[0, 0]  # (tgt_len, tgt_len)
    masks = {
        "encoder self": src_keys.expand(src_len, src_len),
        "decoder self": tgt_keys & future,
        "cross": src_keys.expand(tgt_len, src_len),
    }
    generator = torch.Generator().manual_seed(seed)
    weights = {}
    for kind, mask in masks.items():
        scores_q = torch.randn(mask.shape[0], 8, generator=generator)
        scores_k = torch.randn(mask.shape[1], 8, generator=generator)
        _, weights[kind] = scaled_dot_product_attention(scores_q, scores_k, scores_k, mask)
    return {
        "src_tokens": [f"s{i}" if i < src_len - src_pad else "<pad>" for i in range(src_len)],
        "tgt_tokens": [f"t{i}" if i < tgt_len - tgt_pad else "<pad>" for i in range(tgt_len)],
        "padding": tgt_keys.expand(tgt_len, tgt_len),
        "look_ahead": future,
        "masks": masks,
        "weights": weights,
    }


def draw_masks(view: dict) -> Figure:
    """Top row: the decoder's padding, look-ahead and combined masks. Bottom: masked weights."""
    fig, axes = plt.subplots(2, 3, figsize=(13.0, 8.0))
    tgt, src = view["tgt_tokens"], view["src_tokens"]
    panels = [
        (view["padding"], tgt, tgt, tr("padding mask (decoder keys)")),
        (view["look_ahead"], tgt, tgt, tr("look-ahead mask")),
        (view["masks"]["decoder self"], tgt, tgt, tr("combined: decoder self")),
    ]
    for ax, (mask, xs, ys, title) in zip(axes[0], panels, strict=True):
        plot_mask(mask, xs, ys, title=title, ax=ax)  # hatched grey = hidden, with a legend
    for ax, kind in zip(axes[1], ("encoder self", "decoder self", "cross"), strict=True):
        keys = src if kind != "decoder self" else tgt
        queries = src if kind == "encoder self" else tgt
        plot_heatmap(view["weights"][kind], keys, queries,
                     title=tr("weights: {kind}").format(kind=kind_label(kind)),
                     xlabel=tr("key"), ylabel=tr("query"), ax=ax, vmin=0.0, vmax=1.0)  # fmt: skip
    fig.tight_layout()
    return fig


def describe_masks(view: dict) -> str:
    lines = []
    # The kinds in one column: 13 wide in English, wider for wider (Chinese) names.
    width = max(13, 1 + max(display_width(kind_label(kind)) for kind in view["masks"]))
    for kind, mask in view["masks"].items():
        weights = view["weights"][kind]
        leaked = float(weights.masked_fill(mask, 0.0).abs().max())
        lines.append(
            tr(
                "{kind} allowed pairs {allowed:>3}/{pairs:<3} weight on masked keys {leaked:.1f}  "
                "rows summing to 1: {rows}"
            ).format(
                kind=pad(kind_label(kind), width),
                allowed=int(mask.sum()),
                pairs=mask.numel(),
                leaked=leaked,
                rows=int(weights.sum(-1).round().sum()),
            )
        )
    return "\n".join(lines)


def explore_masks(
    src_len: int = 6, tgt_len: int = 5, src_pad: int = 2, tgt_pad: int = 1, show: bool = True
) -> Explorer:
    """Sliders for the source and target lengths and how much of each is padding."""
    import ipywidgets as widgets

    style = {"description_width": "90px"}
    controls = {
        "src_len": widgets.IntSlider(
            src_len, min=1, max=12, description=tr("source len"), style=style
        ),
        "tgt_len": widgets.IntSlider(
            tgt_len, min=1, max=12, description=tr("target len"), style=style
        ),
        "src_pad": widgets.IntSlider(
            src_pad, min=0, max=src_len - 1, description=tr("source pad"), style=style
        ),
        "tgt_pad": widgets.IntSlider(
            tgt_pad, min=0, max=tgt_len - 1, description=tr("target pad"), style=style
        ),
    }

    def keep_in_range(_change) -> None:
        controls["src_pad"].max = controls["src_len"].value - 1
        controls["tgt_pad"].max = controls["tgt_len"].value - 1

    controls["src_len"].observe(keep_in_range, names="value")
    controls["tgt_len"].observe(keep_in_range, names="value")
    explorer = Explorer(controls, masks_view, draw_masks, describe_masks, tr("Masks"))
    if show:
        explorer.show()
    return explorer
