"""Per-head tables of attention weights: where one row of an attention map looks, in every head.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import torch

from helpers.display.shapes import format_table
from helpers.language import tr


def weight_per_head(
    grid: torch.Tensor, columns: list[str], rows: list[str], row_word: str, column_word: str
) -> torch.Tensor:
    """Print, per layer and head, the weight of row ``row_word`` on column ``column_word`` and
    (in brackets) the column that row weights most.

    grid: (layers, heads, len(rows), len(columns)), attention weights. Returns (layers, heads)
    bools: is column_word the row's largest weight in that head?
    """
    row, column = rows.index(row_word), columns.index(column_word)
    weights = grid[:, :, row]  # (layers, heads, columns)
    table = [
        [tr("layer {layer}").format(layer=layer)]
        + [
            tr("{weight:.2f} ({word})").format(
                weight=w[column].item(), word=columns[w.argmax().item()]
            )
            for w in weights[layer]
        ]
        for layer in range(grid.shape[0])
    ]
    print(
        tr(
            "row {row!r}: weight on {column!r} (and the source word with the largest weight)"
        ).format(row=row_word, column=column_word)
    )
    header = ["", *[tr("head {head}").format(head=head) for head in range(grid.shape[1])]]
    print(format_table(header, table))
    return weights.argmax(dim=-1) == column
