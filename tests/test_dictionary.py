"""helpers.data.dictionary (notebook 15): the German-English dictionary parsed, split, looked up.

The parser is tested on lines written here; what needs the installed dictionary (Debian's
trans-de-en, GPL: read in place, never copied) is skipped where it is missing, with the command
that installs it.
"""

import gzip
import hashlib
from pathlib import Path

import pytest

from helpers.data import get_dictionary
from helpers.data.dictionary import (
    DEBIAN_FILE,
    NOTEBOOK,
    RECORDED_SHA256,
    TASKS,
    DictionaryMissing,
    alternatives,
    cache_file,
    check_train_kinds,
    dictionary_pairs,
    dictionary_path,
    install_command,
    is_recorded_version,
    missing_message,
    normalize,
    other_version_message,
    parse_line,
    read_senses,
    require_dictionary,
    sense_kind,
    sha256,
    split_of,
    task_pairs,
    word_for_word,
    word_lookup,
)
from helpers.data.get_dictionary import MIN_ENTRIES

needs_dictionary = pytest.mark.dictionary  # skipped by conftest.py where it is missing


def test_normalize_lowers_and_splits_punctuation():
    assert normalize("Ich weiß es nicht.") == "ich weiß es nicht ."
    assert normalize("  Na, wenn schon!  ") == "na , wenn schon !"
    with pytest.raises(ValueError, match="text: expected a str"):
        normalize(None)


def test_alternatives_drop_annotations():
    assert alternatives("Aal {m} (auf der Speisekarte) [cook.]; Aale {pl}") == ("Aal", "Aale")
    assert alternatives("trinken {vi} | ") == ("trinken |",)
    assert alternatives("{m} ; ") == ()


def test_sense_kind():
    assert sense_kind("Ich habe Hunger.") == "sentence"
    assert sense_kind("Na und?") == "phrase"  # two words are not a sentence
    assert sense_kind("ich habe Hunger.") == "phrase"  # not capitalised
    assert sense_kind("in der Dämmerung") == "phrase"
    assert sense_kind("Bahnhof") == "word"


def test_parse_line_aligns_senses():
    line = "Aal {m} [cook.] | Aal blau; blauer Aal :: Eel | Eel au bleu\n"
    senses = parse_line(line, 7)
    assert [(s.german, s.english, s.kind, s.line) for s in senses] == [
        (("Aal",), ("Eel",), "word", 7),
        (("Aal blau", "blauer Aal"), ("Eel au bleu",), "phrase", 7),
    ]
    assert parse_line("# Version :: devel") == []
    assert parse_line("no separator here") == []
    assert parse_line("a | b :: c") == []  # two German senses, one English: not aligned


def test_split_depends_on_the_german_text_only():
    texts = [f"satz nummer {i}" for i in range(2000)]
    splits = [split_of(text) for text in texts]
    assert splits == [split_of(text) for text in texts]
    assert set(splits) == {"train", "valid", "test"}
    assert 0.03 < splits.count("test") / len(splits) < 0.07


def test_word_for_word_copies_unknown_words():
    lookup = {"ich": "i", "trinke": "drink"}
    assert word_for_word("Ich trinke Kaffee.", lookup) == "i drink kaffee ."


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="kind: expected one of sentence, phrase, word"):
        dictionary_pairs("idiom", "train")
    with pytest.raises(ValueError, match="split: expected one of train, valid, test"):
        dictionary_pairs("sentence", "dev")
    with pytest.raises(ValueError, match="task: expected one of"):
        task_pairs("poems", "test")
    for wrong in ("sentence,idiom", "word,word", ""):
        with pytest.raises(ValueError, match="train_kinds: expected distinct kinds among"):
            check_train_kinds(wrong)
    assert check_train_kinds("word, phrase") == ("word", "phrase")


@needs_dictionary
def test_training_pairs_are_the_kinds_asked_for():
    default = task_pairs("sentences", "train")
    assert default == dictionary_pairs("sentence", "train") + dictionary_pairs("phrase", "train")
    with_words = task_pairs("frequent_phrases", "train", train_kinds="word,phrase")
    assert with_words == dictionary_pairs("word", "train") + dictionary_pairs("phrase", "train")


