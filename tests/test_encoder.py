"""helpers.model.encoder (notebook 08): shapes, equivalence with PyTorch, padding, bad input, exercises."""

import copy
import math

import pytest
import torch
from torch import nn

from helpers.exercises.notebook_08 import (
    check_clones,
    check_encoder_parameter_count,
    check_matching_embedding_std,
)
from helpers.model.embeddings import sinusoidal_table
from helpers.model.encoder import Encoder, EncoderLayer
from helpers.model.masks import padding_mask
from helpers.model.torch_reference import copy_encoder_layer

D_MODEL, N_HEADS, D_FF, N_LAYERS, VOCAB = 16, 4, 32, 2, 20
PAD = 0


@pytest.fixture(autouse=True)
def _seed():
    # Each test draws its weights from the same seed (tests/conftest.py sets one thread).
    torch.manual_seed(0)


def padded_batch() -> torch.Tensor:
    return torch.tensor([[5, 6, 7, 8, 9], [5, 6, 0, 0, 0], [10, 11, 12, 0, 0]])


def to_torch_layer(ours: EncoderLayer, norm_first: bool) -> nn.TransformerEncoderLayer:
    theirs = nn.TransformerEncoderLayer(
        D_MODEL, N_HEADS, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    copy_encoder_layer(theirs, ours)  # the weight copy of notebook 10's torch_reference
    return theirs.eval()


def test_layer_keeps_the_shape_and_returns_weights_on_request():
    layer = EncoderLayer(D_MODEL, N_HEADS, D_FF).eval()
    src = padded_batch()
    x = torch.randn(3, 5, D_MODEL)
    output, weights = layer(x, padding_mask(src, PAD), need_weights=True)
    assert output.shape == x.shape
    assert weights.shape == (3, N_HEADS, 5, 5)
    assert layer(x, padding_mask(src, PAD))[1] is None


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_matches_torch_at_real_tokens(norm_first, need_weights):
    ours = EncoderLayer(D_MODEL, N_HEADS, D_FF, dropout=0.1, norm_first=norm_first).eval()
    theirs = to_torch_layer(ours, norm_first)
    src = padded_batch()
    x = torch.randn(3, 5, D_MODEL)
    with torch.no_grad():
        actual, _ = ours(x, padding_mask(src, PAD), need_weights)
        expected = theirs(x, src_key_padding_mask=src == PAD)
    real = src != PAD
    torch.testing.assert_close(actual[real], expected[real], atol=1e-5, rtol=1e-5)


def test_layer_differs_from_torch_in_the_other_placement():
    ours = EncoderLayer(D_MODEL, N_HEADS, D_FF, norm_first=True).eval()
    theirs = to_torch_layer(ours, norm_first=False)
    x = torch.randn(2, 4, D_MODEL)
    with torch.no_grad():
        assert not torch.allclose(ours(x, None)[0], theirs(x), atol=1e-3)


def test_encoder_returns_memory_and_one_weight_tensor_per_layer():
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS).eval()
    src = padded_batch()
    memory, weights = encoder(src, padding_mask(src, PAD), need_weights=True)
    assert memory.shape == (3, 5, D_MODEL)
    assert len(weights) == N_LAYERS
    assert all(w.shape == (3, N_HEADS, 5, 5) for w in weights)
    assert encoder(src, padding_mask(src, PAD))[1] is None


def test_embedding_is_scaled_by_sqrt_d_model_before_the_positions():
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, n_layers=0).eval()
    src = padded_batch()
    memory, _ = encoder(src, None)
    table = encoder.embedding.embedding.weight
    expected = table[src] * math.sqrt(D_MODEL) + sinusoidal_table(5, D_MODEL)
    torch.testing.assert_close(memory, expected)


def test_final_norm_only_in_pre_ln():
    post = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS)
    pre = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=True)
    assert isinstance(post.final_norm, nn.Identity)
    assert isinstance(pre.final_norm, nn.LayerNorm)
    count = lambda module: sum(p.numel() for p in module.parameters())  # noqa: E731
    assert count(pre) - count(post) == 2 * D_MODEL


def test_parameter_count_of_a_layer_matches_the_formula():
    layer = EncoderLayer(D_MODEL, N_HEADS, D_FF)
    formula = (4 * D_MODEL**2 + 4 * D_MODEL) + (2 * D_MODEL * D_FF + D_FF + D_MODEL) + 4 * D_MODEL
    assert sum(p.numel() for p in layer.parameters()) == formula


