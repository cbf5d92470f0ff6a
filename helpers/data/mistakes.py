"""Sort a translation's mistakes into kinds, word by word (notebook 12's error analysis).

Hand-written: edit this file itself; no notebook generates it.

``word_changes`` lists the edits (difflib) that turn the reference into the output;
``mistake_kind`` names the kind of a wrong translation of the generated corpus (an adjective
left out, singular for plural, ...); ``describe_changes`` says in words what changed. The kinds
are the corpus' known traps, checked in this order; anything else is "another word".
"""

from __future__ import annotations

from difflib import SequenceMatcher

from helpers.data.corpus import ADJECTIVES
from helpers.language import tr

ENGLISH_ADJECTIVES = {adjective.english for adjective in ADJECTIVES}
# Words that differ only in number, beyond an added "s" (verbs agree with their subject).
NUMBER_PAIRS = [
    {"do", "does"},
    {"they", "she"},
    {"they", "he"},
    {"man", "men"},
    {"child", "children"},
]


def other_number(a: str, b: str) -> bool:
    """The same word in the singular and the plural (or a verb form agreeing with either)."""
    return a + "s" == b or b + "s" == a or {a, b} in NUMBER_PAIRS


def word_changes(reference: str, hypothesis: str) -> list[tuple[str, list[str], list[str]]]:
    """The (operation, reference words, output words) that turn the reference into the output."""
    ref, hyp = reference.split(), hypothesis.split()
    matcher = SequenceMatcher(a=ref, b=hyp, autojunk=False)
    return [
        (operation, ref[i1:i2], hyp[j1:j2])
        for operation, i1, i2, j1, j2 in matcher.get_opcodes()
        if operation != "equal"
    ]


def mistake_kind(reference: str, hypothesis: str, ended: bool) -> str:
    """The kind of mistake in a wrong translation; ended: whether the output reached </s>."""
    changes = word_changes(reference, hypothesis)
    changed_words = {word for _, ref, hyp in changes for word in (*ref, *hyp)}
    if not ended:
        return tr("never ends (a loop)")
    if changed_words & {"shopping", "buy", "buys"}:
        return tr("ein: article or prefix?")
    if sorted(reference.split()) == sorted(hypothesis.split()):
        return tr("words in the wrong order")
    if all(op == "delete" and set(ref) <= ENGLISH_ADJECTIVES for op, ref, _ in changes):
        return tr("adjective left out")
    if all(
        op == "replace"
        and len(ref) == len(hyp)
        and all(other_number(a, b) for a, b in zip(ref, hyp, strict=True))
        for op, ref, hyp in changes
    ):
        return tr("singular / plural")
    if all(op == "replace" and {*ref, *hyp} <= {"a", "an"} for op, ref, hyp in changes):
        return "a / an"
    return tr("another word")


def describe_changes(reference: str, hypothesis: str) -> str:
    """The changes in words: "drops 'red'; 'she' -> 'they'"."""
    parts = []
    for operation, ref, hyp in word_changes(reference, hypothesis):
        if operation == "delete":
            parts.append(tr("drops '{words}'").format(words=" ".join(ref)))
        elif operation == "insert":
            parts.append(tr("adds '{words}'").format(words=" ".join(hyp)))
        else:
            parts.append(f"'{' '.join(ref)}' -> '{' '.join(hyp)}'")
    return tr("; ").join(parts)
