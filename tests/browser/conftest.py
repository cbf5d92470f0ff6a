"""Real-browser tests: Debian's Chromium driven by Playwright through JupyterLab and the built site.

They start a browser and a Jupyter server and take minutes, so a plain `pytest` (and `make test`)
does not collect them: `make test-browser` sets ``TRANSFORMER_BROWSER_TESTS=1``. Playwright never
downloads a browser of its own here; it drives the ``chromium`` found on ``PATH``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

if os.environ.get("TRANSFORMER_BROWSER_TESTS") != "1":
    # Relative to this folder: nothing here is collected unless asked for.
    collect_ignore_glob = ["test_*.py"]


def fontconfig_with_the_series_font(folder: Path) -> Path:
    """A fontconfig file: the system's configuration plus the folder of the font the repository
    carries (Noto Sans SC), so Chromium draws Chinese without any system CJK font."""
    from helpers.paths import CHINESE_FONT_FILE

    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
        "<fontconfig>\n"
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{CHINESE_FONT_FILE.parent}</dir>\n"
        f"  <cachedir>{folder / 'cache'}</cachedir>\n"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return config


@pytest.fixture(scope="session")
def browser(tmp_path_factory) -> Iterator[object]:
    """The system's Chromium, headless, started once for the session, with the series' font."""
    from browser_support import CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail(
            "chromium is not on PATH: `make test-browser` installs Debian's chromium "
            "(apt-get install chromium); Playwright's own browsers are never downloaded"
        )
    with sync_playwright() as playwright:
        fonts = fontconfig_with_the_series_font(tmp_path_factory.mktemp("fontconfig"))
        browser = playwright.chromium.launch(
            executable_path=executable,
            args=CHROMIUM_ARGS,
            env={**os.environ, "FONTCONFIG_FILE": str(fonts)},
        )
        yield browser
        browser.close()


@pytest.fixture
def guarded_context(browser) -> Iterator[Callable[[], object]]:
    """Factory for browser contexts that let only loopback and local-file requests through."""
    from browser_support import VIEWPORT, guard

    made = []

    def make():
        # Service workers could fetch behind the route's back: block them.
        context = browser.new_context(viewport=VIEWPORT, service_workers="block")
        made.append(context)
        return guard(context)

    yield make
    for context in made:
        context.close()


@pytest.fixture(scope="session")
def lab_server():
    """One JupyterLab server for the session, on a temporary copy of notebooks/."""
    from browser_support import running_lab_server

    with running_lab_server() as server:
        yield server
