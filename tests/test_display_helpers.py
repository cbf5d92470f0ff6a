"""The hand-written display helpers: setup, shape tables, the shape tracer, heatmaps."""

import random

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from torch import nn

from helpers import (
    pick_device,
    plot_heatmap,
    plot_heatmap_grid,
    setup_notebook,
    shape_table,
    trace_shapes,
)


def draw_all():
    return random.random(), float(np.random.rand()), float(torch.rand(()))


def test_setup_makes_random_draws_repeat_and_returns_the_cpu():
    assert setup_notebook(seed=3) == torch.device("cpu")
    first = draw_all()
    setup_notebook(seed=3)
    assert draw_all() == first
    setup_notebook(seed=4)
    assert draw_all() != first
    assert torch.get_num_threads() == 1


def test_the_plot_style_is_seaborns_white_theme_without_importing_seaborn():
    import subprocess
    import sys

    import matplotlib as mpl
    import seaborn as sns

    from helpers.display.setup import PLOT_SETTINGS, _set_plot_style

    def style() -> tuple[dict, dict]:
        codes = {code: mpl.colors.to_rgb(code) for code in "bgrmyck"}
        return dict(mpl.rcParams), codes

    saved = dict(mpl.colors.colorConverter.colors)
    try:
        with mpl.rc_context():
            mpl.rcdefaults()
            sns.set_theme(style="white", context="notebook")
            mpl.rcParams.update(PLOT_SETTINGS)
            expected = style()
        mpl.colors.colorConverter.colors.update(saved)
        mpl.colors.colorConverter.cache.clear()
        with mpl.rc_context():
            mpl.rcdefaults()
            _set_plot_style("en")
            assert style() == expected
    finally:
        mpl.colors.colorConverter.colors.update(saved)
        mpl.colors.colorConverter.cache.clear()
    code = "import sys, helpers; helpers.setup_notebook(); print('seaborn' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("arguments", "named"),
    [({"seed": -1}, "seed"), ({"threads": 0}, "threads"), ({"precision": -2}, "precision")],
)
def test_setup_rejects_bad_arguments_by_name(arguments, named):
    with pytest.raises(ValueError, match=named):
        setup_notebook(**arguments)


def test_device_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRANSFORMER_DEVICE", "cpu")
    assert pick_device() == torch.device("cpu")
    monkeypatch.setenv("TRANSFORMER_DEVICE", "not-a-device")
    with pytest.raises(ValueError, match="device"):
        pick_device()


def test_shape_table_lists_name_shape_dtype_and_meaning():
    table = shape_table(
        {"src": (torch.zeros(2, 5, dtype=torch.long), "token ids"), "x": torch.ones(3)}
    )
    lines = table.splitlines()
    assert lines[0].split() == ["name", "shape", "dtype", "meaning"]
    assert lines[2].split() == ["src", "(2,", "5)", "int64", "token", "ids"]
    assert lines[3].split() == ["x", "(3)", "float32"]


def test_shape_table_rejects_what_is_not_a_tensor():
    with pytest.raises(ValueError, match="tensors\\['a'\\]"):
        shape_table({"a": [1, 2]})
    with pytest.raises(ValueError, match="tensors"):
        shape_table({})


class TwoSteps(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 8)
        self.inner = nn.Sequential(nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x):
        hidden = self.first(x)
        return self.inner(hidden), hidden


def test_trace_records_every_call_in_the_order_it_starts():
    records = trace_shapes(TwoSteps(), torch.zeros(3, 4))
    assert [record.name for record in records] == [
        "(model)",
        "first",
        "inner",
        "inner.0",
        "inner.1",
    ]
    assert records[0].input_shape == "(3, 4)"
    assert records[0].output_shape == "(3, 2), (3, 8)"
    assert records[1].output_shape == "(3, 8)"
    assert records[4].kind == "Linear" and records[4].output_shape == "(3, 2)"
    assert [record.depth for record in records] == [0, 1, 1, 2, 2]
    shallow = trace_shapes(TwoSteps(), torch.zeros(3, 4), max_depth=1)
    assert [record.name for record in shallow] == ["(model)", "first", "inner"]


