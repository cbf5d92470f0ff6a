"""helpers.evaluation.complexity (notebook 13): restricted attention, path lengths, slopes; its
input checks in helpers.checks; helpers.evaluation.costs.meter, the cost meter the notebook counts
with; and helpers.evaluation.costs.growth, the tables and figures it shows them in."""

import math

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from helpers.checks import check_path_length, check_slope_points, check_window
from helpers.evaluation.complexity import (
    RestrictedSelfAttention,
    local_attention,
    log_log_slope,
    max_path_length,
)
from helpers.evaluation.costs.growth import growth_table, plot_growth, plot_patterns
from helpers.evaluation.costs.meter import CostMeter, matmul_flops, measure, time_forward
from helpers.exercises import notebook_13
from helpers.model.multi_head_attention import MultiHeadAttention


def band_mask(n: int, window: int) -> torch.Tensor:
    positions = torch.arange(n)
    return (positions[:, None] - positions[None, :]).abs() <= window // 2


# ---------------------------------------------------------------- local_attention


@pytest.mark.parametrize(("n", "window"), [(1, 1), (5, 1), (7, 3), (12, 5), (6, 11)])
def test_local_attention_equals_banded_full_attention(n, window):
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, n, 4), torch.randn(2, 3, n, 4), torch.randn(2, 3, n, 5)
    scores = q @ k.transpose(-2, -1) / math.sqrt(4)
    expected = scores.masked_fill(~band_mask(n, window), float("-inf")).softmax(-1) @ v
    result = local_attention(q, k, v, window)
    assert result.shape == (2, 3, n, 5)
    torch.testing.assert_close(result, expected, atol=1e-6, rtol=0)


def test_local_attention_window_one_returns_the_values():
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 3)
    torch.testing.assert_close(local_attention(q, k, v, 1), v)


def test_local_attention_ignores_keys_outside_the_window():
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 1, 10, 4), torch.randn(1, 1, 10, 4), torch.randn(1, 1, 10, 4)
    before = local_attention(q, k, v, 3)
    k2, v2 = k.clone(), v.clone()
    k2[:, :, 9], v2[:, :, 9] = 100.0, -100.0  # position 9 is outside the window of positions < 8
    after = local_attention(q, k2, v2, 3)
    torch.testing.assert_close(after[:, :, :8], before[:, :, :8])
    assert not torch.allclose(after[:, :, 8:], before[:, :, 8:])


def test_restricted_self_attention_equals_multi_head_attention_with_a_band():
    torch.manual_seed(0)
    layer = RestrictedSelfAttention(16, 4, 5).eval()
    x = torch.randn(2, 9, 16)
    with torch.no_grad():
        expected, _ = layer.attention(x, x, x, band_mask(9, 5), need_weights=True)
        torch.testing.assert_close(layer(x), expected, atol=1e-6, rtol=0)
    assert isinstance(layer.attention, MultiHeadAttention)


def test_restricted_self_attention_costs_grow_linearly():
    torch.manual_seed(0)
    layer = RestrictedSelfAttention(16, 2, 5).eval()
    small, large = measure(layer, torch.randn(1, 32, 16)), measure(layer, torch.randn(1, 64, 16))
    assert large.flops == 2 * small.flops
    assert large.ops == small.ops
    assert 1.9 < large.peak_bytes / small.peak_bytes < 2.1


@pytest.mark.parametrize("window", [0, 2, -3, 4.0, True])
def test_bad_window_raises(window):
    q = torch.randn(1, 1, 5, 4)
    with pytest.raises(ValueError, match="window"):
        local_attention(q, q, q, window)
    with pytest.raises(ValueError, match="window"):
        RestrictedSelfAttention(8, 2, window)


def test_bad_shapes_raise():
    q = torch.randn(1, 2, 5, 4)
    for k, v in [(q[:, :, :3], q), (q, q[:, :1]), (q[0], q)]:
        with pytest.raises(ValueError, match="q, k, v"):
            local_attention(q, k, v, 3)


# ---------------------------------------------------------------- CostMeter


def test_meter_counts_a_product_and_frees():
    a, b = torch.randn(64, 32), torch.randn(32, 16)
    with CostMeter() as meter:
        (a @ b).relu().sum()
    assert (meter.ops, meter.flops) == (3, 2 * 64 * 32 * 16)
    assert meter.peak_bytes == 2 * 64 * 16 * 4  # the product is freed before sum runs
    assert meter.allocated_bytes == 2 * 64 * 16 * 4 + 4


