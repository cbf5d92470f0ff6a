"""What a training run prints while it goes (notebook 11's loop, ``train_on_batches``): one line per validation.

Hand-written display code, in the notebook's language; it imports neither torch nor matplotlib.
"""

from __future__ import annotations

from helpers.language import tr


def print_validation(step: int, loss: float) -> None:
    """Print ``step 100: validation loss 1.1484`` (four decimals), translated."""
    print(tr("step {step}: validation loss {loss}").format(step=step, loss=f"{loss:.4f}"))
