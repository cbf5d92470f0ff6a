"""Checks for the exercises of notebook 12 (decoding and evaluation).

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

import math
from collections.abc import Callable

from helpers.exercises import as_number, call_solution, verdict
from helpers.language import tr


def _gnmt_penalty(length: int, alpha: float) -> float:
    return ((5 + length) / 6) ** alpha


def check_length_penalty(function: Callable[[int, float], float]) -> None:
    """Exercise 1: length_penalty(length, alpha) = ((5 + length) / 6) ** alpha."""
    cases = [(1, 0.6), (10, 0.6), (7, 1.0), (20, 0.0), (3, 2.0)]
    for length, alpha in cases:
        result, problem = call_solution(function, length, alpha)
        if problem is not None:
            return verdict(False, "", problem)
        value = as_number(result)
        if value is None:
            return verdict(
                False, "", tr("expected a number, got {type}").format(type=type(result).__name__)
            )
        expected = _gnmt_penalty(length, alpha)
        if not math.isclose(value, expected, rel_tol=1e-6):
            hint = tr("GNMT's penalty is ((5 + length) / 6) ** alpha")
            if math.isclose(value, length**alpha, rel_tol=1e-6):
                hint = tr(
                    "length ** alpha is the plain length normalisation; GNMT adds 5 and divides by 6"
                )
            elif alpha == 0.0:
                hint = tr("alpha = 0 means no penalty: anything to the power 0 is 1")
            return verdict(
                False,
                "",
                tr(
                    "length_penalty({length}, {alpha}): expected {expected:.4f}, got {value:.4f} "
                    "({hint})"
                ).format(length=length, alpha=alpha, expected=expected, value=value, hint=hint),
            )
    return verdict(
        True,
        tr("length_penalty matches ((5 + |Y|) / 6)^alpha in all {count} cases").format(
            count=len(cases)
        ),
        "",
    )


def check_decoder_positions(function: Callable[[int, int], tuple[int, int]]) -> None:
    """Exercise 2: decoder_positions(n_steps, batch_size) -> (with cache, without cache)."""
    cases = [(1, 1), (5, 1), (12, 3), (20, 64)]
    for n_steps, batch_size in cases:
        result, problem = call_solution(function, n_steps, batch_size)
        if problem is not None:
            return verdict(False, "", problem)
        if not isinstance(result, tuple) or len(result) != 2:
            return verdict(
                False,
                "",
                tr("expected a pair (with_cache, without_cache), got {type}").format(
                    type=type(result).__name__
                ),
            )
        values = [as_number(item) for item in result]
        if any(value is None for value in values):
            return verdict(False, "", tr("expected two numbers (with_cache, without_cache)"))
        with_cache, without_cache = values
        expected = (batch_size * n_steps, batch_size * n_steps * (n_steps + 1) // 2)
        if with_cache != expected[0]:
            return verdict(
                False,
                "",
                tr(
                    "decoder_positions({n_steps}, {batch_size}): with the cache expected "
                    "{expected}, got {got:g} (each step feeds one new position per row)"
                ).format(
                    n_steps=n_steps, batch_size=batch_size, expected=expected[0], got=with_cache
                ),
            )
        if without_cache != expected[1]:
            hint = tr(
                "step t re-runs the decoder on all t positions of the prefix, t = 1 .. n_steps"
            )
            if without_cache == batch_size * n_steps * n_steps:
                hint = tr(
                    "the prefix grows: step t has t positions, not n_steps, so the sum is n(n+1)/2"
                )
            return verdict(
                False,
                "",
                tr(
                    "decoder_positions({n_steps}, {batch_size}): without the cache expected "
                    "{expected}, got {got:g} ({hint})"
                ).format(
                    n_steps=n_steps,
                    batch_size=batch_size,
                    expected=expected[1],
                    got=without_cache,
                    hint=hint,
                ),
            )
    return verdict(
        True,
        tr(
            "decoder_positions is right in all {count} cases: n per row with the cache, "
            "n(n+1)/2 without"
        ).format(count=len(cases)),
        "",
    )


_FINISHED_CASES = [
    # (hypotheses with their summed log-probabilities, alpha, the right answer's index)
    (
        [
            (["the", "man", "</s>"], -1.40),
            (["the", "old", "man", "drinks", "</s>"], -1.55),
            (["the", "old", "man", "drinks", "a", "beer", "</s>"], -2.60),
        ],
        0.6,
        1,
    ),
    (
        [
            (["the", "man", "</s>"], -1.40),
            (["the", "old", "man", "drinks", "</s>"], -1.55),
            (["the", "old", "man", "drinks", "a", "beer", "</s>"], -2.60),
        ],
        0.0,
        0,
    ),
    (
        [
            (["today", "she", "goes", "shopping", "</s>"], -0.90),
            (["she", "</s>"], -0.80),
            (["today", "she", "goes", "</s>"], -0.85),
        ],
        1.0,
        0,
    ),
]


def check_best_hypothesis(
    function: Callable[[list[tuple[list[str], float]], float], list[str]],
) -> None:
    """Exercise 3: best_hypothesis(finished, alpha) picks the best log P / lp(|Y|)."""
    for finished, alpha, answer in _FINISHED_CASES:
        copy = [(list(tokens), score) for tokens, score in finished]
        result, problem = call_solution(function, copy, alpha)
        if problem is not None:
            return verdict(False, "", problem)
        if not isinstance(result, (list, tuple)) or not all(isinstance(t, str) for t in result):
            return verdict(
                False,
                "",
                tr("expected the winning list of tokens, got {type}").format(
                    type=type(result).__name__
                ),
            )
        expected = finished[answer][0]
        if list(result) != expected:
            raw_best = max(finished, key=lambda item: item[1])[0]
            longest = max(finished, key=lambda item: len(item[0]))[0]
            if list(result) == raw_best:
                hint = tr("that is the best raw log-probability: divide each by lp(|Y|) first")
            elif list(result) == longest:
                hint = tr("that is the longest hypothesis: compare log P / lp(|Y|), not lengths")
            else:
                hint = tr("rank by log P / ((5 + |Y|) / 6) ** alpha, with |Y| counting </s>")
            return verdict(
                False,
                "",
                tr("with alpha={alpha} expected {expected!r}, got {got!r} ({hint})").format(
                    alpha=alpha, expected=" ".join(expected), got=" ".join(result), hint=hint
                ),
            )
    return verdict(
        True,
        tr(
            "best_hypothesis picks the best length-normalised score in all {count} "
            "cases (alpha 0, 0.6 and 1)"
        ).format(count=len(_FINISHED_CASES)),
        "",
    )