def test_meter_views_and_inputs_cost_nothing():
    a = torch.randn(8, 8)
    meter = measure(lambda x: x.t()[:5].unsqueeze(0), a)
    assert meter.peak_bytes == 0 and meter.ops == 3


def test_meter_counts_a_view_of_a_new_tensor_while_the_view_lives():
    a = torch.randn(100)
    keep = []
    with CostMeter() as meter:
        keep.append((a * 2).view(10, 10))  # the base tensor dies, its memory lives on in the view
        _ = a + 1
    assert meter.peak_bytes == 2 * 100 * 4


def test_meter_frees_memory_of_dropped_temporaries():
    a = torch.randn(256)
    with CostMeter() as meter:
        for _ in range(10):
            a * 2  # each result is dropped at once
    assert meter.allocated_bytes == 10 * 256 * 4
    assert meter.peak_bytes == 256 * 4


@pytest.mark.parametrize(
    "layer",
    [
        lambda: nn.Conv1d(6, 5, 3, padding=1),
        lambda: nn.Linear(6, 5),
        lambda: nn.GRU(6, 6, batch_first=True),
        lambda: MultiHeadAttention(8, 2),
    ],
    ids=["conv1d", "linear", "gru", "attention"],
)
def test_meter_flops_match_flop_counter_mode(layer):
    torch.manual_seed(0)
    module = layer()
    if isinstance(module, nn.Conv1d):
        x, call = torch.randn(2, 6, 7), module
    elif isinstance(module, MultiHeadAttention):
        x = torch.randn(2, 7, 8)

        def call(x):
            return module(x, x, x, need_weights=True)
    else:
        x, call = torch.randn(2, 7, 6), module
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        call(x)
    assert measure(call, x).flops == counter.get_total_flops() > 0


def test_matmul_flops_ignores_other_operations():
    assert matmul_flops(torch.ops.aten.add.Tensor, (torch.ones(3), torch.ones(3)), None) == 0


def test_meter_is_deterministic():
    torch.manual_seed(0)
    attention = MultiHeadAttention(16, 2)
    x = torch.randn(2, 40, 16)
    first = measure(lambda x: attention(x, x, x, need_weights=True), x)
    second = measure(lambda x: attention(x, x, x, need_weights=True), x)
    assert (first.flops, first.ops, first.peak_bytes) == (
        second.flops,
        second.ops,
        second.peak_bytes,
    )


def test_attention_memory_is_quadratic_and_gru_operations_grow_per_step():
    torch.manual_seed(0)
    attention, gru = MultiHeadAttention(8, 2), nn.GRU(8, 8, batch_first=True)

    def run_attention(x):
        return attention(x, x, x, need_weights=True)

    small, large = torch.randn(1, 128, 8), torch.randn(1, 256, 8)
    ratio = measure(run_attention, large).peak_bytes / measure(run_attention, small).peak_bytes
    assert 3.5 < ratio <= 4.0
    ops = [measure(gru, torch.randn(1, n, 8)).ops for n in (4, 8, 12)]
    assert ops[1] - ops[0] == ops[2] - ops[1] > 0


# ---------------------------------------------------------------- max_path_length


def test_path_lengths_of_table_1():
    assert max_path_length("self-attention", 1000) == 1
    assert max_path_length("recurrent", 1000) == 999
    assert max_path_length("convolution", 1024, 3) == 1023
    assert max_path_length("convolution", 1024, 5) == 512
    assert max_path_length("convolution", 1024, 3, dilated=True) == 10  # 2^10 - 1 = 1023
    assert max_path_length("convolution", 1025, 3, dilated=True) == 11
    assert max_path_length("convolution", 81, 5, dilated=True) == 4  # 3^4 - 1 = 80
    assert max_path_length("restricted", 1024, 9) == 256
    assert max_path_length("restricted", 1024, 9, dilated=True) == 256  # no dilation for attention


def _connected_after(stack: list[nn.Module], n: int) -> int:
    x = torch.randn(1, n, 4, requires_grad=True)
    h = x
    for depth, layer in enumerate(stack, start=1):
        h = layer(h)
        (gradient,) = torch.autograd.grad(h[0, 0].sum(), x, retain_graph=True)
        if gradient[0, n - 1].abs().sum() > 0:
            return depth
    raise AssertionError("never connected")


