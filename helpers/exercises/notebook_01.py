"""Checks for the exercises of notebook 01 (tokens, vocabularies and batches).

Hand-written: edit this file itself; no notebook generates it.

Each check calls the student's function on a few cases, prints a one-line verdict in words and
returns None; it never raises, whatever the function does.
"""

from collections.abc import Callable
from typing import Any

from helpers.exercises import call_solution, failed, passed
from helpers.language import tr


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
            return failed(problem)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            return failed(
                tr("expected a pair (decoder_input, target), got {type}").format(
                    type=type(result).__name__
                )
            )
        decoder_input, target = (_as_int_list(part) for part in result)
        if decoder_input is None or target is None:
            return failed(tr("decoder_input and target should both be lists of ints"))
        expected_input, expected_target = [bos_id, *ids], [*ids, eos_id]
        if decoder_input != expected_input:
            return failed(
                tr(
                    "for ids={ids}, bos_id={bos_id}: the decoder input should be {expected} "
                    "(<s> first, then the sentence), got {got}"
                ).format(ids=ids, bos_id=bos_id, expected=expected_input, got=decoder_input)
            )
        if target != expected_target:
            return failed(
                tr(
                    "for ids={ids}, eos_id={eos_id}: the target should be {expected} "
                    "(the sentence, then </s>), got {got}"
                ).format(ids=ids, eos_id=eos_id, expected=expected_target, got=target)
            )
    return passed(
        tr(
            "shift_right is right on {count} cases, including an empty sentence: "
            "decoder_input[1:] == target[:-1]"
        ).format(count=len(cases))
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
            return failed(problem)
        try:
            value = float(result)
        except (TypeError, ValueError):
            return failed(tr("expected a number, got {type}").format(type=type(result).__name__))
        if abs(value - expected) > 1e-9:
            lengths = [len(sequence) for sequence in sequences]
            hint = tr(" (that is a count, not a share)") if value > 1 else ""
            return failed(
                tr(
                    "for lengths {lengths}: expected {expected:.4f}, got {value:.4f}{hint}; "
                    "pads = batch * longest - sum(lengths)"
                ).format(lengths=lengths, expected=expected, value=value, hint=hint)
            )
    return passed(tr("padding_fraction is right on {count} batches").format(count=len(cases)))


def _padding(lengths: list[int], batches: list[list[int]]) -> int:
    return sum(
        len(batch) * max(lengths[i] for i in batch) - sum(lengths[i] for i in batch)
        for batch in batches
    )


def _interleaving(lengths: list[int], batches: list[list[int]]) -> tuple[int, int] | None:
    """Two batches whose length ranges overlap (neither lies wholly below the other), else None."""
    ranges = [(min(lengths[i] for i in batch), max(lengths[i] for i in batch)) for batch in batches]
    for a, (low_a, high_a) in enumerate(ranges):
        for b, (low_b, high_b) in enumerate(ranges[a + 1 :], start=a + 1):
            if not (high_a <= low_b or high_b <= low_a):
                return a, b
    return None


def check_group_by_length(group_by_length: Callable[[list[int], int], Any]) -> None:
    """group_by_length(lengths, batch_size): every index once, the fewest batches of at most
    batch_size, and no two batches whose length ranges overlap (what sorting, then cutting gives).

    Sorting then cutting is not always the least padding (lengths [1, 10, 10] in batches of 2:
    [1, 10] + [10] needs 9 pads, [1] + [10, 10] none), so the check does not demand the least
    padding; any grouping with these properties, that one included, passes.
    """
    cases = [
        ([5, 1, 4, 2, 6, 3], 2),
        ([9, 2, 9, 3, 2, 8, 3, 8, 2], 3),
        ([4, 4, 1, 1], 2),
        # Counts that are not a multiple of batch_size: one batch is short.
        ([1, 10, 10], 2),
        ([7, 3, 5, 1, 6, 2, 4], 3),
        ([2, 8, 5, 5, 1], 4),
    ]
    for lengths, batch_size in cases:
        result, problem = call_solution(group_by_length, list(lengths), batch_size)
        if problem:
            return failed(problem)
        if not isinstance(result, (list, tuple)):
            return failed(
                tr("expected a list of batches, got {type}").format(type=type(result).__name__)
            )
        batches = [_as_int_list(batch) for batch in result]
        if any(batch is None or not batch for batch in batches):
            return failed(tr("each batch should be a non-empty list of sentence indices"))
        indices = sorted(index for batch in batches for index in batch)
        if indices != list(range(len(lengths))):
            return failed(
                tr(
                    "for {count} sentences every index 0..{last} should appear exactly once, "
                    "got {indices}"
                ).format(count=len(lengths), last=len(lengths) - 1, indices=indices)
            )
        if max(len(batch) for batch in batches) > batch_size:
            return failed(
                tr("a batch has more than batch_size={batch_size} sentences").format(
                    batch_size=batch_size
                )
            )
        fewest = -(-len(lengths) // batch_size)
        if len(batches) != fewest:
            return failed(
                tr(
                    "for {count} sentences and batch_size={batch_size} expected {fewest} "
                    "batches (fill each one up to batch_size), got {got}"
                ).format(count=len(lengths), batch_size=batch_size, fewest=fewest, got=len(batches))
            )
        overlap = _interleaving(lengths, batches)
        if overlap is not None:
            a, b = overlap
            return failed(
                tr(
                    "for lengths {lengths} and batch_size={batch_size} your batches need "
                    "{pads} pads, and batches {a} and {b} mix lengths {lengths_a} and "
                    "{lengths_b}: put sentences of similar length together (sort by length first)"
                ).format(
                    lengths=lengths,
                    batch_size=batch_size,
                    pads=_padding(lengths, batches),
                    a=a,
                    b=b,
                    lengths_a=sorted(lengths[i] for i in batches[a]),
                    lengths_b=sorted(lengths[i] for i in batches[b]),
                )
            )
    return passed(
        tr(
            "group_by_length makes the fewest batches, of sentences of similar length, on "
            "{count} corpora (3 with a count that is not a multiple of batch_size)"
        ).format(count=len(cases))
    )
