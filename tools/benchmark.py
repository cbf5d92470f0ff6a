"""How fast is the from-scratch model, and how long and how much memory does the test suite take?

    python -m tools.benchmark             # training step and decoding, small + base config
    python -m tools.benchmark --quick     # a smoke run: small config, fewer rounds
    python -m tools.benchmark --suite     # also `make test` and each notebook (minutes)
    python -m tools.benchmark --notebooks # only each notebook under nbval (minutes)
    python -m tools.benchmark --profile   # also show where one training step spends its time

Three comparisons, each run in this one process with the two sides alternating (A B A B ...) so
that a change of machine load hits both alike; each side's time is the median over the rounds:

- a training step (forward, backward, Adam step) of ``helpers.Transformer`` against
  ``helpers.to_torch_reference`` of the same model: same weights, same dropout, train mode.
  Ratio: throughput of ours / throughput of PyTorch's layers (goal >= 1.0);
- greedy decoding of 64 tokens with the key/value cache against re-running the decoder on the
  whole prefix at every step (goal >= 3x faster, and the same tokens: asserted);
- byte-pair encoding (notebook 14): learning the merges from the corpus' training sentences, and
  encoding them, ``helpers.train_bpe`` against Hugging Face ``tokenizers`` (Rust, all cores) with
  the same merges (asserted), so the same pieces (asserted). No goal: the ratio says how much
  slower a from-scratch Python BPE is;
- with ``--suite``: wall time and peak memory of the test suite (``pytest -n 2 --dist loadscope``,
  as ``make test`` runs it) and of each notebook under nbval, measured on the process tree.

``--suite`` and ``--notebooks`` also write each notebook's time to docs/notebook_run_times.json,
which the teacher's page of the docs site (``make docs``) shows as the time to run it. A notebook
that fails keeps the time it had there (its date is then listed under "older_times"); when no
notebook passes, the file is left as it was.

The output is a markdown table ready to paste into the README, with the command and the machine.
Timings depend on the machine and its load: compare ratios, not milliseconds. This is not part of
``make test``; tests/test_benchmark.py checks the building blocks without timing anything.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from helpers.data.corpus import load_corpus
from helpers.model.torch_reference import to_torch_reference
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.paths import ROOT, numbered_notebooks
from helpers.pipeline.decoding import greedy_decode

if TYPE_CHECKING:
    from tools.docs import RunTimes

RUN_TIMES = ROOT / "docs" / "notebook_run_times.json"

# Goals (the project's issue): ours at least as fast as PyTorch's layers, the cache 3x faster,
# the whole suite in 6 minutes and 3 GB on a 2-core CPU, each notebook well under 30 s, except
# notebook 11, whose training run may take up to two minutes (issue 5).
TRAINING_GOAL = 1.0
DECODING_GOAL = 3.0
BEAM_GOAL = 1.5  # every sentence's beams in one batch, against one sentence at a time
SUITE_SECONDS_GOAL = 360.0
SUITE_BYTES_GOAL = 3 * 1024**3
NOTEBOOK_SECONDS_GOAL = 30.0
NOTEBOOK_SECONDS_GOALS = {"11_training": 120.0}


def notebook_seconds_goal(notebook: str | Path) -> float:
    """The time goal of a notebook, given by its stem or path: 30 s, or its own where it has one."""
    return NOTEBOOK_SECONDS_GOALS.get(Path(notebook).stem, NOTEBOOK_SECONDS_GOAL)


# Special ids of the synthetic batches: 0 is padding, 1 is <s>, 2 is </s> (as in helpers.text.vocab).
PAD_ID, BOS_ID, EOS_ID = 0, 1, 2


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


SMALL = BenchConfig("small", 128, 4, 2, 512, 1000, batch=64, length=24, decode_batch=32)
BASE = BenchConfig("base", 512, 8, 6, 2048, 1000, batch=8, length=16, decode_batch=4)


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


# ---------------------------------------------------------------- training step


def synthetic_batch(
    config: BenchConfig, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """src, tgt_input, tgt_output: (batch, length) ids of real tokens (no padding), reproducible."""
    generator = torch.Generator().manual_seed(seed)
    shape = (config.batch, config.length)
    src = torch.randint(EOS_ID + 1, config.vocab_size, shape, generator=generator)
    tgt_output = torch.randint(EOS_ID + 1, config.vocab_size, shape, generator=generator)
    tgt_input = torch.cat([torch.full_like(tgt_output[:, :1], BOS_ID), tgt_output[:, :-1]], dim=1)
    return src, tgt_input, tgt_output


def training_pair(config: BenchConfig, seed: int = 0) -> tuple[Transformer, nn.Module]:
    """Our Transformer and PyTorch's version of it with the same weights, both in train mode."""
    torch.manual_seed(seed)
    ours = Transformer(config.model_config()).train()
    return ours, to_torch_reference(ours)


