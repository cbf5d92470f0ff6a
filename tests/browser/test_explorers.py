"""The five explorers, used in JupyterLab as a student uses them: a slider moved, a head picked,
a sentence typed, the decoder stepped. After each change, the printed values on the page must
become what the explorer's view function returns for those settings, and the figure must become
the PNG that its draw function makes of that view: both computed here, in the test process, from
the same code, with the plotting style the notebook's setup_notebook() sets (the kernel runs on
this machine, so the PNG bytes are the same). Screenshots: build/screenshots/.
"""

from __future__ import annotations

import base64
import contextlib
import json

import matplotlib
import pytest
import torch
from browser_support import screenshot_path
from test_jupyterlab import KERNEL_READY_JS, RUN_FINISHED_JS, START_TIMEOUT_MS, click_menu

from helpers.display.setup import setup_notebook
from helpers.explore.attention import (
    AttentionSource,
    attention_view,
    describe_attention,
    draw_attention,
)
from helpers.explore.decoding import (
    DecodingSource,
    decoding_view,
    describe_decoding,
    draw_decoding,
)
from helpers.explore.live import figure_png
from helpers.explore.masks import describe_masks, draw_masks, masks_view
from helpers.explore.positions import describe_positions, draw_positions, positions_view
from helpers.explore.schedule import describe_schedule, draw_schedule, schedule_view

matplotlib.use("Agg")

NOTEBOOK = "explorers_in_the_browser.ipynb"
CELLS = [
    "from helpers import (explore_attention, explore_decoding, explore_masks,\n"
    "                     explore_positions, explore_schedule, load_pretrained, setup_notebook)\n"
    "device = setup_notebook()\n"
    "model, src_vocab, tgt_vocab, _ = load_pretrained()",
    "schedule = explore_schedule()",
    "positions = explore_positions()",
    "masks = explore_masks()",
    "attention = explore_attention(model, src_vocab, tgt_vocab)",
    "decoding = explore_decoding(model, src_vocab, tgt_vocab)",
]
UPDATE_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module", autouse=True)
def as_in_the_kernel():
    """One thread (the same float sums) and the notebooks' plotting style (the same PNG bytes),
    as the notebook's first cell sets them in the kernel; the thread count is restored after."""
    threads = torch.get_num_threads()
    setup_notebook()
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def explorers_page(lab_server, browser):
    """The notebook of the five explorers, opened and run in JupyterLab."""
    from browser_support import VIEWPORT

    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [],
            "execution_count": None,
        }
        for source in CELLS
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                    "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    (lab_server.root_dir / NOTEBOOK).write_text(json.dumps(notebook))
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    url = f"{lab_server.url}/lab/workspaces/explorers/tree/{NOTEBOOK}?token={lab_server.token}"
    page.goto(url)
    page.wait_for_function(KERNEL_READY_JS, arg=NOTEBOOK, timeout=START_TIMEOUT_MS, polling=250)
    # The file was written after the server started: the file browser holds the focus until the
    # notebook is clicked, and the Run menu acts on the active widget.
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    try:
        click_menu(page, "Run", "Run All Cells")
    except Exception:
        page.screenshot(path=screenshot_path("explorers_failed_to_run"))
        raise
    page.wait_for_function(RUN_FINISHED_JS, arg=NOTEBOOK, timeout=180_000, polling=500)
    yield page
    context.close()
    with contextlib.suppress(OSError):
        lab_server.shutdown_sessions()


def cell(page, index: int):
    return page.locator(".jp-NotebookPanel:visible .jp-CodeCell").nth(index)


def printed(code_cell) -> str:
    """The explorer's printed values: its plain-text output under the controls."""
    outputs = code_cell.locator('.jp-OutputArea-output[data-mime-type="text/plain"]')
    return outputs.last.inner_text().strip()


def figure(code_cell) -> str:
    return code_cell.locator(".jp-OutputArea-output img").last.get_attribute("src")


def png_of(src: str) -> bytes:
    """The PNG bytes of an img src "data:image/png;base64,..."."""
    prefix, _, data = src.partition(",")
    assert prefix == "data:image/png;base64", prefix[:40]
    return base64.b64decode("".join(data.split()))


def set_slider(code_cell, position: int, value) -> None:
    """Type a value into a slider's readout, as a student can instead of dragging."""
    readout = code_cell.locator(".widget-readout").nth(position)
    readout.click()
    readout.press("Control+A")
    readout.type(str(value))
    readout.press("Enter")


