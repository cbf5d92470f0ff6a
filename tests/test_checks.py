"""helpers.checks: the one place where public entry points turn bad input into a clear error."""

import pytest
import torch

from helpers.checks import (
    check_bool_mask,
    check_choice,
    check_non_negative_int,
    check_number,
    check_positive_int,
    check_probability,
    check_strings,
    check_token_ids,
    fail,
)
from helpers.classes import add_to_class
from helpers.language import set_language


def test_fail_formats_the_message_and_names_the_argument():
    with pytest.raises(ValueError, match=r"^n: expected 3, got 4$"):
        fail("{name}: expected 3, got {got}", name="n", got=4)


def test_fail_speaks_chinese_in_the_chinese_edition():
    set_language("zh")
    try:
        with pytest.raises(ValueError, match="n_heads：应为正整数，实际为 0"):
            check_positive_int("n_heads", 0)
    finally:
        set_language("en")


@pytest.mark.parametrize("value", [0, -1, 1.0, True, "2", None])
def test_positive_int_refuses_what_is_not_an_int_of_at_least_one(value):
    with pytest.raises(ValueError, match=r"^d_model: expected a positive int, got "):
        check_positive_int("d_model", value)


def test_positive_int_accepts_one_and_none_where_allowed():
    check_positive_int("n", 1)
    check_positive_int("max_positions", None, allow_none=True)
    with pytest.raises(
        ValueError, match=r"^max_positions: expected None or a positive int, got 0$"
    ):
        check_positive_int("max_positions", 0, allow_none=True)


def test_non_negative_int():
    check_non_negative_int("start", 0)
    with pytest.raises(ValueError, match=r"^start: expected an int >= 0, got -1$"):
        check_non_negative_int("start", -1)


@pytest.mark.parametrize("value", [-0.1, 1.0, float("nan"), float("inf"), "0.1", None, True])
def test_probability_is_a_finite_number_in_zero_one(value):
    with pytest.raises(ValueError, match=r"^dropout: expected a number in \[0\.0, 1\.0\), got "):
        check_probability("dropout", value)


def test_number_intervals_open_and_closed():
    check_probability("dropout", 0.0)
    check_number("alpha", 0, low=0)
    check_number("clip_norm", None, low=0, low_open=True, allow_none=True)
    with pytest.raises(ValueError, match=r"^lr_factor: expected a number in \(0, inf\), got 0$"):
        check_number("lr_factor", 0, low=0, low_open=True)
    check_number("x", 1.0, low=0, high=1, high_open=False)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_number("x", 1.5, low=0, high=1, high_open=False)


def test_choice_lists_what_is_allowed():
    check_choice("positional", "learned", ("sinusoidal", "learned"))
    with pytest.raises(
        ValueError, match=r"^positional: expected one of 'sinusoidal', 'learned', got 'x'$"
    ):
        check_choice("positional", "x", ("sinusoidal", "learned"))


def test_strings_refuses_a_single_string_and_names_a_bad_index():
    check_strings("texts", ["a", "b"])
    with pytest.raises(ValueError, match="got a single str"):
        check_strings("texts", "a b")
    with pytest.raises(ValueError, match="got int at index 1"):
        check_strings("texts", ["a", 3])
    with pytest.raises(ValueError, match="got dict"):
        check_strings("texts", {})


def test_token_ids_checks_type_dtype_shape_length_and_range():
    good = torch.tensor([[1, 2, 3]])
    check_token_ids("src", good, vocab_size=4, max_positions=3)
    cases = [
        ([[1, 2]], "expected a tensor of token ids, got list"),
        (torch.tensor([[1.0]]), "expected dtype torch.int64"),
        (torch.tensor([1, 2]), r"expected shape \(batch, seq_len\)"),
        (torch.zeros(1, 0, dtype=torch.long), r"got \(1, 0\)"),
        (torch.tensor([[1, 2, 3, 0]]), "length 4 is longer than max_positions=3"),
        (torch.tensor([[1, 4]]), r"expected ids in \[0, 4\), got values from 1 to 4"),
        (torch.tensor([[-1, 2]]), "got values from -1 to 2"),
    ]
    for ids, message in cases:
        with pytest.raises(ValueError, match=message):
            check_token_ids("src", ids, vocab_size=4, max_positions=3)


def test_bool_mask():
    check_bool_mask("mask", None)
    check_bool_mask("mask", torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(
        ValueError, match=r"^mask: expected a bool tensor \(True = may attend\), got torch.float32$"
    ):
        check_bool_mask("mask", torch.ones(2, 2))


def test_add_to_class_grows_a_class_with_a_method_and_a_property():
    class Counter:
        def __init__(self):
            self.n = 1

    @add_to_class(Counter)
    def double(self) -> int:
        return 2 * self.n

    @add_to_class(Counter)
    @property
    def triple(self) -> int:
        return 3 * self.n

    counter = Counter()
    assert counter.double() == 2
    assert counter.triple == 3
