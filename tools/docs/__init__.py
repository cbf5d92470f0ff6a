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

The package, by concern: ``notebooks`` (what the site reads from a notebook), ``run_times`` (the
measured run times), ``pages`` (one notebook as a page: nbconvert, MathJax, links, deep dives
folded, an explorer's live controls replaced by a note saying to run the notebook) and ``site``
(the whole site, the index and the teacher's guide, the command).
"""

from tools.docs.notebooks import (
    Exercise,
    NotebookInfo,
    find_exercises,
    notebook_info,
    paper_sections,
    read_notebook,
    roadmap_summaries,
    title_and_intro,
)
from tools.docs.pages import (
    WIDGET_NOTE,
    build_commit,
    copy_mathjax,
    mark_deep_dives,
    markdown_html,
    mathjax_source,
    render_notebook,
    replace_widget_outputs,
    rewrite_notebook_links,
)
from tools.docs.run_times import (
    NOT_MEASURED,
    RUN_TIMES,
    RunTimes,
    format_minutes,
    format_seconds,
    load_run_times,
    run_text,
)
from tools.docs.site import (
    DEFAULT_OUTPUT,
    GLOSSARY,
    MARKER,
    NOTEBOOKS,
    SITE_CSS,
    SiteReport,
    build_site,
    main,
    numbered_notebooks,
    prepare_output,
)

__all__ = [
    "DEFAULT_OUTPUT",
    "GLOSSARY",
    "MARKER",
    "NOTEBOOKS",
    "NOT_MEASURED",
    "RUN_TIMES",
    "SITE_CSS",
    "WIDGET_NOTE",
    "Exercise",
    "NotebookInfo",
    "RunTimes",
    "SiteReport",
    "build_commit",
    "build_site",
    "copy_mathjax",
    "find_exercises",
    "mark_deep_dives",
    "format_minutes",
    "format_seconds",
    "load_run_times",
    "main",
    "markdown_html",
    "mathjax_source",
    "notebook_info",
    "numbered_notebooks",
    "paper_sections",
    "prepare_output",
    "read_notebook",
    "render_notebook",
    "replace_widget_outputs",
    "rewrite_notebook_links",
    "roadmap_summaries",
    "run_text",
    "title_and_intro",
]
