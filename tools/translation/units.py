"""What of a notebook is translated: Markdown paragraphs, and code cells with words in them.

A Markdown cell is split into blocks at blank lines (a fenced code block or a ``$$`` formula
stays whole); a block with no word outside its formulas, code spans and link targets (a lone
formula) is not translated. A code cell is one unit when it has a comment or a string with
English words in it, unless it is exported (``#| export``): the model code is the same in both
editions. In a translated code cell only comments and strings may differ (``code_tokens``).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

EXPORT_DIRECTIVE = re.compile(r"^#\|\s*export\b", re.MULTILINE)
# Comments that are instructions to a tool, not prose: kept, and not a reason to translate.
PRAGMA = re.compile(r"#\s*(\||NBVAL_|fmt:|noqa|type:)")
WORD = re.compile(r"[A-Za-z]{2,}")
WORDS = re.compile(r"[A-Za-z]{2,}[^\n\"']*\s[A-Za-z]{2,}")
# What in a Markdown block is not prose: formulas, code spans, link targets, HTML tags.
NOT_PROSE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|`[^`\n]*`|\]\([^)]*\)|<[^>\n]+>", re.DOTALL)


@dataclass(frozen=True)
class Unit:
    """One translatable text of a notebook: where it is, and the English."""

    cell: int  # the cell's index in the notebook
    block: int  # the Markdown block's index in its cell; 0 for a code cell
    kind: str  # "markdown" or "code"
    text: str


def markdown_blocks(source: str) -> list[str]:
    """A Markdown cell's blocks: split at blank lines, never inside a fence or a $$ formula."""
    blocks: list[str] = []
    current: list[str] = []
    fence = None  # the fence we are inside: "```", "~~~" or "$$"
    for line in source.split("\n"):
        stripped = line.strip()
        if fence is None:
            if stripped.startswith(("```", "~~~")):
                fence = stripped[:3]
            elif stripped.count("$$") % 2 == 1:
                fence = "$$"
            elif not stripped:
                if current:
                    blocks.append("\n".join(current))
                    current = []
                continue
        elif fence == "$$":
            if stripped.count("$$") % 2 == 1:
                fence = None
        elif stripped.startswith(fence):
            fence = None
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def is_prose(block: str) -> bool:
    """A block with at least one word outside formulas, code spans and link targets."""
    return bool(WORD.search(NOT_PROSE.sub(" ", block)))


def is_exported(source: str) -> bool:
    return bool(EXPORT_DIRECTIVE.search(source))


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    # IPython lines (%magic, !shell) are not Python: tokenize them as comments.
    lines = [("#" + line) if line.lstrip().startswith(("%", "!")) else line
             for line in source.split("\n")]  # fmt: skip
    return list(tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline))


_TEXT_TOKENS = {tokenize.COMMENT, tokenize.STRING}
if hasattr(tokenize, "FSTRING_MIDDLE"):  # Python 3.12+: an f-string is several tokens
    _TEXT_TOKENS.add(tokenize.FSTRING_MIDDLE)
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def code_has_words(source: str) -> bool:
    """A comment that is not a pragma, or a string with two English-looking words in it."""
    for token in _tokens(source):
        if token.type == tokenize.COMMENT and not PRAGMA.match(token.string):
            if WORD.search(token.string):
                return True
        elif token.type in _TEXT_TOKENS - {tokenize.COMMENT} and WORDS.search(token.string):
            return True
    return False


def code_tokens(source: str) -> list[str]:
    """The code of a cell without its comments and strings, and without layout tokens.

    Two editions of a code cell must give the same list, with one exception: the Chinese
    setup cell passes ``language="zh"`` to ``setup_notebook`` (left out here).
    """
    kept = [t.string for t in _tokens(source) if t.type not in _TEXT_TOKENS | _LAYOUT]
    out, i = [], 0
    while i < len(kept):
        if kept[i] == "language" and i + 1 < len(kept) and kept[i + 1] == "=":
            i += 2
            if i < len(kept) and kept[i] == ",":
                i += 1
            if out and out[-1] == "," and i < len(kept) and kept[i] == ")":
                out.pop()
            continue
        out.append(kept[i])
        i += 1
    return out


def units(notebook: dict) -> list[Unit]:
    """Every translatable unit of a notebook, in reading order."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            for block_index, block in enumerate(markdown_blocks(source)):
                if is_prose(block):
                    found.append(Unit(index, block_index, "markdown", block))
        elif cell["cell_type"] == "code" and not is_exported(source) and code_has_words(source):
            found.append(Unit(index, 0, "code", source))
    return found
