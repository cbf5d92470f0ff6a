"""Notebooks 00, 04 and 12, and the Chinese 04, run top to bottom through JupyterLab's own UI in
a real browser.

What a student does: open the notebook, wait for the kernel, Run → Run All Cells, look at the
figures, save. The test then checks the page (every prompt numbered, no error rendered, every
figure drawn and on screen) and the saved file (every code cell ran, in order, no error output).
"""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from browser_support import LabServer, screenshot_path

NOTEBOOKS = ["00_overview", "04_masks", "12_decoding_and_evaluation", "zh/04_masks"]

# Notebook 12 decodes with a trained model: about a minute on a 2-core CPU, so be generous.
START_TIMEOUT_MS = 90_000
RUN_TIMEOUT_MS = 300_000
SAVE_TIMEOUT_MS = 30_000

# The active notebook's kernel is ready when its session is up, the kernel answered kernel_info,
# its websocket is connected and it reports idle. `window.jupyterapp` exists because the server
# runs with expose_app_in_browser; the toolbar's execution indicator is what the user sees.
KERNEL_READY_JS = """
async (path) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  if (!panel || !panel.sessionContext || panel.context.path !== path) return false;
  await panel.sessionContext.ready;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) return false;
  await kernel.info;
  const indicator = panel.node.querySelector('.jp-Notebook-ExecutionIndicator');
  return kernel.connectionStatus === 'connected' && kernel.status === 'idle'
    && indicator !== null && indicator.dataset.status === 'idle';
}
"""

# Run All has ended: no cell waits with `[*]`, at least one ran, and the kernel is idle again.
# (JupyterLab marks every queued cell `[*]` at once and clears the rest when a cell fails, so
# this holds between cells of a run only at its end.) Prompts are read with textContent: cells
# off screen are not rendered (content-visibility) and their innerText is empty.
RUN_FINISHED_JS = """
(path) => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || panel.context.path !== path) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const prompts = [...panel.node.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
    .map((p) => p.textContent.trim());
  const indicator = panel.node.querySelector('.jp-Notebook-ExecutionIndicator');
  return !prompts.includes('[*]:') && prompts.some((p) => /^\\[\\d+\\]:$/.test(p))
    && kernel && kernel.status === 'idle' && indicator.dataset.status === 'idle';
}
"""

# What the page shows, cell by cell, in notebook order. A cell whose code is hidden (the
# exercises' solutions) shows a collapsed placeholder with an empty prompt; its execution count is
# the one the student sees on expanding it, so it is read from the cell's model.
PAGE_CELLS_JS = """
() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const text = (node) => (node ? node.textContent.trim() : null);
  return panel.content.widgets.map((cell) => ({
    code: cell.model.type === 'code',
    inputHidden: cell.inputHidden,
    count: cell.model.type === 'code' ? cell.model.executionCount : null,
    prompt: text(cell.node.querySelector('.jp-InputPrompt')),
    stderr: [...cell.node.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(text),
  }));
}
"""


def lab_url(server: LabServer, notebook: str) -> str:
    """The notebook's URL in its own workspace, so no earlier layout is restored around it."""
    workspace = notebook.replace("/", "-")
    return f"{server.url}/lab/workspaces/{workspace}/tree/{notebook}.ipynb?token={server.token}"


def click_menu(page, menu: str, item: str) -> None:
    """Open a top menu and click one of its items, as a user would."""
    page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(".lm-Menu:visible .lm-Menu-itemLabel", has_text=re.compile(f"^{item}$")).click()


