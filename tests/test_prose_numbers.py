"""Prose never quotes a number from a cell whose output the tests do not compare (issue 24).

A code cell tagged ``nbval-ignore-output`` (timings, a live training run) prints numbers that
change from run to run, so a paragraph that copies one of them drifts from the output without any
test noticing. The rule, for every lesson in both editions: the Markdown cell that directly follows
such a code cell quotes no *measured-looking* number, unless the same number is printed by a cell
whose output the tests do compare (then a test fails when the two drift apart).

Measured-looking, in the Markdown's text outside code spans:
- a number with a decimal point: ``0.56``, ``4.03``;
- a percentage: ``97%``, ``97 %``;
- a number followed by a unit of time, size or speed-up: ``12 ms``, ``25 minutes``, ``3 MB``,
  ``4x``, ``2 倍``.
Integers alone (``8 heads``, ``§5.4``'s section numbers are decimals, see below) are not measured
results. Section numbers (``§5.4``) and version numbers (``3.12.1``, ``v2.0``) are not quoted
results either and are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.paths import NOTEBOOKS_DIR, numbered_notebooks

IGNORE_TAG = "nbval-ignore-output"
UNITS = (
    r"(?:ms|µs|us|ns|s|sec|seconds?|min|minutes?|h|hours?|KiB|MiB|GiB|KB|MB|GB|B|bytes|x|×"
    r"|毫秒|微秒|秒|分钟|小时|倍)"
)
# One number: digits with an optional decimal part (thousands separators allowed).
NUMBER = r"\d[\d,]*(?:\.\d+)?"
MEASURED = re.compile(
    rf"(?<![A-Za-z0-9_.,§])(?P<number>{NUMBER})(?![\d.,]*\d)"
    rf"(?:(?P<percent>\s?%)|(?P<unit>\s?{UNITS})(?![A-Za-z]))?"
)

# Known cases in notebooks this test's author does not own, each with the notebook, the index of
# the Markdown cell and the number it quotes. The lead empties this list as they are fixed; an entry
# that no longer matches a violation fails the test too, so the list cannot go stale.
ALLOWED: set[tuple[str, int, str]] = set()


def _text(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else source


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def measured_numbers(markdown: str) -> list[str]:
    """The measured-looking numbers a paragraph quotes, as written (``'1.79'``, ``'97%'``, ``'12 ms'``).

    Code spans and fenced code are skipped; so are section numbers (``§5.4``) and version numbers
    (``3.12.1``, ``v2.0``).
    """
    prose = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    prose = re.sub(r"`[^`]*`", " ", prose)
    found = []
    for match in MEASURED.finditer(prose):
        number = match.group("number")
        if match.group("percent") or match.group("unit") or "." in number:
            found.append(match.group(0).strip())
    return found


def _numeric(quoted: str) -> str:
    """The number inside a quoted measure, without separators: '12,345 ms' -> '12345'."""
    return re.match(NUMBER, quoted).group(0).replace(",", "")


def compared_numbers(notebook: dict) -> set[str]:
    """Every number printed by a code cell whose output the tests compare (separators dropped)."""
    numbers = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code" or IGNORE_TAG in _tags(cell) or "nbval-skip" in _tags(cell):
            continue
        for output in cell.get("outputs", []):
            text = _text(output.get("text", "")) + _text(
                output.get("data", {}).get("text/plain", "")
            )
            numbers.update(n.replace(",", "") for n in re.findall(NUMBER, text))
    return numbers


def violations(notebook: dict) -> list[tuple[int, str]]:
    """(Markdown cell index, quoted number) for each measured-looking number in a paragraph right
    after a ``nbval-ignore-output`` cell that no compared output prints."""
    cells = notebook["cells"]
    printed = compared_numbers(notebook)
    found = []
    for index in range(1, len(cells)):
        before, cell = cells[index - 1], cells[index]
        if cell["cell_type"] != "markdown" or before["cell_type"] != "code":
            continue
        if IGNORE_TAG not in _tags(before):
            continue
        for quoted in measured_numbers(_text(cell["source"])):
            if _numeric(quoted) not in printed:
                found.append((index, quoted))
    return found


def _lessons() -> list[Path]:
    return numbered_notebooks() + numbered_notebooks(NOTEBOOKS_DIR / "zh")


def _name(path: Path) -> str:
    return str(path.relative_to(NOTEBOOKS_DIR))


@pytest.mark.parametrize("path", _lessons(), ids=_name)
def test_prose_after_an_uncompared_output_quotes_no_measured_number(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = {(_name(path), index, quoted) for index, quoted in violations(notebook)}
    unexpected = sorted(found - ALLOWED)
    assert not unexpected, (
        "prose right after an nbval-ignore-output cell quotes numbers that no compared output "
        f"prints (print them from code, or say it without the number): {unexpected}"
    )
    stale = sorted(entry for entry in ALLOWED if entry[0] == _name(path) and entry not in found)
    assert not stale, f"fixed: remove from ALLOWED in {__file__}: {stale}"


# ---------------------------------------------------------------- the rule itself


def _notebook(*cells: tuple[str, str, list[str], str]) -> dict:
    """A notebook from (cell type, source, tags, printed text) tuples."""
    built = []
    for cell_type, source, tags, printed in cells:
        cell = {"cell_type": cell_type, "source": source, "metadata": {"tags": tags}}
        if cell_type == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": printed}]
        built.append(cell)
    return {"cells": built}


def test_a_timing_quoted_after_an_ignored_cell_is_caught():
    notebook = _notebook(
        ("code", "time_it()", [IGNORE_TAG], "slope 2.71, 56.08 ms\n"),
        ("markdown", "The slope is 2.71 and one pass takes 56 ms, 40% of the step.", [], ""),
    )
    assert violations(notebook) == [(1, "2.71"), (1, "56 ms"), (1, "40%")]


def test_a_number_also_printed_by_a_compared_cell_passes():
    notebook = _notebook(
        ("code", "count()", [], "FLOPs slope 1.79; 1,024 positions; ratio 97%\n"),
        ("code", "time_it()", [IGNORE_TAG], "1.79 and 3.50\n"),
        ("markdown", "As counted, the slope is 1.79 (97%) at 1,024 ms.", [], ""),
        ("markdown", "A later paragraph may say 3.50: it does not follow the cell.", [], ""),
    )
    assert violations(notebook) == []


def test_what_is_not_a_measured_number():
    assert (
        measured_numbers("Paper §5.4, Python 3.12.1, v2.0, `0.56` in code, 8 heads, n = 64") == []
    )
    assert measured_numbers("```\n1.5 s\n```\nIt took 1.5 s, 3x faster, 2 倍, 12,345 ms.") == [
        "1.5 s",
        "3x",
        "2 倍",
        "12,345 ms",
    ]
