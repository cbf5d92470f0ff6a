"""Where the series' files are: the one place that knows the repository's layout.

Works in a checkout (the usual way: ``make lab``, ``make test``). When the package is installed
without one, the files that only a checkout has (the notebooks, the shipped checkpoint) are
missing, and ``require`` says which and how to get them, instead of a bare ``FileNotFoundError``.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
CHECKPOINTS_DIR = ROOT / "checkpoints"
DOCS_DIR = ROOT / "docs"
BUILD_DIR = ROOT / "build"

# A lesson of the series: two digits, an underscore, a lowercase name (``03_scaled_..._attention``).
LESSON_NAME = re.compile(r"^(?P<number>\d\d)_[a-z0-9_]+$")


def is_checkout(root: Path = ROOT) -> bool:
    """True when ``root`` is the series' repository (its notebooks and pyproject are there)."""
    return (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir()


def require(path: Path, what: str) -> Path:
    """``path`` if it exists; otherwise a FileNotFoundError that names ``what`` and the fix."""
    if path.exists():
        return path
    where = (
        "it should be in this checkout: restore it with `git checkout -- .`"
        if is_checkout()
        else "it ships with the repository, not with the installed package: work in a clone "
        "of the repository (see its README)"
    )
    raise FileNotFoundError(f"{what} not found at {path}; {where}")


def numbered_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The lessons, in order: every ``NN_name.ipynb`` in ``notebooks_dir`` (not the glossary).

    Raises ValueError when the folder is missing or holds no lesson.
    """
    if not notebooks_dir.is_dir():
        raise ValueError(
            f"notebooks: expected a folder of NN_name.ipynb notebooks, got {str(notebooks_dir)!r} "
            "(not a folder)"
        )
    paths = sorted(p for p in notebooks_dir.glob("*.ipynb") if LESSON_NAME.match(p.stem))
    if not paths:
        raise ValueError(
            f"notebooks: expected NN_name.ipynb notebooks in {str(notebooks_dir)!r}, found none"
        )
    return paths
