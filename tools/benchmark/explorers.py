"""How long an explorer (helpers.explore) takes to redraw after a control changes."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from helpers.data.corpus import load_corpus
from tools.benchmark.report import _milliseconds, _yes, markdown_table

# ---------------------------------------------------------------- the explorers


EXPLORER_GOALS = {"update": 0.3, "new sentence": 1.0}


@dataclass(frozen=True)
class ExplorerTiming:
    """The median time of one kind of change in one explorer (figure drawn, PNG encoded)."""

    explorer: str
    change: str
    seconds: float
    goal: float | None


def bench_explorers(rounds: int) -> list[ExplorerTiming]:
    """Median seconds per update of each explorer, as a student's slider or text box causes it.

    With one torch thread, as in the notebooks (``setup_notebook``): the explorers' models are
    small, and a second thread only adds start-up and contention costs.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _time_explorers(rounds)
    finally:
        torch.set_num_threads(threads)


def _time_explorers(rounds: int) -> list[ExplorerTiming]:
    import matplotlib

    matplotlib.use("Agg")
    from helpers.explore.attention import explore_attention
    from helpers.explore.decoding import explore_decoding
    from helpers.explore.masks import explore_masks
    from helpers.explore.positions import explore_positions
    from helpers.explore.schedule import explore_schedule
    from helpers.pretrained import load_pretrained

    model, src_vocab, tgt_vocab, _ = load_pretrained()
    sentences = [german for german, _ in _test_pairs(rounds + 1)]
    cases = [
        ("schedule", "warm-up slider", explore_schedule(show=False), "warmup_steps",
         [1000 + 100 * i for i in range(rounds)], EXPLORER_GOALS["update"]),
        ("positions", "offset slider", explore_positions(show=False), "offset",
         [1 + i for i in range(rounds)], None),
        ("masks", "padding slider", explore_masks(show=False), "src_pad",
         [i % 5 for i in range(rounds)], None),
        ("attention", "head", explore_attention(model, src_vocab, tgt_vocab, show=False), "head",
         [i % model.config.n_heads for i in range(rounds)], EXPLORER_GOALS["update"]),
        ("attention", "layer, all heads", explore_attention(model, src_vocab, tgt_vocab, show=False),
         "layer", [i % model.config.n_layers for i in range(rounds)], EXPLORER_GOALS["update"]),
        ("attention", "new sentence (translated)", explore_attention(model, src_vocab, tgt_vocab, show=False),
         "sentence", sentences[1:], EXPLORER_GOALS["new sentence"]),
        ("decoding", "step slider", explore_decoding(model, src_vocab, tgt_vocab, show=False),
         "step", [1 + i % 5 for i in range(rounds)], None),
    ]  # fmt: skip
    timings = []
    for name, change, explorer, control, values, goal in cases:
        seconds = []
        for value in values:
            explorer.update(**{control: value})
            seconds.append(explorer.last_seconds)
        timings.append(ExplorerTiming(name, change, statistics.median(seconds), goal))
    return timings


def _test_pairs(count: int) -> list[tuple[str, str]]:

    return load_corpus("test")[:count]


def explorers_table(timings: Sequence[ExplorerTiming]) -> str:
    rows = [
        [t.explorer, t.change, _milliseconds(t.seconds),
         "-" if t.goal is None else f"<= {_milliseconds(t.goal)}",
         "-" if t.goal is None else _yes(t.seconds <= t.goal)]
        for t in timings
    ]  # fmt: skip
    return markdown_table(["explorer", "change", "median update", "goal", "met"], rows)
