"""helpers.model.masks (notebook 04) and the checks of notebook 04's exercises."""

import pytest
import torch
import torch.nn.functional as F

from helpers.exercises.notebook_04 import (
    check_padding_mask_from_lengths,
    check_sliding_window_mask,
    check_to_additive_mask,
)
from helpers.model.attention import scaled_dot_product_attention
from helpers.model.masks import decoder_self_attention_mask, look_ahead_mask, padding_mask

PAD = 0
IDS = torch.tensor([[5, 6, 7, 8], [5, 6, PAD, PAD]])


def test_padding_mask_shape_and_values():
    mask = padding_mask(IDS, PAD)
    assert mask.shape == (2, 1, 1, 4) and mask.dtype == torch.bool
    assert mask[:, 0, 0].tolist() == [[True] * 4, [True, True, False, False]]


def test_padding_mask_uses_the_given_pad_id():
    assert padding_mask(IDS, 5)[:, 0, 0, 0].tolist() == [False, False]


def test_pad_keys_get_zero_weight_after_broadcasting_over_heads_and_queries():
    generator = torch.Generator().manual_seed(0)
    query, key, value = (torch.randn(2, 3, 4, 8, generator=generator) for _ in range(3))
    _, weights = scaled_dot_product_attention(query, key, value, padding_mask(IDS, PAD))
    assert weights.shape == (2, 3, 4, 4)
    assert torch.all(weights[1, :, :, 2:] == 0)
    assert torch.all(weights[0] > 0)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, 3, 4))


def test_look_ahead_mask_is_the_lower_triangle():
    mask = look_ahead_mask(4)
    assert mask.shape == (1, 1, 4, 4) and mask.dtype == torch.bool
    expected = [[j <= i for j in range(4)] for i in range(4)]
    assert mask[0, 0].tolist() == expected


def test_look_ahead_mask_follows_the_device_argument():
    assert look_ahead_mask(3, device="meta").device.type == "meta"


def test_decoder_mask_is_made_on_the_device_of_the_ids():
    """Built elsewhere, the look-ahead half would fail to combine with ids on a GPU."""
    mask = decoder_self_attention_mask(IDS.to("meta"), PAD)
    assert mask.device.type == "meta"
    assert mask.shape == (2, 1, 4, 4)


def test_decoder_mask_combines_padding_and_look_ahead():
    mask = decoder_self_attention_mask(IDS, PAD)
    assert mask.shape == (2, 1, 4, 4)
    assert torch.equal(mask[0, 0], look_ahead_mask(4)[0, 0])
    expected = look_ahead_mask(4)[0, 0].clone()
    expected[:, 2:] = False
    assert torch.equal(mask[1, 0], expected)


def test_masks_work_with_torch_sdpa():
    generator = torch.Generator().manual_seed(1)
    query, key, value = (torch.randn(2, 3, 4, 8, generator=generator) for _ in range(3))
    mask = decoder_self_attention_mask(IDS, PAD)
    ours, _ = scaled_dot_product_attention(query, key, value, mask)
    theirs = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


def test_look_ahead_mask_makes_attention_causal():
    generator = torch.Generator().manual_seed(2)
    x = torch.randn(1, 6, 8, generator=generator)
    mask = look_ahead_mask(6)
    reference, _ = scaled_dot_product_attention(x, x, x, mask)
    for t in range(5):
        changed = x.clone()
        changed[:, t + 1 :] = torch.randn(1, 5 - t, 8, generator=generator)
        output, _ = scaled_dot_product_attention(changed, changed, changed, mask)
        assert torch.equal(output[..., : t + 1, :], reference[..., : t + 1, :])
        assert not torch.equal(output[..., t + 1 :, :], reference[..., t + 1 :, :])


def test_look_ahead_mask_refuses_a_size_that_is_not_a_positive_int():
    for size in (0, 2.0):
        with pytest.raises(ValueError, match="^size: expected a positive int"):
            look_ahead_mask(size)


def test_padding_mask_asserts_its_ids_are_two_dimensional():
    # An inner function: the model's entry points check the ids; here an assert is enough.
    for ids in (IDS[0], IDS[:, :, None]):
        with pytest.raises(AssertionError) as failure:
            padding_mask(ids, PAD)
        assert "ids: (batch, seq_len)" in str(failure.traceback[-1].statement)  # its comment


# The exercise checks: the solution passes; unfinished and wrong answers fail with a message.


def padding_mask_solution(lengths, seq_len):
    return (torch.arange(seq_len)[None, :] < lengths[:, None])[:, None, None, :]


def additive_mask_solution(mask):
    return torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))


def sliding_window_solution(size, window):
    ones = torch.ones(size, size, dtype=torch.bool)
    return (ones.tril() & ones.triu(diagonal=-(window - 1)))[None, None]


def sliding_window_symmetric(size, window):
    ones = torch.ones(size, size, dtype=torch.bool)
    return (ones.tril(diagonal=window - 1) & ones.triu(diagonal=-(window - 1)))[None, None]


CHECKS = [
    (
        check_padding_mask_from_lengths,
        padding_mask_solution,
        [
            (lambda lengths, seq_len: ~padding_mask_solution(lengths, seq_len), "inverted"),
            (
                lambda lengths, seq_len: padding_mask_solution(lengths, seq_len)[:, 0, 0],
                "(batch, 1, 1, seq_len)",
            ),
            (
                lambda lengths, seq_len: padding_mask_solution(lengths + 1, seq_len),
                "off by one",
            ),
            (lambda lengths, seq_len: padding_mask_solution(lengths, seq_len).int(), "dtype"),
            # Right for the first batch only: the checks must try more than one case.
            (
                lambda lengths, seq_len: padding_mask_solution(lengths.clamp(min=1), seq_len),
                "for lengths [0, 1] and seq_len=3, row 0 should be [False, False, False]",
            ),
            (
                lambda lengths, seq_len: (
                    padding_mask_solution(lengths, seq_len)
                    if len(lengths) > 1
                    else padding_mask_solution(lengths - 1, seq_len)
                ),
                "for lengths [4] and seq_len=4, row 0 should be [True, True, True, True]",
            ),
        ],
    ),
    (
        check_to_additive_mask,
        additive_mask_solution,
        [
            (lambda mask: torch.zeros(mask.shape).masked_fill(mask, float("-inf")), "inverted"),
            (lambda mask: torch.zeros(mask.shape).masked_fill(~mask, -1e9), "-inf"),
            (lambda mask: mask, "dtype"),
        ],
    ),
    (
        check_sliding_window_mask,
        sliding_window_solution,
        [
            (lambda size, window: sliding_window_solution(size, window + 1), "off by one"),
            (sliding_window_symmetric, "later positions"),
            (
                lambda size, window: sliding_window_solution(size, window)[0, 0],
                "(1, 1, size, size)",
            ),
        ],
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong"), CHECKS)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)
