"""Explore the sinusoidal positional encoding (notebook 02): table, curves, dot products, rotation.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from helpers.display.plots import plot_heatmap
from helpers.explore.live import Explorer
from helpers.language import tr
from helpers.model.embeddings import sinusoidal_table


def positions_view(d_model: int, positions: int, pair: int, offset: int) -> dict:
    """The numbers behind the positional-encoding figures for one setting of the controls.

    d_model: width of the encoding (even). positions: how many positions (rows). pair: which
    (sin, cos) dimension pair i to follow, 0 <= i < d_model / 2. offset: a relative offset k.
    Returns the table (positions, d_model), the pair's two curves, the dot-product map
    PE[p] · PE[q], the pair's frequency, and the 2x2 rotation R(k) with R(k) @ PE_pair[p] equal
    to PE_pair[p + k] for every p (the relative-offset property, checked here).
    """
    for name, value, low in (("d_model", d_model, 2), ("positions", positions, 2)):
        if not isinstance(value, int) or value < low:
            raise ValueError(
                tr("{name}: expected an int >= {low}, got {value!r}").format(
                    name=name, low=low, value=value
                )
            )
    if d_model % 2:
        raise ValueError(
            tr("d_model: expected an even number, got {d_model}").format(d_model=d_model)
        )
    if not isinstance(pair, int) or not 0 <= pair < d_model // 2:
        raise ValueError(
            tr("pair: expected an int in [0, {last}], got {pair!r}").format(
                last=d_model // 2 - 1, pair=pair
            )
        )
    if not isinstance(offset, int) or not 0 <= offset < positions:
        raise ValueError(
            tr("offset: expected an int in [0, {last}], got {offset!r}").format(
                last=positions - 1, offset=offset
            )
        )
    table = sinusoidal_table(positions + offset, d_model).double()
    frequency = 1.0 / 10000 ** (2 * pair / d_model)
    angle = frequency * offset
    # PE_pair[p] = (sin wp, cos wp); shifting by k rotates it: sin(w(p+k)) = sin wp cos wk + cos wp sin wk.
    rotation = torch.tensor(
        [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]],
        dtype=torch.float64,
    )
    pair_values = table[:, 2 * pair : 2 * pair + 2]  # (positions + offset, 2)
    rotated = pair_values[:positions] @ rotation.T
    shifted = pair_values[offset : offset + positions]
    table = table[:positions]
    return {
        "d_model": d_model,
        "positions": positions,
        "pair": pair,
        "offset": offset,
        "table": table,
        "sin": table[:, 2 * pair],
        "cos": table[:, 2 * pair + 1],
        "dot_products": table @ table.T,
        "frequency": frequency,
        "rotation": rotation,
        "rotation_error": float((rotated - shifted).abs().max()),
    }


def draw_positions(view: dict) -> Figure:
    """Three panels: the table, the chosen pair's curves, the dot-product map."""
    fig, axes = plt.subplots(1, 3, figsize=(14.0, 3.8))
    plot_heatmap(
        view["table"].float(),
        x_labels=None,
        y_labels=None,
        title=tr("PE table, d_model={d_model}").format(d_model=view["d_model"]),
        xlabel=tr("dimension"),
        ylabel=tr("position"),
        ax=axes[0],
        cmap="RdBu_r",
        vmin=-1.0,
        vmax=1.0,
    )
    pair, positions = view["pair"], torch.arange(view["positions"])
    axes[1].plot(positions, view["sin"], label=tr("dim {dim} (sin)").format(dim=2 * pair))
    axes[1].plot(positions, view["cos"], label=tr("dim {dim} (cos)").format(dim=2 * pair + 1))
    axes[1].axvline(view["offset"], color="grey", linestyle=":",
                    label=tr("offset k={offset}").format(offset=view["offset"]))  # fmt: skip
    axes[1].set_title(
        tr("pair i={pair}: wavelength {wavelength:.1f} positions").format(
            pair=pair, wavelength=2 * math.pi / view["frequency"]
        )
    )
    axes[1].set_xlabel(tr("position"))
    axes[1].legend(loc="lower left", fontsize=8)
    plot_heatmap(
        view["dot_products"].float(),
        title="PE[p] · PE[q]",
        xlabel=tr("position q"),
        ylabel=tr("position p"),
        ax=axes[2],
    )
    fig.tight_layout()
    return fig


def describe_positions(view: dict) -> str:
    angle = view["frequency"] * view["offset"]
    holds = tr("holds") if view["rotation_error"] < 1e-5 else tr("FAILS")
    return tr(
        "pair i={pair}: frequency {frequency:.4f} rad/position; offset "
        "k={offset} rotates (sin, cos) by {angle:.4f} rad; "
        "R(k) PE[p] = PE[p+k] {holds} for every p (within 1e-5)"
    ).format(
        pair=view["pair"],
        frequency=view["frequency"],
        offset=view["offset"],
        angle=angle,
        holds=holds,
    )


def explore_positions(
    d_model: int = 64, positions: int = 50, pair: int = 4, offset: int = 5, show: bool = True
) -> Explorer:
    """Sliders for d_model, the number of positions, the dimension pair and the offset."""
    import ipywidgets as widgets

    style = {"description_width": "90px"}
    controls = {
        "d_model": widgets.IntSlider(
            d_model, min=8, max=256, step=8, description="d_model", style=style
        ),
        "positions": widgets.IntSlider(
            positions, min=10, max=200, step=10, description=tr("positions"), style=style
        ),
        "pair": widgets.IntSlider(
            pair, min=0, max=d_model // 2 - 1, description=tr("pair i"), style=style
        ),
        "offset": widgets.IntSlider(
            offset, min=0, max=positions - 1, description=tr("offset k"), style=style
        ),
    }

    def keep_in_range(_change) -> None:  # the pair and offset sliders follow d_model and positions
        controls["pair"].max = controls["d_model"].value // 2 - 1
        controls["offset"].max = controls["positions"].value - 1

    controls["d_model"].observe(keep_in_range, names="value")
    controls["positions"].observe(keep_in_range, names="value")
    explorer = Explorer(
        controls, positions_view, draw_positions, describe_positions, tr("Positional encoding")
    )
    if show:
        explorer.show()
    return explorer
