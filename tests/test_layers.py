"""The package's layers: each part of ``helpers`` imports only from the parts before it.

The order is the one ``helpers/__init__.py`` states; an import inside a function counts like one
at the top of a file (a lazy import still makes the lower layer depend on the higher one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import helpers
from helpers.paths import ROOT

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
    "model",  # the model's parts (generated: 02-10)
    "pipeline",  # training, decoding, evaluation (generated: 11, 12)
    "analysis",  # the alternatives to self-attention (generated: 13)
    "measure",  # the cost meter and its reports (13)
    "checkpoints",  # saving and loading a trained model
    "pretrained",  # the shipped model
    "train",  # python -m helpers.train
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


def test_every_part_has_a_layer():
    assert {part_of(p) for p in SOURCES} == set(LAYERS)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_file_imports_only_lower_layers(path):
    rank = LAYERS.index(part_of(path))
    higher = {part for part in imported_parts(path) if LAYERS.index(part) > rank}
    assert not higher, f"{path.relative_to(ROOT)} ({LAYERS[rank]}) imports {sorted(higher)}"


def test_imports_are_found_at_any_depth_and_through_the_top_level(tmp_path):
    source = tmp_path / "example.py"
    source.write_text(
        "import torch\n"
        "from helpers.language import tr\n"
        "from helpers import Transformer\n"
        "def f():\n"
        "    import helpers.decoding.search\n"
    )
    assert imported_parts(source) == {"language", "model", "pipeline"}