def expect_update(
    page, code_cell, before_figure: str, expected: str, expected_png: bytes, name: str
) -> None:
    """Wait until the printed values are `expected` and the figure was redrawn, then check that
    the figure is `expected_png` (the kernel sends the new figure before the new values)."""
    code_cell.scroll_into_view_if_needed()
    try:
        # Wait for both: the printed values can arrive before the new figure does.
        page.wait_for_function(
            "([node, expected, before]) => { const outs = node.querySelectorAll("
            "'.jp-OutputArea-output[data-mime-type=\"text/plain\"]');"
            " const imgs = node.querySelectorAll('.jp-OutputArea-output img');"
            " return outs.length && outs[outs.length - 1].innerText.trim() === expected"
            " && imgs.length && imgs[imgs.length - 1].getAttribute('src') !== before; }",
            arg=[code_cell.element_handle(), expected, before_figure],
            timeout=UPDATE_TIMEOUT_MS,
        )
    finally:
        page.screenshot(path=screenshot_path(f"explorer_{name}"))
    assert printed(code_cell) == expected
    assert figure(code_cell) != before_figure, f"{name}: the figure was not redrawn"
    assert png_of(figure(code_cell)) == expected_png, (
        f"{name}: the figure is not what the explorer's draw function makes of these settings"
    )


def test_the_schedule_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 1)
    assert printed(code_cell) == describe_schedule(schedule_view(512, 4000, 1.0, 20000))
    before = figure(code_cell)
    set_slider(code_cell, 1, 1000)  # warmup_steps
    view = schedule_view(512, 1000, 1.0, 20000)
    expect_update(page, code_cell, before, describe_schedule(view),
                  figure_png(draw_schedule(view)), "schedule")  # fmt: skip


def test_the_positions_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 2)
    before = figure(code_cell)
    set_slider(code_cell, 2, 7)  # the dimension pair
    view = positions_view(64, 50, 7, 5)
    expect_update(page, code_cell, before, describe_positions(view),
                  figure_png(draw_positions(view)), "positions")  # fmt: skip


def test_the_masks_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 3)
    before = figure(code_cell)
    set_slider(code_cell, 2, 4)  # source padding
    view = masks_view(6, 5, 4, 1)
    expect_update(
        page, code_cell, before, describe_masks(view), figure_png(draw_masks(view)), "masks"
    )


def test_a_head_picked_and_a_sentence_typed(explorers_page, shipped):
    page, code_cell = explorers_page, cell(explorers_page, 4)
    source = AttentionSource(*shipped)
    default = "die lehrerin kann ein wasser trinken"
    before = figure(code_cell)
    code_cell.locator("select").select_option("2")
    view = attention_view(source, default, "cross", 2, 2)
    expect_update(page, code_cell, before, describe_attention(view),
                  figure_png(draw_attention(view)), "attention_head")  # fmt: skip
    before = figure(code_cell)
    box = code_cell.locator("input[type=text]")
    box.fill("wo ist der bahnhof")
    box.press("Enter")
    view = attention_view(source, "wo ist der bahnhof", "cross", 2, 2)
    expected = describe_attention(view)
    assert "bahnhof" in expected
    expect_update(page, code_cell, before, expected, figure_png(draw_attention(view)),
                  "attention_sentence")  # fmt: skip


def test_stepping_the_decoder_and_moving_alpha(explorers_page, shipped):
    page, code_cell = explorers_page, cell(explorers_page, 5)
    source = DecodingSource(*shipped)
    sentence = "ihr kauft ein , weil wir aufstehen"
    before = figure(code_cell)
    set_slider(code_cell, 2, 7)  # step: "you go shopping because we get up </s>" finishes
    view = decoding_view(source, sentence, 4, 0.6, 7)
    expected = describe_decoding(view)
    assert "score = total / lp(8) = -0.837" in expected
    expect_update(
        page, code_cell, before, expected, figure_png(draw_decoding(view)), "decoding_step"
    )
    # alpha decides among finished hypotheses: moving it changes the score printed for them.
    before = figure(code_cell)
    set_slider(code_cell, 1, 0)  # alpha
    view = decoding_view(source, sentence, 4, 0.0, 7)
    expected = describe_decoding(view)
    assert "score = total / lp(8) = -1.330" in expected
    expect_update(
        page, code_cell, before, expected, figure_png(draw_decoding(view)), "decoding_alpha"
    )
