"""PositionwiseFeedForward (notebook 06): formula, Conv1d equivalence, position-wise, checks."""

import re

import pytest
import torch
from torch import nn

from helpers.exercises import notebook_06
from helpers.model.feed_forward import PositionwiseFeedForward

D_MODEL, D_FF = 8, 32


@pytest.fixture
def ffn() -> PositionwiseFeedForward:
    torch.manual_seed(0)
    return PositionwiseFeedForward(D_MODEL, D_FF).eval()


@pytest.fixture
def x() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(2, 6, D_MODEL)


def close(a: torch.Tensor, b: torch.Tensor, tolerance: float = 1e-5) -> bool:
    return torch.allclose(a, b, atol=tolerance, rtol=tolerance)


@torch.no_grad()
def test_shape_and_formula(ffn, x):
    output = ffn(x)
    assert output.shape == x.shape
    w1, b1 = ffn.linear1.weight.T, ffn.linear1.bias
    w2, b2 = ffn.linear2.weight.T, ffn.linear2.bias
    assert close(output, torch.clamp(x @ w1 + b1, min=0) @ w2 + b2)
    assert ffn.linear1.weight.shape == (D_FF, D_MODEL) and ffn.linear2.weight.shape == (
        D_MODEL,
        D_FF,
    )


@torch.no_grad()
def test_any_leading_axes(ffn, x):
    assert close(ffn(x[0, 0]), ffn(x)[0, 0])  # one vector
    assert ffn(x[None]).shape == (1, *x.shape)


@torch.no_grad()
def test_conv1d_with_kernel_size_one_agrees(ffn, x):
    conv1 = nn.Conv1d(D_MODEL, D_FF, kernel_size=1)
    conv2 = nn.Conv1d(D_FF, D_MODEL, kernel_size=1)
    conv1.weight.copy_(ffn.linear1.weight.unsqueeze(-1))
    conv1.bias.copy_(ffn.linear1.bias)
    conv2.weight.copy_(ffn.linear2.weight.unsqueeze(-1))
    conv2.bias.copy_(ffn.linear2.bias)
    conv_output = conv2(torch.relu(conv1(x.transpose(1, 2)))).transpose(1, 2)
    assert close(conv_output, ffn(x))


@torch.no_grad()
def test_matches_the_feed_forward_path_of_nn_transformer_encoder_layer(ffn, x):
    layer = nn.TransformerEncoderLayer(D_MODEL, 2, D_FF, dropout=0.3, batch_first=True)
    layer.linear1.load_state_dict(ffn.linear1.state_dict())
    layer.linear2.load_state_dict(ffn.linear2.state_dict())
    ours = PositionwiseFeedForward(D_MODEL, D_FF, dropout=0.3)
    ours.load_state_dict(ffn.state_dict())
    ours.train()
    layer.train()
    torch.manual_seed(5)
    mine = ours(x)
    torch.manual_seed(5)
    theirs = layer.linear2(layer.dropout(layer.activation(layer.linear1(x))))
    assert torch.equal(mine, theirs)  # same dropout draws: dropout sits in the same place


@torch.no_grad()
def test_matches_the_layers_own_forward_reduced_to_its_feed_forward_path(ffn, x):
    # Notebook 06's check: nn.TransformerEncoderLayer.forward itself, in Pre-LN, attention output
    # zeroed and nothing around the feed-forward path, computes x + FFN(x) with the same dropout.
    layer = nn.TransformerEncoderLayer(D_MODEL, 2, D_FF, 0.3, batch_first=True, norm_first=True)
    layer.linear1.load_state_dict(ffn.linear1.state_dict())
    layer.linear2.load_state_dict(ffn.linear2.state_dict())
    layer.self_attn.out_proj.weight.zero_()
    layer.self_attn.out_proj.bias.zero_()
    layer.self_attn.dropout = 0.0
    layer.dropout1 = layer.dropout2 = layer.norm2 = nn.Identity()
    ours = PositionwiseFeedForward(D_MODEL, D_FF, dropout=0.3)
    ours.load_state_dict(ffn.state_dict())
    ours.train()
    layer.train()
    torch.manual_seed(5)
    mine = x + ours(x)
    torch.manual_seed(5)
    assert torch.equal(mine, layer(x))
    moved = PositionwiseFeedForward(D_MODEL, D_FF, dropout=0.3)  # dropout after linear2 instead
    moved.load_state_dict(ffn.state_dict())
    torch.manual_seed(5)
    wrong = x + moved.dropout(moved.linear2(torch.relu(moved.linear1(x))))
    torch.manual_seed(5)
    assert not torch.equal(wrong, layer(x))


@torch.no_grad()
def test_permuting_positions_commutes(ffn, x):
    permutation = torch.tensor([3, 0, 5, 1, 4, 2])
    assert close(ffn(x[:, permutation]), ffn(x)[:, permutation], 1e-6)


