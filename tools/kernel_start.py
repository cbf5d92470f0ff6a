"""Hand-written: how the test session starts a notebook's kernel (the root conftest wires it in)."""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from functools import cache
from pathlib import Path
from queue import Empty

from jupyter_client.blocking import BlockingKernelClient
from jupyter_client.manager import AsyncKernelManager, KernelManager
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager
from traitlets import DottedObjectName

from tools.kernel_fork import SOCKET_VARIABLE


def start_kernel_retrying_once(start):
    """nbval's `start`, run a second time when the kernel exits before its first reply.

    Under pytest-xdist two kernels start at once. One way such a kernel dies: jupyter_client
    picks a kernel's TCP ports by binding and releasing them, and until the kernel binds them the
    other worker's connections can take one. Seen once in CI: every cell of notebooks/zh/15 failed
    with "Kernel died before replying to kernel_info". No cell has run when this happens, so the
    second start hides no result; a second death fails as before.
    """

    def start_kernel(*args, **kwargs):
        try:
            return start(*args, **kwargs)
        except RuntimeError as error:
            if "died before replying" not in str(error):
                raise
            warnings.warn(
                f"a notebook kernel exited before it started ({error}); starting it again",
                stacklevel=2,
            )
            return start(*args, **kwargs)

    return start_kernel


def forked_kernels_wanted() -> bool:
    """Whether notebook kernels are forked from a zygote: on Linux (``os.pidfd_open``), unless
    ``TRANSFORMER_FORKED_KERNELS=0``."""
    return hasattr(os, "pidfd_open") and os.environ.get("TRANSFORMER_FORKED_KERNELS") != "0"


def nbclient_kernel_manager() -> AsyncKernelManager:
    """For the tests that run cells with nbclient: the kernel nbval runs notebooks in, the current
    environment's ipykernel, forked where forked kernels are wanted. Pass it as ``km``."""
    specs = NbvalKernelspecManager
    if forked_kernels_wanted():
        specs = forking_kernelspec_manager(specs)
    return AsyncKernelManager(kernel_name=CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=specs())


ZYGOTE_SCRIPT = Path(__file__).with_name("kernel_fork.py")
LAUNCHER = ["-m", "ipykernel_launcher"]  # what the forked kernel runs instead (its arguments kept)


@cache
def zygote_socket() -> str | None:
    """The socket of this process's kernel zygote (tools/kernel_fork.py), started on first use;
    it exits when this process does. None (and a warning, once) where it could not start."""
    folder = tempfile.mkdtemp(prefix="transformer-kernels-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = os.path.join(folder, "zygote")
    command = [sys.executable, str(ZYGOTE_SCRIPT), "zygote", path, str(os.getpid())]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    atexit.register(stop_zygote, process)
    if process.stdout.readline().strip() != "ready":
        message = f"no kernel zygote ({' '.join(command)}): kernels start as usual"
        warnings.warn(message, stacklevel=2)
        return None
    return path


def stop_zygote(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait()
    process.stdout.close()


def forking_kernelspec_manager(base: type) -> type:
    """nbval's kernelspec manager (``base``), with the kernel of the current environment started
    as a fork of this process's zygote (tools/kernel_fork.py) instead of a new Python."""

    class ForkingKernelSpecManager(base):
        def get_kernel_spec(self, kernel_name):
            spec = super().get_kernel_spec(kernel_name)
            if kernel_name == CURRENT_ENV_KERNEL_NAME and spec.argv[1:3] == LAUNCHER:
                socket = zygote_socket()
                if socket is not None:
                    spec.argv = [sys.executable, str(ZYGOTE_SCRIPT), "kernel", *spec.argv[3:]]
                    spec.env = {**spec.env, SOCKET_VARIABLE: socket}
            return spec

    return ForkingKernelSpecManager


class PromptKernelClient(BlockingKernelClient):
    """jupyter_client's client, ready as soon as the kernel answers kernel_info."""

    def wait_for_ready(self, timeout: float | None = None) -> None:
        """Until the kernel replies to kernel_info: jupyter_client's wait without its last step,
        0.2 s of waiting for IOPub to fall silent. nbval needs no silence: it next waits for the
        idle message of a kernel_info of its own on IOPub, and reads only the messages that
        answer its requests."""
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                if self.get_shell_msg(timeout=1)["msg_type"] == "kernel_info_reply":
                    return
            except Empty:
                pass
            if not self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")


class PromptKernelManager(KernelManager):
    """jupyter_client's kernel manager without its idle waits: the client above, and a killed
    kernel's exit checked every 5 ms instead of every 100 ms (nbval kills each notebook's kernel
    when the notebook is done)."""

    client_class = DottedObjectName(f"{__name__}.PromptKernelClient")

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        await super()._async_wait(pollinterval=0.005)