def training_step(
    model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor], lr: float = 1e-4
) -> Callable[[], float]:
    """A function doing one training step (forward, cross-entropy, backward, Adam) per call.

    It returns the loss before the step. The optimizer is made once, outside the timed calls.
    """
    src, tgt_input, tgt_output = batch
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)

    def step() -> float:
        logits = model(src, tgt_input)
        loss = F.cross_entropy(logits.flatten(0, 1), tgt_output.flatten(), ignore_index=PAD_ID)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


@dataclass(frozen=True)
class Comparison:
    """One row of the results: two sides' median seconds and the speed ratio of the first."""

    measurement: str
    config: str
    first: str
    first_seconds: float
    second: str
    second_seconds: float
    ratio: float
    goal: float | None  # None: shown for information, no goal

    @property
    def met(self) -> bool | None:
        return None if self.goal is None else self.ratio >= self.goal


def bench_training(config: BenchConfig, rounds: int, warmup: int = 2) -> Comparison:
    """Training steps per second of ours / of the reference (same weights, same dropout)."""
    ours, reference = training_pair(config)
    batch = synthetic_batch(config)
    durations = alternate(
        {"ours": training_step(ours, batch), "reference": training_step(reference, batch)},
        rounds,
        warmup,
    )
    return Comparison(
        "training step (forward, backward, Adam)",
        config.name,
        "ours",
        statistics.median(durations["ours"]),
        "nn.Transformer layers",
        statistics.median(durations["reference"]),
        speed_ratio(durations["ours"], durations["reference"]),
        TRAINING_GOAL,
    )


# ---------------------------------------------------------------- decoding


def decoding_setup(config: BenchConfig, seed: int = 0) -> tuple[Transformer, torch.Tensor]:
    """An untrained model that never produces </s>, and a source batch (decode_batch, length).

    </s>'s row of the output projection is set to zero: its logit is exactly 0, while the largest
    of the other logits is positive, so greedy decoding always runs the full number of steps
    (``bench_decoding`` asserts it). Padding and <s> are never produced (forbid_special_tokens).
    """
    torch.manual_seed(seed)
    model = Transformer(config.model_config()).eval()
    with torch.no_grad():
        model.output_projection.weight[EOS_ID].zero_()
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(
        EOS_ID + 1, config.vocab_size, (config.decode_batch, config.length), generator=generator
    )
    return model, src


