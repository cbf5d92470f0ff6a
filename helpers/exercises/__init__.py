"""Checks for the exercises at the end of each notebook, one module per notebook.

A check never raises on a wrong or unfinished answer: it prints a one-line verdict that says what
is right ("✓ …") or wrong ("✗ …") and returns None, so that a notebook cell ending with a check
shows the verdict and nothing else. A solution function that returns None (the stub in the
classroom edition, `make student`) counts as unfinished.
"""

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

import torch

P = ParamSpec("P")


def verdict(ok: bool, success: str, failure: str) -> None:
    """Print "✓ success" when ok, else "✗ failure".

    It returns None, like the checks that end with `return verdict(...)`: a check's answer is what
    it prints, and a returned bool would be displayed as a stray `True` under it in a notebook.
    """
    print(("✓ " + success) if ok else ("✗ " + failure))


def call_solution(
    function: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, str | None]:
    """Run a student's function; return (result, None) or (None, a message saying what went wrong)."""
    if not callable(function):
        return None, f"expected a function, got {type(function).__name__}"
    try:
        result = function(*args, **kwargs)
    except Exception as error:  # a check reports, it does not crash the notebook
        return None, f"your function raised {type(error).__name__}: {error}"
    if result is None:
        return None, "your function returned None: fill in its body (see the hint above it)"
    return result, None


def keeps_random_state(check: Callable[P, None]) -> Callable[P, None]:
    """Run check inside torch.random.fork_rng: a check that seeds or draws from torch's global
    generator leaves the random numbers the notebook draws next as they were."""

    @functools.wraps(check)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        with torch.random.fork_rng(devices=[]):
            check(*args, **kwargs)

    return wrapper
