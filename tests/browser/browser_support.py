"""What the browser tests share: paths, the loopback-only request guard, the JupyterLab server.

Fixtures that use these live in conftest.py; the tests import the plain names from here.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from helpers.paths import BUILD_DIR, NOTEBOOKS_DIR, ROOT

# The site `make docs` writes; TRANSFORMER_SITE_DIR checks one built elsewhere (docs --output).
SITE_DIR = Path(os.environ.get("TRANSFORMER_SITE_DIR", BUILD_DIR / "site")).resolve()
SCREENSHOT_DIR = BUILD_DIR / "screenshots"

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

# Keep Chromium offline and quiet: no background services, no name lookups outside loopback
# (a second wall behind the request route, which sees neither DNS prefetches nor websockets).
CHROMIUM_ARGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-sync",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--no-pings",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--log-level=3",
]

VIEWPORT = {"width": 1280, "height": 900}


def is_local_url(url: str) -> bool:
    """True for file:, data:, blob: and about: URLs and for http(s)/ws(s) URLs on loopback."""
    parts = urlsplit(url)
    if parts.scheme in {"file", "data", "blob", "about"}:
        return True
    if parts.scheme in {"http", "https", "ws", "wss"}:
        return parts.hostname in LOOPBACK_HOSTS
    return False


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def screenshot_path(name: str) -> Path:
    """Where the screenshot called `name` goes (build/ is ignored by git)."""
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR / f"{name}.png"


@dataclass
class GuardedContext:
    """A browser context whose non-local requests are aborted and listed in `blocked`."""

    context: object
    blocked: list[str] = field(default_factory=list)
    websockets: list[str] = field(default_factory=list)


def guard(context) -> GuardedContext:
    """Route every request of `context`: loopback and local files go through, the rest is aborted."""
    guarded = GuardedContext(context)

    def route(route) -> None:
        url = route.request.url
        if is_local_url(url):
            route.continue_()
        else:
            guarded.blocked.append(url)
            route.abort("blockedbyclient")

    def watch_websockets(page) -> None:
        page.on("websocket", lambda websocket: guarded.websockets.append(websocket.url))

    context.route("**/*", route)
    # Websockets bypass routes: record them so a test can assert they stay on loopback.
    context.on("page", watch_websockets)
    return guarded


@dataclass
class LabServer:
    """A JupyterLab server on 127.0.0.1 over a temporary copy of notebooks/."""

    url: str
    token: str
    root_dir: Path
    log_path: Path

    def api(self, method: str, path: str) -> object:
        """Call the server's REST API with the token; returns the decoded JSON (or None)."""
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_sessions(self) -> None:
        """Stop every kernel session, so one notebook's kernel does not slow the next one."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def log_tail(self, n_chars: int = 3000) -> str:
        """The end of the server's log, for failure messages."""
        return self.log_path.read_text(errors="replace")[-n_chars:]


def _isolated_environment(base: Path) -> dict[str, str]:
    """The server's environment: config, data, runtime and settings all under `base`.

    The user's Jupyter, IPython and matplotlib settings must not change what the test sees; the
    kernel still finds `helpers` (installed editable in .venv) and .venv's own kernel spec.
    """
    env = {k: v for k, v in os.environ.items() if k not in {"JUPYTER_PATH", "JUPYTER_CONFIG_PATH"}}
    env.update(
        JUPYTER_PLATFORM_DIRS="1",
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(base / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "lab-workspaces"),
        IPYTHONDIR=str(base / "ipython"),
        MPLCONFIGDIR=str(base / "matplotlib"),
        PYTHONHASHSEED="0",
    )
    # No news or update checks: the toast would cover the page and the check would reach out.
    notification = base / "lab-settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"checkForUpdates": False, "fetchNews": "false"})
    )
    return env


@contextmanager
def running_lab_server(start_timeout_s: float = 60) -> Iterator[LabServer]:
    """Start `jupyter lab` on 127.0.0.1 (free port, random token) over a copy of notebooks/."""
    base = Path(tempfile.mkdtemp(prefix="browser-lab-"))
    try:
        yield from _serve_lab(base, start_timeout_s)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _serve_lab(base: Path, start_timeout_s: float) -> Iterator[LabServer]:
    """running_lab_server's body, inside `base` (which the caller removes)."""
    root_dir = base / "repository" / "notebooks"
    # A copy: the repository's notebooks must never be changed by a run in the browser. The
    # top-level files go beside it, as in the repository (00 reads ../requirements.txt).
    shutil.copytree(NOTEBOOKS_DIR, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for path in ROOT.iterdir():
        if path.is_file() and not path.name.startswith("."):
            shutil.copy2(path, root_dir.parent / path.name)
    env = _isolated_environment(base)
    port, token = free_port(), secrets.token_hex(24)
    command = [
        str(Path(sys.executable).parent / "jupyter"),
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        # Exposes `window.jupyterapp`: the kernel's connection state, which the UI only hints at.
        "--LabApp.expose_app_in_browser=True",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log_path = base / "jupyter.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    server = LabServer(f"http://127.0.0.1:{port}", token, root_dir, log_path)
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"jupyter lab exited with {process.returncode}:\n{server.log_tail()}"
                )
            try:
                server.api("GET", "/api/status")
                break
            except (urllib.error.URLError, ConnectionError) as error:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"jupyter lab did not answer /api/status in {start_timeout_s} s:\n"
                        f"{server.log_tail()}"
                    ) from error
                time.sleep(0.25)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
