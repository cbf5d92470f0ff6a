"""The training loop of ``python -m helpers.train``: DDP, accumulation, precision, logs, checkpoints.

The loss of a step is the label-smoothed cross-entropy summed over every target token of the step
(all ranks, all micro-batches) and divided by their number, so the gradient is that of one big
batch, however the batch is split: DDP averages the ranks' gradients (hence the factor
world_size), accumulation adds the micro-batches'.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from helpers.display.setup import seed_everything
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.pipeline.training import collate, evaluate_loss, label_smoothing_loss, make_optimizer
from helpers.train.checkpoints import (
    check_resumable,
    list_checkpoints,
    load_training_checkpoint,
    position_to_dict,
    save_training_checkpoint,
    set_rng_state,
)
from helpers.train.config import TrainConfig
from helpers.train.data import (
    TOKENIZER_FILE,
    DataPosition,
    RunData,
    StepBatches,
    load_run_data,
    plan_batches,
)
from helpers.train.distributed import (
    Ranks,
    cleanup_distributed,
    init_distributed,
    pick_training_device,
    sum_over_ranks,
    world_size_from_environment,
)

# seconds: training time since the run began (data loading excluded), carried across --resume.
LOG_COLUMNS = ["step", "loss", "learning_rate", "tokens_per_s", "valid_loss", "seconds"]


def resolve_precision(precision: str, device: torch.device) -> str:
    """'auto' -> fp32 on a CPU, bf16 on a GPU that has it, else fp16 (with a gradient scaler)."""
    if precision != "auto":
        if precision == "fp16" and device.type == "cpu":
            raise ValueError(tr("precision: expected fp32 or bf16 on a CPU, got 'fp16'"))
        return precision
    if device.type == "cpu":
        return "fp32"
    return "bf16" if torch.cuda.is_bf16_supported() else "fp16"


def autocast(precision: str, device: torch.device) -> contextlib.AbstractContextManager:
    if precision == "fp32":
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    return torch.autocast(device.type, dtype=dtype)


def prepare(config: TrainConfig) -> tuple[RunData, object]:
    """Every check that can fail before training starts: config, data, ranks, resume folder."""
    config.validate()
    world_size = world_size_from_environment()
    pick_training_device(config.device)
    data = load_run_data(config)
    plan = plan_batches(config, data.train, world_size)
    run_dir = Path(config.output)
    if config.resume:
        check_resumable(run_dir, config, plan.world_size, plan.accumulation)
    elif list_checkpoints(run_dir):
        raise ValueError(
            tr(
                "output: {folder!r} already holds checkpoints; pass --resume to continue "
                "them or choose another folder"
            ).format(folder=str(run_dir))
        )
    return data, plan


def normal_embedding_init_(model: Transformer) -> None:
    """The embedding matrices drawn from N(0, d_model^-0.5), as fairseq and tensor2tensor do.

    Scaled by sqrt(d_model), a token vector then starts at the size of the positional encoding,
    whatever the vocabulary. Xavier's spread shrinks as the vocabulary grows (notebook 10): with
    the 8,000 pieces of corpus "real", the token would start as a small part of the sum and, the
    matrix being shared with the output projection, the logits near uniform; on that corpus the
    validation loss after 300 steps was 5.43 with Xavier and 5.08 with this.
    """
    std = model.config.d_model**-0.5
    with torch.no_grad():
        for stack in (model.encoder, model.decoder):
            torch.nn.init.normal_(stack.embedding.embedding.weight, 0.0, std)


def _truncate_log(path: Path, last_step: int) -> float:
    """Drop log rows after ``last_step`` (steps a killed run did after its last checkpoint);
    returns the training seconds logged up to that step."""
    if not path.is_file():
        return 0.0
    with path.open(newline="", encoding="utf-8") as file:
        rows = [row for row in csv.DictReader(file) if int(row["step"]) <= last_step]
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, LOG_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return float(rows[-1]["seconds"]) if rows and rows[-1].get("seconds") else 0.0


def _tensorboard_writer(run_dir: Path):
    """A SummaryWriter when the tensorboard package is installed; None otherwise."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(run_dir / "tensorboard"))


def train_run(config: TrainConfig) -> Path:
    """Run ``config`` to config.steps; returns the run folder. Raises before training on bad input."""
    data, plan = prepare(config)
    ranks = init_distributed(config.device)
    try:
        return _train(config, data, plan, ranks)
    finally:
        cleanup_distributed()


