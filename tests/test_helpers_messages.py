"""The helpers' messages in Chinese: tr(), and the catalogue helpers/locale/zh.po.

Every message a helper shows a student is ``tr("English")``; the Chinese edition's notebooks
call ``setup_notebook(language="zh")``, and ``tr`` then answers from zh.po. The catalogue must
hold a translation of every message (none fuzzy), keep each message's placeholders, and be what
``python -m tools.translation helpers-messages`` writes from the code as it is.
"""

from collections import Counter

import pytest
import torch

from helpers.exercises.notebook_03 import check_attention_weights
from helpers.exercises.notebook_12 import check_doubling_length
from helpers.language import current_language, set_language, tr
from tools.translation.catalogue import po_bytes, read_catalogue
from tools.translation.helpers_messages import (
    CATALOGUE_PATH,
    DOMAIN,
    NonLiteralCall,
    entries,
    fresh_catalogue,
    non_literal,
    package_calls,
    package_untranslated_messages,
    placeholders,
    tr_calls,
    untranslated_messages,
)

CHINESE = "\u4e00-\u9fff"


@pytest.fixture
def chinese():
    """The helpers speak Chinese during the test, and English again after it."""
    set_language("zh")
    yield
    set_language("en")


@pytest.fixture(scope="module")
def catalogue():
    return read_catalogue(CATALOGUE_PATH, DOMAIN)


def test_every_message_of_the_helpers_is_translated_and_none_is_fuzzy(catalogue):
    calls = package_calls()
    assert len(calls) > 300, "the extraction should find the tr() calls of every module"
    translated = {m.id: m for m in catalogue if m.id}
    missing = sorted({call.text for call in calls} - set(translated))
    assert not missing, f"run `python -m tools.translation helpers-messages`: {missing[:5]}"
    untranslated = [m.id for m in translated.values() if not m.string]
    fuzzy = [m.id for m in translated.values() if m.fuzzy]
    assert not untranslated, f"translate these in {CATALOGUE_PATH.name}: {untranslated[:5]}"
    assert not fuzzy, f"check these in {CATALOGUE_PATH.name}, then remove the flag: {fuzzy[:5]}"


def test_the_catalogue_is_what_a_fresh_extraction_writes():
    assert po_bytes(fresh_catalogue()) == CATALOGUE_PATH.read_bytes(), (
        "helpers/locale/zh.po is out of date with the tr() calls: run "
        "`python -m tools.translation helpers-messages`, then translate what it adds"
    )


def test_every_translation_keeps_the_placeholders_of_its_english_and_adds_none(catalogue):
    wrong = [
        (m.id, m.string)
        for m in catalogue
        if m.id and m.string and Counter(placeholders(m.id)) != Counter(placeholders(m.string))
    ]
    assert not wrong, wrong[:5]
    for message in catalogue:  # and each formats: no stray brace
        if message.id and message.string:
            fields = {
                field.strip("{}").split(":")[0].split("!")[0]: 1.5
                for field in placeholders(message.id)
            }
            message.string.format(**fields)


def test_a_translation_that_drops_or_adds_a_placeholder_is_caught():
    english = "expected {expected:.4f}, got {value:.4f}"
    assert Counter(placeholders(english)) == Counter(
        placeholders("应为 {expected:.4f}，得到 {value:.4f}")
    )
    assert Counter(placeholders(english)) != Counter(placeholders("应为 {expected:.4f}"))
    assert Counter(placeholders(english)) != Counter(
        placeholders("应为 {expected:.4f}，得到 {value:.4f}（{hint}）")
    )
    assert Counter(placeholders(english)) != Counter(
        placeholders("应为 {expected}，得到 {value:.4f}")
    )


