"""helpers.text.bpe (notebook 14): byte-pair encoding, checked against Hugging Face `tokenizers`.

The comparison on the real German-English dictionary (TU Chemnitz "Ding", Debian's trans-de-en)
runs only where that file is installed; it is read in place, never copied (it is GPL-licensed).
"""

import json
import warnings
from functools import cache

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_models import tiny_transformer

from helpers.data.corpus import load_corpus
from helpers.decoding.search import greedy_decode, source_ids, translate
from helpers.exercises.notebook_14 import check_apply_merges, check_pieces_per_word
from helpers.text.bpe import (
    BYTE_PIECES,
    END_OF_WORD,
    BPETokenizer,
    PieceVocab,
    initial_pieces,
    merge_pair,
    starting_pieces,
    train_bpe,
    word_frequencies,
)
from helpers.text.vocab import Vocab
from tools.benchmark import dictionary_phrases

PROPERTY = settings(max_examples=200, deadline=None, derandomize=True, database=None)


@cache
def corpus_texts() -> tuple[str, ...]:
    return tuple(sentence for pair in load_corpus("train") for sentence in pair)


@cache
def corpus_tokenizer(vocab_size: int = 500) -> BPETokenizer:
    return train_bpe(list(corpus_texts()), vocab_size)


def hugging_face(texts: list[str], vocab_size: int):
    """A Hugging Face BPE trained like train_bpe: words split on white space, `</w>`, min 2."""
    tokenizers = pytest.importorskip("tokenizers")
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(end_of_word_suffix=END_OF_WORD))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, end_of_word_suffix=END_OF_WORD, show_progress=False
    )
    tokenizer.train_from_iterator(texts, trainer)
    model = json.loads(tokenizer.to_str())["model"]
    merges = [tuple(pair) for pair in model["merges"]]
    vocab = sorted(model["vocab"], key=model["vocab"].get)
    return tokenizer, merges, vocab


# ---------------------------------------------------------------- the algorithm


def test_initial_pieces_mark_the_last_character():
    assert initial_pieces("bier") == ("b", "i", "e", "r</w>")
    assert initial_pieces("a") == ("a</w>",)


def test_merge_pair_merges_every_occurrence_left_to_right():
    assert merge_pair(("a", "a", "a", "b"), ("a", "a")) == ("aa", "a", "b")
    assert merge_pair(("a", "b", "a", "b</w>"), ("a", "b")) == ("ab", "a", "b</w>")
    assert merge_pair(("x", "y"), ("a", "b")) == ("x", "y")


