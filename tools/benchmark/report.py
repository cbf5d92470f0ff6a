"""The results as markdown tables, with the machine they were measured on."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from tools.benchmark.measure import (
    SUITE_BYTES_GOAL,
    SUITE_SECONDS_GOAL,
    BenchConfig,
    notebook_seconds_goal,
)
from tools.benchmark.model import Comparison
from tools.benchmark.runs import RunResult

# ---------------------------------------------------------------- reporting


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub markdown table."""
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"rows: expected {len(header)} cells per row like the header")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_info() -> dict[str, str]:
    """What the timings depend on: CPU, cores, threads, versions and the load when they began."""
    try:
        load = Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        load = "unknown"
    return {
        "CPU": _cpu_model(),
        "cores": str(os.cpu_count()),
        "torch threads": str(torch.get_num_threads()),
        "torch": torch.__version__,
        "Python": platform.python_version(),
        "load average (1 min) at start": load,
    }


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def _yes(ok: bool) -> str:
    return "yes" if ok else "**no**"


def comparisons_table(comparisons: Sequence[Comparison]) -> str:
    rows = [
        [
            c.measurement,
            c.config,
            f"{c.first}: {_milliseconds(c.first_seconds)}",
            f"{c.second}: {_milliseconds(c.second_seconds)}",
            f"{c.ratio:.2f}x",
            "-" if c.goal is None else f">= {c.goal:.1f}x",
            "-" if c.met is None else _yes(c.met),
        ]
        for c in comparisons
    ]
    header = ["measurement", "config", "A (median)", "B (median)", "speed A / B", "goal", "met"]
    return markdown_table(header, rows)


def runs_table(suite: RunResult | None, notebooks: Sequence[tuple[Path, RunResult]]) -> str:
    """The table of the suite's run (if any) and of each (notebook path, its run)."""
    rows = []
    for result, seconds_goal, bytes_goal in [(suite, SUITE_SECONDS_GOAL, SUITE_BYTES_GOAL)] + [
        (notebook, notebook_seconds_goal(path), None) for path, notebook in notebooks
    ]:
        if result is None:
            continue
        ok = result.returncode == 0 and result.seconds <= seconds_goal
        goal = f"<= {seconds_goal:.0f} s"
        if bytes_goal is not None:
            ok = ok and result.peak_bytes <= bytes_goal
            goal += f", <= {bytes_goal / 1024**3:.0f} GB"
        rows.append(
            [
                f"`{result.command.replace(sys.executable, 'python')}`",
                "passed" if result.returncode == 0 else f"**failed ({result.returncode})**",
                f"{result.seconds:.1f} s",
                f"{result.peak_pss / 1024**2:,.0f} MB" if result.peak_pss else "n/a",
                f"{result.peak_rss / 1024**2:,.0f} MB",
                goal,
                _yes(ok),
            ]
        )
    header = ["command", "result", "wall time", "peak PSS (tree)", "peak RSS (tree)", "goal", "met"]
    return markdown_table(header, rows)


def report(
    command: str,
    info: dict[str, str],
    configs: Sequence[BenchConfig],
    comparisons: Sequence[Comparison],
    suite: RunResult | None = None,
    notebooks: Sequence[tuple[Path, RunResult]] = (),
) -> str:
    """The markdown block to paste into the README; notebooks: (notebook path, its run)."""
    lines = [
        "### Benchmark",
        "",
        f"Produced by `{command}` on: "
        + "; ".join(f"{key} {value}" for key, value in info.items())
        + ".",
        "",
        "Configs: " + " / ".join(config.describe() for config in configs) + ".",
        "",
        comparisons_table(comparisons),
        "",
        "Training: same weights and dropout 0.1 on both sides, train mode; A / B > 1 means ours "
        "does more steps per second. Decoding: an untrained model whose </s> logit is fixed at 0, "
        "so every row runs all the steps; both ways give identical tokens (asserted); one sentence "
        "on the small model is overhead-bound and shown without a goal. BPE: the corpus' German and "
        "English training sentences (834 distinct words) and, where trans-de-en is installed, the "
        "phrases of every 40th dictionary entry (tens of thousands of distinct words); both sides "
        "learn the same merges and give the same pieces (asserted); tokenizers is Rust on every "
        "core, ours pure Python. Each time is the median of "
        "alternating rounds in one process.",
    ]
    if suite is not None or notebooks:
        lines += [
            "",
            runs_table(suite, notebooks),
            "",
            "Peak memory is summed over the process tree (pytest, its workers, the notebook "
            "kernels), polled every 0.2 s; PSS counts shared pages once, RSS once per process. "
            "The memory goal is checked on PSS.",
        ]
    return "\n".join(lines)


# ---------------------------------------------------------------- the README's notebook table

README_TABLE_START = (
    "<!-- notebook run times: written by `python -m tools.benchmark --notebooks` -->"
)
README_TABLE_END = "<!-- end of notebook run times -->"


def run_times_markdown(record: dict) -> str:
    """The README's table of docs/notebook_run_times.json: each notebook's time against its goal."""
    older = record.get("older_times", {})
    rows = [
        [
            f"`{stem}`",
            f"{seconds:.1f} s" + (f" (from {older[stem]})" if stem in older else ""),
            f"<= {notebook_seconds_goal(stem):.0f} s",
            _yes(seconds <= notebook_seconds_goal(stem)),
        ]
        for stem, seconds in record["seconds"].items()
    ]
    return (
        f"Measured by `{record['command']}` on {record['date']} ({record['machine']}): each "
        "notebook alone under strict nbval.\n\n"
        + markdown_table(["notebook", "wall time", "goal", "met"], rows)
    )


def write_readme_table(record: dict, readme: Path) -> None:
    """Replace the README's notebook table (between its two marker comments) with the record's."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(README_TABLE_START), text.find(README_TABLE_END)
    if start < 0 or end < start:
        raise ValueError(
            f"readme: expected the markers {README_TABLE_START!r} and {README_TABLE_END!r} in "
            f"{readme}, in that order"
        )
    table = run_times_markdown(record)
    text = f"{text[: start + len(README_TABLE_START)]}\n{table}\n{text[end:]}"
    readme.write_text(text, encoding="utf-8")
