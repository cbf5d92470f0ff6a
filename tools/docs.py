"""Build the series as an offline static website (``make docs``).

    python -m tools.docs                  # into build/site/
    python -m tools.docs --output DIR     # anywhere else

The site has one page per numbered notebook with the outputs and figures stored in it (nothing is
executed: the stored outputs are the ones strict nbval proves fresh), the glossary, an index with
the roadmap, and a teacher's guide (what each notebook teaches, its time to read and to run, its
exercises). Pages link to their previous and next notebook and say which commit they were built
from.

Nothing on a page is fetched from the network when it is opened: nbconvert's lab template would
load require.js, MathJax, mermaid and the widgets manager from CDNs, so the site's template
(docs/templates/site/) drops what the notebooks do not use and serves MathJax 2.7 from a copy of
the files the ``jupyter_server_mathjax`` package installs. nbconvert's lab CSS is written once, to
lab.css, instead of being inlined into every page.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import nbconvert
import nbformat
from markupsafe import Markup
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from traitlets.config import Config

from helpers.paths import NOTEBOOKS_DIR as NOTEBOOKS
from helpers.paths import ROOT, numbered_notebooks
from tools.reading import CODE_LINES_PER_MINUTE, WORDS_PER_MINUTE, Reading, reading

DOCS = ROOT / "docs"
TEMPLATES = DOCS / "templates"
SITE_CSS = DOCS / "site.css"
RUN_TIMES = DOCS / "notebook_run_times.json"
DEFAULT_OUTPUT = ROOT / "build" / "site"
GLOSSARY = "glossary"
SERIES = "Transformer, step by step"

# The reading-time rule, stated on the teacher's page.

# A file the builder leaves in every site it writes: only such a folder is ever emptied.
MARKER = ".transformer-site"

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

ISO_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
TITLE_LINE = re.compile(r"^#\s+(\d\d)\s*·\s*(.+?)\s*$")
PAPER_SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*(?:\s*[–-]\s*\d+(?:\.\d+)*)?)")
ROADMAP_ROW = re.compile(r"^\|\s*(\d\d)\s*\|\s*`(\d\d_[a-z0-9_]+)`\s*\|\s*(.+?)\s*\|\s*$", re.M)
EXERCISES_HEADING = re.compile(r"^##\s+Exercises\b", re.M)
SECTION_HEADING = re.compile(r"^#{1,2}\s+\S")
# "**1 · Title.**", "**1. Title.**", "**Exercise 1 · Title.**" or "1. **Title.**" at a line start.
EXERCISE_TITLE = re.compile(
    r"^\s*(?:\*\*(?:Exercise\s+)?(?P<n1>\d+)\s*(?:·|\.)\s*(?P<t1>.+?)\*\*"
    r"|(?P<n2>\d+)\.\s+\*\*(?P<t2>.+?)\*\*)"
)
# A relative link to a notebook beside the page: href="04_masks.ipynb" or "./glossary.ipynb#x".
NOTEBOOK_LINK = re.compile(r'href="(?:\./)?([A-Za-z0-9_]+)\.ipynb(#[^"]*)?"')


# ---------------------------------------------------------------- what the notebooks say


@dataclass(frozen=True)
class Exercise:
    """One exercise: its number and title as written, and whether a solution cell follows it."""

    number: int
    title: str
    has_solution: bool


@dataclass(frozen=True)
class NotebookInfo:
    """What the site shows about one numbered notebook, all read from the notebook itself."""

    path: Path
    number: str
    title: str
    intro: str  # markdown: the first paragraph after the title
    paper_sections: list[str]
    words: int  # markdown words on the core path (deep dives excluded)
    code_lines: int  # non-blank lines of code cells on the core path
    reading: Reading  # the same, and the deep dives' counts
    exercises: list[Exercise]

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def page(self) -> str:
        return f"{self.stem}.html"

    @property
    def read_minutes(self) -> int:
        """Minutes to read the core path."""
        return self.reading.minutes(everything=False)

    @property
    def read_minutes_all(self) -> int:
        """Minutes to read everything, deep dives included."""
        return self.reading.minutes(everything=True)


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at path, as nbformat 4."""
    return nbformat.read(str(path), as_version=4)


