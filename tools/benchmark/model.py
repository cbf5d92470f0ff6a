"""The model's own comparisons: a training step against PyTorch's layers, greedy decoding with
and without the KV cache, beam search batched against one sentence at a time, a profile."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn

from helpers.data.corpus import load_corpus
from helpers.decoding.search import greedy_decode
from helpers.model.torch_reference import to_torch_reference
from helpers.model.transformer import Transformer
from tools.benchmark.measure import (
    BASE,
    BEAM_GOAL,
    BOS_ID,
    DECODING_GOAL,
    EOS_ID,
    PAD_ID,
    SMALL,
    TRAINING_GOAL,
    BenchConfig,
    alternate,
    speed_ratio,
)

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

    @classmethod
    def of_times(
        cls,
        measurement: str,
        config: str,
        first: tuple[str, list[float]],
        second: tuple[str, list[float]],
        goal: float | None,
    ) -> Comparison:
        """The row for two sides' timed rounds, (label, seconds of each round) each."""
        (first_label, first_times), (second_label, second_times) = first, second
        return cls(
            measurement,
            config,
            first_label,
            statistics.median(first_times),
            second_label,
            statistics.median(second_times),
            speed_ratio(first_times, second_times),
            goal,
        )


def bench_training(config: BenchConfig, rounds: int, warmup: int = 2) -> Comparison:
    """Training steps per second of ours / of the reference (same weights, same dropout)."""
    ours, reference = training_pair(config)
    batch = synthetic_batch(config)
    durations = alternate(
        {"ours": training_step(ours, batch), "reference": training_step(reference, batch)},
        rounds,
        warmup,
    )
    return Comparison.of_times(
        "training step (forward, backward, Adam)",
        config.name,
        ("ours", durations["ours"]),
        ("nn.Transformer layers", durations["reference"]),
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
    cached = greedy_decode(
        model, src, max_new_tokens=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=True
    )
    uncached = greedy_decode(
        model, src, max_new_tokens=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=False
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
                model, src, max_new_tokens=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=True
            ),
            "no cache": lambda: greedy_decode(
                model, src, max_new_tokens=steps, bos_id=BOS_ID, eos_id=EOS_ID, use_cache=False
            ),
        },
        rounds,
        warmup,
    )
    return Comparison.of_times(
        f"greedy decoding, {steps} tokens x {config.decode_batch} "
        + ("sentence" if config.decode_batch == 1 else "sentences"),
        config.name,
        ("KV cache", durations["cache"]),
        ("no cache", durations["no cache"]),
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


def generation_setup(batch: int = 32, seed: int = 0):
    """Notebook 16's GPT at its small size (d_model 64, 2 blocks, the English vocabulary's 304
    tokens, untrained) and a batch of prompts: <s> and three random words each."""
    from helpers.model.gpt import GPT, GPTConfig

    torch.manual_seed(seed)
    config = GPTConfig(
        304, d_model=64, n_heads=4, d_ff=256, n_layers=2, dropout=0.0, max_positions=64
    )
    model = GPT(config).eval()
    generator = torch.Generator().manual_seed(seed)
    prompts = torch.randint(EOS_ID + 1, 304, (batch, 4), generator=generator)
    prompts[:, 0] = BOS_ID
    return model, prompts


def generate_both_ways(
    model, prompts: torch.Tensor, steps: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy tokens with the KV cache (helpers.generate) and without it (the whole sequence
    again at every step); raises if they differ."""
    from helpers.decoding.sampling import generate

    cached = generate(model, prompts, steps, temperature=0.0)
    uncached = prompts
    with torch.no_grad():
        for _ in range(steps):
            uncached = torch.cat([uncached, model(uncached)[:, -1:].argmax(dim=-1)], dim=1)
    if not torch.equal(cached, uncached):
        raise AssertionError("generation with and without the KV cache gave different tokens")
    return cached, uncached


def bench_generation(rounds: int, steps: int = 48, batch: int = 32, warmup: int = 0) -> Comparison:
    """Greedy generation of ``steps`` tokens by notebook 16's GPT: with the KV cache / without it
    (a row for information, no goal)."""
    from helpers.decoding.sampling import generate

    model, prompts = generation_setup(batch)
    generate_both_ways(model, prompts, steps)  # same tokens: asserted before timing

    def uncached() -> torch.Tensor:
        ids = prompts
        with torch.no_grad():
            for _ in range(steps):
                ids = torch.cat([ids, model(ids)[:, -1:].argmax(dim=-1)], dim=1)
        return ids

    durations = alternate(
        {"cache": lambda: generate(model, prompts, steps, temperature=0.0), "no cache": uncached},
        rounds,
        warmup,
    )
    return Comparison.of_times(
        f"GPT generation (notebook 16), {steps} tokens x {batch} prompts",
        "gpt",
        ("KV cache", durations["cache"]),
        ("no cache", durations["no cache"]),
        None,
    )


def bench_beam_search(rounds: int, sentences: int = 32, warmup: int = 0) -> Comparison:
    """Beam search (beam 4) of the shipped model on test sentences: every sentence's beams in one
    batch / one sentence at a time. Both give the same translations (asserted)."""
    from helpers.decoding.search import translate
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
    return Comparison.of_times(
        f"beam search (beam 4), {sentences} test sentences",
        "shipped",
        ("one batch", durations["batched"]),
        ("one sentence at a time", durations["one at a time"]),
        BEAM_GOAL,
    )


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
