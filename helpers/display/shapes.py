"""Readable shape tables: what a tensor is, not just its ``torch.Size``.

Hand-written: edit this file itself; no notebook generates it.

``show_shapes`` prints one row per tensor you name::

    show_shapes({"enc_input": (src, "source token ids"), "weights": (attn, "softmax(QK^T/sqrt(d_k))")})

``show_trace`` runs a module once and prints the input and output shapes of every submodule in
the order they ran, which turns "the data flow of the model" into something measured.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from helpers.language import tr


def describe_shape(value: Any) -> str:
    """A short text for the shape of a tensor, or of a tuple/list/dict of tensors."""
    if isinstance(value, torch.Tensor):
        return "(" + ", ".join(str(size) for size in value.shape) + ")"
    if isinstance(value, (tuple, list)):
        parts = [describe_shape(item) for item in value]
        parts = [part for part in parts if part]
        if not parts:
            return ""
        return "[" + ", ".join(parts) + "]" if isinstance(value, list) else ", ".join(parts)
    if isinstance(value, Mapping):
        parts = [f"{key}={describe_shape(item)}" for key, item in value.items()]
        return ", ".join(part for part in parts if not part.endswith("="))
    return ""


def _dtype_name(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def display_width(text: str) -> int:
    """The columns text takes in a monospaced font: 2 for a wide (Chinese) character, else 1."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, width: int) -> str:
    """text padded with spaces to ``width`` columns (``str.ljust``, counting wide characters
    twice, so that a column of Chinese text lines up)."""
    return text + " " * max(0, width - display_width(text))


def format_table(header: list[str], rows: Iterable[list[str]]) -> str:
    """Left-aligned columns separated by two spaces, with a rule under the header."""
    rows = [list(header), *[list(row) for row in rows]]
    widths = [max(display_width(row[column]) for row in rows) for column in range(len(header))]
    lines = [
        "  ".join(pad(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def format_matrix(
    matrix: torch.Tensor, rows: list[str], columns: list[str], fmt: str = "+.2f"
) -> str:
    """A 2-D tensor as a table: one labelled row per query, one labelled column per key.

    matrix: (len_q, len_k), e.g. attention scores or weights; rows, columns: the token of each
    query and each key; fmt: the format of every entry (``".3f"`` for weights).
    """
    if matrix.dim() != 2 or tuple(matrix.shape) != (len(rows), len(columns)):
        raise ValueError(
            tr(
                "matrix: expected shape ({rows}, {columns}) for the labels given, got {shape}"
            ).format(rows=len(rows), columns=len(columns), shape=tuple(matrix.shape))
        )
    body = [
        [row, *(format(value, fmt) for value in values)]
        for row, values in zip(rows, matrix.tolist(), strict=True)
    ]
    return format_table([tr("query \\ key"), *columns], body)


def shape_table(tensors: Mapping[str, torch.Tensor | tuple[torch.Tensor, str]]) -> str:
    """The table ``show_shapes`` prints: name, shape, dtype and meaning of each tensor.

    tensors: name -> tensor, or name -> (tensor, meaning).
    """
    if not isinstance(tensors, Mapping) or not tensors:
        raise ValueError(
            tr(
                "tensors: expected a non-empty dict of name -> tensor or (tensor, meaning), "
                "got {type}"
            ).format(type=type(tensors).__name__)
        )
    rows = []
    for name, entry in tensors.items():
        tensor, meaning = entry if isinstance(entry, tuple) else (entry, "")
        if not isinstance(tensor, torch.Tensor) or not isinstance(meaning, str):
            raise ValueError(
                tr(
                    "tensors[{name!r}]: expected a tensor or a (tensor, meaning) pair, got {type}"
                ).format(name=name, type=type(entry).__name__)
            )
        rows.append([str(name), describe_shape(tensor), _dtype_name(tensor), meaning])
    return format_table([tr("name"), tr("shape"), "dtype", tr("meaning")], rows)


def show_shapes(tensors: Mapping[str, torch.Tensor | tuple[torch.Tensor, str]]) -> None:
    """Print a table of name, shape, dtype and meaning for each tensor."""
    print(shape_table(tensors))


@dataclass(frozen=True)
class ShapeRecord:
    """One submodule call seen by ``trace_shapes``."""

    name: str
    kind: str
    depth: int
    input_shape: str
    output_shape: str


MODEL_NAME = "(model)"  # trace_shapes' name for the module itself (shown translated)


def trace_shapes(
    module: nn.Module, *inputs: Any, max_depth: int | None = None, **kwargs: Any
) -> list[ShapeRecord]:
    """Run ``module(*inputs, **kwargs)`` once (without gradients) and record every submodule call.

    Records come in the order the calls start, so the list reads as the data flow. depth is how
    deeply a submodule sits in the model's tree of attributes (the module itself is 0; containers
    that are never called, like ``nn.ModuleList``, add no level), not how deeply its call is
    nested: a layer that a wrapper calls (``residual(x, self.attention)``) keeps the depth of the
    layer's attribute. max_depth: keep submodules at most this deep; None keeps all.
    """
    if not isinstance(module, nn.Module):
        raise ValueError(
            tr("module: expected an nn.Module, got {type}").format(type=type(module).__name__)
        )
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 0):
        raise ValueError(
            tr("max_depth: expected None or a non-negative int, got {max_depth!r}").format(
                max_depth=max_depth
            )
        )

    records: list[dict[str, Any]] = []
    open_calls: list[int | None] = []  # one entry per call in progress: its record, or None
    handles = []
    modules = dict(module.named_modules())
    containers = {
        name for name, m in modules.items() if isinstance(m, nn.ModuleList | nn.ModuleDict)
    }

    def depth_of(name: str) -> int:
        """The number of called ancestors of a submodule in the attribute tree."""
        if not name:
            return 0
        parts = name.split(".")
        ancestors = [".".join(parts[:i]) for i in range(1, len(parts))]
        return 1 + sum(ancestor not in containers for ancestor in ancestors)

    def watch(name: str, submodule: nn.Module) -> None:
        def before(mod, args, hook_kwargs):
            depth = depth_of(name)
            if max_depth is not None and depth > max_depth:
                open_calls.append(None)
                return
            records.append(
                {
                    "name": name or MODEL_NAME,  # a key the notebooks look up: not translated
                    "kind": type(mod).__name__,
                    "depth": depth,
                    "input_shape": describe_shape(args) or describe_shape(hook_kwargs),
                    "output_shape": "",
                }
            )
            open_calls.append(len(records) - 1)

        def after(mod, args, hook_kwargs, output):
            index = open_calls.pop()
            if index is not None:
                records[index]["output_shape"] = describe_shape(output)

        handles.append(submodule.register_forward_pre_hook(before, with_kwargs=True))
        handles.append(submodule.register_forward_hook(after, with_kwargs=True))

    for name, submodule in modules.items():
        watch(name, submodule)
    try:
        with torch.no_grad():
            module(*inputs, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    return [ShapeRecord(**fields) for fields in records]


def show_trace(
    module: nn.Module, *inputs: Any, max_depth: int | None = None, **kwargs: Any
) -> None:
    """Print the table of ``trace_shapes``: each submodule call with its input and output shapes."""
    records = trace_shapes(module, *inputs, max_depth=max_depth, **kwargs)
    rows = [
        [
            "  " * record.depth + (tr("(model)") if record.name == MODEL_NAME else record.name),
            record.kind,
            record.input_shape,
            record.output_shape,
        ]
        for record in records
    ]
    header = [tr("module"), tr("type"), tr("input shape"), tr("output shape")]
    print(format_table(header, rows))
