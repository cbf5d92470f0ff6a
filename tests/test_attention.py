"""helpers.model.attention (notebook 03) and the checks of notebook 03's exercises."""

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.exercises.notebook_03 import (
    check_attention_weights,
    check_general_scores,
    check_score_scale,
)
from helpers.model.attention import scaled_dot_product_attention


@pytest.fixture
def qkv():
    generator = torch.Generator().manual_seed(0)
    query = torch.randn(2, 3, 5, 8, generator=generator)
    key = torch.randn(2, 3, 7, 8, generator=generator)
    value = torch.randn(2, 3, 7, 6, generator=generator)
    return query, key, value


def test_shapes_and_rows_sum_to_one(qkv):
    query, key, value = qkv
    output, weights = scaled_dot_product_attention(query, key, value)
    assert output.shape == (2, 3, 5, 6)
    assert weights.shape == (2, 3, 5, 7)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, 3, 5))


def test_equals_the_formula(qkv):
    query, key, value = qkv
    output, weights = scaled_dot_product_attention(query, key, value)
    expected = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(8), dim=-1)
    torch.testing.assert_close(weights, expected)
    torch.testing.assert_close(output, expected @ value)


@pytest.mark.parametrize("with_mask", [False, True])
def test_matches_torch_sdpa(qkv, with_mask):
    query, key, value = qkv
    mask = None
    if with_mask:
        mask = torch.rand(2, 1, 5, 7, generator=torch.Generator().manual_seed(1)) > 0.5
        mask[..., 0] = True  # no fully masked row
    ours, _ = scaled_dot_product_attention(query, key, value, mask)
    theirs = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


def test_masked_keys_get_zero_weight_and_full_masked_rows_are_zero(qkv):
    query, key, value = qkv
    mask = torch.ones(5, 7, dtype=torch.bool)
    mask[:, 2] = False  # nobody sees key 2
    mask[4] = False  # query 4 sees nothing
    output, weights = scaled_dot_product_attention(query, key, value, mask)
    assert torch.all(weights[..., 2] == 0)
    assert torch.all(weights[..., 4, :] == 0) and torch.all(output[..., 4, :] == 0)
    torch.testing.assert_close(weights[..., :4, :].sum(dim=-1), torch.ones(2, 3, 4))
    assert not torch.isnan(output).any()


def test_float16_mask_does_not_overflow(qkv):
    query, key, value = (tensor.half() for tensor in qkv)
    mask = torch.ones(5, 7, dtype=torch.bool)
    mask[:, -2:] = False
    output, weights = scaled_dot_product_attention(query, key, value, mask)
    reference, _ = scaled_dot_product_attention(*(t.float() for t in qkv), mask)
    assert torch.all(weights[..., -2:] == 0)
    torch.testing.assert_close(output.float(), reference, rtol=1e-2, atol=1e-2)


def test_dropout_applies_to_output_not_to_returned_weights(qkv):
    query, key, value = qkv
    dropout = nn.Dropout(p=0.5).train()
    torch.manual_seed(3)
    output, weights = scaled_dot_product_attention(query, key, value, dropout=dropout)
    torch.manual_seed(3)
    torch.testing.assert_close(output, dropout(weights) @ value)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, 3, 5))


def test_gradients_flow_without_nan(qkv):
    query, key, value = (tensor.clone().requires_grad_() for tensor in qkv)
    mask = torch.ones(5, 7, dtype=torch.bool)
    mask[0] = False
    output, _ = scaled_dot_product_attention(query, key, value, mask)
    output.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (query, key, value))


@pytest.mark.parametrize("change", ["key", "value"])
def test_shapes_that_cannot_attend_fail_an_assert(qkv, change):
    # An inner function: the model's entry points validate their input; here an assert is enough.
    query, key, value = qkv
    if change == "key":
        key = torch.randn(2, 3, 7, 4)
    else:
        value = torch.randn(2, 3, 6, 6)
    with pytest.raises(AssertionError):
        scaled_dot_product_attention(query, key, value)


def test_a_mask_that_is_not_bool_raises_value_error_naming_it(qkv):
    # ~ on a 0/1 integer mask would give -1/-2, not its complement: refused with a clear error.
    query, key, value = qkv
    with pytest.raises(ValueError, match="^mask: expected a bool tensor"):
        scaled_dot_product_attention(query, key, value, torch.ones(5, 7, dtype=torch.uint8))


