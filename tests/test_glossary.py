"""The glossary (notebooks/glossary.ipynb) and the links between notebooks.

Every lesson links to the glossary from its first cell; every link to a notebook, in any notebook,
leads to one that exists; every glossary entry names, in English and Chinese, a term that the
notebooks it links to really use.
"""

import re
from pathlib import Path

import nbformat
import pytest

from helpers.paths import NOTEBOOKS_DIR, numbered_notebooks
from tools.notebook_format import KERNELSPEC

GLOSSARY = NOTEBOOKS_DIR / "glossary.ipynb"
LESSONS = numbered_notebooks()
ALL_NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

# A markdown link or an HTML href to a notebook: [text](04_masks.ipynb#anchor), href="x.ipynb".
NOTEBOOK_LINK = re.compile(r"(?:\]\(|href=[\"'])([^)\"'\s]*\.ipynb)(?:#[^)\"'\s]*)?[)\"']")
TABLE_ROW = re.compile(r"^\|(?!\s*-)(.+)\|\s*$")
CJK = re.compile(r"[\u4e00-\u9fff]")


def markdown(path: Path) -> list[str]:
    notebook = nbformat.read(str(path), as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def glossary_entries() -> list[dict]:
    """One dict per table row of the glossary: english, chinese, definition, links."""
    entries = []
    for source in markdown(GLOSSARY):
        for line in source.splitlines():
            match = TABLE_ROW.match(line.strip())
            if not match:
                continue
            cells = [cell.strip() for cell in match.group(1).split("|")]
            if cells[0] == "English":  # the header row
                continue
            assert len(cells) == 4, f"a glossary row has 4 columns, this one {len(cells)}: {line}"
            english, chinese, definition, where = cells
            links = re.findall(r"\[(\d\d)\]\(([^)]+)\)", where)
            entries.append(
                {
                    "english": english.strip("*"),
                    "chinese": chinese,
                    "definition": definition,
                    "links": links,
                }
            )
    return entries


ENTRIES = glossary_entries()


def test_the_glossary_is_markdown_only_with_the_series_kernel():
    notebook = nbformat.read(str(GLOSSARY), as_version=4)
    assert notebook.cells, "the glossary is empty"
    code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type != "markdown"]
    assert code == [], f"glossary.ipynb must hold markdown cells only; cells {code} are not"
    assert notebook.metadata.get("kernelspec") == KERNELSPEC
    assert notebook.cells[0].source.startswith("# Glossary · 术语表")


def test_the_glossary_has_the_series_terms():
    english = [entry["english"].lower() for entry in ENTRIES]
    assert 50 <= len(ENTRIES) <= 100, f"expected about 50-100 terms, found {len(ENTRIES)}"
    assert len(set(english)) == len(english), "a term appears twice"
    for term in ("padding mask", "look-ahead mask", "label smoothing", "teacher forcing"):
        assert term in english, f"{term!r} is missing from the glossary"
    by_term = {entry["english"].lower(): entry for entry in ENTRIES}
    # The Chinese terms of the source notes and the issue.
    assert by_term["padding mask"]["chinese"].startswith("填充掩码")
    assert by_term["look-ahead mask"]["chinese"].startswith("序列掩码")
    assert by_term["label smoothing"]["chinese"].startswith("标签平滑")


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["english"] for entry in ENTRIES])
def test_each_entry_is_complete(entry):
    assert entry["english"], "no English term"
    assert CJK.search(entry["chinese"]), f"no Chinese term: {entry['chinese']!r}"
    assert len(entry["definition"].split()) >= 6, f"definition too short: {entry['definition']!r}"
    assert entry["links"], "no link to the notebook that teaches it"


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["english"] for entry in ENTRIES])
def test_each_entry_links_to_notebooks_that_use_the_term(entry):
    """The link resolves, its label is the notebook's number, and the notebook uses the term."""
    texts = []
    for number, target in entry["links"]:
        path = NOTEBOOKS_DIR / target
        assert path.is_file(), f"link to {target}, which does not exist"
        assert target.startswith(number + "_"), f"[{number}] links to {target}"
        notebook = nbformat.read(str(path), as_version=4)
        texts.append(" ".join(cell.source for cell in notebook.cells).lower())
    text = " ".join(texts)
    # The term, the term without its inline code and without its parentheses, each piece of
    # inline code and each parenthesis, split at commas: one must occur in the linked notebooks.
    term = entry["english"].lower()
    codes = re.findall(r"`([^`]+)`", term)
    asides = re.findall(r"\(([^)]+)\)", term)
    words = re.sub(r"`[^`]+`", " ", term)
    forms = [term, words, re.sub(r"\s*\([^)]+\)", "", words), *asides]
    candidates = [p.strip() for form in forms for p in form.split(",") if p.strip()] + codes
    assert any(candidate in text for candidate in candidates), (
        f"none of {candidates} occurs in {[target for _, target in entry['links']]}"
    )


@pytest.mark.parametrize("path", LESSONS, ids=[path.name for path in LESSONS])
def test_every_lesson_links_to_the_glossary_from_its_first_cell(path):
    first = markdown(path)[0]
    assert "(glossary.ipynb)" in first, f"{path.name}: the first cell should link to glossary.ipynb"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[path.name for path in ALL_NOTEBOOKS])
def test_every_link_to_a_notebook_resolves(path):
    targets = [target for source in markdown(path) for target in NOTEBOOK_LINK.findall(source)]
    broken = [
        target
        for target in targets
        if "://" in target or not (path.parent / target).resolve().is_file()
    ]
    assert broken == [], f"{path.name} links to notebooks that do not exist: {broken}"


def test_the_link_pattern_finds_links():
    # The pattern the two tests above rely on, on the forms it must catch.
    text = "[a](04_masks.ipynb) [b](./x.ipynb#sec) <a href='glossary.ipynb'>c</a> [d](y.md)"
    assert NOTEBOOK_LINK.findall(text) == ["04_masks.ipynb", "./x.ipynb", "glossary.ipynb"]
