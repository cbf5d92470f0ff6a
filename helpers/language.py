"""The language the helpers speak: English, or Chinese in the Chinese edition (notebooks/zh/).

Hand-written: edit this file itself; no notebook generates it.

    setup_notebook(language="zh")   # what the first cell of every Chinese notebook calls

Messages the helpers print (the exercises' ✓/✗ verdicts, the explorers' readouts, table headers,
figure labels) are written in English and wrapped in ``tr``; ``tr`` returns the translation from
the catalogue ``helpers/locale/<language>.po`` (gettext's PO format, edited with any PO tool)
when the language is not English. A message with placeholders is translated first, then
formatted: ``tr("expected {what}, got {got}").format(what=..., got=...)``.

When ``$TRANSFORMER_RECORD_MESSAGES`` names a file, ``tr`` appends each message it translates to
it, one JSON string per line: ``python -m tools.run_notebooks`` records what a Chinese notebook's
run asked for, so that a test can tell when a translation it printed or drew has changed since.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "zh")
# Beside this module; computed here, not taken from helpers.paths, which raises through tr.
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
RECORD_ENV_VAR = "TRANSFORMER_RECORD_MESSAGES"
_current = "en"


def set_language(language: str) -> None:
    """Speak ``language`` ("en" or "zh") from now on."""
    global _current
    if language not in LANGUAGES:
        raise ValueError(
            tr("language: expected one of {languages}, got {language!r}").format(
                languages=", ".join(LANGUAGES), language=language
            )
        )
    _current = language


def current_language() -> str:
    return _current


@cache
def catalogue(language: str) -> dict[str, str]:
    """English -> translation for every translated, non-fuzzy entry of the language's PO file."""
    from babel.messages.pofile import read_po

    path = LOCALE_DIR / f"{language}.po"
    if not path.is_file():
        raise FileNotFoundError(f"the {language} messages of the helpers are missing: {path}")
    with path.open("rb") as file:
        messages = read_po(file)
    return {m.id: m.string for m in messages if m.id and m.string and not m.fuzzy}


def tr(message: str) -> str:
    """``message`` in the current language (itself in English, or when it has no translation)."""
    if _current == "en":
        return message
    record = os.environ.get(RECORD_ENV_VAR)
    if record:
        with open(record, "a", encoding="utf-8") as file:
            file.write(json.dumps(message, ensure_ascii=False) + "\n")
    return catalogue(_current).get(message, message)
