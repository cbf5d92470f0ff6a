"""tools.docs: the offline site of `make docs`.

The site is built once for this module, from the real notebooks, into a temporary folder; the tests
then read it as a browser would have to: every page there, links that lead somewhere, nothing
fetched from the network, math left for the local MathJax, every figure present.
"""

import json
import os
import re
import subprocess
import time
from pathlib import Path

import lxml.etree
import lxml.html
import nbformat
import pytest
from bs4 import BeautifulSoup
from lxml.html import HtmlElement
from nbconvert import HTMLExporter

from helpers.paths import CHINESE_FONT_FILE, ROOT
from tools import docs
from tools.docs.site import default_jobs
from tools.notebook_format import DEEP_DIVE_TITLE, is_deep_dive_heading
from tools.reading import CODE_LINES_PER_MINUTE, WORDS_PER_MINUTE, reading_minutes

NOTEBOOK_PATHS = docs.numbered_notebooks(docs.NOTEBOOKS)
STEMS = [path.stem for path in NOTEBOOK_PATHS]
REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)  # http://, https://, //host
CSS_REMOTE = re.compile(r"""(?:@import\s*(?:url\()?|url\()\s*["']?\s*(?:https?:)?//""", re.I)

# Run times for the site under test: every notebook but the last measured, so that the teacher's
# page must show both a measured time and "not measured"; the second one's time is older (it
# failed in the run of "date" and kept an earlier time), so the page must show its date.
RUN_TIMES = {
    "command": "python -m tools.benchmark --notebooks",
    "machine": "a test machine with 2 cores",
    "date": "2026-01-02",
    "seconds": {stem: 3.0 + index for index, stem in enumerate(STEMS[:-1])},
    "older_times": {STEMS[1]: "2025-12-30"},
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site: (folder, report, seconds the build took)."""
    folder = tmp_path_factory.mktemp("docs") / "site"
    run_times = folder.parent / "run_times.json"
    run_times.write_text(json.dumps(RUN_TIMES), encoding="utf-8")
    start = time.perf_counter()
    report = docs.build_site(folder, run_times_path=run_times)
    seconds = time.perf_counter() - start
    print(f"\nsite built in {seconds:.1f} s ({report.bytes / 2**20:.1f} MB)")
    return folder, report, seconds


_PAGES: dict[Path, HtmlElement] = {}


def page_tree(path: Path) -> HtmlElement:
    """The parsed page, parsed once (the pages are large); do not modify it."""
    if path not in _PAGES:
        _PAGES[path] = lxml.html.fromstring(path.read_text(encoding="utf-8"))
    return _PAGES[path]


def first(node: HtmlElement, css: str) -> HtmlElement | None:
    """The first element under node (or node itself) that the CSS selector picks, or None."""
    found = node.cssselect(css)
    return found[0] if found else None


def text_of(node: HtmlElement, separator: str = "", strip: bool = False) -> str:
    """The text under node, its pieces joined by separator; with strip, each piece stripped and
    the empty ones left out."""
    pieces = (piece.strip() if strip else piece for piece in node.itertext())
    return separator.join(piece for piece in pieces if piece or not strip)


def notebook(path: Path):
    return nbformat.read(str(path), as_version=4)


def source_notebook(page: Path) -> Path:
    """The notebook a page of the site was made from."""
    edition = docs.NOTEBOOKS / "zh" if page.parent.name == "zh" else docs.NOTEBOOKS
    return (edition / page.name).with_suffix(".ipynb")


def all_pages(folder: Path) -> list[Path]:
    """Every page: the English ones at the top, the Chinese ones in zh/."""
    return sorted(folder.glob("*.html")) + sorted(folder.glob("zh/*.html"))


def page_names(folder: Path) -> set[str]:
    return {page.relative_to(folder).as_posix() for page in all_pages(folder)}


# ---------------------------------------------------------------- pages and navigation


def test_every_notebook_has_a_page_in_both_languages(site):
    folder, report, _ = site
    english = {f"{stem}.html" for stem in STEMS} | {"index.html", "teacher.html", "glossary.html"}
    expected = english | {f"zh/{name}" for name in english}
    assert page_names(folder) == expected
    assert set(report.pages) == expected
    assert report.warnings == [], report.warnings
    assert (folder / "lab.css").stat().st_size > 100_000, "nbconvert's lab CSS is missing"
    assert (folder / "site.css").read_text(encoding="utf-8") == docs.SITE_CSS.read_text(
        encoding="utf-8"
    )
    # The Chinese font the pages serve (site.css's @font-face), as the repository carries it.
    font = folder / "fonts" / CHINESE_FONT_FILE.name
    assert font.read_bytes() == CHINESE_FONT_FILE.read_bytes()
    assert (folder / "fonts" / "OFL.txt").is_file(), "the font travels with its licence"
    assert 'url("fonts/NotoSansSC-Regular.otf")' in (folder / "site.css").read_text(
        encoding="utf-8"
    )
    # 8 MB of it are the font.
    assert report.bytes < 28 * 2**20, f"the site is {report.bytes / 2**20:.1f} MB"


def nav_links(page: Path) -> tuple[str | None, str | None]:
    nav = first(page_tree(page), "nav.site-nav-top")
    previous, following = first(nav, "a.site-prev"), first(nav, "a.site-next")
    return (
        previous.get("href") if previous is not None else None,
        following.get("href") if following is not None else None,
    )


def test_previous_and_next_links_chain_the_notebooks_in_order(site):
    folder, _, _ = site
    pages = [f"{stem}.html" for stem in STEMS]
    for index, name in enumerate(pages):
        previous, following = nav_links(folder / name)
        assert previous == (pages[index - 1] if index > 0 else None), name
        assert following == (pages[index + 1] if index + 1 < len(pages) else None), name
        bottom = first(page_tree(folder / name), "nav.site-nav-bottom")
        assert bottom is not None and first(bottom, 'a[href="index.html"]') is not None, name
    for name in ("index.html", "teacher.html", "glossary.html"):
        assert nav_links(folder / name) == (None, None)


def test_every_page_links_home_and_names_the_commit(site):
    folder, report, _ = site
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert report.commit.startswith(head)
    for page in all_pages(folder):
        tree = page_tree(page)
        for target in ("index.html", "teacher.html", "glossary.html"):
            link = first(tree, f'nav a[href="{target}"]')
            assert link is not None, f"{page.name}: no link to {target}"
        commit = first(tree, "footer .site-commit")
        assert commit is not None and text_of(commit) == report.commit, page.name


def test_build_commit(tmp_path):
    assert docs.build_commit(tmp_path) == "unknown"  # not a git repository

    def git(*args) -> str:
        return subprocess.run(
            ["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    assert docs.build_commit(tmp_path) == "unknown"  # no commit yet
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "a")
    head = git("rev-parse", "--short", "HEAD")
    assert docs.build_commit(tmp_path) == head
    (tmp_path / "a.txt").write_text("b", encoding="utf-8")
    assert docs.build_commit(tmp_path) == f"{head} + uncommitted changes"


# ---------------------------------------------------------------- offline


def test_nothing_is_fetched_from_the_network(site):
    """No remote URL in src=, <link href>, inline scripts, <style>, style= or the CSS files.

    Text links (<a href>) to papers are fine: they are followed only when clicked.
    """
    folder, _, _ = site
    problems = []
    for page in all_pages(folder):
        tree = page_tree(page)
        for tag in tree.iter(lxml.etree.Element):  # elements, not comments
            for attribute in ("src", "srcset", "data", "poster"):
                if REMOTE.match(tag.get(attribute, "")):
                    problems.append(f"{page.name}: <{tag.tag} {attribute}={tag.get(attribute)!r}>")
            if tag.tag == "link" and REMOTE.match(tag.get("href", "")):
                problems.append(f"{page.name}: <link href={tag.get('href')!r}>")
            if CSS_REMOTE.search(tag.get("style", "")):
                problems.append(f"{page.name}: style={tag.get('style')!r}")
        for script in tree.iter("script"):
            if re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text_of(script), re.I):
                problems.append(f"{page.name}: an inline script names a remote URL")
        for style in tree.iter("style"):
            if CSS_REMOTE.search(text_of(style)):
                problems.append(f"{page.name}: a <style> imports a remote URL")
    for css in folder.glob("*.css"):
        if CSS_REMOTE.search(css.read_text(encoding="utf-8")):
            problems.append(f"{css.name} imports a remote URL")
    assert problems == []


def test_the_remote_url_checks_can_fail():
    assert REMOTE.match("https://cdnjs.cloudflare.com/x.js") and REMOTE.match("//cdn.example/x")
    assert not REMOTE.match("mathjax/MathJax.js?config=x") and not REMOTE.match("data:image/png")
    assert CSS_REMOTE.search("@import url('https://fonts.example/a.css');")
    assert CSS_REMOTE.search('src: url("//fonts.example/a.woff")')
    assert not CSS_REMOTE.search("url(data:image/svg+xml;base64,xyz)")


def test_mathjax_is_served_from_the_site(site):
    folder, _, _ = site
    for page in all_pages(folder):
        scripts = [script.get("src") for script in page_tree(page).cssselect("script[src]")]
        mathjax = [src for src in scripts if "MathJax.js" in src]
        assert len(mathjax) == 1, f"{page.name}: MathJax scripts {mathjax}"
        assert not REMOTE.match(mathjax[0])
        path, _, query = mathjax[0].partition("?")
        assert (page.parent / path).is_file(), f"{page.name}: {path} is not in the site"
        for config in re.search(r"config=([^&]+)", query).group(1).split(","):
            assert (folder / "mathjax" / "config" / f"{config}.js").is_file(), config
        assert scripts == mathjax, f"{page.name}: other scripts {scripts}"
    mathjax_dir = folder / "mathjax"
    for needed in (
        "jax/output/HTML-CSS/autoload/mtable.js",
        "jax/output/HTML-CSS/fonts/STIX-Web/fontdata.js",
        "fonts/HTML-CSS/STIX-Web/woff/STIXMathJax_Main-Regular.woff",
        "jax/element/mml/optable/BasicLatin.js",
        "extensions/MathMenu.js",
    ):
        assert (mathjax_dir / needed).is_file(), needed
    size = sum(path.stat().st_size for path in mathjax_dir.rglob("*") if path.is_file())
    assert size < 4 * 2**20, f"MathJax takes {size / 2**20:.1f} MB"


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def math_of(markdown: str) -> set[str]:
    """The formulas of a markdown text as MathJax will find them: $$...$$ and $...$, outside code."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    display = re.findall(r"\$\$(.+?)\$\$", text, flags=re.S)
    text = re.sub(r"\$\$(.+?)\$\$", " ", text, flags=re.S)
    inline = re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", text, flags=re.S)
    return {f"$${squeeze(f)}$$" for f in display} | {f"${squeeze(f)}$" for f in inline}


def notebook_math(stem: str) -> set[str]:
    return {
        formula
        for cell in notebook(docs.NOTEBOOKS / f"{stem}.ipynb").cells
        if cell.cell_type == "markdown"
        for formula in math_of(cell.source)
    }


def test_the_math_pattern_finds_formulas():
    text = "a $x_1$ b `$no$` $$y\n = 1$$ c \\$5 and $z <\n 1$"
    assert math_of(text) == {"$x_1$", "$$y = 1$$", "$z < 1$"}
    assert "$\\sqrt{d_k}$" in notebook_math("03_scaled_dot_product_attention")


@pytest.mark.parametrize("stem", STEMS)
def test_pages_keep_the_math_for_mathjax(site, stem):
    """Every $...$ of the notebook's markdown is in the page's text, as written, for MathJax."""
    folder, _, _ = site
    page_text = squeeze(
        " ".join(
            text_of(div) for div in page_tree(folder / f"{stem}.html").cssselect(".jp-MarkdownCell")
        )
    )
    page_text = re.sub(r"\$\$ ?(.*?) ?\$\$", r"$$\1$$", page_text)  # as math_of strips them
    formulas = notebook_math(stem)
    assert formulas, f"{stem} has no math: is the pattern still right?"
    missing = [formula for formula in formulas if formula not in page_text]
    assert missing == []


@pytest.mark.parametrize("stem", STEMS)
def test_every_stored_figure_is_on_its_page(site, stem):
    folder, _, _ = site
    figures = sum(
        1
        for cell in notebook(docs.NOTEBOOKS / f"{stem}.ipynb").cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    )
    images = page_tree(folder / f"{stem}.html").cssselect('img[src^="data:image/png;base64,"]')
    assert len(images) == figures


def test_links_to_notebooks_point_to_pages(site):
    folder, _, _ = site
    for page in all_pages(folder):
        hrefs = [a.get("href") for a in page_tree(page).cssselect("a[href]")]
        assert not [h for h in hrefs if ".ipynb" in h and not REMOTE.match(h)], page.name
        for href in hrefs:
            target = href.split("#")[0]
            if target.endswith(".html") and not REMOTE.match(href):
                assert (page.parent / target).is_file(), f"{page.name} links to missing {href}"
    first_cell = first(page_tree(folder / f"{STEMS[1]}.html"), ".jp-MarkdownCell")
    glossary_link = first(first_cell, 'a[href="glossary.html"]')
    assert glossary_link is not None, "the glossary link was not rewritten"
    glossary_links = {
        a.get("href") for a in page_tree(folder / "glossary.html").cssselect("a[href]")
    }
    assert {f"{stem}.html" for stem in STEMS[1:]} <= glossary_links


def test_every_page_switches_to_the_same_page_in_the_other_language(site):
    folder, _, _ = site
    for page in all_pages(folder):
        name = page.relative_to(folder).as_posix()
        chinese = name.startswith("zh/")
        switch = first(page_tree(page), "nav.site-nav-top a.site-switch")
        assert switch is not None, f"{name}: no language switch"
        assert text_of(switch, strip=True) == ("English" if chinese else "中文"), name
        target = (page.parent / switch.get("href")).resolve()
        expected = folder / (name.removeprefix("zh/") if chinese else f"zh/{name}")
        assert target == expected.resolve(), f"{name}: the switch leads to {switch.get('href')}"


def test_the_chinese_pages_speak_chinese(site):
    folder, _, _ = site
    index = page_tree(folder / "zh" / "index.html")
    assert index.tag == "html" and index.get("lang") == "zh-CN"
    nav = [text_of(a, strip=True) for a in index.cssselect("nav.site-nav-top .site-nav-pages a")]
    assert nav == ["路线图", "教师指南", "术语表 · Glossary", "English"]
    assert text_of(first(index, "h2#roadmap"), strip=True) == "路线图"
    rows = index.cssselect("table.site-roadmap tbody tr")
    assert len(rows) == len(STEMS)
    teacher = page_tree(folder / "zh" / "teacher.html")
    assert "分钟" in text_of(first(teacher, "table.site-plan tfoot"))
    footer = text_of(
        first(page_tree(folder / "zh" / f"{STEMS[3]}.html"), "footer"), " ", strip=True
    )
    assert f"notebooks/zh/{STEMS[3]}.ipynb" in footer and "构建自提交" in footer
    for page in (folder / "zh").glob("*.html"):  # the shared files are one folder up
        hrefs = [link.get("href") for link in page_tree(page).cssselect("link[href]")]
        assert "../site.css" in hrefs, page.name


def test_rewrite_notebook_links():
    html = '<a href="04_masks.ipynb#x">a</a><a href="./glossary.ipynb">b</a><a href="99_x.ipynb">'
    pages = {"04_masks": "04_masks.html", "glossary": "glossary.html"}
    rewritten, unknown = docs.rewrite_notebook_links(html, pages)
    assert 'href="04_masks.html#x"' in rewritten and 'href="glossary.html"' in rewritten
    assert unknown == ["99_x.ipynb"] and 'href="99_x.ipynb"' in rewritten


# ---------------------------------------------------------------- index and teacher's page


def test_the_index_has_the_roadmap(site):
    folder, _, _ = site
    tree = page_tree(folder / "index.html")
    rows = tree.cssselect("table.site-roadmap tbody tr")
    assert [first(row, "a").get("href") for row in rows] == [f"{stem}.html" for stem in STEMS]
    for row, path in zip(rows, NOTEBOOK_PATHS, strict=True):
        number, title, summary = (text_of(cell, " ", strip=True) for cell in row.cssselect("td"))
        assert number == path.stem[:2]
        assert title == docs.notebook_info(path).title.replace("`", "")
        assert len(summary.split()) >= 5, f"{path.name}: summary {summary!r}"
    assert tree.cssselect('a[href="teacher.html"]') and tree.cssselect('a[href="glossary.html"]')


def test_the_teacher_page_lists_every_notebook(site):
    folder, _, _ = site
    tree = page_tree(folder / "teacher.html")
    assert tree.cssselect("#in-class"), "the 'in class' section is missing"
    text = squeeze(text_of(tree, " "))
    assert f"{WORDS_PER_MINUTE} words of prose per minute" in text
    assert f"{CODE_LINES_PER_MINUTE} lines of code per minute" in text
    assert RUN_TIMES["command"] in text and RUN_TIMES["date"] in text
    for path in NOTEBOOK_PATHS:
        info = docs.notebook_info(path)
        section = first(tree, f"section#nb-{info.number}")
        assert section is not None, f"{path.name} is not on the teacher's page"
        assert section.cssselect(f'a[href="{path.stem}.html"]')
        read = text_of(first(section, "dd.site-read"), " ", strip=True)
        assert read.startswith(f"≈ {docs.format_minutes(info.read_minutes)} ("), read
        assert f"{info.words:,} words" in read and f"{info.code_lines:,} lines of code" in read
        run = text_of(first(section, "dd.site-run"), strip=True)
        if path.stem in RUN_TIMES["older_times"]:
            seconds = docs.format_seconds(RUN_TIMES["seconds"][path.stem])
            assert run == f"{seconds} (measured on {RUN_TIMES['older_times'][path.stem]})"
        elif path.stem in RUN_TIMES["seconds"]:
            assert run == docs.format_seconds(RUN_TIMES["seconds"][path.stem])
        else:
            assert run == "not measured"
        titles = [text_of(t, " ", strip=True) for t in section.cssselect(".site-exercise-title")]
        assert len(titles) == len(info.exercises) >= 2, f"{path.name}: exercises {titles}"
        assert text_of(first(section, ".site-teaches"), strip=True)
    # The last notebook has no time in the run-times file of this test.
    assert "not measured" in text_of(first(tree, f"section#nb-{STEMS[-1][:2]}"))
    assert (
        "A time followed by a date is older: that notebook failed in the run of 2026-01-02" in text
    )


def test_reading_time_rule():
    assert reading_minutes(0, 0) == 0
    assert reading_minutes(WORDS_PER_MINUTE, 0) == 1
    assert reading_minutes(WORDS_PER_MINUTE + 1, 0) == 2  # rounded up
    assert reading_minutes(2000, 100) == 10 + 10
    with pytest.raises(ValueError, match="^words, code_lines:"):
        reading_minutes(-1, 0)


def test_format_minutes():
    assert docs.format_minutes(0) == "0 min"
    assert docs.format_minutes(59) == "59 min"
    assert docs.format_minutes(110) == "1 h 50 min"
    assert docs.format_minutes(1099) == "18 h 19 min"


def test_format_seconds():
    assert docs.format_seconds(0.2) == "1 s"
    assert docs.format_seconds(12.4) == "12 s"
    assert docs.format_seconds(95) == "1 min 35 s"


def markdown_cell(text):
    return nbformat.v4.new_markdown_cell(text)


def solution_cell():
    cell = nbformat.v4.new_code_cell("def f():\n    return 1")
    cell.metadata["tags"] = ["solution"]
    return cell


def test_find_exercises_reads_every_way_they_are_written():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        markdown_cell("## Summary\n\n**1 · Not an exercise.** before the heading"),
        markdown_cell("## Exercises\n\nEach has a check.\n\n**1 · The `view` trick.** Write it."),
        solution_cell(),
        nbformat.v4.new_code_cell("check(f)"),
        markdown_cell("**Exercise 2 · Shift right.** Write it."),
        solution_cell(),
        markdown_cell("**3. Multi-query attention:** no solution cell follows"),
        markdown_cell("1. **A list item.** in a list\n2. **Another one.** too"),
        markdown_cell("## Where it lives\n\n**9 · After the section.** not an exercise"),
        solution_cell(),
    ]
    found = docs.find_exercises(notebook)
    assert [(e.number, e.title, e.has_solution) for e in found] == [
        (1, "The `view` trick", True),
        (2, "Shift right", True),
        (3, "Multi-query attention", False),
        (1, "A list item", False),
        (2, "Another one", False),
    ]
    notebook.cells = [markdown_cell("## Summary\n\nno exercises")]
    assert docs.find_exercises(notebook) == []