def _train(config: TrainConfig, data: RunData, plan, ranks: Ranks) -> Path:
    run_dir = Path(config.output)
    device = ranks.device
    precision = resolve_precision(config.precision, device)
    pad_id, bos_id = data.tgt_vocab.pad_id, data.tgt_vocab.bos_id
    seed_everything(config.seed)  # the same initial weights on every rank
    model_config = config.model_config(len(data.src_vocab), len(data.tgt_vocab), pad_id)
    model = Transformer(model_config).to(device)
    if config.corpus == "real":
        normal_embedding_init_(model)
    optimizer, scheduler = make_optimizer(
        model, model_config.d_model, config.warmup_steps, config.lr_factor
    )
    scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
    step, position, seconds_before = 0, DataPosition(), 0.0
    log_path = run_dir / "log.csv"
    if config.resume:
        step, state, rng = load_training_checkpoint(run_dir, model, ranks)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        scaler.load_state_dict(state["scaler"])
        position = DataPosition(**state["data_position"])
        if rng is not None:
            set_rng_state(rng)
        if ranks.is_main:
            seconds_before = _truncate_log(log_path, step)
    else:
        # Each rank its own dropout masks; a fixed function of (seed, rank), so runs repeat.
        seed_everything(config.seed * 1000 + 1 + ranks.rank)
        if ranks.is_main:
            run_dir.mkdir(parents=True, exist_ok=True)
            description = {
                "config": config.to_dict(),
                "world_size": plan.world_size,
                "accumulation": plan.accumulation,
                "micro_tokens": plan.micro_tokens,
                "model_config": model_config.to_dict(),
                "parameters": sum(p.numel() for p in model.parameters()),
            }
            (run_dir / "config.json").write_text(json.dumps(description, indent=1) + "\n")
            if data.tokenizer is not None:  # corpus "real": what helpers.train.real decodes with
                data.tokenizer.save(run_dir / TOKENIZER_FILE)
            log_path.write_text(",".join(LOG_COLUMNS) + "\n")
    trained = model
    if ranks.world_size > 1:
        trained = DistributedDataParallel(
            model, device_ids=[ranks.local_rank] if device.type == "cuda" else None
        )
    batches = StepBatches(data.train, plan, config.seed, position)
    log_file = log_path.open("a", newline="", encoding="utf-8") if ranks.is_main else None
    log = csv.writer(log_file) if log_file else None
    tensorboard = _tensorboard_writer(run_dir) if ranks.is_main else None
    bar = tqdm(
        total=config.steps,
        initial=step,
        disable=not (config.progress and ranks.is_main),
        unit="step",
        mininterval=3.0,
    )
    model.train()
    run_started = time.perf_counter()
    try:
        while step < config.steps:
            step += 1
            started = time.perf_counter()
            step_batches = batches.next_step()
            # Every rank knows the whole step, so it can divide by the step's token count.
            target_tokens = sum(len(data.train[i][1]) for batch in step_batches for i in batch)
            source_tokens = sum(len(data.train[i][0]) for batch in step_batches for i in batch)
            optimizer.zero_grad(set_to_none=True)
            loss_sum = torch.zeros((), device=device)
            mine = batches.shard(step_batches, ranks.rank)
            for index, indices in enumerate(mine):
                src, tgt_input, tgt_output = (
                    t.to(device) for t in collate(data.train, indices, pad_id, bos_id)
                )
                last = index == len(mine) - 1
                no_sync = (
                    trained.no_sync()
                    if trained is not model and not last
                    else contextlib.nullcontext()
                )
                with no_sync:
                    with autocast(precision, device):
                        logits = trained(src, tgt_input)
                    tokens = int((tgt_output != pad_id).sum())
                    mean = label_smoothing_loss(logits, tgt_output, config.label_smoothing, pad_id)
                    loss = mean * (tokens * ranks.world_size / target_tokens)
                    scaler.scale(loss).backward()
                loss_sum += mean.detach() * tokens
            scaler.step(optimizer)
            scaler.update()
            learning_rate = scheduler.get_last_lr()[0]
            scheduler.step()
            step_loss = sum_over_ranks(loss_sum, ranks).item() / target_tokens
            tokens_per_s = (source_tokens + target_tokens) / (time.perf_counter() - started)
            valid_loss = None
            evaluate = step % config.eval_every == 0 or step == config.steps
            if evaluate and ranks.is_main:  # the other ranks go on and wait at the next step
                with autocast(precision, device):
                    valid_loss = evaluate_loss(model, data.valid, bos_id, plan.micro_tokens)
            if step % config.checkpoint_every == 0 or step == config.steps:
                state = {
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "scaler": scaler.state_dict(),
                    "data_position": position_to_dict(batches.position),
                }
                save_training_checkpoint(
                    run_dir, step, model, data.src_vocab, data.tgt_vocab, state, config, ranks
                )
            if log is not None:
                valid_text = "" if valid_loss is None else f"{valid_loss:.6f}"
                log.writerow(
                    [
                        step,
                        f"{step_loss:.6f}",
                        f"{learning_rate:.6e}",
                        f"{tokens_per_s:.1f}",
                        valid_text,
                        f"{seconds_before + time.perf_counter() - run_started:.1f}",
                    ]
                )
                log_file.flush()
                if tensorboard is not None:
                    tensorboard.add_scalar("loss/train", step_loss, step)
                    tensorboard.add_scalar("learning_rate", learning_rate, step)
                    tensorboard.add_scalar("tokens_per_s", tokens_per_s, step)
                    if valid_loss is not None:
                        tensorboard.add_scalar("loss/valid", valid_loss, step)
            postfix = {"loss": f"{step_loss:.3f}", "tok/s": f"{tokens_per_s:,.0f}"}
            if valid_loss is not None:
                postfix["valid"] = f"{valid_loss:.3f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(1)
            if config.stop_after == step:
                # For the resume test: die as a killed process does, with no clean-up at all.
                os.kill(os.getpid(), signal.SIGKILL)
    except KeyboardInterrupt:
        saved = list_checkpoints(run_dir)
        if ranks.is_main:
            where = f"step {saved[-1][0]}" if saved else "the start (no checkpoint yet)"
            print(
                f"\ninterrupted at step {step}; `--resume` continues from {where}",
                file=sys.stderr,
            )
        raise
    finally:
        bar.close()
        if log_file is not None:
            log_file.close()
        if tensorboard is not None:
            tensorboard.close()
    if ranks.is_main and config.progress:
        final = list_checkpoints(run_dir)[-1][1]
        perplexity = math.exp(valid_loss) if valid_loss is not None else float("nan")
        print(f"done: {step} steps, validation perplexity {perplexity:.3f}, checkpoint {final}")
    return run_dir
