"""Hand-written: notebook kernels forked from a process that has already imported what they import.

The test session starts 36 notebook kernels. Each would spend about 2.5 s of CPU on the same start:
Python, IPython and ipykernel, then ``import torch`` in the first cell. Under ``make test`` each
pytest worker starts one *zygote* instead, a process that imports ipykernel, numpy, torch and
matplotlib once and then waits; every kernel is a fork of it, so it starts with them loaded.

A forked kernel is still a fresh kernel: its own process, nothing run in it, the notebook's cells
executed from the first, its ``import torch`` still executed (it only finds the module loaded).
Nothing else is shared: each fork gets the environment, working folder and standard streams that
jupyter_client gave the command below, a new session of its own, and the import path and argv[0]
of ``python -m ipykernel_launcher`` (tests/test_kernel_fork.py compares it with such a kernel).

Two commands of this file, both started by ``tools.kernel_start``:

    python tools/kernel_fork.py zygote SOCKET     the zygote: imports, then forks on request
    python tools/kernel_fork.py kernel -f FILE    the kernel command jupyter_client starts

The second is a stand-in that jupyter_client manages like any kernel process: it asks the zygote
for a fork, passes its environment, folder and streams, forwards the signals jupyter_client sends
(an interrupt is SIGINT), and exits when the kernel exits. The kernel exits when the stand-in does
(jupyter_client kills it to shut the kernel down), so no kernel outlives its notebook.

This file imports only the standard library until the zygote imports its modules: the stand-in
starts in a few milliseconds.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import select
import signal
import socket
import sys
import warnings

# What the zygote imports before its first fork: what every kernel and every notebook import.
PRELOADED = (
    # what ipykernel imports as a kernel starts: its kernel class (with its debugger, debugpy),
    # pdb, IPython's history database and extensions (about 0.2 s of each kernel's start)
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "IPython.core.debugger",
    "IPython.extensions.storemagic",
    "sqlite3",
    "psutil",
    "tornado.platform.asyncio",
    # what every notebook imports
    "numpy",
    "torch",
    "matplotlib.pyplot",
)
# matplotlib reads $MPLBACKEND when it is imported; ipykernel sets it to this where it is unset.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
SOCKET_VARIABLE = "TRANSFORMER_KERNEL_ZYGOTE"  # the zygote's socket, in the stand-in's environment
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


def exit_with(pid: int) -> None:
    """Exit this process, whatever it is doing, when process ``pid`` has exited."""
    descriptor = os.pidfd_open(pid)

    def wait() -> None:
        select.select([descriptor], [], [])
        os._exit(0)

    import threading

    threading.Thread(target=wait, daemon=True, name="exit-with-" + str(pid)).start()


def run_kernel(request: dict, streams: list[int], zygote_backend: str) -> None:
    """In a fork of the zygote: become the kernel that the stand-in's request describes."""
    os.setsid()
    for target, stream in enumerate(streams):
        os.dup2(stream, target)
        os.close(stream)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    backend = os.environ.get("MPLBACKEND") or INLINE_BACKEND
    if backend != zygote_backend:  # what matplotlib would have read, had the kernel imported it
        sys.modules["matplotlib"].rcParams["backend"] = backend
    exit_with(request["stand_in"])
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote's only changed disposition
    # ipykernel read $JPY_PARENT_PID when the zygote imported it, before jupyter_client set it.
    parent = [f"--IPKernelApp.parent_handle={os.environ.get('JPY_PARENT_PID') or 0}"]
    launcher = importlib.util.find_spec("ipykernel_launcher").origin
    sys.argv = [launcher, *request["argv"], *parent]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()
    os._exit(0)


def zygote(path: str, parent: int) -> None:
    """Import PRELOADED, then fork a kernel for each request on the Unix socket at path, until
    the process ``parent`` (the pytest worker) exits."""
    del sys.path[0]  # tools/: ipykernel_launcher removes a script's folder from a kernel's path
    backend = os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    for module in PRELOADED:
        importlib.import_module(module)
    # Python 3.12+ warns at every fork of a process that has threads: here numpy's BLAS threads,
    # idle, which reset themselves in the child (fork handlers of their own).
    warnings.filterwarnings("ignore", r"This process .* is multi-threaded", DeprecationWarning)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forks are reaped without a wait
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    print("ready", flush=True)  # the worker reads this line before it sends the first request
    parent_exited = os.pidfd_open(parent)
    while True:
        readable, _, _ = select.select([listener, parent_exited], [], [])
        if parent_exited in readable:
            os._exit(0)
        connection, _ = listener.accept()
        message, streams, _, _ = socket.recv_fds(connection, 1 << 16, 3)
        while chunk := connection.recv(1 << 16):  # the rest of the request, up to its end
            message += chunk
        pid = os.fork()
        if pid == 0:
            listener.close()
            connection.close()
            os.close(parent_exited)
            run_kernel(json.loads(message), streams, backend)
        for stream in streams:
            os.close(stream)
        connection.sendall(str(pid).encode())
        connection.close()


def stand_in(argv: list[str]) -> None:
    """The process jupyter_client starts: get a kernel forked, and live exactly as long as it.

    Where the zygote cannot be reached, this process becomes an ordinary kernel instead."""
    request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "stand_in": os.getpid()}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(os.environ[SOCKET_VARIABLE])
            socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
            connection.shutdown(socket.SHUT_WR)
            kernel = int(connection.recv(64))
    except (KeyError, OSError, ValueError) as error:
        print(f"kernel_fork: no zygote ({error!r}); starting a kernel of its own", file=sys.stderr)
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])
    for number in FORWARDED_SIGNALS:
        signal.signal(number, lambda number, _frame: os.kill(kernel, number))
    select.select([os.pidfd_open(kernel)], [], [])  # until the kernel exits
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1] == "zygote":
        zygote(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "kernel":
        stand_in(sys.argv[2:])
    else:
        raise SystemExit(f"usage: {sys.argv[0]} zygote SOCKET PARENT_PID | kernel -f FILE")
