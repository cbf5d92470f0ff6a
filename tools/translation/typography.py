"""Chinese typography of a translation: what the ecosystem's linter (autocorrect) and two rules of
our own say about it, and the text they would write instead.

- Markdown: autocorrect's rules (a space between Chinese and Latin letters or digits, full-width
  punctuation in Chinese sentences), except its space around a dash (编码器-解码器 stays joined);
- code cells (comments and strings only, since a code cell's code must stay the English's): a
  half-width colon after a Chinese character becomes full-width (词元: -> 词元：);
- both: parentheses around Chinese text with no comma inside become full-width
  (源语言 (德语) -> 源语言（德语）, no space beside them; a tuple such as (查询, 键) keeps its half-width ones), and a
  percent sign follows its number without a space (70 % -> 70%), and no space stands beside a
  full-width bracket.
Formulas ($...$), code spans (`...`) and book titles (《...》) are left as they are.
"""

from __future__ import annotations

import re

import autocorrect_py

autocorrect_py.load_config('{"rules": {"space-dash": 0}}')

CJK = "\u4e00-\u9fff"
# Parentheses, not a call's: no letter, digit, _ or ] right before them.
CHINESE_PARENTHESES = re.compile(
    rf"(?<![A-Za-z0-9_\]]) ?\(([^()`$\n,\"']*[{CJK}][^()`$\n,\"']*)\) ?"
)
SPACED_PERCENT = re.compile(r"(\d) +%")
CHINESE_COLON = re.compile(rf"(?<=[{CJK}]):(?=\s|\"|'|$)")
PROTECTED = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|`[^`\n]+`", re.DOTALL)


def _outside_protected(text: str, change) -> str:
    """Apply ``change`` to the text between formulas and code spans."""
    parts, last = [], 0
    for match in PROTECTED.finditer(text):
        parts += [change(text[last : match.start()]), match.group(0)]
        last = match.end()
    return "".join([*parts, change(text[last:])])


def _our_rules(text: str, code: bool) -> str:
    text = CHINESE_PARENTHESES.sub(r"（\1）", text)
    text = SPACED_PERCENT.sub(r"\1%", text)
    return CHINESE_COLON.sub("：", text) if code else text


BOOK_TITLE = re.compile(r"《[^》\n]*》")
AROUND_BRACKETS = re.compile(r"(?<=\w) (?=（)|(?<=）) (?=\w)")


def _titles_kept(original: str, new: str) -> str:
    """A book title (《transformer详解》) is quoted as written: the rules do not touch it."""
    titles = iter(BOOK_TITLE.findall(original))
    return BOOK_TITLE.sub(lambda match: next(titles, match.group(0)), new)


def fixed(text: str, kind: str) -> str:
    """The translation as the typography rules would write it."""
    if kind == "code":
        new = _our_rules(text, code=True)
    else:
        new = _outside_protected(
            autocorrect_py.format_for(text, "md"), lambda t: _our_rules(t, False)
        )
    new = _outside_protected(new, lambda t: AROUND_BRACKETS.sub("", t))
    return _titles_kept(text, new)


def typography_problems(text: str, kind: str) -> list[str]:
    """One line per changed line: what the rules would write instead."""
    new = fixed(text, kind)
    return [
        f"Chinese typography: {old.strip()[:60]!r} -> {line.strip()[:60]!r}"
        for old, line in zip(text.splitlines(), new.splitlines(), strict=False)
        if old != line
    ]
