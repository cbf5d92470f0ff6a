"""One process or many: ranks, devices and the process group (gloo on CPUs, nccl on GPUs).

Hand-written: edit this file itself; no notebook generates it.

``torchrun --nproc_per_node=N`` starts N copies of the command and tells each its RANK,
LOCAL_RANK and WORLD_SIZE through environment variables; a plain ``python -m`` has none of them
and runs as rank 0 of 1, without a process group.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from helpers.language import tr


@dataclass(frozen=True)
class Ranks:
    """Where this process stands: rank among world_size, its device, the backend (None alone)."""

    rank: int
    local_rank: int
    world_size: int
    device: torch.device
    backend: str | None

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def world_size_from_environment() -> int:
    """WORLD_SIZE as set by torchrun, 1 without it."""
    text = os.environ.get("WORLD_SIZE", "1")
    if not text.isdigit() or int(text) < 1:
        raise ValueError(tr("WORLD_SIZE: expected a positive int, got {text!r}").format(text=text))
    return int(text)


def pick_training_device(device: str) -> torch.device:
    """'auto' -> cuda when available, else cpu; 'cuda' without a GPU raises ValueError."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            tr("device: expected 'cpu' or 'auto' on this machine (no CUDA GPU), got 'cuda'")
        )
    return torch.device(device)


def init_distributed(device: str) -> Ranks:
    """Join the process group when started by torchrun (gloo on CPU, nccl on GPU)."""
    world_size = world_size_from_environment()
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    kind = pick_training_device(device)
    if kind.type == "cuda":
        torch.cuda.set_device(local_rank)
        kind = torch.device("cuda", local_rank)
    backend = None
    if world_size > 1:
        backend = "nccl" if kind.type == "cuda" else "gloo"
        dist.init_process_group(backend, rank=rank, world_size=world_size)
    return Ranks(rank, local_rank, world_size, kind, backend)


def cleanup_distributed() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def barrier(ranks: Ranks) -> None:
    if ranks.world_size > 1:
        dist.barrier()


def sum_over_ranks(value: torch.Tensor, ranks: Ranks) -> torch.Tensor:
    """The sum of ``value`` over every rank (itself when alone)."""
    if ranks.world_size > 1:
        value = value.clone()
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
    return value
