"""Every page of the built site (`make docs`, build/site/) shows its figures and typeset math.

The site is served from 127.0.0.1 as a reader's browser would get it; a page that asks for
anything off the machine, fails to load a file, or throws a script error fails the test.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser_support import (
    NOTEBOOKS_DIR,
    SITE_DIR,
    VIEWPORT,
    GuardedContext,
    free_port,
    guard,
    screenshot_path,
)

LOAD_TIMEOUT_MS = 30_000
MATHJAX_TIMEOUT_MS = 60_000

# Math delimiters in a page's text (MathJax 2 takes $…$, $$…$$, \(…\) and \[…\]). For single
# dollars only a span with TeX in it counts, so "$5" in prose is not taken for math.
DISPLAY_OR_ESCAPED = re.compile(r"\$\$|\\\(|\\\[")
INLINE_TEX = re.compile(r"\$[^$\n]*[\\_^{}][^$\n]*\$")

# The page's text as a reader sees it, without code (where `$` and `\(` are Python).
READER_TEXT_JS = """
() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll('pre, code, script, style, textarea, .jp-InputArea')
    .forEach((node) => node.remove());
  return body.textContent;
}
"""

# MathJax 2 has typeset the page: its startup hook "End" fired (it is replayed for late
# listeners), then a callback queued after everything else ran. Flags polled with a timeout,
# not a promise awaited forever; queueing from inside the hook itself never runs.
MATHJAX_END_JS = """
() => {
  window.__testMathJaxEnd = false;
  MathJax.Hub.Register.StartupHook('End', function () { window.__testMathJaxEnd = true; });
}
"""
MATHJAX_QUEUE_JS = """
() => {
  window.__testMathJaxIdle = false;
  MathJax.Hub.Queue(function () { window.__testMathJaxIdle = true; });
}
"""

TYPESET_MATH = ".MathJax, .MathJax_Display, .MathJax_CHTML, .mjx-chtml, .MathJax_SVG"

# The visible text of each typeset formula (not the hidden MathML copy for screen readers). A
# backslash there is TeX that MathJax printed instead of reading, e.g. \_ inside \text{...}.
TYPESET_TEXTS_JS = """
() => [...document.querySelectorAll('.MathJax, .MathJax_Display')].map((node) => {
  const copy = node.cloneNode(true);
  copy.querySelectorAll('.MJX_Assistive_MathML').forEach((hidden) => hidden.remove());
  return copy.textContent;
})
"""
MATH_ERRORS = ".MathJax_Error, .merror, .noError"


def expected_pages() -> list[str]:
    """The pages `make docs` writes: index, teacher, glossary and one per notebook, in English
    and, in zh/, in Chinese."""
    names = set()
    for prefix, folder in (("", NOTEBOOKS_DIR), ("zh/", NOTEBOOKS_DIR / "zh")):
        names |= {f"{prefix}index.html", f"{prefix}teacher.html"}
        names |= {f"{prefix}{path.stem}.html" for path in folder.glob("*.ipynb")}
        if (SITE_DIR / prefix).is_dir():
            names |= {f"{prefix}{path.name}" for path in (SITE_DIR / prefix).glob("*.html")}
    return sorted(names)


def png_outputs(page_name: str) -> int:
    """How many image/png outputs the notebook behind a page stores (0 for other pages)."""
    notebook = NOTEBOOKS_DIR / Path(page_name).parent / f"{Path(page_name).stem}.ipynb"
    if not notebook.is_file():
        return 0
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(
        "image/png" in output.get("data", {})
        for cell in cells
        for output in cell.get("outputs", [])
    )


def has_math(html: str) -> bool:
    """Whether a page's HTML holds math for MathJax (outside code and scripts)."""
    text = re.sub(r"(?is)<(script|style|pre|code)\b.*?</\1>", " ", html)
    text = re.sub(r"(?s)<[^>]+>", " ", text)
    return bool(DISPLAY_OR_ESCAPED.search(text) or INLINE_TEX.search(text))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    """The built site served over HTTP on 127.0.0.1 (as a reader's browser would load it)."""
    if not (SITE_DIR / "index.html").is_file():
        pytest.fail(f"{SITE_DIR} has no index.html: build the site with `make docs` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_every_page_is_built():
    missing = [name for name in expected_pages() if not (SITE_DIR / name).is_file()]
    assert not missing, f"pages missing from {SITE_DIR} (run `make docs`): {missing}"


@dataclass
class OpenPage:
    """A site page opened in its own guarded context, with what went wrong while it loaded."""

    guarded: GuardedContext
    page: object
    script_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class SitePages:
    """Opens site pages a few ahead of the test that checks them.

    MathJax's HTML-CSS output spends seconds per page measuring glyphs and waiting for fonts; the
    next pages load and typeset in their own tabs meanwhile.
    """

    def __init__(self, browser, url: str, names: list[str], ahead: int = 3) -> None:
        self.browser, self.url, self.names, self.ahead = browser, url, names, ahead
        self.opened: dict[str, OpenPage] = {}

    def _open(self, name: str) -> None:
        context = self.browser.new_context(viewport=VIEWPORT, service_workers="block")
        opened = OpenPage(guard(context), context.new_page())
        page = opened.page
        page.on("pageerror", lambda error: opened.script_errors.append(str(error)))
        page.on(
            "requestfailed",
            lambda request: opened.failed.append(f"{request.url} ({request.failure})"),
        )
        page.on(
            "response",
            lambda response: (
                response.status >= 400
                and opened.failed.append(f"{response.url} ({response.status})")
            ),
        )
        # Returns once the navigation starts; the test waits for the load event.
        page.goto(f"{self.url}/{name}", wait_until="commit", timeout=LOAD_TIMEOUT_MS)
        self.opened[name] = opened

    def get(self, name: str) -> OpenPage:
        """The page `name`, opened now if it was not yet, and the next few opened behind it."""
        start = self.names.index(name)
        for other in self.names[start : start + 1 + self.ahead]:
            if other not in self.opened and (SITE_DIR / other).is_file():
                self._open(other)
        return self.opened[name]

    def close(self) -> None:
        for opened in self.opened.values():
            opened.guarded.context.close()


@pytest.fixture(scope="module")
def site_pages(browser, site_url) -> Iterator[SitePages]:
    pages = SitePages(browser, site_url, expected_pages())
    yield pages
    pages.close()


def wait_for_mathjax(page, page_name: str) -> None:
    """Wait until MathJax 2 has typeset the page; fail with the reason if it cannot."""
    # MathJax.js is a blocking script in <head>: after the load event it is there or it is not.
    if not page.evaluate("() => Boolean(window.MathJax && window.MathJax.Hub)"):
        pytest.fail(f"{page_name}: the page has math but MathJax is not loaded")
    page.evaluate(MATHJAX_END_JS)
    try:
        page.wait_for_function("() => window.__testMathJaxEnd", timeout=MATHJAX_TIMEOUT_MS)
        page.evaluate(MATHJAX_QUEUE_JS)
        page.wait_for_function("() => window.__testMathJaxIdle", timeout=MATHJAX_TIMEOUT_MS)
    except Exception as error:
        pytest.fail(f"{page_name}: MathJax did not finish typesetting ({error})")


# Every image after scrolling to it (lazy images load then): its source and whether it is drawn.
IMAGES_JS = """
(img) => ({src: img.src.slice(0, 80), complete: img.complete, width: img.naturalWidth,
  box: img.getBoundingClientRect().width})
"""


@pytest.mark.parametrize("page_name", expected_pages())
def test_page_shows_figures_and_math(page_name, site_pages):
    source = SITE_DIR / page_name
    assert source.is_file(), f"{page_name}: not in {SITE_DIR} (run `make docs`)"
    opened = site_pages.get(page_name)
    page = opened.page
    page.wait_for_load_state("load", timeout=LOAD_TIMEOUT_MS)
    math_expected = has_math(source.read_text(encoding="utf-8"))
    if math_expected:
        wait_for_mathjax(page, page_name)
    # Deep dives are folded (closed <details>): open them, as a reader would, to see their figures.
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    images = page.locator("img")
    image_states = []
    for k in range(images.count()):
        images.nth(k).scroll_into_view_if_needed()
        image_states.append(images.nth(k).evaluate(IMAGES_JS))
    # Before the checks, so a failing page has its picture too.
    shot = page_name.removesuffix(".html").replace("/", "_")
    page.screenshot(path=screenshot_path(f"site_{shot}"), full_page=True)

    # Nothing off the machine, nothing missing, no script error.
    assert not opened.guarded.blocked, (
        f"{page_name}: the page asked for non-local URLs: {opened.guarded.blocked}"
    )
    # MathJax 2 probes the browser with a font at about:blank, which Chromium refuses; expected
    # and harmless (mathjax/MathJax#926). Any other failed request is a missing file.
    failed = [entry for entry in opened.failed if not entry.startswith("about:blank ")]
    assert not failed, f"{page_name}: requests that failed: {failed}"
    assert not opened.script_errors, f"{page_name}: script errors: {opened.script_errors}"

    # The math: typeset, without errors, and no raw delimiters left for the reader.
    if math_expected:
        assert page.locator(TYPESET_MATH).count() > 0, (
            f"{page_name}: the page has math but MathJax typeset none of it"
        )
        errors = page.locator(MATH_ERRORS).all_text_contents()
        assert not errors, f"{page_name}: MathJax could not typeset: {errors[:5]}"
        literal = sorted({text for text in page.evaluate(TYPESET_TEXTS_JS) if "\\" in text})
        assert not literal, f"{page_name}: TeX shown as typed, with backslashes: {literal[:5]}"
    reader_text = page.evaluate(READER_TEXT_JS)
    raw = sorted(
        {
            match.group(0)[:80]
            for pattern in (DISPLAY_OR_ESCAPED, INLINE_TEX)
            for match in pattern.finditer(reader_text)
        }
    )
    assert not raw, f"{page_name}: raw math left in the text after MathJax: {raw[:10]}"

    # The figures: every image loaded, decoded and drawn; one per image/png output stored.
    broken = [
        (k, state)
        for k, state in enumerate(image_states)
        if not (state["complete"] and state["width"] > 0 and state["box"] > 0)
    ]
    assert not broken, f"{page_name}: images not drawn (index, state): {broken}"
    figures = page.locator(".jp-OutputArea-output img").count()
    n_png = png_outputs(page_name)
    assert figures == n_png, (
        f"{page_name}: {figures} figures in output areas, the notebook stores {n_png} image/png outputs"
    )
    opened.guarded.context.close()


def test_the_switch_leads_to_the_same_page_in_the_other_language(browser, site_url):
    """A reader on a Chinese page clicks "English" and lands on its English page, and back."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    guarded = guard(context)
    page = context.new_page()
    page.goto(f"{site_url}/zh/03_scaled_dot_product_attention.html", timeout=LOAD_TIMEOUT_MS)
    assert page.locator("html").get_attribute("lang") is not None
    nav = page.locator("nav.site-nav-top")
    assert nav.locator("a", has_text="路线图").count() == 1
    page.screenshot(path=screenshot_path("site_switch_zh"))
    nav.locator("a.site-switch").click()
    page.wait_for_url(f"{site_url}/03_scaled_dot_product_attention.html", timeout=LOAD_TIMEOUT_MS)
    assert page.locator("nav.site-nav-top a", has_text="Roadmap").count() == 1
    page.locator("nav.site-nav-top a.site-switch").click()
    page.wait_for_url(
        f"{site_url}/zh/03_scaled_dot_product_attention.html", timeout=LOAD_TIMEOUT_MS
    )
    assert not guarded.blocked, guarded.blocked
    context.close()


def platform_fonts(page, selector: str) -> list[str]:
    """The fonts Chromium really drew a node's text with (DevTools' CSS.getPlatformFontsForNode)."""
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument")["root"]["nodeId"]
    node = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    # A font the page loaded itself (@font-face) is "custom"; a system one is not.
    return [font["familyName"] + (" (served)" if font["isCustomFont"] else "") for font in fonts]


def test_chinese_pages_draw_their_text_with_the_font_the_site_serves(browser, site_url):
    """No system font is needed: the site serves Noto Sans SC (@font-face in site.css), and
    Chromium draws the Chinese title with it."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    guarded = guard(context)
    page = context.new_page()
    page.goto(f"{site_url}/zh/03_scaled_dot_product_attention.html", timeout=LOAD_TIMEOUT_MS)
    page.evaluate("document.fonts.ready")
    heading = page.locator("h1").first.text_content()
    assert any("\u4e00" <= c <= "\u9fff" for c in heading), heading
    assert "Noto Sans SC (served)" in platform_fonts(page, "h1"), platform_fonts(page, "h1")
    # A comment in a code cell (monospace) falls back to the same served font.
    comment = "pre .c1"
    assert "Noto Sans SC (served)" in platform_fonts(page, comment), platform_fonts(page, comment)
    page.screenshot(path=screenshot_path("site_chinese_font"))
    assert not guarded.blocked, guarded.blocked
    context.close()
