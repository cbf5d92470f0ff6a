"""The tools that keep the Chinese edition in step with the English (tools/translation)."""

import pytest

from tools.translation.catalogue import entries_state, new_catalogue, translations, updated
from tools.translation.checks import exported_problems, problems
from tools.translation.generate import translated_notebook, with_language
from tools.translation.units import (
    Unit,
    code_has_words,
    code_tokens,
    exported_code,
    exported_texts,
    markdown_blocks,
    translated_export,
    units,
)


def test_a_markdown_cell_splits_at_blank_lines_but_not_inside_a_formula_or_a_fence():
    source = (
        "# Title\n\nOne\nparagraph.\n\n$$\na\n\nb\n$$\n\n```python\nx = 1\n\ny = 2\n```\n\nEnd."
    )
    assert markdown_blocks(source) == [
        "# Title", "One\nparagraph.", "$$\na\n\nb\n$$", "```python\nx = 1\n\ny = 2\n```", "End.",
    ]  # fmt: skip
    assert markdown_blocks("$$ a $$\n\nb") == ["$$ a $$", "b"]  # a one-line formula closes itself


def test_units_are_prose_paragraphs_code_cells_with_words_and_the_comments_of_exported_code():
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": "## 1 · Masks\n\n$$\nQK^T\n$$\n\nSee `x`."},
            {"cell_type": "code", "source": "x = 1  # one token"},
            {"cell_type": "code", "source": "x = f(1)\nprint(x)"},
            {"cell_type": "code", "source": "#| export model.masks\ndef f():  # why\n    pass"},
            {"cell_type": "code", "source": 'print(f"the mask is {x}")'},
            {"cell_type": "code", "source": "y = g(x)  # noqa: F821"},
        ]
    }
    found = units(notebook)
    assert [(u.cell, u.block, u.kind) for u in found] == [
        (0, 0, "markdown"), (0, 2, "markdown"), (1, 0, "code"), (3, 0, "comment"), (4, 0, "code"),
    ]  # fmt: skip
    assert found[3].text == "# why"
    assert not code_has_words('x = d["key"]')  # one word in a string is a name, not English


def test_code_tokens_ignore_comments_strings_and_the_language_of_the_setup_call():
    english = 'device = setup_notebook()  # seeds\nprint("done", n)'
    chinese = 'device = setup_notebook(language="zh")  # 随机种子\nprint("完成", n)'
    assert code_tokens(english) == code_tokens(chinese)
    assert code_tokens("print(n)") != code_tokens("print(m)")
    assert (
        with_language("d = setup_notebook(seed=1)") == 'd = setup_notebook(language="zh", seed=1)'
    )


def test_an_f_string_may_be_reordered_joined_or_reworded_but_its_fields_may_not_change():
    # The same on every Python: 3.12+ tokenizes an f-string's fields as code, 3.11 sees a string.
    english = (
        "print(\n"
        "    f\"{count} of {total} positions are padding ({share:.0%}) in {names['German']}, \"\n"
        "    f\"{'more' if worse else 'less'} than before\"\n"
        ")\n"
    )
    reordered = (
        "print(f\"{names['德语']} 中 {total} 个位置有 {count} 个是填充（{share:.1%}），"
        "比以前{'多' if worse else '少'}\")\n"
    )
    assert code_tokens(reordered) == code_tokens(english)
    changed = reordered.replace("{count}", "{count + 1}")
    assert code_tokens(changed) != code_tokens(english)
    assert code_tokens(reordered.replace("{total}", "{total!r}")) != code_tokens(english)
    assert code_has_words('print(f"{count} of {total} words")\n')
    assert not code_has_words('print(f"{count}/{total}")\n')


