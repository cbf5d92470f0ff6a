"""The training loop of ``python -m helpers.train``: DDP, accumulation, precision, logs, checkpoints.

Hand-written: edit this file itself; no notebook generates it.

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
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from helpers.checks import fail
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.runtime import seed_everything
from helpers.text.vocab import collate
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
    BatchPlan,
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
from helpers.training.transformer import evaluate_loss, label_smoothing_loss, make_optimizer

# seconds: training time since the run began (data loading excluded), carried across --resume.
# grad_norm: the global L2 norm of the step's gradient, before --clip-norm clips it.
LOG_COLUMNS = [
    "step",
    "loss",
    "learning_rate",
    "grad_norm",
    "tokens_per_s",
    "valid_loss",
    "seconds",
]


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


def check_compile_possible(device: torch.device) -> None:
    """Raise ValueError unless torch.compile's default backend (inductor) can build kernels here.

    Inductor writes C++ on a CPU (it needs a C++ compiler: g++, or the one CXX names) and Triton
    kernels on a GPU. ``--compile`` fails before training rather than falling back to eager mode,
    so that a run timed as compiled was compiled.
    """
    if device.type == "cuda":
        import importlib.util

        if importlib.util.find_spec("triton") is None:
            fail(
                "compile: expected the triton package on a GPU (torch.compile builds its kernels "
                "with it), got none; install it or drop --compile"
            )
        return
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        get_cpp_compiler()
    except Exception as error:  # InvalidCxxCompiler, or an inductor that moved its function
        reason = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
        fail(
            "compile: expected a C++ compiler on a CPU (torch.compile builds its kernels with "
            "it; install g++ or set CXX), got none ({reason}); or drop --compile",
            reason=reason or type(error).__name__,
        )


def prepare(config: TrainConfig) -> tuple[RunData, BatchPlan]:
    """Every check that can fail before training starts: config, data, ranks, resume folder."""
    config.validate()
    world_size = world_size_from_environment()
    device = pick_training_device(config.device)
    if config.compile:
        check_compile_possible(device)
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


def init_embeddings_(model: Transformer, kind: str) -> None:
    """``kind`` "xavier" keeps the model's own initialisation; "normal" redraws the embeddings
    (``normal_embedding_init_``). ``--embedding-init`` chooses; without it, the corpus's default
    (``helpers.train.config.CORPUS_EMBEDDING_INIT``)."""
    if kind == "normal":
        normal_embedding_init_(model)


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


def build_model(config: TrainConfig, data: RunData, device: torch.device) -> Transformer:
    """The run's model, the same on every rank (seeded), initialised and compiled as configured."""
    seed_everything(config.seed)
    pad_id = data.tgt_vocab.pad_id
    model_config = config.model_config(len(data.src_vocab), len(data.tgt_vocab), pad_id)
    model = Transformer(model_config).to(device)
    init_embeddings_(model, config.embedding_init_used)
    if config.compile:
        model.compile()  # in place: the parameters keep their names in state_dict and checkpoints
    return model


@dataclass
class RunState:
    """What a checkpoint restores: the model, its optimiser and schedule, the step reached, the
    position in the batch stream and the training seconds of earlier sessions of the run."""

    model: Transformer
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    scaler: torch.amp.GradScaler
    step: int = 0
    position: DataPosition = field(default_factory=DataPosition)
    seconds_before: float = 0.0

    def training_state(self, batches: StepBatches) -> dict:
        return {
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "data_position": position_to_dict(batches.position),
        }


def start_or_resume(
    config: TrainConfig, data: RunData, plan: BatchPlan, ranks: Ranks, precision: str
) -> RunState:
    """A new run (its folder written by rank 0), or the latest checkpoint of ``config.output``."""
    model = build_model(config, data, ranks.device)
    optimizer, scheduler = make_optimizer(
        model, model.config.d_model, config.warmup_steps, config.lr_factor
    )
    scaler = torch.amp.GradScaler(ranks.device.type, enabled=precision == "fp16")
    state = RunState(model, optimizer, scheduler, scaler)
    run_dir = Path(config.output)
    if config.resume:
        state.step, saved, rng = load_training_checkpoint(run_dir, model, ranks)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        scaler.load_state_dict(saved["scaler"])
        state.position = DataPosition(**saved["data_position"])
        if rng is not None:
            set_rng_state(rng)
        if ranks.is_main:
            state.seconds_before = _truncate_log(run_dir / "log.csv", state.step)
    else:
        # Each rank its own dropout masks; a fixed function of (seed, rank), so runs repeat.
        seed_everything(config.seed * 1000 + 1 + ranks.rank)
        if ranks.is_main:
            _write_run_folder(run_dir, config, data, plan, model)
    return state


