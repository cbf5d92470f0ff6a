"""helpers.evaluation.bleu (notebook 12): BLEU as sacrebleu computes it, exact match, bad input."""

import pytest
import sacrebleu

from helpers.evaluation.bleu import corpus_bleu, exact_match

REFERENCES = [
    "the man drinks a beer",
    "today the woman buys three green apples",
    "i know that the dog finds the ball",
    "does the child drink a coffee ?",
]
HYPOTHESES = [
    "the man drinks a beer",
    "today the woman buys two green apples",
    "i know that the dog finds a ball",
    "does the child drink coffee ?",
]


def test_corpus_bleu_equals_sacrebleu():
    expected = sacrebleu.corpus_bleu(HYPOTHESES, [REFERENCES]).score
    assert corpus_bleu(HYPOTHESES, REFERENCES) == pytest.approx(expected, abs=1e-9)
    assert 0 < corpus_bleu(HYPOTHESES, REFERENCES) < 100


def test_corpus_bleu_is_100_for_identical_lists_and_0_without_any_match():
    assert corpus_bleu(REFERENCES, REFERENCES) == pytest.approx(100.0)
    assert corpus_bleu(["x y z w"] * 4, REFERENCES) == pytest.approx(0.0)


def test_corpus_bleu_is_not_the_mean_of_sentence_scores():
    sentence_mean = sum(
        sacrebleu.sentence_bleu(hypothesis, [reference]).score
        for hypothesis, reference in zip(HYPOTHESES, REFERENCES, strict=True)
    ) / len(REFERENCES)
    assert corpus_bleu(HYPOTHESES, REFERENCES) != pytest.approx(sentence_mean, abs=1e-3)


def test_corpus_bleu_accepts_tuples_and_penalises_short_output():
    assert corpus_bleu(tuple(REFERENCES), tuple(REFERENCES)) == pytest.approx(100.0)
    short = [" ".join(reference.split()[:3]) for reference in REFERENCES]
    assert corpus_bleu(short, REFERENCES) < 60  # every n-gram is right; the brevity penalty bites


def test_exact_match():
    assert exact_match(HYPOTHESES, REFERENCES) == pytest.approx(0.25)
    assert exact_match(REFERENCES, REFERENCES) == 1.0
    # Word for word: extra spaces do not matter, a different word or case does.
    assert exact_match(["the  man drinks a beer "], ["the man drinks a beer"]) == 1.0
    assert exact_match(["The man drinks a beer"], ["the man drinks a beer"]) == 0.0


@pytest.mark.parametrize("metric", [corpus_bleu, exact_match])
@pytest.mark.parametrize(
    "hypotheses, references, name",
    [
        (HYPOTHESES, REFERENCES[:3], "references"),
        (HYPOTHESES[:1], REFERENCES, "references"),
        ([], [], "hypotheses"),
        ("the man drinks a beer", REFERENCES[:1], "hypotheses"),
        (HYPOTHESES, "the man", "references"),
        ([1, 2, 3, 4], REFERENCES, "hypotheses"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(metric, hypotheses, references, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        metric(hypotheses, references)
