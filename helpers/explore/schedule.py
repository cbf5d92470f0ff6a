"""Explore the learning-rate schedule (notebook 11): warm-up, then decay as 1/sqrt(step).

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from helpers.explore.live import Explorer
from helpers.language import tr
from helpers.training.transformer import warmup_lambda


def schedule_view(d_model: int, warmup_steps: int, lr_factor: float, steps: int) -> dict:
    """lrate(step) = lr_factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), steps 1..steps.

    Returns the steps, the rates, and the peak: at step = warmup_steps, where the rate is
    lr_factor * (d_model * warmup_steps)^-0.5.
    """
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(tr("steps: expected a positive int, got {steps!r}").format(steps=steps))
    if not isinstance(lr_factor, int | float) or lr_factor <= 0:
        raise ValueError(
            tr("lr_factor: expected a positive number, got {lr_factor!r}").format(
                lr_factor=lr_factor
            )
        )
    rate = warmup_lambda(d_model, warmup_steps)  # checks d_model and warmup_steps
    step_numbers = np.arange(1, steps + 1)
    rates = lr_factor * np.array(
        [rate(step - 1) for step in step_numbers]
    )  # LambdaLR counts from 0
    peak = int(np.argmax(rates))
    return {
        "d_model": d_model,
        "warmup_steps": warmup_steps,
        "lr_factor": lr_factor,
        "steps": step_numbers,
        "rates": rates,
        "peak_step": int(step_numbers[peak]),
        "peak_rate": float(rates[peak]),
    }


def draw_schedule(view: dict) -> Figure:
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    ax.plot(view["steps"], view["rates"])
    ax.axvline(view["warmup_steps"], color="grey", linestyle=":", label="warmup_steps")
    ax.plot([view["peak_step"]], [view["peak_rate"]], "o", color="C3", label=tr("peak"))
    ax.set_title(
        f"d_model={view['d_model']}, warmup={view['warmup_steps']}, lr_factor={view['lr_factor']:g}"
    )
    ax.set_xlabel(tr("step"))
    ax.set_ylabel(tr("learning rate"))
    ax.legend()
    fig.tight_layout()
    return fig


def describe_schedule(view: dict) -> str:
    return tr("peak learning rate {rate:.6f} at step {step}").format(
        rate=view["peak_rate"], step=view["peak_step"]
    )


def explore_schedule(
    d_model: int = 512, warmup_steps: int = 4000, lr_factor: float = 1.0, steps: int = 20000,
    show: bool = True,
) -> Explorer:  # fmt: skip
    """Sliders for d_model, the warm-up length and lr_factor."""
    import ipywidgets as widgets

    style = {"description_width": "110px"}
    controls = {
        "d_model": widgets.IntSlider(
            d_model, min=64, max=1024, step=64, description="d_model", style=style
        ),
        "warmup_steps": widgets.IntSlider(
            warmup_steps, min=100, max=10000, step=100, description="warmup_steps", style=style
        ),
        "lr_factor": widgets.FloatSlider(
            lr_factor, min=0.1, max=3.0, step=0.1, description="lr_factor", style=style
        ),
        "steps": widgets.IntSlider(
            steps, min=1000, max=50000, step=1000, description=tr("steps"), style=style
        ),
    }
    explorer = Explorer(
        controls, schedule_view, draw_schedule, describe_schedule, tr("Learning-rate schedule")
    )
    if show:
        explorer.show()
    return explorer
