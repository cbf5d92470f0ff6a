"""helpers.decoding.sampling and the corpus recognizer (notebook 16): filters, samplers checked by
their frequencies, generate with its cache, the measures, and the exercises."""

import math
import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import GPT, GPTConfig, filter_logits, generate
from helpers.data.corpus import load_corpus
from helpers.data.corpus.recognizer import is_grammatical, recognize
from helpers.decoding.sampling import (
    chi_square,
    chi_square_bound,
    distinct_ngrams,
    measure_samples,
    sample_next,
)
from helpers.exercises import notebook_16

LOGITS = torch.tensor([2.0, 1.5, 1.0, 0.5, 0.0, -1.0])
BOS, EOS = 2, 3


def kept(logits: torch.Tensor) -> list[bool]:
    return (logits > -math.inf).tolist()


# ---------------------------------------------------------------- filter_logits


def test_top_k_keeps_the_k_best_and_their_ties():
    assert kept(filter_logits(LOGITS, top_k=2)) == [True, True, False, False, False, False]
    tied = torch.tensor([3.0, 1.0, 1.0, 0.0])
    assert kept(filter_logits(tied, top_k=2)) == [True, True, True, False]
    assert torch.equal(filter_logits(LOGITS, top_k=10), LOGITS)


@pytest.mark.parametrize(
    ("p", "size"), [(0.3, 1), (0.42, 2), (0.5, 2), (0.8, 3), (0.9, 4), (1.0, 6)]
)
def test_top_p_keeps_the_fewest_tokens_that_reach_p(p, size):
    probs = LOGITS.softmax(-1)
    result = filter_logits(LOGITS, top_p=p)
    assert kept(result) == [True] * size + [False] * (6 - size)
    assert probs[:size].sum() >= p - 1e-6
    assert size == 1 or probs[: size - 1].sum() < p


def test_top_p_never_empties_the_distribution():
    confident = torch.tensor([9.0, 0.0, -1.0])
    assert kept(filter_logits(confident, top_p=0.01)) == [True, False, False]


def test_top_p_splits_a_tie_at_the_border_by_sort_order_as_hugging_face_does():
    # Hugging Face's TopPLogitsWarper sorts ascending and removes while the removed mass <= 1 - p.
    tied = torch.tensor([0.0, 0.0, 0.0, 0.0])  # four tokens of 0.25: p = 0.5 keeps two of them
    result = filter_logits(tied, top_p=0.5)
    assert sum(kept(result)) == 2
    logits = LOGITS.clone()
    probs = logits.softmax(-1)
    sorted_probs, order = probs.sort(stable=True)
    removed_sorted = sorted_probs.cumsum(0) <= 1 - 0.8
    removed_sorted[-1] = False
    reference = removed_sorted.scatter(0, order, removed_sorted)
    assert kept(filter_logits(logits, top_p=0.8)) == (~reference).tolist()


PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None)


@PROPERTY
@given(
    st.lists(st.floats(-5, 5, allow_nan=False, width=32), min_size=2, max_size=12),
    st.floats(0.01, 1.0),
    st.integers(1, 12),
)
def test_the_kept_set_is_the_smallest_prefix_of_the_sorted_probabilities(scores, p, k):
    """Top-k keeps the scores >= the k-th; top-p then keeps the fewest most probable tokens of
    what is left whose mass reaches p (up to float rounding), never none."""
    logits = torch.tensor(scores)
    after_k = filter_logits(logits, top_k=k)
    kth = logits.sort(descending=True).values[min(k, len(scores)) - 1]
    assert kept(after_k) == (logits >= kth).tolist()
    result = filter_logits(logits, top_k=k, top_p=p)
    kept_mask = result > -math.inf
    probs = after_k.softmax(-1)
    assert kept_mask.any() and (~kept_mask | (after_k > -math.inf)).all()
    kept_mass = probs[kept_mask].sum().item()
    assert kept_mass >= p - 1e-5
    smallest_kept = probs[kept_mask].min().item()
    assert kept_mass - smallest_kept < p + 1e-5  # without its least probable token, below p
    assert probs[~kept_mask].max().item() <= smallest_kept + 1e-6 if (~kept_mask).any() else True


