"""Fixtures the test files share.

The test session's controller loads this file too, before it starts the workers, so what only
fixtures need (torch, the helpers) is imported inside them: a worker imports it anyway when it
collects the test files, and the controller does not wait for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib
import pytest

if TYPE_CHECKING:
    import torch
    from exercise_checks import Verdicts

    from helpers.model.multi_head_attention import MultiHeadAttention

# Unit tests draw figures off screen; notebooks keep their inline backend.
matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture(autouse=True)
def _one_thread():
    # Unit tests use tiny models: one thread avoids thread start-up and contention costs on a
    # shared CPU, and makes float sums the same on every machine.
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def shipped():
    """The shipped model of notebook 12 (checkpoints/de_en_small/), loaded once per session:
    ``model, src_vocab, tgt_vocab``, in eval mode. Tests must leave it as they found it."""
    from helpers.pretrained import load_pretrained

    model, src_vocab, tgt_vocab, _ = load_pretrained()
    return model, src_vocab, tgt_vocab


@pytest.fixture
def verdicts(capsys) -> Verdicts:
    """Runs exercise checks and reads their printed verdicts (see tests/exercise_checks.py)."""
    from exercise_checks import Verdicts

    return Verdicts(capsys)


# Multi-head attention and an input of its width, for test_multi_head_attention and test_kv_cache
# (a file may define its own `x`, which then takes precedence).
@pytest.fixture
def mha() -> MultiHeadAttention:
    import torch
    from shared_models import D_MODEL, N_HEADS

    from helpers.model.multi_head_attention import MultiHeadAttention

    torch.manual_seed(0)
    return MultiHeadAttention(D_MODEL, N_HEADS).eval()


@pytest.fixture
def x() -> torch.Tensor:
    import torch
    from shared_models import D_MODEL

    torch.manual_seed(1)
    return torch.randn(2, 5, D_MODEL)
