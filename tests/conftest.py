import matplotlib
import pytest
from exercise_checks import Verdicts

# Unit tests draw figures off screen; notebooks keep their inline backend.
matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture
def verdicts(capsys) -> Verdicts:
    """Runs exercise checks and reads their printed verdicts (see tests/exercise_checks.py)."""
    return Verdicts(capsys)
