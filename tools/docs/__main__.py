"""``python -m tools.docs``: build the offline website (see tools/docs/__init__.py)."""

import sys

from tools.docs.site import main

sys.exit(main())
