"""KVCache (notebook 09): keys and values kept between decoding steps, through MultiHeadAttention."""

import pytest
import torch
from shared_models import D_MODEL, N_HEADS

from helpers.model.kv_cache import KVCache
from helpers.model.masks import look_ahead_mask

ATOL = RTOL = 1e-5


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, atol=ATOL, rtol=RTOL)


@torch.no_grad()
def test_self_attention_cache_matches_one_call(mha, x):
    cache = KVCache()
    steps = []
    for position in range(x.shape[1]):
        step = x[:, position : position + 1]
        steps.append(mha(step, step, step, cache=cache)[0])
    full, _ = mha(x, x, x, look_ahead_mask(x.shape[1]))
    assert cache.length == x.shape[1] and cache.key.shape[:2] == (2, N_HEADS)
    assert close(torch.cat(steps, dim=1), full)


@torch.no_grad()
def test_memory_cache_projects_the_memory_once(mha, x):
    memory = torch.randn(2, 7, D_MODEL)
    cache = KVCache(from_memory=True)
    first, _ = mha(x[:, :1], memory, memory, cache=cache)
    stored_key = cache.key
    # Later steps reuse the stored keys and values: the key/value arguments are not read again.
    second, _ = mha(x[:, 1:2], torch.zeros_like(memory), torch.zeros_like(memory), cache=cache)
    full, _ = mha(x[:, :2], memory, memory)
    assert cache.key is stored_key
    assert close(torch.cat([first, second], dim=1), full)


@torch.no_grad()
def test_the_self_attention_cache_grows_by_doubling_not_by_copying_every_step(mha):
    cache, buffers = KVCache(), set()
    for position in range(40):
        step = torch.randn(1, 1, D_MODEL)
        mha(step, step, step, cache=cache)
        buffers.add(cache.key.data_ptr())
        assert cache.length == position + 1 and cache.key.shape[2] >= cache.length
    assert cache.key.shape[2] == 64
    assert len(buffers) == 3  # capacity 16, then 32, then 64: three allocations for 40 steps


@torch.no_grad()
def test_select_rows_keeps_and_reorders_the_cached_rows(mha):
    cache = KVCache()
    x = torch.randn(3, 2, D_MODEL)
    mha(x, x, x, cache=cache)
    before = cache.key[:, :, : cache.length].clone()
    cache.select_rows(torch.tensor([2, 0]))
    torch.testing.assert_close(cache.key[:, :, : cache.length], before[[2, 0]])


@torch.no_grad()
def test_the_cache_takes_a_first_chunk_longer_than_its_starting_capacity(mha):
    x = torch.randn(2, 20, D_MODEL)  # 20 positions at once: more than the 16 a cache starts with
    cache = KVCache()
    first, _ = mha(x[:, :20], x[:, :20], x[:, :20], look_ahead_mask(20), cache=cache)
    assert cache.length == 20 and cache.key.shape[2] >= 20
    full, _ = mha(x, x, x, look_ahead_mask(20))
    assert close(first, full)


def test_the_memory_cache_knows_the_memory_length(mha):
    cache = KVCache(from_memory=True)
    memory = torch.randn(2, 7, D_MODEL)
    mha(torch.randn(2, 1, D_MODEL), memory, memory, cache=cache)
    assert cache.length == 7


# ---------------------------------------------------------------- beams sharing one memory row


@pytest.mark.parametrize("len_q", [1, 3])
@torch.no_grad()
def test_beams_sharing_a_memory_row_equal_copies_of_it(mha, len_q):
    # Three sentences, four beams each: rows 4b..4b+3 read memory row b. Sentence 1 has padding,
    # sentence 2 is all padding (its beams get zeros from the heads on both sides).
    torch.manual_seed(2)
    batch, beams, src_len = 3, 4, 7
    memory = torch.randn(batch, src_len, D_MODEL)
    mask = torch.ones(batch, 1, 1, src_len, dtype=torch.bool)
    mask[1, ..., 5:] = mask[2] = False
    copies, copied_mask = memory.repeat_interleave(beams, 0), mask.repeat_interleave(beams, 0)
    shared, copied = KVCache(from_memory=True, beams=beams), KVCache(from_memory=True)
    for _ in range(2):  # the first step projects the memory, the second reads the cache
        query = torch.randn(batch * beams, len_q, D_MODEL)
        for need_weights in (False, True):
            out, weights = mha(query, memory, memory, mask, need_weights, shared)
            expected, weights_of_copies = mha(
                query, copies, copies, copied_mask, need_weights, copied
            )
            assert out.shape == (batch * beams, len_q, D_MODEL) and close(out, expected)
            if need_weights:  # the explicit path: the same numbers, one row per beam
                assert weights.shape == (batch * beams, N_HEADS, len_q, src_len)
                assert torch.equal(weights, weights_of_copies) and torch.equal(out, expected)
    # The shared cache holds one row of keys and values per memory row, not one per beam.
    assert shared.key.shape == (batch, N_HEADS, src_len, D_MODEL // N_HEADS)
    assert copied.key.shape[0] == shared.value.shape[0] * beams


# Query rows that do not match the memory's (beams or not) are refused where a user passes them,
# at Transformer.decode (tests/test_transformer.py, test_decode_with_beams_sharing_the_memory_...).


def test_beams_sharing_a_memory_row_need_a_mask_without_query_rows(mha):
    memory = torch.randn(3, 7, D_MODEL)
    per_query, shared = torch.ones(3, 1, 2, 7, dtype=torch.bool), KVCache(from_memory=True, beams=2)
    with pytest.raises(AssertionError) as failure:
        mha(torch.randn(6, 2, D_MODEL), memory, memory, per_query, cache=shared)
    assert "one mask row" in str(failure.traceback[-1].statement)
