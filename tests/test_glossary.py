"""The glossary (notebooks/glossary.ipynb) and the links between notebooks.

Every lesson links to the glossary from its first cell; every link to a notebook, in any notebook,
leads to one that exists; every glossary entry names, in English and Chinese, a term that the
notebooks it links to really use, and gives d2l-zh's term in its own column where that differs.
The glossary's last section lists the variant renderings that the Chinese edition does not use;
the Chinese notebooks' prose uses none of them.
"""

import re
from pathlib import Path

import nbformat
import pytest

from helpers.paths import NOTEBOOKS_DIR, numbered_notebooks
from tools.notebook_format import KERNELSPEC

GLOSSARY = NOTEBOOKS_DIR / "glossary.ipynb"
LESSONS = numbered_notebooks()
ALL_NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

# A markdown link or an HTML href to a notebook: [text](04_masks.ipynb#anchor), href="x.ipynb".
NOTEBOOK_LINK = re.compile(r"(?:\]\(|href=[\"'])([^)\"'\s]*\.ipynb)(?:#[^)\"'\s]*)?[)\"']")
TABLE_ROW = re.compile(r"^\|(?!\s*-)(.+)\|\s*$")
CJK = re.compile(r"[\u4e00-\u9fff]")


def markdown(path: Path) -> list[str]:
    notebook = nbformat.read(str(path), as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def glossary_entries() -> list[dict]:
    """One dict per table row of the glossary: english, chinese, alias (d2l-zh's term, or ""),
    definition, links."""
    entries = []
    for source in markdown(GLOSSARY):
        for line in source.splitlines():
            match = TABLE_ROW.match(line.strip())
            if not match:
                continue
            cells = [cell.strip() for cell in match.group(1).split("|")]
            if cells[0] == "English":  # the header row
                continue
            assert len(cells) == 5, f"a glossary row has 5 columns, this one {len(cells)}: {line}"
            english, chinese, alias, definition, where = cells
            links = re.findall(r"\[(\d\d)\]\(([^)]+)\)", where)
            entries.append(
                {
                    "english": english.strip("*"),
                    "chinese": chinese,
                    "alias": alias,
                    "definition": definition,
                    "links": links,
                }
            )
    return entries


ENTRIES = glossary_entries()


def test_the_glossary_is_markdown_only_with_the_series_kernel():
    notebook = nbformat.read(str(GLOSSARY), as_version=4)
    assert notebook.cells, "the glossary is empty"
    code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type != "markdown"]
    assert code == [], f"glossary.ipynb must hold markdown cells only; cells {code} are not"
    assert notebook.metadata.get("kernelspec") == KERNELSPEC
    assert notebook.cells[0].source.startswith("# Glossary · 术语表")


def test_the_glossary_has_the_series_terms():
    english = [entry["english"].lower() for entry in ENTRIES]
    # A term a reader meets, not an index of every word: 00-15 needed about 100, and each later
    # notebook adds the few terms it introduces (16: sampling and decoder-only models; 17: the
    # modern block).
    assert 50 <= len(ENTRIES) <= 120, f"expected about 50-120 terms, found {len(ENTRIES)}"
    assert len(set(english)) == len(english), "a term appears twice"
    for term in ("padding mask", "look-ahead mask", "label smoothing", "teacher forcing"):
        assert term in english, f"{term!r} is missing from the glossary"
    by_term = {entry["english"].lower(): entry for entry in ENTRIES}
    # The Chinese terms of the source notes and the issue.
    assert by_term["padding mask"]["chinese"].startswith("填充掩码")
    assert by_term["look-ahead mask"]["chinese"].startswith("序列掩码")
    assert by_term["label smoothing"]["chinese"].startswith("标签平滑")


# d2l-zh's terms (《动手学深度学习》, chapters 10-11 on attention and the Transformer) that differ
# from the series' ones: a student who knows either finds the row.
D2L_ZH = {
    "layer normalisation": "层规范化",
    "dropout": "暂退法",
    "teacher forcing": "强制教学",
    "position-wise feed-forward network": "基于位置的前馈网络",
    "mask": "掩蔽",
    "batch, batch size": "小批量",
    "greedy decoding": "贪心搜索",
}


