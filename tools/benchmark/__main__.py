"""``python -m tools.benchmark``: see tools/benchmark/__init__.py."""

import sys

from tools.benchmark.command import main

sys.exit(main())
