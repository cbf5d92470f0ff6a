"""Notebook 00's two reference tables, checked against the code and the paper they describe.

The overview shows the base model's hyper-parameters and the map from the source walkthrough's
names to this series' as Markdown tables (read, not run, by the student); these tests are what
keeps them true: the hyper-parameters against `TransformerConfig`'s defaults, `make_optimizer`,
`train_model`'s defaults and Table 3's base row, and every name of the map against the module and the
notebook that build it.
"""

import importlib
import inspect
import re

import nbformat
import pytest
import torch

from helpers.model.transformer import TransformerConfig
from helpers.paths import ROOT
from helpers.training.transformer import make_optimizer, train_model

OVERVIEW = ROOT / "notebooks" / "00_overview.ipynb"

# The paper's base model: Table 3's first row, §5.1 (batches), §5.3 (Adam, warm-up).
PAPER_BASE = {
    "d_model": 512,
    "d_ff": 2048,
    "n_heads": 8,
    "d_k": 64,
    "d_v": 64,
    "n_layers": 6,
    "dropout": 0.1,
    "label_smoothing": 0.1,
    "warmup_steps": 4000,
    "betas[0]": 0.9,
    "betas[1]": 0.98,
    "eps": 1e-9,
    "tokens_per_batch": 25_000,
    "train_steps": 100_000,
}

# Where each name of the map lives: "module:Name" or "module:Name.member" (a member is an
# attribute, field, argument or local name that must appear in that class's or function's source).
NAME_MAP_SOURCES = {
    "`Vocab`": "helpers.text.vocab:Vocab",
    "`PAD` `<pad>`, `BOS` `<s>`, `EOS` `</s>` (and `UNK`)": "helpers.text.vocab:EOS",
    "`make_batch`, `pad_sequences`": "helpers.text.vocab:make_batch",
    "`src`, `tgt_input`, `tgt_output`": "helpers.text.vocab:collate.tgt_input",
    "each batch's own lengths": "helpers.text.vocab:pad_sequences.longest",
    "`TokenEmbedding` (× $\\sqrt{d_{model}}$)": "helpers.model.embeddings:TokenEmbedding",
    "`PositionalEncoding` (batch first)": "helpers.model.embeddings:PositionalEncoding",
    "`scaled_dot_product_attention`": "helpers.model.attention:scaled_dot_product_attention",
    "`padding_mask`": "helpers.model.masks:padding_mask",
    "`look_ahead_mask`": "helpers.model.masks:look_ahead_mask",
    "`src_mask = padding_mask(src, pad_id)`": "helpers.model.masks:padding_mask",
    "`padding_mask(tgt, pad_id)`": "helpers.model.masks:decoder_self_attention_mask.padding_mask",
    "`look_ahead_mask(tgt_len)`": "helpers.model.masks:decoder_self_attention_mask.look_ahead_mask",
    "`tgt_mask = decoder_self_attention_mask(...)`": (
        "helpers.model.masks:decoder_self_attention_mask"
    ),
    "`memory_mask = padding_mask(src, pad_id)`": "helpers.model.masks:padding_mask",
    "`MultiHeadAttention`": "helpers.model.multi_head_attention:MultiHeadAttention",
    "`w_qkv` ($W^Q, W^K, W^V$ stacked), `w_o`": (
        "helpers.model.multi_head_attention:MultiHeadAttention.w_qkv"
    ),
    "`PositionwiseFeedForward`": "helpers.model.feed_forward:PositionwiseFeedForward",
    "`linear1`, `linear2` (`nn.Linear`)": (
        "helpers.model.feed_forward:PositionwiseFeedForward.linear2"
    ),
    "`linear1`, `linear2` (with biases $b_1, b_2$)": (
        "helpers.model.feed_forward:PositionwiseFeedForward.linear1"
    ),
    "`ResidualSublayer`": "helpers.model.sublayers:ResidualSublayer",
    "`EncoderLayer`": "helpers.model.encoder:EncoderLayer",
    "`self_attention`, `feed_forward`": "helpers.model.encoder:EncoderLayer.feed_forward",
    "`Encoder`": "helpers.model.encoder:Encoder",
    "`memory`": "helpers.model.encoder:Encoder.memory",
    "`DecoderLayer`": "helpers.model.decoder:DecoderLayer",
    "`self_attention`, `cross_attention`": "helpers.model.decoder:DecoderLayer.cross_attention",
    "`Decoder`": "helpers.model.decoder:Decoder",
    "`Transformer`": "helpers.model.transformer:Transformer",
    "`TransformerConfig` fields, same names": "helpers.model.transformer:TransformerConfig.n_heads",
    "`output_projection`": "helpers.model.transformer:Transformer.output_projection",
    "`logits` `(batch, tgt_len, tgt_vocab_size)`": "helpers.model.transformer:Transformer.logits",
    "`AttentionWeights`: `encoder_self`, `decoder_self`, `decoder_cross`": (
        "helpers.model.transformer:AttentionWeights.decoder_cross"
    ),
    "`label_smoothing_loss`": "helpers.training.transformer:label_smoothing_loss",
    "`make_optimizer` (warm-up schedule)": "helpers.training.transformer:make_optimizer",
    "`greedy_decode`": "helpers.decoding.search:greedy_decode",
}