def test_title_intro_and_paper_sections():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [markdown_cell("# 04 · Masks\n\nFirst paragraph\non two lines.\n\nSecond.")]
    assert docs.title_and_intro(Path("04_masks.ipynb"), notebook) == (
        "04",
        "Masks",
        "First paragraph\non two lines.",
    )
    notebook.cells = [markdown_cell("## No title")]
    with pytest.raises(ValueError, match="04_masks.ipynb: expected the first cell"):
        docs.title_and_intro(Path("04_masks.ipynb"), notebook)
    assert docs.paper_sections("§3.2.1 and §3.1, §1–3 and again §3.1") == [
        "§3.2.1",
        "§3.1",
        "§1–3",
    ]


# ---------------------------------------------------------------- run times


def test_load_run_times(tmp_path):
    path = tmp_path / "times.json"
    assert docs.load_run_times(path) is None  # missing: the page says "not measured"
    path.write_text(json.dumps(RUN_TIMES), encoding="utf-8")
    loaded = docs.load_run_times(path)
    assert loaded.command == RUN_TIMES["command"] and loaded.seconds == RUN_TIMES["seconds"]
    assert loaded.older_times == RUN_TIMES["older_times"]
    assert docs.run_text(loaded, STEMS[0]) == "3 s"
    assert docs.run_text(loaded, STEMS[1]) == "4 s (measured on 2025-12-30)"
    assert docs.run_text(loaded, STEMS[-1]) == docs.run_text(None, STEMS[0]) == "not measured"
    without_older = {key: value for key, value in RUN_TIMES.items() if key != "older_times"}
    path.write_text(json.dumps(without_older), encoding="utf-8")
    assert docs.load_run_times(path).older_times == {}  # the key is optional
    for bad, message in [
        ("{not json", "not JSON"),
        ("[1, 2]", "got list"),
        (json.dumps({"command": "x"}), "missing ['machine', 'date', 'seconds']"),
        (
            json.dumps(RUN_TIMES | {"seconds": {"00": "fast"}}),
            "'seconds': expected {notebook name: seconds >= 0}, got {'00': 'fast'}",
        ),
        (
            json.dumps(RUN_TIMES | {"seconds": {"00": -1}}),
            "'seconds': expected {notebook name: seconds >= 0}, got {'00': -1}",
        ),
        (
            json.dumps(RUN_TIMES | {"older_times": {"99_nowhere": "2026-01-01"}}),
            "'older_times': expected {notebook name in 'seconds': 'YYYY-MM-DD'}, "
            "got {'99_nowhere': '2026-01-01'}",
        ),
        (
            json.dumps(RUN_TIMES | {"older_times": {STEMS[0]: "last week"}}),
            "'older_times': expected {notebook name in 'seconds': 'YYYY-MM-DD'}",
        ),
    ]:
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(ValueError) as error:
            docs.load_run_times(path)
        assert str(error.value).startswith(f"{path}: "), str(error.value)
        assert message in str(error.value)