def decode_both_ways(
    model: Transformer, src: torch.Tensor, steps: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy tokens (batch, steps) with and without the KV cache; raises if they differ."""
    cached = greedy_decode(model, src, max_len=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=True)
    uncached = greedy_decode(
        model, src, max_len=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=False
    )
    if cached.shape != (src.shape[0], steps):
        raise AssertionError(
            f"decoding stopped early: expected {steps} tokens per row, got shape {tuple(cached.shape)}"
        )
    if not torch.equal(cached, uncached):
        raise AssertionError("greedy decoding with and without the KV cache gave different tokens")
    return cached, uncached


def bench_decoding(
    config: BenchConfig,
    rounds: int,
    steps: int = 64,
    warmup: int = 0,
    goal: float | None = DECODING_GOAL,
) -> Comparison:
    """Greedy decoding of ``steps`` tokens: speed with the KV cache / without it.

    Both ways run once before the timed rounds (to assert that they agree), which warms them up.
    """
    model, src = decoding_setup(config)
    decode_both_ways(model, src, steps)  # same tokens, full length: asserted before timing
    durations = alternate(
        {
            "cache": lambda: greedy_decode(
                model, src, max_len=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=True
            ),
            "no cache": lambda: greedy_decode(
                model, src, max_len=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=False
            ),
        },
        rounds,
        warmup,
    )
    return Comparison(
        f"greedy decoding, {steps} tokens x {config.decode_batch} "
        + ("sentence" if config.decode_batch == 1 else "sentences"),
        config.name,
        "KV cache",
        statistics.median(durations["cache"]),
        "no cache",
        statistics.median(durations["no cache"]),
        speed_ratio(durations["cache"], durations["no cache"]),
        goal,
    )


def decoding_cases(quick: bool) -> list[tuple[BenchConfig, float | None]]:
    """The decoding comparisons: (config, goal or None for a row shown for information).

    One sentence at a time on the small model is shown without a goal: each step then costs
    mostly Python and operator-dispatch overhead (a few milliseconds), which a cache cannot
    remove, so the ratio says little about the cache. A batch of sentences is where the
    recomputed prefix costs real work.
    """
    cases = [(SMALL, DECODING_GOAL), (replace(SMALL, decode_batch=1), None)]
    return cases if quick else [*cases, (BASE, DECODING_GOAL)]


def bench_beam_search(rounds: int, sentences: int = 32, warmup: int = 0) -> Comparison:
    """Beam search (beam 4) of the shipped model on test sentences: every sentence's beams in one
    batch / one sentence at a time. Both give the same translations (asserted)."""
    from helpers.data.corpus import load_corpus
    from helpers.pipeline.decoding import translate
    from helpers.pretrained import load_pretrained

    model, src_vocab, tgt_vocab, _ = load_pretrained()
    german = [source for source, _ in load_corpus("test")[:sentences]]

    def batched() -> list[str]:
        return translate(model, german, src_vocab, tgt_vocab, beam_size=4)

    def one_at_a_time() -> list[str]:
        return [translate(model, [s], src_vocab, tgt_vocab, beam_size=4)[0] for s in german]

    if batched() != one_at_a_time():
        raise AssertionError("batched beam search and one sentence at a time gave different output")
    durations = alternate({"batched": batched, "one at a time": one_at_a_time}, rounds, warmup)
    return Comparison(
        f"beam search (beam 4), {sentences} test sentences",
        "shipped",
        "one batch",
        statistics.median(durations["batched"]),
        "one sentence at a time",
        statistics.median(durations["one at a time"]),
        speed_ratio(durations["batched"], durations["one at a time"]),
        BEAM_GOAL,
    )


# ---------------------------------------------------------------- byte-pair encoding


DICTIONARY = Path("/usr/share/trans/de-en")  # TU Chemnitz "Ding": `apt-get install trans-de-en`
_ANNOTATION = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)")


def dictionary_phrases(remainder: int, every: int = 40, path: Path = DICTIONARY) -> list[str]:
    """Phrases of the German-English dictionary, read in place (it is GPL: never copy it).

    Only the entries on lines whose number % every == remainder; both languages; without the
    {m} [Am.] (...) annotations; one phrase per sense (senses are split at | and ;).
    """
    phrases = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number % every != remainder or line.startswith("#") or " :: " not in line:
                continue
            for side in line.rstrip("\n").split(" :: ", 1):
                for phrase in re.split(r"[|;]", _ANNOTATION.sub(" ", side)):
                    if phrase.split():
                        phrases.append(" ".join(phrase.split()))
    return phrases


def bench_bpe(
    rounds: int, texts: Sequence[str], data: str, vocab_size: int = 1000
) -> list[Comparison]:
    """Learning BPE merges and encoding with them: ours / Hugging Face tokenizers, same merges."""
    import json as json_module

    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from helpers.text.bpe import (
        END_OF_WORD,
        BPETokenizer,
        starting_pieces,
        train_bpe,
        word_frequencies,
    )

    texts = list(texts)

    def train_theirs() -> Tokenizer:
        tokenizer = Tokenizer(models.BPE(end_of_word_suffix=END_OF_WORD))
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=2,
            end_of_word_suffix=END_OF_WORD,
            show_progress=False,
        )
        tokenizer.train_from_iterator(texts, trainer)
        return tokenizer

    theirs = train_theirs()
    model = json_module.loads(theirs.to_str())["model"]
    their_order = sorted(model["vocab"], key=model["vocab"].get)
    # Their tie order of the starting pieces, so that both sides learn the very same merges.
    tie_order = their_order[: len(starting_pieces(word_frequencies(texts)))]
    ours = train_bpe(texts, vocab_size, tie_order=tie_order)
    if ours.merges != [tuple(pair) for pair in model["merges"]]:
        raise AssertionError("train_bpe and tokenizers learned different merges")

    # tokenizers has no byte fallback here: it drops characters never seen, so only texts made
    # of known characters can be compared piece for piece (all of them, on the series' corpus).
    known = [text for text in texts if set(text) <= ours.characters | {" "}]

    def encode_ours() -> list[list[str]]:
        fresh = BPETokenizer(ours.pieces, ours.merges)  # an empty cache of split words
        return [fresh.encode(text) for text in known]

    def encode_theirs() -> list[list[str]]:
        return [encoding.tokens for encoding in theirs.encode_batch(known)]

    if encode_ours() != encode_theirs():
        raise AssertionError("train_bpe and tokenizers split the sentences differently")
    learning = alternate(
        {"ours": lambda: train_bpe(texts, vocab_size, tie_order=tie_order), "theirs": train_theirs},
        rounds,
    )
    encoding = alternate({"ours": encode_ours, "theirs": encode_theirs}, rounds)
    return [
        Comparison(
            f"BPE: learning the merges ({len(texts):,} texts, vocab_size {vocab_size})",
            data,
            "train_bpe",
            statistics.median(learning["ours"]),
            "tokenizers",
            statistics.median(learning["theirs"]),
            speed_ratio(learning["ours"], learning["theirs"]),
            None,
        ),
        Comparison(
            f"BPE: encoding ({len(known):,} texts)",
            data,
            "BPETokenizer.encode",
            statistics.median(encoding["ours"]),
            "tokenizers encode_batch",
            statistics.median(encoding["theirs"]),
            speed_ratio(encoding["ours"], encoding["theirs"]),
            None,
        ),
    ]


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
    from helpers.data.corpus import load_corpus

    return load_corpus("test")[:count]


def explorers_table(timings: Sequence[ExplorerTiming]) -> str:
    rows = [
        [t.explorer, t.change, _milliseconds(t.seconds),
         "-" if t.goal is None else f"<= {_milliseconds(t.goal)}",
         "-" if t.goal is None else _yes(t.seconds <= t.goal)]
        for t in timings
    ]  # fmt: skip
    return markdown_table(["explorer", "change", "median update", "goal", "met"], rows)


# ---------------------------------------------------------------- where the time goes


def profile_training(config: BenchConfig, rows: int = 12) -> str:
    """torch.profiler tables (top operators by self CPU time) of one training step of each side."""
    ours, reference = training_pair(config)
    batch = synthetic_batch(config)
    parts = []
    for name, model in (("ours", ours), ("nn.Transformer layers", reference)):
        step = training_step(model, batch)
        step()  # warm up outside the profile
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
            step()
        table = profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)
        parts.append(f"{name}, one training step, {config.name} config:\n{table}")
    return "\n".join(parts)


# ---------------------------------------------------------------- process trees


def _children_by_parent() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        # The command name (field 2) is in parentheses and may contain spaces: split after it.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def process_tree(root: int) -> list[int]:
    """root and all its descendants that are alive now (Linux /proc)."""
    children = _children_by_parent()
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def _kib_field(path: Path, field: str) -> int:
    """A "Field:   1234 kB" line of a /proc file, in bytes; 0 if the process is gone."""
    try:
        for line in path.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_memory(root: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes summed over the process tree of root.

    RSS counts a page shared by several processes (the torch library, loaded by every pytest
    worker and kernel) once per process; PSS splits it between them, so the PSS sum is the
    memory the tree really occupies. PSS is 0 where /proc/PID/smaps_rollup cannot be read.
    """
    rss = pss = 0
    for pid in process_tree(root):
        rss += _kib_field(Path(f"/proc/{pid}/status"), "VmRSS")
        pss += _kib_field(Path(f"/proc/{pid}/smaps_rollup"), "Pss")
    return rss, pss


@dataclass(frozen=True)
class RunResult:
    """A command's exit status, wall time and peak memory summed over its process tree."""

    command: str
    returncode: int
    seconds: float
    peak_rss: int
    peak_pss: int

    @property
    def peak_bytes(self) -> int:
        """The memory the goal is checked against: PSS where available, else RSS."""
        return self.peak_pss or self.peak_rss


def run_and_measure(
    command: Sequence[str], cwd: Path = ROOT, poll_seconds: float = 0.2
) -> RunResult:
    """Run command, polling the memory of its process tree, and return its time and peaks."""
    if not Path("/proc/self/status").exists():
        raise RuntimeError("measuring a process tree's memory needs Linux /proc")
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peaks = [0, 0]
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            rss, pss = tree_memory(process.pid)
            peaks[0], peaks[1] = max(peaks[0], rss), max(peaks[1], pss)
            done.wait(poll_seconds)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    returncode = process.wait()
    seconds = time.perf_counter() - start
    done.set()
    poller.join()
    return RunResult(" ".join(command), returncode, seconds, peaks[0], peaks[1])


def bench_suite() -> RunResult:
    """The whole test suite as `make test` runs it (after setup)."""
    return run_and_measure([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadscope"])


def notebook_paths() -> list[Path]:
    """The numbered notebooks of the series, in order."""
    return numbered_notebooks()


def bench_notebooks(paths: Sequence[Path] | None = None) -> list[RunResult]:
    """Each notebook alone under strict nbval."""
    paths = notebook_paths() if paths is None else list(paths)
    return [
        run_and_measure([sys.executable, "-m", "pytest", "-q", str(path.relative_to(ROOT))])
        for path in paths
    ]


def run_times_record(
    command: str,
    info: dict[str, str],
    paths: Sequence[Path],
    results: Sequence[RunResult],
    date: datetime.date | None = None,
    previous: RunTimes | None = None,
) -> dict:
    """What docs/notebook_run_times.json holds after this run, merged with what it held before.

    {"command": ..., "machine": ..., "date": "YYYY-MM-DD", "seconds": {"00_overview": 5.2, ...}},
    command, machine and date being this run's. A notebook that passed gets this run's time. One
    that failed keeps its time in previous (the record before this run, if it has one): a failed
    run's time says nothing about a working notebook. Such older times are listed, with the date
    they were measured on, in "older_times": {"11_training": "2026-11-23"}, a key present only
    when there are some. A failed notebook without an earlier time is left out, and the teacher's
    page shows it as "not measured"; so are notebooks of previous that are not in paths.
    """
    if len(paths) != len(results):
        raise ValueError(
            f"paths, results: expected one result per notebook, got {len(paths)} paths and "
            f"{len(results)} results"
        )
    date = datetime.date.today() if date is None else date
    seconds: dict[str, float] = {}
    older_times: dict[str, str] = {}
    for path, result in zip(paths, results, strict=True):
        stem = Path(path).stem
        if result.returncode == 0:
            seconds[stem] = round(result.seconds, 1)
        elif previous is not None and stem in previous.seconds:
            seconds[stem] = previous.seconds[stem]
            older_times[stem] = previous.older_times.get(stem, previous.date)
    record = {
        "command": command,
        # The notebooks' kernels set their own thread count: the benchmark's is beside the point.
        "machine": ", ".join(f"{k} {v}" for k, v in info.items() if k != "torch threads"),
        "date": date.isoformat(),
        "seconds": seconds,
    }
    if older_times:
        record["older_times"] = older_times
    return record


def write_run_times(record: dict, path: Path | None = None) -> Path:
    """Write the record as JSON, by default to docs/notebook_run_times.json; returns the path."""
    path = RUN_TIMES if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- reporting


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub markdown table."""
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"rows: expected {len(header)} cells per row like the header")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_info() -> dict[str, str]:
    """What the timings depend on: CPU, cores, threads, versions and the load when they began."""
    try:
        load = Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        load = "unknown"
    return {
        "CPU": _cpu_model(),
        "cores": str(os.cpu_count()),
        "torch threads": str(torch.get_num_threads()),
        "torch": torch.__version__,
        "Python": platform.python_version(),
        "load average (1 min) at start": load,
    }


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:.1f} ms"


def _yes(ok: bool) -> str:
    return "yes" if ok else "**no**"


def comparisons_table(comparisons: Sequence[Comparison]) -> str:
    rows = [
        [
            c.measurement,
            c.config,
            f"{c.first}: {_milliseconds(c.first_seconds)}",
            f"{c.second}: {_milliseconds(c.second_seconds)}",
            f"{c.ratio:.2f}x",
            "-" if c.goal is None else f">= {c.goal:.1f}x",
            "-" if c.met is None else _yes(c.met),
        ]
        for c in comparisons
    ]
    header = ["measurement", "config", "A (median)", "B (median)", "speed A / B", "goal", "met"]
    return markdown_table(header, rows)


def runs_table(suite: RunResult | None, notebooks: Sequence[tuple[Path, RunResult]]) -> str:
    """The table of the suite's run (if any) and of each (notebook path, its run)."""
    rows = []
    for result, seconds_goal, bytes_goal in [(suite, SUITE_SECONDS_GOAL, SUITE_BYTES_GOAL)] + [
        (notebook, notebook_seconds_goal(path), None) for path, notebook in notebooks
    ]:
        if result is None:
            continue
        ok = result.returncode == 0 and result.seconds <= seconds_goal
        goal = f"<= {seconds_goal:.0f} s"
        if bytes_goal is not None:
            ok = ok and result.peak_bytes <= bytes_goal
            goal += f", <= {bytes_goal / 1024**3:.0f} GB"
        rows.append(
            [
                f"`{result.command.replace(sys.executable, 'python')}`",
                "passed" if result.returncode == 0 else f"**failed ({result.returncode})**",
                f"{result.seconds:.1f} s",
                f"{result.peak_pss / 1024**2:,.0f} MB" if result.peak_pss else "n/a",
                f"{result.peak_rss / 1024**2:,.0f} MB",
                goal,
                _yes(ok),
            ]
        )
    header = ["command", "result", "wall time", "peak PSS (tree)", "peak RSS (tree)", "goal", "met"]
    return markdown_table(header, rows)


def report(
    command: str,
    info: dict[str, str],
    configs: Sequence[BenchConfig],
    comparisons: Sequence[Comparison],
    suite: RunResult | None = None,
    notebooks: Sequence[tuple[Path, RunResult]] = (),
) -> str:
    """The markdown block to paste into the README; notebooks: (notebook path, its run)."""
    lines = [
        "### Benchmark",
        "",
        f"Produced by `{command}` on: "
        + "; ".join(f"{key} {value}" for key, value in info.items())
        + ".",
        "",
        "Configs: " + " / ".join(config.describe() for config in configs) + ".",
        "",
        comparisons_table(comparisons),
        "",
        "Training: same weights and dropout 0.1 on both sides, train mode; A / B > 1 means ours "
        "does more steps per second. Decoding: an untrained model whose </s> logit is fixed at 0, "
        "so every row runs all the steps; both ways give identical tokens (asserted); one sentence "
        "on the small model is overhead-bound and shown without a goal. BPE: the corpus' German and "
        "English training sentences (834 distinct words) and, where trans-de-en is installed, the "
        "phrases of every 40th dictionary entry (tens of thousands of distinct words); both sides "
        "learn the same merges and give the same pieces (asserted); tokenizers is Rust on every "
        "core, ours pure Python. Each time is the median of "
        "alternating rounds in one process.",
    ]
    if suite is not None or notebooks:
        lines += [
            "",
            runs_table(suite, notebooks),
            "",
            "Peak memory is summed over the process tree (pytest, its workers, the notebook "
            "kernels), polled every 0.2 s; PSS counts shared pages once, RSS once per process. "
            "The memory goal is checked on PSS.",
        ]
    return "\n".join(lines)


def _previous_run_times(path: Path) -> RunTimes | None:
    """The record in path before this run; None (with a warning) if there is none or it is bad."""
    from tools.docs import load_run_times  # imports nbconvert: only when needed

    try:
        return load_run_times(path)
    except ValueError as error:
        print(f"warning: earlier run times not kept: {error}", file=sys.stderr)
        return None


def _save_run_times(
    command: str, info: dict[str, str], paths: Sequence[Path], results: Sequence[RunResult]
) -> Path | None:
    """Merge this run's notebook times into RUN_TIMES and say what was written and kept.

    Nothing is written when no notebook passed. Returns the path written, or None.
    """
    path = RUN_TIMES
    failed = [Path(p).stem for p, r in zip(paths, results, strict=True) if r.returncode != 0]
    if len(failed) == len(results):
        print(
            f"notebook run times not written: no notebook passed; {path} is left as it was",
            file=sys.stderr,
        )
        return None
    record = run_times_record(command, info, paths, results, previous=_previous_run_times(path))
    written = write_run_times(record, path)
    older = record.get("older_times", {})
    notes = []
    if older:
        notes.append(
            "kept the earlier time of the notebooks that failed: "
            + ", ".join(f"{stem} (from {date})" for stem, date in older.items())
        )
    if missing := [stem for stem in failed if stem not in older]:
        notes.append(f"left out, because they failed and had no earlier time: {', '.join(missing)}")
    print(
        f"notebook run times written to {written}" + "".join(f"; {note}" for note in notes),
        file=sys.stderr,
    )
    return written


def time_notebooks_only(command: str, info: dict[str, str]) -> int:
    """--notebooks: each notebook alone under nbval, a table, and docs/notebook_run_times.json."""
    print("timing each notebook alone under nbval ...", file=sys.stderr, flush=True)
    paths = notebook_paths()
    results = bench_notebooks(paths)
    _save_run_times(command, info, paths, results)
    print(
        f"Produced by `{command}` on: "
        + "; ".join(f"{key} {value}" for key, value in info.items())
        + ".\n\n"
        + runs_table(None, list(zip(paths, results, strict=True)))
    )
    return 0 if all(result.returncode == 0 for result in results) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.benchmark", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small config only, fewer rounds")
    parser.add_argument(
        "--suite", action="store_true", help="also time the test suite and each notebook (minutes)"
    )
    parser.add_argument(
        "--notebooks",
        action="store_true",
        help="only time each notebook under nbval and write docs/notebook_run_times.json "
        "(no other option applies)",
    )
    parser.add_argument("--profile", action="store_true", help="profile one training step")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per comparison")
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    args = parser.parse_args(argv)
    if args.notebooks:
        # --notebooks only runs the notebooks (in their own kernels, with their own threads):
        # any other option would be silently ignored.
        ignored = [
            option
            for option, given in (
                ("--quick", args.quick),
                ("--suite", args.suite),
                ("--profile", args.profile),
                ("--rounds", args.rounds is not None),
                ("--threads", args.threads is not None),
            )
            if given
        ]
        if ignored:
            parser.error(
                f"--notebooks cannot be combined with {', '.join(ignored)}: it only times each "
                "notebook and would ignore every other option (--suite without --notebooks times "
                "the notebooks along with everything else)"
            )
    if args.threads is not None:
        if args.threads < 1:
            parser.error(f"--threads: expected a positive int, got {args.threads}")
        torch.set_num_threads(args.threads)
    command = "python -m tools.benchmark" + "".join(
        f" {arg}" for arg in (argv if argv is not None else sys.argv[1:])
    )
    info = machine_info()
    if args.notebooks:
        return time_notebooks_only(command, info)
    configs = [SMALL] if args.quick else [SMALL, BASE]
    rounds = args.rounds or (3 if args.quick else 7)
    comparisons = []
    for config in configs:
        print(f"timing training steps, {config.name} config ...", file=sys.stderr, flush=True)
        comparisons.append(bench_training(config, rounds))
    print("timing beam search, one batch / one sentence at a time ...", file=sys.stderr, flush=True)
    comparisons.append(bench_beam_search(min(rounds, 3), sentences=8 if args.quick else 32))
    print("timing byte-pair encoding, ours / tokenizers ...", file=sys.stderr, flush=True)
    corpus = [
        sentence
        for pair in load_corpus("train")[: 5_000 if args.quick else None]
        for sentence in pair
    ]
    comparisons.extend(bench_bpe(min(rounds, 3), corpus, "series' corpus"))
    if DICTIONARY.exists() and not args.quick:
        print("timing byte-pair encoding on the dictionary ...", file=sys.stderr, flush=True)
        comparisons.extend(
            bench_bpe(min(rounds, 3), dictionary_phrases(0), "dictionary 1/40", 1500)
        )
    for config, goal in decoding_cases(quick=args.quick):
        print(f"timing greedy decoding, {config.name} config ...", file=sys.stderr, flush=True)
        # Decoding the base model without a cache takes seconds per call: fewer rounds.
        config_rounds = rounds if config.name == SMALL.name else min(rounds, 3)
        comparisons.append(bench_decoding(config, config_rounds, goal=goal))
    suite, notebooks = None, []
    if args.suite:
        print("timing the test suite (minutes) ...", file=sys.stderr, flush=True)
        suite = bench_suite()
        print("timing each notebook alone under nbval ...", file=sys.stderr, flush=True)
        paths = notebook_paths()
        results = bench_notebooks(paths)
        _save_run_times(command, info, paths, results)
        notebooks = list(zip(paths, results, strict=True))
    print("timing the explorers' updates ...", file=sys.stderr, flush=True)
    explorer_timings = bench_explorers(rounds)
    print(report(command, info, configs, comparisons, suite, notebooks))
    print("\n" + explorers_table(explorer_timings))
    if args.profile:
        print("\n" + profile_training(SMALL))
    if any(comparison.met is False for comparison in comparisons):
        print(
            "\nA goal was missed: run with --profile to see where the time goes.", file=sys.stderr
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
