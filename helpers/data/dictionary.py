"""Real German: the German-English dictionary of TU Chemnitz ("Ding"), read where it is installed.

Debian packages it as ``trans-de-en`` (``sudo apt-get install trans-de-en``): one entry per line,
``German :: English``. It is GPL-licensed, so the series never copies it: it is read in place, at
run time, and nothing trained on it is shipped. A line holds senses separated by ``|``, the i-th
German sense translated by the i-th English one; a sense lists alternatives separated by ``;``;
annotations are in braces (``{m}`` gender, ``{pl}`` plural), brackets (``[Am.]``, ``[ugs.]``),
parentheses (explanations) and slashes (``/Bhf./``, an abbreviation)::

    Ich habe mir den Magen verdorben. | ... :: I've an upset stomach. | ...

``read_senses`` parses the file into :class:`Sense` objects (annotations removed), each of one of
three kinds: an example ``"sentence"`` (capitalised, at least three words, ending in . ! or ?), a
multi-word ``"phrase"`` or a single ``"word"``. ``dictionary_pairs`` gives (German, English) pairs
of the first alternatives, normalised like the series' corpus (lower case, punctuation split off),
in a deterministic split: a pair's split depends only on its German text (a CRC-32 checksum), and no
German or English text of a held-out pair appears in training. ``word_for_word`` is the baseline a
model must beat: each German word replaced by its most frequent translation in the same dictionary.
"""

from __future__ import annotations

import os
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from helpers.language import tr

DICTIONARY = Path(os.environ.get("TRANSFORMER_DICTIONARY", "/usr/share/trans/de-en"))
INSTALL = "sudo apt-get install trans-de-en"
KINDS = ("sentence", "phrase", "word")
SPLITS = ("train", "valid", "test")
# A pair goes to "test" when crc32(German) % 20 == 0, to "valid" when it is 1: 5% each.
HELD_OUT_EVERY = 20

# {m} genders, [Am.] labels, (explanations), and /Bhf./ abbreviations (a slash after a space).
_ANNOTATION = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|(?<!\S)/[^/\s][^/]*/(?!\S)")
_SENTENCE_END = re.compile(r"[.!?]$")


@dataclass(frozen=True)
class Sense:
    """One aligned sense of an entry: its German and English alternatives, and its kind."""

    german: tuple[str, ...]
    english: tuple[str, ...]
    kind: str
    line: int


