"""Checkpoints of a run: save every K steps, resume from the latest, average the last n.

Hand-written: edit this file itself; no notebook generates it.

A run folder holds::

    config.json                 the TrainConfig and how a step is split (checked by --resume)
    log.csv                     step, loss, learning rate, gradient norm, tokens/s, validation
                                loss, training seconds
    checkpoints/step_00000100/  weights.pt + checkpoint.json (``save_checkpoint``'s format, so
                                ``helpers.load_checkpoint`` reads it), training_state.pt
                                (optimizer, scheduler, gradient scaler, data position) and
                                rng_rank{r}.pt (Python, NumPy and torch generators of each rank)

A checkpoint is written into a hidden ``.tmp-step_...`` folder and renamed when complete, so a
process killed while writing leaves the previous checkpoint as the latest. Only the latest keeps
its training state; older ones keep their weights for averaging.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import numpy as np
import torch

from helpers.checkpoints import load_checkpoint, save_checkpoint, with_current_names
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.text.vocab import Vocab
from helpers.train.config import CHANGEABLE_ON_RESUME, TrainConfig
from helpers.train.data import DataPosition
from helpers.train.distributed import Ranks, barrier

CHECKPOINT_NAME = re.compile(r"^step_(\d{8})$")
TRAINING_STATE = "training_state.pt"


def checkpoint_folder(run_dir: Path, step: int) -> Path:
    return Path(run_dir) / "checkpoints" / f"step_{step:08d}"


def list_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """(step, folder) of every complete checkpoint of a run, oldest first."""
    root = Path(run_dir) / "checkpoints"
    found = []
    if root.is_dir():
        for folder in root.iterdir():
            match = CHECKPOINT_NAME.match(folder.name)
            if (
                match
                and (folder / "checkpoint.json").is_file()
                and (folder / "weights.pt").is_file()
            ):
                found.append((int(match[1]), folder))
    return sorted(found)


def load_model_and_vocabs(
    directory: Path, device: torch.device | str = "cpu"
) -> tuple[Transformer, Vocab, Vocab]:
    """(model, src_vocab, tgt_vocab) of a checkpoint folder (``load_checkpoint`` less its metadata)."""
    model, src_vocab, tgt_vocab, _ = load_checkpoint(directory, device)
    return model, src_vocab, tgt_vocab


def rng_state() -> dict:
    """This process's Python, NumPy and torch generators (CUDA too when present)."""
    name, keys, position, has_gauss, cached = np.random.get_state()
    state = {
        "python": random.getstate(),
        "numpy": [name, keys.tolist(), position, has_gauss, cached],
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, position, has_gauss, cached = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), position, has_gauss, cached))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_training_checkpoint(
    run_dir: Path,
    step: int,
    model: Transformer,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    training_state: dict,
    config: TrainConfig,
    ranks: Ranks,
) -> Path:
    """Write checkpoint ``step`` (every rank calls this: each saves its own RNG state)."""
    final = checkpoint_folder(run_dir, step)
    temporary = final.with_name(".tmp-" + final.name)
    if ranks.is_main:
        shutil.rmtree(temporary, ignore_errors=True)
        metadata = {"step": step, "train_config": config.to_dict()}
        save_checkpoint(temporary, model, src_vocab, tgt_vocab, metadata)
        torch.save(training_state, temporary / TRAINING_STATE)
    barrier(ranks)
    torch.save(rng_state(), temporary / f"rng_rank{ranks.rank}.pt")
    barrier(ranks)
    if ranks.is_main:
        shutil.rmtree(final, ignore_errors=True)
        temporary.rename(final)
        for _, older in list_checkpoints(run_dir)[:-1]:
            for path in [older / TRAINING_STATE, *older.glob("rng_rank*.pt")]:
                path.unlink(missing_ok=True)
    barrier(ranks)
    return final


