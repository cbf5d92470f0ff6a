"""Notebook kernels forked from a zygote (tools/kernel_fork.py): what `make test` runs notebooks in.

A forked kernel must behave as the kernel jupyter_client would start: it runs code in the
notebook's folder with the environment it was given, stops a cell on an interrupt (nbval's cell
timeout), and is gone when jupyter_client shuts it down.
"""

import os
import time

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


@pytest.fixture
def kernel(tmp_path):
    manager, client = start(tmp_path, FORK_TEST_VARIABLE="given")
    yield manager, client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def test_a_forked_kernel_runs_in_the_notebook_s_folder_with_its_environment(kernel, tmp_path):
    _, client = kernel
    code = "import os, sys; print(os.getcwd(), os.environ['FORK_TEST_VARIABLE'], 'torch' in sys.modules)"
    reply, printed = run(client, code)
    assert reply["status"] == "ok"
    assert printed.split() == [str(tmp_path), "given", "True"]  # torch: loaded by the zygote


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
    manager, client = start(tmp_path)
    pid = int(run(client, "import os; print(os.getpid())")[1])
    assert (
        pid != manager.provisioner.process.pid
    )  # the fork, not the process jupyter_client started
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pid}")


def test_without_a_zygote_the_kernel_starts_on_its_own(tmp_path, monkeypatch):
    import tools.kernel_start

    monkeypatch.setattr(tools.kernel_start, "zygote_socket", lambda: str(tmp_path / "missing"))
    manager, client = start(tmp_path)
    try:
        reply, printed = run(client, "import sys; print('torch' in sys.modules)")
        assert reply["status"] == "ok" and printed.strip() == "False"  # a fresh Python
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
