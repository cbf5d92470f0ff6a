"""helpers.model.torch_reference (notebook 10): the model equals one built from torch.nn layers."""

import pytest
import torch
from torch import nn

from helpers.model.torch_reference import TorchReferenceTransformer, to_torch_reference
from helpers.model.transformer import Transformer, TransformerConfig

TOLERANCE = 1e-5


def ragged(lengths: list[int], vocab_size: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, vocab_size, (len(lengths), max(lengths)), generator=generator)
    for row, length in enumerate(lengths):
        ids[row, length:] = 0
    return ids


def build(seed: int = 0, **overrides) -> Transformer:
    sizes = dict(src_vocab_size=11, tgt_vocab_size=13, d_model=16, n_heads=4, d_ff=32, n_layers=2)
    sizes.update(overrides)
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(**sizes)).eval()


def max_difference_at_real_positions(model, reference, src, tgt) -> float:
    with torch.no_grad():
        ours, theirs = model(src, tgt), reference(src, tgt)
    real = tgt != model.config.pad_id
    return (ours - theirs)[real].abs().max().item()


SHARING = {
    "none": {},
    "target tying": {"tie_output_projection": True},
    "three-way": {"src_vocab_size": 13, "share_embeddings": True},
}


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
@pytest.mark.parametrize("sharing", list(SHARING))
def test_logits_match_torch_layers_with_ragged_padding(norm_first, sharing):
    model = build(norm_first=norm_first, **SHARING[sharing])
    reference = to_torch_reference(model).eval()
    src = ragged([7, 4, 1, 5], 11, seed=1)
    tgt = ragged([6, 3, 2, 1], 13, seed=2)
    assert max_difference_at_real_positions(model, reference, src, tgt) < TOLERANCE


@pytest.mark.parametrize(
    "overrides",
    [
        {"d_k": 4, "d_v": 4},  # given explicitly, equal to d_model / n_heads
        {"n_heads": 1, "n_layers": 1},
        {"d_model": 24, "n_heads": 6, "d_ff": 20, "n_layers": 3, "pad_id": 2},
    ],
)
def test_logits_match_for_other_sizes(overrides):
    model = build(**overrides)
    reference = to_torch_reference(model).eval()
    pad = model.config.pad_id
    # Pads written as 0 by ragged() become pad_id; a random id equal to pad_id is a pad too.
    src, tgt = ragged([5, 2], 11, seed=3), ragged([4, 3], 13, seed=4)
    src, tgt = src.masked_fill(src == 0, pad), tgt.masked_fill(tgt == 0, pad)
    with torch.no_grad():
        ours, theirs = model(src, tgt), reference(src, tgt)
    real = tgt != pad
    assert (ours - theirs)[real].abs().max().item() < TOLERANCE


def test_trained_weights_and_train_mode_without_dropout():
    model = build(dropout=0.0).train()
    src, tgt = ragged([5, 3], 11, seed=5), ragged([4, 4], 13, seed=6)
    model(src, tgt).square().mean().backward()
    with torch.no_grad():  # one gradient step: the weights are no longer their initial values
        for parameter in model.parameters():
            parameter.sub_(0.1 * parameter.grad)
    reference = to_torch_reference(model)
    assert reference.training
    assert max_difference_at_real_positions(model, reference, src, tgt) < TOLERANCE


def test_a_changed_weight_is_detected():
    model = build()
    reference = to_torch_reference(model).eval()
    with torch.no_grad():
        # Random, not constant: a constant added to W_V is cancelled, since the Post-LN memory
        # has zero mean over its features.
        weight = model.decoder.layers[1].cross_attention.input_projections()["v"][0]
        weight.add_(0.1 * torch.randn(weight.shape, generator=torch.Generator().manual_seed(0)))
    src, tgt = ragged([5, 3], 11, seed=7), ragged([4, 4], 13, seed=8)
    assert max_difference_at_real_positions(model, reference, src, tgt) > 1e-3


def test_reference_is_built_from_torch_parts_with_the_same_settings():
    model = build(dropout=0.2, share_embeddings=True, src_vocab_size=13).train()
    reference = to_torch_reference(model)
    assert isinstance(reference, TorchReferenceTransformer)
    assert reference.training
    assert isinstance(reference.encoder.layers[0], nn.TransformerEncoderLayer)
    assert isinstance(reference.decoder.layers[0], nn.TransformerDecoderLayer)
    assert reference.encoder.layers[0].dropout.p == 0.2
    assert reference.embedding_dropout.p == 0.2
    assert reference.output_projection.weight is reference.tgt_embedding.weight
    assert reference.src_embedding.weight is reference.tgt_embedding.weight
    # The reference owns copies: it does not share tensors with the model.
    assert reference.tgt_embedding.weight is not model.decoder.embedding.embedding.weight


