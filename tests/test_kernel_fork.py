"""Notebook kernels forked from a zygote (tools/kernel_fork.py): what `make test` runs notebooks in.

A forked kernel must behave as the kernel jupyter_client would start: it runs code in the
notebook's folder with the environment it was given, stops a cell on an interrupt (nbval's cell
timeout), and is gone when jupyter_client shuts it down.
"""

import json
import os
import time
from contextlib import contextmanager
from functools import cache

import pytest
from jupyter_client.manager import KernelManager
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager

from tools.kernel_start import forking_kernelspec_manager

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="Linux only (pidfd_open)")


def start(cwd, **env):
    manager = KernelManager(
        kernel_name=CURRENT_ENV_KERNEL_NAME,
        kernel_spec_manager=forking_kernelspec_manager(NbvalKernelspecManager)(),
    )
    manager.start_kernel(cwd=str(cwd), env={**os.environ, **env})
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    return manager, client


def run(client, code, timeout=30):
    """The reply of executing code, and what it printed."""
    printed = []
    reply = client.execute_interactive(
        code,
        timeout=timeout,
        output_hook=lambda msg: printed.append(msg["content"].get("text", "")),
    )
    return reply["content"], "".join(printed)


# What a kernel sees of where and how it was started, and whether torch is loaded before any cell.
INTROSPECT = """import json, os, sys
torch_loaded = "torch" in sys.modules
import matplotlib
print(json.dumps([os.getcwd(), os.environ.get("FORK_TEST_VARIABLE"), sys.path, sys.argv[0],
                  os.environ.get("MPLBACKEND"), matplotlib.rcParams["backend"], torch_loaded]))"""


@contextmanager
def kernel_in(cwd, **env):
    manager, client = start(cwd, **env)
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel(tmp_path):
    with kernel_in(tmp_path) as started:
        yield started


@pytest.mark.parametrize("backend", [None, "agg"])  # ipykernel's default, or one chosen
def test_a_forked_kernel_sees_what_a_kernel_started_as_usual_sees(tmp_path, monkeypatch, backend):
    """Folder, environment, import path, argv[0] and matplotlib's backend, with and without the
    zygote; without it (no socket: the stand-in starts a kernel of its own) torch is not loaded."""
    if backend is not None:
        monkeypatch.setenv("MPLBACKEND", backend)  # the kernels inherit it
    import tools.kernel_start

    seen = {}
    no_zygote = str(tmp_path / "no-zygote")
    for how in ("forked", "as usual"):
        if how == "as usual":
            monkeypatch.setattr(tools.kernel_start, "zygote_socket", lambda: no_zygote)
        with kernel_in(tmp_path, FORK_TEST_VARIABLE="given") as (_, client):
            reply, printed = run(client, INTROSPECT)
            assert reply["status"] == "ok", reply
            seen[how] = json.loads(printed)
    *forked, torch_loaded = seen["forked"]
    *as_usual, torch_loaded_as_usual = seen["as usual"]
    assert forked == as_usual
    assert forked[:2] == [str(tmp_path), "given"]
    assert torch_loaded and not torch_loaded_as_usual  # the zygote's imports, and only they


def test_an_interrupt_stops_the_running_cell_and_the_kernel_goes_on(kernel):
    manager, client = kernel
    # stop_on_error=False: the kernel then runs the next cell at once instead of aborting it
    message = client.execute("import time; time.sleep(60)", stop_on_error=False)
    time.sleep(1.0)
    started = time.perf_counter()
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=20)
    assert reply["parent_header"]["msg_id"] == message
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert time.perf_counter() - started < 10
    reply, printed = run(client, "print(6 * 7)")
    assert reply["status"] == "ok" and printed == "42\n"


def test_shutting_the_kernel_down_ends_the_forked_process(tmp_path):
    with kernel_in(tmp_path) as (manager, client):
        pid = int(run(client, "import os; print(os.getpid())")[1])
        assert pid != manager.provisioner.process.pid  # the fork, not the stand-in
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pid}")


def test_a_zygote_that_does_not_start_leaves_kernels_to_start_as_usual(tmp_path, monkeypatch):
    import tools.kernel_start

    broken = tmp_path / "broken_zygote.py"
    broken.write_text("raise SystemExit(1)\n", encoding="utf-8")
    monkeypatch.setattr(tools.kernel_start, "ZYGOTE_SCRIPT", broken)
    fresh = cache(tools.kernel_start.zygote_socket.__wrapped__)  # not this process's zygote
    monkeypatch.setattr(tools.kernel_start, "zygote_socket", fresh)
    warned = pytest.warns(UserWarning, match="no kernel zygote")
    with warned, kernel_in(tmp_path) as (manager, client):
        reply, printed = run(client, "import sys; print('torch' in sys.modules)")
        assert reply["status"] == "ok" and printed == "False\n"
        assert manager.kernel_spec.argv[1:3] == ["-m", "ipykernel_launcher"]
