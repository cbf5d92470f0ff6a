"""What a stored Chinese notebook's outputs were made from, so that a test sees when it changed.

nbval compares text outputs, not figures: a label whose translation changed in
``helpers/locale/zh.po`` would leave a stale PNG behind. ``python -m tools.run_notebooks`` stamps
each Chinese notebook it runs with the digests of what its outputs depend on: the translations of
its own code cells (the strings they print) and of the helper messages its run asked ``tr`` for
(recorded through ``$TRANSFORMER_RECORD_MESSAGES``), not the whole catalogue, so that one edit
sends only the notebooks that used it back to be run. ``stamp_problems`` says when a stored stamp
no longer matches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

import nbformat

from helpers.language import catalogue
from tools.translation import LANGUAGE
from tools.translation.catalogue import read_catalogue
from tools.translation.units import units

STAMP_KEY = "translation_stamp"


def _digest(pairs: Iterable[tuple[str, str | None]]) -> str:
    text = json.dumps(sorted(pairs), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_translations_digest(english: Path, catalogue_path: Path) -> str:
    """The translations of the notebook's code cells (comments and strings), as its PO has them."""
    code = {u.text for u in units(nbformat.read(str(english), as_version=4)) if u.kind == "code"}
    messages = read_catalogue(catalogue_path, english.stem)
    return _digest((m.id, m.string) for m in messages if m.id in code)


def helper_messages_digest(messages: Iterable[str]) -> str:
    """The helper catalogue's translation of each message (None where it has none)."""
    translations = catalogue.__wrapped__(LANGUAGE)  # read now, not a cached copy
    return _digest((m, translations.get(m)) for m in set(messages))


def stamp(english: Path, catalogue_path: Path, messages: Iterable[str]) -> dict:
    messages = sorted(set(messages))
    return {
        "code_translations_sha256": code_translations_digest(english, catalogue_path),
        "helper_messages": messages,
        "helper_messages_sha256": helper_messages_digest(messages),
    }


def stamp_problems(english: Path, catalogue_path: Path, chinese: dict) -> list[str]:
    """Why the stored Chinese notebook's outputs may be stale (empty when its stamp holds)."""
    stored = chinese.get("metadata", {}).get(STAMP_KEY)
    rerun = f"run `make notebooks NB=notebooks/{english.name}`"
    if not stored:
        return [f"not stamped with what its outputs were made from: {rerun}"]
    now = stamp(english, catalogue_path, stored.get("helper_messages", []))
    found = []
    if stored.get("code_translations_sha256") != now["code_translations_sha256"]:
        found.append(f"the translation of a code cell changed since it was run: {rerun}")
    if stored.get("helper_messages_sha256") != now["helper_messages_sha256"]:
        found.append(f"a helper message it uses was translated anew since it was run: {rerun}")
    return found