def test_reference_follows_dtype():
    model = build().to(torch.float64)
    reference = to_torch_reference(model).eval()
    assert next(reference.parameters()).dtype == torch.float64
    src, tgt = ragged([5, 3], 11, seed=9), ragged([4, 2], 13, seed=10)
    assert max_difference_at_real_positions(model, reference, src, tgt) < 1e-10


@pytest.mark.parametrize("overrides", [{"d_k": 8}, {"d_v": 2}, {"n_heads": 3, "d_k": 5, "d_v": 5}])
def test_refuses_head_sizes_torch_cannot_hold(overrides):
    model = build(**overrides)
    with pytest.raises(ValueError, match=r"^config: nn.MultiheadAttention needs d_k = d_v"):
        to_torch_reference(model)


def test_refuses_something_else_than_a_transformer():
    with pytest.raises(ValueError, match=r"^model: expected a helpers.Transformer"):
        to_torch_reference(nn.Linear(2, 2))


def parameter_pairs(model: Transformer, reference: TorchReferenceTransformer):
    """(name, ours, theirs) for every parameter, in the correspondence to_torch_reference copies."""
    yield "src embedding", model.encoder.embedding.embedding.weight, reference.src_embedding.weight
    yield "tgt embedding", model.decoder.embedding.embedding.weight, reference.tgt_embedding.weight
    yield "output projection", model.output_projection.weight, reference.output_projection.weight

    def attention(name, ours, theirs):
        yield f"{name}.w_qkv.weight", ours.w_qkv.weight, theirs.in_proj_weight
        yield f"{name}.w_qkv.bias", ours.w_qkv.bias, theirs.in_proj_bias
        yield f"{name}.w_o.weight", ours.w_o.weight, theirs.out_proj.weight
        yield f"{name}.w_o.bias", ours.w_o.bias, theirs.out_proj.bias

    def module(name, ours, theirs):
        for (key, mine), (_, torch_one) in zip(
            ours.named_parameters(), theirs.named_parameters(), strict=True
        ):
            yield f"{name}.{key}", mine, torch_one

    for i, (ours, theirs) in enumerate(
        zip(model.encoder.layers, reference.encoder.layers, strict=True)
    ):
        yield from attention(f"encoder.{i}.self", ours.self_attention, theirs.self_attn)
        yield from module(f"encoder.{i}.norm1", ours.self_attention_residual.norm, theirs.norm1)
        yield from module(f"encoder.{i}.linear1", ours.feed_forward.linear1, theirs.linear1)
        yield from module(f"encoder.{i}.linear2", ours.feed_forward.linear2, theirs.linear2)
        yield from module(f"encoder.{i}.norm2", ours.feed_forward_residual.norm, theirs.norm2)
    for i, (ours, theirs) in enumerate(
        zip(model.decoder.layers, reference.decoder.layers, strict=True)
    ):
        yield from attention(f"decoder.{i}.self", ours.self_attention, theirs.self_attn)
        yield from module(f"decoder.{i}.norm1", ours.self_attention_residual.norm, theirs.norm1)
        yield from attention(f"decoder.{i}.cross", ours.cross_attention, theirs.multihead_attn)
        yield from module(f"decoder.{i}.norm2", ours.cross_attention_residual.norm, theirs.norm2)
        yield from module(f"decoder.{i}.linear1", ours.feed_forward.linear1, theirs.linear1)
        yield from module(f"decoder.{i}.linear2", ours.feed_forward.linear2, theirs.linear2)
        yield from module(f"decoder.{i}.norm3", ours.feed_forward_residual.norm, theirs.norm3)
    if model.config.norm_first:
        yield from module("encoder.final_norm", model.encoder.final_norm, reference.encoder.norm)
        yield from module("decoder.final_norm", model.decoder.final_norm, reference.decoder.norm)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
@pytest.mark.parametrize("sharing", list(SHARING))
def test_gradients_match_torch_layers(norm_first, sharing):
    """The loss of a ragged batch gives every parameter the gradient PyTorch's layers give it."""
    model = build(norm_first=norm_first, dropout=0.0, **SHARING[sharing]).train()
    reference = to_torch_reference(model)
    src = ragged([7, 4, 1, 5], model.config.src_vocab_size, seed=11)
    tgt = ragged([6, 3, 2, 1], 13, seed=12)
    labels = ragged([6, 3, 2, 1], 13, seed=13)
    for network in (model, reference):
        logits = network(src, tgt)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=0)
        loss.backward()
    pairs = list(parameter_pairs(model, reference))
    assert {id(ours) for _, ours, _ in pairs} == {id(p) for p in model.parameters()}
    for name, ours, theirs in pairs:
        assert ours.grad is not None and theirs.grad is not None, name
        assert ours.grad.abs().max() > 0, f"{name}: no gradient reached it"
        torch.testing.assert_close(ours.grad, theirs.grad, atol=1e-5, rtol=1e-4, msg=name)
