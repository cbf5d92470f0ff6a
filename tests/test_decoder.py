"""helpers.model.decoder (notebook 09): shapes, PyTorch equivalence, causality, padding, cache, exercises."""

import pytest
import torch
from torch import nn

from helpers.exercises.notebook_09 import (
    check_decode_without_cache,
    check_decoder_layer_parameters,
    check_torch_decoder_masks,
)
from helpers.model.decoder import Decoder, DecoderLayer
from helpers.model.masks import decoder_self_attention_mask, look_ahead_mask, padding_mask
from helpers.model.torch_reference import copy_decoder_layer

D_MODEL, N_HEADS, D_FF, N_LAYERS, VOCAB = 16, 4, 32, 2, 20
PAD = 0


@pytest.fixture(autouse=True)
def _seed():
    # Each test draws its weights from the same seed (tests/conftest.py sets one thread).
    torch.manual_seed(0)


def batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """src (3, 5) and tgt (3, 6), both padded, and a memory (3, 5, D_MODEL)."""
    src = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 0, 0, 0], [10, 11, 12, 0, 0]])
    tgt = torch.tensor([[2, 5, 6, 7, 8, 9], [2, 10, 0, 0, 0, 0], [2, 11, 12, 13, 0, 0]])
    return src, tgt, torch.randn(3, 5, D_MODEL)


def to_torch_layer(ours: DecoderLayer, norm_first: bool) -> nn.TransformerDecoderLayer:
    theirs = nn.TransformerDecoderLayer(
        D_MODEL, N_HEADS, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    copy_decoder_layer(theirs, ours)  # the weight copy of notebook 10's torch_reference
    return theirs.eval()


def test_layer_shapes_of_output_and_both_weights():
    src, tgt, memory = batch()
    layer = DecoderLayer(D_MODEL, N_HEADS, D_FF).eval()
    x = torch.randn(3, 6, D_MODEL)
    out, self_w, cross_w = layer(
        x, memory, decoder_self_attention_mask(tgt, PAD), padding_mask(src, PAD), need_weights=True
    )
    assert out.shape == x.shape
    assert self_w.shape == (3, N_HEADS, 6, 6)
    assert cross_w.shape == (3, N_HEADS, 6, 5)
    assert layer(x, memory, None, None)[1:] == (None, None)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_matches_torch_at_real_targets(norm_first, need_weights):
    src, tgt, memory = batch()
    ours = DecoderLayer(D_MODEL, N_HEADS, D_FF, dropout=0.1, norm_first=norm_first).eval()
    theirs = to_torch_layer(ours, norm_first)
    x = torch.randn(3, 6, D_MODEL)
    with torch.no_grad():
        actual, _, _ = ours(
            x, memory, decoder_self_attention_mask(tgt, PAD), padding_mask(src, PAD), need_weights
        )
        expected = theirs(
            x,
            memory,
            tgt_mask=torch.ones(6, 6, dtype=torch.bool).triu(1),
            tgt_key_padding_mask=tgt == PAD,
            memory_key_padding_mask=src == PAD,
        )
    real = tgt != PAD
    torch.testing.assert_close(actual[real], expected[real], atol=1e-5, rtol=1e-5)


def test_decoder_returns_per_layer_weights_and_final_norm_only_in_pre_ln():
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS).eval()
    out, self_w, cross_w = decoder(
        tgt, memory, decoder_self_attention_mask(tgt, PAD), padding_mask(src, PAD), True
    )
    assert out.shape == (3, 6, D_MODEL)
    assert len(self_w) == len(cross_w) == N_LAYERS
    assert cross_w[0].shape == (3, N_HEADS, 6, 5)
    assert isinstance(decoder.final_norm, nn.Identity)
    pre = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=True)
    assert isinstance(pre.final_norm, nn.LayerNorm)


@pytest.mark.parametrize("norm_first", [False, True])
def test_whole_decoder_is_causal_with_padding(norm_first):
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=norm_first).eval()

    def run(ids, look_ahead=True):
        mask = decoder_self_attention_mask(ids, PAD) if look_ahead else padding_mask(ids, PAD)
        with torch.no_grad():
            return decoder(ids, memory, mask, padding_mask(src, PAD))[0]

    reference = run(tgt)
    for t in range(tgt.shape[1] - 1):
        changed = tgt.clone()
        changed[:, t + 1 :] = torch.randint(4, VOCAB, changed[:, t + 1 :].shape)
        torch.testing.assert_close(run(changed)[:, : t + 1], reference[:, : t + 1])
        leaky = run(changed, look_ahead=False)[:, : t + 1]
        assert not torch.allclose(leaky, run(tgt, look_ahead=False)[:, : t + 1], atol=1e-4)


def test_tokens_under_source_padding_change_nothing():
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS).eval()
    changed_memory = memory.clone()
    changed_memory[src == PAD] = torch.randn(int((src == PAD).sum()), D_MODEL) * 10
    tgt_mask = decoder_self_attention_mask(tgt, PAD)
    with torch.no_grad():
        out = decoder(tgt, memory, tgt_mask, padding_mask(src, PAD))[0]
        out_changed = decoder(tgt, changed_memory, tgt_mask, padding_mask(src, PAD))[0]
        unmasked = decoder(tgt, memory, tgt_mask, None)[0]
        unmasked_changed = decoder(tgt, changed_memory, tgt_mask, None)[0]
    torch.testing.assert_close(out_changed, out)
    assert not torch.allclose(unmasked_changed, unmasked, atol=1e-3)


