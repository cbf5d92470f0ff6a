"""What the site reads from the notebooks: titles, introductions, paper sections, exercises, the
roadmap of notebook 00, and reading times (through tools.reading)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from tools.reading import Reading, reading

ISO_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
TITLE_LINE = re.compile(r"^#\s+(\d\d)\s*·\s*(.+?)\s*$")
PAPER_SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*(?:\s*[–-]\s*\d+(?:\.\d+)*)?)")
ROADMAP_ROW = re.compile(r"^\|\s*(\d\d)\s*\|\s*`(\d\d_[a-z0-9_]+)`\s*\|\s*(.+?)\s*\|\s*$", re.M)
EXERCISES_HEADING = re.compile(r"^##\s+(?:Exercises|练习)\b", re.M)
SECTION_HEADING = re.compile(r"^#{1,2}\s+\S")
# "**1 · Title.**", "**1. Title.**", "**Exercise 1 · Title.**" or "1. **Title.**" at a line start.
EXERCISE_TITLE = re.compile(
    r"^\s*(?:\*\*(?:Exercise\s+)?(?P<n1>\d+)\s*(?:·|\.)\s*(?P<t1>.+?)\*\*"
    r"|(?P<n2>\d+)\.\s+\*\*(?P<t2>.+?)\*\*)"
)


@dataclass(frozen=True)
class Exercise:
    """One exercise: its number and title as written, and whether a solution cell follows it."""

    number: int
    title: str
    has_solution: bool


@dataclass(frozen=True)
class NotebookInfo:
    """What the site shows about one numbered notebook, all read from the notebook itself."""

    path: Path
    number: str
    title: str
    intro: str  # markdown: the first paragraph after the title
    paper_sections: list[str]
    words: int  # markdown words on the core path (deep dives excluded)
    code_lines: int  # non-blank lines of code cells on the core path
    reading: Reading  # the same, and the deep dives' counts
    exercises: list[Exercise]

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def page(self) -> str:
        return f"{self.stem}.html"

    @property
    def read_minutes(self) -> int:
        """Minutes to read the core path."""
        return self.reading.minutes(everything=False)

    @property
    def read_minutes_all(self) -> int:
        """Minutes to read everything, deep dives included."""
        return self.reading.minutes(everything=True)


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at path, as nbformat 4."""
    return nbformat.read(str(path), as_version=4)


def title_and_intro(path: Path, notebook) -> tuple[str, str, str]:
    """(number, title, first paragraph) from the first cell, "# NN · Title" then prose."""
    cells = notebook.get("cells", [])
    first = _source(cells[0]) if cells and cells[0].get("cell_type") == "markdown" else ""
    lines = first.strip().splitlines()
    match = TITLE_LINE.match(lines[0]) if lines else None
    if match is None:
        shown = lines[0] if lines else "no markdown cell"
        raise ValueError(
            f"{path.name}: expected the first cell to start with a title '# NN · Title', "
            f"got {shown!r}"
        )
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n", "\n".join(lines[1:]))]
    intro = next((part for part in paragraphs if part), "")
    return match.group(1), match.group(2), intro


def paper_sections(text: str) -> list[str]:
    """The paper's sections named in text ("§3.2.1"), in order of first mention."""
    seen: dict[str, None] = {}
    for number in PAPER_SECTION.findall(text):
        seen.setdefault(f"§{number}", None)
    return list(seen)


def find_exercises(notebook) -> list[Exercise]:
    """The exercises after the "## Exercises" heading, up to the next heading of level 1 or 2.

    An exercise starts a line with its number and bold title ("**1 · Title.**", "**1. Title.**",
    "**Exercise 1 · Title.**" or "1. **Title.**"); it has a solution when a code cell tagged
    ``solution`` comes after it, before the next exercise or the end of the section.
    """
    found: list[tuple[int, str, int]] = []  # (number, title, cell index)
    solution_cells: list[int] = []
    in_section, end = False, len(notebook.get("cells", []))
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") == "code":
            if in_section and "solution" in cell.get("metadata", {}).get("tags", []):
                solution_cells.append(index)
            continue
        if cell.get("cell_type") != "markdown":
            continue
        lines = _source(cell).splitlines()
        if not in_section:
            heading = next(
                (i for i, line in enumerate(lines) if EXERCISES_HEADING.match(line)), None
            )
            if heading is None:
                continue
            in_section, lines = True, lines[heading + 1 :]
        for line in lines:
            if SECTION_HEADING.match(line):
                end = index
                break
            match = EXERCISE_TITLE.match(line)
            if match:
                number = int(match.group("n1") or match.group("n2"))
                title = (match.group("t1") or match.group("t2")).strip().rstrip(".:。：").strip()
                found.append((number, title, index))
        if end != len(notebook.get("cells", [])):
            break
    exercises = []
    for position, (number, title, index) in enumerate(found):
        following = found[position + 1][2] if position + 1 < len(found) else end
        has_solution = any(index < cell < following for cell in solution_cells)
        exercises.append(Exercise(number, title, has_solution))
    return exercises


def notebook_info(path: Path) -> NotebookInfo:
    """Everything the index and the teacher's page say about one numbered notebook."""
    notebook = read_notebook(path)
    number, title, intro = title_and_intro(path, notebook)
    if not path.stem.startswith(number):
        raise ValueError(f"{path.name}: the title's number {number} is not the file's number")
    first_cell = _source(notebook.cells[0])
    counts = reading(path)
    return NotebookInfo(
        path=path,
        number=number,
        title=title,
        intro=intro,
        paper_sections=paper_sections(first_cell),
        words=counts.core_words,
        code_lines=counts.core_code_lines,
        reading=counts,
        exercises=find_exercises(notebook),
    )


def roadmap_summaries(overview) -> dict[str, str]:
    """notebook stem -> its one-line summary (markdown) in the roadmap table of notebook 00."""
    summaries: dict[str, str] = {}
    for cell in overview.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for _, stem, summary in ROADMAP_ROW.findall(_source(cell)):
                summaries.setdefault(stem, summary)
    return summaries


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph (up to the first '. ' before a capital or the first '。',
    or all of it)."""
    match = re.search(r"[.!?](?=\s+[A-Z*`(])|[。！？]", text)
    return text[: match.end()] if match else text
