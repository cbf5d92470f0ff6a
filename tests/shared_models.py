"""Small models that several test files share (their fixtures `mha` and `x` are in conftest.py)."""

import torch

from helpers.model.transformer import Transformer, TransformerConfig

D_MODEL, N_HEADS = 16, 4


def tiny_transformer(seed: int = 0, **sizes) -> Transformer:
    """A one-layer Transformer on 12 ids, no dropout (``sizes`` override any field of the config):
    trains and saves in well under a second."""
    torch.manual_seed(seed)
    fields = dict(src_vocab_size=12, tgt_vocab_size=12, d_model=32, n_heads=4, d_ff=64, n_layers=1)
    return Transformer(TransformerConfig(**{**fields, "dropout": 0.0, **sizes}))