def check_resumable(run_dir: Path, config: TrainConfig, world_size: int, accumulation: int) -> None:
    """Raise ValueError unless ``run_dir`` holds a checkpoint of the same run (same config)."""
    run_dir = Path(run_dir)
    saved_file = run_dir / "config.json"
    if not saved_file.is_file():
        raise ValueError(
            tr("resume: expected a run folder with config.json, got {run!r}").format(
                run=str(run_dir)
            )
        )
    saved = json.loads(saved_file.read_text(encoding="utf-8"))
    current = config.to_dict()
    for name, value in with_current_names(saved["config"]).items():
        if name not in CHANGEABLE_ON_RESUME and current.get(name) != value:
            raise ValueError(
                tr(
                    "resume: {run!r} was trained with {name}={value!r}, "
                    "got {name}={got!r} (use another --output for another config)"
                ).format(run=str(run_dir), name=name, value=value, got=current.get(name))
            )
    if saved["world_size"] * saved["accumulation"] != world_size * accumulation:
        raise ValueError(
            tr(
                "resume: {run!r} took {batches} batches per step (ranks x accumulation), "
                "got {world_size} x {accumulation}"
            ).format(
                run=str(run_dir),
                batches=saved["world_size"] * saved["accumulation"],
                world_size=world_size,
                accumulation=accumulation,
            )
        )
    checkpoints = list_checkpoints(run_dir)
    if not checkpoints or not (checkpoints[-1][1] / TRAINING_STATE).is_file():
        raise ValueError(
            tr("resume: {run!r} has no complete checkpoint to resume from").format(run=str(run_dir))
        )
    if checkpoints[-1][0] > config.steps:
        raise ValueError(
            tr("steps: expected at least {step}, the latest checkpoint's step, got {steps}").format(
                step=checkpoints[-1][0], steps=config.steps
            )
        )


def load_training_checkpoint(
    run_dir: Path, model: Transformer, ranks: Ranks
) -> tuple[int, dict, dict | None]:
    """Load the latest checkpoint's weights into ``model``; (step, training state, rank's RNG)."""
    step, folder = list_checkpoints(run_dir)[-1]
    saved_model, _, _ = load_model_and_vocabs(folder, ranks.device)
    model.load_state_dict(saved_model.state_dict())
    state = torch.load(folder / TRAINING_STATE, map_location=ranks.device, weights_only=True)
    rng_file = folder / f"rng_rank{ranks.rank}.pt"
    rng = torch.load(rng_file, weights_only=True) if rng_file.is_file() else None
    return step, state, rng


def position_to_dict(position: DataPosition) -> dict:
    return {"epoch": position.epoch, "batch": position.batch}


def average_checkpoints(run_dir: Path, last: int, output: Path | None = None) -> Path:
    """Average the parameters of the last ``last`` checkpoints of a run (paper §6.1).

    The paper averaged the last 5 checkpoints (base) or 20 (big), written every 10 minutes.
    The sum is taken in float64 and cast back, so the result is the mean to float precision.
    Writes a checkpoint ``helpers.load_checkpoint`` reads (default ``RUN_DIR/average_last{n}``).
    """
    if not isinstance(last, int) or isinstance(last, bool) or last < 1:
        raise ValueError(tr("last: expected a positive int, got {last!r}").format(last=last))
    checkpoints = list_checkpoints(run_dir)
    if len(checkpoints) < last:
        raise ValueError(
            tr("last: expected at most {count}, the checkpoints in {run!r}, got {last}").format(
                count=len(checkpoints), run=str(run_dir), last=last
            )
        )
    chosen = checkpoints[-last:]
    total: dict[str, torch.Tensor] = {}
    for _, folder in chosen:
        model, src_vocab, tgt_vocab = load_model_and_vocabs(folder)
        for name, tensor in model.state_dict().items():
            total[name] = total.get(name, 0) + tensor.double()
    model.load_state_dict(
        {name: (value / last).to(model.state_dict()[name].dtype) for name, value in total.items()}
    )
    output = Path(output) if output else Path(run_dir) / f"average_last{last}"
    metadata = json.loads((chosen[-1][1] / "checkpoint.json").read_text(encoding="utf-8"))[
        "metadata"
    ]
    metadata["averaged_steps"] = [step for step, _ in chosen]
    save_checkpoint(output, model, src_vocab, tgt_vocab, metadata)
    return output
