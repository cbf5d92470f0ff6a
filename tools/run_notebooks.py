"""Re-execute notebooks in place, each top to bottom in a fresh kernel: the one way outputs change.

python -m tools.run_notebooks                 # every notebook
python -m tools.run_notebooks notebooks/03_*.ipynb
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from helpers.language import RECORD_ENV_VAR
from helpers.paths import NOTEBOOKS_DIR, ROOT, numbered_notebooks
from tools.notebook_format import (
    KERNELSPEC,
    canonical_cell_metadata,
    canonical_metadata,
    coalesce_streams,
)
from tools.translation import LANGUAGE
from tools.translation.stamp import STAMP_KEY, stamp

CELL_TIMEOUT_SECONDS = 600


def run_notebook(path: Path) -> bool:
    """Execute one notebook in place; return True when every cell ran without error.

    A Chinese notebook (notebooks/zh/) is stamped with what its outputs were made from
    (tools.translation.stamp): its kernel records the helper messages it translates.
    """
    path = Path(path).resolve()
    if path.parent == (NOTEBOOKS_DIR / LANGUAGE).resolve():
        with tempfile.TemporaryDirectory() as folder:
            record = Path(folder) / "messages.jsonl"
            record.touch()
            os.environ[RECORD_ENV_VAR] = str(record)  # inherited by the kernel
            try:
                ok = _execute(path)
            finally:
                del os.environ[RECORD_ENV_VAR]
            english = NOTEBOOKS_DIR / path.name
            messages = [
                json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()
            ]
        notebook = nbformat.read(path, as_version=4)
        notebook.metadata[STAMP_KEY] = stamp(
            english, NOTEBOOKS_DIR / LANGUAGE / "locale" / f"{path.stem}.po", messages
        )
        nbformat.write(notebook, path)
        return ok
    return _execute(path)


def _execute(path: Path) -> bool:
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
