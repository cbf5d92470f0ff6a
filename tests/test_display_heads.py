"""helpers.display.heads: the per-head table of where one row of an attention map looks."""

import torch

from helpers.display.heads import weight_per_head


def test_weight_per_head_prints_each_head_and_says_where_the_row_looks_most(capsys):
    grid = torch.zeros(2, 3, 2, 3)  # (layers, heads, rows, columns)
    grid[:, :, 1] = torch.tensor([0.2, 0.5, 0.3])  # row "b" looks most at column "y"...
    grid[1, 2, 1] = torch.tensor([0.7, 0.1, 0.2])  # ...except layer 1, head 2: at "x"
    grid[0, 0, 0] = torch.tensor([0.0, 0.0, 1.0])  # another row: not read
    is_max = weight_per_head(grid, ["x", "y", "z"], ["a", "b"], "b", "y")
    assert is_max.tolist() == [[True, True, True], [True, True, False]]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "row 'b': weight on 'y' (and the source word with the largest weight)"
    assert lines[1].split() == ["head", "0", "head", "1", "head", "2"]
    assert lines[3].split() == ["layer", "0", *["0.50", "(y)"] * 3]
    assert lines[4].split() == ["layer", "1", "0.50", "(y)", "0.50", "(y)", "0.10", "(x)"]
