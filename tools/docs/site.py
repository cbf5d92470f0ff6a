"""The whole site: every notebook's page, the glossary, the index with the roadmap, the teacher's
guide; ``python -m tools.docs``."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2
import nbconvert

from helpers.paths import CHINESE_FONT_FILE, ROOT, numbered_notebooks
from helpers.paths import NOTEBOOKS_DIR as NOTEBOOKS
from tools.docs.notebooks import (
    NotebookInfo,
    first_sentence,
    notebook_info,
    read_notebook,
    roadmap_summaries,
)
from tools.docs.pages import (
    MATHJAX_CONFIG,
    TEMPLATES,
    _render_all,
    build_commit,
    copy_mathjax,
    lab_css,
    markdown_html,
    mathjax_source,
    rewrite_notebook_links,
    site_exporter,
)
from tools.docs.run_times import (
    NOT_MEASURED,
    NOT_MEASURED_ZH,
    RUN_TIMES,
    RunTimes,
    _relative,
    format_minutes,
    format_seconds,
    load_run_times,
    run_text,
    run_times_source,
)
from tools.reading import CODE_LINES_PER_MINUTE, WORDS_PER_MINUTE

SITE_CSS = ROOT / "docs" / "site.css"
DEFAULT_OUTPUT = ROOT / "build" / "site"
GLOSSARY = "glossary"
SERIES = "Transformer, step by step"
# The Chinese edition of the site: notebooks/zh/ rendered into the site's zh/ folder.
CHINESE = "zh"
SERIES_TITLE = {"en": SERIES, "zh": "Transformer 逐步实现"}
GLOSSARY_TITLE = {"en": "Glossary · 术语表", "zh": "术语表 · Glossary"}

# A file the builder leaves in every site it writes: only such a folder is ever emptied.
MARKER = ".transformer-site"


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


def default_jobs() -> int:
    """Processes converting notebooks at once when not told: the CPU count, at most 4."""
    return min(os.cpu_count() or 1, 4)


def notebook_jobs(
    infos: list[NotebookInfo], glossary_path: Path, common: dict
) -> list[tuple[Path, str, dict]]:
    """(notebook, page title, navigation) for every numbered notebook, then the glossary."""
    series = SERIES_TITLE[common["lang"]]
    jobs_list = []
    for position, info in enumerate(infos):
        site = common | {
            "prev": _neighbour(infos[position - 1] if position > 0 else None),
            "next": _neighbour(infos[position + 1] if position + 1 < len(infos) else None),
            "from_notebook": _relative_notebook(info.path),
            "page": info.page,
        }
        jobs_list.append((info.path, f"{info.number} · {info.title} · {series}", site))
    glossary_site = common | {
        "prev": None,
        "next": None,
        "from_notebook": _relative_notebook(glossary_path),
        "page": f"{GLOSSARY}.html",
    }
    jobs_list.append((glossary_path, f"{GLOSSARY_TITLE[common['lang']]} · {series}", glossary_site))
    return jobs_list


def _relative_notebook(path: Path) -> str:
    """notebooks/zh/03_x.ipynb -> "zh/03_x.ipynb": where the page was made from, for its footer."""
    return path.name if path.parent.name != CHINESE else f"{CHINESE}/{path.name}"


def page_entries(
    infos: list[NotebookInfo], run_times: RunTimes | None, language: str = "en"
) -> list[dict]:
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
                "read_text": format_minutes(info.read_minutes, language),
                "read_all_text": format_minutes(info.read_minutes_all, language),
                "deep_dive_words": info.reading.deep_dive_words,
                "run_text": run_text(run_times, info.stem, language),
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

    The English pages are at the top; the Chinese edition (when ``notebooks_dir/zh`` holds it) in
    ``zh/``, every page with a switch to its counterpart. commit: what the footers say (default:
    build_commit()). jobs: processes converting notebooks at once (default: the CPU count,
    at most 4). Every argument is checked before anything is written.
    """
    start = time.perf_counter()
    jobs = default_jobs() if jobs is None else jobs
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs: expected a positive int, got {jobs!r}")
    output, notebooks_dir, run_times_path = Path(output), Path(notebooks_dir), Path(run_times_path)
    editions = {"en": notebooks_dir}
    if (notebooks_dir / CHINESE).is_dir() and any((notebooks_dir / CHINESE).glob("*.ipynb")):
        editions[CHINESE] = notebooks_dir / CHINESE
    for folder in editions.values():
        numbered_notebooks(folder)  # raises when a folder holds no lesson
        if not (folder / f"{GLOSSARY}.ipynb").is_file():
            raise ValueError(
                f"notebooks: expected the glossary {folder / f'{GLOSSARY}.ipynb'}, found none"
            )
    run_times = load_run_times(run_times_path)
    mathjax = mathjax_source()  # raises if jupyter_server_mathjax is missing: before emptying
    prepare_output(output)
    commit = build_commit() if commit is None else commit
    (output / "lab.css").write_text(lab_css(site_exporter()), encoding="utf-8")
    shutil.copy2(SITE_CSS, output / "site.css")
    (output / "fonts").mkdir()
    for font_file in (CHINESE_FONT_FILE, CHINESE_FONT_FILE.parent / "OFL.txt"):
        shutil.copy2(font_file, output / "fonts" / font_file.name)  # site.css's @font-face
    copy_mathjax(output / "mathjax", mathjax)

    warnings: list[str] = []
    written: list[str] = []
    for language, folder in editions.items():
        other = [lang for lang in editions if lang != language]
        _build_edition(language, folder, output, other[0] if other else None, run_times,
                       run_times_path, commit, jobs, warnings, written)  # fmt: skip
    size = sum(path.stat().st_size for path in output.rglob("*") if path.is_file())
    return SiteReport(output, written, size, time.perf_counter() - start, commit, warnings)


