"""The Chinese edition (notebooks/zh/) says what the English says, and is what the tools write.

- every English notebook has its PO file and its Chinese notebook;
- every PO file is up to date with its English notebook (what `tools.translation update` writes),
  with no entry untranslated or fuzzy, and every translation keeps the English's code, formulas,
  code spans, link targets and numbers (tools/translation/checks.py);
- every Chinese notebook's cells are what `tools.translation generate` writes from them (outputs
  aside: strict nbval runs the Chinese notebooks like the English ones), exported cells included,
  unchanged;
- a glossary term's Chinese is used where the notebooks use its English, with the English in
  parentheses at its first use in each notebook.
"""

import functools
import re

import nbformat
import pytest

from helpers.paths import ROOT
from tools.freshness import notebook_problems
from tools.translation.__main__ import (
    EDITION_DIR,
    catalogue_path,
    check,
    edition_path,
    same_sources,
    source_notebooks,
)
from tools.translation.catalogue import read_catalogue, same_entries, updated
from tools.translation.generate import translated_notebook
from tools.translation.stamp import STAMP_KEY, stamp_problems
from tools.translation.units import is_exported, units

ENGLISH = source_notebooks()
IDS = [path.stem for path in ENGLISH]


def read(path):
    return nbformat.read(str(path), as_version=4)


def test_every_english_notebook_has_a_chinese_edition_and_nothing_else_is_there():
    assert len(ENGLISH) >= 16
    chinese = sorted(p.name for p in EDITION_DIR.glob("*.ipynb"))
    assert chinese == [p.name for p in ENGLISH]
    catalogues = sorted(p.name for p in (EDITION_DIR / "locale").glob("*.po"))
    assert catalogues == [f"{p.stem}.po" for p in ENGLISH]


@pytest.mark.parametrize("english", ENGLISH, ids=IDS)
def test_the_catalogue_is_up_to_date_complete_and_faithful(english):
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    fresh = updated(catalogue, units(read(english)), english.stem)
    assert same_entries(catalogue, fresh), (
        f"{catalogue_path(english).name} is not up to date with {english.name}: "
        "run `python -m tools.translation update`"
    )
    assert check(english) == []


@pytest.mark.parametrize("english", ENGLISH, ids=IDS)
def test_the_chinese_notebook_is_what_generation_writes(english):
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    expected = nbformat.from_dict(translated_notebook(read(english), catalogue))
    stored = read(edition_path(english))
    assert same_sources(stored, expected), (
        f"notebooks/zh/{english.name} is not what `python -m tools.translation generate` writes"
    )
    exported = [
        c.source for c in read(english).cells if c.cell_type == "code" and is_exported(c.source)
    ]
    assert exported == [
        c.source for c in stored.cells if c.cell_type == "code" and is_exported(c.source)
    ]


@pytest.mark.parametrize("english", [p for p in ENGLISH if p.stem != "glossary"],
                         ids=[s for s in IDS if s != "glossary"])  # fmt: skip
def test_the_chinese_notebook_is_stored_fresh(english):
    assert notebook_problems(edition_path(english)) == []


# ------------------------------------------------------------------ the glossary's terms
TABLE_ROW = re.compile(r"^\|(?!\s*-)(.+)\|\s*$")
SIMPLE_ENGLISH = re.compile(r"^[A-Za-z][A-Za-z -]*[A-Za-z]$")
CJK_TERM = re.compile(r"^[\u4e00-\u9fff]+$")


def glossary_terms() -> list[tuple[str, str, list[str], list[str]]]:
    """(English, Chinese, notebook stems, English names) for every glossary row whose terms are
    plain words.

    The Chinese is the 中文 column up to its first bracket: 填充掩码（Padding Mask） gives 填充掩码.
    The English names a first use may give: the English column, and the English in the 中文
    column's brackets (the source notes' own: Padding Mask, Sequence Mask). Rows naming several
    terms at once (query, key, value) or code (`d_model`) are left out.
    """
    stems = {p.stem[:2]: p.stem for p in ENGLISH}
    terms = []
    for cell in read(EDITION_DIR.parent / "glossary.ipynb").cells:
        for line in cell.source.splitlines():
            match = TABLE_ROW.match(line.strip())
            if not match:
                continue
            cells = [c.strip() for c in match.group(1).split("|")]
            if len(cells) != 5 or cells[0] == "English":
                continue
            english = cells[0].strip("*")
            chinese = re.split(r"[（(]", cells[1])[0].strip()
            if SIMPLE_ENGLISH.match(english) and CJK_TERM.match(chinese):
                links = [stems[n] for n in re.findall(r"\[(\d\d)\]", cells[4]) if n in stems]
                names = [english, *re.findall(r"[A-Za-z][A-Za-z -]*[A-Za-z]", cells[1])]
                terms.append((english, chinese, links, names))
    return terms


TERMS = glossary_terms()


def markdown_units(path) -> list[str]:
    return [c.source for c in read(path).cells if c.cell_type == "markdown"]


def test_the_glossary_gives_terms_to_check():
    assert len(TERMS) >= 30


@pytest.mark.parametrize(("english", "chinese", "stems", "names"), TERMS, ids=[t[0] for t in TERMS])
def test_a_glossary_term_is_used_in_chinese_with_its_english_at_first_use(
    english, chinese, stems, names
):
    for stem in stems:
        path = EDITION_DIR.parent / f"{stem}.ipynb"
        uses_english = re.compile(rf"\b{re.escape(english)}", re.IGNORECASE)
        if not any(uses_english.search(text) for text in markdown_units(path)):
            continue  # the English notebook does not use the word in its prose
        cells = markdown_units(EDITION_DIR / f"{stem}.ipynb")
        first = next((text for text in cells if chinese in text), None)
        assert first is not None, f"zh/{stem}: {english!r} is used in English, {chinese} never"
        assert any(re.search(rf"\b{re.escape(name)}", first, re.IGNORECASE) for name in names), (
            f"zh/{stem}: the first use of {chinese} does not give the English ({english})"
        )


