"""The order in which `make test`'s two workers take the test files: longest first.

pytest-xdist's ``--dist loadscope`` hands out one file (one notebook, one test module) at a time,
by default those with the most tests first. The time goes elsewhere: notebook 15 alone takes
longer than most of the unit tests together. If a long notebook starts last, one worker runs it
alone while the other has nothing left to do. Starting the longest files first (each notebook's
time from docs/notebook_run_times.json, both editions; the slow test modules below) leaves the
many short files to even out the end. The test modules that parse the German-English dictionary
go to one worker as one unit, so that it is parsed once (``DICTIONARY_READERS``). The order
changes when things run, never what runs.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import PurePosixPath

from xdist.scheduler.loadscope import LoadScopeScheduling

from helpers.paths import ROOT

RUN_TIMES = ROOT / "docs" / "notebook_run_times.json"

# Test modules that take more than a few seconds: each module's total of `make test --durations=0`
# on an idle 2-core CPU (2026-11-28), so comparable with the notebooks' times; every other module
# counts as short.
SLOW_TEST_MODULES = {
    "test_train_command.py": 27.0,  # real training runs, two ranks, a killed and resumed run
    "test_docs.py": 21.0,  # builds the website of every notebook, both languages
    "test_bpe.py": 17.0,  # against Hugging Face's tokenizers on the dictionary
    "test_dictionary.py": 10.0,  # parses the dictionary (about 4 s, then cached in the process)
    "test_student.py": 8.0,
    "test_benchmark.py": 8.0,
    "test_chinese_edition.py": 7.0,
    "test_explore.py": 6.0,
    "test_chinese_font.py": 6.0,
    "test_kernel_fork.py": 6.0,
    "test_kernel_start.py": 5.0,
    "test_helpers_messages.py": 4.5,
    "test_corpus.py": 4.0,
    "test_translation_as_lm.py": 4.0,
}
# Modules whose tests parse the dictionary in the test process: handed out as one unit, named after
# the first.
DICTIONARY_READERS = (
    "tests/test_dictionary.py",
    "tests/test_bpe.py",
    "tests/test_train_command.py",
)


def work_unit(scope: str) -> str:
    """The unit a loadscope scope is handed out in: itself, or the dictionary readers' one."""
    return DICTIONARY_READERS[0] if scope.split("::", 1)[0] in DICTIONARY_READERS else scope


def notebook_seconds() -> dict[str, float]:
    """Each notebook's measured seconds by its stem ("15_real_german"); {} without the file."""
    try:
        return dict(json.loads(RUN_TIMES.read_text(encoding="utf-8"))["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def expected_seconds(scope: str, notebooks: dict[str, float]) -> float:
    """What one work unit of loadscope (a file, or a class of a test module) is expected to take."""
    if scope == DICTIONARY_READERS[0]:
        return sum(SLOW_TEST_MODULES[PurePosixPath(module).name] for module in DICTIONARY_READERS)
    path = PurePosixPath(scope.split("::", 1)[0])
    if path.suffix == ".ipynb":
        return notebooks.get(path.stem, 0.0)
    return SLOW_TEST_MODULES.get(path.name, 0.0)


def longest_first(scopes: list[str], notebooks: dict[str, float]) -> list[str]:
    """The scopes by expected time, longest first; a stable sort keeps xdist's order for ties."""
    return sorted(scopes, key=lambda scope: -expected_seconds(scope, notebooks))


class LongestFirstScheduling(LoadScopeScheduling):
    """loadscope, with the work queue ordered longest first before the first unit is handed out."""

    _ordered = False

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(super()._split_scope(nodeid))

    def _assign_work_unit(self, node) -> None:
        if not self._ordered:
            notebooks = notebook_seconds()
            order = longest_first(list(self.workqueue), notebooks)
            self.workqueue = OrderedDict((scope, self.workqueue[scope]) for scope in order)
            self._ordered = True
        super()._assign_work_unit(node)
