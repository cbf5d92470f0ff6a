"""Checks for the exercises of notebook 04 (masks).

Hand-written: edit this file itself; no notebook generates it.
"""

from collections.abc import Callable

import torch
import torch.nn.functional as F

from helpers.exercises import call_solution, failed, on_cpu, passed, verdict
from helpers.language import tr


def _shape_and_dtype_problem(
    result: object, shape: tuple[int, ...], dtype: torch.dtype, what: str
) -> str | None:
    """None when result is a tensor of this shape and dtype, else what is wrong with it."""
    if not isinstance(result, torch.Tensor):
        return tr("expected a tensor, got {type}").format(type=type(result).__name__)
    if tuple(result.shape) != shape:
        return tr("expected shape {shape} = {what}, got {got}").format(
            shape=shape, what=what, got=tuple(result.shape)
        )
    if result.dtype != dtype:
        return tr("expected dtype {dtype}, got {got}").format(dtype=dtype, got=result.dtype)
    return None


# (lengths, seq_len): a padded batch, a batch of one without padding, an empty sentence.
PADDING_CASES = [([5, 2, 3], 6), ([4], 4), ([0, 1], 3)]


def check_padding_mask_from_lengths(padding_mask_from_lengths: Callable) -> None:
    """padding_mask_from_lengths(lengths, seq_len) -> (batch, 1, 1, seq_len), True where j < length."""
    for lengths_list, seq_len in PADDING_CASES:
        lengths, batch = torch.tensor(lengths_list), len(lengths_list)
        result, problem = call_solution(padding_mask_from_lengths, lengths.clone(), seq_len)
        if (
            problem is None
            and isinstance(result, torch.Tensor)
            and result.shape == (batch, seq_len)
        ):
            problem = tr(
                "add the axes for heads and queries: shape (batch, 1, 1, seq_len), e.g. [:, None, None, :]"
            )
        if problem is None:
            problem = _shape_and_dtype_problem(
                result, (batch, 1, 1, seq_len), torch.bool, "(batch, 1, 1, seq_len)"
            )
        if problem is not None:
            return failed(problem)
        result = on_cpu(result)
        expected = (torch.arange(seq_len)[None, :] < lengths[:, None])[:, None, None, :]
        if torch.equal(result, expected):
            continue
        if torch.equal(result, ~expected):
            failure = tr(
                "inverted: True must mark the real positions (True = may attend), False the padding"
            )
        elif torch.equal(
            result, (torch.arange(seq_len)[None, :] <= lengths[:, None])[:, None, None, :]
        ):
            failure = tr(
                "off by one: a sentence of length 2 has real positions 0 and 1, so use <, not <="
            )
        else:
            row = next(r for r in range(batch) if not torch.equal(result[r], expected[r]))
            failure = tr(
                "for lengths {lengths} and seq_len={seq_len}, row {row} should be {expected}, "
                "got {got}"
            ).format(
                lengths=lengths_list,
                seq_len=seq_len,
                row=row,
                expected=expected[row, 0, 0].tolist(),
                got=result[row, 0, 0].tolist(),
            )
        return failed(failure)
    return passed(
        tr(
            "padding_mask_from_lengths marks exactly the first `length` positions, for a padded "
            "batch, a sentence without padding and an empty one"
        )
    )


def check_to_additive_mask(to_additive_mask: Callable) -> None:
    """to_additive_mask(mask) -> float32, 0.0 where True and -inf where False."""
    generator = torch.Generator().manual_seed(0)
    mask = torch.rand(2, 1, 4, 5, generator=generator) > 0.4
    mask[..., 0] = True  # every query keeps a key
    result, problem = call_solution(to_additive_mask, mask.clone())
    if problem is None:
        problem = _shape_and_dtype_problem(result, tuple(mask.shape), torch.float32, "mask.shape")
    if problem is not None:
        return failed(problem)
    result = on_cpu(result)
    expected = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
    if torch.equal(result, expected):
        query, key, value = (torch.randn(2, 3, n, 8, generator=generator) for n in (4, 5, 5))
        with_bool = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
        with_float = F.scaled_dot_product_attention(query, key, value, attn_mask=result)
        same = torch.allclose(with_bool, with_float, atol=1e-6)
        return verdict(
            same,
            tr(
                "to_additive_mask is right, and F.scaled_dot_product_attention gives the same output "
                "with it as with the boolean mask"
            ),
            tr(
                "the values are right, but F.scaled_dot_product_attention gives another output "
                "with them than with the boolean mask: compare the two masks' shapes"
            ),
        )
    if torch.equal(result, torch.zeros(mask.shape).masked_fill(mask, float("-inf"))):
        failure = tr("inverted: -inf goes where the mask is False (may not attend), 0.0 where True")
    elif torch.equal(result[mask], torch.zeros(int(mask.sum()))) and torch.all(
        torch.isfinite(result[~mask]) & (result[~mask] < 0)
    ):
        failure = tr(
            "use float('-inf') for hidden positions, as generate_square_subsequent_mask does: a "
            "finite value like -1e9 overflows in float16"
        )
    else:
        failure = tr("expected 0.0 where the mask is True and -inf where it is False")
    return failed(failure)


def _sliding_reference(size: int, window: int) -> torch.Tensor:
    query = torch.arange(size)[:, None]
    key = torch.arange(size)[None, :]
    return ((key <= query) & (key > query - window))[None, None]


def check_sliding_window_mask(sliding_window_mask: Callable) -> None:
    """sliding_window_mask(size, window) -> (1, 1, size, size), True where i - window < j <= i."""
    for size, window in [(6, 2), (5, 1), (4, 10), (7, 3)]:
        result, problem = call_solution(sliding_window_mask, size, window)
        if problem is None:
            problem = _shape_and_dtype_problem(
                result, (1, 1, size, size), torch.bool, "(1, 1, size, size)"
            )
        if problem is not None:
            return failed(
                tr("sliding_window_mask({size}, {window}): {problem}").format(
                    size=size, window=window, problem=problem
                )
            )
        result = on_cpu(result)
        expected = _sliding_reference(size, window)
        if torch.equal(result, expected):
            continue
        if result.triu(diagonal=1).any():
            failure = tr(
                "a query may not see later positions: keep only keys j <= i (the lower triangle)"
            )
        elif torch.equal(result, _sliding_reference(size, window + 1)) or torch.equal(
            result, _sliding_reference(size, window - 1)
        ):
            failure = tr(
                "off by one: with window={window}, query i should see exactly "
                "min(window, i + 1) keys, i - window + 1 .. i"
            ).format(window=window)
        else:
            failure = tr(
                "for size={size}, window={window}, row i should be True at keys i-{window}+1 .. i"
            ).format(size=size, window=window)
        return failed(
            tr("sliding_window_mask({size}, {window}): {problem}").format(
                size=size, window=window, problem=failure
            )
        )
    return passed(tr("sliding_window_mask lets each query see itself and the window - 1 before it"))
