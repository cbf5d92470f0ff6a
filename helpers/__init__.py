"""The code behind the notebooks of "Transformer, step by step".

Layers, each importing only those above it in this list:

- display utilities, hand-written: ``notebook_setup``, ``shapes``, ``plots``;
- the model's parts and the model, generated from the notebooks by ``make export`` (each file says
  which notebook it comes from);
- the corpus generator, hand-written and standalone: ``corpus``;
- maintenance tools: ``helpers.devtools`` (exporter, notebook runner, freshness checks).
"""

from helpers.notebook_setup import pick_device, seed_everything, setup_notebook
from helpers.plots import plot_heatmap, plot_heatmap_grid
from helpers.shapes import shape_table, show_shapes, show_trace, trace_shapes
from helpers.torch_reference import TorchReferenceTransformer, to_torch_reference
from helpers.transformer import AttentionWeights, Transformer, TransformerConfig
from helpers.vocab import Vocab, make_batch, pad_sequences

__all__ = [
    "AttentionWeights",
    "TorchReferenceTransformer",
    "Transformer",
    "TransformerConfig",
    "Vocab",
    "make_batch",
    "pad_sequences",
    "to_torch_reference",
    "pick_device",
    "plot_heatmap",
    "plot_heatmap_grid",
    "seed_everything",
    "setup_notebook",
    "shape_table",
    "show_shapes",
    "show_trace",
    "trace_shapes",
]
