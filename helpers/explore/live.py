"""The machinery every explorer shares: controls, a figure redrawn in place, timings.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Mapping
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from helpers.language import tr


def kind_label(kind: str) -> str:
    """A kind of attention ("encoder self", "decoder self", "cross": the key the explorers use)
    as a student reads it, in the notebook's language."""
    labels = {
        "encoder self": tr("encoder self"),
        "decoder self": tr("decoder self"),
        "cross": tr("cross"),
    }
    return labels[kind]


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes (then closed, so that it is not drawn a second time)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi)
    plt.close(fig)
    return buffer.getvalue()


class Explorer:
    """Controls bound to ``view(**settings) -> data`` and ``draw(data) -> Figure``.

    ``update(**changes)`` sets controls and returns the new view's data (what a test or a
    benchmark calls); ``show()`` displays the controls and the figure, redrawn after each change.
    ``last_data``, ``last_text`` and ``last_seconds`` describe the latest redraw.
    """

    def __init__(
        self,
        controls: Mapping[str, Any],
        view: Callable[..., dict],
        draw: Callable[[dict], Figure],
        describe: Callable[[dict], str] | None = None,
        title: str = "",
    ):
        self.controls = dict(controls)
        self.view, self.draw, self.describe, self.title = view, draw, describe, title
        self.last_data: dict = {}
        self.last_text = ""
        self.last_png = b""
        self.last_seconds = 0.0
        self._figure_handle = None
        self._text_handle = None
        self._redraw()
        for control in self.controls.values():
            control.observe(lambda _change: self._redraw(), names="value")

    def settings(self) -> dict[str, Any]:
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **changes: Any) -> dict:
        """Set some controls (by name) as a student would, and return the new view's data."""
        unknown = sorted(set(changes) - set(self.controls))
        if unknown:
            raise ValueError(
                tr("changes: expected control names among {names}, got {unknown}").format(
                    names=sorted(self.controls), unknown=unknown
                )
            )
        self._holding = True  # one redraw for all the changes, not one per control
        try:
            for name, value in changes.items():
                self.controls[name].value = value
        finally:
            self._holding = False
        self._redraw()
        return self.last_data

    _holding = False

    def _redraw(self) -> None:
        if self._holding:
            return
        start = time.perf_counter()
        self.last_data = self.view(**self.settings())
        self.last_png = figure_png(self.draw(self.last_data))
        self.last_text = self.describe(self.last_data) if self.describe else ""
        self.last_seconds = time.perf_counter() - start
        if self._figure_handle is not None:
            from IPython.display import Image

            self._figure_handle.update(Image(self.last_png))
            if self._text_handle is not None:
                self._text_handle.update(_Text(self.last_text))

    def show(self) -> None:
        """Display the controls, the figure and the printed values (in a notebook)."""
        import ipywidgets as widgets
        from IPython.display import Image, display

        box = widgets.VBox(
            [widgets.HTML(f"<b>{self.title}</b>")] if self.title else [],
            layout=widgets.Layout(width="100%"),
        )
        box.children = (*box.children, *self.controls.values())
        display(box)
        if self.describe:
            self._text_handle = display(_Text(self.last_text), display_id=True)
        self._figure_handle = display(Image(self.last_png), display_id=True)


class _Text:
    """Plain text shown (and updated) as a display output, like print's, without a widget."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text
