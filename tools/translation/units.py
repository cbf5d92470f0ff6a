"""What of a notebook is translated: Markdown paragraphs, and code cells with words in them.

A Markdown cell is split into blocks at blank lines (a fenced code block or a ``$$`` formula
stays whole); a block with no word outside its formulas, code spans and link targets (a lone
formula) is not translated. A code cell is one unit when it has a comment or a string with
English words in it (in a translated code cell only comments and strings may differ:
``code_tokens``), unless it is exported (``#| export``): the model code is written once, so an
exported cell gives one unit per comment (a run of full-line comments is one) and one per
docstring paragraph with prose in it, and its Chinese edition differs from the English only in
them (``exported_code``; every other string, a ``tr()`` message id included, stays as written).
A unit per comment rather than per cell means that an edit of the code leaves the translations
of the comments around it as they are.
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
    block: int  # the Markdown block's (or exported cell's comment's) index in its cell; else 0
    kind: str  # "markdown", "code", or in an exported cell "comment" or "docstring"
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
        elif cell["cell_type"] == "code" and is_exported(source):
            for number, (kind, text) in enumerate(exported_texts(source)):
                found.append(Unit(index, number, kind, text))
        elif cell["cell_type"] == "code" and code_has_words(source):
            found.append(Unit(index, 0, "code", source))
    return found


# ------------------------------------------------------------------ exported cells
# An exported cell is the model code itself, written once (in the English notebook). The Chinese
# edition may translate its comments and the paragraphs of its docstrings, nothing else: one unit
# per comment (a run of full-line comments is one) and per docstring paragraph, so that an edit
# of the code around them leaves their translations as they are.
#
# A docstring paragraph is translated when it has prose in it: two words in a row, or one
# lowercase word outside its shapes that is neither an argument's name ("ids:") nor a call
# ("min(") nor part of a name ("d_model", "W^O"): "-> heads (...), weights.", "(paper §5.3)".
# One that only gives shapes or a formula, "x: (batch, seq_len, d_model) -> (batch, seq_len,
# d_ff)", stays as it is.
PROSE = re.compile(r"\b[A-Za-z]{2,}\s+[A-Za-z]{2,}\b")
SHAPE = re.compile(r"\([\w\s,.*+\-/]*\)")  # (batch, seq_len, n_heads * d_k), (step)
LONE_WORD = re.compile(r"(?<![\w^])[a-z]{2,}(?![\w(:^])")


def has_prose(text: str) -> bool:
    """A docstring paragraph with words to translate (see ``PROSE`` above)."""
    return bool(PROSE.search(text) or LONE_WORD.search(SHAPE.sub(" ", text)))


DOCSTRING_MARK = "<docstring>"


@dataclass(frozen=True)
class _Piece:
    """A comment or a docstring paragraph of an exported cell, and where it is written."""

    kind: str  # "comment" or "docstring"
    text: str  # the English as a translator sees it: dedented, a comment with its "#"
    start: tuple[int, int]  # (line from 0, column) where it starts
    end: tuple[int, int]  # (line from 0, column) just after its end
    indent: int  # the indentation of its lines after the first
    trailing: bool = False  # a comment after code on its line


def _docstring_starts(tree: ast.AST) -> set[tuple[int, int]]:
    """(line from 1, column) where each docstring of a module, class or function starts."""
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                starts.add((body[0].lineno, body[0].col_offset))
    return starts


def _exported_tokens(source: str) -> list[tuple[tokenize.TokenInfo, str]]:
    """Each token of an exported cell with its role: "code", "comment" (prose) or "docstring"."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    starts = _docstring_starts(ast.parse(source))
    roles, in_docstring = [], False
    for token in tokens:
        if token.type == tokenize.STRING and (token.start in starts or in_docstring):
            roles.append((token, "docstring"))
            in_docstring = True  # "a" "b": a docstring of two literals
            continue
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            in_docstring = False
        prose = token.type == tokenize.COMMENT and not PRAGMA.match(token.string)
        roles.append((token, "comment" if prose else "code"))
    return roles


