"""The Chinese edition's figures need no system font: the repository carries Noto Sans SC.

A bare machine (Python and pip only) has no font with Chinese characters; matplotlib would then
draw boxes and warn "Glyph ... missing". These tests run matplotlib in a child process from which
every font but matplotlib's own has been removed, as on such a machine, and check that
``setup_notebook(language="zh")`` makes it draw Chinese text with the carried font, without a
warning, and that the same drawing without it does warn (so the check can fail).
"""

import hashlib
import json
import subprocess
import sys
import textwrap

from helpers.display.setup import CHINESE_FONT
from helpers.paths import CHINESE_BOLD_FONT_FILE, CHINESE_FONT_FILE, ROOT

DRAW_ON_A_BARE_MACHINE = textwrap.dedent(
    """
    import json, sys, warnings
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    # A bare machine: no system font at all, only those matplotlib ships (DejaVu, STIX...).
    own = matplotlib.get_data_path()
    manager = font_manager.fontManager
    manager.ttflist = [font for font in manager.ttflist if font.fname.startswith(own)]
    manager._findfont_cached.cache_clear()

    from helpers import plot_heatmap, setup_notebook
    setup_notebook(language=sys.argv[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure, axes = plt.subplots(1, 2)
        axes[0].plot([-1, 0, 1], [0, 1, 0], label="训练损失")
        axes[0].set_title("注意力权重 −1", fontweight="bold")
        axes[0].set_xlabel("位置")
        axes[0].legend()
        import numpy as np
        plot_heatmap(np.array([[0.5, 0.5], [1.0, 0.0]]), ["我", "想要"], ["啤酒", "。"],
                     title="交叉注意力", ax=axes[1])
        figure.savefig(sys.argv[2], dpi=50)
    texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_text().strip()]
    chinese = [t for t in texts if any("\\u4e00" <= c <= "\\u9fff" for c in t.get_text())]
    print(json.dumps({
        "warnings": [str(w.message) for w in caught],
        "fonts": sorted({font_manager.findfont(t.get_fontproperties()) for t in chinese}),
        "bold": sorted({font_manager.findfont(t.get_fontproperties()) for t in chinese
                        if t.get_fontweight() == "bold"}),
        "chinese_texts": len(chinese),
    }))
    """
)


def draw(language: str, tmp_path) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", DRAW_ON_A_BARE_MACHINE, language, str(tmp_path / "figure.png")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"MPLCONFIGDIR": str(tmp_path / "mpl"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "stderr": result.stderr}


def test_chinese_figures_use_the_carried_font_without_a_missing_glyph(tmp_path):
    drawn = draw("zh", tmp_path)
    assert drawn["chinese_texts"] >= 6  # title, axis label, legend, heatmap title and ticks
    assert drawn["fonts"] == sorted([str(CHINESE_FONT_FILE), str(CHINESE_BOLD_FONT_FILE)])
    assert drawn["bold"] == [str(CHINESE_BOLD_FONT_FILE)]  # a bold title gets the bold face
    assert not [w for w in drawn["warnings"] if "Glyph" in w], drawn["warnings"]
    assert "findfont" not in drawn["stderr"], drawn["stderr"]  # no weight or family fell back
    assert (tmp_path / "figure.png").stat().st_size > 0


def test_without_the_carried_font_the_same_figure_misses_its_glyphs(tmp_path):
    # The English edition does not register the font: on a bare machine the Chinese is lost.
    drawn = draw("en", tmp_path)
    assert str(CHINESE_FONT_FILE) not in drawn["fonts"]
    assert [w for w in drawn["warnings"] if "Glyph" in w and "missing" in w]


def test_the_font_is_noto_sans_sc_under_its_licence_and_small_enough():
    from matplotlib import font_manager

    licence = (CHINESE_FONT_FILE.parent / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL Open Font License" in licence
    for path, weight in ((CHINESE_FONT_FILE, 400), (CHINESE_BOLD_FONT_FILE, 700)):
        font = font_manager.ttfFontProperty(font_manager.get_font(path))
        assert (font.name, font.weight) == (CHINESE_FONT, weight)
        assert hashlib.sha256(path.read_bytes()).hexdigest() in licence
    size = CHINESE_FONT_FILE.stat().st_size + CHINESE_BOLD_FONT_FILE.stat().st_size
    assert size < 20 * 2**20