def require_dictionary(path: Path = DICTIONARY) -> Path:
    """``path`` if the dictionary is installed there, else a FileNotFoundError naming the fix."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            tr(
                "path: expected the German-English dictionary (Debian's trans-de-en) at {path}, "
                "got no such file; install it with `{install}`"
            ).format(path=path, install=INSTALL)
        )
    return path


def normalize(text: str) -> str:
    """Lower case, words and punctuation marks separated by one space, as in the series' corpus.

    "Ich weiß es nicht." -> "ich weiß es nicht ."
    """
    if not isinstance(text, str):
        raise ValueError(tr("text: expected a str, got {type}").format(type=type(text).__name__))
    return " ".join(re.findall(r"\w+|[^\w\s]", text.lower()))


def strip_notes(text: str) -> str:
    """``text`` without its notes ({m}, [Am.], (…), /Bhf./), spaces squeezed: "Aal {m} (roh)" -> "Aal"."""
    return " ".join(_ANNOTATION.sub(" ", text).split())


def alternatives(sense: str) -> tuple[str, ...]:
    """The alternatives of one sense, notes removed: "Aal {m} (Speise); Aale" -> ("Aal", "Aale").

    Notes go first, since a note may hold a ";" of its own: "der {art} (des; dem; den)" -> ("der",).
    """
    return tuple(text for part in strip_notes(sense).split(";") if (text := " ".join(part.split())))


def sense_kind(german: str) -> str:
    """ "sentence" (capitalised, >= 3 words, ends in . ! ?), "phrase" (several words) or "word"."""
    words = german.split()
    if len(words) >= 3 and german[0].isupper() and _SENTENCE_END.search(german):
        return "sentence"
    return "phrase" if len(words) > 1 else "word"


def parse_line(line: str, number: int = 0) -> list[Sense]:
    """The senses of one line of the dictionary; [] for a comment, or a line whose two sides
    do not have the same number of ``|``-separated senses."""
    if line.startswith("#") or " :: " not in line:
        return []
    german_side, english_side = line.rstrip("\n").split(" :: ", 1)
    german_senses, english_senses = german_side.split(" | "), english_side.split(" | ")
    if len(german_senses) != len(english_senses):
        return []
    senses = []
    for german, english in zip(german_senses, english_senses, strict=True):
        german_alternatives, english_alternatives = alternatives(german), alternatives(english)
        if german_alternatives and english_alternatives:
            kind = sense_kind(german_alternatives[0])
            senses.append(Sense(german_alternatives, english_alternatives, kind, number))
    return senses


@cache
def read_senses(path: Path = DICTIONARY) -> tuple[Sense, ...]:
    """Every sense of the installed dictionary, in file order."""
    senses = []
    with require_dictionary(path).open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            senses.extend(parse_line(line, number))
    return tuple(senses)


def split_of(german: str) -> str:
    """The split of a pair, from its normalised German text alone: "train", "valid" or "test"."""
    remainder = zlib.crc32(german.encode("utf-8")) % HELD_OUT_EVERY
    return {0: "test", 1: "valid"}.get(remainder, "train")


@cache
def _all_splits(path: Path) -> dict[str, dict[str, list[tuple[str, str]]]]:
    pairs: dict[str, dict[str, list[tuple[str, str]]]] = {
        kind: {split: [] for split in SPLITS} for kind in KINDS
    }
    seen = set()
    for sense in read_senses(path):
        pair = normalize(sense.german[0]), normalize(sense.english[0])
        if pair in seen or not all(pair):
            continue
        seen.add(pair)
        pairs[sense.kind][split_of(pair[0])].append(pair)
    held_out = {
        text
        for kind in KINDS
        for split in ("valid", "test")
        for pair in pairs[kind][split]
        for text in pair
    }
    for kind in KINDS:
        train = pairs[kind]["train"]
        pairs[kind]["train"] = [
            pair for pair in train if pair[0] not in held_out and pair[1] not in held_out
        ]
    return pairs


def dictionary_pairs(kind: str, split: str, path: Path = DICTIONARY) -> list[tuple[str, str]]:
    """Normalised (German, English) pairs of one kind and split, in file order, each pair once.

    kind: "sentence", "phrase" or "word"; split: "train", "valid" or "test". No German or English
    text of a "valid" or "test" pair (of any kind) appears in a "train" pair.
    """
    if kind not in KINDS:
        raise ValueError(
            tr("kind: expected one of {kinds}, got {kind!r}").format(
                kinds=", ".join(KINDS), kind=kind
            )
        )
    if split not in SPLITS:
        raise ValueError(
            tr("split: expected one of {splits}, got {split!r}").format(
                splits=", ".join(SPLITS), split=split
            )
        )
    return list(_all_splits(Path(path))[kind][split])


@cache
def word_lookup(path: Path = DICTIONARY) -> dict[str, str]:
    """German word form -> the English word a word-for-word translation writes for it.

    The candidates for a form are every English alternative of every one-word sense that lists
    the form, a leading "to " removed ("trinken" -> "drink"). The lookup picks the candidate of
    fewest words, and among those the one English text uses most: whose rarest word is most
    frequent in the English of the training pairs (so "hund" -> "dog", not "canine" or "mine
    car"); ties go to the candidate seen first.
    """
    path = Path(path)
    english_counts = Counter(
        word
        for kind in ("sentence", "phrase")
        for _, english in dictionary_pairs(kind, "train", path)
        for word in english.split()
    )
    best: dict[str, tuple[tuple[int, int], str]] = {}
    for sense in read_senses(path):
        if sense.kind != "word":
            continue
        candidates = [normalize(text).removeprefix("to ") for text in sense.english]
        for german in {normalize(text) for text in sense.german}:
            if " " in german:
                continue
            for english in candidates:
                if not english:
                    continue
                words = english.split()
                score = (-len(words), min(english_counts[word] for word in words))
                if german not in best or score > best[german][0]:
                    best[german] = (score, english)
    return {german: english for german, (_, english) in best.items()}


def word_for_word(sentence: str, lookup: dict[str, str]) -> str:
    """Each word of a normalised German sentence replaced by its lookup; unknown words copied."""
    return " ".join(lookup.get(word, word) for word in normalize(sentence).split())


# ---------------------------------------------------------------- tasks of notebook 15

# What a model trains on and is scored on. Both tasks train on the same pairs (example sentences
# and multi-word phrases of the training split); they differ in the held-out pairs. Fixed before
# any model was trained: "frequent_phrases" asks for what a CPU budget can learn (short phrases of
# words the training data shows often), "sentences" for what the paper's data asks (whole
# sentences, idioms and rare words included).
TASKS = {
    "sentences": "held-out example sentences",
    "frequent_phrases": "held-out phrases of at most 5 words, every German word seen at least "
    "20 times in the training German",
}
# What a model trains on unless told otherwise: the sentences and phrases ("word" adds the
# one-word entries, which the word-for-word baseline reads).
TRAIN_KINDS = "sentence,phrase"
FREQUENT_MAX_WORDS = 5
FREQUENT_MIN_COUNT = 20


@cache
def _training_word_counts(path: Path) -> Counter:
    return Counter(
        word
        for kind in ("sentence", "phrase")
        for german, _ in dictionary_pairs(kind, "train", path)
        for word in german.split()
    )


def is_frequent_phrase(german: str, path: Path = DICTIONARY) -> bool:
    """At most FREQUENT_MAX_WORDS words, each seen FREQUENT_MIN_COUNT times in training German."""
    counts = _training_word_counts(Path(path))
    words = german.split()
    return len(words) <= FREQUENT_MAX_WORDS and all(
        counts[word] >= FREQUENT_MIN_COUNT for word in words
    )


def check_train_kinds(train_kinds: str) -> tuple[str, ...]:
    """The kinds named in a comma-separated ``train_kinds`` ("sentence,phrase"); ValueError when
    one is not in KINDS, one repeats or none is named."""
    kinds = tuple(kind.strip() for kind in str(train_kinds).split(","))
    if not all(kind in KINDS for kind in kinds) or len(set(kinds)) != len(kinds):
        raise ValueError(
            tr(
                "train_kinds: expected distinct kinds among {kinds}, separated by commas, "
                "got {train_kinds!r}"
            ).format(kinds=", ".join(KINDS), train_kinds=train_kinds)
        )
    return kinds


def task_pairs(
    task: str, split: str, path: Path = DICTIONARY, train_kinds: str = TRAIN_KINDS
) -> list[tuple[str, str]]:
    """The pairs of a task's split: "train" is every training pair of the kinds in
    ``train_kinds`` (by default sentences and phrases); "valid" and "test" are the task's
    held-out pairs (see TASKS)."""
    if task not in TASKS:
        raise ValueError(
            tr("task: expected one of {tasks}, got {task!r}").format(
                tasks=", ".join(TASKS), task=task
            )
        )
    if split == "train":
        return [
            pair
            for kind in check_train_kinds(train_kinds)
            for pair in dictionary_pairs(kind, "train", path)
        ]
    if task == "sentences":
        return dictionary_pairs("sentence", split, path)
    return [
        pair
        for pair in dictionary_pairs("phrase", split, path)
        if is_frequent_phrase(pair[0], path)
    ]
