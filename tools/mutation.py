"""Mutation testing of the model, decoding and training modules: ``make mutation``.

mutmut changes one operator, constant or call at a time in the modules below (a *mutant*) and runs
the tests that reach the changed function; a mutant the tests still pass is one they cannot tell
from the real code. The score is the share of mutants killed.

mutmut works in a ``mutants/`` folder of the directory it runs in, so this command copies the
tracked files into ``build/mutation/`` and runs there: the checkout is never modified, and a second
run reuses the results of the first for functions that did not change. Slow (tens of minutes on two
cores), so not part of ``make test``.

    python -m tools.mutation                 # every module below
    python -m tools.mutation --module masks  # one module (its file name without .py)
    python -m tools.mutation --survivors     # judge again only the mutants that survived the
                                             # last run (after tests were added)
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from helpers.paths import ROOT

# What is mutated, and the tests that stand guard over it.
MODULES = {
    "helpers/model/attention.py": ["tests/test_attention.py"],
    "helpers/model/masks.py": ["tests/test_masks.py"],
    "helpers/model/embeddings.py": ["tests/test_embeddings.py"],
    "helpers/model/multi_head_attention.py": ["tests/test_multi_head_attention.py"],
    "helpers/model/feed_forward.py": ["tests/test_feed_forward.py"],
    "helpers/model/sublayers.py": ["tests/test_sublayers.py"],
    "helpers/model/encoder.py": ["tests/test_encoder.py"],
    "helpers/model/decoder.py": ["tests/test_decoder.py"],
    "helpers/model/kv_cache.py": ["tests/test_kv_cache.py", "tests/test_decoder.py"],
    "helpers/model/transformer.py": ["tests/test_transformer.py", "tests/test_torch_reference.py"],
    "helpers/decoding/search.py": ["tests/test_decoding.py"],
    "helpers/training/transformer.py": ["tests/test_training.py"],
    "helpers/checkpoints.py": ["tests/test_checkpoints.py"],
}
# Tests that check a property across the model (causality, cache == no cache, ...) guard every module.
SHARED_TESTS = ["tests/test_properties.py"]
WORK_DIR = ROOT / "build" / "mutation"
LOG_FILE = ROOT / "build" / "mutation.log"


def mutmut_config(modules: list[str]) -> str:
    """The ``[tool.mutmut]`` table for the copy's pyproject.toml."""
    tests = sorted({test for module in modules for test in MODULES[module]} | set(SHARED_TESTS))
    settings = {
        "source_paths": ["helpers"],
        "only_mutate": modules,
        "also_copy": ["helpers/", "tools/", "conftest.py", "nbval_sanitize.cfg", "checkpoints/"],
        # The project's addopts turn on nbval; mutants are judged by the unit tests, one process.
        "pytest_add_cli_args": ["-o", "addopts=-p no:cacheprovider", "-p", "no:xdist"],
        "pytest_add_cli_args_test_selection": tests,
        # Each mutant runs in a fork of mutmut; torch keeps one thread there.
        "process_isolation": "fork",
    }
    lines = ["", "[tool.mutmut]"] + [
        f"{key} = {json.dumps(value)}" for key, value in settings.items()
    ]
    return "\n".join(lines) + "\n"


def copy_checkout(destination: Path) -> None:
    """The tracked files (as they are in the working tree) into ``destination``, replacing them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, destination / name
        if name.startswith("notebooks/") or not source.is_file():
            continue  # the lessons are not needed to judge a mutant
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def freeze_messages(source: str) -> str:
    """``source`` with the string literal of every ``tr("...")`` call written as an f-string of
    the same value (braces doubled): mutmut mutates plain literals only."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "tr"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            literal = node.args[0]
            spans.append((literal.lineno, literal.col_offset, literal.end_lineno,
                          literal.end_col_offset, literal.value))  # fmt: skip
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode()))
    data = source.encode()
    for line, column, end_line, end_column, value in sorted(spans, reverse=True):
        start, end = starts[line - 1] + column, starts[end_line - 1] + end_column  # byte offsets
        frozen = "f" + repr(value.replace("{", "{{").replace("}", "}}"))
        data = data[:start] + frozen.encode() + data[end:]
    return data.decode()


