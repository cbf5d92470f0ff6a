"""Checks for the exercises of notebook 15 (real German: the dictionary, its long tail).

Hand-written: edit this file itself; no notebook generates it.
"""

import math
from collections.abc import Callable

from helpers.data.dictionary import strip_notes as reference_strip_notes
from helpers.exercises import as_number, call_solution, failed, passed
from helpers.language import tr

# Written for the check (not copied from the dictionary): each kind of note, and what must stay.
NOTED = [
    "Aal {m} (auf der Speisekarte) [cook.]",
    "Bahnhof {m} /Bhf./",
    "jdm. etw. geben {vt}",
    "eel (on a menu)",
    "er/sie trinkt",
    "und/oder er/sie",
    "Abiturjahrgang/Maturajahrgang 2014",
    "  Haus  {n}  ",
    "[Am.] sidewalk",
]

TRAIN = ["der hund trinkt wasser", "die katze trinkt milch", "der hund schläft"]
TEST = ["der hund trinkt milch", "ein pferd trinkt wasser", "die kuh schläft nicht"]


def check_strip_notes(strip_notes: Callable) -> None:
    """strip_notes(text) -> the text without {…}, […], (…) and /…/ notes, spaces squeezed."""
    for text in NOTED:
        result, problem = call_solution(strip_notes, text)
        if problem is not None:
            return failed(problem)
        expected = reference_strip_notes(text)
        if result != expected:
            hint = ""
            if isinstance(result, str) and " ".join(result.split()) == expected:
                hint = tr(" (squeeze the spaces: ' '.join(text.split()))")
            elif (
                isinstance(result, str)
                and "/" in text
                and result.replace(" ", "") != expected.replace(" ", "")
            ):
                hint = tr(" (a slash note starts after a space: er/sie stays)")
            return failed(
                tr("{text!r}: expected {expected!r}, got {result!r}{hint}").format(
                    text=text, expected=expected, result=result, hint=hint
                )
            )
    return passed(
        tr("strip_notes removes every kind of note in all {count} texts").format(count=len(NOTED))
    )


def check_unseen_share(unseen_share: Callable) -> None:
    """unseen_share(test_sentences, train_sentences) -> share of test words never seen in training."""
    seen = {word for sentence in TRAIN for word in sentence.split()}
    words = [word for sentence in TEST for word in sentence.split()]
    expected = sum(word not in seen for word in words) / len(words)
    types = {word for word in words}
    by_type = len(types - seen) / len(types)
    result, problem = call_solution(unseen_share, list(TEST), list(TRAIN))
    number = as_number(result) if problem is None else None
    if problem is None and number is None:
        problem = tr("expected a number, got {result!r}").format(result=result)
    if problem is not None:
        return failed(problem)
    if math.isclose(number, expected, rel_tol=1e-9):
        return passed(
            tr("unseen_share is right: {unseen} of {total} test words are new").format(
                unseen=round(expected * len(words)), total=len(words)
            )
        )
    if math.isclose(number, by_type, rel_tol=1e-9):
        return failed(tr("count every occurrence of a test word, not each distinct word once"))
    return failed(
        tr("expected {expected:.4f}, got {number:.4f}").format(expected=expected, number=number)
    )
