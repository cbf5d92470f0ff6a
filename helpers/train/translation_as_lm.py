"""``make translation-lm``: translation as language modelling (notebook 16's closing experiment).

Hand-written. A decoder-only model (``helpers.GPT``) trained on ``<s> german <sep> english </s>``
sequences, the loss on the English part only (the German is given, as the encoder's input is),
against notebook 11's encoder-decoder, with:

- about the same parameter count: the decoder-only model gets as many blocks as match the
  encoder-decoder's parameters (both counts are written);
- the same training budget: notebook 11's recipe (steps, warm-up, learning-rate factor, label
  smoothing, clipping) and the same sentence pairs per step on average, so the same tokens;
- the same test: greedy decoding of the test split's German, at most ``max_new_tokens`` English
  tokens, scored by notebook 12's corpus BLEU.

Both train through notebook 11's one loop, ``train_on_batches`` (``train_model`` and
``train_language_model`` give it their batches).

Each model is trained with several seeds (initial weights and batch order); the results go to
``docs/translation_as_lm.json``, which notebook 16 reads. Seeds may also run side by side, each
into its own file (``--seeds 1 --output seed1.json``), joined by ``--combine a.json b.json ...``:
a seed gives the same numbers either way (one thread).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

from helpers.data.corpus import load_corpus
from helpers.decoding.sampling import generate
from helpers.decoding.search import translate
from helpers.evaluation.bleu import corpus_bleu
from helpers.model.gpt import GPT, GPTConfig
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.paths import DOCS_DIR
from helpers.text.vocab import Vocab, encode_pairs
from helpers.training.language_model import train_language_model
from helpers.training.transformer import token_budget_batches, train_model

DEFAULT_OUTPUT = DOCS_DIR / "translation_as_lm.json"
SEP = "<sep>"
MODELS = ("encoder_decoder", "decoder_only")
# Notebook 11's model and recipe; `steps` is the one thing the command may change.
ENCODER_DECODER = {"d_model": 128, "n_heads": 4, "d_ff": 512, "n_layers": 2, "dropout": 0.0}
RECIPE = {
    "tokens_per_batch": 1500,
    "warmup_steps": 100,
    "lr_factor": 0.5,
    "label_smoothing": 0.1,
    "clip_norm": 1.0,
}


def parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def joint_vocab(pairs) -> Vocab:
    """One vocabulary for both languages, with <sep> right after the specials."""
    counts = Vocab.from_sentences([text for pair in pairs for text in pair])
    return Vocab([SEP, *counts.id_to_token[len(Vocab([]).id_to_token) :]])


def lm_sequence(vocab: Vocab, german: str, english: str | None = None) -> list[int]:
    """<s> german <sep> english </s>; without english, the prompt <s> german <sep>."""
    prompt = [vocab.bos_id, *vocab.encode(german), vocab.token_to_id[SEP]]
    return prompt if english is None else prompt + vocab.encode(english, add_eos=True)


def matched_gpt_config(vocab_size: int, target: int, max_positions: int, sizes: dict) -> GPTConfig:
    """The decoder-only model with the encoder-decoder's widths and the number of blocks whose
    parameter count comes closest to target."""
    widths = {k: sizes[k] for k in ("d_model", "n_heads", "d_ff", "dropout")}
    candidates = [
        GPTConfig(vocab_size, n_layers=n, max_positions=max_positions, **widths)
        for n in range(1, 13)
    ]
    return min(candidates, key=lambda c: abs(parameters(GPT(c)) - target))


@torch.no_grad()
def gpt_translate(model: GPT, vocab: Vocab, sentences, max_new_tokens: int) -> list[str]:
    """Greedy continuation of <s> german <sep>, prompts of one length batched together (no
    padding in a prompt), at most max_new_tokens English tokens each."""
    prompts = [lm_sequence(vocab, sentence) for sentence in sentences]
    results = [""] * len(sentences)
    device = next(model.parameters()).device
    for length in sorted({len(p) for p in prompts}):
        rows = [i for i, p in enumerate(prompts) if len(p) == length]
        ids = torch.tensor([prompts[i] for i in rows], device=device)
        out = generate(model, ids, max_new_tokens, temperature=0.0, eos_id=vocab.eos_id)
        for i, continuation in zip(rows, out[:, length:].tolist(), strict=True):
            results[i] = vocab.decode(continuation)
    return results


def run_seed(seed: int, steps: int, train_pairs, test_pairs, max_new_tokens: int) -> dict:
    """Train both models with one seed; their parameters, tokens per step and test BLEU."""
    torch.set_num_threads(1)  # the same numbers on every machine
    print(f"seed {seed}", file=sys.stderr, flush=True)
    german, references = [g for g, _ in test_pairs], [e for _, e in test_pairs]
    # The encoder-decoder: notebook 11's vocabularies, model and train_model.
    src_vocab = Vocab.from_sentences(g for g, _ in train_pairs)
    tgt_vocab = Vocab.from_sentences(e for _, e in train_pairs)
    examples = encode_pairs(train_pairs, src_vocab, tgt_vocab)
    torch.manual_seed(seed)
    config = TransformerConfig(len(src_vocab), len(tgt_vocab), max_positions=256, **ENCODER_DECODER)
    encoder_decoder = Transformer(config)
    settings = {
        k: RECIPE[k] for k in ("tokens_per_batch", "warmup_steps", "lr_factor", "label_smoothing")
    }
    started = time.perf_counter()
    history = train_model(
        encoder_decoder, examples, examples[:1], tgt_vocab.bos_id, steps, **settings,
        eval_every=steps, seed=seed, progress=False, clip_norm=RECIPE["clip_norm"],
    )  # fmt: skip
    seconds_ed = time.perf_counter() - started
    batches = token_budget_batches(examples, RECIPE["tokens_per_batch"], seed=seed)
    pairs_per_step = len(examples) / len(batches)
    with warnings.catch_warnings():  # a short run's vocabulary may miss a test word: <unk> it is
        warnings.simplefilter("ignore", UserWarning)
        hypotheses = translate(
            encoder_decoder, german, src_vocab, tgt_vocab, max_new_tokens=max_new_tokens
        )
    # The decoder-only model: one vocabulary, <s> german <sep> english </s>, English scored.
    vocab = joint_vocab(train_pairs)
    sequences = [lm_sequence(vocab, g, e) for g, e in train_pairs]
    longest = max(len(lm_sequence(vocab, g)) for g in german) + max_new_tokens
    gpt_config = matched_gpt_config(
        len(vocab),
        parameters(encoder_decoder),
        max(longest, max(map(len, sequences))),
        ENCODER_DECODER,
    )
    torch.manual_seed(seed)
    gpt = GPT(gpt_config)
    batch_size = round(pairs_per_step)
    started = time.perf_counter()
    gpt_history = train_language_model(
        gpt, sequences, steps, batch_size, RECIPE["warmup_steps"], RECIPE["lr_factor"],
        RECIPE["clip_norm"], seed, RECIPE["label_smoothing"], vocab.token_to_id[SEP],
    )  # fmt: skip
    seconds_lm = time.perf_counter() - started
    gpt_hypotheses = gpt_translate(gpt, vocab, german, max_new_tokens)
    ed_tokens = sum(len(s) + len(t) for s, t in examples) / len(examples) * pairs_per_step
    lm_tokens = sum(len(s) for s in sequences) / len(sequences) * batch_size
    return {
        "seed": seed,
        "encoder_decoder": {
            "parameters": parameters(encoder_decoder),
            "n_layers": f"{config.n_layers} + {config.n_layers}",
            "pairs_per_step": round(pairs_per_step, 2),
            "tokens_per_step": round(ed_tokens, 1),
            "final_loss": round(sum(history.loss[-20:]) / 20, 4),
            "test_bleu": round(corpus_bleu(hypotheses, references), 2),
            "train_seconds": round(seconds_ed, 1),
            "example": hypotheses[0],
        },
        "decoder_only": {
            "parameters": parameters(gpt),
            "n_layers": gpt_config.n_layers,
            "pairs_per_step": batch_size,
            "tokens_per_step": round(lm_tokens, 1),
            "final_loss": round(sum(gpt_history.loss[-20:]) / 20, 4),
            "test_bleu": round(corpus_bleu(gpt_hypotheses, references), 2),
            "train_seconds": round(seconds_lm, 1),
            "example": gpt_hypotheses[0],
        },
    }


def run_experiment(
    seeds=(0, 1, 2), steps: int = 400, output: Path | None = DEFAULT_OUTPUT,
    train_pairs: int | None = None, test_sentences: int | None = None, max_new_tokens: int = 30,
) -> dict:  # fmt: skip
    """Every seed, both models; writes (and returns) the JSON record."""
    train = load_corpus("train")[:train_pairs]
    test = load_corpus("test")[:test_sentences]
    runs = [run_seed(seed, steps, train, test, max_new_tokens) for seed in seeds]
    results = {
        "about": "translation as language modelling: a decoder-only model on <s> german <sep> "
        "english </s> against notebook 11's encoder-decoder; written by "
        "`python -m helpers.train.translation_as_lm`",
        "recipe": {**RECIPE, "steps": steps, "model": ENCODER_DECODER},
        "train_pairs": len(train),
        "test_sentences": len(test),
        "max_new_tokens": max_new_tokens,
        "example": {"german": test[0][0], "reference": test[0][1]},
        "torch_threads": torch.get_num_threads(),
        "runs": runs,
    }
    return write_results(results, output)


def write_results(results: dict, output: Path | None) -> dict:
    """Add the command and the summary over the runs (mean and seed spread), then write."""
    runs, steps = results["runs"], results["recipe"]["steps"]
    seeds = ",".join(str(run["seed"]) for run in runs)
    results["command"] = (
        f"python -m helpers.train.translation_as_lm --steps {steps} --seeds {seeds}"
    )
    bleu = {name: [run[name]["test_bleu"] for run in runs] for name in MODELS}
    differences = [
        lm - ed for ed, lm in zip(bleu["encoder_decoder"], bleu["decoder_only"], strict=True)
    ]
    spread = statistics.stdev if len(runs) > 1 else (lambda values: 0.0)
    summary = {
        name: {"bleu_mean": round(statistics.mean(v), 2), "bleu_std": round(spread(v), 2)}
        for name, v in bleu.items()
    }
    summary["difference_mean"] = round(statistics.mean(differences), 2)
    summary["difference_std"] = round(spread(differences), 2)
    results["summary"] = summary
    if output is not None:
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(
            json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return results


def combine(paths: list[Path], output: Path | None) -> dict:
    """The runs of several outputs of one recipe (seeds run side by side) as one record."""
    parts = [json.loads(Path(path).read_text(encoding="utf-8")) for path in paths]
    results = {key: value for key, value in parts[0].items() if key not in ("command", "summary")}
    results["runs"] = sorted(
        (run for part in parts for run in part["runs"]), key=lambda r: r["seed"]
    )
    return write_results(results, output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train.translation_as_lm", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--steps", type=int, default=400, help="training steps (default: 400, notebook 11's)"
    )
    parser.add_argument("--seeds", default="0,1,2", help="seeds, comma-separated (default: 0,1,2)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON file")
    parser.add_argument("--train-pairs", type=int, default=None, help="use only the first pairs")
    parser.add_argument("--test-sentences", type=int, default=None, help="score only the first")
    parser.add_argument("--max-new-tokens", type=int, default=30, help="greedy length limit")
    parser.add_argument(
        "--combine", nargs="+", type=Path, default=None,
        help="join the runs of earlier outputs (one seed each, run side by side) into --output",
    )  # fmt: skip
    args = parser.parse_args(argv)
    results = run_experiment(
        [int(seed) for seed in args.seeds.split(",")], args.steps, args.output,
        args.train_pairs, args.test_sentences, args.max_new_tokens,
    ) if args.combine is None else combine(args.combine, args.output)  # fmt: skip
    print(json.dumps(results["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
