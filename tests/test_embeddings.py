"""helpers.model.embeddings (notebook 02) and the checks of notebook 02's exercises."""

import math

import pytest
import torch
import torch.nn.functional as F

from helpers.exercises.notebook_02 import (
    check_dot_product_at_offset,
    check_embed_with_positions,
    check_wavelengths,
)
from helpers.model.embeddings import PositionalEncoding, TokenEmbedding, sinusoidal_table


def assert_near(actual: torch.Tensor, expected: torch.Tensor, atol: float = 1e-6) -> None:
    """Same shape and dtype, entries within atol (torch.testing costs seconds on its first call)."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    difference = (actual - expected).abs().max().item() if actual.numel() else 0.0
    assert difference <= atol, f"max abs difference {difference:.2e} > {atol:.0e}"


def formula(max_positions: int, d_model: int) -> torch.Tensor:
    """The paper's formula entry by entry, in float64."""
    table = torch.zeros(max_positions, d_model, dtype=torch.float64)
    for pos in range(max_positions):
        for dimension in range(d_model):
            angle = pos / 10000 ** (2 * (dimension // 2) / d_model)
            table[pos, dimension] = math.sin(angle) if dimension % 2 == 0 else math.cos(angle)
    return table


def test_token_embedding_is_one_hot_times_the_matrix_scaled():
    torch.manual_seed(0)
    embedding = TokenEmbedding(vocab_size=10, d_model=16)
    ids = torch.tensor([[1, 4, 9], [0, 0, 3]])
    out = embedding(ids)
    assert out.shape == (2, 3, 16)
    one_hot = F.one_hot(ids, num_classes=10).float()
    expected = (one_hot @ embedding.embedding.weight) * 4.0  # sqrt(16)
    assert_near(out, expected, atol=0.0)


@pytest.mark.parametrize("d_model", [8, 64, 7, 1])
def test_sinusoidal_table_matches_the_formula(d_model):
    table = sinusoidal_table(50, d_model)
    assert table.shape == (50, d_model) and table.dtype == torch.float32
    assert_near(table.double(), formula(50, d_model), atol=1e-5)


def test_even_dimensions_are_sines_and_odd_dimensions_cosines():
    table = sinusoidal_table(10, 6)
    assert torch.all(table[0, 0::2] == 0) and torch.all(table[0, 1::2] == 1)
    assert_near(table[:, 0], torch.sin(torch.arange(10.0)))
    assert_near(table[:, 1], torch.cos(torch.arange(10.0)))


@pytest.mark.parametrize("k", [1, 3, 17])
def test_a_shift_by_k_is_one_rotation_for_every_position(k):
    d_model, max_positions = 32, 60
    table = sinusoidal_table(max_positions, d_model).double()
    omega = 10000 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    M_k = torch.zeros(d_model, d_model, dtype=torch.float64)
    for pair, angle in enumerate((omega * k).tolist()):
        c, s = math.cos(angle), math.sin(angle)
        M_k[2 * pair : 2 * pair + 2, 2 * pair : 2 * pair + 2] = torch.tensor([[c, s], [-s, c]])
    assert_near(table[:-k] @ M_k.T, table[k:], atol=1e-4)


def test_dot_products_depend_only_on_distance():
    table = sinusoidal_table(40, 16).double()
    similarity = table @ table.T
    for offset in range(40):
        diagonal = torch.diagonal(similarity, offset)
        assert_near(diagonal, diagonal[:1].expand_as(diagonal), atol=1e-4)
    assert_near(torch.diagonal(similarity), torch.full((40,), 8.0, dtype=torch.float64))


def test_positional_encoding_adds_the_table_from_start():
    encoding = PositionalEncoding(d_model=8, max_positions=20).eval()
    x = torch.randn(3, 5, 8)
    assert_near(encoding(x), x + sinusoidal_table(20, 8)[:5], atol=0.0)
    assert_near(encoding(x, start=4), x + sinusoidal_table(20, 8)[4:9], atol=0)
    assert encoding(x.double()).dtype == torch.float64


def test_the_table_is_a_non_persistent_buffer_that_follows_the_module():
    encoding = PositionalEncoding(d_model=8, max_positions=20)
    assert [name for name, _ in encoding.named_buffers()] == ["table"]
    assert list(encoding.parameters()) == []
    assert encoding.state_dict() == {}
    assert encoding.to(torch.float64).table.dtype == torch.float64
    assert encoding.max_positions == 20


def test_dropout_acts_on_the_sum_in_training_only():
    torch.manual_seed(0)
    encoding = PositionalEncoding(d_model=16, max_positions=10, dropout=0.5)
    x = torch.randn(4, 10, 16)
    summed = x + encoding.table
    out = encoding.train()(x)
    kept = out != 0
    assert 0 < int(kept.sum()) < out.numel()
    assert_near(out[kept], summed[kept] * 2)
    assert_near(encoding.eval()(x), summed, atol=0.0)


def test_odd_d_model_works_end_to_end():
    out = PositionalEncoding(d_model=5, max_positions=4)(torch.zeros(2, 4, 5))
    assert_near(out[1].double(), formula(4, 5), atol=1e-6)


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: sinusoidal_table(0, 8), r"^max_positions: .*got 0$"),
        (lambda: sinusoidal_table(10, 0), r"^d_model: .*got 0$"),
        (lambda: sinusoidal_table(10, 8.0), r"^d_model: .*got 8\.0$"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument_and_value(build, pattern):
    with pytest.raises(ValueError, match=pattern):
        build()


# PositionalEncoding is an inner layer: the model's entry points refuse ids longer than max_positions
# (tests/test_transformer.py); inside, the layer asserts what must hold.
@pytest.mark.parametrize(
    ("build", "words"),
    [
        (
            lambda: PositionalEncoding(8, max_positions=4)(torch.zeros(1, 5, 8)),
            "positions in the table",
        ),
        (
            lambda: PositionalEncoding(8, max_positions=4)(torch.zeros(1, 2, 8), start=3),
            "positions in the table",
        ),
        (
            lambda: PositionalEncoding(8, max_positions=4)(torch.zeros(1, 2, 8), start=-1),
            "positions in the table",
        ),
        (
            lambda: PositionalEncoding(8, max_positions=4)(torch.zeros(1, 2, 6)),
            "x: embeddings, not ids",
        ),
        (
            lambda: PositionalEncoding(8, max_positions=8)(torch.zeros(2, 8, dtype=torch.long)),
            "x: embeddings, not ids",
        ),
    ],
)
def test_impossible_input_fails_an_assert(build, words):
    with pytest.raises(AssertionError) as failure:
        build()
    assert words in str(failure.traceback[-1].statement)  # the assert that failed, its comment


@pytest.mark.parametrize("which", ["src", "tgt"])
def test_the_model_refuses_ids_longer_than_its_positional_table(which):
    # What PositionalEncoding refused with a ValueError before, the model's entry point now does.
    from helpers.model.transformer import Transformer, TransformerConfig

    config = TransformerConfig(7, 7, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_positions=4)
    model = Transformer(config)
    ids = {"src": torch.ones(1, 3, dtype=torch.long), "tgt": torch.ones(1, 3, dtype=torch.long)}
    ids[which] = torch.ones(1, 5, dtype=torch.long)
    with pytest.raises(ValueError, match=f"^{which}: .*max_positions=4"):
        model(ids["src"], ids["tgt"])


# Exercise checks: the solution passes, an unfinished (None) or wrong answer fails with a message,
# and nothing raises.


def good_wavelengths(d_model):
    return 2 * math.pi * 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)


def good_embed_with_positions(ids, weight, table):
    return weight[ids] * math.sqrt(weight.shape[1]) + table[: ids.shape[1]]


def good_dot_product_at_offset(d_model, k):
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    return float(torch.cos(k / 10000 ** (two_i / d_model)).sum())


CHECKS = [
    (
        check_wavelengths,
        good_wavelengths,
        [
            (lambda d: good_wavelengths(d) / (2 * math.pi), "includes the 2*pi"),
            (lambda d: good_wavelengths(d + 1)[: d // 2], "the last 6283.2; got 6.2832 and 2916.4"),
            (lambda d: good_wavelengths(d).flip(0), "got 6283.1853 and 6.3"),
            (lambda d: "long", "expected a 1-D tensor, got str"),
        ],
    ),
    (
        check_embed_with_positions,
        good_embed_with_positions,
        [
            (lambda ids, w, t: w[ids] + t[: ids.shape[1]], "not multiplied by sqrt(d_model)"),
            (lambda ids, w, t: w[ids] * math.sqrt(w.shape[1]), "the positional table is not added"),
            (lambda ids, w, t: w[ids][0], "expected shape (3, 7, 16) (batch, seq_len, d_model)"),
            (
                lambda ids, w, t: w[ids] * w.shape[1] + t[: ids.shape[1]],
                "compare with weight[ids] * sqrt(d_model) + table[:seq_len]",
            ),
        ],
    ),
    (
        check_dot_product_at_offset,
        good_dot_product_at_offset,
        [
            (lambda d, k: d, "k=0 gives d_model / 2"),
            (lambda d, k: good_dot_product_at_offset(d, k + 1), "you returned 7.4852"),
            (lambda d, k: "x", "expected a number, got str"),
        ],
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong"), CHECKS)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)


def test_wavelengths_check_says_whether_the_count_is_right(capsys):
    counted = int((good_wavelengths(512) < 50).sum())
    check_wavelengths(good_wavelengths, counted)
    right = capsys.readouterr().out
    check_wavelengths(good_wavelengths, counted + 1)
    wrong = capsys.readouterr().out
    check_wavelengths(good_wavelengths)
    asked = capsys.readouterr().out
    assert right.startswith("✓") and f"{counted} of the 256 pairs" in right
    assert wrong.startswith("✗") and f"{counted + 1} is not the number" in wrong
    assert asked.startswith("✓") and "set pairs_within_50" in asked and str(counted) not in asked
