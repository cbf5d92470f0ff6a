"""``python -m helpers.train``: train a Transformer on one CPU, one GPU or many GPUs (torchrun).

Hand-written: the command. The library it runs is ``helpers.training`` (generated from notebook
11): the model, the loss and the schedule are those of ``helpers.model`` and ``helpers.training``;
this package adds what a long run needs around them.

- ``config``: TrainConfig, the model sizes by name (tiny, small, base, big), config files and flags;
- ``data``: the corpus of a run and its length-bucketed batches shared out between ranks;
- ``distributed``: ranks, devices and the process group (gloo on CPUs, nccl on GPUs);
- ``checkpoints``: save every K steps, resume from the latest, average the last n;
- ``loop``: the training loop (DDP, gradient accumulation, mixed precision, gradient clipping,
  torch.compile, CSV log);
- ``ablations``: ``make ablations``, the rows of the paper's Table 3 a CPU can afford;
- ``translation_as_lm``: ``make translation-lm``, notebook 16's decoder-only translation;
- ``modern_block``: ``make modern-block``, notebook 17's changes of the block, one at a time.

Usage::

    python -m helpers.train --model small --steps 2000 --tokens-per-batch 1500 --output runs/small
    torchrun --nproc_per_node=8 -m helpers.train --model base --output runs/base
    python -m helpers.train --output runs/base --resume
    python -m helpers.train average runs/base --last 5
"""