def test_a_call_of_tr_with_anything_but_one_string_literal_is_refused():
    source = (
        "from helpers.language import tr\n"
        'a = tr("fine, {n} of them").format(n=2)\n'
        'b = tr(f"not fine: {a}")\n'
        "c = tr(a)\n"
        'd = tr("one " "literal, split")\n'
        'e = tr("")\n'
    )
    calls = tr_calls(source, "helpers/example.py")
    assert [call.text for call in calls] == [
        "fine, {n} of them",
        None,
        None,
        "one literal, split",
        None,
    ]
    problems = non_literal(calls)
    assert [problem.split(":")[1] for problem in problems] == ["3", "4", "6"]
    assert "helpers/example.py:3: 'tr(f\"not fine: {a}\")'" in problems[0]
    with pytest.raises(NonLiteralCall, match="helpers/example.py:4"):
        entries(calls)
    assert not non_literal(package_calls()), "every tr() call in helpers/ takes a string literal"


# The one message that cannot be translated: the catalogue that would translate it is missing.
ENGLISH_ONLY = ("helpers/language.py:",)


def test_every_raise_and_warning_of_the_helpers_goes_through_tr():
    problems = package_untranslated_messages()
    untranslatable = [p for p in problems if p.startswith(ENGLISH_ONLY)]
    assert len(untranslatable) == 1, untranslatable
    problems = [p for p in problems if not p.startswith(ENGLISH_ONLY)]
    assert not problems, "\n".join(problems[:10])


def test_a_raise_or_warning_in_english_only_is_caught():
    source = (
        "import warnings\n"
        "from helpers.language import tr\n"
        'raise ValueError(tr("n: expected a positive int, got {n!r}").format(n=0))\n'
        'raise ValueError(f"n: expected a positive int, got {0!r}")\n'
        'raise ValueError("n: expected a positive int")\n'
        'raise ValueError("n: expected " + str(0))\n'
        'warnings.warn(tr("{count} word(s) unknown").format(count=2), UserWarning)\n'
        'warnings.warn(f"{2} word(s) unknown", UserWarning)\n'
        "raise ValueError(message)\n"
        "raise\n"
    )
    problems = untranslated_messages(source, "helpers/example.py")
    assert [problem.split(":")[1] for problem in problems] == ["4", "5", "6", "8"]


def test_tr_speaks_english_by_default_and_refuses_an_unknown_language():
    assert current_language() == "en"
    assert tr("expected a tensor, got {type}") == "expected a tensor, got {type}"
    assert tr("a message with no translation") == "a message with no translation"
    with pytest.raises(ValueError, match="language: expected one of en, zh, got 'fr'"):
        set_language("fr")
    assert current_language() == "en"


def test_tr_answers_from_the_catalogue_in_chinese(chinese):
    assert tr("expected a tensor, got {type}").format(type="list") == "应为张量，得到的是 list"
    assert tr("a message with no translation") == "a message with no translation"


def test_a_check_prints_its_verdict_in_chinese(chinese, capsys):
    check_doubling_length(
        lambda alpha: next(n for n in range(1, 99) if (5 + n) / 6 >= 2 ** (1 / alpha))
    )
    passed = capsys.readouterr().out
    assert passed.startswith("✓ doubling_length ") and "全部 4 个" in passed

    def crashes(query, key):
        return query @ key  # (len_q, d_k) @ (len_k, d_k): the key is not transposed

    check_attention_weights(crashes)
    failed = capsys.readouterr().out
    assert failed.startswith("✗ 你的函数抛出了 RuntimeError：query @ key ")
    assert "key.transpose(-2, -1)" in failed

    check_attention_weights("not a function")
    assert capsys.readouterr().out == "✗ 应为一个函数，得到的是 str\n"


def test_the_check_recognises_a_crash_in_any_language(chinese, capsys):
    # The hint that follows a crash is chosen from the exception, not from the (translated) words:
    # transpose(1, 2) runs on 3-D inputs and raises on the 4-D ones of the check.
    check_attention_weights(lambda query, key: torch.softmax(query @ key.transpose(1, 2), dim=-1))
    printed = capsys.readouterr().out
    assert printed.startswith(
        "✗ 你的函数抛出了 RuntimeError：四维输入 (batch, heads, len, d_k) 时出错"
    )
    assert "transpose(1, 2)" in printed


def test_the_catalogue_ships_with_the_package():
    import tomllib

    from helpers.paths import ROOT

    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    assert CATALOGUE_PATH.relative_to(ROOT / "helpers").match(package_data["helpers"][0])
