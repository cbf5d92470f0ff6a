"""Building the corpus: every pattern's sentences, the train / valid / test / test_unseen splits
and their guarantees, and ``load_corpus``.

Hand-written: edit this file itself; no notebook generates it.

Part of ``helpers.data.corpus`` (see its docstring for the corpus as a whole).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from helpers.data.corpus.lexicon import (
    CORPUS_SEED,
    MAX_ENGLISH_TOKENS,
    MAX_GERMAN_TOKENS,
    MIN_TOKENS,
    SPLITS,
    TEST_SIZE,
    TEST_UNSEEN_SIZE,
    TRAIN_SIZE,
    UNSEEN_COMBINATIONS,
    VALID_SIZE,
    Pair,
    unseen_combinations_in,
)
from helpers.data.corpus.patterns import (
    _PATTERN_MAKERS,
    PATTERNS,
    SentenceMaker,
    pattern_examples,
)
from helpers.language import tr

# ---------------------------------------------------------------------------
# Building the corpus
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """All splits as tuples of (german, english) pairs, plus each sentence's pattern."""

    train: tuple[Pair, ...]
    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    test_unseen: tuple[Pair, ...]
    patterns: Mapping[str, str]  # German sentence → pattern name (read-only)

    def split(self, name: str) -> tuple[Pair, ...]:
        """The pairs of one split (see SPLITS)."""
        _check_split(name)
        return getattr(self, name)


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(
            tr("split must be one of {splits}; got {split!r}").format(
                splits=", ".join(map(repr, SPLITS)), split=split
            )
        )


class _SentenceStore:
    """German sentence → English sentence and pattern, in the order they were made."""

    def __init__(self) -> None:
        self.english: dict[str, str] = {}
        self.pattern: dict[str, str] = {}

    def add(self, pattern: str, german: str, english: str) -> bool:
        """Store a new pair; False if the German sentence is already there."""
        known = self.english.get(german)
        if known is not None:
            if known != english:  # would make the translation ambiguous: a grammar bug
                raise AssertionError(
                    tr("{german!r} → {known!r} and {english!r}").format(
                        german=german, known=known, english=english
                    )
                )
            return False
        self.english[german] = english
        self.pattern[german] = pattern
        return True

    def draw(
        self,
        maker: SentenceMaker,
        count: int,
        accept: Callable[[str, str], bool] | None = None,
    ) -> list[str]:
        """Make ``count`` new German sentences (that ``accept(german, english)`` lets through)."""
        found: list[str] = []
        for _ in range(50 * count):
            if len(found) == count:
                return found
            pattern = maker.pick_pattern()
            german_list, english_list = _PATTERN_MAKERS[pattern][0](maker)
            german, english = " ".join(german_list), " ".join(english_list)
            english_length = english.count(" ") + 1  # English items may be several words
            if not (
                MIN_TOKENS <= len(german_list) <= MAX_GERMAN_TOKENS
                and english_length <= MAX_ENGLISH_TOKENS
            ):
                continue
            if german in self.english:
                self.add(pattern, german, english)  # only checks the translation agrees
                continue
            if accept is None or accept(german, english):
                self.add(pattern, german, english)
                found.append(german)
        if len(found) < count:
            raise RuntimeError(
                tr("the grammar produced only {found} of {count} sentences").format(
                    found=len(found), count=count
                )
            )
        return found


def _vocabulary(sentences: Sequence[str]) -> set[str]:
    return {token for sentence in sentences for token in sentence.split()}


