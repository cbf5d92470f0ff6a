"""What a translation must keep of its English: the code, the formulas, the links, the numbers.

``problems(english, chinese, kind)`` lists, in words, what a translated unit changed that it must
not: for a code cell, any token that is not a comment or a string; for a Markdown paragraph, its
heading level, its formulas, code spans and link targets, and its numbers; and it must be Chinese.
"""

from __future__ import annotations

import re
from collections import Counter

from tools.translation.units import code_tokens

# A unit is one paragraph, so an inline formula may run over a line break, never a blank line.
FORMULA = re.compile(r"\$\$.*?\$\$|\$[^$]+\$", re.DOTALL)
# A code span may run over a line break too; a fence (```) is not a span.
CODE_SPAN = re.compile(r"(?<!`)`(?!`)[^`]+(?<!`)`(?!`)")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
# A number, wherever it stands (Chinese characters are word characters: "第3层" has a 3).
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)*(?![A-Za-z0-9_])")
HEADING = re.compile(r"^(#{1,6})\s")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _missing(english: list[str], chinese: list[str]) -> list[str]:
    return sorted((Counter(english) - Counter(chinese)).elements())


def _added(english: list[str], chinese: list[str]) -> list[str]:
    return sorted((Counter(chinese) - Counter(english)).elements())


def _targets(text: str) -> list[str]:
    return [a or b for a, b in LINK_TARGET.findall(text)]


def _numbers(text: str) -> list[str]:
    # Numbers of the prose only: those inside formulas and code spans are checked with them.
    return NUMBER.findall(CODE_SPAN.sub(" ", FORMULA.sub(" ", text)))


def problems(english: str, chinese: str, kind: str) -> list[str]:
    """What the translation changed that it must keep (empty when it is faithful)."""
    found = []
    if kind == "code":
        if code_tokens(english) != code_tokens(chinese):
            found.append("the code differs (only comments and strings may be translated)")
        return found
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
    missing_numbers = _missing(_numbers(english), _numbers(chinese))
    if missing_numbers:
        found.append(f"numbers missing or changed: {missing_numbers}")
    if _stars_shown(chinese) > _stars_shown(english):
        found.append(
            "a * or ** is shown as typed: CommonMark closes bold or italic before a Chinese "
            "character only after a space (write `**粗体。** 后文`, not `**粗体。**后文`)"
        )
    if not CJK.search(chinese):
        found.append("no Chinese in the translation")
    return found


def _stars_shown(markdown: str) -> int:
    """How many * CommonMark leaves as typed (outside formulas and code): failed emphasis."""
    from markdown_it import MarkdownIt

    # JupyterLab takes the formulas out before it renders Markdown, leaving "@@n@@" in their place.
    html = MarkdownIt("commonmark").render(FORMULA.sub("@@0@@", markdown))
    return re.sub(r"<code>.*?</code>", " ", html, flags=re.DOTALL).count("*")