class _Conv(nn.Module):
    def __init__(self, kernel_size: int, dilation: int):
        super().__init__()
        padding = dilation * (kernel_size // 2)
        self.conv = nn.Conv1d(4, 4, kernel_size, padding=padding, dilation=dilation)

    def forward(self, x):
        return self.conv(x.transpose(1, 2)).transpose(1, 2)


@pytest.mark.parametrize(
    ("n", "kernel_size", "dilated"),
    [(9, 3, False), (20, 5, False), (30, 3, True), (33, 3, True), (40, 5, True)],
)
def test_conv_path_length_matches_gradients(n, kernel_size, dilated):
    torch.manual_seed(0)
    stack = [
        _Conv(kernel_size, ((kernel_size + 1) // 2) ** depth if dilated else 1)
        for depth in range(12 if dilated else n)
    ]
    assert _connected_after(stack, n) == max_path_length("convolution", n, kernel_size, dilated)


def test_restricted_path_length_matches_gradients():
    torch.manual_seed(0)
    stack = [RestrictedSelfAttention(4, 2, 5) for _ in range(10)]
    assert _connected_after(stack, 13) == max_path_length("restricted", 13, 5) == 6


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        (("rnn", 10), "kind"),
        (("recurrent", 1), "n"),
        (("convolution", 10, 4), "size"),
        (("convolution", 10, 1), "size"),
    ],
)
def test_max_path_length_bad_input(arguments, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        max_path_length(*arguments)


# ---------------------------------------------------------------- log_log_slope


def test_log_log_slope_of_power_laws():
    ns = [16, 32, 64, 128]
    for power in (0.5, 1.0, 2.0, 3.0):
        assert log_log_slope(ns, [7 * n**power for n in ns]) == pytest.approx(power)


@pytest.mark.parametrize(
    ("ns", "values"), [([1], [1]), ([1, 2], [1]), ([0, 2], [1, 2]), ([1, 2], [1, -1])]
)
def test_log_log_slope_bad_input(ns, values):
    with pytest.raises(ValueError, match="ns, values"):
        log_log_slope(ns, values)


# ---------------------------------------------------------------- exercise checks


def causal_conv_layers(n, kernel_size, dilated):
    layers, reach = 0, 0
    while reach < n - 1:
        reach += (kernel_size - 1) * (kernel_size**layers if dilated else 1)
        layers += 1
    return layers


def prefix_lm_mask(length, prefix_length):
    mask = torch.ones(length, length, dtype=torch.bool).tril()
    mask[:prefix_length, :prefix_length] = True
    return mask


def in_sequence_keys(n, window):
    """The keys of all windows that lie inside the sequence (a wrong count: padding slots cost too)."""
    half = window // 2
    return sum(min(i + half, n - 1) - max(i - half, 0) + 1 for i in range(n))


def restricted_attention_flops(n, d_model, window):
    return 8 * n * d_model**2 + 4 * n * window * d_model


CHECKS = [
    (
        notebook_13.check_causal_conv_layers,
        causal_conv_layers,
        [
            # centred kernels instead of causal ones
            (lambda n, k, dilated: math.ceil((n - 1) / ((k - 1) / 2)), "kernel_size - 1"),
            # dilation ignored
            (lambda n, k, dilated: math.ceil((n - 1) / (k - 1)), "dilation"),
            (lambda n, k, dilated: "3", "expected an int"),
        ],
    ),
    (
        notebook_13.check_prefix_lm_mask,
        prefix_lm_mask,
        [
            (lambda length, p: torch.ones(length, length, dtype=torch.bool).tril(), "may attend"),
            (lambda length, p: prefix_lm_mask(length, p).float(), "torch.bool"),
            (lambda length, p: prefix_lm_mask(length, p)[None], "shape"),
            (lambda length, p: [[True]], "bool tensor"),
        ],
    ),
    (
        notebook_13.check_restricted_attention_flops,
        restricted_attention_flops,
        [
            (lambda n, d, r: 8 * n * d * d, "projections alone"),
            (lambda n, d, r: 8 * n * d * d + 4 * n * n * d, "full attention"),
            (lambda n, d, r: restricted_attention_flops(n, d, r) // 2, "2 FLOPs"),
            (lambda n, d, r: 4 * n * d * d + 4 * n * r * d, "four projections"),
            (lambda n, d, r: 8 * n * d * d + 4 * in_sequence_keys(n, r) * d, "padding slots"),
            (lambda n, d, r: 1 / 0, "ZeroDivisionError"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("check", "solution", "wrong"), CHECKS, ids=lambda item: getattr(item, "__name__", "")
)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)


def test_checks_accept_a_float_and_a_tensor(verdicts):
    verdicts.passes(
        notebook_13.check_restricted_attention_flops,
        lambda n, d, r: float(restricted_attention_flops(n, d, r)),
    )
    verdicts.passes(
        notebook_13.check_causal_conv_layers,
        lambda n, k, dilated: torch.tensor(causal_conv_layers(n, k, dilated)),
    )


# ---------------------------------------------------------------- time_forward


def test_time_forward_returns_the_fastest_run_after_a_warm_up():
    calls = []

    def layer(x):
        calls.append(torch.is_grad_enabled())
        return x * 2

    seconds = time_forward(layer, torch.ones(4), repeats=3)
    assert calls == [False] * 4  # one warm-up and three timed runs, all without gradients
    assert 0 <= seconds < 1


# ---------------------------------------------------------------- helpers.evaluation.costs.growth


def test_growth_table_prints_values_and_returns_the_fitted_slopes(capsys):
    ns = [8, 16, 32, 64]
    series = {"linear": [3 * n for n in ns], "square": [n * n for n in ns], "flat": [5] * 4}
    slopes = growth_table("cost, thousands", ns, series, fit_from=16, scale=1000, digits=3)
    assert slopes["linear"] == pytest.approx(1) and slopes["square"] == pytest.approx(2)
    assert slopes["flat"] == pytest.approx(0)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "cost, thousands"
    assert lines[1].split() == ["layer", "n=8", "n=16", "n=32", "n=64", "slope", "(n", ">=", "16)"]
    assert lines[3].split() == ["linear", "0.024", "0.048", "0.096", "0.192", "1.00"]
    assert lines[5].split()[-1] == "0.00"  # never "-0.00" for a constant


def test_growth_table_without_a_fit_has_no_slope_column(capsys):
    assert growth_table("ops", [1, 2], {"a": [1, 2]}, digits=0) == {}
    assert capsys.readouterr().out.splitlines()[1].split() == ["layer", "n=1", "n=2"]


def test_growth_table_label_heads_the_column_of_series_names(capsys):
    # Notebook 17's rows are attention implementations, not layers.
    growth_table("ops", [1, 2], {"tiles": [1, 2]}, digits=0, label="attention")
    assert capsys.readouterr().out.splitlines()[1].split() == ["attention", "n=1", "n=2"]


def test_plot_growth_draws_every_series_and_visible_reference_lines():
    import matplotlib.pyplot as plt

    ns = [32, 64, 128]
    series = {"a": [4, 8, 16], "b": [1, 2, 4], "same as a": [4, 8, 16]}
    fig, ax = plt.subplots()
    lines = plot_growth(ax, ns, series, "cost", {"a": 1.0, "b": 1.0, "same as a": 1.0}, (1, 2))
    drawn = ax.get_lines()
    assert [line.get_label() for line in drawn] == [
        "a: slope 1.00",
        "b: slope 1.00",
        "same as a: slope 1.00",
        "slope 1 (reference)",
        "slope 2 (reference)",
    ]
    assert drawn[2].get_linestyle() == "--" and drawn[2].get_marker() == "x"  # on top of "a"
    assert lines[1] == [0.5, 1.0, 2.0] and lines[2] == [0.5, 2.0, 8.0]  # half the lowest start
    assert all(line[0] < min(values[0] for values in series.values()) for line in lines.values())
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    plt.close(fig)


def test_plot_patterns_draws_one_panel_per_pattern():
    import matplotlib.pyplot as plt

    patterns = {"all": torch.ones(4, 4, dtype=torch.bool), "causal": torch.ones(4, 4).tril() > 0}
    fig = plot_patterns(patterns, "which inputs")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["all", "causal"]
    assert (panels[1].images[0].get_array() == patterns["causal"].float().numpy()).all()
    assert fig._suptitle.get_text() == "which inputs"
    plt.close(fig)


# ---------------------------------------------------------------- the checks of helpers.checks


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_window(3), None),
        (lambda: check_window(2), "^window: expected an odd positive int"),
        (lambda: check_window(True), "^window:"),
        (lambda: check_path_length("recurrent", 2, 3), None),
        (lambda: check_path_length("recurrent", True, 3), "^n:"),
        (lambda: check_path_length("restricted", 5, False), "^size:"),
        (lambda: check_slope_points([1, 2], [3, 4]), None),
        (lambda: check_slope_points([1, 2], [0, 4]), "^ns, values: expected positive"),
    ],
)
def test_notebook_13_checks(call, message):
    if message is None:
        call()
    else:
        with pytest.raises(ValueError, match=message):
            call()
