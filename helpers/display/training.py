"""The figure of a training run (notebook 11): loss, token accuracy, learning rate, gradient norm.

Hand-written display code: it reads a ``History`` (any object with the same lists) and draws it;
it knows nothing of the model.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from helpers.language import tr


def _log_axis(ax: Any, ticks: list[float]) -> None:
    """A log scale labelled with plain numbers at ``ticks``."""
    ax.set_yscale("log")
    ax.set_yticks(ticks)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def plot_training_history(
    history: Any, *, floor: float | None = None, clip_norm: float | None = None, window: int = 20
) -> plt.Figure:
    """Four panels, one per list of ``history``, against its ``step``.

    Loss: the training loss per step and its ``window``-step mean, the validation loss, and a
    dotted line at ``floor`` (the entropy of the smoothed targets) when given. Token accuracy.
    The learning rate each step used. The gradient norm before clipping, dashed at ``clip_norm``.
    """
    steps = np.asarray(history.step)
    fig, axes = plt.subplots(2, 2, figsize=(11.0, 7.0))
    loss_ax, accuracy_ax, rate_ax, norm_ax = axes.flatten()
    loss_ax.plot(steps, history.loss, linewidth=0.6, alpha=0.5, label=tr("train (per step)"))
    if len(steps) >= window:
        moving = np.convolve(history.loss, np.ones(window) / window, mode="valid")
        label = tr("train ({window}-step mean)").format(window=window)
        loss_ax.plot(steps[window - 1 :], moving, label=label)
    loss_ax.plot(history.valid_step, history.valid_loss, ".-", label=tr("valid (no smoothing)"))
    if floor is not None:
        loss_ax.axhline(floor, color="grey", linestyle=":", label=tr("smoothing floor H(q)"))
    _log_axis(loss_ax, [0.1, 0.2, 0.5, 1, 2, 5])
    loss_ax.set_ylabel(tr("loss (nats per token)"))
    loss_ax.set_title(tr("Loss"))
    loss_ax.legend(fontsize=8)
    accuracy_ax.plot(steps, history.accuracy, linewidth=0.8)
    accuracy_ax.set_ylim(0, 1)
    accuracy_ax.set_ylabel(tr("fraction of target tokens"))
    accuracy_ax.set_title(tr("Token accuracy (teacher forcing)"))
    rate_ax.plot(steps, history.learning_rate)
    rate_ax.set_ylabel(tr("learning rate"))
    rate_ax.set_title(tr("Learning rate of each step"))
    norm_ax.plot(steps, history.grad_norm, linewidth=0.8)
    if clip_norm is not None:
        label = tr("clip_norm = {clip_norm}").format(clip_norm=clip_norm)
        norm_ax.axhline(clip_norm, color="grey", linestyle="--", label=label)
        norm_ax.legend(fontsize=8)
    _log_axis(norm_ax, [0.2, 0.5, 1, 2, 5])
    norm_ax.set_ylabel(tr("L2 norm of all gradients"))
    norm_ax.set_title(tr("Gradient norm before clipping"))
    for ax in axes.flatten():
        ax.set_xlabel(tr("training step"))
    fig.tight_layout()
    return fig
