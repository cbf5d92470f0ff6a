"""helpers.display.training: the figure of a training run (notebook 11)."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from helpers.display.training import plot_training_history  # noqa: E402


def history(steps: int) -> SimpleNamespace:
    return SimpleNamespace(
        step=list(range(1, steps + 1)),
        loss=[3.0 / s for s in range(1, steps + 1)],
        accuracy=[min(1.0, s / steps) for s in range(1, steps + 1)],
        learning_rate=[1e-3 * s for s in range(1, steps + 1)],
        grad_norm=[2.0 / s for s in range(1, steps + 1)],
        valid_step=[steps],
        valid_loss=[0.5],
    )


def test_four_panels_draw_every_list_with_floor_and_clip_lines():
    run = history(30)
    fig = plot_training_history(run, floor=0.4, clip_norm=1.0, window=10)
    loss_ax, accuracy_ax, rate_ax, norm_ax = fig.axes
    lines = loss_ax.get_lines()
    assert list(lines[0].get_ydata()) == run.loss
    assert len(lines[1].get_ydata()) == 30 - 10 + 1  # the moving mean
    assert list(lines[2].get_ydata()) == run.valid_loss
    assert list(lines[3].get_ydata()) == [0.4, 0.4]  # the floor
    assert list(accuracy_ax.get_lines()[0].get_ydata()) == run.accuracy
    assert list(rate_ax.get_lines()[0].get_ydata()) == run.learning_rate
    assert list(norm_ax.get_lines()[0].get_ydata()) == run.grad_norm
    assert list(norm_ax.get_lines()[1].get_ydata()) == [1.0, 1.0]  # clip_norm
    assert loss_ax.get_yscale() == norm_ax.get_yscale() == "log"
    assert all(ax.get_xlabel() == "training step" for ax in fig.axes)
    plt.close(fig)


def test_a_short_run_without_floor_or_clipping_has_no_extra_lines():
    fig = plot_training_history(history(5), window=20)
    loss_ax, _, _, norm_ax = fig.axes
    assert len(loss_ax.get_lines()) == 2  # per step and validation: no mean, no floor
    assert len(norm_ax.get_lines()) == 1
    plt.close(fig)
