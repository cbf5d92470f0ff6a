"""Re-execute notebooks in place, each top to bottom in a fresh kernel: the one way outputs change.

python -m tools.run_notebooks                 # every notebook
python -m tools.run_notebooks notebooks/03_*.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from helpers.paths import ROOT, numbered_notebooks
from tools.notebook_format import (
    KERNELSPEC,
    canonical_cell_metadata,
    canonical_metadata,
    coalesce_streams,
)

CELL_TIMEOUT_SECONDS = 600


def run_notebook(path: Path) -> bool:
    """Execute one notebook in place; return True when every cell ran without error."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    ok = True
    try:
        client.execute()
    except CellExecutionError as error:
        print(f"{path.name}: a cell failed\n{error}", file=sys.stderr)
        ok = False
    notebook.metadata = canonical_metadata(dict(notebook.metadata))
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        canonical_cell_metadata(cell)
        coalesce_streams(cell)
    nbformat.write(notebook, path)
    return ok


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.run_notebooks",
        description="Execute notebooks in place, in order, with canonical metadata.",
    )
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebook files (default: every numbered notebook)")  # fmt: skip
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.notebooks if not path.is_file()]
    if missing:
        parser.error(f"notebooks: expected notebook files, got {', '.join(missing)} (not found)")
    os.environ["PYTHONHASHSEED"] = "0"  # inherited by the kernels
    paths = [path.resolve() for path in args.notebooks] or numbered_notebooks()
    failed = []
    for path in paths:
        print(f"running {path.relative_to(ROOT)}", flush=True)
        if not run_notebook(path):
            failed.append(path.name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
