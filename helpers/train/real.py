"""Scoring a run on real German (notebook 15): BLEU and chrF beside two baselines.

Hand-written: edit this file itself; no notebook generates it.

``python -m helpers.train.real RUN_DIR`` translates the held-out test pairs of each task (see
``helpers.data.dictionary.TASKS``) with the checkpoints of the run (``--every n``: every n-th and
the last) and prints sacrebleu's BLEU and chrF, beside the two baselines computed on the same
pairs: copying the German source, and word-for-word lookup in the same dictionary. ``--json``
also writes them, with the training seconds of each checkpoint (``make train-real`` writes
``docs/real_german_runs.json``, which notebook 15 shows). Hypotheses and references are both
normalised (lower case, punctuation split off), as the model reads and writes them.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import sacrebleu

from helpers.checks import check_translation_pairs
from helpers.data.dictionary import TASKS, task_pairs, word_for_word, word_lookup
from helpers.decoding.search import translate
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.text.bpe import BPETokenizer, PieceVocab
from helpers.train.checkpoints import list_checkpoints, load_model_and_vocabs
from helpers.train.data import TOKENIZER_FILE
from helpers.train.distributed import pick_training_device


def bleu_chrf(hypotheses: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """sacrebleu's corpus BLEU and chrF (both 0..100) of normalised text, one reference each."""
    check_translation_pairs(hypotheses, references)  # the checks of corpus_bleu (notebook 12)
    hypotheses, references = list(hypotheses), [list(references)]
    bleu = sacrebleu.metrics.BLEU(force=True)  # the text is tokenised on purpose: both sides
    return {
        "bleu": round(bleu.corpus_score(hypotheses, references).score, 2),
        "chrf": round(sacrebleu.metrics.CHRF().corpus_score(hypotheses, references).score, 2),
    }


def baseline_scores(pairs: Sequence[tuple[str, str]]) -> dict[str, dict[str, float]]:
    """BLEU and chrF of copying the source and of word-for-word lookup, on the same pairs."""
    sources, references = [g for g, _ in pairs], [e for _, e in pairs]
    lookup = word_lookup()
    return {
        "copy the source": bleu_chrf(sources, references),
        "word for word": bleu_chrf([word_for_word(g, lookup) for g in sources], references),
    }


def load_run_model(folder: Path, device: str = "cpu") -> tuple[Transformer, PieceVocab]:
    """The model of a checkpoint folder of a "real" run (on ``device``) and the vocabulary of its
    run's BPE pieces, which translate() reads and writes text with."""
    folder = Path(folder)
    run_dir = folder.parent.parent
    tokenizer_path = run_dir / TOKENIZER_FILE
    if not tokenizer_path.is_file():
        raise ValueError(
            tr(
                "folder: expected a checkpoint of a run with --corpus real ({file} in {run}), "
                "got {folder}"
            ).format(file=TOKENIZER_FILE, run=run_dir, folder=folder)
        )
    model, vocab, _ = load_model_and_vocabs(folder, device)
    pieces = PieceVocab(BPETokenizer.load(tokenizer_path))
    if pieces.to_list() != vocab.to_list():
        raise ValueError(
            tr("folder: expected the vocabulary of {file} in {folder}, got another one").format(
                file=TOKENIZER_FILE, folder=folder
            )
        )
    return model.eval(), pieces


def score_checkpoint(
    folder: Path, task: str, limit: int | None = None, beam_size: int = 1, device: str = "cpu"
) -> dict:
    """BLEU and chrF of one checkpoint on the test pairs of ``task`` (the first ``limit``),
    translated on ``device``."""
    model, vocab = load_run_model(folder, device)
    pairs = task_pairs(task, "test")[:limit]
    hypotheses = translate(model, [g for g, _ in pairs], vocab, vocab, beam_size=beam_size)
    return bleu_chrf(hypotheses, [e for _, e in pairs])


def logged_steps(run_dir: Path) -> dict[int, dict[str, float | None]]:
    """Step -> its training seconds and validation loss (None where not evaluated), from the log."""
    with (Path(run_dir) / "log.csv").open(newline="", encoding="utf-8") as file:
        return {
            int(row["step"]): {
                "seconds": float(row["seconds"]) if row.get("seconds") else None,
                "valid_loss": float(row["valid_loss"]) if row.get("valid_loss") else None,
            }
            for row in csv.DictReader(file)
        }


def score_run(
    run_dir: Path,
    tasks: Sequence[str],
    every: int = 1,
    limit: int | None = None,
    beam_size: int = 1,
    echo: bool = True,
    device: str = "cpu",
) -> dict:
    """Scores of every ``every``-th checkpoint of a run (and its last) on each task's test pairs,
    beside the baselines: {"run", "valid_loss": [[step, loss], ...] (the run's task),
    "tasks": {task: {"test_pairs", "baselines", "checkpoints": [{step, seconds, valid_loss,
    bleu, chrf}, ...]}}}."""
    run_dir = Path(run_dir)
    unknown = [task for task in tasks if task not in TASKS]
    if unknown:
        raise ValueError(
            tr("tasks: expected among {tasks}, got {unknown}").format(
                tasks=", ".join(TASKS), unknown=", ".join(unknown)
            )
        )
    checkpoints = list_checkpoints(run_dir)
    if not checkpoints:
        raise ValueError(
            tr("run: expected a run folder with checkpoints, got {run}").format(run=run_dir)
        )
    chosen = [
        c for i, c in enumerate(checkpoints) if i % every == every - 1 or c == checkpoints[-1]
    ]
    description = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    logged = logged_steps(run_dir)
    result = {
        "run": {
            "config": description["config"],
            "parameters": description["parameters"],
            "world_size": description["world_size"],
        },
        "valid_loss": [
            [step, values["valid_loss"]] for step, values in logged.items() if values["valid_loss"]
        ],
        "tasks": {},
    }
    for task in tasks:
        pairs = task_pairs(task, "test")[:limit]
        entry = {"test_pairs": len(pairs), "baselines": baseline_scores(pairs), "checkpoints": []}
        if echo:
            print(f"{task} ({len(pairs)} test pairs)")
            for name, values in entry["baselines"].items():
                print(f"{name:>16}: BLEU {values['bleu']:6.2f}  chrF {values['chrf']:6.2f}")
        for step, folder in chosen:
            values = score_checkpoint(folder, task, limit, beam_size, device)
            entry["checkpoints"].append({"step": step, **logged.get(step, {}), **values})
            if echo:
                print(
                    f"{'step ' + str(step):>16}: BLEU {values['bleu']:6.2f}  chrF {values['chrf']:6.2f}"
                )
        result["tasks"][task] = entry
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train.real", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "run", type=Path, help="a run folder of `python -m helpers.train --corpus real`"
    )
    parser.add_argument("--tasks", default=",".join(TASKS), help=f"default: {','.join(TASKS)}")
    parser.add_argument(
        "--every", type=int, default=1, help="score every n-th checkpoint (and the last)"
    )
    parser.add_argument("--beam", type=int, default=1, help="beam size (default: 1, greedy)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first test pairs")
    parser.add_argument("--json", type=Path, default=None, help="also write the scores here")
    parser.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "cuda"),
        help="auto (default): cuda when there is one",
    )
    args = parser.parse_args(argv)
    try:
        if args.every < 1:
            raise ValueError(
                tr("every: expected a positive int, got {every}").format(every=args.every)
            )
        device = str(pick_training_device(args.device))
        scores = score_run(
            args.run, args.tasks.split(","), args.every, args.limit, args.beam, device=device
        )
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m helpers.train.real: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
