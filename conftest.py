"""Test-session wiring that must hold wherever pytest is started from.

- strict nbval gets the project's sanitize file by absolute path;
- kernels started by nbval inherit a fixed hash seed (set ordering, dict-of-set printing);
- unit tests draw figures without a display.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SANITIZE_FILE = ROOT / "nbval_sanitize.cfg"

# Kernels are child processes: whatever is in os.environ now is what they see.
os.environ["PYTHONHASHSEED"] = "0"
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")


def pytest_configure(config):
    if getattr(config.option, "nbval_sanitize_with", None) is None and hasattr(
        config.option, "nbval_sanitize_with"
    ):
        config.option.nbval_sanitize_with = str(SANITIZE_FILE)
