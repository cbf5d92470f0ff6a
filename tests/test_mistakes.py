"""helpers.data.mistakes: the kinds of mistakes notebook 12 counts."""

from helpers.data.mistakes import describe_changes, mistake_kind, word_changes


def test_word_changes_are_the_edits_from_reference_to_output():
    assert word_changes("the red car", "the car") == [("delete", ["red"], [])]
    assert word_changes("a b", "a b") == []


def test_each_kind_is_recognised():
    assert mistake_kind("they eat", "they eat eat eat", ended=False) == "never ends (a loop)"
    assert mistake_kind("you go shopping", "you buy a", ended=True) == "ein: article or prefix?"
    assert mistake_kind("the big red car", "the red big car", ended=True) == (
        "words in the wrong order"
    )
    assert mistake_kind("she buys a red car", "she buys a car", ended=True) != "a / an"
    assert mistake_kind("they drink", "she drinks", ended=True) == "singular / plural"
    assert mistake_kind("a apple", "an apple", ended=True) == "a / an"
    assert mistake_kind("the dog sleeps", "the cat sleeps", ended=True) == "another word"


def test_an_adjective_of_the_corpus_left_out():
    from helpers.data.mistakes import ENGLISH_ADJECTIVES

    adjective = sorted(ENGLISH_ADJECTIVES)[0]
    assert mistake_kind(f"the {adjective} house", "the house", ended=True) == "adjective left out"


def test_describe_changes_in_words():
    assert describe_changes("the red car", "the car") == "drops 'red'"
    assert describe_changes("the car", "the car now") == "adds 'now'"
    assert describe_changes("she runs", "they runs") == "'she' -> 'they'"
