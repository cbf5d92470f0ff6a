"""helpers.text.vocab (notebook 01) and the checks of notebook 01's exercises."""

import pytest
import torch

from helpers.exercises.notebook_01 import (
    check_group_by_length,
    check_padding_fraction,
    check_shift_right,
)
from helpers.text.vocab import (
    BOS,
    EOS,
    PAD,
    SPECIAL_TOKENS,
    UNK,
    Vocab,
    collate,
    encode_pairs,
    make_batch,
    pad_sequences,
)

PAIRS = [
    ("ich mochte ein bier", "i want a beer"),
    ("ein bier", "a beer"),
    ("ich mochte ein kaltes bier bitte", "i want a cold beer please"),
]


@pytest.fixture
def vocabs():
    return (
        Vocab.from_sentences(source for source, _ in PAIRS),
        Vocab.from_sentences(target for _, target in PAIRS),
    )


def test_special_tokens_come_first_with_pad_at_zero():
    vocab = Vocab(["ich", "mochte", "ein", "bier"])
    assert vocab.to_list() == [PAD, UNK, BOS, EOS, "ich", "mochte", "ein", "bier"]
    assert (vocab.pad_id, vocab.unk_id, vocab.bos_id, vocab.eos_id) == (0, 1, 2, 3)
    assert len(vocab) == 8


def test_repeated_and_special_tokens_are_not_added_twice():
    vocab = Vocab(["bier", "bier", PAD, "ein"])
    assert vocab.to_list() == [*SPECIAL_TOKENS, "bier", "ein"]


def test_from_sentences_ranks_by_count_then_alphabetically():
    vocab = Vocab.from_sentences(["b a", "a c", "c a"])
    assert vocab.to_list()[4:] == ["a", "c", "b"]
    assert Vocab.from_sentences(["b a", "a c", "c a"], min_count=2).to_list()[4:] == ["a", "c"]


def test_encode_decode_round_trip(vocabs):
    src_vocab, tgt_vocab = vocabs
    for source, target in PAIRS:
        assert src_vocab.decode(src_vocab.encode(source)) == source
        assert tgt_vocab.decode(torch.tensor(tgt_vocab.encode(target))) == target


def test_encode_adds_start_and_end_and_maps_unknown_words():
    vocab = Vocab(["i", "want", "a", "beer"])
    assert vocab.encode("i want water", add_bos=True, add_eos=True) == [2, 4, 5, 1, 3]
    assert vocab.encode(["a", "beer"]) == [6, 7]
    assert vocab.decode([4, 5, 1]) == "i want <unk>"


def test_decode_stops_at_end_and_skips_pad_and_start():
    vocab = Vocab(["i", "want", "a", "beer"])
    assert vocab.decode([2, 4, 5, 3, 6, 0, 0]) == "i want"
    assert vocab.decode([2, 4, 3, 0], skip_special=False) == "<s> i </s> <pad>"


def test_to_list_from_list_restores_the_same_ids(vocabs):
    src_vocab, _ = vocabs
    restored = Vocab.from_list(src_vocab.to_list())
    assert restored.token_to_id == src_vocab.token_to_id


