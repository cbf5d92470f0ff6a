"""Explore the samplers (notebook 16): temperature, top-k and top-p on a next-token distribution.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from helpers.decoding.sampling import filter_logits
from helpers.explore.live import Explorer
from helpers.language import tr

# Notebook 16's toy distribution: six drinks, most likely first.
TOY_WORDS = ("beer", "coffee", "tea", "water", "wine", "juice")
TOY_LOGITS = (2.0, 1.5, 1.0, 0.5, 0.0, -1.0)


def sampling_view(
    logits: Sequence[float], words: Sequence[str], temperature: float, top_k: int, top_p: float
) -> dict:
    """The probabilities a sampler draws from: softmax(filter_logits(logits / T, top_k, top_p)).

    top_k 0 means no top-k filter; top_p 1 means no top-p filter. Returns the plain softmax
    (T = 1, no filter), the sampler's probabilities, which tokens are kept, and the entropy (in
    nats) of what is sampled."""
    if len(logits) != len(words) or len(words) < 2:
        raise ValueError(
            tr(
                "words: expected one word per score (at least two), got {words} and {scores}"
            ).format(words=len(words), scores=len(logits))
        )
    if not isinstance(temperature, int | float) or temperature <= 0:
        raise ValueError(
            tr("temperature: expected a number > 0, got {temperature!r}").format(
                temperature=temperature
            )
        )
    scores = torch.tensor([float(x) for x in logits])
    filtered = filter_logits(scores / temperature, top_k or None, top_p)  # checks top_k, top_p
    probs = filtered.softmax(-1)
    kept = filtered > -math.inf
    entropy = -(probs[kept] * probs[kept].log()).sum().item()
    return {
        "words": list(words),
        "temperature": float(temperature),
        "top_k": int(top_k),
        "top_p": float(top_p),
        "plain": scores.softmax(-1).tolist(),
        "probs": probs.tolist(),
        "kept": kept.tolist(),
        "entropy": entropy,
    }


def draw_sampling(view: dict) -> Figure:
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    positions = range(len(view["words"]))
    ax.bar([p - 0.2 for p in positions], view["plain"], width=0.4, color="lightgrey",
           label=tr("softmax, T = 1, no filter"))  # fmt: skip
    colours = ["C0" if kept else "white" for kept in view["kept"]]
    ax.bar([p + 0.2 for p in positions], view["probs"], width=0.4, color=colours,
           edgecolor="C0", label=tr("what the sampler draws from"))  # fmt: skip
    ax.set_xticks(list(positions), view["words"])
    ax.set_ylim(0, 1)
    ax.set_ylabel(tr("probability"))
    # A filter that is off says so in words (top_k 0, top_p 1), not with a placeholder.
    top_k = f"top_k = {view['top_k']}" if view["top_k"] else tr("top_k off")
    top_p = f"top_p = {view['top_p']:g}" if view["top_p"] < 1 else tr("top_p off")
    ax.set_title(
        tr("T = {temperature}, {top_k}, {top_p}").format(
            temperature=f"{view['temperature']:g}", top_k=top_k, top_p=top_p
        )
    )
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def describe_sampling(view: dict) -> str:
    return tr("{kept} of {total} tokens kept; entropy {entropy:.3f} nats").format(
        kept=sum(view["kept"]), total=len(view["words"]), entropy=view["entropy"]
    )


def explore_sampling(
    logits: Sequence[float] = TOY_LOGITS, words: Sequence[str] = TOY_WORDS,
    temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, show: bool = True,
) -> Explorer:  # fmt: skip
    """Sliders for the temperature, top-k (0: off) and top-p (1: off) over one distribution."""
    import functools

    import ipywidgets as widgets

    style = {"description_width": "110px"}
    controls = {
        "temperature": widgets.FloatSlider(
            temperature, min=0.1, max=3.0, step=0.1, description=tr("temperature"), style=style
        ),
        "top_k": widgets.IntSlider(
            top_k, min=0, max=len(words), step=1, description="top_k", style=style
        ),
        "top_p": widgets.FloatSlider(
            top_p, min=0.05, max=1.0, step=0.05, description="top_p", style=style
        ),
    }
    view = functools.partial(sampling_view, list(logits), list(words))
    explorer = Explorer(
        controls, view, draw_sampling, describe_sampling, tr("Temperature, top-k and top-p")
    )
    if show:
        explorer.show()
    return explorer
