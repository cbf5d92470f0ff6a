"""One notebook as an HTML page: nbconvert with the site's template, MathJax served from local
files, links between notebooks pointed at their pages, deep dives folded (by the template)."""

from __future__ import annotations

import multiprocessing
import re
import shutil
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bs4 import BeautifulSoup
from markupsafe import Markup
from nbconvert import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets.config import Config

from helpers.paths import ROOT
from tools.docs.notebooks import read_notebook
from tools.notebook_format import first_line
from tools.reading import deep_dive_sections

TEMPLATES = ROOT / "docs" / "templates"

# MathJax 2.7 from jupyter_server_mathjax: the combined TeX + MathML input, HTML-CSS output config,
# and what it loads on demand. Left out: the SVG output (2.9 MB), the accessibility explorer
# (extensions/a11y, 3.7 MB, loaded only when a reader turns it on in the menu) and translations.
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
MATHJAX_PARTS = (
    "MathJax.js",
    "LICENSE",
    "config/TeX-AMS-MML_HTMLorMML-full.js",
    "config/Safe.js",
    "extensions",
    "jax/element",
    "jax/input",
    "jax/output/HTML-CSS",
    "fonts/HTML-CSS/STIX-Web/woff",
    "localization/en",
)
MATHJAX_SKIP = ("a11y",)

# A relative link to a notebook beside the page: href="04_masks.ipynb" or "./glossary.ipynb#x".
NOTEBOOK_LINK = re.compile(r'href="(?:\./)?([A-Za-z0-9_]+)\.ipynb(#[^"]*)?"')


def build_commit(root: Path = ROOT) -> str:
    """`git rev-parse --short HEAD`, with ' + uncommitted changes' if the tree is dirty."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    if not head:
        return "unknown"
    return f"{head} + uncommitted changes" if status.strip() else head


def rewrite_notebook_links(html: str, pages: dict[str, str]) -> tuple[str, list[str]]:
    """Point links to notebooks of the site (``NN_name.ipynb``) to their pages.

    pages maps a notebook stem to its page. Returns the new HTML and the notebooks linked to
    that have no page (their links are left as they are).
    """
    unknown: list[str] = []

    def replace(match: re.Match) -> str:
        stem, anchor = match.group(1), match.group(2) or ""
        if stem not in pages:
            unknown.append(f"{stem}.ipynb")
            return match.group(0)
        return f'href="{pages[stem]}{anchor}"'

    return NOTEBOOK_LINK.sub(replace, html), unknown


def markdown_html(text: str, inline: bool = False) -> Markup:
    """Markdown (with $math$ left for MathJax) as HTML; inline drops the paragraph around it."""
    html = markdown2html_mistune(text).strip()
    if inline and html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return Markup(html)  # noqa: S704 - our own notebooks' markdown, rendered by mistune


def mathjax_source() -> Path:
    """The MathJax 2.7 files installed by jupyter_server_mathjax."""
    try:
        import jupyter_server_mathjax
    except ImportError as error:
        raise RuntimeError(
            "jupyter_server_mathjax is not installed: run `make setup` (it is pinned in "
            "requirements.txt); the site serves MathJax from its files"
        ) from error
    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    if not (source / "MathJax.js").is_file():
        raise RuntimeError(f"MathJax.js not found in {source}: reinstall jupyter_server_mathjax")
    return source


def copy_mathjax(destination: Path, source: Path | None = None) -> int:
    """Copy the MathJax files the site uses (from source: mathjax_source()); returns their size."""
    source = mathjax_source() if source is None else source
    for part in MATHJAX_PARTS:
        origin, target = source / part, destination / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns(*MATHJAX_SKIP))
        else:
            shutil.copy2(origin, target)
    return sum(path.stat().st_size for path in destination.rglob("*") if path.is_file())


# What nbconvert's HTMLExporter adds in its last pass: keyboard focus on every cell input and output
# of the notebook, and an alternative text on every image without one (matplotlib's figures).
FOCUSABLE_DIV = re.compile(
    r'<div(?=[^>]*\sclass="(?:[^"]*\s)?jp-(?:Cell-inputWrapper|OutputArea-output)(?:\s[^"]*)?")'
)
IMAGE_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)")
MISSING_ALT = "No description has been provided for this image"


def add_focus_and_alt(html: str) -> str:
    """tabindex="0" on each cell's input and output, alt on each image that has none."""
    html = FOCUSABLE_DIV.sub('<div tabindex="0"', html)
    return IMAGE_WITHOUT_ALT.sub(f'<img alt="{MISSING_ALT}"', html)


