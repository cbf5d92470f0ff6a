"""Properties that must hold for every input, checked on inputs that hypothesis draws.

Masks hide exactly padding and the future; attention rows sum to 1 over the keys they may see;
the decoder is causal; decoding with the KV cache equals recomputing; any small configuration and
padding pattern gives finite outputs of the right shape. The examples are derandomized, so CI
sees the same ones on every run.
"""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.model.attention import scaled_dot_product_attention
from helpers.model.masks import decoder_self_attention_mask, look_ahead_mask, padding_mask
from helpers.model.multi_head_attention import MultiHeadAttention
from helpers.model.transformer import Transformer, TransformerConfig

PAD = 0
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None)


@st.composite
def padded_ids(draw, max_batch=3, max_seq_len=7, vocab_size=11):
    """(batch, length) ids, each row real tokens then padding (a row may be all padding)."""
    batch = draw(st.integers(1, max_batch))
    length = draw(st.integers(1, max_seq_len))
    real = draw(st.lists(st.integers(0, length), min_size=batch, max_size=batch))
    seed = draw(st.integers(0, 2**16))
    ids = torch.randint(
        1, vocab_size, (batch, length), generator=torch.Generator().manual_seed(seed)
    )
    for row, n in enumerate(real):
        ids[row, n:] = PAD
    return ids


@st.composite
def configs(draw):
    n_heads = draw(st.sampled_from([1, 2, 4]))
    d_model = n_heads * draw(st.sampled_from([2, 4, 8]))
    return TransformerConfig(
        src_vocab_size=11,
        tgt_vocab_size=9,
        d_model=d_model,
        n_heads=n_heads,
        d_ff=draw(st.sampled_from([4, 16])),
        n_layers=draw(st.integers(1, 2)),
        dropout=0.0,
        norm_first=draw(st.booleans()),
        share_embeddings=False,
        max_positions=32,
    )


def model_for(config: TransformerConfig, seed: int) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(config).eval()


# ---------------------------------------------------------------- masks


@PROPERTY
@given(padded_ids())
def test_the_padding_mask_allows_exactly_the_real_keys(ids):
    mask = padding_mask(ids, PAD)
    assert mask.shape == (ids.shape[0], 1, 1, ids.shape[1]) and mask.dtype == torch.bool
    assert torch.equal(mask[:, 0, 0], ids != PAD)


@PROPERTY
@given(st.integers(1, 12))
def test_the_look_ahead_mask_allows_exactly_the_past_and_present(size):
    mask = look_ahead_mask(size)[0, 0]
    for query in range(size):
        assert mask[query].tolist() == [key <= query for key in range(size)]


@PROPERTY
@given(padded_ids())
def test_the_decoder_mask_is_the_and_of_padding_and_look_ahead(ids):
    mask = decoder_self_attention_mask(ids, PAD)[:, 0]
    length = ids.shape[1]
    for row in range(ids.shape[0]):
        for query in range(length):
            expected = [(key <= query) and bool(ids[row, key] != PAD) for key in range(length)]
            assert mask[row, query].tolist() == expected


# ---------------------------------------------------------------- attention


@PROPERTY
@given(padded_ids(), st.integers(1, 5), st.integers(0, 2**16))
def test_attention_rows_sum_to_one_over_allowed_keys_and_zero_elsewhere(ids, len_q, seed):
    generator = torch.Generator().manual_seed(seed)
    batch, len_k = ids.shape
    query = torch.randn(batch, 2, len_q, 4, generator=generator)
    key = torch.randn(batch, 2, len_k, 4, generator=generator)
    mask = padding_mask(ids, PAD)
    _, weights = scaled_dot_product_attention(query, key, key, mask)
    allowed = mask.expand_as(weights)
    assert not torch.isnan(weights).any()
    assert torch.all(weights[~allowed] == 0)
    has_key = allowed.any(dim=-1)
    torch.testing.assert_close(weights.sum(-1)[has_key], torch.ones(int(has_key.sum())))
    assert torch.all(weights.sum(-1)[~has_key] == 0)  # all-padding rows: zero weights, not NaN


