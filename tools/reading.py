"""How long the lessons take to read: words on each notebook's core path and in its deep dives.

    python -m tools.reading            # a table: notebook, core words, deep-dive words, minutes

A lesson is a core path plus optional deep dives. A deep dive is a section whose heading starts
with ``Deep dive ·`` (``## Deep dive · A second derivation``); it runs to the next heading of the
same or a higher level. Words are the whitespace-separated pieces of the markdown cells that hold a
letter or digit (in Chinese, 1.5 characters make a word); code is counted in non-blank lines. Reading times (the teacher's guide of ``make docs`` shows them) are
``WORDS_PER_MINUTE`` words of prose plus ``CODE_LINES_PER_MINUTE`` lines of code per minute,
rounded up: the time to read and follow, not to do the exercises.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from helpers.paths import numbered_notebooks
from tools.notebook_format import cell_text, first_line, is_deep_dive_heading

HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+\S")
WORDS_PER_MINUTE = 200
CODE_LINES_PER_MINUTE = 10
# The reader-first edit's budget: the core paths of the fourteen notebooks 00-13 together.
CORE_BUDGET_WORDS = 30_000
CORE_BUDGET_NOTEBOOKS = 14


# Chinese has no spaces between words: a reader takes in about 300 characters of technical
# Chinese a minute, as many as 200 English words, so 1.5 characters count as one word.
CJK_CHARACTER = re.compile(r"[\u4e00-\u9fff]")
CJK_CHARACTERS_PER_WORD = 1.5


def count_words(text: str) -> int:
    """Whitespace-separated pieces that hold a letter or digit (not ``##``, ``·`` or ``|``), and
    Chinese characters at CJK_CHARACTERS_PER_WORD characters a word."""
    cjk = len(CJK_CHARACTER.findall(text))
    latin = CJK_CHARACTER.sub(" ", text)
    words = sum(1 for piece in latin.split() if any(ch.isalnum() for ch in piece))
    return words + round(cjk / CJK_CHARACTERS_PER_WORD)


def deep_dive_sections(cells: list[dict]) -> list[tuple[int, int]]:
    """Each deep-dive section as (its first cell, one past its last cell), in order. A section
    starts at a markdown cell whose first line is a deep-dive heading and ends before the next
    heading of the same or a higher level; a deep dive inside another belongs to the outer one."""
    sections, start, level = [], 0, None  # level: the heading level of the deep dive we are in
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        heading = HEADING.match(first_line(cell))
        if not heading:
            continue
        depth = len(heading["hashes"])
        if level is not None and depth <= level:
            sections.append((start, index))
            level = None
        if level is None and is_deep_dive_heading(cell):
            start, level = index, depth
    if level is not None:
        sections.append((start, len(cells)))
    return sections


def deep_dive_flags(cells: list[dict]) -> list[bool]:
    """For each cell, whether it belongs to a deep-dive section."""
    flags = [False] * len(cells)
    for start, end in deep_dive_sections(cells):
        flags[start:end] = [True] * (end - start)
    return flags


def deep_dive_headings(cells: list[dict]) -> list[dict]:
    """The markdown cells whose first line is a deep-dive heading."""
    return [cell for cell in cells if is_deep_dive_heading(cell)]


def reading_minutes(words: int, code_lines: int) -> int:
    """Minutes to read: WORDS_PER_MINUTE words of prose plus CODE_LINES_PER_MINUTE code lines."""
    if words < 0 or code_lines < 0:
        raise ValueError(
            f"words, code_lines: expected counts >= 0, got words={words}, code_lines={code_lines}"
        )
    return math.ceil(words / WORDS_PER_MINUTE + code_lines / CODE_LINES_PER_MINUTE)


@dataclass(frozen=True)
class Reading:
    notebook: str
    core_words: int
    deep_dive_words: int
    core_code_lines: int
    deep_dive_code_lines: int

    def minutes(self, *, everything: bool) -> int:
        """Minutes for the core path, or (everything=True) for the core path and the deep dives."""
        words = self.core_words + (self.deep_dive_words if everything else 0)
        lines = self.core_code_lines + (self.deep_dive_code_lines if everything else 0)
        return reading_minutes(words, lines)


def reading(path: Path) -> Reading:
    """Words and code lines of one notebook, on its core path and in its deep dives."""
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    counts = {(kind, deep): 0 for kind in ("words", "code") for deep in (False, True)}
    for cell, deep in zip(cells, deep_dive_flags(cells), strict=True):
        if cell.get("cell_type") == "markdown":
            counts["words", deep] += count_words(cell_text(cell))
        elif cell.get("cell_type") == "code":
            counts["code", deep] += sum(1 for line in cell_text(cell).splitlines() if line.strip())
    return Reading(
        Path(path).stem,
        counts["words", False],
        counts["words", True],
        counts["code", False],
        counts["code", True],
    )


def core_words_in_budget() -> int:
    """Core-path words of the first CORE_BUDGET_NOTEBOOKS lessons (00-13), the budgeted ones."""
    return sum(reading(path).core_words for path in numbered_notebooks()[:CORE_BUDGET_NOTEBOOKS])


def main() -> int:
    rows = [reading(path) for path in numbered_notebooks()]
    print(
        f"{'notebook':<36} {'core words':>10} {'deep-dive words':>15} {'core min':>8} {'all min':>7}"
    )
    for row in rows:
        print(
            f"{row.notebook:<36} {row.core_words:>10,} {row.deep_dive_words:>15,} "
            f"{row.minutes(everything=False):>8} {row.minutes(everything=True):>7}"
        )
    core = sum(row.core_words for row in rows)
    deep = sum(row.deep_dive_words for row in rows)
    print(f"{'total':<36} {core:>10,} {deep:>15,}")
    last = rows[CORE_BUDGET_NOTEBOOKS - 1].notebook[:2]
    print(
        f"core path of 00-{last}: {core_words_in_budget():,} words (budget {CORE_BUDGET_WORDS:,})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
