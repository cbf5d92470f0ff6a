"""The messages the helpers print, and their catalogue ``helpers/locale/zh.po``.

    python -m tools.translation helpers-messages   # zh.po follows the tr("...") calls of helpers/

Every message the ``helpers`` package shows a student is written in English inside
``tr("...")`` (``helpers.language``). The extraction reads every module of the package
with ``ast`` (a call split over lines, or in a conditional expression, is found like any other)
and makes one entry per distinct English text, with a ``#:`` location (module and line) for each
call. The argument of ``tr`` must be one string literal: ``tr(f"...")`` or ``tr(name)`` would give
a msgid that changes with the values, so the extraction refuses it (``NonLiteralCall``). The
catalogue is brought up to date with ``catalogue.merged``, the same merge as the notebooks'
(unchanged texts keep their translation, a changed one carries it over as fuzzy).
"""

from __future__ import annotations

import ast
import string
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog

from helpers.language import LOCALE_DIR
from helpers.paths import PACKAGE_DIR, ROOT
from tools.translation import LANGUAGE
from tools.translation.catalogue import Entry, merged, new_catalogue, read_catalogue

CATALOGUE_PATH = LOCALE_DIR / f"{LANGUAGE}.po"
DOMAIN = "helpers"
HEADER = (
    "# The Chinese translation of the messages the helpers print (the package `helpers`): the\n"
    "# exercises' verdicts, shape tables, figure labels, the explorers' readouts and controls.\n"
    '# Written by `python -m tools.translation helpers-messages` from every tr("...") call;\n'
    "# translate with any PO editor. Keep every {placeholder} of the English exactly, format\n"
    "# included ({value:.4f}). Fuzzy: the English changed since it was translated."
)
NOTE = "Keep every {placeholder} as it is; the text around it is yours."


@dataclass(frozen=True)
class Call:
    """One call of ``tr`` in a module: its English text, or None when it is not a literal."""

    path: str  # relative to the repository, with "/" (the #: location)
    line: int
    text: str | None
    source: str  # the call as written, for a message about it


class NonLiteralCall(ValueError):
    """A call of ``tr`` whose argument is not one string literal."""


# helpers.checks.fail(message, **fields) raises ValueError(tr(message).format(**fields)): its
# first argument is a message like tr's, read at each call; its own tr(message) passes them on.
MESSAGE_FUNCTIONS = ("tr", "fail")
FORWARDER = ("helpers/checks.py", "fail")


def _called_name(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def _is_tr(node: ast.AST) -> bool:
    return _called_name(node) in MESSAGE_FUNCTIONS


def _forwarded(tree: ast.AST, path: str) -> set[ast.AST]:
    """The tr() calls inside helpers.checks.fail, which translate their caller's literal."""
    if path != FORWARDER[0]:
        return set()
    return {
        node
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef) and function.name == FORWARDER[1]
        for node in ast.walk(function)
        if _called_name(node) == "tr"
    }


def tr_calls(source: str, path: str) -> list[Call]:
    """Every call of ``tr`` (or ``fail``) in a module's source, in the order of the file."""
    calls = []  # (line, column, call): sorted into the order of the file
    tree = ast.parse(source, filename=path)
    forwarded = _forwarded(tree, path)
    for node in ast.walk(tree):
        if not _is_tr(node) or node in forwarded:
            continue
        is_tr = _called_name(node) == "tr"
        literal = (
            (len(node.args) == 1 if is_tr else len(node.args) >= 1)
            and (not node.keywords or not is_tr)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value != ""
        )
        text = node.args[0].value if literal else None
        call = Call(path, node.lineno, text, ast.get_source_segment(source, node) or "")
        calls.append((node.lineno, node.col_offset, call))
    return [call for _, _, call in sorted(calls, key=lambda item: item[:2])]


def package_calls(package: Path = PACKAGE_DIR, root: Path = ROOT) -> list[Call]:
    """Every call of ``tr`` in the package's modules, module by module (sorted by path)."""
    calls = []
    for module in sorted(package.rglob("*.py")):
        if "__pycache__" in module.parts:
            continue
        calls += tr_calls(module.read_text(encoding="utf-8"), module.relative_to(root).as_posix())
    return calls


def non_literal(calls: list[Call]) -> list[str]:
    """One line per call whose argument is not a string literal."""
    return [
        f"{call.path}:{call.line}: {call.source!r}: tr() takes one string literal; "
        'format its placeholders after: tr("... {name} ...").format(name=...)'
        for call in calls
        if call.text is None
    ]


def _is_plain_text(node: ast.AST) -> bool:
    """A message written out in English only: a string literal, an f-string, or a sum of them."""
    if isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    ):
        return True
    return isinstance(node, ast.BinOp) and (_is_plain_text(node.left) or _is_plain_text(node.right))


def _is_warn(node: ast.Call) -> bool:
    function = node.func
    return (isinstance(function, ast.Name) and function.id == "warn") or (
        isinstance(function, ast.Attribute) and function.attr == "warn"
    )


def untranslated_messages(source: str, path: str) -> list[str]:
    """One line per ``raise`` or ``warnings.warn`` whose message bypasses ``tr``.

    ``raise ValueError(f"...")`` would reach a Chinese-reading student in English: the message
    must be ``tr("... {name} ...").format(name=...)`` like every other message the helpers show.
    """
    problems = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call = node.exc
        elif isinstance(node, ast.Call) and _is_warn(node):
            call = node
        else:
            continue
        if call.args and _is_plain_text(call.args[0]):
            problems.append(
                f"{path}:{call.lineno}: the message is English only; write it as "
                'tr("... {name} ...").format(name=...)'
            )
    return problems


def package_untranslated_messages(package: Path = PACKAGE_DIR, root: Path = ROOT) -> list[str]:
    """``untranslated_messages`` over every module of the package."""
    problems = []
    for module in sorted(package.rglob("*.py")):
        if "__pycache__" not in module.parts:
            source = module.read_text(encoding="utf-8")
            problems += untranslated_messages(source, module.relative_to(root).as_posix())
    return problems


def entries(calls: list[Call]) -> list[Entry]:
    """The catalogue's entries: one per call (the merge folds a repeated text into one)."""
    problems = non_literal(calls)
    if problems:
        raise NonLiteralCall("\n".join(problems))
    return [
        Entry(call.text, (call.path, call.line), (NOTE,) if placeholders(call.text) else ())
        for call in calls
    ]


def placeholders(text: str) -> list[str]:
    """The replacement fields of a message, as written: ``{name}``, ``{value:.4f}``, ``{x!r}``."""
    fields = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields.append(
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
    return fields


def fresh_catalogue(calls: list[Call] | None = None, path: Path = CATALOGUE_PATH) -> Catalog:
    """The catalogue as the extraction writes it: the messages of ``calls`` (by default the
    package's), with the translations of the catalogue at ``path`` kept."""
    calls = package_calls() if calls is None else calls
    old = read_catalogue(path, DOMAIN)
    return merged(old, entries(calls), new_catalogue(DOMAIN, HEADER))
