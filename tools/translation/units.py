"""What of a notebook is translated: Markdown paragraphs, and code cells with words in them.

A Markdown cell is split into blocks at blank lines (a fenced code block or a ``$$`` formula
stays whole); a block with no word outside its formulas, code spans and link targets (a lone
formula) is not translated. A code cell is one unit when it has a comment or a string with
English words in it, unless it is exported (``#| export``): the model code is the same in both
editions. In a translated code cell only comments and strings may differ (``code_tokens``).
"""

from __future__ import annotations

import ast
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


def _lines(source: str) -> list[str]:
    # IPython lines (%magic, !shell) are not Python: tokenize them as comments.
    return [("#" + line) if line.lstrip().startswith(("%", "!")) else line
            for line in source.split("\n")]  # fmt: skip


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO("\n".join(_lines(source)) + "\n").readline))


_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+ splits an f-string
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)  # into tokens; 3.11 has one STRING


@dataclass(frozen=True)
class _Strings:
    """A run of adjacent string literals (implicit concatenation), each as written."""

    texts: tuple[str, ...]

    def fields(self) -> list[str]:
        """The expressions of its f-string fields with their conversions, sorted; no format specs."""
        try:
            node = ast.parse("(" + " ".join(self.texts) + ")", mode="eval").body
        except SyntaxError:
            return [" ".join(self.texts)]
        values = node.values if isinstance(node, ast.JoinedStr) else []
        return sorted(
            ast.unparse(_StringsBlanked().visit(value.value))
            + (f"!{chr(value.conversion)}" if value.conversion > 0 else "")
            for value in values
            if isinstance(value, ast.FormattedValue)
        )


class _StringsBlanked(ast.NodeTransformer):
    """A field's expression with its string constants emptied: strings may be translated."""

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.Constant:
        return ast.Constant("")


def _code_and_strings(source: str) -> list[tokenize.TokenInfo | _Strings]:
    """The tokens of a cell, each run of string literals as one ``_Strings``, the same on every
    Python: 3.12+ tokenizes an f-string's pieces and fields, 3.11 sees one string."""
    lines = _lines(source)
    out: list[tokenize.TokenInfo | _Strings] = []
    run: list[str] = []
    depth, start = 0, (0, 0)
    for token in _tokens(source):
        text = None
        if depth == 0 and token.type == tokenize.STRING:
            text = token.string
        elif token.type == _FSTRING_START:
            depth += 1
            start = token.start if depth == 1 else start
            continue
        elif token.type == _FSTRING_END:
            depth -= 1
            if depth == 0:
                (row, column), (end_row, end_column) = start, token.end
                if row == end_row:
                    text = lines[row - 1][column:end_column]
                else:
                    text = "\n".join([lines[row - 1][column:], *lines[row:end_row - 1],
                                      lines[end_row - 1][:end_column]])  # fmt: skip
            else:
                continue
        elif depth > 0:
            continue
        if text is not None:
            run.append(text)
            continue
        if run and token.type in (tokenize.NL, tokenize.COMMENT):
            out.append(token)  # between two strings of one run
            continue
        if run:
            out.append(_Strings(tuple(run)))
            run = []
        out.append(token)
    if run:
        out.append(_Strings(tuple(run)))
    return out


def code_has_words(source: str) -> bool:
    """A comment that is not a pragma, or a string with two English-looking words in it."""
    for item in _code_and_strings(source):
        if isinstance(item, _Strings):
            found = any(WORDS.search(text) for text in item.texts)
        else:
            found = (
                item.type == tokenize.COMMENT
                and not PRAGMA.match(item.string)
                and WORD.search(item.string) is not None
            )
        if found:
            return True
    return False


def code_tokens(source: str) -> list[str]:
    """The code of a cell without its comments and strings, and without layout tokens.

    A run of strings counts as the expressions of its f-string fields, sorted: a translation may
    reorder them (Chinese word order), join or split the run, change a format spec (a width),
    but not change an expression. Two editions of a code cell must give the same list, with one
    exception: the Chinese setup cell passes ``language="zh"`` to ``setup_notebook`` (left out
    here).
    """
    kept = []
    for item in _code_and_strings(source):
        if isinstance(item, _Strings):
            fields = item.fields()
            if fields:
                kept.append(f"f-string fields {fields}")
        elif item.type not in _LAYOUT and item.type != tokenize.COMMENT:
            kept.append(item.string)
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