class SiteExporter(HTMLExporter):
    """nbconvert's HTMLExporter without its last pass, which parses and re-writes each page with
    BeautifulSoup (half the site's build time) only to add the attributes of add_focus_and_alt:
    they are added to the page's text instead. tests/test_docs.py checks that both exporters make
    the same document."""

    def from_notebook_node(self, nb, resources=None, **kw):
        # HTMLExporter.from_notebook_node of nbconvert 7.17 (pinned), up to its BeautifulSoup pass
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name", None))
        highlight = self.filters.get(
            "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)
        )
        resources = self._init_resources(resources)
        data_types = WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources
        )
        self.register_filter("highlight_code", highlight)
        self.register_filter("filter_data_type", data_types)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return add_focus_and_alt(html), resources


def site_exporter(exporter: type[HTMLExporter] = SiteExporter) -> HTMLExporter:
    """The HTML exporter with the site's template; stored outputs only, never executed.

    exporter: the class, SiteExporter (tests/test_docs.py compares it with nbconvert's own)."""
    config = Config()
    config.CoalesceStreamsPreprocessor.enabled = True  # a progress bar's \r updates -> last state
    config.ExecutePreprocessor.enabled = False
    return exporter(
        config=config,
        template_name="site",
        extra_template_basedirs=[str(TEMPLATES)],
        theme="light",
    )


def lab_css(exporter: HTMLExporter) -> str:
    """nbconvert's JupyterLab styles (light theme), shared by all notebook pages."""
    environment = exporter.environment
    names = ("static/index.css", "static/theme-light.css")
    return "\n".join(environment.loader.get_source(environment, name)[0] for name in names)


# An explorer's controls are stored as a widget reference that only a running kernel can draw; a
# page shows this line in its place (the explorer's first figure and values follow it).
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = {
    "en": "Live controls here (sliders, text box): run the notebook in JupyterLab to use them. "
    "Below, what they show at first.",
    "zh": "这里是交互控件（滑块、文本框）：在 JupyterLab 中运行本笔记本即可使用。下面是它们最初显示的内容。",
}


def replace_widget_outputs(notebook, language: str = "en") -> int:
    """Put WIDGET_NOTE (in the page's language) in place of every widget output, in place.

    Without a kernel, a widget output would show its text/plain repr
    (``VBox(children=(HTML(...``). Returns how many outputs were replaced.
    """
    if language not in WIDGET_NOTE:
        raise ValueError(f"language: expected one of {sorted(WIDGET_NOTE)}, got {language!r}")
    note = f'<p class="site-widget-note"><em>{WIDGET_NOTE[language]}</em></p>'
    replaced = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if WIDGET_MIME in output.get("data", {}):
                output["data"] = {"text/html": note}
                replaced += 1
    return replaced


_EXPORTER: HTMLExporter | None = None


def render_notebook(
    path: Path, title: str, site: dict, exporter: HTMLExporter | None = None
) -> str:
    """One notebook as a page of the site (its stored outputs, with the site's navigation);
    exporter: site_exporter()'s, made once per process when not given."""
    global _EXPORTER
    if exporter is None:
        if _EXPORTER is None:  # one exporter per process: building it parses the templates
            _EXPORTER = site_exporter()
        exporter = _EXPORTER
    notebook = read_notebook(path)
    notebook.metadata["title"] = title
    replace_widget_outputs(notebook, site.get("lang", "en"))
    mark_deep_dives(notebook)
    html, _ = exporter.from_notebook_node(
        notebook, resources={"site": site, "metadata": {"name": path.stem}}
    )
    return html


def deep_dive_title(cell) -> str:
    """The plain text of a deep dive's heading (its cell's first line), as the page shows it."""
    heading = first_line(cell).lstrip("#").strip()
    return BeautifulSoup(markdown_html(heading, inline=True), "html.parser").get_text().strip()


def mark_deep_dives(notebook) -> int:
    """Mark each deep-dive section of a notebook for folding, in place; return how many.

    The sections are tools.reading's (a deep-dive heading to the next heading of the same or a
    higher level, as in JupyterLab). A section's first cell gets the metadata ``site_deep_dive``
    (its title), its last ``site_deep_dive_end``; the site's template wraps the cells between in a
    closed ``<details>``, so the reader sees the title and opens the section with a click.
    """
    sections = deep_dive_sections(notebook.cells)
    for start, end in sections:
        notebook.cells[start].metadata["site_deep_dive"] = deep_dive_title(notebook.cells[start])
        notebook.cells[end - 1].metadata["site_deep_dive_end"] = True
    return len(sections)


def _render_job(job: tuple[Path, str, dict]) -> str:
    return render_notebook(*job)


def _render_all(jobs_list: list[tuple[Path, str, dict]], jobs: int) -> list[str]:
    """render_notebook for every job, in order, in up to `jobs` forked processes."""
    if jobs == 1 or len(jobs_list) == 1:
        return [_render_job(job) for job in jobs_list]
    # fork: the workers inherit the imported modules (spawn would import torch again in each).
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        return list(pool.map(_render_job, jobs_list))
