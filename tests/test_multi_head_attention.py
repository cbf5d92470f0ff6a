"""MultiHeadAttention (notebook 05): shapes, equivalences, masks, validation, exercise checks."""

import pytest
import torch
import torch.nn.functional as F
from shared_models import D_MODEL, N_HEADS
from torch import nn

from helpers.exercises import notebook_05
from helpers.model.attention import scaled_dot_product_attention
from helpers.model.masks import look_ahead_mask, padding_mask
from helpers.model.multi_head_attention import MultiHeadAttention

ATOL = RTOL = 1e-5


def to_torch(mha: MultiHeadAttention) -> nn.MultiheadAttention:
    reference = nn.MultiheadAttention(D_MODEL, N_HEADS, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(mha.w_qkv.weight)
        reference.in_proj_bias.copy_(mha.w_qkv.bias)
        reference.out_proj.weight.copy_(mha.w_o.weight)
        reference.out_proj.bias.copy_(mha.w_o.bias)
    return reference


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, atol=ATOL, rtol=RTOL)


@torch.no_grad()
def test_shapes_of_self_and_cross_attention(mha, x):
    memory = torch.randn(2, 7, D_MODEL)
    output, weights = mha(x, memory, memory, need_weights=True)
    assert output.shape == (2, 5, D_MODEL)
    assert weights.shape == (2, N_HEADS, 5, 7)
    assert close(weights.sum(dim=-1), torch.ones(2, N_HEADS, 5))
    output, weights = mha(x, memory, memory)
    assert output.shape == (2, 5, D_MODEL) and weights is None


@torch.no_grad()
def test_free_d_k_and_d_v(x):
    mha = MultiHeadAttention(D_MODEL, 3, d_k=5, d_v=7)
    assert (mha.d_k, mha.d_v) == (5, 7)
    roles = mha.input_projections()
    assert roles["q"][0].shape == (15, D_MODEL) and roles["k"][0].shape == (15, D_MODEL)
    assert roles["v"][0].shape == (21, D_MODEL) and mha.w_o.weight.shape == (D_MODEL, 21)
    assert mha.w_qkv.weight.shape == (51, D_MODEL)
    output, weights = mha(x, x, x, need_weights=True)
    assert output.shape == x.shape and weights.shape == (2, 3, 5, 5)


@torch.no_grad()
def test_matches_nn_multihead_attention_without_mask(mha, x):
    reference = to_torch(mha)
    ours, weights = mha(x, x, x, need_weights=True)
    theirs, average = reference(x, x, x)
    _, per_head = reference(x, x, x, average_attn_weights=False)
    assert close(ours, theirs)
    assert close(weights.mean(dim=1), average)
    assert close(weights, per_head)


@torch.no_grad()
def test_matches_nn_multihead_attention_with_padding(mha, x):
    ids = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]])
    reference = to_torch(mha)
    ours, weights = mha(x, x, x, padding_mask(ids, 0), need_weights=True)
    theirs, per_head = reference(x, x, x, key_padding_mask=ids == 0, average_attn_weights=False)
    assert close(ours, theirs)
    assert close(weights, per_head)
    assert torch.all(weights[1, ..., 3:] == 0)


@torch.no_grad()
def test_matches_nn_multihead_attention_with_look_ahead_mask(mha, x):
    reference = to_torch(mha)
    ours, _ = mha(x, x, x, look_ahead_mask(5))
    theirs, _ = reference(x, x, x, attn_mask=~look_ahead_mask(5)[0, 0])  # True = hidden there
    assert close(ours, theirs)


@torch.no_grad()
def test_cross_attention_matches_nn_multihead_attention(mha, x):
    memory = torch.randn(2, 7, D_MODEL)
    ours, _ = mha(x, memory, memory)
    theirs, _ = to_torch(mha)(x, memory, memory)
    assert close(ours, theirs)


@torch.no_grad()
def test_batched_heads_equal_a_loop_over_heads(mha, x):
    mask = look_ahead_mask(5)
    heads, head_weights = [], []
    (w_q, b_q), (w_k, b_k), (w_v, b_v) = mha.input_projections().values()
    for head in range(N_HEADS):
        rows = slice(head * mha.d_k, (head + 1) * mha.d_k)
        q = F.linear(x, w_q[rows], b_q[rows])
        k = F.linear(x, w_k[rows], b_k[rows])
        v = F.linear(x, w_v[rows], b_v[rows])
        output, weights = scaled_dot_product_attention(q, k, v, mask[:, 0])
        heads.append(output)
        head_weights.append(weights)
    loop_output = mha.w_o(torch.cat(heads, dim=-1))
    output, weights = mha(x, x, x, mask, need_weights=True)
    assert close(output, loop_output)
    assert close(weights, torch.stack(head_weights, dim=1))