def title_and_intro(path: Path, notebook) -> tuple[str, str, str]:
    """(number, title, first paragraph) from the first cell, "# NN · Title" then prose."""
    cells = notebook.get("cells", [])
    first = _source(cells[0]) if cells and cells[0].get("cell_type") == "markdown" else ""
    lines = first.strip().splitlines()
    match = TITLE_LINE.match(lines[0]) if lines else None
    if match is None:
        shown = lines[0] if lines else "no markdown cell"
        raise ValueError(
            f"{path.name}: expected the first cell to start with a title '# NN · Title', "
            f"got {shown!r}"
        )
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n", "\n".join(lines[1:]))]
    intro = next((part for part in paragraphs if part), "")
    return match.group(1), match.group(2), intro


def paper_sections(text: str) -> list[str]:
    """The paper's sections named in text ("§3.2.1"), in order of first mention."""
    seen: dict[str, None] = {}
    for number in PAPER_SECTION.findall(text):
        seen.setdefault(f"§{number}", None)
    return list(seen)


def find_exercises(notebook) -> list[Exercise]:
    """The exercises after the "## Exercises" heading, up to the next heading of level 1 or 2.

    An exercise starts a line with its number and bold title ("**1 · Title.**", "**1. Title.**",
    "**Exercise 1 · Title.**" or "1. **Title.**"); it has a solution when a code cell tagged
    ``solution`` comes after it, before the next exercise or the end of the section.
    """
    found: list[tuple[int, str, int]] = []  # (number, title, cell index)
    solution_cells: list[int] = []
    in_section, end = False, len(notebook.get("cells", []))
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") == "code":
            if in_section and "solution" in cell.get("metadata", {}).get("tags", []):
                solution_cells.append(index)
            continue
        if cell.get("cell_type") != "markdown":
            continue
        lines = _source(cell).splitlines()
        if not in_section:
            heading = next(
                (i for i, line in enumerate(lines) if EXERCISES_HEADING.match(line)), None
            )
            if heading is None:
                continue
            in_section, lines = True, lines[heading + 1 :]
        for line in lines:
            if SECTION_HEADING.match(line):
                end = index
                break
            match = EXERCISE_TITLE.match(line)
            if match:
                number = int(match.group("n1") or match.group("n2"))
                title = (match.group("t1") or match.group("t2")).strip().rstrip(".:").strip()
                found.append((number, title, index))
        if end != len(notebook.get("cells", [])):
            break
    exercises = []
    for position, (number, title, index) in enumerate(found):
        following = found[position + 1][2] if position + 1 < len(found) else end
        has_solution = any(index < cell < following for cell in solution_cells)
        exercises.append(Exercise(number, title, has_solution))
    return exercises


def notebook_info(path: Path) -> NotebookInfo:
    """Everything the index and the teacher's page say about one numbered notebook."""
    notebook = read_notebook(path)
    number, title, intro = title_and_intro(path, notebook)
    if not path.stem.startswith(number):
        raise ValueError(f"{path.name}: the title's number {number} is not the file's number")
    first_cell = _source(notebook.cells[0])
    counts = reading(path)
    return NotebookInfo(
        path=path,
        number=number,
        title=title,
        intro=intro,
        paper_sections=paper_sections(first_cell),
        words=counts.core_words,
        code_lines=counts.core_code_lines,
        reading=counts,
        exercises=find_exercises(notebook),
    )