def _build_edition(
    language: str,
    notebooks_dir: Path,
    output: Path,
    other_language: str | None,
    run_times: RunTimes | None,
    run_times_path: Path,
    commit: str,
    jobs: int,
    warnings: list[str],
    written: list[str],
) -> None:
    """The pages of one language: its notebooks, glossary, index and teacher's guide."""
    folder = output if language == "en" else output / language
    folder.mkdir(exist_ok=True)
    root = "" if language == "en" else "../"  # where the shared CSS and MathJax are
    if other_language is None:
        switch = None
    elif language == "en":
        switch = {"prefix": f"{other_language}/", "lang": other_language}
    else:
        switch = {"prefix": "../", "lang": "en"}
    infos = [notebook_info(path) for path in numbered_notebooks(notebooks_dir)]
    glossary_path = notebooks_dir / f"{GLOSSARY}.ipynb"
    common = {
        "commit": commit,
        "nbconvert_version": nbconvert.__version__,
        "mathjax_url": f"{root}mathjax/MathJax.js?config={MATHJAX_CONFIG}",
        "root": root,
        "lang": language,
        "switch": switch,
    }
    pages = {info.stem: info.page for info in infos} | {GLOSSARY: f"{GLOSSARY}.html"}
    prefix = "" if language == "en" else f"{language}/"

    def write(name: str, html: str) -> None:
        html, unknown = rewrite_notebook_links(html, pages)
        warnings.extend(
            f"{prefix}{name}: link to {target}, which has no page" for target in unknown
        )
        (folder / name).write_text(html, encoding="utf-8")
        written.append(prefix + name)

    jobs_list = notebook_jobs(infos, glossary_path, common)
    for (path, _, _), html in zip(jobs_list, _render_all(jobs_list, jobs), strict=True):
        write(f"{path.stem}.html", html)

    entries = page_entries(infos, run_times, language)
    environment = _pages_environment()
    site = common | {"prev": None, "next": None, "from_notebook": None}
    suffix = "" if language == "en" else f".{language}"
    write(
        "index.html",
        environment.get_template(f"index{suffix}.html.j2").render(
            site=site | {"page": "index.html"},
            notebooks=entries,
            missing_summaries=[e["number"] for e in entries if not e["in_roadmap"]],
        ),
    )
    measured = [
        run_times.seconds[i.stem] for i in infos if run_times and i.stem in run_times.seconds
    ]
    if not measured:
        total_run = NOT_MEASURED_ZH if language == "zh" else NOT_MEASURED
    elif len(measured) < len(infos):
        total_run = format_seconds(sum(measured), language) + (
            "（已测量的部分）" if language == "zh" else " (the measured ones)"
        )
    else:
        total_run = format_seconds(sum(measured), language)
    write(
        "teacher.html",
        environment.get_template(f"teacher{suffix}.html.j2").render(
            site=site | {"page": "teacher.html"},
            notebooks=entries,
            words_per_minute=WORDS_PER_MINUTE,
            code_lines_per_minute=CODE_LINES_PER_MINUTE,
            total_read_text=format_minutes(sum(info.read_minutes for info in infos), language),
            total_run_text=total_run,
            total_exercises=sum(len(info.exercises) for info in infos),
            run_times_source=run_times_source(
                run_times, run_times_path, len(measured), len(infos), language
            ),
        ),
    )


def _pages_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES / "pages"), str(TEMPLATES / "site")]),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.docs", description="Build the series as an offline static website."
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
