"""How long an explorer (helpers.explore) takes to redraw after a control changes.

    python -m tools.benchmark.explorers [--rounds N]   # only the explorers (make bench times them too)

Besides short sentences of the corpus, a student types sentences the model cannot read: with
OUT_OF_VOCABULARY (three unknown words) greedy decoding runs to its length limit, so the new
sentence, and every redraw of its long decoder maps, is the slowest case a student meets.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from helpers.data.corpus import load_corpus
from tools.benchmark.report import _milliseconds, _yes, markdown_table

# ---------------------------------------------------------------- the explorers


EXPLORER_GOALS = {"update": 0.3, "new sentence": 1.0}
# Notebook 12's example of a sentence outside the corpus: "wo", "ist" and "bahnhof" become <unk>.
OUT_OF_VOCABULARY = "wo ist der bahnhof"


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
    from helpers.explore.sampling import explore_sampling
    from helpers.explore.schedule import explore_schedule
    from helpers.pretrained import load_pretrained

    model, src_vocab, tgt_vocab, _ = load_pretrained()
    shipped = (model, src_vocab, tgt_vocab)
    sentences = [german for german, _ in _test_pairs(rounds + 1)]
    kinds = ["encoder self", "decoder self", "cross"]
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
        # The same sentence in a fresh explorer each round: nothing cached, as when first typed.
        ("attention", "new sentence, 3 unknown words",
         lambda: explore_attention(*shipped, show=False), "sentence",
         [OUT_OF_VOCABULARY] * rounds, EXPLORER_GOALS["new sentence"]),
        ("attention", "kind, on that sentence (all heads)",
         explore_attention(*shipped, sentence=OUT_OF_VOCABULARY, show=False), "kind",
         [kinds[(1 + i) % 3] for i in range(rounds)], EXPLORER_GOALS["update"]),
        ("decoding", "step slider", explore_decoding(model, src_vocab, tgt_vocab, show=False),
         "step", [1 + i % 5 for i in range(rounds)], None),
        ("sampling", "top-p slider", explore_sampling(show=False), "top_p",
         [0.5 + 0.05 * (i % 10) for i in range(rounds)], EXPLORER_GOALS["update"]),
    ]  # fmt: skip
    timings = []
    for name, change, explorer, control, values, goal in cases:
        seconds = []
        for value in values:
            # A factory gives a fresh explorer per round (built, then timed on the change alone).
            shown = explorer() if callable(explorer) else explorer
            shown.update(**{control: value})
            seconds.append(shown.last_seconds)
        timings.append(ExplorerTiming(name, change, statistics.median(seconds), goal))
    return timings


def _test_pairs(count: int) -> list[tuple[str, str]]:

    return load_corpus("test")[:count]


def missed_explorer_goals(timings: Sequence[ExplorerTiming]) -> list[str]:
    """One line per explorer change slower than its goal (none when every goal is met)."""
    return [
        f"goal missed: {t.explorer}, {t.change}: {_milliseconds(t.seconds)} "
        f"(goal <= {_milliseconds(t.goal)})"
        for t in timings
        if t.goal is not None and t.seconds > t.goal
    ]


def explorers_table(timings: Sequence[ExplorerTiming]) -> str:
    rows = [
        [t.explorer, t.change, _milliseconds(t.seconds),
         "-" if t.goal is None else f"<= {_milliseconds(t.goal)}",
         "-" if t.goal is None else _yes(t.seconds <= t.goal)]
        for t in timings
    ]  # fmt: skip
    return markdown_table(["explorer", "change", "median update", "goal", "met"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Time only the explorers: their table, then a "goal missed" line for each goal missed."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m tools.benchmark.explorers",
        description="How long each explorer takes to redraw after a control changes.",
    )
    parser.add_argument("--rounds", type=int, default=7, help="timed changes per case (default 7)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds: expected a positive int, got {args.rounds}")
    timings = bench_explorers(args.rounds)
    print(explorers_table(timings))
    for line in missed_explorer_goals(timings):
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
