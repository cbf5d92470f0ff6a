"""`make test`'s order (tools.test_schedule): the longest files start first, and nothing is dropped."""

from tools.test_schedule import expected_seconds, longest_first, work_unit

SCOPES = [
    "notebooks/00_overview.ipynb",
    "notebooks/11_training.ipynb",
    "notebooks/15_real_german.ipynb",
    "notebooks/glossary.ipynb",
    "notebooks/zh/11_training.ipynb",
    "notebooks/zh/15_real_german.ipynb",
    "tests/test_checks.py",
    "tests/test_masks.py::TestPadding",
]
TIMES = {"00_overview": 10.0, "11_training": 80.0, "15_real_german": 160.0}


def test_longest_notebooks_first_in_both_editions_and_ties_keep_their_order():
    order = longest_first(SCOPES, TIMES)
    assert order[:4] == [
        "notebooks/15_real_german.ipynb",
        "notebooks/zh/15_real_german.ipynb",
        "notebooks/11_training.ipynb",
        "notebooks/zh/11_training.ipynb",
    ]
    assert order[4] == "notebooks/00_overview.ipynb"
    # unknown times count as 0 and keep xdist's order among themselves
    assert order[5:] == [
        "notebooks/glossary.ipynb",
        "tests/test_checks.py",
        "tests/test_masks.py::TestPadding",
    ]
    assert sorted(order) == sorted(SCOPES)


def test_a_class_scope_counts_as_its_module():
    assert expected_seconds("tests/test_masks.py::TestPadding", {}) == expected_seconds(
        "tests/test_masks.py", {}
    )


def test_a_slow_test_module_goes_before_short_notebooks_and_after_longer_ones():
    order = longest_first(
        ["notebooks/00_overview.ipynb", "tests/test_checks.py", "tests/test_docs.py"],
        {"00_overview": 10.0},
    )
    assert order == ["tests/test_docs.py", "notebooks/00_overview.ipynb", "tests/test_checks.py"]
    assert expected_seconds("tests/test_docs.py", {}) > 0


def test_the_modules_that_parse_the_dictionary_are_one_unit_with_their_summed_time():
    scopes = (
        "tests/test_bpe.py::TestMerges",
        "tests/test_dictionary.py",
        "tests/test_train_command.py",
    )
    assert {work_unit(scope) for scope in scopes} == {"tests/test_dictionary.py"}
    assert work_unit("tests/test_docs.py") == "tests/test_docs.py"
    unit_alone = expected_seconds("tests/test_bpe.py", {})
    assert expected_seconds("tests/test_dictionary.py", {}) > unit_alone > 0