@pytest.mark.parametrize(
    ("build", "named"),
    [
        (lambda: Vocab(["two words"]), "tokens"),
        (lambda: Vocab([""]), "tokens"),
        (lambda: Vocab([3]), "tokens"),
        (lambda: Vocab(["ab"]).decode([0, 99]), "ids"),
        (lambda: Vocab(["ab"]).decode([-1]), "ids"),
        (lambda: Vocab(["ab"]).decode([1.0]), "ids"),
        (lambda: Vocab.from_list(["a", "b"]), "tokens"),
        (lambda: pad_sequences([]), "sequences"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(build, named):
    with pytest.raises(ValueError, match=named):
        build()


def test_pad_sequences_pads_on_the_right_to_the_longest():
    batch = pad_sequences([[5, 6, 7], [8], [9, 10]], pad_id=0)
    assert batch.dtype == torch.long
    assert batch.tolist() == [[5, 6, 7], [8, 0, 0], [9, 10, 0]]
    assert pad_sequences([[4, 4]], pad_id=7).tolist() == [[4, 4]]  # nothing to pad to
    assert pad_sequences([[1], []], pad_id=7).tolist() == [[1], [7]]


def test_make_batch_shifts_the_target_right(vocabs):
    src_vocab, tgt_vocab = vocabs
    src, tgt_input, tgt_output = make_batch(PAIRS, src_vocab, tgt_vocab)
    assert src.shape == (3, 6) and tgt_input.shape == tgt_output.shape == (3, 7)
    assert torch.all(tgt_input[:, 0] == tgt_vocab.bos_id)
    assert torch.all((tgt_output == tgt_vocab.eos_id).sum(dim=1) == 1)
    # The decoder input is the target shifted right, except where a pad faces a shorter row's </s>.
    differs = tgt_input[:, 1:] != tgt_output[:, :-1]
    assert torch.all(tgt_input[:, 1:][differs] == tgt_vocab.pad_id)
    assert torch.all(tgt_output[:, :-1][differs] == tgt_vocab.eos_id)
    assert int(differs.sum()) == 2
    for row, (source, target) in enumerate(PAIRS):
        assert src_vocab.decode(src[row]) == source
        assert tgt_vocab.decode(tgt_input[row]) == target == tgt_vocab.decode(tgt_output[row])


def test_the_lessons_batch_and_the_training_batch_are_one_path(vocabs):
    # One convention (issue 25): examples keep the target's </s>; collate moves it out of the
    # decoder input. make_batch (notebook 01) is encode_pairs + collate, as training batches are.
    src_vocab, tgt_vocab = vocabs
    examples = encode_pairs(PAIRS, src_vocab, tgt_vocab)
    assert all(target[-1] == tgt_vocab.eos_id for _, target in examples)
    assert all(tgt_vocab.eos_id not in source for source, _ in examples)
    batch = collate(examples, range(len(PAIRS)), tgt_vocab.pad_id, tgt_vocab.bos_id)
    for ours, theirs in zip(make_batch(PAIRS, src_vocab, tgt_vocab), batch, strict=True):
        assert torch.equal(ours, theirs)
    # Any subset, in any order: the rows of those examples.
    src, tgt_input, tgt_output = collate(examples, [2, 0], tgt_vocab.pad_id, tgt_vocab.bos_id)
    assert (
        src_vocab.decode(src[0]) == PAIRS[2][0] and tgt_vocab.decode(tgt_output[1]) == PAIRS[0][1]
    )
    assert tgt_input[:, 0].tolist() == [tgt_vocab.bos_id] * 2


# Exercise checks: the solution passes; the stub, a crash and wrong answers get a ✗ that says why.


def good_shift_right(ids, bos_id, eos_id):
    return [bos_id, *ids], [*ids, eos_id]


def good_padding_fraction(sequences):
    lengths = [len(s) for s in sequences]
    return 1 - sum(lengths) / (len(lengths) * max(lengths))


def good_group_by_length(lengths, batch_size):
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


CHECKS = [
    (
        check_shift_right,
        good_shift_right,
        [
            (lambda ids, b, e: (ids, ids), "<s> first"),
            (lambda ids, b, e: ([b, *ids], [*ids]), "then </s>"),
            (lambda *a: 3, "expected a pair (decoder_input, target), got int"),
        ],
    ),
    (
        check_padding_fraction,
        good_padding_fraction,
        [
            (
                lambda s: sum(map(len, s)) / (len(s) * max(map(len, s))),
                "expected 0.3750, got 0.6250",
            ),
            (lambda s: 9, "that is a count, not a share"),
            (lambda s: "a", "expected a number, got str"),
        ],
    ),
    (
        check_group_by_length,
        good_group_by_length,
        [
            (lambda lengths, size: [list(range(len(lengths)))], "more than batch_size=2"),
            (
                lambda lengths, size: [[i, i + 1] for i in range(0, len(lengths) - 1, 2)][:-1],
                "should appear exactly once",
            ),
            (
                lambda lengths, size: [
                    list(range(len(lengths)))[i : i + size] for i in range(0, len(lengths), size)
                ],  # corpus order: more padding than needed
                "put sentences of similar length together",
            ),
            (lambda lengths, size: 5, "expected a list of batches, got int"),
            # One sentence per batch needs no padding at all, but is not batching.
            (lambda lengths, size: [[i] for i in range(len(lengths))], "expected 3 batches"),
            # Right only when the count is a multiple of batch_size: the rest is dropped.
            (
                lambda lengths, size: good_group_by_length(lengths, size)[: len(lengths) // size],
                "should appear exactly once",
            ),
        ],
    ),
]


def least_padding_group_by_length(lengths, batch_size):
    """The fewest batches with the least padding: contiguous runs of the sorted order, cut where
    a dynamic programme over (sentences placed, batches used) says."""
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    n, count = len(order), -(-len(lengths) // batch_size)
    best = {(0, 0): (0, [])}
    for used in range(count):
        for placed in range(n):
            if (placed, used) not in best:
                continue
            cost, cuts = best[(placed, used)]
            for size in range(1, min(batch_size, n - placed) + 1):
                end = placed + size
                pads = sum(lengths[order[end - 1]] - lengths[i] for i in order[placed:end])
                if (end, used + 1) not in best or cost + pads < best[(end, used + 1)][0]:
                    best[(end, used + 1)] = (cost + pads, [*cuts, end])
    cuts = [0, *best[(n, count)][1]]
    return [order[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def test_group_by_length_check_accepts_less_padding_than_sorting_then_cutting(verdicts):
    # The counter-example of the exercise: sorting then cutting gives [1, 10] + [10] (9 pads);
    # [1] + [10, 10] needs none, and the check must accept both.
    assert good_group_by_length([1, 10, 10], 2) == [[0, 1], [2]]
    assert least_padding_group_by_length([1, 10, 10], 2) == [[0], [1, 2]]
    verdicts.passes(check_group_by_length, least_padding_group_by_length)


@pytest.mark.parametrize(("check", "solution", "wrong"), CHECKS)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)