def markdown_table(header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown table in notebook 00 whose header starts so."""
    notebook = nbformat.read(OVERVIEW, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for index, line in enumerate(lines):
            if line.startswith(header_start):
                rows = []
                for row in lines[index + 2 :]:
                    if not row.startswith("|"):
                        break
                    rows.append([part.strip() for part in row.strip().strip("|").split("|")])
                return rows
    raise AssertionError(f"no table starting {header_start!r} in {OVERVIEW.name}")


def parse_value(text: str) -> float:
    return float(text.replace(",", ""))


def test_hyper_parameter_table_is_the_papers_base_model():
    rows = markdown_table("| name | paper | value |")
    table = {row[0].strip("`"): parse_value(row[2]) for row in rows}
    assert table == PAPER_BASE


def test_hyper_parameter_table_matches_the_code_defaults():
    table = {row[0].strip("`"): parse_value(row[2]) for row in markdown_table("| name | paper |")}
    config = TransformerConfig(src_vocab_size=11, tgt_vocab_size=11)
    for name in ("d_model", "d_ff", "n_heads", "n_layers", "dropout"):
        assert table[name] == getattr(config, name), name
    assert table["d_k"] == table["d_v"] == config.d_model // config.n_heads
    assert (
        table["label_smoothing"]
        == inspect.signature(train_model).parameters["label_smoothing"].default
    )
    optimizer, _ = make_optimizer(torch.nn.Linear(2, 2), d_model=512, warmup_steps=4000)
    group = optimizer.param_groups[0]
    assert (table["betas[0]"], table["betas[1]"]) == group["betas"]
    assert table["eps"] == group["eps"]


def test_hyper_parameter_table_matches_the_notebooks_code():
    table = {row[0].strip("`"): parse_value(row[2]) for row in markdown_table("| name | paper |")}
    code = "\n".join(
        cell.source
        for cell in nbformat.read(OVERVIEW, as_version=4).cells
        if cell.cell_type == "code"
    )
    assert "d_model, d_ff, n_heads, n_layers = 512, 2048, 8, 6" in code
    assert "warmup_steps, train_steps, tokens_per_batch = 4000, 100_000, 25_000" in code
    assert (table["d_model"], table["d_ff"], table["n_heads"], table["n_layers"]) == (
        512,
        2048,
        8,
        6,
    )


def defined_in(where: str) -> str:
    """The notebook number that writes the module of ``where`` (its first line says which)."""
    module_name, _, qualified = where.partition(":")
    module = importlib.import_module(module_name)
    name, _, member = qualified.partition(".")
    definition = getattr(module, name)  # AttributeError if the name is not there
    if member:
        source = inspect.getsource(definition)
        assert re.search(rf"\b{member}\b", source), f"{member} not found in {qualified}"
    first_line = inspect.getsource(module).splitlines()[0]
    return re.search(r"notebooks/(\d\d)_", first_line).group(1)


def test_name_map_rows_all_have_a_source():
    rows = markdown_table("| walkthrough | this series |")
    assert len(rows) >= 30
    assert {row[1] for row in rows} == set(NAME_MAP_SOURCES)


@pytest.mark.parametrize("row", markdown_table("| walkthrough | this series |"), ids=lambda r: r[1])
def test_name_map_row_exists_in_the_notebook_it_names(row):
    _walkthrough, series, notebook = row
    assert defined_in(NAME_MAP_SOURCES[series]) == notebook