@torch.no_grad()
def test_one_position_changes_only_its_own_output(ffn, x):
    reference = ffn(x)
    for position in range(x.shape[1]):
        changed = x.clone()
        changed[:, position] += 1.0
        moved = (ffn(changed) - reference).abs().amax(dim=(0, 2)) > 0
        assert moved.tolist() == [t == position for t in range(x.shape[1])]


def test_parameter_count():
    for d_model, d_ff in [(512, 2048), (16, 64), (3, 5)]:
        count = sum(p.numel() for p in PositionwiseFeedForward(d_model, d_ff).parameters())
        assert count == 2 * d_model * d_ff + d_ff + d_model


def test_parameters_are_registered_and_saved():
    ffn = PositionwiseFeedForward(D_MODEL, D_FF)
    assert set(ffn.state_dict()) == {
        "linear1.weight",
        "linear1.bias",
        "linear2.weight",
        "linear2.bias",
    }
    assert len(list(ffn.parameters())) == 4


def test_dropout_only_in_training(x):
    torch.manual_seed(0)
    ffn = PositionwiseFeedForward(D_MODEL, D_FF, dropout=0.5)
    with torch.no_grad():
        ffn.train()
        assert not torch.equal(ffn(x), ffn(x))
        ffn.eval()
        assert torch.equal(ffn(x), ffn(x))


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((0, 4), "d_model: expected a positive int, got 0"),
        ((4, -1), "d_ff: expected a positive int, got -1"),
        ((4.0, 8), "d_model: expected a positive int, got 4.0"),
    ],
)
def test_bad_sizes_raise_naming_the_argument_and_its_value(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        PositionwiseFeedForward(*arguments)


def test_the_smallest_sizes_are_allowed():
    assert PositionwiseFeedForward(1, 1)(torch.zeros(1, 2, 1)).shape == (1, 2, 1)


def test_an_input_of_another_width_fails_inside_the_linear_layer(ffn):
    # An inner layer: no check of its own; nn.Linear refuses the wrong width.
    with pytest.raises(RuntimeError):
        ffn(torch.randn(2, 6, 5))


# --- exercise checks -------------------------------------------------------------------------


def by_hand_solution(ffn, x):
    hidden = torch.relu(x @ ffn.linear1.weight.T + ffn.linear1.bias)
    return hidden @ ffn.linear2.weight.T + ffn.linear2.bias


def by_hand_without_relu(ffn, x):
    return (x @ ffn.linear1.weight.T + ffn.linear1.bias) @ ffn.linear2.weight.T + ffn.linear2.bias


def conv3_solution(linear):
    conv = nn.Conv1d(linear.in_features, linear.out_features, kernel_size=3, padding=1)
    with torch.no_grad():
        conv.weight.zero_()
        conv.weight[:, :, 1] = linear.weight
        conv.bias.copy_(linear.bias)
    return conv


def conv3_side_tap(linear):
    conv = conv3_solution(linear)
    with torch.no_grad():
        conv.weight[:, :, 0], conv.weight[:, :, 1] = conv.weight[:, :, 1].clone(), 0.0
    return conv


def conv3_taps_not_zeroed(linear):
    conv = nn.Conv1d(linear.in_features, linear.out_features, kernel_size=3, padding=1)
    with torch.no_grad():
        conv.weight[:, :, 1] = linear.weight
        conv.bias.copy_(linear.bias)
    return conv


def inputs_read_solution(module, x, position):
    x = x.clone().requires_grad_()
    module(x)[:, position].sum().backward()
    return x.grad.abs().amax(dim=(0, 2)) > 0


def inputs_read_forwards(module, x, position):
    return torch.arange(x.shape[1]) >= position  # which outputs an input reaches: the reverse


CHECKS = [
    (notebook_06.check_feed_forward_by_hand, by_hand_solution, by_hand_without_relu, "ReLU"),
    (notebook_06.check_conv3_from_linear, conv3_solution, conv3_side_tap, "shifted by one"),
    (notebook_06.check_conv3_from_linear, conv3_solution, conv3_taps_not_zeroed, "exactly zero"),
    (notebook_06.check_inputs_read, inputs_read_solution, inputs_read_forwards, "reads inputs"),
]


@pytest.mark.parametrize(("check", "solution", "wrong", "message"), CHECKS)
def test_exercise_checks(check, solution, wrong, message, verdicts):
    verdicts.exercise(check, solution, [(wrong, message)])


def test_by_hand_check_explains_a_transposed_weight(verdicts):
    def transposed(ffn, x):
        return torch.relu(x @ ffn.linear1.weight + ffn.linear1.bias) @ ffn.linear2.weight

    verdicts.fails(
        notebook_06.check_feed_forward_by_hand, transposed, "(out_features, in_features)"
    )
