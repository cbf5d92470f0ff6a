"""How the test session starts a notebook's kernel (tools/kernel_start.py): a second time only
when it died before replying, and without jupyter_client's idle waits."""

import json
import sys
from contextlib import contextmanager

import nbval.kernel
import pytest
from jupyter_client.kernelspec import KernelSpecManager

from tools.kernel_start import PromptKernelClient, PromptKernelManager, start_kernel_retrying_once


def starts_failing(*errors):
    """A stand-in for nbval's start_new_kernel that raises `errors` in turn, then succeeds."""
    calls = []

    def start(*args, **kwargs):
        calls.append((args, kwargs))
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "manager", "client"

    return start, calls


def test_a_kernel_that_died_before_replying_is_started_again_with_the_same_arguments():
    start, calls = starts_failing(RuntimeError("Kernel died before replying to kernel_info"))
    with pytest.warns(UserWarning, match="exited before it started"):
        assert start_kernel_retrying_once(start)(kernel_name="k", cwd="/x") == ("manager", "client")
    assert calls == [((), {"kernel_name": "k", "cwd": "/x"})] * 2


def test_a_second_death_fails():
    died = RuntimeError("Kernel died before replying to kernel_info")
    start, calls = starts_failing(died, died)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="died before replying"):
        start_kernel_retrying_once(start)()
    assert len(calls) == 2


def test_other_failures_are_not_retried():
    start, calls = starts_failing(RuntimeError("Kernel didn't respond in 60 seconds"))
    with pytest.raises(RuntimeError, match="didn't respond"):
        start_kernel_retrying_once(start)()
    assert len(calls) == 1


# ---------------------------------------------------------------- PromptKernelManager


@contextmanager
def prompt_client(tmp_path, argv):
    """A PromptKernelManager's client of a kernel started with argv (a kernel spec of its own)."""
    folder = tmp_path / "kernels" / "k"
    folder.mkdir(parents=True)
    spec = {"argv": argv, "display_name": "k", "language": "python"}
    (folder / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])
    manager = PromptKernelManager(kernel_name="k", kernel_spec_manager=specs)
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_nbval_runs_cells_in_a_kernel_of_the_prompt_manager_and_stops_it(monkeypatch, tmp_path):
    monkeypatch.setattr(nbval.kernel, "KernelManager", PromptKernelManager)
    kernel = nbval.kernel.RunningKernel(nbval.kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(tmp_path))
    try:
        assert isinstance(kernel.km, PromptKernelManager)
        assert isinstance(kernel.kc, PromptKernelClient)
        # the first cell right after the start: its reply and its output arrive
        msg_id = kernel.execute_cell_input("import os; print(os.getcwd())", allow_stdin=False)
        kernel.await_reply(msg_id, timeout=30)
        outputs = []
        while True:
            msg = kernel.get_message(stream="iopub", timeout=30)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                outputs.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        assert outputs == [f"{tmp_path}\n"]
        process = kernel.km.provisioner.process
    finally:
        kernel.stop()
    assert process.poll() is not None, "the kernel's process is still running"


def test_a_kernel_that_exits_before_its_first_reply_is_reported_as_dead(tmp_path):
    exits = [sys.executable, "-c", "raise SystemExit(3)"]
    # the message start_kernel_retrying_once looks for
    died = "^Kernel died before replying to kernel_info$"
    with prompt_client(tmp_path, exits) as client, pytest.raises(RuntimeError, match=died):
        client.wait_for_ready(timeout=30)


def test_a_kernel_that_never_replies_times_out(tmp_path):
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    timed_out = "^Kernel didn't respond in 1.5 seconds$"
    with prompt_client(tmp_path, silent) as client, pytest.raises(RuntimeError, match=timed_out):
        client.wait_for_ready(timeout=1.5)
