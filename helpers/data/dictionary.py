"""Real German: the German-English dictionary of TU Chemnitz ("Ding"), read where it is installed.

Hand-written: edit this file itself; no notebook generates it.

It is optional: notebook 15 and the tests that read it need it, nothing else does. Debian and
Ubuntu package it as ``trans-de-en`` (``sudo apt-get install trans-de-en``); elsewhere
``make dictionary`` downloads the publisher's file into the user's cache folder
(``helpers.data.get_dictionary``). One entry per line, ``German :: English``. It is
GPL-licensed, so the series never copies it into the repository: it is read where it is, at run
time, and nothing trained on it is shipped. ``dictionary_path`` says where the helpers look:
``$TRANSFORMER_DICTIONARY`` if set, else Debian's file, else the cache folder. A line holds senses separated by ``|``, the i-th
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

import hashlib
import os
import re
import shutil
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from helpers.language import tr

NOTEBOOK = "15_real_german.ipynb"  # the lesson that reads it (both editions)
ENVIRONMENT_VARIABLE = "TRANSFORMER_DICTIONARY"
DEBIAN_FILE = Path("/usr/share/trans/de-en")
# The version notebook 15's stored outputs were made from: Debian's trans-de-en 1.9-6
# ("# Version :: devel 2023-01-30", 206,238 lines). Another version works, with other numbers.
RECORDED_SHA256 = "34052c6021d09eadfee7a893a789204265954df70fe9c36d38fa00058d79d326"
RECORDED_VERSION = "devel 2023-01-30 (Debian's trans-de-en 1.9-6)"


def cache_file() -> Path:
    """Where ``make dictionary`` puts the dictionary: the user's cache folder, not the repository."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("transformer-step-by-step")) / "de-en"


def dictionary_path() -> Path:
    """Where the helpers read the dictionary: $TRANSFORMER_DICTIONARY if set (even to a missing
    file, which hides an installed one), else Debian's file if installed, else the cache file."""
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return Path(os.environ[ENVIRONMENT_VARIABLE])
    return DEBIAN_FILE if DEBIAN_FILE.is_file() else cache_file()


def install_command() -> str:
    """How to get the dictionary on this system: apt where there is apt, else ``make dictionary``."""
    return "sudo apt-get install trans-de-en" if shutil.which("apt-get") else "make dictionary"


DICTIONARY = dictionary_path()


def missing_message(path: Path = DICTIONARY) -> str:
    """The one sentence that says the dictionary is missing and how to get it (notebook 15, tests)."""
    return tr(
        "notebook 15 reads the German-English dictionary (TU Chemnitz's Ding, GPL), not found at "
        "{path}: get it with `{install}` (or `make dictionary` on any system), or set "
        "TRANSFORMER_DICTIONARY to where it is"
    ).format(path=path, install=install_command())


@cache
def _sha256(path: Path, size: int, mtime: float) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256(path: Path) -> str:
    """The file's SHA-256 (computed once per file version)."""
    stat = Path(path).stat()
    return _sha256(Path(path), stat.st_size, stat.st_mtime)


def is_recorded_version(path: Path = DICTIONARY) -> bool:
    """True when the file is the version the stored outputs of notebook 15 were made from."""
    return Path(path).is_file() and sha256(path) == RECORDED_SHA256


def other_version_message(path: Path = DICTIONARY) -> str:
    """What a reader with another version of the dictionary should expect."""
    return tr(
        "the dictionary at {path} is another version than the one notebook 15's stored outputs "
        "were made from ({version}): it works, but the split and every number will differ from "
        "the stored ones"
    ).format(path=path, version=RECORDED_VERSION)


class DictionaryMissing(FileNotFoundError):
    """The dictionary is not installed. In a notebook it shows as its message alone, without a
    traceback (IPython calls ``_render_traceback_``), and stops a "Run all" there."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


KINDS = ("sentence", "phrase", "word")
SPLITS = ("train", "valid", "test")
# A pair goes to "test" when crc32(German) % 20 == 0, to "valid" when it is 1: 5% each.
HELD_OUT_EVERY = 20

# {m} genders, [Am.] labels, (explanations), and /Bhf./ abbreviations (a slash after a space).
_ANNOTATION = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|(?<!\S)/[^/\s][^/]*/(?!\S)")
_SENTENCE_END = re.compile(r"[.!?]$")
_WORD_OR_MARK = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Sense:
    """One aligned sense of an entry: its German and English alternatives, and its kind."""

    german: tuple[str, ...]
    english: tuple[str, ...]
    kind: str
    line: int


def require_dictionary(path: Path = DICTIONARY) -> Path:
    """``path`` if the dictionary is there, else ``DictionaryMissing`` saying how to get it.

    Prints a note when it is another version than the one notebook 15's stored outputs used."""
    path = Path(path)
    if not path.is_file():
        raise DictionaryMissing(missing_message(path))
    if not is_recorded_version(path):
        print(other_version_message(path))
    return path


def normalize(text: str) -> str:
    """Lower case, words and punctuation marks separated by one space, as in the series' corpus.

    "Ich weiß es nicht." -> "ich weiß es nicht ."
    """
    if not isinstance(text, str):
        raise ValueError(tr("text: expected a str, got {type}").format(type=type(text).__name__))
    return _normalized(text)


def _normalized(text: str) -> str:
    # normalize() without the type check, for the loops over every sense of the dictionary
    return " ".join(_WORD_OR_MARK.findall(text.lower()))


def strip_notes(text: str) -> str:
    """``text`` without its notes ({m}, [Am.], (…), /Bhf./), spaces squeezed: "Aal {m} (roh)" -> "Aal"."""
    return " ".join(_ANNOTATION.sub(" ", text).split())


def alternatives(sense: str) -> tuple[str, ...]:
    """The alternatives of one sense, notes removed: "Aal {m} (Speise); Aale" -> ("Aal", "Aale").

    Notes go first, since a note may hold a ";" of its own: "der {art} (des; dem; den)" -> ("der",).
    """
    # strip_notes leaves single spaces, so stripping each part squeezes it
    return tuple(text for part in strip_notes(sense).split(";") if (text := part.strip()))


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


def read_senses(path: Path = DICTIONARY) -> tuple[Sense, ...]:
    """Every sense of the installed dictionary, in file order (the file is parsed once)."""
    return _read_senses(Path(path))


@cache  # keyed by the Path, so read_senses() and read_senses(DICTIONARY) parse the file once
def _read_senses(path: Path) -> tuple[Sense, ...]:
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
        pair = _normalized(sense.german[0]), _normalized(sense.english[0])
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


def word_lookup(path: Path = DICTIONARY) -> dict[str, str]:
    """German word form -> the English word a word-for-word translation writes for it.

    The candidates for a form are every English alternative of every one-word sense that lists
    the form, a leading "to " removed ("trinken" -> "drink"). The lookup picks the candidate of
    fewest words, and among those the one English text uses most: whose rarest word is most
    frequent in the English of the training pairs (so "hund" -> "dog", not "canine" or "mine
    car"); ties go to the candidate seen first.
    """
    return _word_lookup(Path(path))


@cache
def _word_lookup(path: Path) -> dict[str, str]:
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
        candidates = [
            (english, words)
            for text in sense.english
            if (words := (english := _normalized(text).removeprefix("to ")).split())
        ]
        scored = [
            ((-len(words), min(english_counts[word] for word in words)), english)
            for english, words in candidates
        ]
        for german in {_normalized(text) for text in sense.german}:
            if " " in german:
                continue
            for score, english in scored:
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