@pytest.mark.parametrize(
    ("chinese", "problem"),
    [
        ("# 掩码 $a$ `x` [g](glossary.ipynb) 57.35", "expected a heading"),
        ("## 掩码 $b$ `x` [g](glossary.ipynb) 57.35", "formulas missing"),
        ("## 掩码 $a$ [g](glossary.ipynb) 57.35", "code spans missing"),
        ("## 掩码 $a$ `x` [g](other.ipynb) 57.35", "link targets missing"),
        ("## 掩码 $a$ `x` [g](glossary.ipynb) 57.36", "numbers missing"),
        ("## Masks $a$ `x` [g](glossary.ipynb) 57.35", "no Chinese"),
    ],
)
def test_a_translation_must_keep_formulas_code_links_and_numbers(chinese, problem):
    english = "## Masks $a$ and `x`, see [g](glossary.ipynb): 57.35"
    assert problems(english, "## 掩码 $a$ 与 `x`，见 [g](glossary.ipynb)：57.35", "markdown") == []
    assert any(problem in p for p in problems(english, chinese, "markdown"))
    assert problems("x = 1  # one", "x = 2  # 一", "code") != []


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("The model has 4.5 million parameters.", "模型有 450 万个参数。"),
        ("The model has 4.5 million parameters.", "模型有 4.5 million（约 450 万）个参数。"),
        ("The model has 4,503,124 parameters.", "模型有 4,503,124（约 450 万）个参数。"),
        ("It has 65 million.", "它有 65 M（6500 万）。"),
        ("25,000 tokens per step.", "每步 25000 个词元。"),
        ("A batch of one, filled with 0s and 1s.", "大小为 1 的批次，由 0 和 1 组成。"),
        ("Every 500th step.", "每 500 步。"),
        ("Section 3.2.2.", "第 3.2.2 节。"),
    ],
)
def test_numbers_are_compared_by_value_in_chinese_units(english, chinese):
    assert problems(english, chinese, "markdown") == []


@pytest.mark.parametrize(
    ("english", "chinese", "problem"),
    [
        ("The model has 4.5 million parameters.", "模型有 460 万个参数。", "numbers missing"),
        (
            "The model has 4.5 million parameters.",
            "模型有 4.5 million（450 亿）个参数。",
            "not in the English",
        ),
        (
            "The model has 4,503,124 parameters.",
            "模型有 4,503,124（500 万）个参数。",
            "not in the English",
        ),
        ("Two layers.", "两层，第 3 层。", "not in the English"),
        ("Section 3.2.2.", "第 3.2.3 节。", "numbers missing"),
    ],
)
def test_a_number_the_translator_changes_or_adds_is_caught(english, chinese, problem):
    assert any(problem in p for p in problems(english, chinese, "markdown"))


def _catalogue_for(texts, translated):
    catalogue = updated(
        new_catalogue("nb"), [Unit(i, 0, "markdown", t) for i, t in enumerate(texts)], "nb"
    )
    for message in catalogue:
        if message.id in translated:
            message.string = translated[message.id]
    return catalogue


def test_a_changed_paragraph_keeps_its_old_translation_as_fuzzy_and_a_new_one_comes_untranslated():
    old = _catalogue_for(
        ["The mask hides padding.", "Attention reads values."],
        {"The mask hides padding.": "掩码遮住填充。", "Attention reads values.": "注意力读取值。"},
    )
    new_texts = ["The mask hides the padding.", "Attention reads values.", "A new paragraph."]
    new = updated(old, [Unit(i, 0, "markdown", t) for i, t in enumerate(new_texts)], "nb")
    changed = new["The mask hides the padding."]
    assert changed.fuzzy and changed.string == "掩码遮住填充。"
    assert changed.previous_id == ["The mask hides padding."]
    assert not new["Attention reads values."].fuzzy
    assert entries_state(new) == (["A new paragraph."], ["The mask hides the padding."])
    assert translations(new) == {"Attention reads values.": "注意力读取值。"}  # fuzzy is not used


