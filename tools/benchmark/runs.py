"""The test suite and each notebook run as a child process: wall time and peak memory of the
process tree, and the record of notebook run times the website shows."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.paths import ROOT, numbered_notebooks

if TYPE_CHECKING:
    from tools.docs import RunTimes


RUN_TIMES = ROOT / "docs" / "notebook_run_times.json"


# ---------------------------------------------------------------- process trees


def _children_by_parent() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        # The command name (field 2) is in parentheses and may contain spaces: split after it.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def process_tree(root: int) -> list[int]:
    """root and all its descendants that are alive now (Linux /proc)."""
    children = _children_by_parent()
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def _kib_field(path: Path, field: str) -> int:
    """A "Field:   1234 kB" line of a /proc file, in bytes; 0 if the process is gone."""
    try:
        for line in path.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_memory(root: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes summed over the process tree of root.

    RSS counts a page shared by several processes (the torch library, loaded by every pytest
    worker and kernel) once per process; PSS splits it between them, so the PSS sum is the
    memory the tree really occupies. PSS is 0 where /proc/PID/smaps_rollup cannot be read.
    """
    rss = pss = 0
    for pid in process_tree(root):
        rss += _kib_field(Path(f"/proc/{pid}/status"), "VmRSS")
        pss += _kib_field(Path(f"/proc/{pid}/smaps_rollup"), "Pss")
    return rss, pss


@dataclass(frozen=True)
class RunResult:
    """A command's exit status, wall time and peak memory summed over its process tree."""

    command: str
    returncode: int
    seconds: float
    peak_rss: int
    peak_pss: int

    @property
    def peak_bytes(self) -> int:
        """The memory the goal is checked against: PSS where available, else RSS."""
        return self.peak_pss or self.peak_rss


def run_and_measure(
    command: Sequence[str], cwd: Path = ROOT, poll_seconds: float = 0.2
) -> RunResult:
    """Run command, polling the memory of its process tree, and return its time and peaks."""
    if not Path("/proc/self/status").exists():
        raise RuntimeError("measuring a process tree's memory needs Linux /proc")
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peaks = [0, 0]
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            rss, pss = tree_memory(process.pid)
            peaks[0], peaks[1] = max(peaks[0], rss), max(peaks[1], pss)
            done.wait(poll_seconds)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    returncode = process.wait()
    seconds = time.perf_counter() - start
    done.set()
    poller.join()
    return RunResult(" ".join(command), returncode, seconds, peaks[0], peaks[1])


def bench_suite() -> RunResult:
    """The whole test suite as `make test` runs it (after setup)."""
    return run_and_measure([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadscope"])


def notebook_paths() -> list[Path]:
    """The numbered notebooks of the series, in order."""
    return numbered_notebooks()


def bench_notebooks(paths: Sequence[Path] | None = None) -> list[RunResult]:
    """Each notebook alone under strict nbval."""
    paths = notebook_paths() if paths is None else list(paths)
    return [
        run_and_measure([sys.executable, "-m", "pytest", "-q", str(path.relative_to(ROOT))])
        for path in paths
    ]


def run_times_record(
    command: str,
    info: dict[str, str],
    paths: Sequence[Path],
    results: Sequence[RunResult],
    date: datetime.date | None = None,
    previous: RunTimes | None = None,
) -> dict:
    """What docs/notebook_run_times.json holds after this run, merged with what it held before.

    {"command": ..., "machine": ..., "date": "YYYY-MM-DD", "seconds": {"00_overview": 5.2, ...}},
    command, machine and date being this run's. A notebook that passed gets this run's time. One
    that failed keeps its time in previous (the record before this run, if it has one): a failed
    run's time says nothing about a working notebook. Such older times are listed, with the date
    they were measured on, in "older_times": {"11_training": "2026-11-23"}, a key present only
    when there are some. A failed notebook without an earlier time is left out, and the teacher's
    page shows it as "not measured"; so are notebooks of previous that are not in paths.
    """
    if len(paths) != len(results):
        raise ValueError(
            f"paths, results: expected one result per notebook, got {len(paths)} paths and "
            f"{len(results)} results"
        )
    date = datetime.date.today() if date is None else date
    seconds: dict[str, float] = {}
    older_times: dict[str, str] = {}
    for path, result in zip(paths, results, strict=True):
        stem = Path(path).stem
        if result.returncode == 0:
            seconds[stem] = round(result.seconds, 1)
        elif previous is not None and stem in previous.seconds:
            seconds[stem] = previous.seconds[stem]
            older_times[stem] = previous.older_times.get(stem, previous.date)
    record = {
        "command": command,
        # The notebooks' kernels set their own thread count: the benchmark's is beside the point.
        "machine": ", ".join(f"{k} {v}" for k, v in info.items() if k != "torch threads"),
        "date": date.isoformat(),
        "seconds": seconds,
    }
    if older_times:
        record["older_times"] = older_times
    return record


def write_run_times(record: dict, path: Path | None = None) -> Path:
    """Write the record as JSON, by default to docs/notebook_run_times.json; returns the path."""
    path = RUN_TIMES if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