def test_the_glossary_gives_d2l_zh_terms_in_their_own_column():
    by_term = {entry["english"]: entry for entry in ENTRIES}
    for term, alias in D2L_ZH.items():
        assert alias in by_term[term]["alias"], f"{term}: d2l-zh's {alias} is not in its row"
    for entry in ENTRIES:
        assert "d2l" not in entry["chinese"], f"{entry['english']}: d2l-zh's term has its column"
        if entry["alias"]:
            assert CJK.search(entry["alias"]), f"{entry['english']}: {entry['alias']!r}"
            assert entry["alias"] not in entry["chinese"], (
                f"{entry['english']}: the d2l-zh column is for a term that differs from the series'"
            )


def test_the_glossary_has_the_entries_a_chinese_student_looks_for():
    by_term = {entry["english"]: entry for entry in ENTRIES}
    for term, chinese in [
        ("batch, batch size", "批次"),
        ("base model", "基础模型"),
        ("positional encoding", "位置编码"),
        ("positional embedding (learned positions)", "位置嵌入"),
        ("word vector (token vector)", "词向量"),
        ("alignment", "对齐"),
        ("hypothesis", "假设"),
        ("nat", "nat"),
    ]:
        assert term in by_term, f"{term!r} is missing from the glossary"
        assert by_term[term]["chinese"].startswith(chinese), by_term[term]["chinese"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["english"] for entry in ENTRIES])
def test_each_entry_is_complete(entry):
    assert entry["english"], "no English term"
    assert CJK.search(entry["chinese"]), f"no Chinese term: {entry['chinese']!r}"
    assert len(entry["definition"].split()) >= 6, f"definition too short: {entry['definition']!r}"
    assert entry["links"], "no link to the notebook that teaches it"


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["english"] for entry in ENTRIES])
def test_each_entry_links_to_notebooks_that_use_the_term(entry):
    """The link resolves, its label is the notebook's number, and the notebook uses the term."""
    texts = []
    for number, target in entry["links"]:
        path = NOTEBOOKS_DIR / target
        assert path.is_file(), f"link to {target}, which does not exist"
        assert target.startswith(number + "_"), f"[{number}] links to {target}"
        notebook = nbformat.read(str(path), as_version=4)
        texts.append(" ".join(cell.source for cell in notebook.cells).lower())
    text = " ".join(texts)
    # The term, the term without its inline code and without its parentheses, each piece of
    # inline code and each parenthesis, split at commas: one must occur in the linked notebooks.
    term = entry["english"].lower()
    codes = re.findall(r"`([^`]+)`", term)
    asides = re.findall(r"\(([^)]+)\)", term)
    words = re.sub(r"`[^`]+`", " ", term)
    forms = [term, words, re.sub(r"\s*\([^)]+\)", "", words), *asides]
    candidates = [p.strip() for form in forms for p in form.split(",") if p.strip()] + codes
    assert any(candidate in text for candidate in candidates), (
        f"none of {candidates} occurs in {[target for _, target in entry['links']]}"
    )


@pytest.mark.parametrize("path", LESSONS, ids=[path.name for path in LESSONS])
def test_every_lesson_links_to_the_glossary_from_its_first_cell(path):
    first = markdown(path)[0]
    assert "(glossary.ipynb)" in first, f"{path.name}: the first cell should link to glossary.ipynb"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[path.name for path in ALL_NOTEBOOKS])
def test_every_link_to_a_notebook_resolves(path):
    targets = [target for source in markdown(path) for target in NOTEBOOK_LINK.findall(source)]
    broken = [
        target
        for target in targets
        if "://" in target or not (path.parent / target).resolve().is_file()
    ]
    assert broken == [], f"{path.name} links to notebooks that do not exist: {broken}"


def test_the_link_pattern_finds_links():
    # The pattern the two tests above rely on, on the forms it must catch.
    text = "[a](04_masks.ipynb) [b](./x.ipynb#sec) <a href='glossary.ipynb'>c</a> [d](y.md)"
    assert NOTEBOOK_LINK.findall(text) == ["04_masks.ipynb", "./x.ipynb", "glossary.ipynb"]