RESULT_LINE = re.compile(r"^\s*(?P<name>helpers\.\S+?)__mutmut_\d+: (?P<status>.+)$")


def statuses(results: str) -> dict[str, Counter]:
    """`mutmut results --all true` as {module: Counter(status)}; a mutant's function is dropped."""
    by_module: dict[str, Counter] = {}
    for line in results.splitlines():
        match = RESULT_LINE.match(line)
        if match:
            module = re.sub(r"\.x\S*$", "", match["name"].split("__mutmut")[0])
            by_module.setdefault(module, Counter())[match["status"].strip()] += 1
    return by_module


def survivor_names(results: str) -> list[str]:
    """The mutants `mutmut results` lists as alive: survived, or reached by no test (a function
    added since mutmut last mapped the tests to the functions they call)."""
    return [
        line.split(":")[0].strip()
        for line in results.splitlines()
        if line.endswith((": survived", ": no tests"))
    ]


def tally(counts: Counter) -> tuple[int, int, int]:
    """(killed, alive, not judged). A timeout or a crash is a kill; a mutant that no test reaches,
    or whose verdict is suspicious, counts as alive."""
    killed = counts["killed"] + counts["timeout"] + counts["segfault"]
    alive = counts["survived"] + counts["no tests"] + counts["suspicious"]
    return killed, alive, sum(counts.values()) - killed - alive


def module_table(by_module: dict[str, Counter]) -> str:
    """Killed / judged per module and in all, as markdown."""
    lines = ["| module | killed | survived | not judged | score |", "|---|---:|---:|---:|---:|"]
    rows = sorted(by_module.items()) + [("all", sum(by_module.values(), Counter()))]
    for module, counts in rows:
        killed, alive, rest = tally(counts)
        percent = f"{100 * killed / (killed + alive):.1f}%" if killed + alive else "-"
        lines.append(f"| {module} | {killed} | {alive} | {rest} | {percent} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--module",
        action="append",
        choices=sorted(Path(m).stem for m in MODULES),
        help="mutate only this module (repeatable); default: all",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel workers")
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="judge again only the mutants left alive by the last run (after adding tests)",
    )
    args = parser.parse_args(argv)
    modules = [m for m in MODULES if not args.module or Path(m).stem in args.module]

    WORK_DIR.mkdir(parents=True, exist_ok=True)
    copy_checkout(WORK_DIR)
    for module in modules:
        path = WORK_DIR / module
        path.write_text(freeze_messages(path.read_text(encoding="utf-8")), encoding="utf-8")
    pyproject = WORK_DIR / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + mutmut_config(modules))

    # The copy's mutants/ folder is on PYTHONPATH: it must exist before Python starts, or the
    # import system caches it as missing and the tests cannot import its conftest or helpers.
    (WORK_DIR / "mutants").mkdir(exist_ok=True)
    mutmut = Path(sys.executable).with_name("mutmut")
    # One torch thread per worker; the copy's helpers, not the editable install's, are imported.
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = str(WORK_DIR / "mutants")
    print(
        f"mutating {len(modules)} modules in {WORK_DIR.relative_to(ROOT)} "
        f"(progress: {LOG_FILE.relative_to(ROOT)})",
        flush=True,
    )

    def results() -> str:
        listed = [mutmut, "results", "--all", "true"]
        return subprocess.run(listed, cwd=WORK_DIR, env=env, capture_output=True, text=True).stdout

    names = survivor_names(results()) if args.survivors else []
    if args.survivors and not names:
        print("no surviving mutants recorded: run without --survivors first", file=sys.stderr)
        return 1
    if args.survivors:
        # Map the tests to the functions they call again: tests were added, functions too.
        (WORK_DIR / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    with LOG_FILE.open("w") as log:
        run = subprocess.run(
            [mutmut, "run", "--max-children", str(args.jobs), *names],
            cwd=WORK_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if run.returncode != 0:
        print(
            f"mutmut run failed with exit code {run.returncode}: see {LOG_FILE.relative_to(ROOT)}",
            file=sys.stderr,
        )
        return run.returncode
    print("\n" + module_table(statuses(results())))
    print(f"surviving mutants: cd {WORK_DIR.relative_to(ROOT)} && {mutmut} results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
