"""tools.mutation: reading mutmut's verdicts into a score per module."""

from tools.mutation import freeze_messages, module_table, statuses, survivor_names

RESULTS = """\
    helpers.model.masks.x_padding_mask__mutmut_1: killed
    helpers.model.masks.x_padding_mask__mutmut_2: survived
    helpers.model.masks.x_look_ahead_mask__mutmut_1: timeout
    helpers.model.multi_head_attention.xǁKVCacheǁappend__mutmut_3: killed
    helpers.model.multi_head_attention.xǁKVCacheǁappend__mutmut_4: not checked
    helpers.model.multi_head_attention.xǁKVCacheǁappend__mutmut_5: no tests
"""


def test_verdicts_are_counted_per_module_and_in_all():
    by_module = statuses(RESULTS)
    assert set(by_module) == {"helpers.model.masks", "helpers.model.multi_head_attention"}
    assert by_module["helpers.model.masks"] == {"killed": 1, "survived": 1, "timeout": 1}
    table = module_table(by_module).splitlines()
    # A timeout is a kill; a mutant no test reaches is alive; one not checked is not judged.
    assert table[2] == "| helpers.model.masks | 2 | 1 | 0 | 66.7% |"
    assert table[3] == "| helpers.model.multi_head_attention | 1 | 1 | 1 | 50.0% |"
    assert table[4] == "| all | 3 | 2 | 1 | 60.0% |"


def test_survivors_are_named_for_a_second_run():
    assert survivor_names(RESULTS) == [
        "helpers.model.masks.x_padding_mask__mutmut_2",
        "helpers.model.multi_head_attention.xǁKVCacheǁappend__mutmut_5",  # no tests reached it
    ]


def test_the_wording_of_a_message_is_frozen_into_an_f_string_of_the_same_value():
    source = (
        "def f(n, tr=str):\n"
        '    message = tr("n: expected {what}, got {n!r}").format(what="é", n=n)\n'
        '    other = tr("a " "b, {n}")\n'
        '    return message, other, "plain"\n'
    )
    frozen = freeze_messages(source)
    assert 'tr(f"n: expected {{what}}, got {{n!r}}")' in frozen.replace("'", '"')
    assert 'tr(f"a b, {{n}}")' in frozen.replace("'", '"')
    assert '"plain"' in frozen
    namespace: dict = {}
    exec(compile(source, "original", "exec"), namespace)
    before = namespace["f"](3)
    exec(compile(frozen, "frozen", "exec"), namespace)
    assert namespace["f"](3) == before
