"""Every stored notebook is what a fresh top-to-bottom run stores; broken cases are caught."""

import json

import pytest

from helpers.paths import NOTEBOOKS_DIR, numbered_notebooks
from tools.freshness import notebook_problems

# The glossary is the one notebook that is not a lesson: no number, no code (tests/test_glossary.py).
GLOSSARY = NOTEBOOKS_DIR / "glossary.ipynb"
NOTEBOOKS = numbered_notebooks()


def test_notebooks_are_numbered_in_sequence():
    names = [path.name for path in NOTEBOOKS]
    others = sorted(p.name for p in NOTEBOOKS_DIR.glob("*.ipynb") if p not in NOTEBOOKS)
    assert others == [GLOSSARY.name], (
        f"every notebook but glossary.ipynb is NN_words.ipynb: {others}"
    )
    numbers = [int(name[:2]) for name in names]
    assert numbers == list(range(len(numbers))), f"numbered 00, 01, ... without gaps: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_is_stored_fresh(path):
    assert notebook_problems(path) == []


@pytest.fixture
def stored(tmp_path):
    """A copy of notebook 00 as JSON, and a function that writes a variant and checks it."""
    notebook = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))

    def problems_of(variant: dict) -> list[str]:
        path = tmp_path / "variant.ipynb"
        path.write_text(json.dumps(variant), encoding="utf-8")
        return notebook_problems(path)

    return notebook, problems_of


def code_cells(notebook):
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_the_stored_copy_passes(stored):
    notebook, problems_of = stored
    assert problems_of(notebook) == []


def test_cleared_outputs_fail(stored):
    notebook, problems_of = stored
    for cell in code_cells(notebook):
        cell["outputs"], cell["execution_count"] = [], None
    assert any("never run" in problem for problem in problems_of(notebook))


def test_cells_run_out_of_order_fail(stored):
    notebook, problems_of = stored
    cells = code_cells(notebook)
    cells[0]["execution_count"], cells[1]["execution_count"] = 2, 1
    assert any("top to bottom" in problem for problem in problems_of(notebook))


def test_a_stored_error_fails(stored):
    notebook, problems_of = stored
    code_cells(notebook)[-1]["outputs"].append(
        {"output_type": "error", "ename": "ValueError", "evalue": "boom", "traceback": []}
    )
    assert any("stores an error" in problem for problem in problems_of(notebook))


def test_an_absolute_path_fails(stored):
    notebook, problems_of = stored
    code_cells(notebook)[0]["outputs"].append(
        {"output_type": "stream", "name": "stdout", "text": ["saved to /home/alice/model.pt\n"]}
    )
    assert any("absolute path" in problem for problem in problems_of(notebook))


def test_another_kernel_fails(stored):
    notebook, problems_of = stored
    notebook["metadata"]["kernelspec"] = {
        "name": "conda-env-x",
        "display_name": "x",
        "language": "python",
    }
    assert any("kernelspec" in problem for problem in problems_of(notebook))
