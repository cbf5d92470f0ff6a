"""Let a class grow across the cells of one lesson (d2l's ``add_to_class``).

Hand-written: edit this file itself; no notebook generates it.

A lesson builds a class's core first and adds a method later, where that method is taught:

    @add_to_class(MultiHeadAttention)
    def forward_with_cache(self, ...): ...

The exporter writes both cells into the same module, in notebook order, so the finished class is
the same whatever imports it first. Use it within one module only: patching a class of another
module at import time would make behaviour depend on import order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def add_to_class(cls: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: set the function (or property) as an attribute of ``cls``, under its own name."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        name = getattr(function, "__name__", None) or function.fget.__name__  # a property
        setattr(cls, name, function)
        return function

    return register