class Stack(nn.Module):
    """Layers in a ModuleList, which is never called itself."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(2))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_trace_depth_follows_calls_not_containers():
    records = trace_shapes(Stack(), torch.zeros(1, 2))
    assert [(record.name, record.depth) for record in records] == [
        ("(model)", 0),
        ("layers.0", 1),
        ("layers.1", 1),
    ]


def test_trace_removes_its_hooks():
    model = TwoSteps()
    trace_shapes(model, torch.zeros(1, 4))
    assert all(
        not module._forward_hooks and not module._forward_pre_hooks for module in model.modules()
    )


def test_heatmap_keeps_labels_title_and_data():
    data = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    fig = plot_heatmap(data, x_labels=["a", "b", "c"], y_labels=["p", "q"], title="weights")
    ax = fig.axes[0]
    assert ax.get_title() == "weights"
    assert [label.get_text() for label in ax.get_xticklabels()] == ["a", "b", "c"]
    assert [label.get_text() for label in ax.get_yticklabels()] == ["p", "q"]
    assert np.array_equal(np.asarray(ax.collections[0].get_array()).reshape(2, 3), data.numpy())
    assert len(fig.axes) == 2, "a colour bar"


def test_long_label_lists_name_every_kth_cell_and_keep_the_grid_readable():
    # 55 tokens (a translation that loops) would overlap: every 3rd is named, from the first.
    tokens = [f"t{i}" for i in range(55)]
    fig = plot_heatmap_grid(torch.rand(1, 2, 55, 55), x_labels=tokens, y_labels=tokens)
    bottom_left = fig.axes[0]
    named = [label.get_text() for label in bottom_left.get_xticklabels()]
    assert named == tokens[::3] and len(named) <= 20
    positions = bottom_left.get_yticks()
    assert np.allclose(positions, [i + 0.5 for i in range(0, 55, 3)])  # centred on their cells
    short = plot_heatmap(torch.rand(20, 20), x_labels=tokens[:20], y_labels=tokens[:20])
    assert [label.get_text() for label in short.axes[0].get_xticklabels()] == tokens[:20]
    # the figure stops growing: 55 cells take the room of 20
    assert fig.get_figheight() == plot_heatmap_grid(torch.rand(1, 2, 20, 20)).get_figheight()


def test_heatmap_rejects_wrong_label_counts_and_shapes():
    with pytest.raises(ValueError, match="x_labels"):
        plot_heatmap(torch.zeros(2, 3), x_labels=["a"])
    with pytest.raises(ValueError, match="data"):
        plot_heatmap(torch.zeros(2, 3, 4))


def test_heatmap_grid_draws_one_panel_per_layer_and_head():
    data = torch.rand(2, 3, 4, 5)
    fig = plot_heatmap_grid(data, x_labels=list("vwxyz"), y_labels=list("abcd"), title="grid")
    panels = fig.axes[:-1]
    assert len(panels) == 6
    assert panels[0].get_title() == "head 0" and panels[0].get_ylabel() == "layer 0"
    assert [label.get_text() for label in panels[3].get_xticklabels()] == list("vwxyz")
    last = np.asarray(panels[5].collections[0].get_array()).reshape(4, 5)
    assert np.allclose(last, data[1, 2].numpy())
    with pytest.raises(ValueError, match="y_labels"):
        plot_heatmap_grid(data, y_labels=["a"])


def test_format_matrix_labels_rows_and_columns():
    from helpers.display.shapes import format_matrix

    text = format_matrix(torch.tensor([[0.25, 0.75], [1.0, 0.0]]), ["a", "b"], ["x", "y"], ".3f")
    assert text.splitlines() == [
        "query \\ key  x      y",
        "-----------  -----  -----",
        "a            0.250  0.750",
        "b            1.000  0.000",
    ]
    assert (
        format_matrix(torch.tensor([[-1.0]]), ["q"], ["k"]).splitlines()[-1] == "q            -1.00"
    )
    with pytest.raises(ValueError, match=r"matrix: expected shape \(2, 2\)"):
        format_matrix(torch.zeros(2, 3), ["a", "b"], ["x", "y"])


def test_plot_mask_hatches_every_hidden_cell_and_names_both_colours():
    from matplotlib.patches import Rectangle

    from helpers.display.plots import plot_mask, plot_mask_and_weights

    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    fig = plot_mask(mask, list("abcd"), list("abcd"), title="look-ahead")
    ax = fig.axes[0]
    hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch() == "///"]
    assert sorted((int(p.get_y()), int(p.get_x())) for p in hatched) == [
        (i, j) for i in range(4) for j in range(4) if j > i
    ]
    assert all(spine.get_visible() for spine in ax.spines.values())
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["may attend (True)", "hidden (False)"]
    assert ax.get_xlabel() == "key" and ax.get_ylabel() == "query"
    plt.close(fig)
    fig = plot_mask_and_weights(mask, torch.eye(4), list("abcd"), list("abcd"), "both")
    assert [a.get_title() for a in fig.axes[:2]] == ["mask", "attention weights"]
    plt.close(fig)


def test_a_layer_that_a_wrapper_calls_keeps_the_depth_of_its_attribute():
    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(4)

        def forward(self, x, sublayer):
            return self.norm(x + sublayer(x))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.residual, self.linear = Wrapper(), nn.Linear(4, 4)

        def forward(self, x):
            return self.residual(x, self.linear)

    model = nn.Sequential(Block())
    records = trace_shapes(model, torch.zeros(2, 4), max_depth=2)
    assert [(r.name, r.depth) for r in records][1:] == [
        ("0", 1),
        ("0.residual", 2),
        ("0.linear", 2),  # called inside the wrapper, still a child of the block
    ]