EXPORTED = '''#| export model.layers
class Sublayer(nn.Module):
    """x + dropout(sublayer(norm(x))): the Pre-LN residual (notebook 07).

    x: (batch, seq_len, d_model) -> (batch, seq_len, d_model).

    The norm comes first, so the residual path
    stays an identity.
    """

    def forward(self, x, sublayer):
        # Norm first, then the sublayer;
        # the residual adds the input back.
        check_finite("x", x)  # once, at the boundary
        if x.dim() != 3:
            fail(tr("x: expected (batch, seq_len, d_model), got {shape}").format(shape=x.shape))
        return x + self.dropout(sublayer(self.norm(x)))  # type: ignore
'''
EXPORTED_ZH = {
    "x + dropout(sublayer(norm(x))): the Pre-LN residual (notebook 07).":
        "x + dropout(sublayer(norm(x)))：Pre-LN 残差连接（笔记本 07）。",
    "The norm comes first, so the residual path\nstays an identity.":
        "先做规范化，\n残差路径因此保持为恒等映射。",
    "# Norm first, then the sublayer;\n# the residual adds the input back.":
        "# 先规范化，再进子层；残差再把输入加回来。",
    "# once, at the boundary": "# 只在边界检查一次\n# （内层信任调用者）",
}  # fmt: skip


def test_an_exported_cell_gives_one_unit_per_comment_and_docstring_paragraph_with_prose():
    assert exported_texts(EXPORTED) == [
        ("docstring", "x + dropout(sublayer(norm(x))): the Pre-LN residual (notebook 07)."),
        ("docstring", "The norm comes first, so the residual path\nstays an identity."),
        ("comment", "# Norm first, then the sublayer;\n# the residual adds the input back."),
        ("comment", "# once, at the boundary"),
    ]  # the shapes-only paragraph, the pragmas (the export line, a type comment) are not units


@pytest.mark.parametrize(
    ("paragraph", "translated"),
    [
        ("softmax(Q K^T / sqrt(d_k)) V  (paper §3.2.1, equation 1).", True),
        (
            "lrate(step) = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5) (paper §5.3).",
            True,
        ),
        ("q, k: (batch, len, d_k or d_v) -> heads (batch, n_heads, len_q, d_v), weights.", True),
        (
            "src: (batch, src_len), tgt: (batch, tgt_len) ids -> logits (batch, tgt_len, vocab).",
            True,
        ),
        ("x: (batch, n, d_model) -> (batch, n, d_model).", False),  # shapes only
        ("ids: (batch, seq_len) int64 -> (batch, seq_len, d_model).", False),
        ("MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O.", False),  # a formula
    ],
)
def test_a_docstring_first_line_with_one_word_of_prose_is_a_unit(paragraph, translated):
    # A word alone between shapes and formulas ("paper", "heads", "logits") is prose too: the
    # Chinese edition would otherwise keep "(paper §5.3)" in English.
    source = f'#| export model.x\ndef f(x):\n    """{paragraph}"""\n    return x\n'
    assert exported_texts(source) == ([("docstring", paragraph)] if translated else [])


def test_a_translated_exported_cell_keeps_the_english_code_token_for_token():
    chinese = translated_export(EXPORTED, EXPORTED_ZH)
    assert translated_export(EXPORTED, {}) == EXPORTED  # nothing translated: the English, exactly
    assert exported_code(chinese) == exported_code(EXPORTED)
    assert exported_problems(EXPORTED, EXPORTED_ZH) == []
    assert chinese.startswith("#| export model.layers\n")
    assert '    """x + dropout(sublayer(norm(x)))：Pre-LN 残差连接（笔记本 07）。\n' in chinese
    assert '    先做规范化，\n    残差路径因此保持为恒等映射。\n    """\n' in chinese
    assert "        # 先规范化，再进子层；残差再把输入加回来。\n        check_finite" in chinese
    assert 'check_finite("x", x)  # 只在边界检查一次 （内层信任调用者）\n' in chinese  # one line
    assert "return x + self.dropout(sublayer(self.norm(x)))  # type: ignore" in chinese


