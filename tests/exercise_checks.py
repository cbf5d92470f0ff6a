"""How every exercise check is tested: through the one line it prints, which is what a student sees.

A check (helpers/exercises/notebook_NN.py) prints "✓ …" or "✗ …" and returns None. The tests of
each notebook's checks use the `verdicts` fixture (tests/conftest.py), an instance of `Verdicts`:

    def test_exercise_checks(verdicts):
        verdicts.exercise(check_shift_right, solution, wrong=[(answer, "words it must say"), ...])
"""

from collections.abc import Callable, Iterable
from typing import Any

import pytest
import torch

# What every check says about the three answers that are not attempts at the exercise.
UNFINISHED = "returned None: fill in its body"
RAISED = "raised RuntimeError: boom"
NOT_A_FUNCTION = "expected a function, got str"


def unfinished(*args: Any, **kwargs: Any) -> None:
    """The stub of the classroom edition: a function whose body is still to be written."""
    return None


def returns_a_string(*args: Any, **kwargs: Any) -> str:
    """An answer of the wrong type; the check must say so, not crash on it."""
    return "a string"


def raises(*args: Any, **kwargs: Any) -> Any:
    """A function that crashes; the check must report it, not raise."""
    raise RuntimeError("boom")


def on_the_gpu(solution: Callable[..., Any]) -> Callable[..., Any]:
    """solution with its result moved to the GPU: a tensor, or each tensor of a tuple or list of
    tensors; any other result (a number, a module) is returned as it is."""

    def moved(*args: Any, **kwargs: Any) -> Any:
        result = solution(*args, **kwargs)
        if isinstance(result, torch.Tensor):
            return result.cuda()
        if (
            isinstance(result, (tuple, list))
            and result
            and all(isinstance(item, torch.Tensor) for item in result)
        ):
            items = [item.cuda() for item in result]
            return tuple(items) if isinstance(result, tuple) else items
        return result

    return moved


class Verdicts:
    """Runs exercise checks and reads the verdict each prints, through pytest's capsys."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def of(self, check: Callable[[Any], None], answer: Any) -> str:
        """The verdict check(answer) prints; it must return None and print one ✓ or ✗ line."""
        self._capsys.readouterr()  # what was printed before is not this check's verdict
        returned = check(answer)
        printed = self._capsys.readouterr().out
        name = getattr(check, "__name__", repr(check))
        assert returned is None, f"{name} returned {returned!r}: a check prints, it returns None"
        lines = printed.splitlines()
        assert len(lines) == 1 and lines[0][:2] in ("✓ ", "✗ "), (
            f"{name} printed {printed!r}: expected one line starting with ✓ or ✗"
        )
        return lines[0]

    def passes(self, check: Callable[[Any], None], solution: Any) -> str:
        """Assert that check(solution) prints a ✓ verdict; return it."""
        line = self.of(check, solution)
        assert line.startswith("✓ "), line
        return line

    def fails(self, check: Callable[[Any], None], answer: Any, *says: str) -> str:
        """Assert that check(answer) prints a ✗ verdict containing each of `says`; return it."""
        line = self.of(check, answer)
        assert line.startswith("✗ "), line
        assert len(line) > 20, f"a failure should say what is wrong, not just {line!r}"
        for words in says:
            assert words in line, f"expected {words!r} in {line!r}"
        return line

    def exercise(
        self,
        check: Callable[[Any], None],
        solution: Any,
        wrong: Iterable[tuple[Any, str]] = (),
    ) -> None:
        """The whole pattern: the solution passes; the stub, a crash, a non-function, an answer of
        the wrong type and each wrong answer fail with their message; with a GPU, the solution
        still passes when its tensors are on the GPU; and the check leaves torch's global random
        generator where it was."""
        state = torch.random.get_rng_state()
        self.passes(check, solution)
        self.fails(check, unfinished, UNFINISHED)
        self.fails(check, raises, RAISED)
        self.fails(check, "not a function", NOT_A_FUNCTION)
        self.fails(check, returns_a_string)
        for answer, says in wrong:
            self.fails(check, answer, says)
        if torch.cuda.is_available():
            self.passes(check, on_the_gpu(solution))
        assert torch.equal(torch.random.get_rng_state(), state), "a check changed the global RNG"
