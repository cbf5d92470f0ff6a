"""Checks for the exercises of notebook 14 (sub-words, byte-pair encoding).

Hand-written: edit this file itself; no notebook generates it.
"""

import math
from collections.abc import Callable
from functools import cache

from helpers.exercises import as_number, call_solution, failed, passed
from helpers.language import tr
from helpers.text.bpe import BPETokenizer, train_bpe

# Seen words, unseen words, a one-letter word, a word whose pair "an" is merged twice, and "tanz",
# whose last character never ends a training word (so "z</w>" is no piece; "</w>" stands alone).
WORDS = ["der", "the", "kleine", "äpfel", "bahnhof", "mochte", "a", "kaffeetasse", "ananas", "tanz"]
SENTENCES = ["der kleine hund trinkt kein bier", "the small dog drinks no beer , because"]


@cache
def _tokenizer(vocab_size: int) -> BPETokenizer:
    from helpers.data.corpus import load_corpus

    texts = [sentence for pair in load_corpus("train")[:3000] for sentence in pair]
    return train_bpe(texts, vocab_size)


def check_apply_merges(apply_merges: Callable) -> None:
    """apply_merges(word, tokenizer) -> list of pieces, each merge applied in the order learned."""
    tokenizer = _tokenizer(300)
    assert tokenizer.encode("tanz")[-1] == "</w>"  # the word the exercise promises
    for word in WORDS:
        result, problem = call_solution(apply_merges, word, tokenizer)
        if problem is not None:
            return failed(problem)
        if isinstance(result, tuple):
            result = list(result)
        if not isinstance(result, list) or not all(isinstance(piece, str) for piece in result):
            return failed(tr("expected a list of str, got {result!r}").format(result=result))
        expected = tokenizer.encode(word)
        if result != expected:
            if "".join(result) == word:
                return failed(
                    tr("{word!r}: the last piece must end with </w>, got {result}").format(
                        word=word, result=result
                    )
                )
            if result == tokenizer.start(word):
                return failed(
                    tr("{word!r}: no merge was applied, got {result}").format(
                        word=word, result=result
                    )
                )
            if expected[-1] == "</w>" and result[-1] != "</w>":
                return failed(
                    tr(
                        "{word!r}: {piece!r} was never learned, so </w> is a piece of its own: "
                        "start from tokenizer.start(word), got {result}"
                    ).format(word=word, piece=word[-1] + "</w>", result=result)
                )
            merges = set(tokenizer.merges)
            unjoined = [pair for pair in zip(result, result[1:], strict=False) if pair in merges]
            note = (
                tr(" (the merge {merge} was not applied everywhere)").format(merge=unjoined[0])
                if unjoined
                else ""
            )
            return failed(
                tr("{word!r}: expected {expected}, got {result}{note}").format(
                    word=word, expected=expected, result=result, note=note
                )
            )
    return passed(
        tr("apply_merges gives tokenizer.encode's pieces on all {count} words").format(
            count=len(WORDS)
        )
    )


def check_pieces_per_word(pieces_per_word: Callable) -> None:
    """pieces_per_word(tokenizer, sentences) -> pieces / words, a float >= 1."""
    words = sum(len(sentence.split()) for sentence in SENTENCES)
    for vocab_size in (80, 600):
        tokenizer = _tokenizer(vocab_size)
        result, problem = call_solution(pieces_per_word, tokenizer, list(SENTENCES))
        number = as_number(result) if problem is None else None
        if problem is None and number is None:
            problem = tr("expected a number, got {result!r}").format(result=result)
        if problem is not None:
            return failed(problem)
        pieces = sum(len(tokenizer.encode(sentence)) for sentence in SENTENCES)
        expected = pieces / words
        # A relative tolerance, so that a float32 tensor of the right value passes.
        if not math.isclose(number, expected, rel_tol=1e-6):
            if math.isclose(number, words / pieces, rel_tol=1e-6):
                return failed(
                    tr("inverted: divide the pieces by the words, not the words by the pieces")
                )
            return failed(
                tr("vocab_size {vocab_size}: expected {expected:.4f}, got {number:.4f}").format(
                    vocab_size=vocab_size, expected=expected, number=number
                )
            )
    return passed(tr("pieces_per_word is right for 80 and 600 pieces"))
