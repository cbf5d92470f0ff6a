"""Labelled heatmaps for attention weights, masks and positional encodings.

Hand-written: edit this file itself; no notebook generates it.

Both functions return the matplotlib figure, so a notebook ends the cell with ``plt.show()`` and a
test can read the labels and the data back from ``fig.axes``. They draw with matplotlib's
``pcolormesh`` in seaborn's heatmap style (cells, centred tick labels, rows from the top) rather
than calling ``seaborn.heatmap``, which draws the whole figure once per panel to decide whether to
rotate its labels: the explorers redraw these figures live, and that draw tripled their cost.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from helpers.language import tr

ArrayLike = torch.Tensor | np.ndarray


def _to_numpy(data: ArrayLike, name: str, ndim: int) -> np.ndarray:
    if isinstance(data, torch.Tensor):
        data = data.detach().to("cpu", torch.float32).numpy()
    elif isinstance(data, np.ndarray):
        data = data.astype(np.float32)
    else:
        raise ValueError(
            tr("{name}: expected a torch.Tensor or numpy array, got {type}").format(
                name=name, type=type(data).__name__
            )
        )
    if data.ndim != ndim:
        raise ValueError(
            tr("{name}: expected {ndim} dimensions, got shape {shape}").format(
                name=name, ndim=ndim, shape=tuple(data.shape)
            )
        )
    return data


# Beyond this many rows or columns a heatmap names every k-th one: more labels would overlap
# (and each costs drawing time, which an explorer redraws on every change).
MAX_NAMED_CELLS = 20
# A panel of a heatmap grid grows with its cells up to this many, then its cells get smaller.
MAX_PANEL_CELLS = 20


def _check_labels(labels: Sequence[str] | None, size: int, name: str) -> list[str] | bool:
    if labels is None:
        return size <= 40
    labels = [str(label) for label in labels]
    if len(labels) != size:
        raise ValueError(
            tr("{name}: expected {size} labels to match the data, got {count}").format(
                name=name, size=size, count=len(labels)
            )
        )
    return labels


def _draw_cells(
    ax: plt.Axes,
    values: np.ndarray,
    xticks: list[str] | bool,
    yticks: list[str] | bool,
    cmap: str,
    vmin: float | None,
    vmax: float | None,
    colorbar: bool,
    colorbar_axis: plt.Axes | None = None,
) -> None:
    """One heatmap: a cell per value, row 0 at the top, labels centred on the cells."""
    mesh = ax.pcolormesh(values, cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xlim(0, values.shape[1])
    ax.set_ylim(values.shape[0], 0)
    for axis, ticks, size in (
        (ax.xaxis, xticks, values.shape[1]),
        (ax.yaxis, yticks, values.shape[0]),
    ):
        if ticks is False:
            axis.set_ticks([])
        elif ticks is True:  # automatic: at most 10 labelled cells, at their centres
            step = max(1, -(-size // 10))
            axis.set_ticks(
                [i + 0.5 for i in range(0, size, step)], [str(i) for i in range(0, size, step)]
            )
        else:  # every cell named, or every k-th one when more would not be readable
            step = max(1, -(-size // MAX_NAMED_CELLS))
            axis.set_ticks([i + 0.5 for i in range(0, size, step)], ticks[::step])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if colorbar:
        ax.figure.colorbar(mesh, ax=None if colorbar_axis else ax, cax=colorbar_axis)


def plot_heatmap(
    data: ArrayLike,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    ax: plt.Axes | None = None,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    annotate: bool = False,
    colorbar: bool = True,
) -> Figure:
    """Draw one heatmap of a 2-D array: rows are y (e.g. queries), columns are x (e.g. keys).

    data: (rows, columns). x_labels / y_labels: one label per column / row (e.g. tokens).
    annotate: write each value in its cell (for small matrices). Returns the figure.
    """
    values = _to_numpy(data, "data", ndim=2)
    xticks = _check_labels(x_labels, values.shape[1], "x_labels")
    yticks = _check_labels(y_labels, values.shape[0], "y_labels")
    if ax is None:
        width = min(10.0, 2.0 + 0.45 * values.shape[1]) if values.shape[1] <= 20 else 7.0
        height = min(8.0, 1.5 + 0.4 * values.shape[0]) if values.shape[0] <= 20 else 5.0
        fig, ax = plt.subplots(figsize=(max(width, 4.0), max(height, 3.0)))
    else:
        fig = ax.figure
    _draw_cells(ax, values, xticks, yticks, cmap, vmin, vmax, colorbar=colorbar)
    if annotate:
        for (row, column), value in np.ndenumerate(values):
            ax.text(column + 0.5, row + 0.5, f"{value:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if value < np.nanmean(values) else "black")  # fmt: skip
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    long_labels = isinstance(xticks, list) and max(map(len, xticks)) > 3
    rotate = xticks is not False and (values.shape[1] > 8 or long_labels)
    ax.tick_params(axis="x", labelrotation=90 if rotate else 0)
    ax.tick_params(axis="y", labelrotation=0)
    fig.tight_layout()
    return fig


def plot_heatmap_grid(
    data: ArrayLike,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str = "",
    row_name: str | None = None,
    column_name: str | None = None,
    cmap: str = "viridis",
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
) -> Figure:
    """Draw a grid of heatmaps, e.g. attention weights for every layer (rows) and head (columns).

    data: (rows, columns, len_q, len_k). The colour scale is shared (0..1 by default, right for
    attention weights) and drawn once. row_name, column_name: what a row and a column are (by
    default "layer" and "head", in the notebook's language). Returns the figure; ``fig.axes`` lists
    the panels row by row and then the colour bar.
    """
    row_name = tr("layer") if row_name is None else row_name
    column_name = tr("head") if column_name is None else column_name
    values = _to_numpy(data, "data", ndim=4)
    n_rows, n_columns, len_q, len_k = values.shape
    xticks = _check_labels(x_labels, len_k, "x_labels")
    yticks = _check_labels(y_labels, len_q, "y_labels")
    panel = 1.2 + 0.22 * min(max(len_q, len_k), MAX_PANEL_CELLS)
    fig, axes = plt.subplots(
        n_rows,
        n_columns,
        figsize=(min(16.0, panel * n_columns + 1.0), min(24.0, panel * n_rows + 0.6)),
        squeeze=False,
    )
    colorbar_axis = fig.add_axes((0.93, 0.15, 0.015, 0.7))
    for row in range(n_rows):
        for column in range(n_columns):
            ax = axes[row, column]
            _draw_cells(
                ax,
                values[row, column],
                xticks if row == n_rows - 1 else False,
                yticks if column == 0 else False,
                cmap,
                vmin,
                vmax,
                colorbar=(row == 0 and column == 0),
                colorbar_axis=colorbar_axis,
            )
            ax.tick_params(axis="x", labelrotation=90)
            ax.tick_params(axis="y", labelrotation=0)
            if row == 0:
                ax.set_title(f"{column_name} {column}", fontsize=10)
            if column == 0:
                ax.set_ylabel(f"{row_name} {row}", fontsize=10)
    fig.suptitle(title)
    # Margins in inches (title and head names above, token labels below), whatever the grid size.
    height = fig.get_figheight()
    fig.subplots_adjust(
        left=0.08,
        right=0.91,
        top=1 - 0.8 / height,
        bottom=min(0.4, 1.0 / height),
        wspace=0.15,
        hspace=0.2,
    )
    return fig


MASK_VISIBLE_COLOUR = "#2b5d8c"  # a cell the query may attend to
MASK_HIDDEN_COLOUR = "#e4e4e4"  # a hidden cell: light grey, hatched, so it never reads as empty


def plot_mask(
    mask: ArrayLike,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str = "",
    ax: plt.Axes | None = None,
) -> Figure:
    """Draw a boolean attention mask (True = may attend): queries down the side, keys along the
    bottom, visible cells filled, hidden cells grey and hatched, a frame and a legend below.

    mask: (len_q, len_k). Returns the figure.
    """
    values = _to_numpy(mask, "mask", ndim=2).astype(float)
    xticks = _check_labels(x_labels, values.shape[1], "x_labels")
    yticks = _check_labels(y_labels, values.shape[0], "y_labels")
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.5, 4.0))
    else:
        fig = ax.figure
    colours = ListedColormap([MASK_HIDDEN_COLOUR, MASK_VISIBLE_COLOUR])
    _draw_cells(ax, values, xticks, yticks, colours, 0.0, 1.0, colorbar=False)
    for row, column in zip(*np.nonzero(values == 0), strict=True):
        ax.add_patch(Rectangle((column, row), 1, 1, fill=False, hatch="///", linewidth=0,
                               edgecolor="#9a9a9a"))  # fmt: skip
    for spine in ax.spines.values():  # a frame, so that hidden cells at the border keep an edge
        spine.set_visible(True)
    handles = [
        Patch(facecolor=MASK_VISIBLE_COLOUR, label=tr("may attend (True)")),
        Patch(facecolor=MASK_HIDDEN_COLOUR, hatch="///", edgecolor="#9a9a9a",
              label=tr("hidden (False)")),
    ]  # fmt: skip
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
              frameon=False, fontsize=8)  # fmt: skip
    ax.set_title(title)
    ax.set_xlabel(tr("key"))
    ax.set_ylabel(tr("query"))
    fig.tight_layout()
    return fig


def plot_mask_and_weights(
    mask: ArrayLike, weights: ArrayLike, queries: Sequence[str], keys: Sequence[str], title: str
) -> Figure:
    """A mask (len_q, len_k) beside the attention weights it produces, with token labels."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    plot_mask(mask, keys, queries, title=tr("mask"), ax=axes[0])
    plot_heatmap(weights, keys, queries, title=tr("attention weights"), xlabel=tr("key"),
                 ylabel=tr("query"), ax=axes[1], vmin=0.0, vmax=1.0, annotate=True)  # fmt: skip
    fig.suptitle(title)
    fig.tight_layout()
    return fig