@pytest.mark.parametrize(
    ("english", "changed"),
    [
        ("self.norm(x)", "self.layer_norm(x)"),  # an identifier
        ('check_finite("x", x)', 'check_finite("输入", x)'),  # a string literal
        ('tr("x: expected', 'tr("x：应为'),  # a tr() message id: tr() would fall back to it
        ("# type: ignore", "# 不检查 B950"),  # a pragma
        ("#| export model.layers", "#| export model.层"),  # the export line
    ],
)
def test_the_exported_check_rejects_any_change_but_comments_and_docstrings(english, changed):
    chinese = translated_export(EXPORTED, EXPORTED_ZH)
    assert exported_code(chinese.replace(english, changed)) != exported_code(EXPORTED)
    assert exported_code(chinese.replace("残差连接", "残差")) == exported_code(EXPORTED)


@pytest.mark.parametrize(
    ("english", "chinese", "problem"),
    [
        ("# once, at the boundary", "只在边界检查一次", "starts with '#'"),
        ("# the mask (2 heads)", "# 掩码（3 个头）", "numbers missing"),
        ("The norm comes first.", '先做规范化。"""', "quotes"),
        ("The norm comes first.", "先做规范化。\n\n残差。", "no blank line"),
        ("The norm comes first.", "先做规范化,残差。", "typography"),
    ],
)
def test_a_translated_comment_or_docstring_keeps_its_form(english, chinese, problem):
    kind = "comment" if english.startswith("#") else "docstring"
    assert any(problem in p for p in problems(english, chinese, kind))
    # a translation that breaks the cell (a trailing comment made code) is caught on the cell
    assert exported_problems(EXPORTED, {"# once, at the boundary": "只在边界"}) != []


def test_a_code_edit_around_an_unchanged_comment_keeps_its_translation():
    def catalogue_for(source, old):
        cell = {"cell_type": "code", "source": source}
        return updated(old, units({"cells": [cell]}), "nb")

    first = catalogue_for(EXPORTED, new_catalogue("nb"))
    for message in first:
        if message.id in EXPORTED_ZH:
            message.string = EXPORTED_ZH[message.id]
    renamed = EXPORTED.replace("self.norm(x)", "self.layer_norm(x)").replace("x.dim()", "x.ndim")
    second = catalogue_for(renamed, first)
    assert entries_state(second) == ([], [])  # nothing untranslated, nothing fuzzy
    assert translations(second) == EXPORTED_ZH


def test_a_generated_notebook_replaces_translated_units_and_keeps_exported_code():
    english = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "## Masks\n\n$$\nx\n$$\n\nDone."},
            {"cell_type": "code", "metadata": {}, "outputs": [1], "execution_count": 3,
             "source": "device = setup_notebook()  # seeds"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 4,
             "source": "#| export model.x\nx = 1  # one"},
        ],
    }  # fmt: skip
    catalogue = _catalogue_for(
        ["## Masks", "Done.", "device = setup_notebook()  # seeds", "# one"],
        {
            "## Masks": "## 掩码",
            "device = setup_notebook()  # seeds": "device = setup_notebook()  # 种子",
            "# one": "# 一",
        },
    )
    chinese = translated_notebook(english, catalogue)
    assert chinese["cells"][0]["source"] == "## 掩码\n\n$$\nx\n$$\n\nDone."  # untranslated stays
    assert chinese["cells"][1]["source"] == 'device = setup_notebook(language="zh")  # 种子'
    assert chinese["cells"][1]["outputs"] == [] and chinese["cells"][1]["execution_count"] is None
    assert chinese["cells"][2]["source"] == "#| export model.x\nx = 1  # 一"  # its code unchanged
    assert english["cells"][1]["outputs"] == [1]  # the English notebook is not changed


