"""Checks for the exercises at the end of each notebook, one module per notebook.

A check never raises on a wrong or unfinished answer: it prints what is right or wrong in words
and returns True or False. A solution function that returns None (the stub in the student copy)
counts as unfinished.
"""

from collections.abc import Callable
from typing import Any


def verdict(ok: bool, success: str, failure: str) -> bool:
    """Print a one-line verdict and return ok."""
    print(("✓ " + success) if ok else ("✗ " + failure))
    return ok


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