@needs_dictionary
def test_held_out_pairs_share_no_text_with_training():
    train_texts = {text for pair in task_pairs("sentences", "train") for text in pair}
    for task in TASKS:
        for split in ("valid", "test"):
            held_out = task_pairs(task, split)
            assert held_out
            assert not {text for pair in held_out for text in pair} & train_texts
    assert len(task_pairs("sentences", "test")) >= 1000  # the issue asks for 1,000 at least


@needs_dictionary
def test_the_dictionary_is_read_as_documented():
    sentences = dictionary_pairs("sentence", "train")
    assert len(sentences) > 15_000
    assert all(g and e and g == normalize(g) for g, e in sentences)
    assert len(dictionary_pairs("phrase", "train")) > 50_000
    lookup = word_lookup()
    assert lookup["trinken"] == "drink" and lookup["hund"] == "dog"


def test_a_file_is_parsed_once_however_its_path_is_given(tmp_path, capsys):
    # notebook 15 calls read_senses() and word_lookup(), dictionary_pairs passes a Path, the
    # training command a str: one parse of the file for all of them
    path = tmp_path / "de-en.txt"
    path.write_text(
        "# a comment\nAal {m} :: eel\nHund {m} | Hunde {pl} :: dog | dogs\n", encoding="utf-8"
    )
    senses = read_senses(path)
    assert read_senses(str(path)) is senses
    assert [(sense.german, sense.english) for sense in senses] == [
        (("Aal",), ("eel",)),
        (("Hund",), ("dog",)),
        (("Hunde",), ("dogs",)),
    ]
    lookup = word_lookup(path)
    assert word_lookup(str(path)) is lookup
    assert lookup == {"aal": "eel", "hund": "dog", "hunde": "dogs"}


