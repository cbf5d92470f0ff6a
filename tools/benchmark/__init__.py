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
- greedy generation by notebook 16's GPT (``helpers.generate``) with the key/value cache against
  re-running the model on the whole sequence at every step (the same tokens: asserted; no goal);
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

The package, by concern: ``measure`` (goals, model sizes, alternating rounds), ``model`` (training
step, greedy decoding, beam search, profile), ``bpe``, ``explorers``, ``runs`` (the suite and the
notebooks as child processes, their run-time record), ``report`` (markdown tables) and
``command`` (the command line).
"""

from tools.benchmark.bpe import DICTIONARY, bench_bpe, dictionary_phrases
from tools.benchmark.command import main
from tools.benchmark.explorers import (
    EXPLORER_GOALS,
    ExplorerTiming,
    bench_explorers,
    explorers_table,
)
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
    notebook_seconds_goal,
    speed_ratio,
)
from tools.benchmark.model import (
    Comparison,
    bench_beam_search,
    bench_decoding,
    bench_generation,
    bench_training,
    decode_both_ways,
    decoding_cases,
    decoding_setup,
    generate_both_ways,
    generation_setup,
    profile_training,
    synthetic_batch,
    training_pair,
    training_step,
)
from tools.benchmark.report import machine_info, markdown_table, report, runs_table
from tools.benchmark.runs import (
    RUN_TIMES,
    RunResult,
    bench_notebooks,
    bench_suite,
    notebook_paths,
    process_tree,
    run_and_measure,
    run_times_record,
    write_run_times,
)

__all__ = [
    "BASE",
    "BEAM_GOAL",
    "BOS_ID",
    "BenchConfig",
    "Comparison",
    "DECODING_GOAL",
    "DICTIONARY",
    "EOS_ID",
    "EXPLORER_GOALS",
    "ExplorerTiming",
    "PAD_ID",
    "RUN_TIMES",
    "RunResult",
    "SMALL",
    "TRAINING_GOAL",
    "alternate",
    "bench_beam_search",
    "bench_bpe",
    "bench_decoding",
    "bench_generation",
    "bench_explorers",
    "bench_notebooks",
    "bench_suite",
    "bench_training",
    "decode_both_ways",
    "decoding_cases",
    "decoding_setup",
    "generate_both_ways",
    "generation_setup",
    "dictionary_phrases",
    "explorers_table",
    "machine_info",
    "main",
    "markdown_table",
    "notebook_paths",
    "notebook_seconds_goal",
    "process_tree",
    "profile_training",
    "report",
    "run_and_measure",
    "run_times_record",
    "runs_table",
    "speed_ratio",
    "synthetic_batch",
    "training_pair",
    "training_step",
    "write_run_times",
]
