"""What a translation must keep of its English: the code, the formulas, the links, the numbers.

``problems(english, chinese, kind)`` lists, in words, what a translated unit changed that it must
not: for a code cell, any token that is not a comment or a string; for a Markdown paragraph, its
heading level, its formulas, code spans and link targets, and its numbers; and it must be Chinese,
typeset as Chinese (tools.translation.typography: `python -m tools.translation typography` sets
the translations right).
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

from tools.translation.typography import typography_problems
from tools.translation.units import code_tokens

# A unit is one paragraph, so an inline formula may run over a line break, never a blank line.
FORMULA = re.compile(r"\$\$.*?\$\$|\$[^$]+\$", re.DOTALL)
# A code span may run over a line break too; a fence (```) is not a span.
CODE_SPAN = re.compile(r"(?<!`)`(?!`)[^`]+(?<!`)`(?!`)")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _missing(english: list[str], chinese: list[str]) -> list[str]:
    return sorted((Counter(english) - Counter(chinese)).elements())


def _added(english: list[str], chinese: list[str]) -> list[str]:
    return sorted((Counter(chinese) - Counter(english)).elements())


def _targets(text: str) -> list[str]:
    return [a or b for a, b in LINK_TARGET.findall(text)]


# A number with its unit: "4.5 million" in English is "450 万" (or "4.5 百万") in Chinese.
# "0s and 1s", "every 500th step" and "65 M" hold numbers too.
NUMBER_WITH_UNIT = re.compile(
    r"(?<![A-Za-z0-9_.])(\d+(?:[.,]\d+)*)(?:s|st|nd|rd|th)?(?![A-Za-z0-9_])"
    r"(\s*(?:million|billion|M(?![A-Za-z])|万|亿))?"
)
UNITS = {"million": 10**6, "billion": 10**9, "M": 10**6, "万": 10**4, "亿": 10**8}
# English words a translation may render as digits ("a batch of one": 大小为 1 的批次).
NUMBER_WORDS = {
    "zero": 0, "zeros": 0, "one": 1, "ones": 1, "once": 1, "single": 1, "first": 1,
    "two": 2, "twice": 2, "second": 2, "three": 3, "third": 3, "four": 4, "fourth": 4,
    "five": 5, "fifth": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100, "thousand": 1000,
}  # fmt: skip
WORD = re.compile(r"[A-Za-z]+")
# Before a number the translator added: it only approximates one of the English.
ABOUT = re.compile(r"(?:约|大约|近|将近|≈|~)\s*$")


def _prose(text: str) -> str:
    # Numbers of the prose only: those inside formulas and code spans are checked with them.
    return CODE_SPAN.sub(" ", FORMULA.sub(" ", text))


A_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _value(digits: str, unit: str | None) -> Fraction | str:
    """The value a number stands for (commas group thousands, a unit multiplies); a string such
    as a section number "3.2.2" stands for itself."""
    if not A_NUMBER.fullmatch(digits):
        return digits + (unit or "")
    return Fraction(digits.replace(",", "")) * UNITS.get((unit or "").strip(), 1)


def _shown(value: Fraction | str) -> str:
    if isinstance(value, str) or value.denominator == 1:
        return str(value)
    return f"{float(value):g}"


def _values(text: str) -> list[tuple[Fraction | str, bool]]:
    """Each number of the prose as (its value, whether 约/about stands before it)."""
    prose = _prose(text)
    return [
        (_value(m.group(1), m.group(2)), bool(ABOUT.search(prose[: m.start()])))
        for m in NUMBER_WITH_UNIT.finditer(prose)
    ]


def _approximates(value: Fraction | str, english_values: Counter) -> bool:
    return not isinstance(value, str) and any(
        not isinstance(e, str) and abs(value - e) <= abs(e) / 20 for e in english_values
    )


def _number_problems(english: str, chinese: str) -> list[str]:
    """The English numbers the Chinese lacks and the Chinese numbers that render none of them.

    Values are compared, so "4.5 million" may become "450 万"; a number the translator adds (a
    Chinese rendering beside the English one, "4.5 million（约 450 万）") must equal an English
    value or a number word of the English ("a batch of one": 大小为 1 的批次), or be within 5 %
    of an English value when 约 (about) stands before it.
    """
    theirs = _values(english)
    ours = _values(chinese)
    english_values = Counter(value for value, _ in theirs)
    missing = english_values - Counter(value for value, _ in ours)
    found = []
    if missing:
        found.append(f"numbers missing or changed: {sorted(map(_shown, missing.elements()))}")
    worded = {
        NUMBER_WORDS[w.lower()] for w in WORD.findall(_prose(english)) if w.lower() in NUMBER_WORDS
    }
    added = [
        value
        for value, about in ours
        if value not in english_values
        and value not in worded
        and not (about and _approximates(value, english_values))
    ]
    if added:
        found.append(f"numbers not in the English: {sorted(map(_shown, added))}")
    return found


def problems(english: str, chinese: str, kind: str) -> list[str]:
    """What the translation changed that it must keep (empty when it is faithful)."""
    found = []
    if kind == "code":
        if code_tokens(english) != code_tokens(chinese):
            found.append("the code differs (only comments and strings may be translated)")
        return found + typography_problems(chinese, kind)
    heading = HEADING.match(english)
    if heading and not chinese.startswith(heading.group(1) + " "):
        found.append(f"expected a heading starting with {heading.group(1)!r}")
    for what, pattern in (("formula", FORMULA), ("code span", CODE_SPAN)):
        missing = _missing(pattern.findall(english), pattern.findall(chinese))
        added = _added(pattern.findall(english), pattern.findall(chinese))
        if missing:
            found.append(f"{what}s missing or changed: {missing}")
        if added:
            found.append(f"{what}s not in the English: {added}")
    missing_links = _missing(_targets(english), _targets(chinese))
    if missing_links:
        found.append(f"link targets missing or changed: {missing_links}")
    found += _number_problems(english, chinese)
    if _stars_shown(chinese) > _stars_shown(english):
        found.append(
            "a * or ** is shown as typed: CommonMark closes bold or italic before a Chinese "
            "character only after a space (write `**粗体。** 后文`, not `**粗体。**后文`)"
        )
    if not CJK.search(chinese):
        found.append("no Chinese in the translation")
    return found + typography_problems(chinese, kind)


def _stars_shown(markdown: str) -> int:
    """How many * CommonMark leaves as typed (outside formulas and code): failed emphasis."""
    from markdown_it import MarkdownIt

    # JupyterLab takes the formulas out before it renders Markdown, leaving "@@n@@" in their place.
    html = MarkdownIt("commonmark").render(FORMULA.sub("@@0@@", markdown))
    return re.sub(r"<code>.*?</code>", " ", html, flags=re.DOTALL).count("*")
