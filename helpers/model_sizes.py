"""The model sizes the series names, each defined once.

Hand-written. ``base`` and ``big`` are the paper's Table 3 rows; ``small`` is the series' own
model (the one ``make train`` ships and notebook 12 loads, the one ``make bench`` times);
``tiny`` is for tests. ``python -m helpers.train --model NAME`` takes these names.
"""

from __future__ import annotations

MODEL_SIZES: dict[str, dict[str, int | float]] = {
    "tiny": {"d_model": 32, "n_heads": 2, "d_ff": 64, "n_layers": 1, "dropout": 0.1},
    "small": {"d_model": 128, "n_heads": 4, "d_ff": 512, "n_layers": 3, "dropout": 0.1},
    "base": {"d_model": 512, "n_heads": 8, "d_ff": 2048, "n_layers": 6, "dropout": 0.1},
    "big": {"d_model": 1024, "n_heads": 16, "d_ff": 4096, "n_layers": 6, "dropout": 0.3},
}
