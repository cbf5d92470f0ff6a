"""Where the series' files are: the one place that knows the repository's layout.

Hand-written: edit this file itself; no notebook generates it.

Works in a checkout (the usual way: ``make lab``, ``make test``). When the package is installed
without one, the files that only a checkout has (the notebooks, the shipped checkpoint) are
missing, and ``require`` says which and how to get them, instead of a bare ``FileNotFoundError``.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers.language import tr

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
CHECKPOINTS_DIR = ROOT / "checkpoints"
DOCS_DIR = ROOT / "docs"
BUILD_DIR = ROOT / "build"
# The font of the Chinese edition's figures and website pages (SIL Open Font License), carried
# with the package so that no system font is needed: regular, and bold for bold labels.
CHINESE_FONT_FILE = PACKAGE_DIR / "display" / "fonts" / "NotoSansSC-Regular.otf"
CHINESE_BOLD_FONT_FILE = PACKAGE_DIR / "display" / "fonts" / "NotoSansSC-Bold.ttf"

# A lesson of the series: two digits, an underscore, a lowercase name (``03_scaled_..._attention``).
LESSON_NAME = re.compile(r"^(?P<number>\d\d)_[a-z0-9_]+$")


def is_checkout(root: Path | None = None) -> bool:
    """True when ``root`` (by default the package's parent folder) is the series' repository:
    its notebooks and pyproject.toml are there."""
    root = ROOT if root is None else root
    return (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir()


def require(path: Path, what: str, fix: str | None = None) -> Path:
    """``path`` if it exists; otherwise a FileNotFoundError that names ``what`` and the fix
    (``how_to_restore(fix)``)."""
    path = Path(path)
    if path.exists():
        return path
    raise FileNotFoundError(
        tr("{what} not found at {path}; {fix}").format(
            what=what, path=path, fix=how_to_restore(fix)
        )
    )


def how_to_restore(fix: str | None = None) -> str:
    """How to get back a file of the repository that is missing or damaged.

    In a checkout: ``fix`` (say "rebuild it with `make train`"), by default restoring the file
    with git. Installed without a checkout: that the file ships with the repository, not with the
    package, whatever ``fix`` is (the commands it would name are the repository's).
    """
    if is_checkout():
        return fix or tr("it should be in this checkout: restore it with `git checkout -- .`")
    return tr(
        "it ships with the repository, not with the installed package: work in a clone "
        "of the repository (see its README)"
    )


def is_lesson(path: Path) -> bool:
    """True for a lesson's notebook, ``NN_name.ipynb`` (the glossary is not one)."""
    path = Path(path)
    return path.suffix == ".ipynb" and LESSON_NAME.match(path.stem) is not None


def numbered_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The lessons, in order: every ``NN_name.ipynb`` in ``notebooks_dir`` (not the glossary).

    Raises ValueError when the folder is missing or holds no lesson.
    """
    if not notebooks_dir.is_dir():
        raise ValueError(
            tr(
                "notebooks: expected a folder of NN_name.ipynb notebooks, got {folder!r} "
                "(not a folder)"
            ).format(folder=str(notebooks_dir))
        )
    paths = sorted(p for p in notebooks_dir.glob("*.ipynb") if is_lesson(p))
    if not paths:
        raise ValueError(
            tr("notebooks: expected NN_name.ipynb notebooks in {folder!r}, found none").format(
                folder=str(notebooks_dir)
            )
        )
    return paths
