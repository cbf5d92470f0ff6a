"""The package's layers: each part of ``helpers`` imports only from the parts before it; and every
file says whether it is generated or hand-written.

The order is the one ``helpers/__init__.py`` states; an import inside a function counts like one
at the top of a file (a lazy import still makes the lower layer depend on the higher one).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

import helpers
from helpers.paths import ROOT
from tools.export import HEADER_FIRST_LINE

PACKAGE = ROOT / "helpers"

# Lowest first. A part may import itself and any part listed before it.
LAYERS = [
    "language",  # tr(): the messages in English or Chinese
    "paths",  # where the repository's files are
    "classes",  # add_to_class
    "runtime",  # seeds and devices
    "checks",  # the input checks of the public entry points
    "model_sizes",  # tiny, small, base, big
    "data",  # the generated corpus, the real dictionary (pure Python)
    "display",  # notebook setup, tables, figures: knows nothing of the model
    "text",  # vocabularies, batches, BPE (generated: 01, 14)
    "model",  # the model's parts (generated: 02-10, 16)
    "training",  # batching, loss, schedule, the loops (generated: 11, 16)
    "decoding",  # greedy, beam search, translate; sampling (generated: 12, 16)
    "evaluation",  # BLEU; the alternatives to self-attention (generated: 12, 13); costs/ (13)
    "checkpoints",  # saving and loading a trained model
    "pretrained",  # the shipped model
    "train",  # python -m helpers.train: the command that runs helpers.training
    "explore",  # live explorers
    "exercises",  # the checks behind the exercises
]


def part_of(path: Path) -> str:
    """The layer of a file: its folder under helpers/, or its name for a top-level module."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imported_parts(path: Path) -> set[str]:
    """The parts of helpers that a file imports, at any depth of its code."""
    parts = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "helpers":  # from helpers import Transformer: where it is defined
                names = [helpers._EXPORTS[alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        parts |= {n.split(".")[1] for n in names if n.startswith("helpers.")}
    return parts


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


HEADER_LINES = 8  # where a reader looks for it: the first lines of the file


def origin(path: Path) -> str | None:
    """'generated' (the exporter's header), 'hand-written' (says so near the top), or None."""
    text = path.read_text(encoding="utf-8")
    if text.startswith(HEADER_FIRST_LINE):
        return "generated"
    if any(re.search(r"\bHand-written\b", line) for line in text.splitlines()[:HEADER_LINES]):
        return "hand-written"
    return None


def upward_imports(path: Path) -> set[str]:
    """The parts a file imports that come after its own part in LAYERS."""
    rank = LAYERS.index(part_of(path))
    return {part for part in imported_parts(path) if LAYERS.index(part) > rank}


def test_every_part_has_a_layer():
    assert {part_of(p) for p in SOURCES} == set(LAYERS)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_file_imports_only_lower_layers(path):
    higher = upward_imports(path)
    assert not higher, f"{path.relative_to(ROOT)} ({part_of(path)}) imports {sorted(higher)}"


def test_an_upward_import_is_caught(monkeypatch, tmp_path):
    # A fake package: a display module that imports the model, which display may not.
    package = tmp_path / "helpers"
    (package / "display").mkdir(parents=True)
    fake = package / "display" / "fake.py"
    fake.write_text(
        '"""Hand-written: a fake."""\nfrom helpers.model.transformer import Transformer\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)  # part_of() reads it
    assert upward_imports(fake) == {"model"}
    fake.write_text('"""Hand-written: a fake."""\nfrom helpers.runtime import seed_everything\n')
    assert upward_imports(fake) == set()


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_a_file_says_whether_it_is_generated(path):
    assert origin(path), (
        f"{path.relative_to(ROOT)} says neither in its first {HEADER_LINES} lines: start a "
        "hand-written file's docstring with a line 'Hand-written: ...', or export it from a notebook"
    )


def test_a_file_that_says_neither_is_caught(tmp_path):
    generated = tmp_path / "generated.py"
    generated.write_text(
        f"{HEADER_FIRST_LINE} from notebooks/01_x.ipynb. Do not edit by hand:\nX = 1\n"
    )
    hand_written = tmp_path / "hand_written.py"
    hand_written.write_text('"""A helper.\n\nHand-written: edit this file itself."""\nX = 1\n')
    silent = tmp_path / "silent.py"
    silent.write_text(
        '"""A helper, hand-written but not saying it where a reader looks."""\nX = 1\n'
    )
    late = tmp_path / "late.py"
    late.write_text('"""A helper."""\n' + "\n" * HEADER_LINES + "# Hand-written\n")
    assert origin(generated) == "generated"
    assert origin(hand_written) == "hand-written"
    assert origin(silent) is None
    assert origin(late) is None


def test_imports_are_found_at_any_depth_and_through_the_top_level(tmp_path):
    source = tmp_path / "example.py"
    source.write_text(
        "import torch\n"
        "from helpers.language import tr\n"
        "from helpers import Transformer\n"
        "def f():\n"
        "    import helpers.decoding.search\n"
    )
    assert imported_parts(source) == {"language", "model", "decoding"}
