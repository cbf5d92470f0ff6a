"""The test session starts a notebook's kernel a second time only when it died before replying."""

import pytest

from tools.kernel_start import start_kernel_retrying_once


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