def test_the_chinese_readme_lists_every_notebook_and_links_both_ways():
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    english = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| (\d\d) \| `(\d\d_[a-z0-9_]+)` \|", chinese, re.MULTILINE)
    lessons = [p.stem for p in ENGLISH if p.stem != "glossary"]
    assert [stem for _, stem in listed] == lessons
    assert "(README.zh-CN.md)" in english.split("\n\n")[1]  # right under the title
    assert "(README.md)" in chinese.split("\n\n")[1]
    for command in ("make lab", "make test", 'make student ARGS="--language zh"', "make docs"):
        assert command in chinese, command


# The sections of the English README a reader of the notebooks uses, and their Chinese counterparts.
READER_SECTIONS = {
    "Two commands": "两条命令",
    "The notebooks": "笔记本",
    "Explore with live controls": "交互式探索",
    "Use it as a library": "作为库使用",
    "Classroom edition": "课堂版",
    "Read it as a web page": "以网页形式阅读",
    "CPU and GPU": "CPU 与 GPU",
    "Training at scale": "规模化训练",
}


def readme_sections(name: str) -> set[str]:
    text = (ROOT / name).read_text(encoding="utf-8")
    return set(re.findall(r"^## (.+)$", text, re.MULTILINE))


def test_the_chinese_readme_has_every_section_a_reader_uses():
    assert set(READER_SECTIONS) <= readme_sections("README.md")
    assert set(READER_SECTIONS.values()) <= readme_sections("README.zh-CN.md")


@pytest.mark.parametrize("english", ENGLISH, ids=IDS)
def test_a_chinese_notebook_sends_its_reader_to_the_chinese_readme(english):
    """A Chinese notebook that names the README names README.zh-CN and one of its sections."""
    chinese_sections = readme_sections("README.zh-CN.md")
    for cell in read(edition_path(english)).cells:
        if cell.cell_type != "markdown":
            continue
        for match in re.finditer(
            r"README(\.zh-CN|\.md)?(?:\.md)?[^“\n]{0,4}(?:“([^”]+)”)?", cell.source
        ):
            assert match.group(1) == ".zh-CN", (
                f"{english.stem}: {match.group(0)!r} is the English README"
            )
            if match.group(2):
                assert match.group(2) in chinese_sections, (
                    f"{english.stem}: no section {match.group(2)!r}"
                )


# ---------------------------------------------------------------- outputs made from today's translations


def _stamped_overview():
    english = ROOT / "notebooks" / "00_overview.ipynb"
    return english, read(edition_path(english))


def test_a_changed_translation_of_a_helper_message_the_run_used_is_caught(monkeypatch):
    from tools.translation import stamp as stamp_module

    english, chinese = _stamped_overview()
    used = chinese.metadata[STAMP_KEY]["helper_messages"]
    assert used, "the overview's run records the labels its diagrams asked tr() for"
    real = stamp_module.catalogue.__wrapped__("zh")
    unused = next(m for m in real if m not in used)
    for message, caught in ((unused, False), (used[0], True)):
        changed = {**real, message: real.get(message, "") + "（改）"}
        monkeypatch.setattr(stamp_module, "catalogue", functools.cache(lambda _, c=changed: c))
        found = stamp_problems(english, catalogue_path(english), chinese)
        assert any("helper message" in p for p in found) == caught, (message, found)


def test_a_changed_translation_of_a_code_cell_is_caught(tmp_path):
    from babel.messages.pofile import read_po, write_po

    english, chinese = _stamped_overview()
    with catalogue_path(english).open("rb") as file:
        messages = read_po(file)
    code = {u.text for u in units(read(english)) if u.kind == "code"}
    target = next(m for m in messages if m.id in code and m.string)
    target.string += " "
    changed = tmp_path / "00_overview.po"
    with changed.open("wb") as file:
        write_po(file, messages)
    assert not any(
        "code cell" in p for p in stamp_problems(english, catalogue_path(english), chinese)
    )
    assert any("code cell" in p for p in stamp_problems(english, changed, chinese))


def test_an_unstamped_notebook_is_sent_back_to_be_run():
    english, chinese = _stamped_overview()
    chinese.metadata.pop(STAMP_KEY)
    assert stamp_problems(english, catalogue_path(english), chinese) == [
        "not stamped with what its outputs were made from: run "
        "`make notebooks NB=notebooks/00_overview.ipynb`"
    ]


def test_the_chinese_readme_names_the_notes_the_series_grew_from_by_their_titles():
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    for title in (
        "《Transformer代码详细解读》",
        "《手撕 Transformer 与一些细节》",
        "《transformer详解》",
    ):
        assert title in chinese, title
    assert "源代码" not in chinese, "the walkthrough's code is 示例代码 throughout the edition"


LESSONS = [path for path in ENGLISH if path.stem != "glossary"]  # the glossary has no code


@pytest.mark.parametrize("english", LESSONS, ids=[path.stem for path in LESSONS])
def test_the_chinese_notebook_was_run_after_the_translations_its_outputs_use(english):
    """Its figures too: nbval compares text, so a label translated anew would leave a stale PNG."""
    found = stamp_problems(english, catalogue_path(english), read(edition_path(english)))
    assert not found, "\n".join(found)