def generate_corpus(seed: int = CORPUS_SEED) -> Corpus:
    """Generate all splits from scratch (deterministic for a given seed; not cached)."""
    rng = random.Random(seed)
    store = _SentenceStore()
    showcase = [
        german for name, german, english in pattern_examples() if store.add(name, german, english)
    ]
    spare = 500  # some valid/test candidates are dropped for words unseen in train
    regular_count = TRAIN_SIZE - len(showcase) + VALID_SIZE + TEST_SIZE - TEST_UNSEEN_SIZE
    # A SentenceMaker without prefer_unseen never uses a held-out combination.
    regular = store.draw(SentenceMaker(rng), regular_count + spare)
    rng.shuffle(regular)
    train = showcase + regular[: TRAIN_SIZE - len(showcase)]
    rng.shuffle(train)

    german_words_in_train = _vocabulary(train)
    english_words_in_train = _vocabulary([store.english[german] for german in train])

    def known_words_only(german: str, english: str) -> bool:
        return all(token in german_words_in_train for token in german.split()) and all(
            token in english_words_in_train for token in english.split()
        )

    rest = [
        german
        for german in regular[TRAIN_SIZE - len(showcase) :]
        if known_words_only(german, store.english[german])
    ]
    test_regular_count = TEST_SIZE - TEST_UNSEEN_SIZE
    if len(rest) < VALID_SIZE + test_regular_count:
        raise RuntimeError(tr("not enough valid/test sentences; raise `spare`"))
    valid = rest[:VALID_SIZE]
    test_regular = rest[VALID_SIZE : VALID_SIZE + test_regular_count]

    # Each held-out combination may fill at most twice its fair share of the subset.
    quota = 2 * TEST_UNSEEN_SIZE // len(UNSEEN_COMBINATIONS)
    unseen_counts = dict.fromkeys(UNSEEN_COMBINATIONS, 0)

    def unseen_and_known(german: str, english: str) -> bool:
        combinations = unseen_combinations_in(german)
        if not combinations or not known_words_only(german, english):
            return False
        if any(unseen_counts[combination] >= quota for combination in combinations):
            return False
        for combination in combinations:
            unseen_counts[combination] += 1
        return True

    unseen = store.draw(
        SentenceMaker(rng, prefer_unseen=True), TEST_UNSEEN_SIZE, accept=unseen_and_known
    )
    test = test_regular + unseen
    rng.shuffle(test)
    unseen_set = set(unseen)  # used for membership only, never iterated
    test_unseen = [german for german in test if german in unseen_set]

    def pairs(sentences: list[str]) -> tuple[Pair, ...]:
        return tuple((german, store.english[german]) for german in sentences)

    used = train + valid + test
    return Corpus(
        train=pairs(train),
        valid=pairs(valid),
        test=pairs(test),
        test_unseen=pairs(test_unseen),
        patterns=MappingProxyType({german: store.pattern[german] for german in used}),
    )


@functools.lru_cache(maxsize=1)
def _cached_corpus() -> Corpus:
    return generate_corpus(CORPUS_SEED)


def load_corpus(split: str) -> list[tuple[str, str]]:
    """The (german, english) pairs of a split: "train", "valid", "test" or
    "test_unseen" (the held-out-combination part of "test").

    Generated once per process and cached; each call returns a new list.
    """
    _check_split(split)
    return list(_cached_corpus().split(split))


def pattern_of(german: str) -> str:
    """The pattern name (one of PATTERNS) of a German sentence of the corpus."""
    try:
        return _cached_corpus().patterns[german]
    except KeyError:
        raise ValueError(
            tr("not a sentence of the corpus: {german!r}").format(german=german)
        ) from None


def describe_corpus() -> dict[str, object]:
    """Counts for a quick look: split sizes, word forms, patterns in train, lengths."""
    corpus = _cached_corpus()
    everything = corpus.train + corpus.valid + corpus.test
    pattern_counts = dict.fromkeys(PATTERNS, 0)
    for german, _ in corpus.train:
        pattern_counts[corpus.patterns[german]] += 1
    german_lengths = [len(german.split()) for german, _ in everything]
    english_lengths = [len(english.split()) for _, english in everything]
    return {
        "seed": CORPUS_SEED,
        "sizes": {split: len(corpus.split(split)) for split in SPLITS},
        "german_word_forms": len(_vocabulary([german for german, _ in everything])),
        "english_word_forms": len(_vocabulary([english for _, english in everything])),
        "train_patterns": pattern_counts,
        "german_length": {
            "min": min(german_lengths),
            "max": max(german_lengths),
            "mean": round(sum(german_lengths) / len(german_lengths), 2),
        },
        "english_length": {
            "min": min(english_lengths),
            "max": max(english_lengths),
            "mean": round(sum(english_lengths) / len(english_lengths), 2),
        },
        "unseen_combinations": [
            f"{c.adjective.german} {c.noun.german}" for c in UNSEEN_COMBINATIONS
        ],
    }
