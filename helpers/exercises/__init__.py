"""Checks for the exercises at the end of each notebook, one module per notebook.

Hand-written: edit this file itself; no notebook generates it.

A check never raises on a wrong or unfinished answer: it prints a one-line verdict that says what
is right ("✓ …") or wrong ("✗ …") and returns None, so that a notebook cell ending with a check
shows the verdict and nothing else. A solution function that returns None (the stub in the
classroom edition, `make student`) counts as unfinished.

A student may compute on a GPU: a check compares a tensor result with its expected values after
`on_cpu(result)`, once the result's type and shape are known to be right.
"""

import functools
import numbers
from collections.abc import Callable
from typing import Any, ParamSpec

import torch

from helpers.language import tr

P = ParamSpec("P")


def verdict(ok: bool, success: str, failure: str) -> None:
    """Print "✓ success" when ok, else "✗ failure".

    It returns None, like the checks that end with `return verdict(...)`: a check's answer is what
    it prints, and a returned bool would be displayed as a stray `True` under it in a notebook.
    """
    print(("✓ " + success) if ok else ("✗ " + failure))


def passed(message: str) -> None:
    """Print "✓ message": the answer is right."""
    verdict(True, message, "")


def failed(message: str) -> None:
    """Print "✗ message": what is wrong with the answer."""
    verdict(False, "", message)


class Problem(str):
    """What ``call_solution`` says went wrong, in words (in the notebook's language), and, when
    the student's function raised, the exception as ``error``: a check that looks closer at a
    crash tests ``problem.error``, never the words, which are translated."""

    error: Exception | None = None

    @classmethod
    def raised(cls, error: Exception) -> "Problem":
        problem = cls(
            tr("your function raised {error}: {message}").format(
                error=type(error).__name__, message=error
            )
        )
        problem.error = error
        return problem


def call_solution(
    function: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, Problem | None]:
    """Run a student's function; return (result, None) or (None, a message saying what went wrong)."""
    if not callable(function):
        return None, Problem(
            tr("expected a function, got {type}").format(type=type(function).__name__)
        )
    try:
        result = function(*args, **kwargs)
    except Exception as error:  # a check reports, it does not crash the notebook
        return None, Problem.raised(error)
    if result is None:
        return None, Problem(
            tr("your function returned None: fill in its body (see the hint above it)")
        )
    return result, None


def keeps_random_state(check: Callable[P, None]) -> Callable[P, None]:
    """Run check inside torch.random.fork_rng: a check that seeds or draws from torch's global
    generator leaves the random numbers the notebook draws next as they were."""

    @functools.wraps(check)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        with torch.random.fork_rng(devices=[]):
            check(*args, **kwargs)

    return wrapper


def reports_crashes(check: Callable[P, None]) -> Callable[P, None]:
    """Run check and report, as its verdict, an exception that an answer of an unexpected kind
    raises inside the check itself (the student's own function is run by call_solution, which
    reports its exceptions): a check never crashes the notebook."""

    @functools.wraps(check)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            check(*args, **kwargs)
        except Exception as error:
            failed(
                tr("the check could not run your answer: {error}: {message}").format(
                    error=type(error).__name__, message=error
                )
            )

    return wrapper


def on_cpu(result: torch.Tensor) -> torch.Tensor:
    """A student's result tensor, detached and on the CPU, to compare with the expected tensor a
    check builds on the CPU: comparing tensors on two devices raises, a GPU result must pass."""
    return result.detach().cpu()


def tensor_problem(result: object, expected: torch.Tensor, what: str) -> str | None:
    """A message when result is not a tensor of the expected shape, else None."""
    if not isinstance(result, torch.Tensor):
        return tr("expected {what} as a torch.Tensor, got {type}").format(
            what=what, type=type(result).__name__
        )
    if tuple(result.shape) != tuple(expected.shape):
        return tr("expected {what} of shape {shape}, got {got}").format(
            what=what, shape=tuple(expected.shape), got=tuple(result.shape)
        )
    return None


def as_number(result: object) -> float | None:
    """A Python float from an int, a float, a NumPy scalar or a one-element real tensor (on any
    device); None for anything else, a bool or a bool tensor included."""
    if isinstance(result, bool):
        return None
    if isinstance(result, numbers.Real):  # int, float and NumPy's numbers, not NumPy's bool
        return float(result)
    if (
        isinstance(result, torch.Tensor)
        and result.numel() == 1
        and result.dtype != torch.bool
        and not result.is_complex()
    ):
        return float(result.item())
    return None


def count_parameters(module: torch.nn.Module) -> int:
    """The number of parameters of module: the truth a parameter-counting exercise is checked
    against."""
    return sum(parameter.numel() for parameter in module.parameters())
