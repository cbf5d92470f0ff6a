"""The code behind the notebooks of "Transformer, step by step".

Its parts, lowest first; each imports only from itself and the parts above it in this list
(``tests/test_layers.py`` checks it, imports inside functions included):

- ``helpers.language``, ``helpers.paths``, ``helpers.classes``, ``helpers.runtime``,
  ``helpers.checks``, ``helpers.model_sizes`` (hand-written): ``tr()`` and its catalogues, where
  the repository's files are, ``add_to_class``, seeds and devices, the input checks of the public
  entry points, the model sizes (tiny, small, base, big);
- ``helpers.data`` (hand-written, pure Python): the generated German-English corpus and the
  recognizer of its English grammar (notebook 16), and the real German-English dictionary of
  notebook 15;
- ``helpers.display`` (hand-written): notebook setup, shape tables, heatmaps; knows nothing of
  the model;
- ``helpers.text`` (generated from notebooks 01 and 14): vocabularies and batches of token ids;
  byte-pair encoding (sub-word pieces);
- ``helpers.model`` (generated from notebooks 02-10, 16 and 17): the model's parts, the
  Transformer, the same model built from PyTorch's layers, the decoder-only language model (GPT)
  and the modern block (Llama);
- ``helpers.pipeline`` (generated from notebooks 11, 12 and 16): training, decoding, evaluation;
  language-model training and sampling;
- ``helpers.analysis`` (generated from notebook 13): restricted attention, path lengths, slopes:
  the alternatives to self-attention;
- ``helpers.evaluation.costs`` (hand-written): the cost meter notebook 13 counts FLOPs and memory with,
  and the tables and figures that show how those costs grow;
- ``helpers.checkpoints``, ``helpers.pretrained`` (hand-written): saving and loading a trained
  model; the shipped model;
- ``helpers.train`` (hand-written): ``python -m helpers.train``, training on many CPUs or GPUs
  through torchrun, resume, checkpoint averaging, ``make ablations``, scores on real German,
  ``make translation-lm`` and ``make modern-block``;
- ``helpers.explore`` (hand-written): live explorers, sliders that redraw the notebooks' figures;
- ``helpers.exercises`` (hand-written): the checks behind each notebook's exercises.

Generated folders are written by ``make export`` from the cells of the notebooks marked
``#| export folder.module``: change the notebook, never the file. The maintenance tools (exporter,
notebook runner, benchmark, website, classroom edition) live outside the package, in ``tools/``.

Everything below is importable from here (``from helpers import Transformer``) and is loaded on
first use, so ``import helpers.data.corpus`` costs only what the corpus costs.
"""

from __future__ import annotations

import importlib
from typing import Any

# Public name -> the module that defines it.
_EXPORTS = {
    # display
    "setup_notebook": "helpers.display.setup",
    "seed_everything": "helpers.runtime",
    "pick_device": "helpers.runtime",
    "show_shapes": "helpers.display.shapes",
    "show_trace": "helpers.display.shapes",
    "shape_table": "helpers.display.shapes",
    "trace_shapes": "helpers.display.shapes",
    "plot_heatmap": "helpers.display.plots",
    "plot_heatmap_grid": "helpers.display.plots",
    # text
    "Vocab": "helpers.text.vocab",
    "make_batch": "helpers.text.vocab",
    "pad_sequences": "helpers.text.vocab",
    "train_bpe": "helpers.text.bpe",
    "BPETokenizer": "helpers.text.bpe",
    "PieceVocab": "helpers.text.bpe",
    # model
    "MultiHeadAttention": "helpers.model.multi_head_attention",
    "Transformer": "helpers.model.transformer",
    "TransformerConfig": "helpers.model.transformer",
    "AttentionWeights": "helpers.model.transformer",
    "TorchReferenceTransformer": "helpers.model.torch_reference",
    "to_torch_reference": "helpers.model.torch_reference",
    "GPT": "helpers.model.gpt",
    "GPTConfig": "helpers.model.gpt",
    "Llama": "helpers.model.modern",
    "LlamaConfig": "helpers.model.modern",
    "RMSNorm": "helpers.model.modern",
    "apply_rotary": "helpers.model.modern",
    # pipeline
    "train_model": "helpers.training.transformer",
    "greedy_decode": "helpers.decoding.search",
    "beam_search": "helpers.decoding.search",
    "translate": "helpers.decoding.search",
    "corpus_bleu": "helpers.evaluation.bleu",
    "filter_logits": "helpers.decoding.sampling",
    "generate": "helpers.decoding.sampling",
    # explorers
    "explore_positions": "helpers.explore.positions",
    "explore_masks": "helpers.explore.masks",
    "explore_schedule": "helpers.explore.schedule",
    "explore_attention": "helpers.explore.attention",
    "explore_decoding": "helpers.explore.decoding",
    "explore_sampling": "helpers.explore.sampling",
    # data, checkpoints and the shipped model
    "load_corpus": "helpers.data.corpus",
    "load_pretrained": "helpers.pretrained",
    "save_checkpoint": "helpers.checkpoints",
    "load_checkpoint": "helpers.checkpoints",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        from helpers.language import tr  # only here: `import helpers` itself stays bare

        raise AttributeError(tr("module 'helpers' has no attribute {name!r}").format(name=name))
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
