"""What is measured against what, and how: the goals, the model sizes, alternating rounds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from helpers.model.transformer import TransformerConfig
from helpers.model_sizes import MODEL_SIZES
from helpers.text.vocab import Vocab

# Goals (the project's issue): ours at least as fast as PyTorch's layers, the cache 3x faster,
# the whole suite in 6 minutes and 3 GB on a 2-core CPU, each notebook well under 30 s, except
# notebook 11, whose training run may take up to two minutes (issue 5), and notebook 15, which reads
# the real dictionary, learns its BPE and trains for about two minutes (issue 16: "a few minutes").
TRAINING_GOAL = 1.0
DECODING_GOAL = 3.0
BEAM_GOAL = 1.5  # every sentence's beams in one batch, against one sentence at a time
SUITE_SECONDS_GOAL = 360.0
SUITE_BYTES_GOAL = 3 * 1024**3
NOTEBOOK_SECONDS_GOAL = 30.0
# 11, 16 and 17 train a model in the notebook, 15 reads and trains on the real dictionary.
NOTEBOOK_SECONDS_GOALS = {
    "11_training": 120.0,
    "15_real_german": 180.0,
    "16_decoder_only_language_model": 90.0,
    "17_modern_block": 60.0,
}


def notebook_seconds_goal(notebook: str | Path) -> float:
    """The time goal of a notebook, given by its stem or path: 30 s, or its own where it has one."""
    return NOTEBOOK_SECONDS_GOALS.get(Path(notebook).stem, NOTEBOOK_SECONDS_GOAL)


# Special ids of the synthetic batches: those of every vocabulary of the series.
PAD_ID, BOS_ID, EOS_ID = Vocab.pad_id, Vocab.bos_id, Vocab.eos_id


@dataclass(frozen=True)
class BenchConfig:
    """A model size and the batch it is measured on."""

    name: str
    d_model: int
    n_heads: int
    n_layers: int
    d_ff: int
    vocab_size: int
    batch: int  # training batch: sentences
    length: int  # training batch: tokens per source and per target sentence
    decode_batch: int  # sentences decoded together
    dropout: float = 0.1

    def model_config(self) -> TransformerConfig:
        return TransformerConfig(
            src_vocab_size=self.vocab_size,
            tgt_vocab_size=self.vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_layers=self.n_layers,
            dropout=self.dropout,
            pad_id=PAD_ID,
        )

    def describe(self) -> str:
        return (
            f"{self.name}: d_model={self.d_model}, {self.n_heads} heads, {self.n_layers}+"
            f"{self.n_layers} layers, d_ff={self.d_ff}, vocab {self.vocab_size}, dropout "
            f"{self.dropout}; training batch {self.batch} x {self.length} tokens, decoding "
            f"batch {self.decode_batch}"
        )


def sized(name: str, **batch: int) -> BenchConfig:
    """One of helpers.model_sizes.MODEL_SIZES, with a vocabulary of 1,000 and the given batch."""
    return BenchConfig(name, **MODEL_SIZES[name], vocab_size=1000, **batch)


SMALL = sized("small", batch=64, length=24, decode_batch=32)
BASE = sized("base", batch=8, length=16, decode_batch=4)


# ---------------------------------------------------------------- measuring


def alternate(
    sides: dict[str, Callable[[], object]],
    rounds: int,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Call the sides in turn (A B A B ...): ``warmup`` untimed rounds, then ``rounds`` timed ones.

    Returns each side's durations in seconds, in call order. Alternating, rather than timing all
    of A and then all of B, spreads a change of machine load over both sides.
    """
    if not sides:
        raise ValueError("sides: expected at least one name -> callable, got none")
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds: expected a positive int, got {rounds!r}")
    if not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup: expected a non-negative int, got {warmup!r}")
    for _ in range(warmup):
        for function in sides.values():
            function()
    durations: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, function in sides.items():
            start = clock()
            function()
            durations[name].append(clock() - start)
    return durations


def speed_ratio(fast_side: list[float], slow_side: list[float]) -> float:
    """median(slow_side) / median(fast_side): how many times more work fast_side does per second."""
    if not fast_side or not slow_side:
        raise ValueError("fast_side, slow_side: expected at least one duration each")
    return statistics.median(slow_side) / statistics.median(fast_side)
