"""Test-session wiring that must hold wherever pytest is started from.

- strict nbval gets the project's sanitize file by absolute path;
- kernels started by nbval inherit a fixed hash seed (set ordering, dict-of-set printing);
- unit tests draw figures without a display;
- the Chinese notebooks (notebooks/zh/) are skipped, with the command that fixes it, on a machine
  without a font that has Chinese characters: their figures would print "Glyph missing" warnings;
- notebook 15 (both editions) is skipped, with the command that installs it, on a machine without
  the German-English dictionary it reads (Debian's trans-de-en; `.ci/run` installs it).
"""

import os
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SANITIZE_FILE = ROOT / "nbval_sanitize.cfg"

# Kernels are child processes: whatever is in os.environ now is what they see.
os.environ["PYTHONHASHSEED"] = "0"
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")


def pytest_configure(config):
    if getattr(config.option, "nbval_sanitize_with", None) is None and hasattr(
        config.option, "nbval_sanitize_with"
    ):
        config.option.nbval_sanitize_with = str(SANITIZE_FILE)


CHINESE_EDITION = ROOT / "notebooks" / "zh"
CJK_FONT_MISSING = (
    "no font with Chinese characters is installed, which the Chinese notebooks' figures need: "
    "install one (Debian, Ubuntu: `sudo apt-get install fonts-noto-cjk`), delete matplotlib's font "
    "cache (`rm -r ~/.cache/matplotlib`) so that it finds the font, and run the tests again"
)


@cache
def has_cjk_font() -> bool:
    from matplotlib import font_manager

    from helpers.display.setup import CJK_FONTS

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return any(name in installed for name in CJK_FONTS if name != "DejaVu Sans")


REAL_GERMAN_NOTEBOOK = "15_real_german.ipynb"


def pytest_collection_modifyitems(config, items):
    chinese = [item for item in items if CHINESE_EDITION in Path(str(item.path)).parents]
    if chinese and not has_cjk_font():
        for item in chinese:
            item.add_marker(pytest.mark.skip(reason=CJK_FONT_MISSING))
    from helpers.data.dictionary import DICTIONARY, INSTALL

    if not DICTIONARY.is_file():
        reason = f"notebook 15 reads the German-English dictionary, not installed: `{INSTALL}`"
        for item in items:
            if Path(str(item.path)).name == REAL_GERMAN_NOTEBOOK:
                item.add_marker(pytest.mark.skip(reason=reason))
