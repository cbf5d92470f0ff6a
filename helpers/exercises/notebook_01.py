"""Checks for the exercises of notebook 01 (tokens, vocabularies and batches).

Each check calls the student's function on a few cases, prints a one-line verdict in words and
returns None; it never raises, whatever the function does.
"""

from collections.abc import Callable
from typing import Any

from helpers.exercises import call_solution, verdict


def _as_int_list(value: Any) -> list[int] | None:
    """The value as a list of Python ints (lists, tuples and 1-D tensors are accepted), else None."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        return None
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        return None
    return list(value)


def check_shift_right(shift_right: Callable[[list[int], int, int], Any]) -> None:
    """shift_right(ids, bos_id, eos_id) must return ([bos_id, *ids], [*ids, eos_id])."""
    cases = [([7, 8, 9, 10], 2, 3), ([5], 2, 3), ([], 2, 3), ([4, 4, 6], 12, 13)]
    for ids, bos_id, eos_id in cases:
        result, problem = call_solution(shift_right, list(ids), bos_id, eos_id)
        if problem:
            return verdict(False, "", problem)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return verdict(
                False, "", f"expected a pair (decoder_input, target), got {type(result).__name__}"
            )
        decoder_input, target = (_as_int_list(part) for part in result)
        if decoder_input is None or target is None:
            return verdict(False, "", "decoder_input and target should both be lists of ints")
        expected_input, expected_target = [bos_id, *ids], [*ids, eos_id]
        if decoder_input != expected_input:
            return verdict(
                False,
                "",
                f"for ids={ids}, bos_id={bos_id}: the decoder input should be {expected_input} "
                f"(<s> first, then the sentence), got {decoder_input}",
            )
        if target != expected_target:
            return verdict(
                False,
                "",
                f"for ids={ids}, eos_id={eos_id}: the target should be {expected_target} "
                f"(the sentence, then </s>), got {target}",
            )
    return verdict(
        True,
        f"shift_right is right on {len(cases)} cases, including an empty sentence: "
        "decoder_input[1:] == target[:-1]",
        "",
    )


def check_padding_fraction(padding_fraction: Callable[[list[list[int]]], Any]) -> None:
    """padding_fraction(sequences) must return the share of pads in the padded batch."""
    cases = [
        ([[4, 5, 6, 7], [5, 4], [6, 8, 9], [6, 10, 5, 11, 4, 12]], 9 / 24),
        ([[1, 2], [3, 4]], 0.0),
        ([[1, 2, 3], [4]], 2 / 6),
        ([[1], [2, 3, 4, 5], [6, 7]], 5 / 12),
    ]
    for sequences, expected in cases:
        result, problem = call_solution(padding_fraction, [list(s) for s in sequences])
        if problem:
            return verdict(False, "", problem)
        try:
            value = float(result)
        except (TypeError, ValueError):
            return verdict(False, "", f"expected a number, got {type(result).__name__}")
        if abs(value - expected) > 1e-9:
            lengths = [len(sequence) for sequence in sequences]
            hint = " (that is a count, not a share)" if value > 1 else ""
            return verdict(
                False,
                "",
                f"for lengths {lengths}: expected {expected:.4f}, got {value:.4f}{hint}; "
                "pads = batch * longest - sum(lengths)",
            )
    return verdict(True, f"padding_fraction is right on {len(cases)} batches", "")


def _padding(lengths: list[int], batches: list[list[int]]) -> int:
    return sum(
        len(batch) * max(lengths[i] for i in batch) - sum(lengths[i] for i in batch)
        for batch in batches
    )


def check_group_by_length(group_by_length: Callable[[list[int], int], Any]) -> None:
    """group_by_length(lengths, batch_size): every index once, batches <= batch_size, least padding."""
    # The number of sentences is a multiple of batch_size, so sorting and cutting is optimal.
    cases = [([5, 1, 4, 2, 6, 3], 2), ([9, 2, 9, 3, 2, 8, 3, 8, 2], 3), ([4, 4, 1, 1], 2)]
    for lengths, batch_size in cases:
        result, problem = call_solution(group_by_length, list(lengths), batch_size)
        if problem:
            return verdict(False, "", problem)
        if not isinstance(result, (list, tuple)):
            return verdict(False, "", f"expected a list of batches, got {type(result).__name__}")
        batches = [_as_int_list(batch) for batch in result]
        if any(batch is None or not batch for batch in batches):
            return verdict(False, "", "each batch should be a non-empty list of sentence indices")
        indices = sorted(index for batch in batches for index in batch)
        if indices != list(range(len(lengths))):
            return verdict(
                False,
                "",
                f"for {len(lengths)} sentences every index 0..{len(lengths) - 1} should appear "
                f"exactly once, got {indices}",
            )
        if max(len(batch) for batch in batches) > batch_size:
            return verdict(False, "", f"a batch has more than batch_size={batch_size} sentences")
        order = sorted(range(len(lengths)), key=lambda index: lengths[index])
        best = _padding(
            lengths, [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        )
        found = _padding(lengths, batches)
        if found > best:
            return verdict(
                False,
                "",
                f"for lengths {lengths} and batch_size={batch_size} your batches need {found} pads; "
                f"{best} is possible: put sentences of similar length together",
            )
    return verdict(True, f"group_by_length finds the least padding on {len(cases)} corpora", "")