# The exercise checks: the solution passes; unfinished and wrong answers fail with a message.


def attention_weights_solution(query, key):
    return torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1]), dim=-1)


def attention_weights_unscaled(query, key):
    return torch.softmax(query @ key.transpose(-2, -1), dim=-1)


def attention_weights_wrong_dim(query, key):
    return torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1]), dim=-2)


def attention_weights_divided(divisor):
    """A solution that divides the scores by divisor(query) instead of sqrt(d_k)."""
    return lambda query, key: torch.softmax(query @ key.transpose(-2, -1) / divisor(query), dim=-1)


def attention_weights_with_output(query, key):
    weights = attention_weights_solution(query, key)
    return weights @ key, weights


def attention_weights_key_dot_t(query, key):
    with warnings.catch_warnings():  # x.T on a tensor of more than 2 dimensions is deprecated
        warnings.simplefilter("ignore")
        return attention_weights_solution_with(query, key.T)


def attention_weights_solution_with(query, key_t):
    return torch.softmax(query @ key_t / math.sqrt(query.shape[-1]), dim=-1)


SMALLER_INPUTS = "on 4-D inputs (batch, heads, len, d_k) but works on smaller ones"
KEY_NOT_TRANSPOSED = "transpose the key's last two dimensions first, key.transpose(-2, -1)"

CHECKS = [
    (
        check_attention_weights,
        attention_weights_solution,
        [
            (attention_weights_unscaled, "divide Q K^T by sqrt(d_k)"),
            (attention_weights_wrong_dim, "dim=-1"),
            (
                lambda query, key: query,
                "expected shape (2, 3, 5, 7) = (batch, heads, len_q, len_k), got (2, 3, 5, 8)",
            ),
            (
                attention_weights_with_output,
                "return only the weights tensor, not (output, weights)",
            ),
            (
                lambda query, key: attention_weights_solution(key, query),
                "got (2, 3, 7, 5), the transpose: queries and keys are swapped",
            ),
            (attention_weights_key_dot_t, SMALLER_INPUTS),
            (
                lambda query, key: attention_weights_solution_with(query, key.transpose(1, 2)),
                SMALLER_INPUTS,
            ),
            (lambda query, key: attention_weights_solution_with(query, key), KEY_NOT_TRANSPOSED),
            (attention_weights_divided(lambda query: query.shape[-1]), "divided by d_k = 8 itself"),
            (
                attention_weights_divided(lambda query: math.sqrt(query.shape[-2])),
                "divided by sqrt(5), len_q: divide by sqrt(d_k), with d_k = query.shape[-1] = 8",
            ),
        ],
    ),
    (
        check_score_scale,
        lambda d_k, sigma: math.sqrt(d_k) * sigma**2,
        [
            (lambda d_k, sigma: math.sqrt(d_k), "sigma = 1"),
            (lambda d_k, sigma: math.sqrt(d_k) * sigma, "sigma^4"),
            (lambda d_k, sigma: "big", "expected a number"),
            (
                lambda d_k, sigma: torch.full((2,), math.sqrt(d_k) * sigma**2),
                "expected a number, got a tensor of shape (2,): return one number",
            ),
        ],
    ),
    (
        check_general_scores,
        lambda q, k, w: (q @ w) @ k.transpose(-2, -1),
        [
            (
                lambda q, k, w: (q @ w.T) @ k.transpose(-2, -1),
                "raised RuntimeError: w is already (d_q, d_k), so query @ w needs no transpose",
            ),
            (lambda q, k, w: torch.zeros(2, 5, 7), "q_i^T W k_j"),
            (
                lambda q, k, w: k @ w.T @ q.transpose(-2, -1),
                "expected shape (2, 5, 7) = (batch, len_q, len_k), got (2, 7, 5), the transpose: "
                "queries and keys are swapped",
            ),
            (lambda q, k, w: torch.bmm(q @ w, k), KEY_NOT_TRANSPOSED),
            (lambda q, k, w: (q @ w) @ k.transpose(0, 1), "works on 2-D ones"),
            (lambda q, k, w: ((q @ w) @ k.transpose(-2, -1), w), "return only the scores tensor"),
        ],
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong"), CHECKS)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)
