"""Checks that a stored notebook is what a fresh top-to-bottom run in a fresh kernel would store.

Strict nbval compares outputs; these checks catch what it cannot: a notebook committed with cleared
outputs (nothing to compare), cells run out of order, stored errors, paths of the author's machine,
or a different kernel.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tools.notebook_format import KERNELSPEC

ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(root|home|Users|tmp|work|var/folders)/[\w.-]+")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _output_text(output: dict) -> str:
    parts = [_text(output.get("text", "")), _text(output.get("traceback", ""))]
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") or mime.endswith("json"):
            parts.append(_text(value) if not isinstance(value, dict) else json.dumps(value))
    return "\n".join(parts)


def notebook_problems(path: Path) -> list[str]:
    """Everything wrong with one stored notebook; empty when it is fresh."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    code_cells = [
        cell
        for cell in notebook.get("cells", [])
        if cell.get("cell_type") == "code" and _text(cell.get("source", "")).strip()
    ]
    if not code_cells:
        problems.append("has no code cells")
    counts = [cell.get("execution_count") for cell in code_cells]
    if counts != list(range(1, len(code_cells) + 1)):
        never_run = sum(count is None for count in counts)
        detail = f"{never_run} code cell(s) never run" if never_run else f"counts {counts[:12]}"
        problems.append(
            "not stored as run top to bottom in a fresh kernel (execution counts should be "
            f"1..{len(code_cells)}; {detail}); run `make notebooks`"
        )
    for index, cell in enumerate(code_cells, start=1):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                problems.append(f"code cell {index} stores an error: {output.get('ename')}")
    stored_text = "\n".join(_text(cell.get("source", "")) for cell in notebook.get("cells", []))
    stored_text += "\n".join(
        _output_text(o) for cell in code_cells for o in cell.get("outputs", [])
    )
    match = ABSOLUTE_PATH.search(stored_text)
    if match:
        problems.append(f"stores an absolute path of the author's machine: {match.group(0)!r}")
    kernelspec = notebook.get("metadata", {}).get("kernelspec")
    if kernelspec != KERNELSPEC:
        problems.append(f"kernelspec should be {KERNELSPEC}, found {kernelspec}")
    return problems
