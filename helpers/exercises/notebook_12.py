"""Checks for the exercises of notebook 12 (decoding and evaluation).

Hand-written: edit this file itself; no notebook generates it.

Each check prints a verdict in words and returns None; it never raises on a wrong or
unfinished answer.
"""

from collections.abc import Callable

from helpers.exercises import as_number, call_solution, failed, passed
from helpers.language import tr


def _gnmt_penalty(length: int, alpha: float) -> float:
    return ((5 + length) / 6) ** alpha


def _doubling_length(alpha: float) -> int:
    length = 1
    while _gnmt_penalty(length, alpha) < 2:
        length += 1
    return length


def check_doubling_length(function: Callable[[float], int]) -> None:
    """Exercise 1: doubling_length(alpha), the smallest |Y| with lp(|Y|) >= 2 = 2 lp(1)."""
    alphas = [1.0, 0.6, 2.0, 0.3]
    for alpha in alphas:
        result, problem = call_solution(function, alpha)
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None:
            return failed(tr("expected a number, got {type}").format(type=type(result).__name__))
        expected = _doubling_length(alpha)
        if value != expected:
            if value == expected - 1:
                hint = tr("at that length lp is still below 2: the first length where it reaches 2")
            elif value != int(value):
                hint = tr("a length is a whole number of tokens: round up")
            else:
                hint = tr("try the lengths 1, 2, 3, ... with length_penalty until it reaches 2")
            return failed(
                tr("doubling_length({alpha}): expected {expected}, got {value:g} ({hint})").format(
                    alpha=alpha, expected=expected, value=value, hint=hint
                )
            )
    return passed(
        tr("doubling_length is right for all {count} values of alpha tried").format(
            count=len(alphas)
        )
    )


def _cache_numbers(n_steps: int, src_len: int, batch_size: int, n_layers: int, d_model: int):
    return 2 * n_layers * batch_size * d_model * (n_steps + src_len)


def check_cache_numbers(function: Callable[[int, int, int, int, int], int]) -> None:
    """Exercise 2: cache_numbers(n_steps, src_len, batch_size, n_layers, d_model)."""
    cases = [(1, 1, 1, 1, 4), (5, 7, 2, 3, 16), (20, 12, 64, 6, 512)]
    for case in cases:
        result, problem = call_solution(function, *case)
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None:
            return failed(tr("expected a number, got {type}").format(type=type(result).__name__))
        n_steps, src_len, batch_size, n_layers, d_model = case
        expected = _cache_numbers(*case)
        per_position = n_layers * batch_size * d_model
        if value != expected:
            if value == 2 * per_position * n_steps:
                hint = tr(
                    "that is the self-attention caches alone: the cross-attention caches "
                    "hold the memory's keys and values too"
                )
            elif value == per_position * (n_steps + src_len):
                hint = tr("a cache holds keys and values: two numbers per position and feature")
            elif value == expected // n_layers:
                hint = tr("every decoder layer has its own pair of caches")
            else:
                hint = tr("count, per layer, the positions each of its two caches holds")
            return failed(
                tr("cache_numbers{case}: expected {expected:,}, got {value:,g} ({hint})").format(
                    case=case, expected=expected, value=value, hint=hint
                )
            )
    return passed(tr("cache_numbers is right in all {count} cases").format(count=len(cases)))


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
            return failed(problem)
        if not isinstance(result, (list, tuple)) or not all(isinstance(t, str) for t in result):
            return failed(
                tr("expected the winning list of tokens, got {type}").format(
                    type=type(result).__name__
                )
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
            return failed(
                tr("with alpha={alpha} expected {expected!r}, got {got!r} ({hint})").format(
                    alpha=alpha, expected=" ".join(expected), got=" ".join(result), hint=hint
                )
            )
    return passed(
        tr(
            "best_hypothesis picks the best length-normalised score in all {count} "
            "cases (alpha 0, 0.6 and 1)"
        ).format(count=len(_FINISHED_CASES))
    )