def test_a_bad_run_times_file_is_named_relative_to_the_project(tmp_path, monkeypatch):
    monkeypatch.setattr(docs.run_times, "ROOT", tmp_path)
    path = tmp_path / "docs" / "notebook_run_times.json"
    path.parent.mkdir()
    path.write_text(json.dumps(RUN_TIMES | {"seconds": {"00": "fast"}}), encoding="utf-8")
    with pytest.raises(ValueError) as error:
        docs.load_run_times(path)
    assert str(error.value) == (
        "docs/notebook_run_times.json: 'seconds': expected {notebook name: seconds >= 0}, "
        "got {'00': 'fast'}"
    )


def test_the_committed_run_times_are_valid():
    run_times = docs.load_run_times(docs.RUN_TIMES)
    assert run_times is not None, f"{docs.RUN_TIMES} is missing: run `make bench ARGS=--notebooks`"
    assert run_times.seconds, "no notebook measured"
    assert set(run_times.seconds) <= set(STEMS), "times for notebooks that do not exist"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", run_times.date)


# ---------------------------------------------------------------- bad input


def test_output_must_be_a_folder_the_builder_owns(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="^output: expected a folder .* got a file"):
        docs.build_site(a_file)
    someone_elses = tmp_path / "mine"
    someone_elses.mkdir()
    (someone_elses / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ValueError, match="^output: .* is not empty and holds no site"):
        docs.build_site(someone_elses)
    assert (someone_elses / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_a_missing_output_folder_is_created_and_an_old_site_emptied(tmp_path):
    output = tmp_path / "a" / "b" / "site"
    docs.prepare_output(output)
    assert (output / docs.MARKER).is_file()
    (output / "stale.html").write_text("old", encoding="utf-8")
    (output / "mathjax").mkdir()
    docs.prepare_output(output)
    assert sorted(p.name for p in output.iterdir()) == [docs.MARKER]


def test_bad_notebooks_folder_and_jobs(tmp_path):
    with pytest.raises(ValueError, match="^notebooks: expected a folder"):
        docs.build_site(tmp_path / "site", notebooks_dir=tmp_path / "missing")
    with pytest.raises(ValueError, match="^notebooks: expected NN_name.ipynb notebooks"):
        docs.build_site(tmp_path / "site", notebooks_dir=tmp_path)
    with pytest.raises(ValueError, match="^jobs: expected a positive int, got 0"):
        docs.build_site(tmp_path / "site", jobs=0)
    assert not (tmp_path / "site").exists(), "nothing is written before the input is checked"


def test_a_missing_mathjax_package_is_reported_before_the_old_site_is_emptied(
    tmp_path, monkeypatch
):
    output = tmp_path / "site"
    docs.prepare_output(output)
    (output / "index.html").write_text("the previous site", encoding="utf-8")

    def not_installed():
        raise RuntimeError("jupyter_server_mathjax is not installed")

    monkeypatch.setattr(docs.site, "mathjax_source", not_installed)
    with pytest.raises(RuntimeError, match="jupyter_server_mathjax is not installed"):
        docs.build_site(output)
    assert (output / "index.html").read_text(encoding="utf-8") == "the previous site"


def test_the_jobs_help_says_what_the_default_is(capsys):
    with pytest.raises(SystemExit) as exit_info:
        docs.main(["--help"])
    assert exit_info.value.code == 0
    help_text = re.sub(r"\s+", " ", capsys.readouterr().out)
    assert "(default: the CPU count, at most 4)" in help_text


@pytest.mark.parametrize("cpus, jobs", [(None, 1), (1, 1), (2, 2), (4, 4), (16, 4)])
def test_the_default_jobs_are_the_cpu_count_at_most_4(monkeypatch, cpus, jobs):
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert default_jobs() == jobs


def test_the_command_line_reports_bad_arguments(tmp_path, capsys):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        docs.main(["--output", str(a_file)])
    assert exit_info.value.code == 2
    assert "output: expected a folder to write the site into, got a file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        docs.main(["--jobs", "two"])
    assert "--jobs: invalid int value: 'two'" in capsys.readouterr().err


def test_deep_dives_are_marked_for_folding():
    cells = [
        nbformat.v4.new_markdown_cell("## 1 · Core\n\na"),
        nbformat.v4.new_markdown_cell("## Deep dive · The `mask`, once more\n\nb"),
        nbformat.v4.new_markdown_cell("### Inside"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("```\n## 2 · only code\n```"),  # first line: no heading
        nbformat.v4.new_markdown_cell("## 2 · Back on the core path"),
        nbformat.v4.new_markdown_cell("### Deep dive · Last"),
        nbformat.v4.new_code_cell("y = 2"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    assert docs.mark_deep_dives(notebook) == 2
    marks = [
        (cell.metadata.get("site_deep_dive"), cell.metadata.get("site_deep_dive_end"))
        for cell in notebook.cells
    ]
    assert marks == [
        (None, None),
        ("Deep dive · The mask, once more", None),  # the heading's text, as the page shows it
        (None, None),
        (None, None),
        (None, True),  # the next heading of level 2 ends it
        (None, None),
        ("Deep dive · Last", None),
        (None, True),  # runs to the end of the notebook
    ]


def test_every_deep_dive_is_folded_on_its_page(site):
    folder, _, _ = site
    folded = 0
    for page in all_pages(folder):
        if not source_notebook(page).is_file():
            continue  # the index and the teacher's page
        source = notebook(source_notebook(page))
        titles = [docs.pages.deep_dive_title(c) for c in source.cells if is_deep_dive_heading(c)]
        details = page_tree(page).cssselect("main > details.site-deep-dive")
        summaries = [text_of(first(block, "summary")) for block in details]
        # in order; a deep dive inside another one is folded with it
        assert summaries == [title for title in titles if title in summaries], page.name
        assert bool(summaries) == bool(titles), page.name
        for block in details:
            first_cell = first(block, ".jp-Cell")
            summary = text_of(first(block, "summary"))
            assert first_cell is not None and summary in text_of(first_cell)
            assert "open" not in block.attrib
        headings = page_tree(page).cssselect("main > div.jp-Cell :is(h1, h2, h3, h4)")
        outside = [h for h in headings if DEEP_DIVE_TITLE.match(text_of(h, " ", strip=True))]
        assert not outside, (page.name, outside[:1])  # every deep dive is inside its <details>
        folded += len(details)
    assert folded >= 20, f"only {folded} deep dives folded in the whole site"


# ---------------------------------------------------------------- explorers (live widgets)

WIDGET_NOTEBOOK = "04_masks"  # a short notebook whose explorer is stored as a widget output


def widget_outputs(path: Path) -> int:
    return sum(
        docs.pages.WIDGET_MIME in output.get("data", {})
        for cell in notebook(path).cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def page_settings(path: Path, language: str) -> dict:
    """What tools.docs.site gives the template of one page, for a page rendered alone."""
    return {"commit": "abc1234", "nbconvert_version": "x", "mathjax_url": "mathjax/MathJax.js",
            "root": "", "lang": language, "switch": None, "prev": None, "next": None,
            "from_notebook": path.name, "page": f"{path.stem}.html"}  # fmt: skip


def test_a_widget_output_becomes_a_note_in_the_pages_language():
    for language, path in (
        ("en", docs.NOTEBOOKS / f"{WIDGET_NOTEBOOK}.ipynb"),
        ("zh", docs.NOTEBOOKS / "zh" / f"{WIDGET_NOTEBOOK}.ipynb"),
    ):
        stored = notebook(path)
        count = widget_outputs(path)
        assert count >= 1, f"{path.name} stores no explorer any more: pick another notebook"
        assert docs.replace_widget_outputs(stored, language) == count
        assert docs.replace_widget_outputs(stored, language) == 0  # nothing left to replace
        html = docs.render_notebook(path, "a title", page_settings(path, language))
        text = text_of(lxml.html.fromstring(html))
        assert "VBox(children=" not in text and "widget-view" not in html
        assert text.count(docs.WIDGET_NOTE[language]) == count
    with pytest.raises(ValueError, match="language"):
        docs.replace_widget_outputs(notebook(path), "fr")


def test_no_page_shows_a_widget_repr(site):
    folder, _, _ = site
    checked = 0
    for page in all_pages(folder):
        text = text_of(page_tree(page))
        assert "VBox(children=" not in text, page.name
        language = "zh" if page.parent.name == "zh" else "en"
        path = source_notebook(page)
        if path.stem in STEMS and widget_outputs(path):
            assert text.count(docs.WIDGET_NOTE[language]) == widget_outputs(path), page.name
            checked += 1
    assert checked >= 2, "no page with an explorer was checked"


def same_order_attributes(html: str) -> str:
    """The page re-written by BeautifulSoup with every tag's attributes in name order."""
    parsed = BeautifulSoup(html, "html.parser")
    for tag in parsed.find_all(True):
        tag.attrs = dict(sorted(tag.attrs.items()))
    return str(parsed)


def test_the_site_exporter_makes_the_document_nbconvert_makes():
    # SiteExporter leaves out HTMLExporter's BeautifulSoup pass and adds its attributes itself.
    path = docs.NOTEBOOKS / f"{WIDGET_NOTEBOOK}.ipynb"  # figures, outputs, a widget, a deep dive
    settings = page_settings(path, "en")
    ours = docs.render_notebook(path, "a title", settings)
    theirs = docs.render_notebook(path, "a title", settings, docs.pages.site_exporter(HTMLExporter))
    assert 'tabindex="0"' in ours and f'alt="{docs.pages.MISSING_ALT}"' in ours
    assert same_order_attributes(ours) == same_order_attributes(theirs)
