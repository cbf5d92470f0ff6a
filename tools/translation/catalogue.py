"""A notebook's PO file: read, brought up to date with the English, written (with Babel).

An entry's msgid is a unit's English text; its msgstr the Chinese. ``updated`` keeps the
translation of every unit whose English is unchanged, carries the translation of a changed unit
over as fuzzy (the old English kept as its previous msgid, so a translator sees the difference),
and adds new units untranslated: what gettext's msgmerge does. ``merged`` is that merge for any
list of English texts with their locations (the helpers' messages use it too).
"""

from __future__ import annotations

import difflib
import io
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from tools.translation.units import Unit

LOCALE = "zh_CN"
# A fixed date: the file changes only when its entries do.
EPOCH = datetime(2026, 11, 1, tzinfo=UTC)
CODE_NOTE = (
    "A code cell: translate its comments and the English it prints; "
    "every other token stays as it is."
)
NOTES = {
    "code": CODE_NOTE,
    "comment": (
        "A comment of an exported cell (the model code): translate it, each line starting "
        "with '#'; the code around it stays English."
    ),
    "docstring": (
        "A docstring paragraph of an exported cell (the model code): translate the prose; "
        "names, shapes and formulas stay as they are."
    ),
}
# How close a changed paragraph must be to its old English for the translation to carry over.
FUZZY_CUTOFF = 0.6


def new_catalogue(notebook_name: str, header_comment: str | None = None) -> Catalog:
    """An empty catalogue for a notebook; for another text, give its own header comment."""
    if header_comment is None:
        header_comment = (
            f"# The Chinese translation of notebooks/{notebook_name}.ipynb.\n"
            "# Written by `python -m tools.translation update`; translate with any PO editor.\n"
            "# An entry is one paragraph of a Markdown cell, one code cell (translate only its\n"
            "# comments and printed English), or one comment or docstring paragraph of an exported\n"
            "# cell. Fuzzy: the English changed since it was translated."
        )
    catalogue = Catalog(
        locale=LOCALE,
        domain=notebook_name,
        project="Transformer, step by step",
        version=notebook_name,
        copyright_holder="the authors of Transformer, step by step (MIT)",
        msgid_bugs_address="https://github.com/ (the series' issue tracker)",
        creation_date=EPOCH,
        revision_date=EPOCH,
        last_translator="the translators of the series",
        language_team="Chinese edition of Transformer, step by step",
        fuzzy=False,
        header_comment=header_comment,
    )
    return catalogue


def read_catalogue(path: Path, notebook_name: str) -> Catalog:
    if not path.is_file():
        return new_catalogue(notebook_name)
    with path.open("rb") as file:
        return read_po(file, locale=LOCALE, domain=notebook_name)


# Babel guesses format flags from "{" and "%" when it reads a file: they are not ours.
GUESSED_FLAGS = {"python-format", "python-brace-format"}


def po_bytes(catalogue: Catalog) -> bytes:
    """The PO file's content, exactly as ``write_catalogue`` writes it."""
    for message in catalogue:
        message.flags -= GUESSED_FLAGS
    buffer = io.BytesIO()
    write_po(buffer, catalogue, width=0, include_previous=True, sort_output=False,
             ignore_obsolete=True)  # fmt: skip
    return buffer.getvalue()


def write_catalogue(catalogue: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(po_bytes(catalogue))


@dataclass(frozen=True)
class Entry:
    """One English text to translate, where it is, and a note for the translator (or none)."""

    text: str
    location: tuple[str, int]  # (file, number): a notebook and its cell, a module and its line
    comments: tuple[str, ...] = ()


def _location(unit: Unit, notebook_name: str) -> tuple[str, int]:
    return (f"{notebook_name}.ipynb", unit.cell + 1)  # the cell's number, from 1


def updated(old: Catalog, unit_list: list[Unit], notebook_name: str) -> Catalog:
    """The catalogue for these units, keeping what ``old`` has already translated."""
    entries = [
        Entry(
            unit.text,
            _location(unit, notebook_name),
            (NOTES[unit.kind],) if unit.kind in NOTES else (),
        )
        for unit in unit_list
    ]
    return merged(old, entries, new_catalogue(notebook_name))


def merged(old: Catalog, entries: list[Entry], catalogue: Catalog) -> Catalog:
    """``catalogue`` (new and empty) filled with these entries, in order, keeping what ``old``
    has already translated (a text met again adds its location to the first entry)."""
    wanted = {entry.text for entry in entries}
    # Translations whose English is gone: candidates to carry over to a changed unit.
    orphans = {
        message.id: message
        for message in old
        if message.id and message.id not in wanted and message.string
    }
    for entry in entries:
        text, location, comments = entry.text, entry.location, list(entry.comments)
        if text in catalogue:
            catalogue[text].locations.append(location)
            continue
        previous = old.get(text)
        if previous is not None:
            catalogue.add(text, previous.string, locations=[location],
                          flags=previous.flags, auto_comments=comments,
                          previous_id=previous.previous_id if previous.fuzzy else ())  # fmt: skip
            continue
        close = difflib.get_close_matches(text, list(orphans), n=1, cutoff=FUZZY_CUTOFF)
        if close:
            source = orphans.pop(close[0])
            catalogue.add(text, source.string, locations=[location], flags={"fuzzy"},
                          auto_comments=comments, previous_id=source.id)  # fmt: skip
        else:
            catalogue.add(text, "", locations=[location], auto_comments=comments)
    for message in catalogue:
        message.flags -= GUESSED_FLAGS
    return catalogue


def translations(catalogue: Catalog) -> dict[str, str]:
    """English -> Chinese for every entry translated and not fuzzy."""
    return {m.id: m.string for m in catalogue if m.id and m.string and not m.fuzzy}


def entries_state(catalogue: Catalog) -> tuple[list[str], list[str]]:
    """(untranslated msgids, fuzzy msgids)."""
    messages = [m for m in catalogue if m.id]
    return [m.id for m in messages if not m.string], [m.id for m in messages if m.fuzzy]


def same_entries(a: Catalog, b: Catalog) -> bool:
    """The same msgids in the same order, with the same translations and flags."""

    def rows(catalogue: Catalog) -> list[tuple]:
        return [(m.id, m.string, m.fuzzy, tuple(m.previous_id or ())) for m in catalogue if m.id]

    return rows(a) == rows(b)