def test_training_by_hand_on_a_tiny_text():
    # low x5, lower x2, newest x6, widest x3 (Sennrich et al.'s example): e s (9) is merged first,
    # then es t</w> (9), then l o (7).
    texts = ["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3
    tokenizer = train_bpe(texts, len(starting_pieces(word_frequencies(texts))) + 3)
    assert tokenizer.merges == [("e", "s"), ("es", "t</w>"), ("l", "o")]
    assert tokenizer.encode("lowest") == ["lo", "w", "est</w>"]


def test_ties_go_to_the_pieces_made_first():
    # a b and c d both occur twice: a < c in code-point order, so a b wins; then c d.
    tokenizer = train_bpe(["cd ab", "ab cd"], 100)
    assert tokenizer.merges[:2] == [("a", "b</w>"), ("c", "d</w>")]
    reordered = train_bpe(["cd ab", "ab cd"], 100, tie_order=["c", "a", "b", "d", "b</w>", "d</w>"])
    assert reordered.merges[:2] == [("c", "d</w>"), ("a", "b</w>")]


def test_the_fast_trainer_equals_recounting_every_pair():
    frequencies = word_frequencies(corpus_texts())
    words = {initial_pieces(word): count for word, count in frequencies.items()}
    made = starting_pieces(frequencies)
    expected = []
    for _ in range(120):
        counts: dict = {}
        for pieces, count in words.items():
            for pair in zip(pieces, pieces[1:], strict=False):
                counts[pair] = counts.get(pair, 0) + count
        best = min(counts, key=lambda p: (-counts[p], made.index(p[0]), made.index(p[1])))
        expected.append(best)
        made.append(best[0] + best[1])
        words = {merge_pair(pieces, best): count for pieces, count in words.items()}
    assert (
        train_bpe(list(corpus_texts()), len(starting_pieces(frequencies)) + 120).merges == expected
    )


def test_vocab_size_counts_every_learned_piece():
    tokenizer = corpus_tokenizer()
    assert len(tokenizer.pieces) == 500 == len(set(tokenizer.pieces))
    assert len(tokenizer.vocabulary) == 500 + 1 + 256


def test_training_stops_when_no_pair_occurs_min_frequency_times():
    tokenizer = train_bpe(["ab ab cd"], 1000)
    assert tokenizer.merges == [("a", "b</w>")]
    assert train_bpe(["ab ab cd"], 1000, min_frequency=1).merges == [("a", "b</w>"), ("c", "d</w>")]


# ---------------------------------------------------------------- encoding and decoding


def test_round_trip_on_every_sentence_of_the_corpus():
    tokenizer = corpus_tokenizer()
    for split in ("train", "valid", "test"):
        for pair in load_corpus(split):
            for sentence in pair:
                assert tokenizer.decode(tokenizer.encode(sentence)) == sentence


@cache
def corpus_alphabet() -> str:
    return "".join(sorted({character for text in corpus_texts() for character in text} - {" "}))


UNKNOWN = "AZéç€Ωあ😀<>/"
# deferred: the corpus is read when a test first draws, not when pytest collects this file
WORDS = st.deferred(
    lambda: st.text(alphabet=st.sampled_from(corpus_alphabet() + UNKNOWN), min_size=1, max_size=12)
)


@PROPERTY
@given(st.lists(WORDS, max_size=8))
def test_round_trip_on_any_words_even_with_unknown_characters(words):
    tokenizer = corpus_tokenizer()
    text = " ".join(words)
    pieces = tokenizer.encode(text)
    assert tokenizer.decode(pieces) == text
    assert set(pieces) <= set(tokenizer.vocabulary)
    assert sum(piece.endswith(END_OF_WORD) for piece in pieces) == len(words)


def test_unknown_characters_fall_back_to_their_bytes():
    tokenizer = corpus_tokenizer()
    assert tokenizer.encode("é") == ["<0xC3>", "<0xA9>", "</w>"]
    assert tokenizer.encode("Bier")[0] == "<0x42>"
    assert tokenizer.decode(["<0xE2>", "<0x82>", "<0xAC>", "</w>"]) == "€"
    assert len(BYTE_PIECES) == 256 and BYTE_PIECES[0] == "<0x00>"


def test_decoding_broken_bytes_does_not_crash():
    assert corpus_tokenizer().decode(["<0xC3>", "</w>"]) == "\ufffd"


def test_white_space_is_normalised_like_str_split():
    tokenizer = corpus_tokenizer()
    assert tokenizer.decode(tokenizer.encode("  der \t mann\n")) == "der mann"
    assert tokenizer.encode("") == []


# ---------------------------------------------------------------- save and load


def test_a_piece_vocabulary_reads_and_writes_text_with_the_model_s_ids():
    tokenizer = corpus_tokenizer()
    vocab = PieceVocab(tokenizer)
    assert vocab.to_list() == Vocab(tokenizer.vocabulary).to_list()
    for sentence in corpus_texts()[:200] + ("straßenbahnhaltestelle 東京",):
        ids = vocab.encode(sentence, add_eos=True)
        assert ids == Vocab(tokenizer.vocabulary).encode(tokenizer.encode(sentence), add_eos=True)
        assert vocab.unk_id not in ids  # unknown characters fall back to byte pieces
        assert vocab.decode([vocab.bos_id, *ids, vocab.pad_id]) == " ".join(sentence.split())


def test_translate_takes_a_piece_vocabulary_like_a_word_vocabulary():
    # Notebook 12's translate() over the tokenizer protocol: a PieceVocab is one.
    vocab = PieceVocab(corpus_tokenizer())
    sizes = {"src_vocab_size": len(vocab), "tgt_vocab_size": len(vocab), "max_positions": 64}
    model = tiny_transformer(**sizes)
    assert source_ids("Der Mann, ja!", vocab) == vocab.encode("der mann , ja !")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # byte pieces: no word is unknown, no warning
        (text,) = translate(model, ["Der Mann trinkt ein Bier."], vocab, vocab, max_new_tokens=5)
    src = torch.tensor([vocab.encode("der mann trinkt ein bier .")])
    assert text == vocab.decode(greedy_decode(model, src, max_new_tokens=5)[0].tolist())


def test_save_and_load_give_the_same_tokenizer(tmp_path):
    tokenizer = corpus_tokenizer()
    path = tmp_path / "bpe.txt"
    tokenizer.save(path)
    loaded = BPETokenizer.load(path)
    assert loaded.pieces == tokenizer.pieces and loaded.merges == tokenizer.merges
    for sentence in corpus_texts()[:500]:
        assert loaded.encode(sentence) == tokenizer.encode(sentence)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# byte-pair encoding") and "\nt h\n" in text


def test_save_and_load_survive_pieces_that_look_like_the_file_s_lines(tmp_path):
    tokenizer = train_bpe(["[merges]x [merges]x [merges] # # ## ##"] * 3, 200, min_frequency=1)
    assert "[merges]</w>" in tokenizer.pieces and "##</w>" in tokenizer.pieces
    tokenizer.save(tmp_path / "bpe.txt")
    loaded = BPETokenizer.load(tmp_path / "bpe.txt")
    assert loaded.pieces == tokenizer.pieces and loaded.merges == tokenizer.merges


def test_load_refuses_another_file(tmp_path):
    path = tmp_path / "other.txt"
    path.write_text("hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match="path: .* not a file written by BPETokenizer.save"):
        BPETokenizer.load(path)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: train_bpe(["der mann"], 3), "vocab_size: expected at least 8"),
        (lambda: train_bpe(["der mann"], 12.5), "vocab_size: expected an int"),
        (lambda: train_bpe(["der mann"], True), "vocab_size: expected an int"),
        (lambda: train_bpe([], 100), "texts: expected at least one word"),
        (lambda: train_bpe(["", " "], 100), "texts: expected at least one word"),
        (lambda: train_bpe("der mann", 100), "texts: expected a list of strings"),
        (
            lambda: train_bpe(["der", 3], 100),
            "texts: expected a list of strings, got int at index 1",
        ),
        (lambda: train_bpe(["der"], 100, min_frequency=0), "min_frequency: expected a positive"),
        (lambda: train_bpe(["ab"], 100, tie_order=["a"]), "tie_order: expected the 3 starting"),
        (lambda: corpus_tokenizer().encode(None), "text: expected a str, got NoneType"),
        (lambda: corpus_tokenizer().decode("der"), "pieces: expected a list of pieces"),
        (lambda: corpus_tokenizer().decode([1]), "pieces: expected strings, got int"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------- against Hugging Face


def test_same_merges_as_hugging_face_on_the_corpus():
    texts = list(corpus_texts())
    _, merges, vocab = hugging_face(texts, 500)
    assert corpus_tokenizer().merges == merges
    n_starting = len(starting_pieces(word_frequencies(texts)))
    # The same pieces; only the x</w> starting pieces come in another order (hash-table order).
    assert sorted(corpus_tokenizer().pieces[:n_starting]) == sorted(vocab[:n_starting])
    assert corpus_tokenizer().pieces[n_starting:] == vocab[n_starting:]


def test_with_hugging_face_s_tie_order_every_merge_and_split_is_the_same():
    # Hugging Face numbers the `x</w>` pieces in hash-table order (it changes between runs);
    # given that order, every merge and every split is the same.
    texts = list(corpus_texts())
    hf, merges, vocab = hugging_face(texts, 1200)
    n_starting = len(starting_pieces(word_frequencies(texts)))
    ours = train_bpe(texts, 1200, tie_order=vocab[:n_starting])
    assert ours.merges == merges and ours.pieces == vocab
    default = train_bpe(texts, 1200)
    words = sorted({w for pair in load_corpus("test") for s in pair for w in s.split()})
    assert all(ours.encode(word) == hf.encode(word).tokens for word in words)
    agree = sum(default.encode(word) == hf.encode(word).tokens for word in words)
    assert agree >= 0.99 * len(words)


@pytest.mark.dictionary
def test_against_hugging_face_on_a_sample_of_the_real_dictionary():
    train, held_out = dictionary_phrases(0), dictionary_phrases(20)
    hf, merges, vocab = hugging_face(train, 1500)
    n_starting = len(starting_pieces(word_frequencies(train)))
    same_order = train_bpe(train, 1500, tie_order=vocab[:n_starting])
    assert same_order.merges == merges
    # Held-out words never seen in training, made only of characters seen in training (the
    # Hugging Face model has no byte fallback and drops the others).
    ours = train_bpe(train, 1500)
    seen = set(word_frequencies(train))
    alphabet = set(ours.characters)
    unseen = sorted(
        {w for phrase in held_out for w in phrase.split() if w not in seen and set(w) <= alphabet}
    )
    assert len(unseen) > 1000
    agree = sum(ours.encode(word) == hf.encode(word).tokens for word in unseen)
    assert agree >= 0.99 * len(unseen), f"{agree} of {len(unseen)}"
    for phrase in held_out:
        assert ours.decode(ours.encode(phrase)) == phrase


# ---------------------------------------------------------------- exercises


def solution_apply_merges(word, tokenizer):
    pieces = tokenizer.start(word)
    for pair in tokenizer.merges:
        pieces = merge_pair(pieces, pair)
    return list(pieces)


def solution_pieces_per_word(tokenizer, sentences):
    return sum(len(tokenizer.encode(s)) for s in sentences) / sum(len(s.split()) for s in sentences)


def first_occurrence_only(word, tokenizer):
    """A wrong answer: each merge joins only the first occurrence of its pair."""
    pieces = tokenizer.start(word)
    for left, right in tokenizer.merges:
        for i in range(len(pieces) - 1):
            if (pieces[i], pieces[i + 1]) == (left, right):
                pieces[i : i + 2] = [left + right]
                break
    return pieces


def replay_from_initial_pieces(word, tokenizer):
    """A wrong answer: starts from the training pieces, so 'tanz' ends in z</w>, never learned."""
    pieces = initial_pieces(word)
    for pair in tokenizer.merges:
        pieces = merge_pair(pieces, pair)
    return list(pieces)


def test_exercise_apply_merges(verdicts):
    verdicts.exercise(
        check_apply_merges,
        solution_apply_merges,
        wrong=[
            (lambda word, tokenizer: list(word), "the last piece must end with </w>"),
            (lambda word, tokenizer: tokenizer.start(word), "no merge was applied"),
            (
                lambda word, tokenizer: solution_apply_merges(
                    word, BPETokenizer(tokenizer.pieces, tokenizer.merges[::-1])
                ),
                "expected",
            ),
            (first_occurrence_only, "was not applied everywhere"),
            (replay_from_initial_pieces, "is a piece of its own"),
        ],
    )


def test_exercise_pieces_per_word(verdicts):
    verdicts.exercise(
        check_pieces_per_word,
        solution_pieces_per_word,
        wrong=[
            (lambda t, s: 1 / solution_pieces_per_word(t, s), "inverted"),
            (lambda t, s: float(sum(len(t.encode(x)) for x in s)), "expected"),
        ],
    )
    # The right value as a float32 tensor is right, not "expected 3.0714, got 3.0714".
    verdicts.passes(
        check_pieces_per_word,
        lambda t, s: torch.tensor(solution_pieces_per_word(t, s), dtype=torch.float32),
    )
