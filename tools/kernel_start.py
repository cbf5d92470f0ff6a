"""Hand-written: how the test session starts a notebook's kernel (the root conftest wires it in)."""

import warnings


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
