"""``python -m tools.benchmark``: what to run, and the report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from helpers.data.corpus import load_corpus
from helpers.paths import ROOT
from tools.benchmark.bpe import DICTIONARY, bench_bpe, dictionary_phrases
from tools.benchmark.explorers import bench_explorers, explorers_table, missed_explorer_goals
from tools.benchmark.measure import BASE, SMALL
from tools.benchmark.model import (
    bench_beam_search,
    bench_decoding,
    bench_generation,
    bench_training,
    decoding_cases,
    profile_training,
)
from tools.benchmark.report import machine_info, report, runs_table, write_readme_table
from tools.benchmark.runs import (
    RUN_TIMES,
    RunResult,
    bench_notebooks,
    bench_suite,
    notebook_paths,
    run_times_record,
    write_run_times,
)

if TYPE_CHECKING:
    from tools.docs import RunTimes

README = ROOT / "README.md"  # its notebook table is rewritten with each --notebooks run


def _previous_run_times(path: Path) -> RunTimes | None:
    """The record in path before this run; None (with a warning) if there is none or it is bad."""
    from tools.docs import load_run_times  # imports nbconvert: only when needed

    try:
        return load_run_times(path)
    except ValueError as error:
        print(f"warning: earlier run times not kept: {error}", file=sys.stderr)
        return None


def _save_run_times(
    command: str, info: dict[str, str], paths: Sequence[Path], results: Sequence[RunResult]
) -> Path | None:
    """Merge this run's notebook times into RUN_TIMES and say what was written and kept.

    Nothing is written when no notebook passed. Returns the path written, or None.
    """
    path = RUN_TIMES
    failed = [Path(p).stem for p, r in zip(paths, results, strict=True) if r.returncode != 0]
    if len(failed) == len(results):
        print(
            f"notebook run times not written: no notebook passed; {path} is left as it was",
            file=sys.stderr,
        )
        return None
    record = run_times_record(command, info, paths, results, previous=_previous_run_times(path))
    written = write_run_times(record, path)
    write_readme_table(record, README)
    older = record.get("older_times", {})
    notes = []
    if older:
        notes.append(
            "kept the earlier time of the notebooks that failed: "
            + ", ".join(f"{stem} (from {date})" for stem, date in older.items())
        )
    if missing := [stem for stem in failed if stem not in older]:
        notes.append(f"left out, because they failed and had no earlier time: {', '.join(missing)}")
    print(
        f"notebook run times written to {written}" + "".join(f"; {note}" for note in notes),
        file=sys.stderr,
    )
    return written


def time_notebooks_only(command: str, info: dict[str, str]) -> int:
    """--notebooks: each notebook alone under nbval, a table, and docs/notebook_run_times.json."""
    print("timing each notebook alone under nbval ...", file=sys.stderr, flush=True)
    paths = notebook_paths()
    results = bench_notebooks(paths)
    _save_run_times(command, info, paths, results)
    print(
        f"Produced by `{command}` on: "
        + "; ".join(f"{key} {value}" for key, value in info.items())
        + ".\n\n"
        + runs_table(None, list(zip(paths, results, strict=True)))
    )
    return 0 if all(result.returncode == 0 for result in results) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.benchmark",
        description="How fast is the from-scratch model, and how long does the test suite take?",
    )
    parser.add_argument("--quick", action="store_true", help="small config only, fewer rounds")
    parser.add_argument(
        "--suite", action="store_true", help="also time the test suite and each notebook (minutes)"
    )
    parser.add_argument(
        "--notebooks",
        action="store_true",
        help="only time each notebook under nbval and write docs/notebook_run_times.json "
        "(no other option applies)",
    )
    parser.add_argument("--profile", action="store_true", help="profile one training step")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per comparison")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    args = parser.parse_args(argv)
    if args.notebooks:
        # --notebooks only runs the notebooks (in their own kernels, with their own threads):
        # any other option would be silently ignored.
        ignored = [
            option
            for option, given in (
                ("--quick", args.quick),
                ("--suite", args.suite),
                ("--profile", args.profile),
                ("--rounds", args.rounds is not None),
                ("--threads", args.threads is not None),
            )
            if given
        ]
        if ignored:
            parser.error(
                f"--notebooks cannot be combined with {', '.join(ignored)}: it only times each "
                "notebook and would ignore every other option (--suite without --notebooks times "
                "the notebooks along with everything else)"
            )
    if args.threads is not None:
        if args.threads < 1:
            parser.error(f"--threads: expected a positive int, got {args.threads}")
        torch.set_num_threads(args.threads)
    command = "python -m tools.benchmark" + "".join(
        f" {arg}" for arg in (argv if argv is not None else sys.argv[1:])
    )
    info = machine_info()
    if args.notebooks:
        return time_notebooks_only(command, info)
    configs = [SMALL] if args.quick else [SMALL, BASE]
    rounds = args.rounds or (3 if args.quick else 7)
    comparisons = []
    for config in configs:
        print(f"timing training steps, {config.name} config ...", file=sys.stderr, flush=True)
        comparisons.append(bench_training(config, rounds))
    print("timing beam search, one batch / one sentence at a time ...", file=sys.stderr, flush=True)
    comparisons.append(bench_beam_search(min(rounds, 3), sentences=8 if args.quick else 32))
    print("timing byte-pair encoding, ours / tokenizers ...", file=sys.stderr, flush=True)
    corpus = [
        sentence
        for pair in load_corpus("train")[: 5_000 if args.quick else None]
        for sentence in pair
    ]
    comparisons.extend(bench_bpe(min(rounds, 3), corpus, "series' corpus"))
    if DICTIONARY.exists() and not args.quick:
        print("timing byte-pair encoding on the dictionary ...", file=sys.stderr, flush=True)
        comparisons.extend(
            bench_bpe(min(rounds, 3), dictionary_phrases(0), "dictionary 1/40", 1500)
        )
    for config, goal in decoding_cases(quick=args.quick):
        print(f"timing greedy decoding, {config.name} config ...", file=sys.stderr, flush=True)
        # Decoding the base model without a cache takes seconds per call: fewer rounds.
        config_rounds = rounds if config.name == SMALL.name else min(rounds, 3)
        comparisons.append(bench_decoding(config, config_rounds, goal=goal))
    print("timing GPT generation, notebook 16 ...", file=sys.stderr, flush=True)
    comparisons.append(bench_generation(rounds, steps=24 if args.quick else 48))
    suite, notebooks = None, []
    if args.suite:
        print("timing the test suite (minutes) ...", file=sys.stderr, flush=True)
        suite = bench_suite()
        print("timing each notebook alone under nbval ...", file=sys.stderr, flush=True)
        paths = notebook_paths()
        results = bench_notebooks(paths)
        _save_run_times(command, info, paths, results)
        notebooks = list(zip(paths, results, strict=True))
    print("timing the explorers' updates ...", file=sys.stderr, flush=True)
    explorer_timings = bench_explorers(rounds)
    print(report(command, info, configs, comparisons, suite, notebooks))
    print("\n" + explorers_table(explorer_timings))
    if args.profile:
        print("\n" + profile_training(SMALL))
    for line in missed_explorer_goals(explorer_timings):
        print(line, file=sys.stderr)
    if any(comparison.met is False for comparison in comparisons):
        print(
            "\nA goal was missed: run with --profile to see where the time goes.", file=sys.stderr
        )
    return 0
