"""One call at the top of every notebook so that it prints the same thing on every run.

Hand-written: edit this file itself; no notebook generates it.

    device = setup_notebook()

fixes the random seeds (Python, NumPy, PyTorch), the thread count (float sums depend on how work is
split between threads), how tensors print, and the plotting style (PNG figures at a modest size).
It returns the device the notebook should put tensors on: the CPU unless asked otherwise, because
stored outputs are recorded on a CPU. To scale a notebook up on a GPU, set the environment
variable ``TRANSFORMER_DEVICE=cuda`` before starting JupyterLab (outputs will then differ from
the stored ones, which is expected).
"""

from __future__ import annotations

import platform
import re
from pathlib import Path

import numpy as np
import torch

from helpers.display.shapes import pad
from helpers.language import set_language, tr
from helpers.paths import CHINESE_BOLD_FONT_FILE, CHINESE_FONT_FILE, ROOT, require
from helpers.runtime import pick_device, seed_everything


def setup_notebook(
    seed: int = 0,
    threads: int = 1,
    precision: int = 4,
    device: str | torch.device | None = None,
    language: str = "en",
) -> torch.device:
    """Make a notebook deterministic and return its device.

    seed: for Python, NumPy and PyTorch. threads: PyTorch's intra-op thread count (1 gives the
    same float sums on every machine). precision: digits when tensors print. language: "en", or
    "zh" for the Chinese edition (the helpers' messages in Chinese, and a font for its figures).
    """
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(
            tr("threads: expected a positive int, got {threads!r}").format(threads=threads)
        )
    if not isinstance(precision, int) or precision < 0:
        raise ValueError(
            tr("precision: expected a non-negative int, got {precision!r}").format(
                precision=precision
            )
        )
    set_language(language)
    seed_everything(seed)
    torch.set_num_threads(threads)
    torch.set_printoptions(precision=precision, sci_mode=False, linewidth=100)
    np.set_printoptions(precision=precision, suppress=True, linewidth=100)
    _set_plot_style(language)
    return pick_device(device)


# The Chinese edition's figures are drawn with Noto Sans SC (SIL Open Font License), regular and
# bold, which the repository carries beside this module (fonts/, with its licence): no system font
# is needed, and every machine draws the same glyphs. matplotlib's DejaVu Sans follows for the rest.
CHINESE_FONT = "Noto Sans SC"


def use_chinese_font() -> str:
    """Register the carried Chinese font (regular and bold) with matplotlib, once, and return
    its family name."""
    from matplotlib import font_manager

    known = {font.fname for font in font_manager.fontManager.ttflist}
    for path in (CHINESE_FONT_FILE, CHINESE_BOLD_FONT_FILE):
        if str(path) not in known:
            font = require(path, tr("the Chinese font of the figures"))
            font_manager.fontManager.addfont(str(font))
    return CHINESE_FONT


# seaborn's theme, written out: what ``seaborn.set_theme(style="white", context="notebook")`` sets
# (seaborn 0.13; its "deep" palette as the colour cycle and as the colour codes "b", "g", ...).
# Importing seaborn at every notebook's start costs about a second (it imports pandas) for
# settings that never change; tests/test_display_helpers.py checks these equal seaborn's own.
SEABORN_DEEP = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
                "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"]  # fmt: skip
SEABORN_COLOR_CODES = {"b": "#4C72B0", "g": "#55A868", "r": "#C44E52", "m": "#8172B3",
                       "y": "#CCB974", "c": "#64B5CD", "k": (0.1, 0.1, 0.1)}  # fmt: skip
SEABORN_WHITE_NOTEBOOK = {
    "axes.axisbelow": True, "axes.edgecolor": ".15", "axes.labelcolor": ".15",
    "axes.labelsize": 12.0, "axes.linewidth": 1.25, "axes.titlesize": 12.0,
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans",
                        "sans-serif"],
    "font.size": 12.0, "grid.color": ".8", "grid.linewidth": 1.0, "image.cmap": "rocket",
    "legend.fontsize": 11.0, "legend.title_fontsize": 12.0, "lines.solid_capstyle": "round",
    "patch.edgecolor": "w", "patch.force_edgecolor": True, "text.color": ".15",
    "xtick.bottom": False, "xtick.color": ".15", "xtick.labelsize": 11.0,
    "xtick.major.size": 6.0, "xtick.major.width": 1.25, "xtick.minor.size": 4.0,
    "xtick.minor.width": 1.0, "ytick.color": ".15", "ytick.labelsize": 11.0, "ytick.left": False,
    "ytick.major.size": 6.0, "ytick.major.width": 1.25, "ytick.minor.size": 4.0,
    "ytick.minor.width": 1.0,
}  # fmt: skip
# The project's own settings, over seaborn's.
PLOT_SETTINGS = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.figsize": (6.0, 4.0),
    "image.cmap": "viridis",
    "svg.hashsalt": "transformer-step-by-step",
}


def _set_plot_style(language: str = "en") -> None:
    import matplotlib as mpl

    mpl.rcParams.update(SEABORN_WHITE_NOTEBOOK)
    deep = [mpl.colors.to_rgb(color) for color in SEABORN_DEEP]
    mpl.rcParams["axes.prop_cycle"] = mpl.cycler(color=deep)
    for code, color in SEABORN_COLOR_CODES.items():
        mpl.colors.colorConverter.colors[code] = mpl.colors.to_rgb(color)
    mpl.rcParams.update(PLOT_SETTINGS)
    if language == "zh":
        fonts = [use_chinese_font(), "DejaVu Sans"]
        mpl.rcParams["font.sans-serif"] = fonts + list(mpl.rcParams["font.sans-serif"])
    try:  # Only inside a Jupyter kernel: store figures as PNG (SVG embeds dates and random ids).
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png")
    except ImportError:  # pragma: no cover - matplotlib_inline comes with ipykernel
        pass


def pinned_versions(requirements: Path) -> dict[str, str]:
    """``name -> version`` for every ``name==version`` line of a requirements file."""
    text = requirements.read_text(encoding="utf-8")
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.MULTILINE))


def check_environment(device: torch.device | None = None) -> None:
    """Print the Python and library versions in use, and check every pin of requirements.txt.

    The Python version is reported, not enforced: the pins install on Python 3.11 to 3.13 (see the
    README). A package at another version than its pin raises, naming each one and the fix.
    """
    import importlib.metadata

    print(f"Python      {platform.python_version()}")
    for name in ("torch", "numpy", "matplotlib", "seaborn"):
        print(f"{name:<11} {importlib.metadata.version(name)}")
    if device is not None:
        print(f"{pad(tr('device'), 11)} {device}")
    requirements = require(ROOT / "requirements.txt", "requirements.txt")
    pins = pinned_versions(requirements)
    mismatches = []
    for name, pinned in pins.items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = tr("not installed")
        if installed.split("+")[0] != pinned:  # the CPU wheel of torch reports 2.13.0+cpu
            mismatches.append(
                tr("{name}: pinned {pinned}, installed {installed}").format(
                    name=name, pinned=pinned, installed=installed
                )
            )
    if mismatches:
        raise RuntimeError(
            tr("run `make setup` to install the pinned versions:\n{mismatches}").format(
                mismatches="\n".join(mismatches)
            )
        )
    print(
        tr("all {count} pinned packages are installed at their pinned versions").format(
            count=len(pins)
        )
    )