def _write_run_folder(
    run_dir: Path, config: TrainConfig, data: RunData, plan: BatchPlan, model: Transformer
) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    description = {
        "config": config.to_dict(),
        "world_size": plan.world_size,
        "accumulation": plan.accumulation,
        "micro_tokens": plan.micro_tokens,
        "model_config": model.config.to_dict(),
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    (run_dir / "config.json").write_text(json.dumps(description, indent=1) + "\n")
    if data.tokenizer is not None:  # corpus "real": what helpers.train.real decodes with
        data.tokenizer.save(run_dir / TOKENIZER_FILE)
    (run_dir / "log.csv").write_text(",".join(LOG_COLUMNS) + "\n")


@dataclass(frozen=True)
class StepResult:
    """What one optimizer step measured (the same on every rank but tokens_per_s)."""

    loss: float  # label-smoothed, per target token of the whole step
    learning_rate: float  # the rate this step used
    grad_norm: float  # global L2 norm of the step's gradient, before clipping
    tokens_per_s: float  # source + target tokens (not padding) per second of this rank's step


def clip_gradients(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    clip_norm: float | None,
) -> float:
    """The gradients' global L2 norm; with ``clip_norm``, scale them down to at most that norm.

    The same two calls as notebook 11's loop (``get_total_norm``, ``clip_grads_with_norm_``),
    after undoing fp16's loss scaling, so the norm is that of the true gradient.
    """
    scaler.unscale_(optimizer)  # a no-op unless fp16 scales the loss
    gradients = [p.grad for p in model.parameters() if p.grad is not None]
    grad_norm = torch.nn.utils.get_total_norm(gradients)
    if clip_norm is not None:
        torch.nn.utils.clip_grads_with_norm_(model.parameters(), clip_norm, grad_norm)
    return grad_norm.item()


def train_step(
    state: RunState,
    trained: torch.nn.Module,
    step_batches: list[list[int]],
    mine: list[list[int]],
    data: RunData,
    config: TrainConfig,
    ranks: Ranks,
    precision: str,
) -> StepResult:
    """One optimizer step: this rank's micro-batches (``mine``) of the step (``step_batches``).

    Each micro-batch's loss is weighted so that the gradients, accumulated here and averaged over
    the ranks by DDP, are those of the mean loss over every target token of the step.
    """
    started = time.perf_counter()
    device, pad_id, bos_id = ranks.device, data.tgt_vocab.pad_id, data.tgt_vocab.bos_id
    # Every rank knows the whole step, so it can divide by the step's token count.
    target_tokens = sum(len(data.train[i][1]) for batch in step_batches for i in batch)
    source_tokens = sum(len(data.train[i][0]) for batch in step_batches for i in batch)
    state.optimizer.zero_grad(set_to_none=True)
    loss_sum = torch.zeros((), device=device)
    for index, indices in enumerate(mine):
        src, tgt_input, tgt_output = (
            t.to(device) for t in collate(data.train, indices, pad_id, bos_id)
        )
        last = index == len(mine) - 1  # DDP averages the gradients after the last one only
        no_sync = (
            trained.no_sync()
            if trained is not state.model and not last
            else contextlib.nullcontext()
        )
        with no_sync:
            with autocast(precision, device):
                logits = trained(src, tgt_input)
            tokens = int((tgt_output != pad_id).sum())
            mean = label_smoothing_loss(logits, tgt_output, config.label_smoothing, pad_id)
            loss = mean * (tokens * ranks.world_size / target_tokens)
            state.scaler.scale(loss).backward()
        loss_sum += mean.detach() * tokens
    grad_norm = clip_gradients(state.model, state.optimizer, state.scaler, config.clip_norm)
    state.scaler.step(state.optimizer)
    state.scaler.update()
    learning_rate = state.scheduler.get_last_lr()[0]
    state.scheduler.step()
    state.step += 1
    return StepResult(
        loss=sum_over_ranks(loss_sum, ranks).item() / target_tokens,
        learning_rate=learning_rate,
        grad_norm=grad_norm,
        tokens_per_s=(source_tokens + target_tokens) / (time.perf_counter() - started),
    )


class RunLog:
    """Where rank 0 reports each step: log.csv, TensorBoard (when installed) and a tqdm bar."""

    def __init__(self, run_dir: Path, config: TrainConfig, ranks: Ranks, state: RunState):
        self.path = run_dir / "log.csv"
        self.file = self.path.open("a", newline="", encoding="utf-8") if ranks.is_main else None
        self.csv = csv.writer(self.file) if self.file else None
        self.tensorboard = _tensorboard_writer(run_dir) if ranks.is_main else None
        self.bar = tqdm(
            total=config.steps,
            initial=state.step,
            disable=not (config.progress and ranks.is_main),
            unit="step",
            mininterval=3.0,
        )
        self.seconds_before, self.started = state.seconds_before, time.perf_counter()

    def record(self, step: int, result: StepResult, valid_loss: float | None) -> None:
        if self.csv is not None:
            self.csv.writerow(
                [
                    step,
                    f"{result.loss:.6f}",
                    f"{result.learning_rate:.6e}",
                    f"{result.grad_norm:.6f}",
                    f"{result.tokens_per_s:.1f}",
                    "" if valid_loss is None else f"{valid_loss:.6f}",
                    f"{self.seconds_before + time.perf_counter() - self.started:.1f}",
                ]
            )
            self.file.flush()
        if self.tensorboard is not None:
            self.tensorboard.add_scalar("loss/train", result.loss, step)
            self.tensorboard.add_scalar("learning_rate", result.learning_rate, step)
            self.tensorboard.add_scalar("grad_norm", result.grad_norm, step)
            self.tensorboard.add_scalar("tokens_per_s", result.tokens_per_s, step)
            if valid_loss is not None:
                self.tensorboard.add_scalar("loss/valid", valid_loss, step)
        postfix = {"loss": f"{result.loss:.3f}", "tok/s": f"{result.tokens_per_s:,.0f}"}
        if valid_loss is not None:
            postfix["valid"] = f"{valid_loss:.3f}"
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
        if self.file is not None:
            self.file.close()
        if self.tensorboard is not None:
            self.tensorboard.close()


def run_training(config: TrainConfig) -> Path:
    """Run ``config`` to config.steps; returns the run folder. Raises before training on bad input."""
    data, plan = prepare(config)
    ranks = init_distributed(config.device)
    try:
        return _training_loop(config, data, plan, ranks)
    finally:
        cleanup_distributed()


def _training_loop(config: TrainConfig, data: RunData, plan: BatchPlan, ranks: Ranks) -> Path:
    """The loop: step, validate (rank 0), log, checkpoint (every rank); then the summary."""
    run_dir = Path(config.output)
    precision = resolve_precision(config.precision, ranks.device)
    state = start_or_resume(config, data, plan, ranks, precision)
    trained = state.model
    if ranks.world_size > 1:
        device_ids = [ranks.local_rank] if ranks.device.type == "cuda" else None
        trained = DistributedDataParallel(state.model, device_ids=device_ids)
    batches = StepBatches(data.train, plan, config.seed, state.position)
    run_log = RunLog(run_dir, config, ranks, state)
    state.model.train()
    try:
        while state.step < config.steps:
            step_batches = batches.next_step()
            mine = batches.shard(step_batches, ranks.rank)
            result = train_step(state, trained, step_batches, mine, data, config, ranks, precision)
            step, last = state.step, state.step == config.steps
            valid_loss = None
            if (step % config.eval_every == 0 or last) and ranks.is_main:
                with autocast(precision, ranks.device):  # the other ranks wait at the next step
                    valid_loss = evaluate_loss(
                        state.model, data.valid, data.tgt_vocab.bos_id, plan.micro_tokens
                    )
            # Logged before the checkpoint, so that a checkpoint's step is always in log.csv,
            # however soon after it the process is killed.
            run_log.record(step, result, valid_loss)
            if step % config.checkpoint_every == 0 or last:
                saved = state.training_state(batches)
                save_training_checkpoint(
                    run_dir, step, state.model, data.src_vocab, data.tgt_vocab, saved, config, ranks
                )
    except KeyboardInterrupt:
        if ranks.is_main:
            _say_where_to_resume(run_dir, state.step)
        raise
    finally:
        run_log.close()
    if ranks.is_main:
        print(summary(run_dir))
    return run_dir


def _say_where_to_resume(run_dir: Path, step: int) -> None:
    saved = list_checkpoints(run_dir)
    if saved:
        message = tr("interrupted at step {step}; --resume continues from step {saved}").format(
            step=step, saved=saved[-1][0]
        )
    else:
        message = tr(
            "interrupted at step {step}; no checkpoint yet, --resume has nothing to continue"
        ).format(step=step)
    print("\n" + message, file=sys.stderr)


def last_validation(run_dir: Path) -> tuple[int, float] | None:
    """(step, validation loss) of the last validated step in a run's log.csv; None if none."""
    path = Path(run_dir) / "log.csv"
    if not path.is_file():
        return None
    with path.open(newline="", encoding="utf-8") as file:
        validated = [row for row in csv.DictReader(file) if row.get("valid_loss")]
    return (int(validated[-1]["step"]), float(validated[-1]["valid_loss"])) if validated else None


def summary(run_dir: Path) -> str:
    """What a finished run prints, with or without a progress bar: its last validation loss and
    where its checkpoints are."""
    saved = list_checkpoints(run_dir)
    latest = saved[-1][1] if saved else Path(run_dir) / "checkpoints"
    validation = last_validation(run_dir)
    if validation is None:
        return tr("done: no validation loss logged; checkpoints in {folder}").format(
            folder=latest.parent
        )
    step, loss = validation
    return tr(
        "done at step {step}: validation loss {loss:.4f} (perplexity {perplexity:.2f}); "
        "checkpoints in {folder}, the latest {latest}"
    ).format(
        step=step,
        loss=loss,
        perplexity=math.exp(loss),
        folder=latest.parent,
        latest=latest.name,
    )