def roadmap_summaries(overview) -> dict[str, str]:
    """notebook stem -> its one-line summary (markdown) in the roadmap table of notebook 00."""
    summaries: dict[str, str] = {}
    for cell in overview.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for _, stem, summary in ROADMAP_ROW.findall(_source(cell)):
                summaries.setdefault(stem, summary)
    return summaries


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph (up to the first '. ' before a capital, or all of it)."""
    match = re.search(r"[.!?](?=\s+[A-Z*`(])", text)
    return text[: match.end()] if match else text


# ---------------------------------------------------------------- measured run times


@dataclass(frozen=True)
class RunTimes:
    """docs/notebook_run_times.json, written by ``python -m tools.benchmark``.

    command, machine and date are those of the latest run. older_times: the notebooks that failed
    in it and kept an earlier run's time, with that time's date ("YYYY-MM-DD").
    """

    command: str
    machine: str
    date: str
    seconds: dict[str, float] = field(default_factory=dict)
    older_times: dict[str, str] = field(default_factory=dict)


def load_run_times(path: Path) -> RunTimes | None:
    """The measured run times, or None when the file does not exist; raises if it is malformed."""
    if not path.exists():
        return None
    name = _relative(path)
    expected = (
        'expected {"command": str, "machine": str, "date": str, '
        '"seconds": {"00_overview": 5.2, ...}}'
    )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{name}: not JSON ({error}); {expected}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{name}: {expected}, got {type(data).__name__}")
    missing = [key for key in ("command", "machine", "date", "seconds") if key not in data]
    if missing:
        raise ValueError(f"{name}: {expected}, missing {missing}")
    seconds = data["seconds"]
    if not isinstance(seconds, dict) or not all(
        isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        for value in seconds.values()
    ):
        raise ValueError(
            f"{name}: 'seconds': expected {{notebook name: seconds >= 0}}, got {seconds!r}"
        )
    older_times = data.get("older_times", {})
    if not isinstance(older_times, dict) or not all(
        stem in seconds and isinstance(date, str) and ISO_DATE.match(date)
        for stem, date in older_times.items()
    ):
        raise ValueError(
            f"{name}: 'older_times': expected {{notebook name in 'seconds': 'YYYY-MM-DD'}}, "
            f"got {older_times!r}"
        )
    return RunTimes(
        str(data["command"]),
        str(data["machine"]),
        str(data["date"]),
        {stem: float(value) for stem, value in seconds.items()},
        dict(older_times),
    )


def format_seconds(seconds: float) -> str:
    """12.3 -> '12 s', 95 -> '1 min 35 s'."""
    whole = round(seconds)
    if whole < 60:
        return f"{max(whole, 1)} s"
    return f"{whole // 60} min {whole % 60:02d} s"


def format_minutes(minutes: int) -> str:
    """45 -> '45 min', 110 -> '1 h 50 min'."""
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


NOT_MEASURED = "not measured"


def run_text(run_times: RunTimes | None, stem: str) -> str:
    """A notebook's measured run time as shown on the teacher's page, or 'not measured'.

    A time older than the file's date (the notebook failed in the latest run) shows its date.
    """
    if run_times is None or stem not in run_times.seconds:
        return NOT_MEASURED
    text = format_seconds(run_times.seconds[stem])
    if stem in run_times.older_times:
        text += f" (measured on {run_times.older_times[stem]})"
    return text


# ---------------------------------------------------------------- commit and links


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


# ---------------------------------------------------------------- building


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


def prepare_output(output: Path) -> None:
    """Create output, or empty it if it holds a site built before; refuse any other folder."""
    if output.exists() and not output.is_dir():
        raise ValueError(f"output: expected a folder to write the site into, got a file: {output}")
    if output.is_dir() and any(output.iterdir()):
        if not (output / MARKER).is_file():
            raise ValueError(
                f"output: {output} is not empty and holds no site built by this tool (no {MARKER} "
                "file); give a new or empty folder, so that nothing else gets overwritten"
            )
        for child in output.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    output.mkdir(parents=True, exist_ok=True)
    (output / MARKER).write_text(
        "Built by `python -m tools.docs`; the next build empties this folder.\n",
        encoding="utf-8",
    )


def site_exporter() -> HTMLExporter:
    """nbconvert's HTML exporter with the site's template; stored outputs only, never executed."""
    config = Config()
    config.CoalesceStreamsPreprocessor.enabled = True  # a progress bar's \r updates -> last state
    config.ExecutePreprocessor.enabled = False
    return HTMLExporter(
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


_EXPORTER: HTMLExporter | None = None


def render_notebook(path: Path, title: str, site: dict) -> str:
    """One notebook as a page of the site (its stored outputs, with the site's navigation)."""
    global _EXPORTER
    if _EXPORTER is None:  # one exporter per process: building it parses the templates
        _EXPORTER = site_exporter()
    notebook = read_notebook(path)
    notebook.metadata["title"] = title
    html, _ = _EXPORTER.from_notebook_node(
        notebook, resources={"site": site, "metadata": {"name": path.stem}}
    )
    return fold_deep_dives(html)


DEEP_DIVE_TITLE = re.compile(r"^Deep dive\s*·")


def _first_heading(cell) -> object | None:
    return cell.find(re.compile(r"^h[1-6]$")) if hasattr(cell, "find") else None


def fold_deep_dives(html: str) -> str:
    """Fold each deep-dive section of a notebook page into a closed ``<details>``.

    A deep dive starts at a cell whose first heading reads "Deep dive · ..." and runs to the next
    cell whose first heading is of the same or a higher level, as in JupyterLab. The reader sees
    its title and opens it with a click.
    """
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    if main is None:
        return html
    cells = [
        child for child in main.find_all(recursive=False) if "jp-Cell" in child.get("class", [])
    ]
    index = 0
    while index < len(cells):
        heading = _first_heading(cells[index])
        title = heading.get_text(" ", strip=True).rstrip("¶").strip() if heading else ""
        if not heading or not DEEP_DIVE_TITLE.match(title):
            index += 1
            continue
        level, end = int(heading.name[1]), index + 1
        while end < len(cells):
            other = _first_heading(cells[end])
            if other is not None and int(other.name[1]) <= level:
                break
            end += 1
        details = soup.new_tag("details", attrs={"class": "site-deep-dive"})
        summary = soup.new_tag("summary")
        summary.string = title
        details.append(summary)
        cells[index].insert_before(details)
        for cell in cells[index:end]:
            details.append(cell.extract())
        index = end
    return str(soup)


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


@dataclass
class SiteReport:
    """What a build wrote: the pages, the site's size, the build's duration and its commit."""

    output: Path
    pages: list[str]
    bytes: int
    seconds: float
    commit: str
    warnings: list[str]


def _neighbour(info: NotebookInfo | None) -> dict | None:
    if info is None:
        return None
    return {"href": info.page, "label": f"{info.number} · {info.title}"}


def notebook_jobs(
    infos: list[NotebookInfo], glossary_path: Path, common: dict
) -> list[tuple[Path, str, dict]]:
    """(notebook, page title, navigation) for every numbered notebook, then the glossary."""
    jobs_list = []
    for position, info in enumerate(infos):
        site = common | {
            "prev": _neighbour(infos[position - 1] if position > 0 else None),
            "next": _neighbour(infos[position + 1] if position + 1 < len(infos) else None),
            "from_notebook": info.path.name,
        }
        jobs_list.append((info.path, f"{info.number} · {info.title} · {SERIES}", site))
    glossary_site = common | {"prev": None, "next": None, "from_notebook": glossary_path.name}
    jobs_list.append((glossary_path, f"Glossary · 术语表 · {SERIES}", glossary_site))
    return jobs_list


def page_entries(infos: list[NotebookInfo], run_times: RunTimes | None) -> list[dict]:
    """What the index and the teacher's page show of each notebook, markdown made HTML."""
    summaries = roadmap_summaries(read_notebook(infos[0].path))
    entries = []
    for info in infos:
        summary = summaries.get(info.stem)
        entries.append(
            {
                "number": info.number,
                "page": info.page,
                "title_html": markdown_html(info.title, inline=True),
                "summary_html": markdown_html(
                    summary if summary is not None else first_sentence(info.intro), inline=True
                ),
                "in_roadmap": summary is not None,
                "intro_html": markdown_html(info.intro),
                "paper_sections": info.paper_sections,
                "words": info.words,
                "code_lines": info.code_lines,
                "read_minutes": info.read_minutes,
                "read_text": format_minutes(info.read_minutes),
                "read_all_text": format_minutes(info.read_minutes_all),
                "deep_dive_words": info.reading.deep_dive_words,
                "run_text": run_text(run_times, info.stem),
                "exercises": [
                    {
                        "number": exercise.number,
                        "title_html": markdown_html(exercise.title, inline=True),
                        "has_solution": exercise.has_solution,
                    }
                    for exercise in info.exercises
                ],
            }
        )
    return entries


def build_site(
    output: Path = DEFAULT_OUTPUT,
    notebooks_dir: Path = NOTEBOOKS,
    run_times_path: Path = RUN_TIMES,
    commit: str | None = None,
    jobs: int | None = None,
) -> SiteReport:
    """Write the whole site into output (created if missing) and say what was written.

    commit: what the footers say (default: build_commit()); jobs: processes converting notebooks
    at once (default: the CPU count, at most 4). Every argument is checked before anything is
    written.
    """
    start = time.perf_counter()
    jobs = min(os.cpu_count() or 1, 4) if jobs is None else jobs
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs: expected a positive int, got {jobs!r}")
    output, notebooks_dir, run_times_path = Path(output), Path(notebooks_dir), Path(run_times_path)
    paths = numbered_notebooks(notebooks_dir)
    glossary_path = notebooks_dir / f"{GLOSSARY}.ipynb"
    if not glossary_path.is_file():
        raise ValueError(f"notebooks: expected the glossary {glossary_path}, found none")
    run_times = load_run_times(run_times_path)
    infos = [notebook_info(path) for path in paths]
    mathjax = mathjax_source()  # raises if jupyter_server_mathjax is missing: before emptying
    prepare_output(output)

    common = {
        "commit": build_commit() if commit is None else commit,
        "nbconvert_version": nbconvert.__version__,
        "mathjax_url": f"mathjax/MathJax.js?config={MATHJAX_CONFIG}",
    }
    pages = {info.stem: info.page for info in infos} | {GLOSSARY: f"{GLOSSARY}.html"}
    warnings: list[str] = []
    written: list[str] = []

    def write(name: str, html: str) -> None:
        html, unknown = rewrite_notebook_links(html, pages)
        warnings.extend(f"{name}: link to {target}, which has no page" for target in unknown)
        (output / name).write_text(html, encoding="utf-8")
        written.append(name)

    (output / "lab.css").write_text(lab_css(site_exporter()), encoding="utf-8")
    shutil.copy2(SITE_CSS, output / "site.css")
    copy_mathjax(output / "mathjax", mathjax)

    jobs_list = notebook_jobs(infos, glossary_path, common)
    for (path, _, _), html in zip(jobs_list, _render_all(jobs_list, jobs), strict=True):
        write(f"{path.stem}.html", html)

    entries = page_entries(infos, run_times)
    environment = _pages_environment()
    site = common | {"prev": None, "next": None, "from_notebook": None}
    write(
        "index.html",
        environment.get_template("index.html.j2").render(
            site=site,
            notebooks=entries,
            missing_summaries=[e["number"] for e in entries if not e["in_roadmap"]],
        ),
    )
    measured = [
        run_times.seconds[i.stem] for i in infos if run_times and i.stem in run_times.seconds
    ]
    if not measured:
        total_run = NOT_MEASURED
    elif len(measured) < len(infos):
        total_run = f"{format_seconds(sum(measured))} (the measured ones)"
    else:
        total_run = format_seconds(sum(measured))
    write(
        "teacher.html",
        environment.get_template("teacher.html.j2").render(
            site=site,
            notebooks=entries,
            words_per_minute=WORDS_PER_MINUTE,
            code_lines_per_minute=CODE_LINES_PER_MINUTE,
            total_read_text=format_minutes(sum(info.read_minutes for info in infos)),
            total_run_text=total_run,
            total_exercises=sum(len(info.exercises) for info in infos),
            run_times_source=run_times_source(run_times, run_times_path, len(measured), len(infos)),
        ),
    )
    size = sum(path.stat().st_size for path in output.rglob("*") if path.is_file())
    return SiteReport(
        output, written, size, time.perf_counter() - start, common["commit"], warnings
    )


def run_times_source(run_times: RunTimes | None, path: Path, measured: int, total: int) -> Markup:
    """The sentence of the teacher's page that says where the run times come from."""
    source = Markup("<code>{}</code>").format(_relative(path))
    if run_times is None:
        return Markup(
            "not measured: {source} does not exist. <code>python -m tools.benchmark "
            "--notebooks</code> writes it."
        ).format(source=source)
    sentence = Markup(
        "the wall time of <code>pytest</code> (strict nbval, in a fresh kernel) on each notebook "
        "alone, measured by <code>{command}</code> on {machine}, on {date}, and stored in "
        "{source}. Timings depend on the machine and its load."
    ).format(
        command=run_times.command, machine=run_times.machine, date=run_times.date, source=source
    )
    if run_times.older_times:
        sentence += Markup(
            " A time followed by a date is older: that notebook failed in the run of {date}, and "
            "its time is the one measured on the date shown."
        ).format(date=run_times.date)
    if measured < total:
        sentence += Markup(
            " It has no time for {n} of the {total} notebooks, which say <em>not measured</em>."
        ).format(n=total - measured, total=total)
    return sentence


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _pages_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES / "pages"), str(TEMPLATES / "site")]),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.docs", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help=f"folder to write the site into (default: {_relative(DEFAULT_OUTPUT)})",
    )
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS, help="folder of the notebooks")
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="notebooks converted at once (default: the CPU count, at most 4)",
    )
    args = parser.parse_args(argv)
    try:
        report = build_site(args.output, args.notebooks, jobs=args.jobs)
    except (ValueError, RuntimeError) as error:
        parser.error(str(error))
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"wrote {len(report.pages)} pages ({report.bytes / 2**20:.1f} MB with MathJax) to "
        f"{report.output} in {report.seconds:.1f} s, from commit {report.commit}; open "
        f"{report.output / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