def test_filters_work_row_by_row_on_batches():
    batch = torch.stack([LOGITS, LOGITS.flip(0)])
    result = filter_logits(batch, top_k=2, top_p=0.9)
    assert kept(result[0]) == kept(filter_logits(LOGITS, top_k=2, top_p=0.9))
    assert kept(result[1]) == kept(filter_logits(LOGITS.flip(0), top_k=2, top_p=0.9))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"top_k": 0}, "top_k: expected None or a positive int"),
        ({"top_p": 0.0}, "top_p: expected"),
        ({"top_p": 1.5}, "top_p: expected"),
    ],
)
def test_filter_errors_name_the_argument(options, words):
    with pytest.raises(ValueError) as error:
        filter_logits(LOGITS, **options)
    assert words in str(error.value)
    with pytest.raises(ValueError, match="logits: expected a float tensor"):
        filter_logits(torch.tensor([1, 2]))


# ---------------------------------------------------------------- samplers, statistically

DRAWS = 20_000
SAMPLERS = [
    {"temperature": 1.0},
    {"temperature": 0.5},
    {"temperature": 2.0},
    {"top_k": 3},
    {"top_p": 0.8},
    {"temperature": 1.5, "top_k": 4, "top_p": 0.9},
]


def by_hand(logits, temperature=1.0, top_k=None, top_p=None):
    """The renormalised distribution from the sorted probabilities, without filter_logits
    (the scores have no ties): the k best, then the fewest whose mass reaches p."""
    probs = (logits / temperature).softmax(-1)
    order = probs.argsort(descending=True)[: top_k or len(probs)]
    if top_p is not None:
        running = (probs[order] / probs[order].sum()).cumsum(0)
        order = order[: int((running < top_p).sum()) + 1]
    expected = torch.zeros_like(probs)
    expected[order] = probs[order] / probs[order].sum()
    return expected


@pytest.mark.parametrize("options", SAMPLERS, ids=str)
def test_each_sampler_draws_its_renormalised_distribution(options):
    expected = by_hand(LOGITS, **options)
    filters = {key: value for key, value in options.items() if key != "temperature"}
    kept = filter_logits(LOGITS / options.get("temperature", 1.0), **filters) > -math.inf
    assert kept.tolist() == (expected > 0).tolist()
    generator = torch.Generator().manual_seed(1)
    draws = sample_next(LOGITS.expand(DRAWS, -1), generator=generator, **options)
    counts = torch.bincount(draws, minlength=6).float()
    assert counts[expected == 0].sum() == 0
    degrees = int((expected > 0).sum()) - 1
    if degrees:
        assert chi_square(counts, expected) < chi_square_bound(degrees)


def test_the_frequency_check_fails_for_a_wrong_sampler():
    generator = torch.Generator().manual_seed(1)
    draws = sample_next(LOGITS.expand(DRAWS, -1), temperature=1.2, generator=generator)
    counts = torch.bincount(draws, minlength=6).float()
    assert chi_square(counts, LOGITS.softmax(-1)) > 3 * chi_square_bound(5)  # T = 1's probs


def test_the_frequency_check_fails_for_a_sampler_that_filters_before_the_temperature():
    def filters_first(logits, temperature, top_p, generator):  # WRONG order
        probs = (filter_logits(logits, top_p=top_p) / temperature).softmax(-1)
        return torch.multinomial(probs, 1, generator=generator).squeeze(-1)

    generator = torch.Generator().manual_seed(1)
    draws = filters_first(LOGITS.expand(DRAWS, -1), 1.5, 0.8, generator)
    counts = torch.bincount(draws, minlength=6).float()
    expected = by_hand(LOGITS, temperature=1.5, top_p=0.8)
    assert chi_square(counts, expected) > 3 * chi_square_bound(int((expected > 0).sum()) - 1)


def test_chi_square_bound_is_near_the_tabulated_percentiles():
    # The 99.9th percentiles of chi-square with 1, 5 and 20 degrees of freedom.
    for degrees, table in ((1, 10.83), (5, 20.52), (20, 45.31)):
        assert chi_square_bound(degrees) == pytest.approx(table, rel=0.06)