@torch.no_grad()
def test_fast_path_equals_explicit_path(mha, x):
    ids = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]])
    for mask in (None, look_ahead_mask(5), padding_mask(ids, 0)):
        explicit, weights = mha(x, x, x, mask, need_weights=True)
        fast, no_weights = mha(x, x, x, mask)
        separate, _ = mha(x, x.clone(), x.clone(), mask)  # not one object: three projections
        assert no_weights is None and weights is not None
        assert close(fast, explicit)
        assert close(separate, fast)


@torch.no_grad()
def test_look_ahead_mask_hides_the_future(mha, x):
    changed = x.clone()
    changed[:, 3:] = torch.randn(2, 2, D_MODEL)
    for need_weights in (False, True):
        before, _ = mha(x, x, x, look_ahead_mask(5), need_weights)
        after, _ = mha(changed, changed, changed, look_ahead_mask(5), need_weights)
        assert torch.equal(before[:, :3], after[:, :3])
        assert not close(before[:, 3:], after[:, 3:])


@torch.no_grad()
def test_padded_keys_do_not_change_the_output(mha, x):
    ids = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]])
    changed = x.clone()
    changed[1, 3:] = torch.randn(2, D_MODEL)  # new vectors at the two pad positions
    before, _ = mha(x, x, x, padding_mask(ids, 0))
    after, _ = mha(changed, changed, changed, padding_mask(ids, 0))
    # Real positions of sentence 1 read only real keys; pad positions' own outputs may change.
    assert close(before[1, :3], after[1, :3])
    assert torch.equal(before[0], after[0])


def test_parameter_count():
    def formula(d_model, n_heads, d_k, d_v):
        return (
            2 * (d_model + 1) * n_heads * d_k
            + (d_model + 1) * n_heads * d_v
            + (n_heads * d_v + 1) * d_model
        )

    def count(module):
        return sum(parameter.numel() for parameter in module.parameters())

    for d_model, n_heads, d_k, d_v in [(512, 8, 64, 64), (64, 1, 64, 64), (32, 4, 3, 11)]:
        assert count(MultiHeadAttention(d_model, n_heads, d_k, d_v)) == formula(
            d_model, n_heads, d_k, d_v
        )
    assert count(MultiHeadAttention(512, 8)) == 4 * 512**2 + 4 * 512
    assert count(MultiHeadAttention(512, 8)) == count(nn.MultiheadAttention(512, 8))
    assert count(MultiHeadAttention(64, 4, bias=False)) == 4 * 64**2


@torch.no_grad()
def test_two_sizes_coexist(x):
    torch.manual_seed(0)
    four = MultiHeadAttention(D_MODEL, 4).eval()
    before, _ = four(x, x, x)
    two = MultiHeadAttention(D_MODEL, 2).eval()
    assert two(x, x, x, need_weights=True)[1].shape[1] == 2
    assert torch.equal(four(x, x, x)[0], before)
    assert four(x, x, x, need_weights=True)[1].shape[1] == 4


def test_attention_dropout_only_in_training(x):
    torch.manual_seed(0)
    mha = MultiHeadAttention(D_MODEL, N_HEADS, dropout=0.5)
    with torch.no_grad():
        for need_weights in (False, True):
            mha.train()
            assert not torch.equal(
                mha(x, x, x, None, need_weights)[0], mha(x, x, x, None, need_weights)[0]
            )
            mha.eval()
            assert torch.equal(
                mha(x, x, x, None, need_weights)[0], mha(x, x, x, None, need_weights)[0]
            )


@pytest.mark.parametrize(
    "arguments, name",
    [((30, 4), "n_heads"), ((16, 0), "n_heads"), ((16, -2), "n_heads")],
)
def test_bad_sizes_raise(arguments, name):
    with pytest.raises(ValueError, match=name):
        MultiHeadAttention(*arguments)


def test_a_float_mask_is_refused_on_both_paths(mha, x):
    # The fused path would add a float mask to the scores. Shapes are not checked here: inside
    # the model they are right by construction, and Transformer.encode/decode/forward check what
    # a user gives them (tests/test_transformer.py).
    with pytest.raises(ValueError, match="^mask: expected a bool tensor"):
        mha(x, x, x, torch.ones(5, 5))
    with pytest.raises(ValueError, match="^mask: expected a bool tensor"):
        mha(x, x, x, torch.ones(5, 5), need_weights=True)


