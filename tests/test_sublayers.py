"""ResidualSublayer (notebook 07): both placements, where dropout acts, validation, exercise checks."""

import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.exercises import notebook_07
from helpers.model.sublayers import ResidualSublayer

D_MODEL = 8


@pytest.fixture
def x() -> torch.Tensor:
    torch.manual_seed(0)
    return 3.0 * torch.randn(2, 5, D_MODEL) + 1.0


@pytest.fixture
def sublayer() -> nn.Linear:
    torch.manual_seed(1)
    return nn.Linear(D_MODEL, D_MODEL)


def make(norm_first: bool, dropout: float = 0.0) -> ResidualSublayer:
    """A ResidualSublayer with a random gain and bias, so that a skipped affine step shows."""
    torch.manual_seed(2)
    residual = ResidualSublayer(D_MODEL, dropout, norm_first)
    with torch.no_grad():
        residual.norm.weight.copy_(1 + 0.5 * torch.randn(D_MODEL))
        residual.norm.bias.copy_(0.5 * torch.randn(D_MODEL))
    return residual


def run(residual: ResidualSublayer, sublayer: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return residual(x, sublayer)


def layer_norm(residual: ResidualSublayer, x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (D_MODEL,), residual.norm.weight, residual.norm.bias, residual.norm.eps)


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, atol=1e-5, rtol=1e-5)


@torch.no_grad()
def test_post_ln_is_norm_of_the_sum(x, sublayer):
    residual = make(norm_first=False, dropout=0.3).eval()
    assert torch.equal(residual.sublayer_input(x), x)
    output = run(residual, sublayer, x)
    assert output.shape == x.shape
    assert close(output, layer_norm(residual, x + sublayer(x)))


@torch.no_grad()
def test_pre_ln_normalises_the_sublayer_input_only(x, sublayer):
    residual = make(norm_first=True, dropout=0.3).eval()
    assert close(residual.sublayer_input(x), layer_norm(residual, x))
    output = run(residual, sublayer, x)
    assert output.shape == x.shape
    assert close(output, x + sublayer(layer_norm(residual, x)))


@torch.no_grad()
def test_placements_differ(x, sublayer):
    assert not close(run(make(False), sublayer, x), run(make(True), sublayer, x))


@torch.no_grad()
def test_post_ln_output_is_normalised_pre_ln_output_is_not(sublayer):
    torch.manual_seed(3)
    big = 10 * torch.randn(3, 4, D_MODEL)
    post = run(ResidualSublayer(D_MODEL), sublayer, big)
    pre = run(ResidualSublayer(D_MODEL, norm_first=True), sublayer, big)
    assert torch.allclose(post.mean(-1), torch.zeros(3, 4), atol=1e-5)
    assert torch.allclose(post.std(-1, correction=0), torch.ones(3, 4), atol=1e-3)
    assert pre.std(-1).mean() > 5


@pytest.mark.parametrize("norm_first", [False, True])
@torch.no_grad()
def test_dropout_acts_on_the_sublayer_output_before_the_add(x, sublayer, norm_first):
    residual = make(norm_first, dropout=0.5).train()
    y = sublayer(residual.sublayer_input(x))
    torch.manual_seed(7)
    output = residual.residual_output(x, y)
    torch.manual_seed(7)
    dropped = F.dropout(y, 0.5, training=True)
    added = x + dropped
    assert close(output, added if norm_first else layer_norm(residual, added))
    if norm_first:  # where the sublayer output was dropped, the residual passes unchanged
        zeros = dropped == 0
        assert zeros.any() and torch.equal(output[zeros], x[zeros])


@torch.no_grad()
def test_training_mode_is_random_eval_mode_is_not(x, sublayer):
    residual = make(norm_first=False, dropout=0.1)
    residual.train()
    assert not torch.equal(run(residual, sublayer, x), run(residual, sublayer, x))
    residual.eval()
    assert torch.equal(run(residual, sublayer, x), run(residual, sublayer, x))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("training", [False, True])
@torch.no_grad()
def test_the_two_halves_make_one_call(x, sublayer, norm_first, training):
    residual = make(norm_first, dropout=0.5).train(training)
    torch.manual_seed(5)
    two_halves = residual.residual_output(x, sublayer(residual.sublayer_input(x)))
    torch.manual_seed(5)
    assert torch.equal(two_halves, residual(x, sublayer))


