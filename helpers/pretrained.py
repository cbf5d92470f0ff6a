"""The small German→English model that notebook 12 analyses, shipped in ``checkpoints/``.

Hand-written: edit this file itself; no notebook generates it.

    make train        # or: python -m helpers.pretrained

trains it from scratch on the generated corpus (``helpers.data.corpus``), deterministically, on the
CPU, and writes ``checkpoints/de_en_small/`` (weights, config, vocabularies, and metadata: the
recipe, data seed, steps, final validation loss, test BLEU, the weights' SHA-256).
``load_pretrained()`` returns ``(model, src_vocab, tgt_vocab, metadata)`` from there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from helpers.checkpoints import Checkpoint, load_checkpoint, save_checkpoint
from helpers.data.corpus import CORPUS_SEED, load_corpus
from helpers.decoding.search import translate
from helpers.evaluation.bleu import corpus_bleu
from helpers.language import tr
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.model_sizes import MODEL_SIZES
from helpers.paths import CHECKPOINTS_DIR, how_to_restore, require
from helpers.runtime import seed_everything
from helpers.text.vocab import Vocab, encode_pairs
from helpers.training.transformer import train_model

CHECKPOINT_DIR = CHECKPOINTS_DIR / "de_en_small"
REBUILD_COMMAND = "make train"

# Everything that decides the shipped weights. Changing any value means running `make train`.
RECIPE = {
    "seed": 0,
    "threads": 2,
    **MODEL_SIZES["small"],  # d_model, n_heads, d_ff, n_layers, dropout
    "steps": 2000,
    "tokens_per_batch": 1500,
    "warmup_steps": 400,
    "lr_factor": 1.0,
    "label_smoothing": 0.1,
    "max_new_tokens": 40,
}


def build_vocabularies(pairs: list[tuple[str, str]]) -> tuple[Vocab, Vocab]:
    """Word-level vocabularies from the training split: pad=0, unk, <s>, </s>, then by frequency."""
    return Vocab.from_sentences(g for g, _ in pairs), Vocab.from_sentences(e for _, e in pairs)


def build_pretrained_checkpoint(directory: Path = CHECKPOINT_DIR, progress: bool = True) -> dict:
    """Train the shipped model with RECIPE and save it into ``directory``; return its metadata."""
    recipe = RECIPE
    torch.set_num_threads(recipe["threads"])
    seed_everything(recipe["seed"])
    train_pairs, valid_pairs, test_pairs = (
        load_corpus("train"),
        load_corpus("valid"),
        load_corpus("test"),
    )
    src_vocab, tgt_vocab = build_vocabularies(train_pairs)
    config = TransformerConfig(
        src_vocab_size=len(src_vocab),
        tgt_vocab_size=len(tgt_vocab),
        d_model=recipe["d_model"],
        n_heads=recipe["n_heads"],
        d_ff=recipe["d_ff"],
        n_layers=recipe["n_layers"],
        dropout=recipe["dropout"],
    )
    model = Transformer(config)
    started = time.perf_counter()
    history = train_model(
        model,
        encode_pairs(train_pairs, src_vocab, tgt_vocab),
        encode_pairs(valid_pairs, src_vocab, tgt_vocab),
        tgt_vocab.bos_id,
        steps=recipe["steps"],
        tokens_per_batch=recipe["tokens_per_batch"],
        warmup_steps=recipe["warmup_steps"],
        lr_factor=recipe["lr_factor"],
        label_smoothing=recipe["label_smoothing"],
        eval_every=max(recipe["steps"] // 10, 1),
        seed=recipe["seed"],
        progress=progress,
    )
    train_seconds = time.perf_counter() - started
    model.eval()
    scores = {}
    for split in ("test", "test_unseen"):
        pairs = test_pairs if split == "test" else load_corpus(split)
        hypotheses = translate(
            model,
            [g for g, _ in pairs],
            src_vocab,
            tgt_vocab,
            max_new_tokens=recipe["max_new_tokens"],
        )
        scores[split] = round(corpus_bleu(hypotheses, [e for _, e in pairs]), 2)
    metadata = {
        "recipe": recipe,
        "corpus_seed": CORPUS_SEED,
        "steps": recipe["steps"],
        "final_train_loss": round(history.loss[-1], 4),
        "final_valid_loss": round(history.valid_loss[-1], 4),
        "test_bleu_greedy": scores["test"],
        "test_unseen_bleu_greedy": scores["test_unseen"],
        "train_seconds_when_built": round(train_seconds, 1),
        "torch_version": torch.__version__,
        "rebuild_command": REBUILD_COMMAND,
    }
    save_checkpoint(directory, model, src_vocab, tgt_vocab, metadata)
    return metadata


def load_pretrained(
    directory: Path = CHECKPOINT_DIR, device: torch.device | str = "cpu"
) -> Checkpoint:
    """The shipped model, like ``load_checkpoint``: ``model, src_vocab, tgt_vocab, metadata``.

    A missing checkpoint raises FileNotFoundError, a corrupt one ValueError; in a checkout both
    name the command that rebuilds it, and installed without one the error says that the model
    ships with the repository (``helpers.paths.how_to_restore``).
    """
    directory = Path(directory)
    for name in ("checkpoint.json", "weights.pt"):
        _require_file(directory, name)
    try:
        return load_checkpoint(directory, device)
    except ValueError as error:
        raise ValueError(
            tr(
                "directory: the pretrained model in {folder}/ cannot be loaded ({error}); {fix}"
            ).format(folder=directory.name, error=error, fix=how_to_restore(rebuild_hint()))
        ) from error


def pretrained_metadata(directory: Path = CHECKPOINT_DIR) -> dict:
    """The metadata saved with the shipped model (recipe, losses, BLEU, ...)."""
    path = _require_file(Path(directory), "checkpoint.json")
    return json.loads(path.read_text())["metadata"]


def _require_file(directory: Path, name: str) -> Path:
    """directory / name, or the FileNotFoundError of ``helpers.paths.require``."""
    what = tr("directory: the pretrained model's {name}").format(name=name)
    return require(directory / name, what, rebuild_hint())


def rebuild_hint() -> str:
    """How to rebuild the shipped model: the fix that a missing or damaged checkpoint names."""
    return tr("rebuild it with `{command}` (about ten minutes on a 2-core CPU)").format(
        command=REBUILD_COMMAND
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the shipped German→English model.")
    parser.add_argument("--output", type=Path, default=CHECKPOINT_DIR, help="checkpoint folder")
    parser.add_argument(
        "--no-progress", action="store_true", help="print no validation losses while training"
    )
    args = parser.parse_args(argv)
    metadata = build_pretrained_checkpoint(args.output, progress=not args.no_progress)
    print(json.dumps(metadata, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
