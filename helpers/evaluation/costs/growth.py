"""Tables and figures of how a cost grows with the sequence length (notebook 13), hand-written.

Hand-written: edit this file itself; no notebook generates it.

``growth_table`` prints one row per layer (its cost at each length and the log-log slope fitted on
the longest lengths) and returns the slopes; ``plot_growth`` draws the same series on log-log axes
with dashed reference lines of known slope; ``plot_patterns`` draws bool (n, n) patterns side by
side. The notebook asserts on the numbers; these functions only show them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from helpers.display.shapes import format_table
from helpers.evaluation.complexity import log_log_slope
from helpers.language import tr

MARKERS = ("o", "s", "^", "D", "v", "P")


def growth_table(
    title: str,
    ns: Sequence[int],
    series: Mapping[str, Sequence[float]],
    *,
    fit_from: int | None = None,
    scale: float = 1.0,
    digits: int = 1,
    label: str | None = None,
) -> dict[str, float]:
    """Print ``title`` and a table: one row per series, its values / scale at each n, and (with
    ``fit_from``) the log-log slope fitted on n >= fit_from. ``label`` heads the column of series
    names ("layer" when None). Returns {name: slope} ({} without)."""
    slopes = {}
    if fit_from is not None:
        start = next(index for index, n in enumerate(ns) if n >= fit_from)
        slopes = {
            name: log_log_slope(ns[start:], values[start:]) for name, values in series.items()
        }
    header = [tr("layer") if label is None else label, *[f"n={n}" for n in ns]]
    if fit_from is not None:
        header.append(tr("slope (n >= {n})").format(n=fit_from))
    rows = []
    for name, values in series.items():
        row = [name, *[f"{value / scale:,.{digits}f}" for value in values]]
        rows.append(
            row + ([f"{round(slopes[name], 2) + 0.0:.2f}"] if fit_from is not None else [])
        )  # no -0.00
    print(title)
    print(format_table(header, rows), end="\n\n")
    return slopes


def plot_growth(
    ax: Axes,
    ns: Sequence[int],
    series: Mapping[str, Sequence[float]],
    ylabel: str,
    slopes: Mapping[str, float] | None = None,
    references: Sequence[int] = (),
    *,
    ybase: float = 10,
    title: str = "",
) -> dict[int, list[float]]:
    """Draw each series against n on log-log axes (slope in the legend when given).

    A series equal to an earlier one is drawn dashed with crosses, so that it stays visible on top
    of it. ``references``: powers p of dashed grey lines c * n^p, started at half the smallest
    first value so that none lies under a measured line. Returns {p: the reference line's values}.
    """
    drawn: list[list[float]] = []
    for index, (name, values) in enumerate(series.items()):
        values = [float(value) for value in values]
        label = (
            name
            if slopes is None
            else tr("{name}: slope {slope:.2f}").format(name=name, slope=slopes[name])
        )
        style = {"marker": MARKERS[index % len(MARKERS)]}
        if values in drawn:
            style = {"marker": "x", "markersize": 9, "linestyle": "--"}
        ax.plot(ns, values, label=label, **style)
        drawn.append(values)
    start = min(values[0] for values in drawn) / 2
    lines = {}
    for power in references:
        lines[power] = [start * (n / ns[0]) ** power for n in ns]
        label = tr("slope {power} (reference)").format(power=power)
        ax.plot(ns, lines[power], "--", color="0.35", linewidth=1.2, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=ybase)
    ax.set_xlabel(tr("sequence length n"))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return lines


def plot_patterns(patterns: Mapping[str, torch.Tensor], title: str, tick_step: int = 3) -> Figure:
    """One panel per (n, n) bool pattern, rows = output position i, columns = input position j;
    a shared colour bar says 1 = depends, 0 = does not."""
    fig, axes = plt.subplots(
        1, len(patterns), figsize=(3.5 * len(patterns), 3.9), layout="constrained"
    )
    axes = np.atleast_1d(axes)
    image = None
    for column, (ax, (name, pattern)) in enumerate(zip(axes, patterns.items(), strict=True)):
        image = ax.imshow(pattern.float().cpu().numpy(), vmin=0, vmax=1, cmap="viridis")
        ticks = list(range(0, pattern.shape[0], tick_step))
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_yticks(ticks, [str(t) for t in ticks])
        ax.set_title(name)
        ax.set_xlabel(tr("input position j"))
        if column == 0:
            ax.set_ylabel(tr("output position i"))
    fig.colorbar(image, ax=axes, shrink=0.8, ticks=[0, 1], label=tr("depends on it (1) or not (0)"))
    fig.suptitle(title)
    return fig
