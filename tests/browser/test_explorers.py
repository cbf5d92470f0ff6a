"""The five explorers, used in JupyterLab as a student uses them: a slider moved, a head picked,
a sentence typed, the decoder stepped. After each change, the printed values on the page must
become what the explorer's view function returns for those settings (computed here, in the test
process, from the same code), and the figure must be redrawn. Screenshots: build/screenshots/.
"""

from __future__ import annotations

import contextlib
import json

import pytest
import torch
from browser_support import screenshot_path
from test_jupyterlab import KERNEL_READY_JS, RUN_FINISHED_JS, START_TIMEOUT_MS, click_menu

from helpers.explore.attention import AttentionSource, attention_view, describe_attention
from helpers.explore.decoding import DecodingSource, decoding_view, describe_decoding
from helpers.explore.masks import describe_masks, masks_view
from helpers.explore.positions import describe_positions, positions_view
from helpers.explore.schedule import describe_schedule, schedule_view
from helpers.pretrained import load_pretrained

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


@pytest.fixture(scope="module")
def shipped():
    torch.set_num_threads(1)  # as setup_notebook in the kernel: the same float sums
    model, src_vocab, tgt_vocab, _ = load_pretrained()
    return model, src_vocab, tgt_vocab


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


def set_slider(code_cell, position: int, value) -> None:
    """Type a value into a slider's readout, as a student can instead of dragging."""
    readout = code_cell.locator(".widget-readout").nth(position)
    readout.click()
    readout.press("Control+A")
    readout.type(str(value))
    readout.press("Enter")


def expect_update(page, code_cell, before_figure: str, expected: str, name: str) -> None:
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


def test_the_schedule_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 1)
    assert printed(code_cell) == describe_schedule(schedule_view(512, 4000, 1.0, 20000))
    before = figure(code_cell)
    set_slider(code_cell, 1, 1000)  # warmup_steps
    expect_update(
        page, code_cell, before, describe_schedule(schedule_view(512, 1000, 1.0, 20000)), "schedule"
    )


def test_the_positions_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 2)
    before = figure(code_cell)
    set_slider(code_cell, 2, 7)  # the dimension pair
    expect_update(
        page, code_cell, before, describe_positions(positions_view(64, 50, 7, 5)), "positions"
    )


def test_the_masks_slider(explorers_page):
    page, code_cell = explorers_page, cell(explorers_page, 3)
    before = figure(code_cell)
    set_slider(code_cell, 2, 4)  # source padding
    expect_update(page, code_cell, before, describe_masks(masks_view(6, 5, 4, 1)), "masks")


def test_a_head_picked_and_a_sentence_typed(explorers_page, shipped):
    page, code_cell = explorers_page, cell(explorers_page, 4)
    source = AttentionSource(*shipped)
    default = "die lehrerin kann ein wasser trinken"
    before = figure(code_cell)
    code_cell.locator("select").select_option("2")
    expect_update(page, code_cell, before,
                  describe_attention(attention_view(source, default, "cross", 2, 2)), "attention_head")  # fmt: skip
    before = figure(code_cell)
    box = code_cell.locator("input[type=text]")
    box.fill("wo ist der bahnhof")
    box.press("Enter")
    expected = describe_attention(attention_view(source, "wo ist der bahnhof", "cross", 2, 2))
    assert "bahnhof" in expected
    expect_update(page, code_cell, before, expected, "attention_sentence")


def test_stepping_the_decoder(explorers_page, shipped):
    page, code_cell = explorers_page, cell(explorers_page, 5)
    source = DecodingSource(*shipped)
    before = figure(code_cell)
    set_slider(code_cell, 2, 3)  # step
    expected = describe_decoding(
        decoding_view(source, "ihr kauft ein , weil wir aufstehen", 4, 0.6, 3)
    )
    expect_update(page, code_cell, before, expected, "decoding")
