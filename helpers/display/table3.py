"""Our Table 3 ablations next to the paper's numbers (notebook 10): the table, not the lesson.

Hand-written: edit this file itself; no notebook generates it.

``make ablations`` writes ``docs/table3_ablations.json``, one row per variant of the small model,
each changed by the same ratio as a row of the paper's Table 3. ``compare_with_table3`` lays those
rows beside the paper's development-set perplexity and BLEU, and says for both whether a row's
perplexity is above the base row's (worse), below it (better) or about equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from helpers.display.shapes import format_table
from helpers.language import tr

# Our row (the JSON's "change") -> (the paper's row at the same ratio to its base, dev perplexity,
# dev BLEU), from Table 3 of Vaswani et al. (2017).
PAPER_TABLE3 = {
    "unchanged (small: N=3, d_model=128, d_ff=512, h=4, d_k=d_v=32)": ("base", 4.92, 25.8),
    "h=1, d_k=d_v=128": ("(A) h=1", 5.29, 24.9),
    "h=2, d_k=d_v=64": ("(A) h=4", 5.00, 25.5),
    "h=8, d_k=d_v=16": ("(A) h=16", 4.91, 25.8),
    "h=16, d_k=d_v=8": ("(A) h=32", 5.01, 25.4),
    "d_k=16": ("(B) d_k=32", 5.01, 25.4),
    "d_k=8": ("(B) d_k=16", 5.16, 25.1),
    "N=2": ("(C) N=4", 5.19, 25.3),
    "N=4": ("(C) N=8", 4.88, 25.5),
    "d_model=64, d_k=d_v=16": ("(C) d_model=256", 5.75, 24.5),
    "d_model=256, d_k=d_v=64": ("(C) d_model=1024", 4.66, 26.0),
    "d_ff=256": ("(C) d_ff=1024", 5.12, 25.4),
    "d_ff=1024": ("(C) d_ff=4096", 4.75, 26.2),
    "P_drop=0.0": ("(D) P_drop=0.0", 5.77, 24.6),
    "P_drop=0.2": ("(D) P_drop=0.2", 4.95, 25.5),
    "eps_ls=0.0": ("(D) eps_ls=0.0", 4.67, 25.3),
    "eps_ls=0.2": ("(D) eps_ls=0.2", 5.47, 25.7),
    "positional embedding instead of sinusoids": ("(E) learned positions", 4.92, 25.7),
}
# The table's name for the rows whose change the JSON describes in words.
ROW_NAMES = {
    "unchanged (small: N=3, d_model=128, d_ff=512, h=4, d_k=d_v=32)": "base",
    "positional embedding instead of sinusoids": "(E) positional embedding instead of sinusoids",
}


def shown_name(name: str) -> str:
    """A row's name as the table shows it: the two named in words are translated."""
    in_words = {
        "(E) positional embedding instead of sinusoids": tr(
            "(E) positional embedding instead of sinusoids"
        ),
        "(E) learned positions": tr("(E) learned positions"),
    }
    return in_words.get(name, name)


def direction(value: float, reference: float, tolerance: float) -> str:
    """ "=" within tolerance of the reference, else "worse" above it (perplexity) or "better"."""
    if abs(value - reference) <= tolerance:
        return "="
    return tr("worse") if value > reference else tr("better")


def compare_with_table3(rows: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The rows of table3_ablations.json (base first) beside the paper's; and in how many rows
    (base aside) our perplexity moves the same way as the paper's (ours within 0.01 of the base
    counts as equal, the paper's within 0.05, its two decimals)."""
    if [row["change"] for row in rows] != list(PAPER_TABLE3):
        raise ValueError(tr("rows: expected every row of make ablations, in order"))
    base, paper_base = rows[0], PAPER_TABLE3[rows[0]["change"]]
    table, agree = [], 0
    for row in rows:
        paper_row, paper_ppl, paper_bleu = PAPER_TABLE3[row["change"]]
        ours = direction(row["valid_perplexity"], base["valid_perplexity"], 0.01)
        theirs = direction(paper_ppl, paper_base[1], 0.05)
        agree += row is not base and ours == theirs
        name = ROW_NAMES.get(row["change"], f"({row['row']}) {row['change']}")
        ppl, bleu = f"{row['valid_perplexity']:.3f}", f"{row['test_bleu_greedy']:.1f}"
        table.append([shown_name(name), f"{row['parameters'] / 1e6:.2f}", ppl, bleu, ours])
        table[-1] += [shown_name(paper_row), f"{paper_ppl:.2f}", f"{paper_bleu:.1f}", theirs]
    header = [tr("our row"), tr("params (M)"), tr("ppl"), "BLEU", tr("vs base")]
    header += [tr("paper's row"), tr("ppl"), "BLEU", tr("vs base")]
    return format_table(header, table), agree
