"""Seeds and devices: what every run needs, a notebook's and the training command's alike.

Hand-written. ``helpers.display.setup.setup_notebook`` calls both for a notebook;
``python -m helpers.train`` and ``make train`` call ``seed_everything`` without any display code.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

from helpers.language import tr

DEVICE_ENV_VAR = "TRANSFORMER_DEVICE"


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and PyTorch's random number generators."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(tr("seed: expected a non-negative int, got {seed!r}").format(seed=seed))
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """The device to use: the argument, else $TRANSFORMER_DEVICE, else the CPU."""
    name = device if device is not None else os.environ.get(DEVICE_ENV_VAR, "cpu")
    try:
        chosen = torch.device(name)
    except (RuntimeError, TypeError) as error:
        raise ValueError(
            tr("device: expected a torch device name such as 'cpu' or 'cuda', got {name!r}").format(
                name=name
            )
        ) from error
    if chosen.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            tr("device: {name!r} was asked for but torch sees no CUDA device").format(name=name)
        )
    return chosen
