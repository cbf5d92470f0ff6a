"""A Chinese notebook from its English source and its catalogue.

Every unit with a translation (not fuzzy) is replaced by it; the rest stays English (the tests
fail on it, so nothing untranslated reaches main). In an exported cell only the comments and
docstring paragraphs are replaced: its code stays the English's, token for token. Cells keep their ids, types and metadata;
outputs are cleared (``tools.run_notebooks`` executes the notebook afterwards) except in
Markdown-only notebooks (the glossary), which have none.
"""

from __future__ import annotations

import copy
import re

from babel.messages.catalog import Catalog

from tools.notebook_format import cell_text
from tools.translation import LANGUAGE
from tools.translation.catalogue import translations
from tools.translation.units import is_exported, is_prose, markdown_blocks, translated_export

SETUP_CALL = re.compile(r"\bsetup_notebook\((\s*\))?")


def with_language(source: str, language: str = LANGUAGE) -> str:
    """``setup_notebook(...)`` calls given ``language=``: the helpers then speak it."""
    return SETUP_CALL.sub(
        lambda m: f'setup_notebook(language="{language}"' + (")" if m.group(1) else ", "), source
    )


def translated_notebook(english: dict, catalogue: Catalog) -> dict:
    """The Chinese edition of ``english`` (a notebook as a dict); ``english`` is not changed."""
    table = translations(catalogue)
    notebook = copy.deepcopy(english)
    for cell in notebook["cells"]:
        source = cell_text(cell)
        if cell["cell_type"] == "markdown":
            blocks = [table.get(b, b) if is_prose(b) else b for b in markdown_blocks(source)]
            cell["source"] = "\n\n".join(blocks)
        elif cell["cell_type"] == "code":
            if is_exported(source):
                cell["source"] = translated_export(source, table)
            else:
                cell["source"] = with_language(table.get(source, source))
            cell["outputs"] = []
            cell["execution_count"] = None
    return notebook