def test_greedy_is_the_argmax():
    batch = torch.randn(5, 11, generator=torch.Generator().manual_seed(0))
    assert torch.equal(sample_next(batch, temperature=0.0), batch.argmax(-1))


# ---------------------------------------------------------------- generate


def tiny_gpt(seed: int = 0) -> GPT:
    torch.manual_seed(seed)
    config = GPTConfig(
        16, d_model=32, n_heads=4, d_ff=64, n_layers=2, dropout=0.1, max_positions=24
    )
    return GPT(config)


def test_greedy_generation_with_the_cache_equals_recomputing_everything():
    model, prompt = tiny_gpt(), torch.tensor([[BOS, 5, 6], [BOS, 9, 4]])
    result = generate(model, prompt, 8, temperature=0.0)
    ids = prompt
    with torch.no_grad():
        for _ in range(8):
            ids = torch.cat([ids, model.eval()(ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert torch.equal(result, ids)


def test_generation_is_seeded_and_restores_training_mode():
    model, prompt = tiny_gpt().train(), torch.full((4, 1), BOS)
    first = generate(model, prompt, 10, generator=torch.Generator().manual_seed(3))
    second = generate(model, prompt, 10, generator=torch.Generator().manual_seed(3))
    assert torch.equal(first, second) and first.shape == (4, 11) and model.training


def test_generation_with_filters_draws_only_kept_tokens():
    model, prompt = tiny_gpt(), torch.full((64, 1), BOS)
    ids = generate(model, prompt, 1, top_k=2, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        best_two = model.eval()(prompt)[0, -1].topk(2).indices
    assert set(ids[:, 1].tolist()) <= set(best_two.tolist())


def test_rows_that_wrote_the_end_token_repeat_it_and_generation_stops():
    model, prompt = tiny_gpt(), torch.full((3, 1), BOS)
    with torch.no_grad():
        model.embedding.embedding.weight[EOS] *= 30  # </s> becomes the likeliest next token
    ids = generate(model, prompt, 20, generator=torch.Generator().manual_seed(0), eos_id=EOS)
    assert ids.shape[1] < 21
    for row in ids.tolist():
        if EOS in row:
            assert set(row[row.index(EOS) :]) == {EOS}


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"max_new_tokens": 0}, "max_new_tokens: expected a positive int"),
        ({"max_new_tokens": 30}, "max_new_tokens: the prompt's 1 tokens and 30 new ones"),
        ({"temperature": -1.0}, "temperature: expected"),
        ({"generator": 3}, "generator: expected a torch.Generator or None"),
        ({"top_k": 0, "temperature": 0.0}, "top_k: expected None or a positive int"),
        ({"top_p": 2.0}, "top_p: expected"),
    ],
)
def test_generate_errors_name_the_argument(options, words):
    settings = {"max_new_tokens": 5, **options}
    with pytest.raises(ValueError) as error:
        generate(tiny_gpt(), torch.full((1, 1), BOS), **settings)
    assert words in str(error.value)
    with pytest.raises(ValueError, match="model: expected a helpers.GPT"):
        generate(torch.nn.Linear(2, 2), torch.full((1, 1), BOS), 3)


def test_generate_refuses_padded_prompts():
    prompts = torch.tensor([[BOS, 5, 6], [BOS, 7, 0]])  # 0: padding
    with pytest.raises(ValueError, match="ids: expected prompts without padding .* got 1 padding"):
        generate(tiny_gpt(), prompts, 3)


# ---------------------------------------------------------------- the recognizer and the measures


@pytest.fixture(scope="module")
def corpus_english():
    return {
        split: [english for _, english in load_corpus(split)]
        for split in ("train", "valid", "test", "test_unseen")
    }


def test_the_recognizer_accepts_every_corpus_sentence(corpus_english):
    for split, sentences in corpus_english.items():
        rejected = [sentence for sentence in sentences if recognize(sentence) is None]
        assert rejected == [], f"{split}: {rejected[:3]}"


