import matplotlib
import pytest

# Unit tests draw figures off screen; notebooks keep their inline backend.
matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")