# --- exercise checks -------------------------------------------------------------------------


def split_heads_solution(x, n_heads):
    return torch.stack(x.chunk(n_heads, dim=-1), dim=1)


def split_heads_wrong(x, n_heads):
    batch, seq_len, width = x.shape
    return x.reshape(batch, n_heads, seq_len, width // n_heads)


def output_as_sum_solution(mha, x):
    q, k, v = mha.project_query_key_value(x, x, x)
    heads, _ = scaled_dot_product_attention(
        mha.split_heads(q, mha.d_k), mha.split_heads(k, mha.d_k), mha.split_heads(v, mha.d_v)
    )
    output = mha.w_o.bias
    for head in range(mha.n_heads):
        block = mha.w_o.weight[:, head * mha.d_v : (head + 1) * mha.d_v]
        output = output + heads[:, head] @ block.T
    return output


def output_as_sum_bias_per_head(mha, x):
    return output_as_sum_solution(mha, x) + (mha.n_heads - 1) * mha.w_o.bias


def multi_query_solution(d_model, n_heads):
    d_k = d_model // n_heads
    return 2 * (d_model * d_model + d_model) + 2 * (d_model * d_k + d_k)


def multi_query_as_mha(d_model, n_heads):
    return 4 * d_model**2 + 4 * d_model


CHECKS = [
    (notebook_05.check_split_heads, split_heads_solution, split_heads_wrong, "mixes positions"),
    (
        notebook_05.check_output_as_sum_over_heads,
        output_as_sum_solution,
        output_as_sum_bias_per_head,
        "once per head",
    ),
    (
        notebook_05.check_multi_query_parameter_count,
        multi_query_solution,
        multi_query_as_mha,
        "ordinary multi-head",
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong", "message"), CHECKS)
def test_exercise_checks(check, solution, wrong, message, verdicts):
    verdicts.exercise(check, solution, [(wrong, message)])


# ---------------------------------------------------------------- the fused projection


def test_w_qkv_starts_as_three_separate_linear_layers_would():
    torch.manual_seed(3)
    separate = [nn.Linear(D_MODEL, D_MODEL) for _ in range(4)]  # W^Q, W^K, W^V, W^O in order
    torch.manual_seed(3)
    mha = MultiHeadAttention(D_MODEL, N_HEADS)
    for (weight, bias), linear in zip(mha.input_projections().values(), separate, strict=False):
        assert torch.equal(weight, linear.weight) and torch.equal(bias, linear.bias)
    assert torch.equal(mha.w_o.weight, separate[3].weight)


def test_input_projections_are_views_of_the_one_parameter(mha):
    weight, _ = mha.input_projections()["k"]
    with torch.no_grad():
        weight.fill_(2.0)
    assert torch.all(mha.w_qkv.weight[D_MODEL : 2 * D_MODEL] == 2.0)
    assert [name for name, _ in mha.named_parameters()] == [
        "w_qkv.weight", "w_qkv.bias", "w_o.weight", "w_o.bias"
    ]  # fmt: skip


@torch.no_grad()
def test_a_row_with_no_allowed_key_is_zero_not_nan_on_the_fused_path(mha, x):
    ids = torch.tensor([[5, 6, 7, 0, 0], [0, 0, 0, 0, 0]])  # the second sentence is all padding
    mask = padding_mask(ids, pad_id=0)
    fused, _ = mha(x, x, x, mask)
    explicit, weights = mha(x, x, x, mask, need_weights=True)
    assert not torch.isnan(fused).any()
    torch.testing.assert_close(fused, explicit, atol=ATOL, rtol=RTOL)
    assert torch.all(weights[1] == 0)
    # Output of an all-padding row: no head contributes, so only W^O's bias is left.
    torch.testing.assert_close(fused[1], mha.w_o.bias.expand(5, D_MODEL))


def test_attention_shape_errors_fail_an_assert():
    # scaled_dot_product_attention is an inner function (notebook 03): it asserts its shapes.
    query, key = torch.randn(2, 4, 6), torch.randn(2, 5, 6)
    with pytest.raises(AssertionError):
        scaled_dot_product_attention(query, torch.randn(2, 5, 3), torch.randn(2, 5, 6))
    with pytest.raises(AssertionError):
        scaled_dot_product_attention(query, key, torch.randn(2, 4, 6))