def test_the_recognizer_names_the_pattern_of_the_showcase_sentences():
    from helpers.data.corpus import pattern_examples

    for pattern, _, english in pattern_examples():
        assert recognize(english) == pattern


def test_the_recognizer_rejects_swapped_dropped_and_repeated_words(corpus_english):
    rng = random.Random(0)
    for sentence in corpus_english["valid"][:500]:
        tokens = sentence.split()
        t = rng.randrange(len(tokens) - 1)
        if tokens[t] != tokens[t + 1]:
            swapped = [*tokens[:t], tokens[t + 1], tokens[t], *tokens[t + 2 :]]
            assert not is_grammatical(" ".join(swapped)), swapped
        repeated = [*tokens[: t + 1], tokens[t], *tokens[t + 1 :]]
        assert not is_grammatical(" ".join(repeated)), repeated
        assert not is_grammatical(" ".join(tokens[1:])) or tokens[0] in {
            "today",
            "now",
            "sometimes",
        }


@pytest.mark.parametrize(
    "sentence",
    [
        "the man drink a beer",  # agreement
        "he drink a beer",
        "the men drinks a beer",
        "an man drinks a beer",  # a / an
        "the man drinks an beer",
        "the man drinks a book",  # a verb with an object it never takes
        "the dog reads a book",  # a subject it never takes
        "the man does not drinks the beer",
        "i see me",  # reflexive pronouns are never generated
        "two man drink a beer",
        "does the man drink a beer",  # a question without its mark
        "the man drinks a beer ?",
        "the man sleeps the dog",
        "",
        "the man",
    ],
)
def test_the_recognizer_rejects_ungrammatical_sentences(sentence):
    assert recognize(sentence) is None


def test_the_recognizer_accepts_new_sentences_and_held_out_combinations():
    assert recognize("the red apple is") is None
    assert recognize("the man eats a red apple") == "simple"  # a held-out combination
    assert recognize("ten hungry mice eat the cake") == "simple"
    assert recognize("i know that you like the funny teacher 's black bags") is None
    assert recognize("i know that you like the funny teacher") == "subordinate_dass"


def test_distinct_ngrams():
    assert distinct_ngrams(["a b a b"], 2) == pytest.approx(2 / 3)
    assert distinct_ngrams(["a b", "a b"], 1) == pytest.approx(0.5)
    assert distinct_ngrams(["a"], 2) == 0.0
    with pytest.raises(ValueError, match="n: expected a positive int"):
        distinct_ngrams(["a"], 0)


def test_measure_samples_separates_new_from_memorised():
    training = {"the man drinks a beer"}
    samples = ["the man drinks a beer", "the woman drinks a tea", "the man drink a beer", "x y"]
    measures = measure_samples(samples, training)
    assert measures["grammatical"] == 0.5 and measures["new"] == 0.25
    assert measures["memorised"] == 0.25
    with pytest.raises(ValueError, match="samples: expected at least one sentence"):
        measure_samples([], training)
    with pytest.raises(ValueError, match="samples: expected a list of strings"):
        measure_samples("the man drinks a beer", training)


# ---------------------------------------------------------------- the exercises


def solution_min_p_filter(logits, min_p):
    probs = logits.softmax(-1)
    return logits.masked_fill(probs < min_p * probs.amax(-1, keepdim=True), float("-inf"))


def solution_nucleus_size(probs, p):
    running = probs.sort(descending=True).values.cumsum(0)
    return min(int((running < p).sum()) + 1, len(probs))


def solution_sentence_log_prob(model, ids):
    with torch.no_grad():
        log_probs = model(ids)[:, :-1].log_softmax(-1)
    return log_probs.gather(-1, ids[:, 1:, None]).sum().item()


def wrong_sentence_log_prob(model, ids):
    with torch.no_grad():
        log_probs = model(ids).log_softmax(-1)
    return log_probs.gather(-1, ids[..., None]).sum().item()


