"""What one forward pass costs, counted rather than timed (notebook 13): ``measure(layer, x)``;
``time_forward(layer, x)`` times it too, for the lesson that compares counts with the clock.

Hand-written: edit this file itself; no notebook generates it.

``CostMeter`` is a ``TorchDispatchMode``, the hook ``torch.utils.flop_counter`` is built on: it sees
every operation PyTorch runs, with its arguments and results. It counts FLOPs of matrix products
and convolutions from their shapes (two per multiply-add, as ``torch.utils.flop_counter`` does),
and follows memory by storage: a view shares its base's memory and adds nothing, and a block stops
counting when Python frees the last tensor that uses it. Inputs and parameters are not counted.
Notebook 13 checks it on cases counted by hand and against ``FlopCounterMode``.
"""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Callable, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode

_ATEN = torch.ops.aten


def _tensors(*objects: object) -> Iterator[torch.Tensor]:
    """The tensors inside arguments or results: alone, in lists and tuples, in dict values."""
    for item in objects:
        if isinstance(item, torch.Tensor):
            yield item
        elif isinstance(item, (list, tuple)):
            yield from _tensors(*item)
        elif isinstance(item, dict):
            yield from _tensors(*item.values())


def matmul_flops(func: object, args: tuple, output: object) -> int:
    """FLOPs of one matrix product or convolution, 2 per multiply-add; 0 for any other operation.

    Counted like torch.utils.flop_counter: mm, addmm (its bias add is not counted), bmm and
    convolution.
    """
    if func in (_ATEN.mm.default, _ATEN.bmm.default):
        a, b = args[0], args[1]
    elif func is _ATEN.addmm.default:
        a, b = args[1], args[2]
    elif func is _ATEN.convolution.default:
        # Each output element sums (C_in / groups) x kernel products: the weight's shape[1:].
        return 2 * output.numel() * math.prod(args[1].shape[1:])
    else:
        return 0
    # (..., m, k) @ (..., k, p): m * k * p multiply-adds per matrix, for every batch entry.
    return 2 * a.numel() * b.shape[-1]


class CostMeter(TorchDispatchMode):
    """Counts what the PyTorch operations run inside ``with CostMeter() as meter:`` cost.

    meter.flops: FLOPs of matrix products and convolutions (see ``matmul_flops``).
    meter.ops: the number of tensor operations, views included.
    meter.peak_bytes: the most bytes held at one time by tensors the operations created; a view
    or an in-place result shares its base's memory and adds nothing; inputs and parameters
    (created before the meter started) are not counted.
    meter.allocated_bytes: all bytes those operations created, freed later or not.
    Deterministic: it reads shapes and tensor lifetimes, never a clock or the process's memory.
    """

    def __init__(self):
        super().__init__()
        self.flops = 0
        self.ops = 0
        self.peak_bytes = 0
        self.allocated_bytes = 0
        self._bytes_now = 0
        # One entry per block of memory in use: its start address -> [bytes, tensors using it].
        self._blocks: dict[int, list[int]] = {}

    def _release(self, address: int) -> None:
        block = self._blocks[address]
        block[1] -= 1
        if block[1] == 0:  # the last tensor using this memory is gone
            self._bytes_now -= block[0]
            del self._blocks[address]

    def _track(self, tensor: torch.Tensor, input_addresses: set[int]) -> None:
        storage = tensor.untyped_storage()
        address, size = storage.data_ptr(), storage.nbytes()
        if size == 0 or (address in input_addresses and address not in self._blocks):
            return  # empty, or a view (or in-place result) of an input or a parameter
        if address not in self._blocks:  # new memory
            self._blocks[address] = [size, 0]
            self._bytes_now += size
            self.allocated_bytes += size
            self.peak_bytes = max(self.peak_bytes, self._bytes_now)
        self._blocks[address][1] += 1
        weakref.finalize(tensor, self._release, address)  # called when Python frees the tensor

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        output = func(*args, **kwargs)
        self.ops += 1
        self.flops += matmul_flops(func, args, output)
        input_addresses = {t.untyped_storage().data_ptr() for t in _tensors(args, kwargs)}
        for tensor in _tensors(output):
            self._track(tensor, input_addresses)
        return output


def measure(layer: Callable[[torch.Tensor], object], x: torch.Tensor) -> CostMeter:
    """Run layer(x) once without gradients under a CostMeter and return the meter."""
    with torch.no_grad(), CostMeter() as meter:
        layer(x)
    return meter


def time_forward(
    layer: Callable[[torch.Tensor], object], x: torch.Tensor, repeats: int = 5
) -> float:
    """Seconds of the fastest of ``repeats`` runs of layer(x) without gradients, after a warm-up.

    The first call pays for memory allocation, so it is not timed; other programs only ever slow a
    run down, so the fastest is the best estimate. On a GPU, whose work is asynchronous, the clock
    is read only once the device has finished.
    """

    def synchronize() -> None:
        if x.device.type == "cuda":
            torch.cuda.synchronize(x.device)

    runs = []
    with torch.no_grad():
        layer(x)  # warm-up
        for _ in range(repeats):
            synchronize()
            start = time.perf_counter()
            layer(x)
            synchronize()
            runs.append(time.perf_counter() - start)
    return min(runs)
