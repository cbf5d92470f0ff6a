"""The reader's path: deep dives are marked, collapsed when a notebook opens, and counted apart."""

import json

import pytest

from helpers.paths import numbered_notebooks
from tools.notebook_format import canonical_cell_metadata, is_solution
from tools.reading import (
    CORE_BUDGET_WORDS,
    core_words_in_budget,
    deep_dive_flags,
    deep_dive_headings,
    reading,
)

LESSONS = numbered_notebooks()


def md(text: str) -> dict:
    return {"cell_type": "markdown", "source": text, "metadata": {}}


def code(text: str = "x = 1") -> dict:
    return {"cell_type": "code", "source": text, "metadata": {}, "outputs": []}


def test_a_deep_dive_runs_to_the_next_heading_of_its_level_or_higher():
    cells = [
        md("## 1 · Core"),
        code(),
        md("## Deep dive · Extra"),
        code(),
        md("### A sub-heading inside the deep dive"),
        md("more words"),
        md("## 2 · Back on the core path"),
        code(),
        md("### Deep dive · A small one"),
        md("# Summary"),
    ]
    assert deep_dive_flags(cells) == [
        False, False, True, True, True, True, False, False, True, False
    ]  # fmt: skip


def test_reading_counts_markdown_words_on_and_off_the_core_path(tmp_path):
    cells = [md("one two three"), code(), md("## Deep dive · four"), md("five six"), code()]
    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    result = reading(path)
    assert (result.core_words, result.deep_dive_words) == (3, 5)
    assert (result.core_code_lines, result.deep_dive_code_lines) == (1, 1)


def test_the_core_path_of_notebooks_00_to_13_keeps_to_its_word_budget():
    # The reader-first edit's promise: a student's path through the fourteen lessons 00-13
    # (deep dives aside) is at most 30,000 words of prose.
    assert LESSONS[13].name.startswith("13_")
    words = core_words_in_budget()
    assert 0 < words <= CORE_BUDGET_WORDS, f"{words:,} core words in 00-13"


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_deep_dive_heading_is_collapsed_when_the_notebook_opens(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in deep_dive_headings(cells):
        first_line = "".join(cell["source"]).split("\n", 1)[0]
        assert cell["metadata"].get("jp-MarkdownHeadingCollapsed") is True, (
            f"{path.name}: {first_line!r} should carry jp-MarkdownHeadingCollapsed: true"
        )


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_exercise_solution_is_hidden_when_the_notebook_opens(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    solutions = [cell for cell in cells if is_solution(cell)]
    for cell in solutions:
        assert cell["metadata"].get("jupyter", {}).get("source_hidden") is True, (
            f"{path.name}: the solution {''.join(cell['source']).split(chr(10))[0]!r} is shown; "
            "run `make notebooks` (it hides solutions)"
        )


def test_running_a_notebook_hides_solutions_and_folds_deep_dives():
    cells = [
        {"cell_type": "code", "source": "def f(): ...", "metadata": {"tags": ["solution"]}},
        {"cell_type": "markdown", "source": "## Deep dive · More\ntext", "metadata": {}},
        {"cell_type": "markdown", "source": "## 2 · Core", "metadata": {}},
        {"cell_type": "code", "source": "x = 1", "metadata": {}},
    ]
    for cell in cells:
        canonical_cell_metadata(cell)
    assert cells[0]["metadata"]["jupyter"] == {"source_hidden": True}
    assert cells[1]["metadata"] == {"jp-MarkdownHeadingCollapsed": True}
    assert cells[2]["metadata"] == {} and cells[3]["metadata"] == {}
