"""``make modern-block``: notebook 17's measurement, the modern block one change at a time.

Hand-written. Notebook 16's language model (``helpers.GPT``, built in notebook 13: the 2017-style block) against the
same model with one switch of ``helpers.LlamaConfig`` turned on (Pre-LN, RMSNorm, rotary
positions, SwiGLU, grouped-query attention, no biases), then all of them together, on notebook
16's task: next-token loss on the English training sentences of the series' corpus, perplexity on
its validation sentences. Every row gets the same budget (steps, batch, warm-up, learning rate)
and the same seeds (initial weights and batch order); with every switch off, ``Llama`` is
``GPT`` (the same weights from the same seed: ``tests/test_modern.py``). The results go to
``docs/modern_block.json``, which notebook 17 reads.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from helpers.data.corpus import load_corpus
from helpers.model.gpt import GPT, GPTConfig
from helpers.model.modern import STYLE_2017, Llama, LlamaConfig, swiglu_width
from helpers.paths import DOCS_DIR
from helpers.text.vocab import Vocab
from helpers.training.language_model import perplexity, train_language_model

DEFAULT_OUTPUT = DOCS_DIR / "modern_block.json"
# Notebook 16's model; the recipe's steps are the one thing the command's flags change.
SIZES = {"d_model": 64, "n_heads": 4, "d_ff": 256, "n_layers": 2, "max_positions": 24}
RECIPE = {"steps": 400, "batch_size": 64, "warmup_steps": 100, "lr_factor": 1.0, "clip_norm": 1.0}
SWIGLU_WIDTH = swiglu_width(SIZES["d_model"], multiple_of=8)  # 2/3 of 4 d_model: 176
# Each row: the switches it turns on over the 2017 style (None: 16's GPT itself).
ROWS = {
    "2017 baseline": None,
    "Pre-LN": {"norm_first": True},
    "RMSNorm": {"rms_norm": True},
    "rotary": {"rotary": True},
    "SwiGLU": {"swiglu": True, "d_ff": SWIGLU_WIDTH},
    "GQA (2 KV heads)": {"n_kv_heads": 2},
    "no biases": {"bias": False},
    "all together": {"norm_first": True, "rms_norm": True, "rotary": True, "swiglu": True,
                     "d_ff": SWIGLU_WIDTH, "n_kv_heads": 2, "bias": False},
}  # fmt: skip


def build(row: str, vocab_size: int, pad_id: int) -> torch.nn.Module:
    """The row's model: 16's GPT for the baseline, else Llama with the row's switches."""
    switches = ROWS[row]
    if switches is None:
        return GPT(GPTConfig(vocab_size, dropout=0.0, pad_id=pad_id, **SIZES))
    config = {**SIZES, **STYLE_2017, **switches}
    return Llama(LlamaConfig(vocab_size, pad_id=pad_id, **config))


def run_one(row: str, seed: int, data: dict, recipe: dict) -> dict:
    """Train one row with one seed; its parameters, final training loss and held-out perplexity."""
    torch.set_num_threads(1)  # the same numbers on every machine
    torch.manual_seed(seed)
    model = build(row, len(data["vocab"]), data["vocab"].pad_id)
    started = time.perf_counter()
    history = train_language_model(
        model, data["train"], recipe["steps"], recipe["batch_size"], recipe["warmup_steps"],
        recipe["lr_factor"], recipe["clip_norm"], seed,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    return {
        "seed": seed,
        "parameters": sum(p.numel() for p in model.parameters()),
        "final_loss": round(sum(history.loss[-20:]) / min(20, len(history.loss)), 4),
        "valid_perplexity": round(perplexity(model, data["valid"]), 4),
        "train_seconds": round(seconds, 1),
    }


def run_experiment(
    rows=tuple(ROWS), seeds=(0, 1, 2, 3, 4), steps: int = RECIPE["steps"],
    output: Path | None = DEFAULT_OUTPUT, train_sentences: int | None = None,
    valid_sentences: int | None = None,
) -> dict:  # fmt: skip
    """Every row with every seed; writes (and returns) the JSON record."""
    train = [english for _, english in load_corpus("train")][:train_sentences]
    valid = [english for _, english in load_corpus("valid")][:valid_sentences]
    vocab = Vocab.from_sentences(train)
    data = {
        "vocab": vocab,
        "train": [vocab.encode(s, add_bos=True, add_eos=True) for s in train],
        "valid": [vocab.encode(s, add_bos=True, add_eos=True) for s in valid],
    }
    recipe = {**RECIPE, "steps": steps}
    results = {"rows": {}}
    for row in rows:
        print(row, file=sys.stderr, flush=True)
        results["rows"][row] = {
            "switches": ROWS[row] or {},
            "runs": [run_one(row, seed, data, recipe) for seed in seeds],
        }
    results.update({
        "about": "notebook 16's language model (the 2017-style block) against one change at a "
        "time and all together; written by `python -m helpers.train.modern_block`",
        "model": SIZES,
        "recipe": recipe,
        "train_sentences": len(train),
        "valid_sentences": len(valid),
        "torch_threads": torch.get_num_threads(),
        "command": f"python -m helpers.train.modern_block --steps {steps} --seeds "
        + ",".join(map(str, seeds)),
    })  # fmt: skip
    summarize(results)
    if output is not None:
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return results


def summarize(results: dict) -> None:
    """Each row's mean and seed spread (sample std) of the perplexity, and its difference from
    the baseline seed by seed (the same seed: the same batches), with that difference's spread."""
    spread = statistics.stdev if len(next(iter(results["rows"].values()))["runs"]) > 1 else None
    baseline = results["rows"].get("2017 baseline")
    for entry in results["rows"].values():
        values = [run["valid_perplexity"] for run in entry["runs"]]
        summary = {
            "perplexity_mean": round(statistics.mean(values), 4),
            "perplexity_std": round(spread(values), 4) if spread else 0.0,
            "parameters": entry["runs"][0]["parameters"],
        }
        if baseline is not None:
            base = [run["valid_perplexity"] for run in baseline["runs"]]
            differences = [v - b for v, b in zip(values, base, strict=True)]
            summary["difference_mean"] = round(statistics.mean(differences), 4)
            summary["difference_std"] = round(spread(differences), 4) if spread else 0.0
        entry["summary"] = summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train.modern_block", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--steps", type=int, default=RECIPE["steps"], help="training steps")
    parser.add_argument(
        "--seeds", default="0,1,2,3,4", help="seeds, comma-separated (default: 0-4)"
    )
    parser.add_argument("--rows", default=",".join(ROWS), help="rows, comma-separated")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON file")
    parser.add_argument("--train-sentences", type=int, default=None, help="only the first")
    parser.add_argument("--valid-sentences", type=int, default=None, help="only the first")
    args = parser.parse_args(argv)
    results = run_experiment(
        args.rows.split(","), [int(s) for s in args.seeds.split(",")], args.steps, args.output,
        args.train_sentences, args.valid_sentences,
    )  # fmt: skip
    for row, entry in results["rows"].items():
        print(row, json.dumps(entry["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
