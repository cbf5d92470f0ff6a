import matplotlib
import pytest
import torch
from exercise_checks import Verdicts
from shared_models import D_MODEL, N_HEADS

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
    return Verdicts(capsys)


# Multi-head attention and an input of its width, for test_multi_head_attention and test_kv_cache
# (a file may define its own `x`, which then takes precedence).
@pytest.fixture
def mha() -> MultiHeadAttention:
    torch.manual_seed(0)
    return MultiHeadAttention(D_MODEL, N_HEADS).eval()


@pytest.fixture
def x() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(2, 5, D_MODEL)