@pytest.mark.parametrize("norm_first", [False, True])
def test_pad_keys_get_zero_weight_in_every_layer_and_head(norm_first):
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=norm_first).eval()
    src = padded_batch()
    mask = padding_mask(src, PAD)
    _, weights = encoder(src, mask, need_weights=True)
    for w in weights:
        assert torch.all(w.masked_select((~mask).expand_as(w)) == 0)
        torch.testing.assert_close(w.sum(-1), torch.ones_like(w[..., 0]))


@pytest.mark.parametrize("norm_first", [False, True])
def test_more_padding_leaves_real_tokens_unchanged(norm_first):
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, norm_first=norm_first).eval()
    alone = torch.tensor([[5, 6]])
    padded = torch.tensor([[5, 6, 0, 0, 0, 0, 0]])
    with torch.no_grad():
        memory_alone, _ = encoder(alone, padding_mask(alone, PAD))
        memory_padded, _ = encoder(padded, padding_mask(padded, PAD))
        memory_unmasked, _ = encoder(padded, None)
    torch.testing.assert_close(memory_padded[:, :2], memory_alone, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(memory_unmasked[:, :2], memory_alone, atol=1e-3)


def test_dropout_acts_in_training_only():
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS, dropout=0.5)
    src = padded_batch()
    mask = padding_mask(src, PAD)
    assert not torch.allclose(encoder(src, mask)[0], encoder(src, mask)[0])
    encoder.eval()
    assert torch.equal(encoder(src, mask)[0], encoder(src, mask)[0])


def test_bad_input_raises_value_errors_naming_the_argument():
    encoder = Encoder(VOCAB, D_MODEL, N_HEADS, D_FF, N_LAYERS)
    src = padded_batch()
    # Ids without a batch dimension: the Transformer's entry point checks them; inside, an assert.
    with pytest.raises(AssertionError) as failure:
        encoder(src[0], padding_mask(src, PAD))
    assert "src: token ids" in str(failure.traceback[-1].statement)  # the failed assert's comment
    with pytest.raises(ValueError, match="^src_mask: expected a bool tensor"):
        encoder(src, padding_mask(src, PAD).to(torch.uint8))
    with pytest.raises(ValueError, match="n_heads"):
        Encoder(VOCAB, 30, 4, D_FF, N_LAYERS)


# The exercise checks: the solution passes, None and wrong answers fail with a message, nothing raises.


def clones_solution(layer, n):
    return nn.ModuleList(copy.deepcopy(layer) for _ in range(n))


def clones_shared(layer, n):
    return nn.ModuleList([layer] * n)  # n names for one layer


def clones_plain_list(layer, n):
    return [copy.deepcopy(layer) for _ in range(n)]


def clones_fresh(layer, n):
    return nn.ModuleList(EncoderLayer(8, 2, 16) for _ in range(n))  # new weights, not layer's


def parameter_count_solution(vocab_size, d_model, d_ff, n_layers, norm_first):
    layer = (4 * d_model**2 + 4 * d_model) + (2 * d_model * d_ff + d_ff + d_model) + 4 * d_model
    return vocab_size * d_model + n_layers * layer + (2 * d_model if norm_first else 0)


def parameter_count_without_final_norm(vocab_size, d_model, d_ff, n_layers, norm_first):
    return parameter_count_solution(vocab_size, d_model, d_ff, n_layers, False)


CHECKS = [
    (check_clones, clones_solution, clones_shared, "share one set of weights"),
    (check_clones, clones_solution, clones_plain_list, "nn.ModuleList"),
    (check_clones, clones_solution, clones_fresh, "should start with the weights"),
    (
        check_encoder_parameter_count,
        parameter_count_solution,
        parameter_count_without_final_norm,
        "one more LayerNorm",
    ),
    (
        check_matching_embedding_std,
        lambda d_model: 1 / math.sqrt(2 * d_model),
        lambda d_model: d_model**-0.5,
        "sqrt(d_model / 2)",
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong", "hint"), CHECKS)
def test_exercise_checks(check, solution, wrong, hint, verdicts):
    verdicts.exercise(check, solution, [(wrong, hint)])
