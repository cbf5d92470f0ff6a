"""helpers.display.table3: our Table 3 ablations beside the paper's numbers (notebook 10)."""

import json

import pytest

from helpers.display.table3 import PAPER_TABLE3, compare_with_table3, direction
from helpers.paths import DOCS_DIR


def test_direction_says_equal_within_the_tolerance_and_worse_for_higher_perplexity():
    assert direction(5.0, 4.99, 0.01) == "="
    assert direction(5.1, 5.0, 0.01) == "worse"
    assert direction(4.9, 5.0, 0.01) == "better"


def rows(perplexities):
    return [
        {"row": "X", "change": change, "parameters": 1_000_000, "valid_perplexity": ppl,
         "test_bleu_greedy": 50.0}
        for change, ppl in zip(PAPER_TABLE3, perplexities, strict=True)
    ]  # fmt: skip


def test_agreement_counts_the_rows_that_move_like_the_papers():
    paper = [ppl for _, ppl, _ in PAPER_TABLE3.values()]
    base = paper[0]
    # Our perplexities far apart in the paper's directions: every row but base agrees.
    same = [1.0 + 10 * (ppl - base) if abs(ppl - base) > 0.05 else 1.0 for ppl in paper]
    table, agree = compare_with_table3(rows(same))
    assert agree == len(paper) - 1
    assert table.splitlines()[0].split()[:2] == ["our", "row"]
    # Everything worse than base: only the paper's worse rows agree.
    _, agree = compare_with_table3(rows([1.0] + [2.0] * (len(paper) - 1)))
    assert agree == sum(ppl - base > 0.05 for ppl in paper[1:])


def test_rows_must_be_those_of_make_ablations():
    with pytest.raises(ValueError, match="^rows: expected every row"):
        compare_with_table3(rows([1.0] * len(PAPER_TABLE3))[1:])


def test_the_shipped_ablations_are_every_row_in_order():
    trained = json.loads((DOCS_DIR / "table3_ablations.json").read_text(encoding="utf-8"))
    _, agree = compare_with_table3(trained["rows"])
    assert 0 <= agree < len(PAPER_TABLE3)