def exported_code(source: str) -> list[str]:
    """An exported cell's code: every token but its comments and docstrings (pragmas such as the
    ``#| export`` line are code), every string literal as written. The two editions of an
    exported cell must give the same list."""
    kept = []
    for token, role in _exported_tokens(source):
        if role == "docstring":
            if not kept or kept[-1] != DOCSTRING_MARK:
                kept.append(DOCSTRING_MARK)
        elif role == "code" and token.type != tokenize.NL:
            kept.append(token.string)
    return kept


def _docstring_paragraphs(token: tokenize.TokenInfo) -> list[_Piece]:
    """The paragraphs of a docstring (runs of non-blank lines) that have prose in them."""
    prefix = re.match(r"[A-Za-z]*", token.string).group(0)
    quote = token.string[len(prefix) : len(prefix) + 3]
    quote = quote if quote in ('"""', "'''") else quote[0]
    lines = token.string[len(prefix) + len(quote) : -len(quote)].split("\n")
    row0 = token.start[0] - 1
    after_quotes = token.start[1] + len(prefix) + len(quote)
    pieces, group = [], []
    for index, line in enumerate([*lines, ""]):
        if line.strip():
            group.append(index)
            continue
        if group:
            indented = [len(lines[i]) - len(lines[i].lstrip(" ")) for i in group if i > 0]
            base = min(indented) if indented else token.start[1]
            text = "\n".join(lines[i] if i == 0 else lines[i][base:] for i in group)
            first, last = group[0], group[-1]
            if has_prose(text):
                start = (row0 + first, after_quotes if first == 0 else base)
                end = (row0 + last, (after_quotes if last == 0 else 0) + len(lines[last]))
                pieces.append(_Piece("docstring", text, start, end, base))
            group = []
    return pieces


def _exported_pieces(source: str) -> list[_Piece]:
    """The comments (a run of full-line ones is one) and docstring paragraphs of an exported cell."""
    lines = source.split("\n")
    pieces: list[_Piece] = []
    for token, role in _exported_tokens(source):
        if role == "docstring":
            pieces += _docstring_paragraphs(token)
        elif role == "comment" and WORD.search(token.string):
            (row, column), end = (
                (token.start[0] - 1, token.start[1]),
                (token.end[0] - 1, token.end[1]),
            )
            trailing = bool(lines[row][:column].strip())
            last = pieces[-1] if pieces else None
            if (
                not trailing
                and last is not None
                and last.kind == "comment"
                and not last.trailing
                and last.end[0] == row - 1
                and last.start[1] == column
            ):
                pieces[-1] = _Piece("comment", last.text + "\n" + token.string, last.start, end,
                                    column)  # fmt: skip
            else:
                pieces.append(_Piece("comment", token.string, (row, column), end, column, trailing))
    return pieces


def exported_texts(source: str) -> list[tuple[str, str]]:
    """(kind, English) of each comment and docstring paragraph of an exported cell to translate."""
    return [(piece.kind, piece.text) for piece in _exported_pieces(source)]


def translated_export(source: str, table: dict[str, str]) -> str:
    """An exported cell with its comments and docstring paragraphs replaced by their
    translations in ``table`` (English -> Chinese); what has none stays English. A translation's
    lines after the first take the indentation of the English's."""
    lines = source.split("\n")
    for piece in sorted(_exported_pieces(source), key=lambda p: p.start, reverse=True):
        chinese = table.get(piece.text)
        if not chinese:
            continue
        new = chinese.split("\n")
        if piece.trailing:  # a comment after code stays on its line
            new = [" ".join([new[0], *(t.lstrip("#").strip() for t in new[1:])])]
        (row, column), (end_row, end_column) = piece.start, piece.end
        replaced = [lines[row][:column] + new[0]]
        replaced += [" " * piece.indent + t if t.strip() else "" for t in new[1:]]
        replaced[-1] += lines[end_row][end_column:]
        lines[row : end_row + 1] = replaced
    return "\n".join(lines)