def test_exercise_checks(verdicts):
    verdicts.exercise(
        notebook_16.check_min_p_filter,
        solution_min_p_filter,
        [
            (
                lambda logits, min_p: logits.masked_fill(logits.softmax(-1) < min_p, -math.inf),
                "not with min_p alone",
            ),
            (
                lambda logits, min_p: solution_min_p_filter(logits, min_p) * 2,
                "as they are",
            ),
            (lambda logits, min_p: logits[..., :2], "shape"),
        ],
    )
    verdicts.exercise(
        notebook_16.check_nucleus_size,
        solution_nucleus_size,
        [
            (
                lambda probs, p: int((probs.sort(descending=True).values.cumsum(0) < p).sum()),
                "crosses p",
            )
        ],
    )
    verdicts.exercise(
        notebook_16.check_sentence_log_prob,
        solution_sentence_log_prob,
        [(wrong_sentence_log_prob, "shift by one"), (lambda model, ids: 1.0, "at most 0")],
    )


# ---------------------------------------------------------------- the explorer


def test_sampling_view_is_what_the_sampler_draws_from():
    from helpers.explore.sampling import TOY_LOGITS, TOY_WORDS, sampling_view

    view = sampling_view(TOY_LOGITS, TOY_WORDS, temperature=0.7, top_k=4, top_p=0.9)
    expected = filter_logits(torch.tensor(TOY_LOGITS) / 0.7, top_k=4, top_p=0.9).softmax(-1)
    torch.testing.assert_close(torch.tensor(view["probs"]), expected)
    assert view["kept"] == (expected > 0).tolist()
    assert view["plain"] == pytest.approx(torch.tensor(TOY_LOGITS).softmax(-1).tolist())
    unfiltered = sampling_view(TOY_LOGITS, TOY_WORDS, temperature=1.0, top_k=0, top_p=1.0)
    assert all(unfiltered["kept"]) and unfiltered["probs"] == pytest.approx(unfiltered["plain"])
    assert unfiltered["entropy"] > view["entropy"] > 0


def test_the_explorer_title_says_a_filter_is_off_in_words():
    import matplotlib.pyplot as plt

    from helpers.display.setup import use_chinese_font
    from helpers.explore.sampling import TOY_LOGITS, TOY_WORDS, draw_sampling, sampling_view
    from helpers.language import current_language, set_language

    def title(top_k, top_p):
        figure = draw_sampling(sampling_view(TOY_LOGITS, TOY_WORDS, 1.0, top_k, top_p))
        text = figure.axes[0].get_title()
        plt.close(figure)
        return text

    assert title(0, 0.8) == "T = 1, top_k off, top_p = 0.8"
    assert title(3, 1.0) == "T = 1, top_k = 3, top_p off"
    before = current_language()
    set_language("zh")
    try:  # drawn with the edition's font, as setup_notebook(language="zh") sets it
        with plt.rc_context({"font.sans-serif": [use_chinese_font(), "DejaVu Sans"]}):
            assert title(0, 1.0) == "T = 1，top_k 关闭，top_p 关闭"
    finally:
        set_language(before)


def test_moving_the_sampling_sliders_changes_the_kept_tokens():
    from helpers.explore.sampling import explore_sampling

    explorer = explore_sampling(show=False)
    assert sum(explorer.last_data["kept"]) == 6
    assert sum(explorer.update(top_k=2)["kept"]) == 2
    assert sum(explorer.update(top_k=0, top_p=0.5)["kept"]) == 2
    hot, cold = explorer.update(temperature=3.0), None
    cold = explorer.update(temperature=0.1)
    assert cold["entropy"] < hot["entropy"]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"temperature": 0.0}, "temperature: expected a number > 0"),
        ({"top_p": 0.0}, "top_p: expected"),
        ({"words": ["a"]}, "words: expected one word per score"),
    ],
)
def test_sampling_view_names_a_bad_setting(changes, words):
    from helpers.explore.sampling import TOY_LOGITS, TOY_WORDS, sampling_view

    settings = {"logits": TOY_LOGITS, "words": TOY_WORDS, "temperature": 1.0, "top_k": 0}
    settings.update({"top_p": 1.0, **changes})
    with pytest.raises(ValueError) as error:
        sampling_view(**settings)
    assert words in str(error.value)
