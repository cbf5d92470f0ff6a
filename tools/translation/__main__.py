"""python -m tools.translation update|generate|status|check [NOTEBOOK ...] (see tools.translation);
python -m tools.translation helpers-messages (see tools.translation.helpers_messages)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from helpers.paths import NOTEBOOKS_DIR, ROOT
from tools.notebook_format import canonical_metadata
from tools.translation import LANGUAGE
from tools.translation.catalogue import entries_state, read_catalogue, updated, write_catalogue
from tools.translation.checks import problems
from tools.translation.generate import translated_notebook
from tools.translation.helpers_messages import CATALOGUE_PATH, NonLiteralCall, fresh_catalogue
from tools.translation.stamp import STAMP_KEY
from tools.translation.typography import fixed
from tools.translation.units import units

EDITION_DIR = NOTEBOOKS_DIR / LANGUAGE
LOCALE_DIR = EDITION_DIR / "locale"


def source_notebooks() -> list[Path]:
    """The English notebooks that have a Chinese edition: every lesson and the glossary."""
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


def catalogue_path(english: Path) -> Path:
    return LOCALE_DIR / f"{english.stem}.po"


def edition_path(english: Path) -> Path:
    return EDITION_DIR / english.name


def read_english(path: Path) -> dict:
    return nbformat.read(str(path), as_version=4)


def update(english: Path) -> None:
    notebook = read_english(english)
    old = read_catalogue(catalogue_path(english), english.stem)
    write_catalogue(updated(old, units(notebook), english.stem), catalogue_path(english))


def generate(english: Path) -> None:
    """Write the Chinese notebook; its stored outputs are kept when its sources did not change."""
    notebook = read_english(english)
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    fresh = nbformat.from_dict(translated_notebook(notebook, catalogue))
    fresh.metadata = canonical_metadata(dict(fresh.metadata))
    target = edition_path(english)
    if target.is_file():
        stored = nbformat.read(str(target), as_version=4)
        if same_sources(stored, fresh):
            return  # nothing changed: keep the executed notebook
        if same_code(stored, fresh):  # only Markdown changed: the outputs still hold
            for new, old in zip(fresh.cells, stored.cells, strict=True):
                if new.cell_type == "code":
                    new.outputs, new.execution_count = old.outputs, old.execution_count
            if STAMP_KEY in stored.metadata:  # and so does what they were made from
                fresh.metadata[STAMP_KEY] = stored.metadata[STAMP_KEY]
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(fresh, str(target))


def same_sources(a: dict, b: dict) -> bool:
    """The same cells (type, id, source, metadata), whatever their outputs."""

    def cells(notebook: dict) -> list[tuple]:
        return [(c["cell_type"], c.get("id"), c["source"], c.get("metadata", {}))
                for c in notebook["cells"]]  # fmt: skip

    return cells(a) == cells(b)


def same_code(a: dict, b: dict) -> bool:
    """The same cells in the same order, code cells with the same source and metadata."""

    def cells(notebook: dict) -> list[tuple]:
        return [(c["cell_type"], c.get("id"),
                 c["source"] if c["cell_type"] == "code" else None, c.get("metadata", {}))
                for c in notebook["cells"]]  # fmt: skip

    return cells(a) == cells(b)


def status(english: Path) -> tuple[int, int, int]:
    """(entries, untranslated, fuzzy)."""
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    untranslated, fuzzy = entries_state(catalogue)
    return sum(1 for m in catalogue if m.id), len(untranslated), len(fuzzy)


def check(english: Path) -> list[str]:
    """Every problem of the notebook's translation, one line each (empty: none)."""
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    kinds = {unit.text: unit.kind for unit in units(read_english(english))}
    found = []
    for message in catalogue:
        if not message.id:
            continue
        where = (
            f"{catalogue_path(english).name}:{message.lineno} {message.id.splitlines()[0][:50]!r}"
        )
        if message.id not in kinds:
            found.append(f"{where}: not a unit of the English notebook (run update)")
        elif not message.string:
            found.append(f"{where}: untranslated")
        elif message.fuzzy:
            found.append(f"{where}: fuzzy (the English changed: check, then remove the flag)")
        else:
            found += [
                f"{where}: {p}" for p in problems(message.id, message.string, kinds[message.id])
            ]
    if len(kinds) != sum(1 for m in catalogue if m.id):
        found.append(
            f"{catalogue_path(english).name}: entries differ from the notebook's units (run update)"
        )
    return found


def fix_typography(english: Path) -> int:
    """Write the catalogue's translations as the typography rules want them; how many changed."""
    kinds = {unit.text: unit.kind for unit in units(read_english(english))}
    catalogue = read_catalogue(catalogue_path(english), english.stem)
    changed = 0
    for message in catalogue:
        if message.id in kinds and message.string:
            new = fixed(message.string, kinds[message.id])
            changed += new != message.string
            message.string = new
    write_catalogue(catalogue, catalogue_path(english))
    return changed


def update_helpers_messages() -> int:
    """helpers/locale/zh.po follows the tr("...") calls of the package; 1 when a call is not a
    literal (nothing is written then)."""
    try:
        catalogue = fresh_catalogue()
    except NonLiteralCall as error:
        print(error, file=sys.stderr)
        return 1
    write_catalogue(catalogue, CATALOGUE_PATH)
    untranslated, fuzzy = entries_state(catalogue)
    print(
        f"{CATALOGUE_PATH.relative_to(ROOT)}: "
        f"{sum(1 for m in catalogue if m.id)} messages  {len(untranslated)} untranslated  "
        f"{len(fuzzy)} fuzzy"
    )
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.translation",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument(
        "command",
        choices=["update", "generate", "status", "check", "typography", "helpers-messages"],
    )
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="English notebooks (default: every lesson and the glossary)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.command == "helpers-messages":
        if args.notebooks:
            parser.error("helpers-messages: expected no notebooks (it reads the helpers package)")
        return update_helpers_messages()
    paths = [p.resolve() for p in args.notebooks] or source_notebooks()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        parser.error(f"notebooks: expected English notebook files, got {', '.join(missing)}")
    totals = [0, 0, 0]
    failed = False
    for path in paths:
        if args.command == "update":
            update(path)
        elif args.command == "generate":
            generate(path)
        elif args.command == "typography":
            changed = fix_typography(path)
            print(f"{path.stem}: {changed} translation(s) set right")
        elif args.command == "check":
            found = check(path)
            failed = failed or bool(found)
            print("\n".join(found) if found else f"{path.stem}: ✓")
        else:
            counts = status(path)
            totals = [t + c for t, c in zip(totals, counts, strict=True)]
            print(f"{path.stem:<40} {counts[0]:>5} entries  {counts[1]:>5} untranslated"
                  f"  {counts[2]:>5} fuzzy")  # fmt: skip
    if args.command == "status":
        print(
            f"{'all':<40} {totals[0]:>5} entries  {totals[1]:>5} untranslated  {totals[2]:>5} fuzzy"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