@pytest.mark.parametrize("norm_first", [False, True])
def test_step_by_step_with_cache_equals_the_parallel_pass(norm_first):
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=norm_first).eval()
    memory_mask = padding_mask(src, PAD)
    with torch.no_grad():
        parallel = decoder(tgt, memory, look_ahead_mask(6), memory_mask)[0]
        cache = decoder.new_cache()
        steps = [
            decoder(tgt[:, t : t + 1], memory, None, memory_mask, cache=cache, start=t)[0]
            for t in range(6)
        ]
    torch.testing.assert_close(torch.cat(steps, dim=1), parallel, atol=1e-5, rtol=1e-5)
    self_cache, cross_cache = cache[0]
    assert self_cache.length == 6 and self_cache.key.shape[:2] == (3, N_HEADS)
    assert cross_cache.key.shape == (3, N_HEADS, 5, D_MODEL // N_HEADS)


def test_new_cache_has_a_growing_and_a_memory_cache_per_layer():
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS)
    cache = decoder.new_cache()
    assert len(cache) == N_LAYERS
    assert all(not own.from_memory and cross.from_memory for own, cross in cache)
    assert all(own.key is None and cross.key is None for own, cross in cache)


def test_uint8_sum_and_threshold_equals_boolean_and():
    _, tgt, _ = batch()
    length = tgt.shape[1]
    pad_blocked = (tgt == PAD)[:, None, :].expand(3, length, length)
    future_blocked = torch.ones(3, length, length).triu(1).to(torch.uint8)
    assert torch.equal(
        torch.gt(pad_blocked + future_blocked, 0), ~decoder_self_attention_mask(tgt, PAD)[:, 0]
    )


def test_masks_in_the_walkthroughs_integer_style_are_refused():
    # The decoder trusts its caller (Transformer.decode checks ids, memory, cache and start: see
    # tests/test_transformer.py); a mask that is not bool is still refused, by the attention.
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS)
    tgt_mask, memory_mask = decoder_self_attention_mask(tgt, PAD), padding_mask(src, PAD)
    with pytest.raises(ValueError, match="^mask: expected a bool tensor"):
        decoder(tgt, memory, tgt_mask.to(torch.uint8), memory_mask)
    with pytest.raises(ValueError, match="^mask: expected a bool tensor"):
        decoder(tgt, memory, tgt_mask, memory_mask.float())


# The exercise checks: the solution passes, None and wrong answers fail with a message, nothing raises.


def layer_parameters_solution(d_model, d_ff):
    attention = 4 * d_model**2 + 4 * d_model
    return 2 * attention + 2 * d_model * d_ff + d_ff + d_model + 6 * d_model


def layer_parameters_one_attention(d_model, d_ff):
    return layer_parameters_solution(d_model, d_ff) - (4 * d_model**2 + 4 * d_model)


def without_cache_solution(decoder, tgt, memory, memory_mask):
    outputs = []
    for t in range(tgt.shape[1]):
        output = decoder(tgt[:, : t + 1], memory, look_ahead_mask(t + 1), memory_mask)[0]
        outputs.append(output[:, -1:])
    return torch.cat(outputs, dim=1)


def without_cache_first_position(decoder, tgt, memory, memory_mask):
    outputs = [
        decoder(tgt[:, : t + 1], memory, look_ahead_mask(t + 1), memory_mask)[0][:, :1]
        for t in range(tgt.shape[1])
    ]
    return torch.cat(outputs, dim=1)


def torch_masks_solution(tgt, src, pad_id):
    length = tgt.shape[1]
    return torch.ones(length, length, dtype=torch.bool).triu(1), tgt == pad_id, src == pad_id


def torch_masks_ours(tgt, src, pad_id):
    length = tgt.shape[1]
    return torch.ones(length, length, dtype=torch.bool).tril(), tgt != pad_id, src != pad_id


CHECKS = [
    (
        check_decoder_layer_parameters,
        layer_parameters_solution,
        layer_parameters_one_attention,
        "two attentions",
    ),
    (
        check_decode_without_cache,
        without_cache_solution,
        without_cache_first_position,
        "LAST output",
    ),
    (check_torch_decoder_masks, torch_masks_solution, torch_masks_ours, "inverted"),
]


@pytest.mark.parametrize(("check", "solution", "wrong", "hint"), CHECKS)
def test_exercise_checks(check, solution, wrong, hint, verdicts):
    verdicts.exercise(check, solution, [(wrong, hint)])


@torch.no_grad()
def test_beams_sharing_the_memory_equal_a_memory_copied_per_beam():
    src, tgt, memory = batch()
    decoder = Decoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS).eval()
    beams = 2
    beam_tgt = torch.cat([tgt, tgt.flip(1)]).view(beams, 3, -1).transpose(0, 1).flatten(0, 1)
    memory_mask = padding_mask(src, PAD)
    shared, copied = decoder.new_cache(beams=beams), decoder.new_cache()
    copies = [t.repeat_interleave(beams, 0) for t in (memory, memory_mask)]
    for t in range(3):
        step = beam_tgt[:, t : t + 1]
        out = decoder(step, memory, None, memory_mask, cache=shared, start=t)[0]
        expected = decoder(step, *copies[:1], None, copies[1], cache=copied, start=t)[0]
        torch.testing.assert_close(out, expected, atol=1e-6, rtol=1e-6)
    assert all(cross.beams == beams and cross.key.shape[0] == 3 for _, cross in shared)
    assert all(own.key.shape[0] == 6 for own, _ in shared)
    with pytest.raises(ValueError, match="^beams: expected a positive int"):
        decoder.new_cache(beams=0)
