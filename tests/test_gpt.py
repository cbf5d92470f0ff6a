"""helpers.model.gpt (notebook 13; trained and sampled in 16): GPT-1's formulas, tied weights, causality, the cache, checks."""

import math

import pytest
import torch
import torch.nn.functional as F

from helpers import GPT, GPTConfig
from helpers.model.encoder import EncoderLayer
from helpers.model.masks import decoder_self_attention_mask, look_ahead_mask
from helpers.training.language_model import (
    language_model_batches,
    next_token_batch,
    next_token_loss,
    perplexity,
    train_language_model,
)
from helpers.training.transformer import train_on_batches

PAD, BOS, EOS = 0, 2, 3


def tiny_gpt(norm_first: bool = False, seed: int = 0, **sizes) -> GPT:
    torch.manual_seed(seed)
    options = dict(d_model=32, n_heads=4, d_ff=64, n_layers=2, dropout=0.0, max_positions=32)
    options.update(sizes)
    return GPT(GPTConfig(20, norm_first=norm_first, **options)).eval()


def random_ids(batch: int = 3, length: int = 9, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(4, 20, (batch, length), generator=generator)


@pytest.mark.parametrize("norm_first", [False, True])
def test_forward_is_gpt_1s_formulas(norm_first):
    model, ids = tiny_gpt(norm_first), random_ids()
    W_e = model.embedding.embedding.weight
    with torch.no_grad():
        h = F.one_hot(ids, 20).float() @ W_e * math.sqrt(32) + model.positional_encoding.table[:9]
        for block in model.blocks:
            h = block(h, decoder_self_attention_mask(ids, PAD))
        h = model.final_norm(h)
        torch.testing.assert_close(h @ W_e.T, model(ids))


def test_output_is_tied_to_the_input_embedding():
    model = tiny_gpt()
    vocabulary_sized = [name for name, p in model.named_parameters() if 20 in p.shape]
    assert vocabulary_sized == ["embedding.embedding.weight"]
    ids = random_ids()
    model(ids).sum().backward()
    assert model.embedding.embedding.weight.grad is not None


def test_a_block_is_an_encoder_layer_under_the_look_ahead_mask():
    model = tiny_gpt()
    layer = EncoderLayer(32, 4, 64).eval()
    layer.load_state_dict(model.blocks[1].state_dict())
    x, mask = torch.randn(2, 7, 32), look_ahead_mask(7)
    with torch.no_grad():
        torch.testing.assert_close(model.blocks[1](x, mask), layer(x, mask)[0])


@pytest.mark.parametrize("norm_first", [False, True])
def test_later_tokens_never_change_earlier_scores(norm_first):
    model, ids = tiny_gpt(norm_first), random_ids()
    changed = ids.clone()
    changed[:, 6:] = 5
    with torch.no_grad():
        torch.testing.assert_close(model(ids)[:, :6], model(changed)[:, :6])


@pytest.mark.parametrize("norm_first", [False, True])
def test_the_cache_gives_the_parallel_scores(norm_first):
    model, ids = tiny_gpt(norm_first), random_ids()
    with torch.no_grad():
        parallel = model(ids)
        cache = model.new_cache()
        first = model(ids[:, :4], cache=cache)  # a prompt of four, then one at a time
        rest = [model(ids[:, t : t + 1], cache=cache, start=t) for t in range(4, 9)]
    torch.testing.assert_close(torch.cat([first, *rest], dim=1), parallel, atol=1e-5, rtol=1e-5)


def test_padding_changes_no_real_position():
    model, ids = tiny_gpt(), random_ids(batch=1, length=5)
    padded = torch.cat([ids, torch.full((1, 3), PAD)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(model(padded)[:, :5], model(ids))


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("vocab_size", 0, "vocab_size: expected a positive int"),
        ("d_model", 30, "n_heads: expected a positive divisor of d_model=30"),
        ("dropout", 1.0, "dropout"),
        ("pad_id", 20, "pad_id: expected an id in [0, 20)"),
        ("max_positions", -1, "max_positions: expected a positive int"),
    ],
)
def test_config_errors_name_the_field(field, value, words):
    options = dict(vocab_size=20, d_model=32, n_heads=4, d_ff=64, n_layers=1)
    options[field] = value
    with pytest.raises(ValueError, match=None) as error:
        GPT(GPTConfig(**options))
    assert words in str(error.value)


def test_forward_errors_name_the_argument():
    model = tiny_gpt(max_positions=8)
    with pytest.raises(ValueError, match="ids: expected ids in"):
        model(torch.tensor([[1, 25]]))
    with pytest.raises(ValueError, match="ids: positions 0 to 8 go past max_positions=8"):
        model(random_ids(length=9))
    with pytest.raises(ValueError, match="start: expected 0 without a cache"):
        model(random_ids(length=2), start=1)
    cache = model.new_cache()
    model(random_ids(length=3), cache=cache)
    with pytest.raises(ValueError, match="start: expected 3, the number of positions"):
        model(random_ids(length=1), cache=cache, start=2)
    with pytest.raises(ValueError, match="cache: expected one KVCache per block"):
        model(random_ids(length=1), cache=cache[:1], start=3)
    with pytest.raises(ValueError, match="ids: expected dtype torch.int64"):
        model(random_ids().float())


# ---------------------------------------------------------------- the language-model pipeline


def toy_sequences(count: int = 64) -> list[list[int]]:
    """<s> a b c ... </s>: counting up from a random start, so the next token is easy to learn."""
    generator = torch.Generator().manual_seed(0)
    sequences = []
    for _ in range(count):
        start = int(torch.randint(4, 10, (1,), generator=generator))
        sequences.append([BOS, *range(start, start + 6), EOS])
    return sequences


def test_batches_cover_every_sequence_once_per_epoch():
    sequences = [[BOS, i, EOS] for i in range(4, 16)]
    batches = language_model_batches(sequences, 4, seed=1)
    epoch = [s[1] for _ in range(3) for s in next(batches)]
    assert sorted(epoch) == list(range(4, 16))


def test_next_token_loss_is_cross_entropy_of_the_shifted_sequence():
    model, batch = tiny_gpt(), [[BOS, 5, 6, 7, EOS], [BOS, 8, EOS]]
    ids = torch.tensor([[BOS, 5, 6, 7, EOS], [BOS, 8, EOS, PAD, PAD]])
    expected = F.cross_entropy(model(ids[:, :-1]).transpose(1, 2), ids[:, 1:], ignore_index=PAD)
    torch.testing.assert_close(next_token_loss(model, batch), expected)


def test_next_token_batch_gives_notebook_11s_loop_inputs_and_targets():
    (inputs,), target = next_token_batch([[BOS, 5, 6, 7, EOS], [BOS, 8, EOS]], PAD, "cpu")
    assert inputs.tolist() == [[BOS, 5, 6, 7], [BOS, 8, EOS, PAD]]
    assert target.tolist() == [[5, 6, 7, EOS], [8, EOS, PAD, PAD]]
    (inputs,), target = next_token_batch([[BOS, 5, 1, 6, 7, EOS]], PAD, "cpu", sep_id=1)
    assert target.tolist() == [[PAD, PAD, 6, 7, EOS]]  # the prompt up to <sep> is not predicted


def test_train_language_model_is_train_on_batches_on_next_token_batches():
    sequences = toy_sequences()
    history = train_language_model(tiny_gpt(), sequences, steps=8, batch_size=4, warmup_steps=2)
    model, batches = tiny_gpt(), language_model_batches(sequences, 4, seed=0)
    by_hand = train_on_batches(
        model, (next_token_batch(b, PAD, "cpu") for b in batches), 8, 2, 1.0, 0.0, 1.0,
        progress=False,
    )  # fmt: skip
    assert history.loss == by_hand.loss and history.grad_norm == by_hand.grad_norm
    assert len(history.accuracy) == 8 and history.valid_step == []


def test_training_lowers_the_perplexity():
    model, sequences = tiny_gpt(n_layers=1), toy_sequences()
    before = perplexity(model, sequences)
    history = train_language_model(model, sequences, steps=60, batch_size=16, warmup_steps=10)
    after = perplexity(model, sequences)
    assert len(history.loss) == 60 and after < before / 3
    assert after == pytest.approx(math.exp(next_token_loss(model.eval(), sequences).item()))
