"""Byte-pair encoding (notebook 14): helpers.train_bpe against Hugging Face tokenizers, on the
series' corpus and, where Debian's trans-de-en is installed, on the real dictionary."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from helpers.data.dictionary import DICTIONARY, read_senses
from tools.benchmark.measure import alternate
from tools.benchmark.model import Comparison

# ---------------------------------------------------------------- byte-pair encoding


def dictionary_phrases(remainder: int, every: int = 40, path: Path = DICTIONARY) -> list[str]:
    """Phrases of the German-English dictionary, read in place (it is GPL: never copy it).

    Only the senses on lines whose number % every == remainder; every alternative of both
    languages, without notes (helpers.data.dictionary.read_senses parses the file).
    """
    return [
        text
        for sense in read_senses(Path(path))
        if sense.line % every == remainder
        for text in (*sense.german, *sense.english)
    ]


def bench_bpe(
    rounds: int, texts: Sequence[str], data: str, vocab_size: int = 1000
) -> list[Comparison]:
    """Learning BPE merges and encoding with them: ours / Hugging Face tokenizers, same merges."""
    import json as json_module

    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from helpers.text.bpe import (
        END_OF_WORD,
        BPETokenizer,
        starting_pieces,
        train_bpe,
        word_frequencies,
    )

    texts = list(texts)

    def train_theirs() -> Tokenizer:
        tokenizer = Tokenizer(models.BPE(end_of_word_suffix=END_OF_WORD))
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=2,
            end_of_word_suffix=END_OF_WORD,
            show_progress=False,
        )
        tokenizer.train_from_iterator(texts, trainer)
        return tokenizer

    theirs = train_theirs()
    model = json_module.loads(theirs.to_str())["model"]
    their_order = sorted(model["vocab"], key=model["vocab"].get)
    # Their tie order of the starting pieces, so that both sides learn the very same merges.
    tie_order = their_order[: len(starting_pieces(word_frequencies(texts)))]
    ours = train_bpe(texts, vocab_size, tie_order=tie_order)
    if ours.merges != [tuple(pair) for pair in model["merges"]]:
        raise AssertionError("train_bpe and tokenizers learned different merges")

    # tokenizers has no byte fallback here: it drops characters never seen, so only texts made
    # of known characters can be compared piece for piece (all of them, on the series' corpus).
    known = [text for text in texts if set(text) <= ours.characters | {" "}]

    def encode_ours() -> list[list[str]]:
        fresh = BPETokenizer(ours.pieces, ours.merges)  # an empty cache of split words
        return [fresh.encode(text) for text in known]

    def encode_theirs() -> list[list[str]]:
        return [encoding.tokens for encoding in theirs.encode_batch(known)]

    if encode_ours() != encode_theirs():
        raise AssertionError("train_bpe and tokenizers split the sentences differently")
    learning = alternate(
        {"ours": lambda: train_bpe(texts, vocab_size, tie_order=tie_order), "theirs": train_theirs},
        rounds,
    )
    encoding = alternate({"ours": encode_ours, "theirs": encode_theirs}, rounds)
    return [
        Comparison.of_times(
            f"BPE: learning the merges ({len(texts):,} texts, vocab_size {vocab_size})",
            data,
            ("train_bpe", learning["ours"]),
            ("tokenizers", learning["theirs"]),
            None,
        ),
        Comparison.of_times(
            f"BPE: encoding ({len(known):,} texts)",
            data,
            ("BPETokenizer.encode", encoding["ours"]),
            ("tokenizers encode_batch", encoding["theirs"]),
            None,
        ),
    ]