@PROPERTY
@given(padded_ids(), st.sampled_from([1, 2, 4]), st.integers(0, 2**16))
def test_the_fused_and_explicit_attention_paths_agree_for_any_padding(ids, n_heads, seed):
    torch.manual_seed(seed)
    mha = MultiHeadAttention(8, n_heads).eval()
    x = torch.randn(*ids.shape, 8)
    mask = padding_mask(ids, PAD)
    with torch.no_grad():
        fused, _ = mha(x, x, x, mask)
        explicit, _ = mha(x, x, x, mask, need_weights=True)
    assert not torch.isnan(fused).any()
    torch.testing.assert_close(fused, explicit, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- the whole model


@PROPERTY
@given(configs(), padded_ids(vocab_size=11), st.integers(2, 6), st.integers(0, 2**16))
def test_any_config_and_padding_gives_finite_logits_of_the_right_shape(config, src, tgt_len, seed):
    model = model_for(config, seed)
    tgt = torch.randint(
        1, 9, (src.shape[0], tgt_len), generator=torch.Generator().manual_seed(seed)
    )
    with torch.no_grad():
        logits = model(src, tgt)
    assert logits.shape == (src.shape[0], tgt_len, 9)
    assert torch.isfinite(logits).all()


@PROPERTY
@given(configs(), st.integers(2, 7), st.data())
def test_the_decoder_is_causal(config, tgt_len, data):
    model = model_for(config, data.draw(st.integers(0, 2**16)))
    src = torch.randint(1, 11, (2, 5), generator=torch.Generator().manual_seed(1))
    tgt = torch.randint(1, 9, (2, tgt_len), generator=torch.Generator().manual_seed(2))
    changed_at = data.draw(st.integers(0, tgt_len - 1))
    changed = tgt.clone()
    changed[:, changed_at] = changed[:, changed_at] % 8 + 1  # another real token
    with torch.no_grad():
        before, after = model(src, tgt), model(src, changed)
    torch.testing.assert_close(before[:, :changed_at], after[:, :changed_at])


@PROPERTY
@given(configs(), st.lists(st.integers(1, 3), min_size=1, max_size=4), st.integers(0, 2**16))
def test_decoding_with_the_cache_equals_recomputing(config, chunk_sizes, seed):
    model = model_for(config, seed)
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(1, 11, (2, 4), generator=generator)
    tgt = torch.randint(1, 9, (2, sum(chunk_sizes)), generator=generator)
    with torch.no_grad():
        memory, _ = model.encode(src)
        full, _, _ = model.decode(tgt, memory, src)
        cache, pieces, start = model.decoder.new_cache(), [], 0
        for size in chunk_sizes:  # several tokens at a time, at later and later positions
            piece, _, _ = model.decode(
                tgt[:, start : start + size], memory, src, cache=cache, start=start
            )
            pieces.append(piece)
            start += size
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, atol=1e-5, rtol=1e-5)


@PROPERTY
@given(
    configs(),
    padded_ids(vocab_size=11),
    st.integers(1, 4),
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.integers(0, 2**16),
)
def test_beams_sharing_the_memory_equal_copies_of_it(config, src, beams, chunk_sizes, seed):
    # Any padding (a source of padding alone included), any number of beams, several tokens at a
    # time: the cache that holds the memory once per sentence gives what copies of it give.
    model = model_for(config, seed)
    generator = torch.Generator().manual_seed(seed)
    tgt = torch.randint(1, 9, (src.shape[0] * beams, sum(chunk_sizes)), generator=generator)
    with torch.no_grad():
        memory, _ = model.encode(src)
        copies = [t.repeat_interleave(beams, dim=0) for t in (memory, src)]
        shared, copied, start = model.decoder.new_cache(beams=beams), model.decoder.new_cache(), 0
        for size in chunk_sizes:
            piece = tgt[:, start : start + size]
            ours = model.decode(piece, memory, src, True, shared, start)
            theirs = model.decode(piece, *copies, True, copied, start)
            torch.testing.assert_close(ours[0], theirs[0], atol=1e-5, rtol=1e-5)
            for weights, expected in zip(ours[1] + ours[2], theirs[1] + theirs[2], strict=True):
                torch.testing.assert_close(weights, expected, atol=1e-6, rtol=1e-6)
            start += size
    assert all(cross.key.shape[0] == src.shape[0] for _, cross in shared)