def saved_outputs(notebook: dict) -> tuple[list[int | None], list[tuple[int, str]], int]:
    """Execution counts of the code cells, error outputs (cell index, text), image/png count."""
    counts, errors, n_images = [], [], 0
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        counts.append(cell.get("execution_count"))
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                errors.append((index, f"{output['ename']}: {output['evalue']}"))
            n_images += "image/png" in output.get("data", {})
    return counts, errors, n_images


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_in_jupyterlab(notebook, lab_server, guarded_context):
    path = f"{notebook}.ipynb"
    guarded = guarded_context()
    page = guarded.context.new_page()
    try:
        page.goto(lab_url(lab_server, notebook))
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget",
            timeout=START_TIMEOUT_MS,
        )
        try:
            page.wait_for_function(KERNEL_READY_JS, arg=path, timeout=START_TIMEOUT_MS, polling=250)
        except Exception as error:
            pytest.fail(
                f"{path}: the kernel never became connected and idle ({error}).\n"
                f"Server log:\n{lab_server.log_tail()}"
            )

        click_menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function(RUN_FINISHED_JS, arg=path, timeout=RUN_TIMEOUT_MS, polling=500)
        except Exception as error:
            cells = page.evaluate(PAGE_CELLS_JS)
            prompts = [(i, c["prompt"]) for i, c in enumerate(cells) if c["code"]]
            pytest.fail(
                f"{path}: Run All did not finish in {RUN_TIMEOUT_MS // 1000} s ({error}); "
                f"code cell prompts (cell index, prompt): {prompts}"
            )

        click_menu(page, "File", "Save Notebook")
        page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty",
            timeout=SAVE_TIMEOUT_MS,
        )
        # The rendered page, cell by cell.
        cells = page.evaluate(PAGE_CELLS_JS)
        saved = json.loads((lab_server.root_dir / path).read_text())
        assert len(cells) == len(saved["cells"]), (
            f"{path}: the page shows {len(cells)} cells, the saved file has {len(saved['cells'])}"
        )
        # JupyterLab draws an error through its stderr renderer; these notebooks print nothing to
        # stderr (strict nbval keeps it so), so anything shown there is an error or a new warning.
        shown_errors = [(i, text[:500]) for i, c in enumerate(cells) for text in c["stderr"]]
        assert not shown_errors, (
            f"{path}: error or stderr output on the page (cell index, text): {shown_errors}"
        )

        not_run = [
            (i, c["prompt"], c["count"])
            for i, c in enumerate(cells)
            if c["code"]
            and not (
                isinstance(c["count"], int)
                if c["inputHidden"]
                else re.fullmatch(r"\[\d+\]:", c["prompt"] or "")
            )
        ]
        assert not not_run, (
            f"{path}: code cells without an execution count on the page (index, prompt, count): {not_run}"
        )
        # The saved file: every code cell ran once, in order, in the fresh kernel, without error.
        counts, saved_errors, n_png = saved_outputs(saved)
        assert counts == list(range(1, len(counts) + 1)), (
            f"{path}: saved execution counts are not 1..{len(counts)} in order: {counts}"
        )
        assert not saved_errors, (
            f"{path}: error outputs in the saved notebook (cell index, error): {saved_errors}"
        )

        # The figures: drawn, decoded, on screen, as many as the saved image/png outputs. Deep
        # dives open collapsed; a student opens them to see their figures, as this does.
        page.evaluate("window.jupyterapp.commands.execute('notebook:expand-all-headings')")
        assert n_png >= 1, f"{path}: the saved notebook has no image/png output; expected figures"
        images = page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output img")
        n_images = images.count()
        assert n_images == n_png, (
            f"{path}: {n_images} figures rendered on the page, {n_png} image/png outputs saved"
        )
        for k in range(n_images):
            image = images.nth(k)
            image.scroll_into_view_if_needed()
            state = image.evaluate(
                "(img) => ({complete: img.complete, width: img.naturalWidth,"
                " box: img.getBoundingClientRect().width,"
                " cell: [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')]"
                ".indexOf(img.closest('.jp-Cell'))})"
            )
            assert (
                image.is_visible() and state["complete"] and state["width"] > 0 and state["box"] > 0
            ), f"{path}: figure {k} (cell index {state['cell']}) is not drawn on screen: {state}"
        # JupyterLab fills the window and scrolls inside it: "full page" is the window, here
        # showing the last figure.
        page.screenshot(path=screenshot_path(f"lab_{notebook.replace('/', '_')}"), full_page=True)

        assert not guarded.blocked, (
            f"{path}: JupyterLab asked for non-local URLs: {guarded.blocked}"
        )
        # Kernel traffic goes over websockets, which routes do not see: they must reach our server.
        server_ws = lab_server.url.replace("http://", "ws://", 1) + "/"
        assert guarded.websockets and all(
            url.startswith(server_ws) for url in guarded.websockets
        ), f"{path}: websockets outside the local server: {guarded.websockets}"
    except BaseException:
        # What the page showed when the test failed, next to the error; a failure to take the
        # picture must not hide the error itself.
        with contextlib.suppress(Exception):
            if not page.is_closed():
                page.screenshot(path=screenshot_path(f"lab_{notebook}_failed"))
        raise
    finally:
        # The next notebook starts without this one's kernel; a server that is already gone
        # (the error is elsewhere) is not a second failure.
        with contextlib.suppress(OSError):
            lab_server.shutdown_sessions()