def test_regenerating_after_a_markdown_change_keeps_the_outputs_and_a_code_change_clears_them(
    tmp_path, monkeypatch
):
    import nbformat

    from tools.translation import __main__ as cli

    english_path = tmp_path / "01_x.ipynb"
    english = nbformat.v4.new_notebook()
    english.cells = [
        nbformat.v4.new_markdown_cell("## Masks", id="a"),
        nbformat.v4.new_code_cell("x = 1  # one", id="b"),
    ]
    nbformat.write(english, english_path)
    monkeypatch.setattr(cli, "catalogue_path", lambda path: tmp_path / f"{path.stem}.po")
    monkeypatch.setattr(cli, "edition_path", lambda path: tmp_path / "zh" / path.name)
    cli.update(english_path)
    cli.generate(english_path)
    chinese_path = tmp_path / "zh" / "01_x.ipynb"
    executed = nbformat.read(chinese_path, as_version=4)
    executed.cells[1].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    executed.cells[1].execution_count = 1
    nbformat.write(executed, chinese_path)

    english.cells[0].source = "## The masks"  # Markdown only: the outputs still hold
    nbformat.write(english, english_path)
    cli.update(english_path)
    cli.generate(english_path)
    again = nbformat.read(chinese_path, as_version=4)
    assert again.cells[0].source == "## The masks" and again.cells[1].execution_count == 1

    english.cells.append(nbformat.v4.new_code_cell("#| export x.y\ny = 1  # one", id="c"))
    nbformat.write(english, english_path)
    cli.update(english_path)
    cli.generate(english_path)  # a new code cell: run again
    executed = nbformat.read(chinese_path, as_version=4)
    executed.cells[1].execution_count, executed.cells[2].execution_count = 1, 2
    nbformat.write(executed, chinese_path)
    catalogue = cli.read_catalogue(cli.catalogue_path(english_path), "01_x")
    catalogue["# one"].string = "# 一"  # an exported cell's comment translated: outputs hold
    cli.write_catalogue(catalogue, cli.catalogue_path(english_path))
    cli.generate(english_path)
    again = nbformat.read(chinese_path, as_version=4)
    assert again.cells[2].source == "#| export x.y\ny = 1  # 一"
    assert [c.execution_count for c in again.cells[1:]] == [1, 2]

    english.cells[1].source = "x = 2  # two"  # the code changed: it must run again
    nbformat.write(english, english_path)
    cli.update(english_path)
    cli.generate(english_path)
    cleared = nbformat.read(chinese_path, as_version=4)
    assert cleared.cells[1].outputs == [] and cleared.cells[1].execution_count is None


@pytest.mark.parametrize(
    ("kind", "chinese", "expected"),
    [
        ("markdown", "源语言 (德语) 和目标语言", "源语言（德语）和目标语言"),
        ("markdown", "约 70 % 的参数", "约 70% 的参数"),
        ("markdown", "用PyTorch实现", "用 PyTorch 实现"),
        ("markdown", "编码器-解码器", "编码器-解码器"),
        ("markdown", "见 `f(德语)` 与 $a (德语)$", "见 `f(德语)` 与 $a (德语)$"),
        ("code", 'print("词元:", tokens)', 'print("词元：", tokens)'),
        ("code", "x = 1  # 运行 (60 步后)", "x = 1  # 运行（60 步后）"),
        ("code", "y = f(x)  # 每个 (句子, 位置) 上", "y = f(x)  # 每个 (句子, 位置) 上"),
    ],
)
def test_chinese_typography_rules(kind, chinese, expected):
    from tools.translation.typography import fixed, typography_problems

    assert fixed(chinese, kind) == expected
    assert bool(typography_problems(chinese, kind)) == (chinese != expected)
    assert fixed(expected, kind) == expected  # already right: left alone


def test_chinese_typography_keeps_book_titles_and_spaces_no_bracket():
    from tools.translation.typography import fixed

    assert (
        fixed("学习笔记《transformer详解》里的公式", "markdown")
        == "学习笔记《transformer详解》里的公式"
    )
    assert fixed('x = {"V = 1,000 (上面实测)": 1}', "code") == 'x = {"V = 1,000（上面实测）": 1}'