def test_exercise_checks(verdicts):
    import re

    from helpers.data.dictionary import strip_notes
    from helpers.exercises.notebook_15 import check_strip_notes, check_unseen_share

    verdicts.exercise(
        check_strip_notes,
        strip_notes,
        wrong=[
            (lambda text: text, "expected 'Aal'"),
            (
                lambda text: re.sub(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)", "", text),
                "squeeze the spaces",
            ),
            (
                lambda text: " ".join(
                    re.sub(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|/[^/]*/", " ", text).split()
                ),
                "er/sie stays",
            ),
        ],
    )

    def by_occurrence(test, train):
        seen = {w for s in train for w in s.split()}
        words = [w for s in test for w in s.split()]
        return sum(w not in seen for w in words) / len(words)

    def by_type(test, train):
        seen = {w for s in train for w in s.split()}
        words = {w for s in test for w in s.split()}
        return len(words - seen) / len(words)

    verdicts.exercise(
        check_unseen_share,
        by_occurrence,
        wrong=[
            (by_type, "count every occurrence"),
            (lambda test, train: 1 - by_occurrence(test, train), "expected 0.3333"),
        ],
    )


# Where the dictionary is looked for, and the one message about it ------------------------------


def test_the_environment_variable_wins_even_over_an_installed_copy(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSFORMER_DICTIONARY", str(tmp_path / "hidden"))
    assert dictionary_path() == tmp_path / "hidden"
    monkeypatch.delenv("TRANSFORMER_DICTIONARY")
    expected = DEBIAN_FILE if DEBIAN_FILE.is_file() else cache_file()
    assert dictionary_path() == expected
    assert cache_file().name == "de-en" and "transformer-step-by-step" in cache_file().parts


def test_the_install_command_is_apt_where_apt_exists_else_make_dictionary(monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/apt-get")
    assert install_command() == "sudo apt-get install trans-de-en"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert install_command() == "make dictionary"
    message = missing_message(Path("/nowhere/de-en"))
    assert "/nowhere/de-en" in message and "`make dictionary`" in message
    assert "TRANSFORMER_DICTIONARY" in message


def test_a_missing_dictionary_raises_one_message_that_a_notebook_shows_without_traceback(
    tmp_path,
):
    with pytest.raises(DictionaryMissing) as error:
        require_dictionary(tmp_path / "missing")
    assert isinstance(error.value, FileNotFoundError)
    assert str(error.value) == missing_message(tmp_path / "missing")
    # IPython prints what _render_traceback_ returns instead of a traceback.
    assert error.value._render_traceback_() == [missing_message(tmp_path / "missing")]


def test_the_recorded_version_is_recognised_by_its_checksum(tmp_path):
    other = tmp_path / "de-en"
    other.write_text("Hund {m} :: dog\n", encoding="utf-8")
    assert not is_recorded_version(other)
    assert not is_recorded_version(tmp_path / "missing")
    assert "another version" in other_version_message(other)
    assert sha256(other) == hashlib.sha256(other.read_bytes()).hexdigest()


@needs_dictionary
def test_the_installed_dictionary_is_the_recorded_version():
    assert sha256(dictionary_path()) == RECORDED_SHA256


# make dictionary, offline: file:// URLs stand for the publisher ---------------------------------

ENTRY = "Hund {m} | Hunde {pl} :: dog | dogs\n"


def whole_dictionary(entries: int = MIN_ENTRIES) -> bytes:
    return ("# Version :: test\n" + ENTRY * entries).encode("utf-8")


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_make_dictionary_writes_a_whole_file_where_the_helpers_look(tmp_path, capsys, compress):
    source = tmp_path / ("de-en.txt.gz" if compress else "de-en.txt")
    data = whole_dictionary()
    source.write_bytes(gzip.compress(data) if compress else data)
    target = tmp_path / "cache" / "de-en"
    assert get_dictionary.main(["--url", source.as_uri(), "--to", str(target)]) == 0
    assert target.read_bytes() == data
    printed = capsys.readouterr().out
    assert f"{MIN_ENTRIES:,} entries" in printed
    assert "GNU General Public License" in printed
    assert "another version" in printed  # not Debian's file: the numbers will differ


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (whole_dictionary()[:-5], "truncated (its last line is cut off)"),
        (whole_dictionary(MIN_ENTRIES // 2), "the file is truncated"),
        (gzip.compress(whole_dictionary())[:-100], "gzip file is truncated or damaged"),
        (
            b"<html><body>Not found</body></html>\n",
            "expected 'German :: English' lines, got line 1",
        ),
        (b"\xff\xfe\x00binary\n", "expected UTF-8 text"),
    ],
    ids=["cut-line", "few-entries", "cut-gzip", "html", "binary"],
)
def test_make_dictionary_refuses_a_truncated_or_foreign_file_and_writes_nothing(
    tmp_path, capsys, data, message
):
    source = tmp_path / "download"
    source.write_bytes(data)
    target = tmp_path / "cache" / "de-en"
    assert get_dictionary.main(["--url", source.as_uri(), "--to", str(target)]) == 1
    assert message in capsys.readouterr().err
    assert not target.exists()
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_make_dictionary_reports_a_missing_file_without_a_traceback(tmp_path, capsys):
    missing = (tmp_path / "nothing.txt").as_uri()
    assert get_dictionary.main(["--url", missing, "--to", str(tmp_path / "de-en")]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_notebook_15_says_in_words_that_the_dictionary_is_missing_and_stops(tmp_path, monkeypatch):
    """A reader without the dictionary runs notebook 15: its first code cell prints how to get it,
    with no traceback, and "Run all" stops there (the cell ends in an error)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from helpers.paths import NOTEBOOKS_DIR
    from tools.kernel_start import nbclient_kernel_manager

    missing = tmp_path / "no-dictionary"
    monkeypatch.setenv("TRANSFORMER_DICTIONARY", str(missing))  # the kernel inherits it
    first_cells = {}
    for folder in (NOTEBOOKS_DIR, NOTEBOOKS_DIR / "zh"):
        notebook = nbformat.read(folder / NOTEBOOK, as_version=4)
        first = next(cell for cell in notebook.cells if cell.cell_type == "code")
        first_cells[folder.name] = nbformat.v4.new_code_cell(first.source)
    # Both editions' first cells in one kernel (each start and its imports cost seconds).
    run = nbformat.v4.new_notebook(cells=list(first_cells.values()))
    client = NotebookClient(
        run, km=nbclient_kernel_manager(), timeout=120, allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )  # fmt: skip
    with client.setup_kernel():
        for index, (edition, cell) in enumerate(first_cells.items()):
            with pytest.raises(CellExecutionError):  # what stops "Run all" at this cell
                client.execute_cell(cell, index)
            error = next(output for output in cell.outputs if output.output_type == "error")
            assert error.ename == "DictionaryMissing"
            assert len(error.traceback) == 1, error.traceback  # the message alone, no stack
            assert "make dictionary" in error.traceback[0] and str(missing) in error.traceback[0]
            if edition == "zh":
                assert "没有找到" in error.traceback[0]
