"""helpers.model.transformer (notebook 10): shapes, sharing, Table 3 counts, causality, caching, bad input."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from helpers.exercises import notebook_10
from helpers.model.transformer import AttentionWeights, Transformer, TransformerConfig


def small_config(**overrides) -> TransformerConfig:
    sizes = dict(src_vocab_size=11, tgt_vocab_size=13, d_model=16, n_heads=4, d_ff=32, n_layers=2)
    sizes.update(overrides)
    return TransformerConfig(**sizes)


def small_model(seed: int = 0, **overrides) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(small_config(**overrides)).eval()


def ragged(lengths: list[int], vocab_size: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, vocab_size, (len(lengths), max(lengths)), generator=generator)
    for row, length in enumerate(lengths):
        ids[row, length:] = 0
    return ids


def count_parameters(module: nn.Module) -> int:
    return sum(parameter.numel() for parameter in module.parameters())


def formula(config: TransformerConfig) -> int:
    """The parameter count of notebook 10, written independently."""
    d, h, f = config.d_model, config.n_heads, config.d_ff
    d_k = config.d_k or d // h
    d_v = config.d_v or d // h
    attention = 2 * (d * h * d_k + h * d_k) + (d * h * d_v + h * d_v) + (h * d_v * d + d)
    ffn = 2 * d * f + f + d
    layers = config.n_layers * (3 * attention + 2 * ffn + 5 * 2 * d)
    final = 4 * d if config.norm_first else 0
    source, target = config.src_vocab_size * d, config.tgt_vocab_size * d
    if config.share_embeddings:
        embeddings = target
    elif config.tie_output_projection:
        embeddings = source + target
    else:
        embeddings = source + 2 * target
    return layers + final + embeddings


# ---------------------------------------------------------------- shapes


@pytest.mark.parametrize("norm_first", [False, True])
def test_forward_shape(norm_first):
    model = small_model(norm_first=norm_first)
    src, tgt = ragged([5, 3, 1], 11), ragged([4, 4, 2], 13, seed=1)
    logits = model(src, tgt)
    assert logits.shape == (3, 4, 13)
    assert logits.dtype == torch.float32


def test_need_weights_shapes():
    model = small_model(n_layers=3)
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    logits, weights = model.forward_with_weights(src, tgt)
    assert isinstance(weights, AttentionWeights)
    assert logits.shape == (2, 4, 13)
    for field, shape in [
        ("encoder_self", (2, 4, 5, 5)),
        ("decoder_self", (2, 4, 4, 4)),
        ("decoder_cross", (2, 4, 4, 5)),
    ]:
        maps = getattr(weights, field)
        assert len(maps) == 3
        assert all(weight.shape == shape for weight in maps), field
    # The padded source keys of row 1 (positions 3, 4) get no weight.
    assert torch.all(weights.decoder_cross[0][1, :, :, 3:] == 0)
    assert torch.all(weights.decoder_self[2].triu(1) == 0)


def test_need_weights_does_not_change_logits():
    model = small_model()
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    with torch.no_grad():
        plain = model(src, tgt)
        with_weights, _ = model.forward_with_weights(src, tgt)
    torch.testing.assert_close(plain, with_weights, atol=1e-5, rtol=0)


def test_config_defaults_are_the_base_model():
    config = TransformerConfig(100, 100)
    assert (config.d_model, config.n_heads, config.d_ff, config.n_layers) == (512, 8, 2048, 6)
    assert config.dropout == 0.1 and config.norm_first is False
    assert config.d_k is None and config.d_v is None and config.pad_id == 0
    assert config.to_dict()["max_positions"] == 5000


# ---------------------------------------------------------------- weight sharing and init


def test_sharing_modes_tie_the_same_object_and_save_matrices():
    plain = small_model(src_vocab_size=13)
    target = small_model(src_vocab_size=13, tie_output_projection=True)
    shared = small_model(src_vocab_size=13, share_embeddings=True)
    assert plain.output_projection.weight is not plain.decoder.embedding.embedding.weight
    assert target.output_projection.weight is target.decoder.embedding.embedding.weight
    assert (
        target.encoder.embedding.embedding.weight is not target.decoder.embedding.embedding.weight
    )
    assert shared.output_projection.weight is shared.decoder.embedding.embedding.weight
    assert shared.encoder.embedding.embedding.weight is shared.decoder.embedding.embedding.weight
    matrix = 13 * 16
    assert count_parameters(plain) - count_parameters(target) == matrix
    assert count_parameters(target) - count_parameters(shared) == matrix


def sgd_step(model: nn.Module, lr: float) -> None:
    """One plain gradient step over model.parameters(), as torch.optim.SGD would take.

    (torch.optim's first step imports torch._dynamo, seconds of start-up this file can skip;
    notebook 10 shows the same property with Adam.)
    """
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.sub_(lr * parameter.grad)


def test_tied_weights_stay_tied_after_an_optimizer_step():
    model = small_model(src_vocab_size=13, share_embeddings=True).train()
    before = model.decoder.embedding.embedding.weight.detach().clone()
    model(ragged([4, 3], 13), ragged([3, 3], 13, seed=1)).square().mean().backward()
    shared_gradient = model.decoder.embedding.embedding.weight.grad.clone()
    sgd_step(model, lr=1e-2)
    weight = model.decoder.embedding.embedding.weight
    assert model.output_projection.weight is weight
    assert model.encoder.embedding.embedding.weight is weight
    torch.testing.assert_close(weight.detach(), before - 1e-2 * shared_gradient)
    assert not torch.equal(weight.detach(), before)


def test_xavier_initialisation():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(100, 100, d_model=256, n_heads=4, d_ff=1024, n_layers=1))
    weight = model.decoder.layers[0].feed_forward.linear2.weight  # (256, 1024)
    expected = math.sqrt(2 / (256 + 1024))
    assert abs(weight.std().item() / expected - 1) < 0.02
    assert weight.abs().max().item() <= math.sqrt(6 / (256 + 1024))
    assert torch.all(model.decoder.layers[0].feed_forward.linear2.bias == 0)
    assert torch.all(model.decoder.layers[0].feed_forward_residual.norm.weight == 1)


# ---------------------------------------------------------------- Table 3 counts


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"tie_output_projection": True},
        {"src_vocab_size": 13, "share_embeddings": True},
        {"norm_first": True, "n_layers": 3},
        {"d_k": 3, "d_v": 5},
        {"n_heads": 3, "d_k": 7, "d_v": 7},
    ],
)
def test_parameter_formula_matches_built_models(overrides):
    config = small_config(**overrides)
    assert count_parameters(Transformer(config)) == formula(config)


def test_base_model_count_on_the_meta_device():
    config = TransformerConfig(37_000, 37_000, share_embeddings=True)
    with torch.device("meta"):
        model = Transformer(config)
    assert next(model.parameters()).is_meta
    count = count_parameters(model)
    assert count == formula(config) == 63_082_496
    # Table 3 says 65 M for "about 37000" tokens: within the rounding plus +-5,000 tokens.
    assert abs(count - 65e6) <= 0.5e6 + 5_000 * 512
    assert abs(count / 65e6 - 1) < 0.035


@pytest.mark.parametrize(
    ("sizes", "paper"),
    [
        ({"n_layers": 2}, 36),
        ({"d_k": 16}, 58),
        ({"d_model": 256, "d_k": 32, "d_v": 32}, 28),
        ({"d_model": 1024, "d_k": 128, "d_v": 128}, 168),
        ({"d_ff": 4096}, 90),
        ({"d_model": 1024, "d_ff": 4096, "n_heads": 16}, 213),
    ],
)
def test_table3_rows_within_tolerance(sizes, paper):
    config = TransformerConfig(37_000, 37_000, share_embeddings=True, **sizes)
    assert abs(formula(config) - paper * 1e6) <= 0.5e6 + 5_000 * config.d_model


# ---------------------------------------------------------------- causality, encode/decode, cache


@pytest.mark.parametrize("norm_first", [False, True])
def test_causality(norm_first):
    model = small_model(norm_first=norm_first)
    src, tgt = ragged([5, 4], 11), ragged([6, 6], 13, seed=1)
    with torch.no_grad():
        original = model(src, tgt)
        for k in range(1, 6):
            changed_tgt = tgt.clone()
            changed_tgt[:, k:] = tgt[:, k:] % 12 + 1
            changed = model(src, changed_tgt)
            torch.testing.assert_close(changed[:, :k], original[:, :k], atol=1e-6, rtol=0)
            assert (changed[:, k] - original[:, k]).abs().max() > 1e-3


def test_encode_decode_equal_forward():
    model = small_model()
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    with torch.no_grad():
        memory, encoder_weights = model.encode(src)
        logits, self_weights, cross_weights = model.decode(tgt, memory, src)
        assert memory.shape == (2, 5, 16)
        assert encoder_weights is None and self_weights is None and cross_weights is None
        torch.testing.assert_close(logits, model(src, tgt), atol=1e-6, rtol=0)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decode_with_cache_equals_decode_without(norm_first):
    model = small_model(norm_first=norm_first)
    src, tgt = ragged([5, 3], 11), ragged([6, 6], 13, seed=1)
    with torch.no_grad():
        memory, _ = model.encode(src)
        full, _, _ = model.decode(tgt, memory, src)
        cache = model.decoder.new_cache()
        steps = [
            model.decode(tgt[:, t : t + 1], memory, src, cache=cache, start=t)[0]
            for t in range(tgt.shape[1])
        ]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=0)


# ---------------------------------------------------------------- dtypes and degenerate rows


def test_bfloat16_close_to_float32():
    model = small_model()
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    with torch.no_grad():
        reference = model(src, tgt)
        low = model.to(torch.bfloat16)(src, tgt)
    assert low.dtype == torch.bfloat16
    assert torch.isfinite(low).all()
    torch.testing.assert_close(low.float(), reference, atol=0.1, rtol=0.05)


def test_float16_through_the_whole_model():
    """Half precision end to end: logits, attention maps and gradients stay finite and close."""
    model = small_model()
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    with torch.no_grad():
        reference = model(src, tgt)
    half = model.to(torch.float16)
    logits, weights = half.forward_with_weights(src, tgt)
    assert logits.dtype == torch.float16
    assert all(w.dtype == torch.float16 for w in weights.decoder_cross)
    torch.testing.assert_close(logits.float(), reference, atol=0.02, rtol=0.01)
    logits.float().logsumexp(-1).mean().backward()
    grads = [p.grad for p in half.parameters()]
    assert all(g is not None and g.dtype == torch.float16 for g in grads)
    assert all(torch.isfinite(g).all() for g in grads)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_no_nan_on_all_pad_rows(dtype):
    model = small_model().to(dtype)
    src, tgt = ragged([5, 3, 4], 11), ragged([4, 2, 3], 13, seed=1)
    src[1] = 0  # an empty source sentence
    tgt[2] = 0  # an all-pad target row
    with torch.no_grad():
        logits, weights = model.forward_with_weights(src, tgt)
    assert torch.isfinite(logits).all()
    for maps in (weights.encoder_self, weights.decoder_self, weights.decoder_cross):
        assert all(torch.isfinite(weight).all() for weight in maps)


# ---------------------------------------------------------------- bad input


@pytest.fixture(scope="module")
def model():
    return small_model(max_positions=10)


GOOD_SRC = torch.tensor([[1, 2, 3]])
GOOD_TGT = torch.tensor([[1, 2]])


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda m: m(GOOD_SRC.float(), GOOD_TGT), "src"),
        (lambda m: m(GOOD_SRC, GOOD_TGT.int()), "tgt"),
        (lambda m: m(GOOD_SRC[0], GOOD_TGT), "src"),
        (lambda m: m(GOOD_SRC, GOOD_TGT[None]), "tgt"),
        (lambda m: m(GOOD_SRC[:, :0], GOOD_TGT), "src"),
        (lambda m: m(GOOD_SRC[:0], GOOD_TGT[:0]), "src"),
        (lambda m: m(torch.ones(1, 11, dtype=torch.long), GOOD_TGT), "src"),
        (lambda m: m(GOOD_SRC, torch.ones(1, 11, dtype=torch.long)), "tgt"),
        (lambda m: m(torch.tensor([[1, 11]]), GOOD_TGT), "src"),
        (lambda m: m(torch.tensor([[-1, 2]]), GOOD_TGT), "src"),
        (lambda m: m(GOOD_SRC, torch.tensor([[1, 13]])), "tgt"),
        (lambda m: m(GOOD_SRC, GOOD_TGT.expand(2, -1)), "tgt"),
        # encode alone (notebook 12 calls it before decoding one position at a time)
        (lambda m: m.encode(GOOD_SRC.float()), "src"),
        (lambda m: m.encode(torch.tensor([[1, 11]])), "src"),
        (lambda m: m.encode(torch.ones(1, 11, dtype=torch.long)), "src"),
        (lambda m: m([[1, 2]], GOOD_TGT), "src"),
        (lambda m: m.decode(GOOD_TGT, torch.zeros(1, 4, 16), GOOD_SRC), "memory"),
        (lambda m: m.decode(GOOD_TGT.expand(2, -1), torch.zeros(1, 3, 16), GOOD_SRC), "tgt"),
        (
            lambda m: m.decode(
                GOOD_TGT[:, :1],
                torch.zeros(1, 3, 16),
                GOOD_SRC,
                cache=m.decoder.new_cache(),
                start=1,
            ),
            "start",
        ),
        # What the decoder and its attention layers checked before they trusted their caller:
        (lambda m: m.decode(GOOD_TGT, torch.zeros(1, 3, 8), GOOD_SRC), "memory"),
        (lambda m: m.decode(GOOD_TGT[0], torch.zeros(1, 3, 16), GOOD_SRC), "tgt"),
        (lambda m: m.decode(GOOD_TGT, torch.zeros(1, 3, 16), GOOD_SRC, start=-1), "start"),
        (
            lambda m: m.decode(
                GOOD_TGT[:, :1], torch.zeros(1, 3, 16), GOOD_SRC, cache=m.decoder.new_cache()[:1]
            ),
            "cache",
        ),
    ],
)
def test_bad_input_raises_naming_the_argument(model, call, argument):
    with pytest.raises(ValueError, match=rf"^{argument}:"):
        call(model)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"n_heads": 3}, "n_heads"),
        ({"share_embeddings": True}, "share_embeddings"),
        ({"d_model": 0}, "d_model"),
        ({"n_layers": 2.0}, "n_layers"),
        ({"src_vocab_size": True}, "src_vocab_size"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout": -0.1}, "dropout"),
        ({"d_k": 0}, "d_k"),
        ({"pad_id": 11}, "pad_id"),
        ({"max_positions": 0}, "max_positions"),
    ],
)
def test_bad_config_raises_naming_the_field(overrides, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        Transformer(small_config(**overrides))


def test_n_heads_not_dividing_d_model_is_fine_with_explicit_head_sizes():
    model = Transformer(small_config(n_heads=3, d_k=5, d_v=6))
    assert model(GOOD_SRC, GOOD_TGT).shape == (1, 2, 13)


# ---------------------------------------------------------------- exercise checks


def is_causal(model, src, tgt):
    with torch.no_grad():
        original = model(src, tgt)
        for k in range(1, tgt.shape[1]):
            changed_tgt = tgt.clone()
            changed_tgt[:, k:] = tgt[:, k:] % tgt.max() + 1
            if not torch.allclose(model(src, changed_tgt)[:, :k], original[:, :k], atol=1e-6):
                return False
    return True


def cached_decode_logits(model, src, tgt):
    with torch.no_grad():
        memory, _ = model.encode(src)
        cache = model.decoder.new_cache()
        steps = [
            model.decode(tgt[:, t : t + 1], memory, src, cache=cache, start=t)[0]
            for t in range(tgt.shape[1])
        ]
    return torch.cat(steps, dim=1)


def uncached_positional(model, src, tgt):
    # Wrong: feeds one position per call without a cache (it passes cache positionally as None).
    with torch.no_grad():
        memory, _ = model.encode(src)
        steps = [
            model.decode(tgt[:, : t + 1], memory, src, False, None, 0)[0][:, -1:]
            for t in range(tgt.shape[1])
        ]
    return torch.cat(steps, dim=1)


def fresh_cache_every_step(model, src, tgt):
    # Wrong: a new cache at every step forgets the earlier positions (decode refuses it).
    with torch.no_grad():
        memory, _ = model.encode(src)
        steps = [
            model.decode(tgt[:, t : t + 1], memory, src, cache=model.decoder.new_cache(), start=t)[
                0
            ]
            for t in range(tgt.shape[1])
        ]
    return torch.cat(steps, dim=1)


def probabilities_instead_of_logits(model, src, tgt):
    # Wrong: softmax applied to the logits.
    return cached_decode_logits(model, src, tgt).softmax(dim=-1)


@pytest.mark.parametrize(
    ("check", "solution", "wrong", "message"),
    [
        (notebook_10.check_is_causal, is_causal, lambda model, src, tgt: True, "reads ahead"),
        (
            notebook_10.check_cached_decode_logits,
            cached_decode_logits,
            lambda model, src, tgt: model(src, tgt),
            "one position each",
        ),
        (
            notebook_10.check_cached_decode_logits,
            cached_decode_logits,
            probabilities_instead_of_logits,
            "differ from model(src, tgt)",
        ),
        (
            notebook_10.check_cached_decode_logits,
            cached_decode_logits,
            fresh_cache_every_step,
            "start: expected 0",
        ),
        (
            notebook_10.check_cached_decode_logits,
            cached_decode_logits,
            uncached_positional,
            "cache=",
        ),
    ],
)
def test_exercise_checks(check, solution, wrong, message, verdicts):
    verdicts.exercise(check, solution, [(wrong, message)])


def test_is_causal_check_rejects_always_false(verdicts):
    verdicts.fails(
        notebook_10.check_is_causal, lambda model, src, tgt: False, "our Transformer: expected True"
    )


def test_is_causal_check_accepts_tensor_and_numpy_booleans(verdicts):
    check = notebook_10.check_is_causal
    verdicts.passes(check, lambda m, s, t: torch.tensor(is_causal(m, s, t)))
    verdicts.passes(check, lambda m, s, t: np.bool_(is_causal(m, s, t)))
    verdicts.fails(check, lambda m, s, t: "yes", "expected True or False")


def test_xavier_scales_each_of_w_q_w_k_w_v_as_its_own_matrix():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(50, 60, d_model=64, n_heads=4, d_ff=128, n_layers=1))
    bound = math.sqrt(6 / (64 + 64))  # Xavier for one (64, 64) matrix
    for weight, _ in model.encoder.layers[0].self_attention.input_projections().values():
        assert weight.abs().max() <= bound
        # Xavier over the stacked (192, 64) parameter would bound every entry by sqrt(6/256).
        assert weight.abs().max() > math.sqrt(6 / (192 + 64))


def test_learned_positional_embedding_is_a_trained_table_in_each_stack():
    """Table 3 row (E): positional="learned" swaps the sinusoids for a trained (max_positions, d_model) table."""
    sinusoidal = small_model(max_positions=20)
    learned = small_model(max_positions=20, positional="learned")
    # The default is untouched: no positional parameter, same parameters and values as before.
    assert not any("positional" in name for name in sinusoidal.state_dict())
    for stack in ("encoder", "decoder"):
        table = learned.get_submodule(stack).positional_encoding.table
        assert isinstance(table, nn.Parameter) and table.shape == (20, 16)
        assert f"{stack}.positional_encoding.table" in learned.state_dict()
    extra = sum(p.numel() for p in learned.parameters()) - sum(
        p.numel() for p in sinusoidal.parameters()
    )
    assert extra == 2 * 20 * 16
    src, tgt = ragged([5, 3], 11), ragged([4, 2], 13, seed=1)
    learned.train()
    learned(src, tgt).square().mean().backward()
    assert learned.encoder.positional_encoding.table.grad[:5].abs().sum() > 0
    assert learned.encoder.positional_encoding.table.grad[5:].abs().sum() == 0  # unused positions
    # The model reads its table: changing position 0 of the encoder's table changes the logits.
    learned.eval()
    before = learned(src, tgt)
    with torch.no_grad():
        learned.encoder.positional_encoding.table[0] += 1.0
    assert not torch.allclose(before, learned(src, tgt))


def test_learned_positional_embedding_survives_a_checkpoint(tmp_path):
    from helpers.checkpoints import load_checkpoint, save_checkpoint
    from helpers.text.vocab import Vocab

    model = small_model(src_vocab_size=6, tgt_vocab_size=6, max_positions=12, positional="learned")
    vocab = Vocab(["a", "b"])
    save_checkpoint(tmp_path, model, vocab, vocab)
    loaded = load_checkpoint(tmp_path)[0]
    assert loaded.config.positional == "learned"
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name]), name


def test_positional_must_be_sinusoidal_or_learned():
    with pytest.raises(
        ValueError, match=r"positional: expected one of 'sinusoidal', 'learned', got 'rope'"
    ):
        small_model(positional="rope")
    from helpers.model.torch_reference import to_torch_reference

    with pytest.raises(ValueError, match=r"positional='learned'"):
        to_torch_reference(small_model(positional="learned"))


def test_config_edges():
    # The smallest sizes are allowed; d_k = d_v = 1 is a head of one dimension.
    TransformerConfig(5, 5, d_model=4, n_heads=4, d_ff=1, n_layers=1, d_k=1, d_v=1).validate()
    # Setting only d_k still needs n_heads to divide d_model (d_v comes from it).
    with pytest.raises(ValueError, match=r"^n_heads: .*d_model=10.*got 4$"):
        TransformerConfig(5, 5, d_model=10, n_heads=4, d_ff=8, n_layers=1, d_k=2).validate()
    with pytest.raises(ValueError, match=r"^dropout: .*got 1\.0$"):
        TransformerConfig(5, 5, d_model=8, n_heads=2, d_ff=8, n_layers=1, dropout=1.0).validate()


def test_forward_names_the_batch_size_that_differs():
    model = small_model()
    src, tgt = ragged([5, 3, 2], 11), ragged([4, 2], 13, seed=1)
    with pytest.raises(ValueError, match=r"^tgt: .*batch size 3.*got 2$"):
        model(src, tgt)


@torch.no_grad()
def test_decode_with_beams_sharing_the_memory_equals_copies_of_it():
    model = small_model().eval()
    src = ragged([5, 3, 4], model.config.src_vocab_size)
    beams = 3
    tgt = ragged([4] * (3 * beams), model.config.tgt_vocab_size, seed=1)
    memory, _ = model.encode(src)
    shared, copied = model.decoder.new_cache(beams=beams), model.decoder.new_cache()
    copies = [t.repeat_interleave(beams, 0) for t in (memory, src)]
    for t in range(tgt.shape[1]):
        logits = model.decode(tgt[:, t : t + 1], memory, src, cache=shared, start=t)[0]
        expected = model.decode(tgt[:, t : t + 1], *copies, cache=copied, start=t)[0]
        torch.testing.assert_close(logits, expected, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="^tgt: expected batch size 9, 3 rows"):
        model.decode(tgt[:8, :1], memory, src, cache=model.decoder.new_cache(beams=beams))
    with pytest.raises(ValueError, match="^tgt: expected batch size 3 like src"):
        model.decode(tgt[:, :1], memory, src, cache=model.decoder.new_cache())
