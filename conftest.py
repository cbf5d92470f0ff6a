"""Test-session wiring that must hold wherever pytest is started from.

- strict nbval gets the project's sanitize file by absolute path;
- kernels started by nbval inherit a fixed hash seed (set ordering, dict-of-set printing);
- unit tests draw figures without a display;
- a notebook's kernel that dies before it answers its first message is started once more (no cell
  has run yet, so nothing is hidden; a second death fails as before);
- on Linux, each worker's notebook kernels are forks of one process that has imported ipykernel,
  torch and matplotlib (``tools/kernel_fork.py``): about 2.5 s less per notebook, each kernel still
  a new process that runs every cell; ``TRANSFORMER_FORKED_KERNELS=0`` starts them as usual;
- jupyter_client's idle waits at each kernel's start (0.2 s) and end (up to 0.1 s) are left out
  (``tools.kernel_start.PromptKernelManager``);
- under ``--dist loadscope`` (``make test``), the longest notebooks and test files start first
  (``tools.test_schedule``), so that no worker is left alone with a long notebook at the end;
- a pytest-xdist worker, once it has sent its results and run its exit handlers, ends without
  Python's teardown of every object it made (1 to 3 s the session would wait for: torch, the
  parsed dictionary);
- what reads the German-English dictionary (notebook 15 in both editions, and every test marked
  ``dictionary``) is skipped, with one reason that says how to get it on this system, where the
  dictionary is missing, and where it is another version than the one notebook 15's stored
  outputs were made from (helpers.data.dictionary). Nothing else is optional: the Chinese
  edition's font comes with the repository (helpers/display/fonts/).
"""

import atexit
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SANITIZE_FILE = ROOT / "nbval_sanitize.cfg"

# nbval reads notebooks with nbformat, which imports jsonschema, which imports rfc3987_syntax where
# it is installed (jupyterlab needs it): 1.8 s of compiling grammars for the "iri" formats, which no
# schema checked here uses. Marked absent before nbval is loaded (pyproject.toml: -p no:nbval),
# jsonschema goes without that check.
sys.modules.setdefault("rfc3987_syntax", None)
pytest_plugins = ["nbval.plugin"]


def exit_without_teardown() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# Registered as the worker starts, so it runs after the exit handlers registered later (the kernel
# zygote's, temporary folders'). A worker's results have reached the controller (pytest-xdist's
# messages; its exit status is not read) before Python runs its exit handlers.
if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(exit_without_teardown)

# Kernels are child processes: whatever is in os.environ now is what they see.
os.environ["PYTHONHASHSEED"] = "0"
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")


def pytest_configure(config):
    if getattr(config.option, "nbval_sanitize_with", None) is None and hasattr(
        config.option, "nbval_sanitize_with"
    ):
        config.option.nbval_sanitize_with = str(SANITIZE_FILE)
    import nbval.kernel

    from tools.kernel_start import (
        PromptKernelManager,
        forked_kernels_wanted,
        forking_kernelspec_manager,
        start_kernel_retrying_once,
    )

    nbval.kernel.start_new_kernel = start_kernel_retrying_once(nbval.kernel.start_new_kernel)
    nbval.kernel.KernelManager = PromptKernelManager
    if forked_kernels_wanted():
        nbval.kernel.NbvalKernelspecManager = forking_kernelspec_manager(
            nbval.kernel.NbvalKernelspecManager
        )


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent under -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadscope":
        return None  # xdist's own scheduler for every other mode
    from tools.test_schedule import LongestFirstScheduling

    return LongestFirstScheduling(config, log)


def dictionary_skip_reason() -> str | None:
    """Why what reads the dictionary cannot run here, or None when it can."""
    from helpers.data.dictionary import (
        DICTIONARY,
        is_recorded_version,
        missing_message,
        other_version_message,
    )

    if not DICTIONARY.is_file():
        return missing_message(DICTIONARY)
    if not is_recorded_version(DICTIONARY):
        return other_version_message(DICTIONARY) + " (the tests compare with them, so they skip)"
    return None


def pytest_collection_modifyitems(config, items):
    from helpers.data.dictionary import NOTEBOOK

    for item in items:  # notebook 15's cells read it too: `pytest -m dictionary` selects them
        if Path(str(item.path)).name == NOTEBOOK:
            item.add_marker(pytest.mark.dictionary)
    needs = [item for item in items if item.get_closest_marker("dictionary")]
    reason = dictionary_skip_reason() if needs else None
    if reason:
        for item in needs:
            item.add_marker(pytest.mark.skip(reason=reason))
