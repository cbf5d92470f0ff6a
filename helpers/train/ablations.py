"""``make ablations``: the rows of the paper's Table 3 that a CPU can afford, trained and scored.

Hand-written: edit this file itself; no notebook generates it.

Each row changes one thing of the series' small model (``--model small``) and trains it on the
generated corpus with ``python -m helpers.train`` (the same recipe for every row: tokens per batch,
warm-up, steps, seed), then records its validation perplexity (no label smoothing), greedy BLEU on
the first sentences of the test split, its parameter count, the exact command and the seed in a
JSON file (default ``docs/table3_ablations.json``). Rows are written one by one, so an interrupted
``make ablations`` keeps what it finished; ``--rows A,E`` runs only some.

Table 3's groups: (A) heads with d_k = d_v = d_model / h; (B) a smaller d_k; (C) layers, d_model,
d_ff; (D) dropout and label smoothing; (E) learned positional embeddings instead of sinusoids.
The paper's d_model = 512, h = 8, d_k = 64 becomes 128, 4, 32 here, and each change keeps its ratio.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shlex
import shutil
import sys
import time
import warnings
from pathlib import Path

import torch

from helpers.decoding.search import translate
from helpers.evaluation.bleu import corpus_bleu
from helpers.language import tr
from helpers.model_sizes import MODEL_SIZES
from helpers.paths import DOCS_DIR
from helpers.train.__main__ import main as train_main
from helpers.train.checkpoints import list_checkpoints, load_model_and_vocabs

DEFAULT_OUTPUT = DOCS_DIR / "table3_ablations.json"

# (Table 3 group, what changes, flags); "base" is the unchanged small model.
ROWS: list[tuple[str, str, dict[str, object]]] = [
    ("base", "unchanged (small: N=3, d_model=128, d_ff=512, h=4, d_k=d_v=32)", {}),
    ("A", "h=1, d_k=d_v=128", {"n_heads": 1}),
    ("A", "h=2, d_k=d_v=64", {"n_heads": 2}),
    ("A", "h=8, d_k=d_v=16", {"n_heads": 8}),
    ("A", "h=16, d_k=d_v=8", {"n_heads": 16}),
    ("B", "d_k=16", {"d_k": 16}),
    ("B", "d_k=8", {"d_k": 8}),
    ("C", "N=2", {"n_layers": 2}),
    ("C", "N=4", {"n_layers": 4}),
    ("C", "d_model=64, d_k=d_v=16", {"d_model": 64}),
    ("C", "d_model=256, d_k=d_v=64", {"d_model": 256}),
    ("C", "d_ff=256", {"d_ff": 256}),
    ("C", "d_ff=1024", {"d_ff": 1024}),
    ("D", "P_drop=0.0", {"dropout": 0.0}),
    ("D", "P_drop=0.2", {"dropout": 0.2}),
    ("D", "eps_ls=0.0", {"label_smoothing": 0.0}),
    ("D", "eps_ls=0.2", {"label_smoothing": 0.2}),
    ("E", "positional embedding instead of sinusoids", {"positional": "learned"}),
]


def row_slug(group: str, overrides: dict[str, object]) -> str:
    """A folder name for a row: ("A", {"n_heads": 2}) -> "a_n_heads2"."""
    return "_".join([group.lower(), *(f"{name}{value}" for name, value in overrides.items())])


def _flags(values: dict[str, object]) -> list[str]:
    flags = []
    for name, value in values.items():
        flags += ["--" + name.replace("_", "-"), str(value)]
    return flags


def run_row(
    group: str,
    change: str,
    overrides: dict[str, object],
    recipe: dict[str, object],
    runs_dir: Path,
    test_sentences: int,
) -> dict:
    """Train one row and score it; returns its JSON record."""
    run_dir = Path(runs_dir) / row_slug(group, overrides)
    shutil.rmtree(run_dir, ignore_errors=True)  # a fresh run each time
    argv = _flags({**recipe, **overrides, "output": run_dir}) + ["--no-progress"]
    started = time.perf_counter()
    train_main(argv)
    seconds = time.perf_counter() - started
    with (run_dir / "log.csv").open(newline="", encoding="utf-8") as file:
        valid = [float(row["valid_loss"]) for row in csv.DictReader(file) if row["valid_loss"]]
    model, src_vocab, tgt_vocab = load_model_and_vocabs(list_checkpoints(run_dir)[-1][1])
    from helpers.data.corpus import load_corpus

    pairs = load_corpus("test")[:test_sentences]
    with warnings.catch_warnings():  # a short run's vocabulary may miss a test word: <unk> it is
        warnings.simplefilter("ignore", UserWarning)
        hypotheses = translate(model, [g for g, _ in pairs], src_vocab, tgt_vocab)
    return {
        "row": group,
        "change": change,
        "flags": overrides,
        "parameters": sum(p.numel() for p in model.parameters()),
        "valid_perplexity": round(math.exp(valid[-1]), 4),
        "test_bleu_greedy": round(corpus_bleu(hypotheses, [e for _, e in pairs]), 2),
        "test_sentences": len(pairs),
        "steps": recipe["steps"],
        "seed": recipe["seed"],
        "command": "python -m helpers.train " + shlex.join(argv),
        "train_seconds": round(seconds, 1),
        "torch_threads": torch.get_num_threads(),
    }


def run_ablations(
    groups: list[str] | None = None,
    steps: int = 800,
    output: Path = DEFAULT_OUTPUT,
    runs_dir: Path = Path("runs/ablations"),
    model: str = "small",
    test_sentences: int = 500,
    extra: dict[str, object] | None = None,
) -> dict:
    """Train the chosen groups' rows (all when None) and write them into ``output``."""
    known = sorted({group for group, _, _ in ROWS})
    groups = known if groups is None else groups
    unknown = [group for group in groups if group not in known]
    if unknown:
        raise ValueError(
            tr("rows: expected groups among {known}, got {unknown}").format(
                known=", ".join(known), unknown=", ".join(unknown)
            )
        )
    if model not in MODEL_SIZES:
        raise ValueError(
            tr("model: expected one of {sizes}, got {model!r}").format(
                sizes=", ".join(MODEL_SIZES), model=model
            )
        )
    recipe = {
        "model": model,
        "corpus": "series",
        "tokens_per_batch": 1500,
        "warmup_steps": 400,
        "steps": steps,
        "eval_every": steps,
        "checkpoint_every": steps,
        "seed": 0,
        "precision": "fp32",
        "device": "cpu",
        **(extra or {}),
    }
    output = Path(output)
    results = json.loads(output.read_text(encoding="utf-8")) if output.is_file() else {}
    results.update(
        {
            "about": "Table 3 rows a CPU can afford, trained on the generated corpus; "
            "written by `make ablations` (python -m helpers.train.ablations)",
            "base_model": model,
        }
    )
    rows = {(r["row"], r["change"]): r for r in results.get("rows", [])}
    for group, change, overrides in ROWS:
        if group not in groups:
            continue
        print(f"Table 3 row {group}: {change}", file=sys.stderr, flush=True)
        rows[(group, change)] = run_row(group, change, overrides, recipe, runs_dir, test_sentences)
        order = {(g, c): i for i, (g, c, _) in enumerate(ROWS)}
        results["rows"] = sorted(
            rows.values(), key=lambda r: order.get((r["row"], r["change"]), 99)
        )
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(
            json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train.ablations", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--rows", default=None, help="groups to run, e.g. A,E (default: every row)")
    parser.add_argument(
        "--steps", type=int, default=800, help="training steps per row (default: 800)"
    )
    parser.add_argument(
        "--model", default="small", help="the model every row changes (default: small)"
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON file to write"
    )
    parser.add_argument("--runs", type=Path, default=Path("runs/ablations"), help="run folders")
    parser.add_argument("--test-sentences", type=int, default=500, help="test pairs scored by BLEU")
    parser.add_argument("--train-pairs", type=int, default=None, help="use only the first pairs")
    args = parser.parse_args(argv)
    extra = {"train_pairs": args.train_pairs} if args.train_pairs else {}
    try:
        run_ablations(
            args.rows.split(",") if args.rows else None,
            args.steps,
            args.output,
            args.runs,
            args.model,
            args.test_sentences,
            extra,
        )
    except ValueError as error:
        print(f"python -m helpers.train.ablations: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