def test_pre_ln_identity_path_carries_the_gradient(x):
    # With a sublayer that outputs zeros, a Pre-LN step is exactly the identity, gradient included.
    residual = make(norm_first=True)
    x = x.clone().requires_grad_()
    output = residual.residual_output(x, 0 * residual.sublayer_input(x))
    output.sum().backward()
    assert torch.equal(output, x) and torch.equal(x.grad, torch.ones_like(x))


def test_names_used_for_weight_copying():
    residual = ResidualSublayer(D_MODEL, 0.2, norm_first=True)
    assert isinstance(residual.norm, nn.LayerNorm) and isinstance(residual.dropout, nn.Dropout)
    assert residual.dropout.p == 0.2 and residual.norm_first is True
    assert list(residual.state_dict()) == ["norm.weight", "norm.bias"]
    assert ResidualSublayer(D_MODEL).norm_first is False


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"d_model": 0}, "d_model: expected a positive int, got 0"),
        ({"d_model": 8.0}, "d_model: expected a positive int, got 8.0"),
        ({"d_model": 8, "dropout": 1.0}, "dropout: expected a number in [0.0, 1.0), got 1.0"),
        ({"d_model": 8, "dropout": -0.1}, "dropout: expected a number in [0.0, 1.0), got -0.1"),
        ({"d_model": 8, "dropout": "0.1"}, "dropout: expected a number in [0.0, 1.0), got '0.1'"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ResidualSublayer(**arguments)


def test_the_smallest_model_width_is_allowed():
    residual = ResidualSublayer(1, dropout=0.0)
    assert residual.residual_output(torch.ones(1, 2, 1), torch.ones(1, 2, 1)).shape == (1, 2, 1)


def test_sublayer_output_of_another_shape_is_refused(x):
    # An inner layer: an assert, not a ValueError (the model's entry points validate their input).
    residual = ResidualSublayer(D_MODEL)
    with pytest.raises(AssertionError) as failure:
        residual.residual_output(x, x[:, :1])  # would broadcast silently
    assert "broadcasting" in str(failure.traceback[-1].statement)  # the failed assert's comment


# --- exercise checks -------------------------------------------------------------------------


def rms_norm_solution(x, gain, eps=1e-6):
    return gain * x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)


def rms_norm_as_layer_norm(x, gain, eps=1e-6):
    centred = x - x.mean(-1, keepdim=True)
    return gain * centred / torch.sqrt(centred.pow(2).mean(-1, keepdim=True) + eps)


def dropout_moments_solution(p):
    return 1.0, p / (1.0 - p)


def dropout_moments_mask_variance(p):
    return 1.0, p * (1.0 - p)


def is_pre_norm_solution(residual, d_model):
    x = 3 * torch.randn(2, 4, d_model) + 1
    with torch.no_grad():
        return torch.equal(residual(x, torch.zeros_like), x)


def is_pre_norm_from_zeros(residual, d_model):
    # A zero input: layer norm of zeros is its bias, zero at initialisation, so both look like Pre-LN.
    x = torch.zeros(2, 4, d_model)
    with torch.no_grad():
        return torch.equal(residual(x, torch.zeros_like), x)


def is_pre_norm_reads_attribute(residual, d_model):
    return residual.norm_first


CHECKS = [
    (notebook_07.check_rms_norm, rms_norm_solution, rms_norm_as_layer_norm, "that is LayerNorm"),
    (
        notebook_07.check_dropout_moments,
        dropout_moments_solution,
        dropout_moments_mask_variance,
        "variance of the mask",
    ),
    (
        notebook_07.check_is_pre_norm,
        is_pre_norm_solution,
        is_pre_norm_from_zeros,
        "Post-LN wrapper got True",
    ),
    (
        notebook_07.check_is_pre_norm,
        is_pre_norm_solution,
        is_pre_norm_reads_attribute,
        "AttributeError",
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong", "message"), CHECKS)
def test_exercise_checks(check, solution, wrong, message, verdicts):
    verdicts.exercise(check, solution, [(wrong, message)])


def test_rms_norm_check_agrees_with_the_formula():
    # The check compares with F.rms_norm; make sure that is the formula the exercise states.
    torch.manual_seed(4)
    x, gain = torch.randn(3, D_MODEL), torch.rand(D_MODEL)
    assert close(F.rms_norm(x, (D_MODEL,), gain, 1e-6), rms_norm_solution(x, gain, 1e-6))