# ------------------------------------------------------------------ one rendering per term
# The glossary's last section lists, for a term with one Chinese rendering, the variants that the
# Chinese edition does not use: "- **base model**: `基础模型`, not `base 模型`".
ONE_RENDERING = "## One rendering per term"
VARIANT_LINE = re.compile(
    r"^- \*\*(?P<english>[^*]+)\*\*: `(?P<rendering>[^`]+)`, not (?P<rest>.+)$"
)
# What in a Markdown cell is not prose: formulas and code spans.
NOT_PROSE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|`[^`\n]*`", re.DOTALL)


def variant_renderings() -> list[tuple[str, str, str]]:
    """(variant, rendering, English term) for every variant of the glossary's last section."""
    found = []
    for source in markdown(GLOSSARY):
        if source.startswith(ONE_RENDERING):
            for line in source.splitlines():
                if match := VARIANT_LINE.match(line):
                    found += [(variant, match["rendering"], match["english"])
                              for variant in re.findall(r"`([^`]+)`", match["rest"])]  # fmt: skip
    return found


def variant_pattern(variant: str) -> re.Pattern:
    """The variant, case ignored, where a Latin letter at its edge does not continue a longer word
    (`nats` is not in `natsort`, `base 模型` is not in `database 模型`)."""
    latin = re.compile(r"[A-Za-z]")
    start = r"(?<![A-Za-z])" if latin.match(variant[0]) else ""
    end = r"(?![A-Za-z])" if latin.match(variant[-1]) else ""
    return re.compile(start + re.escape(variant) + end, re.IGNORECASE)


VARIANTS = variant_renderings()


def test_the_glossary_lists_the_variants_of_a_term_with_one_rendering():
    listed = {(variant, rendering) for variant, rendering, _ in VARIANTS}
    assert {
        ("base 模型", "基础模型"),
        ("nats", "nat"),
        ("奈特", "nat"),
        ("可学习的位置编码", "可学习的位置嵌入"),
    } <= listed
    chinese = " ".join(entry["chinese"] for entry in ENTRIES)
    for variant, rendering, english in VARIANTS:
        assert rendering in chinese, f"{english}: {rendering} is no glossary term's Chinese"
        assert not variant_pattern(variant).search(rendering), f"{rendering} contains {variant}"
        assert not any(variant_pattern(variant).search(entry["chinese"]) for entry in ENTRIES)


def test_the_variant_pattern_finds_whole_words():
    assert variant_pattern("nats").search("损失（nats）")
    assert not variant_pattern("nats").search("0.17 nat，natsort")
    assert variant_pattern("base 模型").search("改变 Base 模型的")
    assert not variant_pattern("base 模型").search("database 模型")
    assert variant_pattern("奈特").search("单位：奈特")


def variant_uses(path: Path, skip: int | None = None) -> list[str]:
    """'zh/NN cell i: variant (use rendering)' for each listed variant in a notebook's prose."""
    notebook = nbformat.read(str(path), as_version=4)
    uses = []
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown" or i == skip:
            continue
        prose = NOT_PROSE.sub(" ", cell.source)
        for variant, rendering, _ in VARIANTS:
            for _ in variant_pattern(variant).finditer(prose):
                uses.append(f"zh/{path.stem} cell {i}: {variant} (use {rendering})")
    return uses


def test_the_chinese_glossary_uses_one_rendering_per_term():
    """The Chinese glossary, its last section aside (which names the variants)."""
    english = nbformat.read(str(GLOSSARY), as_version=4)
    section = next(i for i, c in enumerate(english.cells) if c.source.startswith(ONE_RENDERING))
    assert variant_uses(NOTEBOOKS_DIR / "zh" / "glossary.ipynb", skip=section) == []


def test_the_chinese_edition_uses_one_rendering_per_term():
    uses = [use for path in LESSONS for use in variant_uses(NOTEBOOKS_DIR / "zh" / path.name)]
    assert uses == [], "variants the glossary's last section rules out:\n" + "\n".join(uses)
