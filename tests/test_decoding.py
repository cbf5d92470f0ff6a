"""helpers.decoding.search (notebook 12): the KV cache is exact, beam search's rules, translate's edges."""

import inspect
import math
import sys

import pytest
import torch
from shared_models import tiny_transformer

from helpers.data.corpus import load_corpus
from helpers.decoding import search as decoding
from helpers.decoding.search import (
    beam_search,
    beam_step,
    forbid_special_tokens,
    greedy_decode,
    length_penalty,
    source_ids,
    tokenize,
    translate,
)
from helpers.exercises import notebook_12
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.text.vocab import Vocab, pad_sequences

PAD, UNK, BOS, EOS = 0, 1, 2, 3


def tiny_model(norm_first: bool = False, seed: int = 0) -> Transformer:
    return tiny_transformer(
        seed, src_vocab_size=20, tgt_vocab_size=15, n_layers=2, norm_first=norm_first, max_positions=64,
        dropout=0.1,
    ).eval()  # fmt: skip


def padded_src(seed: int = 0) -> torch.Tensor:
    """Eight source sentences of different lengths, padded with 0 on the right."""
    generator = torch.Generator().manual_seed(seed)
    lengths = [7, 3, 5, 1, 7, 2, 6, 4]
    src = torch.randint(4, 20, (len(lengths), max(lengths)), generator=generator)
    for row, length in enumerate(lengths):
        src[row, length:] = PAD
    return src


@pytest.fixture(scope="module")
def test_pairs():
    return load_corpus("test")[:48]


def assert_rows_end_properly(output: torch.Tensor, max_new_tokens: int) -> None:
    """Each row: tokens, then </s> and only padding after it, or max_new_tokens tokens without </s>."""
    assert output.shape[1] <= max_new_tokens
    for row in output.tolist():
        if EOS in row:
            end = row.index(EOS)
            assert all(token == PAD for token in row[end + 1 :]), row
            assert PAD not in row[:end] and BOS not in row[:end], row
        else:
            assert len(row) == max_new_tokens and PAD not in row, row


# ---------------------------------------------------------------- greedy decoding and the cache


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_greedy_with_cache_equals_without(norm_first):
    model = tiny_model(norm_first)
    src = padded_src()
    with_cache = greedy_decode(model, src, max_new_tokens=12, use_cache=True)
    without_cache = greedy_decode(model, src, max_new_tokens=12, use_cache=False)
    assert torch.equal(with_cache, without_cache)
    assert_rows_end_properly(with_cache, 12)


def test_greedy_with_cache_equals_without_on_the_shipped_model(shipped, test_pairs):
    model, src_vocab, tgt_vocab = shipped
    src = pad_sequences([src_vocab.encode(german) for german, _ in test_pairs])
    with_cache = greedy_decode(model, src, max_new_tokens=40)
    without_cache = greedy_decode(model, src, max_new_tokens=40, use_cache=False)
    assert torch.equal(with_cache, without_cache)
    # The shipped model ends every sentence, and gets most of them exactly right.
    assert all(tgt_vocab.eos_id in row for row in with_cache.tolist())
    right = sum(
        tgt_vocab.decode(row) == english
        for row, (_, english) in zip(with_cache.tolist(), test_pairs, strict=True)
    )
    assert right >= 0.8 * len(test_pairs)


def test_greedy_stops_each_row_at_its_end_token():
    # Seed 11 with </s> raised by 3.75 (see eos_first): every row ends within max_new_tokens, at
    # different steps. Its closest decision is 0.03 apart in logits, far above float noise.
    model = eos_first(tiny_model(seed=11), 3.75)
    output = greedy_decode(model, padded_src(), max_new_tokens=30)
    assert_rows_end_properly(output, 30)
    lengths = [row.index(EOS) + 1 for row in output.tolist() if EOS in row]
    assert len(lengths) == len(output), "every row ends before max_new_tokens"
    assert sum(length < max(lengths) for length in lengths) >= 2, "rows end at different steps"
    # Stopping is per row: the output is as wide as its longest row, not max_new_tokens.
    assert output.shape[1] == max(lengths) < 30


def eos_first(model: Transformer, margin: float) -> Transformer:
    """The model, with </s>'s logit raised by margin: rows end sooner (margin large: at once)."""
    shift = torch.zeros(model.config.tgt_vocab_size)
    shift[EOS] = margin
    model.output_projection.register_forward_hook(lambda _module, _inputs, logits: logits + shift)
    return model


def test_greedy_trims_its_width_when_every_row_ends_early():
    output = greedy_decode(eos_first(tiny_model(), 100.0), padded_src(), max_new_tokens=30)
    assert output.tolist() == [[EOS]] * 8


def test_greedy_stops_each_row_at_its_own_limit_source_length_plus_extra():
    model = eos_first(tiny_model(), -100.0)  # never ends by itself
    src = padded_src()
    output = greedy_decode(model, src, max_extra_len=3)
    source_lengths = (src != PAD).sum(dim=1).tolist()
    assert output.shape[1] == max(source_lengths) + 3
    for row, length in zip(output.tolist(), source_lengths, strict=True):
        assert PAD not in row[: length + 3] and set(row[length + 3 :]) <= {PAD}, (row, length)


def test_greedy_is_the_argmax_of_each_step():
    model = tiny_model()
    src = padded_src()[:2]
    output = greedy_decode(model, src, max_new_tokens=5)
    prefix = torch.full((2, 1), BOS)
    with torch.no_grad():
        for step in range(output.shape[1]):
            logits = forbid_special_tokens(model(src, prefix)[:, -1], PAD, BOS)
            expected = logits.argmax(-1)
            alive = [EOS not in row for row in output[:, :step].tolist()]
            for row in range(2):
                if alive[row]:
                    assert output[row, step] == expected[row]
            prefix = torch.cat([prefix, output[:, step : step + 1]], dim=1)


def test_greedy_never_emits_pad_or_start_and_restores_training_mode():
    model = tiny_model().train()
    output = greedy_decode(model, padded_src(), max_new_tokens=10)
    assert model.training, "greedy_decode must put the model back in training mode"
    for row in output.tolist():
        body = row[: row.index(EOS)] if EOS in row else row
        assert PAD not in body and BOS not in body


def test_forbid_special_tokens_gives_zero_probability():
    logits = torch.zeros(2, 6)
    forbidden = forbid_special_tokens(logits, PAD, BOS)
    probabilities = forbidden.softmax(-1)
    assert torch.all(probabilities[:, [PAD, BOS]] == 0)
    assert torch.allclose(probabilities.sum(-1), torch.ones(2))
    assert torch.all(logits == 0), "the input must not be changed in place"


# ---------------------------------------------------------------- beam search


def normalised_scores(model, src, output, alpha):
    """log P(output | src) / lp(|output|) per row, by teacher forcing (</s> included)."""
    lengths = (output != PAD).sum(dim=1)
    tgt_input = torch.cat([torch.full((len(src), 1), BOS), output[:, :-1]], dim=1)
    with torch.no_grad():
        logits = forbid_special_tokens(model(src, tgt_input), PAD, BOS)
    token_log_probs = logits.log_softmax(-1).gather(-1, output[..., None])[..., 0]
    log_p = token_log_probs.masked_fill(output == PAD, 0.0).sum(dim=1)
    return [
        lp / length_penalty(int(n), alpha) for lp, n in zip(log_p.tolist(), lengths, strict=True)
    ]


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_beam_size_one_without_length_penalty_is_greedy(norm_first):
    model = tiny_model(norm_first, seed=1)
    src = padded_src(seed=1)
    greedy = greedy_decode(model, src, max_new_tokens=12)
    beam = beam_search(model, src, beam_size=1, alpha=0.0, max_new_tokens=12)
    assert torch.equal(beam, greedy)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_beam_size_one_with_length_penalty_is_greedy_or_better(norm_first):
    # With alpha > 0 a hypothesis that ends later may beat greedy's in log P / lp(|Y|); beam
    # search keeps looking only while that is possible, so it returns greedy's output or better.
    model = eos_first(tiny_model(norm_first, seed=1), 3.0)  # most rows end within 12 steps
    src = padded_src(seed=1)
    greedy = greedy_decode(model, src, max_new_tokens=12)
    beam = beam_search(model, src, beam_size=1, alpha=0.6, max_new_tokens=12)
    width = max(greedy.shape[1], beam.shape[1])
    greedy, beam = (torch.nn.functional.pad(t, (0, width - t.shape[1])) for t in (greedy, beam))
    ended = [EOS in row for row in greedy.tolist()]
    greedy_scores = normalised_scores(model, src, greedy, 0.6)
    beam_scores = normalised_scores(model, src, beam, 0.6)
    assert sum(ended) >= 4, "the comparison needs rows that ended"
    compared = [(g, b) for ok, g, b in zip(ended, greedy_scores, beam_scores, strict=True) if ok]
    assert all(b >= g - 1e-5 for g, b in compared), compared


@pytest.mark.parametrize("beam_size", [2, 4])
def test_beam_rows_end_with_end_token_or_reach_max_new_tokens(beam_size):
    model = tiny_model(seed=2)
    output = beam_search(model, padded_src(seed=2), beam_size=beam_size, max_new_tokens=9)
    assert output.shape[0] == 8
    assert_rows_end_properly(output, 9)


def test_beam_search_on_the_shipped_model_ends_every_sentence(shipped, test_pairs):
    model, src_vocab, tgt_vocab = shipped
    pairs = test_pairs[:6]
    src = pad_sequences([src_vocab.encode(german) for german, _ in pairs])
    output = beam_search(model, src, max_new_tokens=40)
    for row in output.tolist():
        assert tgt_vocab.eos_id in row


class ScriptedModel(Transformer):
    """A 'model' whose next-token probabilities come from a table keyed by the prefix.

    The prefix of each row is kept in the first layer's self-attention cache (as floats), so
    beam search's reordering of the cache also reorders the prefixes, as it does real keys.
    Every prefix the search asks about is recorded in ``asked``.
    """

    def __init__(
        self,
        table: dict[tuple[int, ...], dict[int, float]],
        default: dict[int, float] | None = None,
    ):
        super().__init__(
            TransformerConfig(
                src_vocab_size=8, tgt_vocab_size=8, d_model=8, n_heads=2, d_ff=8, n_layers=1
            )
        )
        self.table = table
        self.default = default if default is not None else {EOS: 1.0}
        self.asked: list[tuple[int, ...]] = []

    def decode(self, tgt, memory, src, need_weights=False, cache=None, start=0):
        assert cache is not None, "beam search feeds one token at a time with a cache"
        self_cache, cross_cache = cache[0]
        new = tgt.float()[:, None, :, None]
        self_cache.key = new if self_cache.key is None else torch.cat([self_cache.key, new], 2)
        self_cache.value = self_cache.key
        if cross_cache.key is None:
            cross_cache.key = cross_cache.value = torch.zeros(memory.shape[0], 1, 1, 1)
        logits = torch.full((tgt.shape[0], tgt.shape[1], 8), float("-inf"))
        for row, prefix in enumerate(self_cache.key[:, 0, :, 0].long().tolist()):
            generated = tuple(prefix[1:])  # without <s>
            self.asked.append(generated)
            for token, probability in self.table.get(generated, self.default).items():
                logits[row, -1, token] = math.log(probability)
        return logits, None, None


A, B, C = 4, 5, 6
SRC = torch.tensor([[4, 5]])


def scripted_beam(table, beam_size, alpha, max_new_tokens=10, default=None):
    model = ScriptedModel(table, default).eval()
    ids = beam_search(model, SRC, beam_size=beam_size, alpha=alpha, max_new_tokens=max_new_tokens)[
        0
    ].tolist()
    return ids, model.asked


def test_a_later_finished_hypothesis_with_a_better_normalised_score_wins():
    # "</s>" at once: log 0.4 = -0.92 over length 1. "a a </s>": log 0.6 + log 0.55 + log 1 =
    # -1.11 over length 3. alpha = 1: -0.92 / 1 < -1.11 / (8/6) = -0.83, so the later, longer one
    # wins; alpha = 0: the short one. A search that stops when the first hypothesis finishes, or
    # that ranks by raw log-probability, gets alpha = 1 wrong.
    table = {(): {A: 0.6, EOS: 0.4}, (A,): {A: 0.55, B: 0.45}, (A, A): {EOS: 1.0}}
    assert scripted_beam(table, beam_size=2, alpha=1.0)[0] == [A, A, EOS]
    assert scripted_beam(table, beam_size=2, alpha=0.0)[0] == [EOS]


def test_counting_finished_hypotheses_is_not_a_stop_rule():
    # Step 0 finishes "</s>" (log 0.3 = -1.20); step 1 finishes "b </s>" (-1.72) while the live
    # "a a" has -0.80 and ends next step with "a a </s>" = -0.80, the best. Stopping as soon as
    # beam_size = 2 hypotheses have finished would return "</s>", an empty translation.
    table = {(): {A: 0.5, EOS: 0.3, B: 0.2}, (A,): {A: 0.9, EOS: 0.1}, (B,): {EOS: 0.9, C: 0.1}}
    assert scripted_beam(table, beam_size=2, alpha=0.0)[0] == [A, A, EOS]


def test_finished_hypotheses_stop_growing():
    # "</s>" is the most likely first token; if it kept growing, the table would make it
    # "</s> c </s>" with probability 1, and the search would ask about the prefix (</s>,).
    table = {(): {EOS: 0.7, A: 0.3}, (EOS,): {C: 1.0}, (A,): {EOS: 1.0}}
    ids, asked = scripted_beam(table, beam_size=3, alpha=0.6)
    assert ids == [EOS]
    assert all(EOS not in prefix for prefix in asked), asked


def test_search_stops_once_no_live_hypothesis_can_win():
    # After step 1, "a </s>" (log 0.9 + log 0.9 = -0.21, over lp(2) = 1.10: -0.19) is finished
    # and the live "a c" has log 0.9 + log 0.1 = -2.41: even divided by lp(max_new_tokens) = 2.88 it
    # stays below -0.19. Nothing live can win, so the search must stop there instead of asking
    # the model about "a c".
    table = {(): {A: 0.9, B: 0.1}, (A,): {EOS: 0.9, C: 0.1}, (B,): {B: 0.6, EOS: 0.4}}
    ids, asked = scripted_beam(table, beam_size=2, alpha=0.6, max_new_tokens=30)
    assert ids == [A, EOS]
    assert (A, C) not in asked and max(len(prefix) for prefix in asked) == 1, asked


def test_without_any_end_token_the_best_live_beam_is_cut_at_max_new_tokens():
    # No prefix ever gets </s>: the result is the best live beam after max_new_tokens steps.
    table = {(A,) * n: {A: 0.8, B: 0.2} for n in range(6)}
    ids, _ = scripted_beam(table, 2, alpha=0.6, max_new_tokens=4, default={A: 0.5, B: 0.5})
    assert ids == [A, A, A, A]


def test_trace_records_the_beams_of_each_step():
    model = tiny_model(seed=3)
    trace: list = []
    ids = beam_search(model, padded_src(seed=3)[:1], beam_size=3, max_new_tokens=8, trace=trace)
    ids = ids[0].tolist()
    assert 1 <= len(trace) <= 8 and trace[0]["step"] == 0
    for record in trace:
        for tokens, _ in record["live"]:
            assert EOS not in tokens and len(tokens) == record["step"] + 1
        assert len(record["live"]) == 3  # finished hypotheses do not take a live place
        for _, tokens in record["finished"]:
            assert tokens[-1] == EOS and EOS not in tokens[:-1]
    assert ids[-1] == EOS or len(ids) == 8


def test_length_penalty_values():
    assert length_penalty(1, 0.6) == pytest.approx(1.0)
    assert length_penalty(10, 0.0) == 1.0
    assert length_penalty(7, 1.0) == pytest.approx(2.0)
    assert length_penalty(10, 0.6) == pytest.approx((15 / 6) ** 0.6)
    assert length_penalty(20, 0.6) > length_penalty(10, 0.6)


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda m, s: greedy_decode(m, s, max_new_tokens=0), "max_new_tokens"),
        (lambda m, s: greedy_decode(m, s, max_new_tokens=65), "max_new_tokens"),
        (lambda m, s: greedy_decode(m, s, max_new_tokens=2.5), "max_new_tokens"),
        (lambda m, s: greedy_decode(m, s, max_extra_len=-1), "max_extra_len"),
        (lambda m, s: greedy_decode(m, s, bos_id=99), "bos_id"),
        (lambda m, s: greedy_decode(m, s, eos_id=PAD), "eos_id"),
        (lambda m, s: greedy_decode(m, s.float(), max_new_tokens=5), "src"),
        (lambda m, s: beam_search(m, s, beam_size=0), "beam_size"),
        (lambda m, s: beam_search(m, s, beam_size=2.0), "beam_size"),
        (lambda m, s: beam_search(m, s, max_new_tokens=0), "max_new_tokens"),
        (lambda m, s: beam_search(m, s, alpha=-1), "alpha"),
        (lambda m, s: greedy_decode("model", s, max_new_tokens=5), "model"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call(tiny_model(), padded_src())


# ---------------------------------------------------------------- translate


@pytest.fixture(scope="module")
def tiny_translator():
    src_vocab = Vocab(["der", "mann", "trinkt", "ein", "bier", "?"])
    tgt_vocab = Vocab(["the", "man", "drinks", "a", "beer", "?"])
    torch.manual_seed(0)
    config = TransformerConfig(
        len(src_vocab), len(tgt_vocab), d_model=16, n_heads=2, d_ff=32, n_layers=1
    )
    return Transformer(config).eval(), src_vocab, tgt_vocab


def test_tokenize_folds_case_and_splits_punctuation():
    assert tokenize("Trinkt der Mann ein Bier?") == ["trinkt", "der", "mann", "ein", "bier", "?"]
    assert tokenize("Ich weiß, dass ÄPFEL grün sind.") == [
        "ich", "weiß", ",", "dass", "äpfel", "grün", "sind", ".",
    ]  # fmt: skip
    assert tokenize("   ") == []


def test_source_ids_maps_unknown_words_and_drops_unknown_punctuation(tiny_translator):
    _, src_vocab, _ = tiny_translator
    known = src_vocab.encode("der mann trinkt ein bier ?")
    assert source_ids("Der Mann trinkt ein Bier?", src_vocab) == known
    # The corpus has no "!" or ".": dropped rather than read as an unknown word.
    assert source_ids("Der Mann trinkt ein Bier!", src_vocab) == known[:-1]
    assert source_ids("der Xylophon.", src_vocab) == [src_vocab.token_to_id["der"], UNK]
    assert source_ids("...", src_vocab) == []


def test_translate_edge_inputs(tiny_translator):
    model, src_vocab, tgt_vocab = tiny_translator
    assert translate(model, [], src_vocab, tgt_vocab) == []
    assert translate(model, [""], src_vocab, tgt_vocab) == [""]
    out = translate(model, ["", "der mann", "  ", "!"], src_vocab, tgt_vocab)
    assert out[0] == out[2] == out[3] == "" and isinstance(out[1], str)
    # Unknown words become <unk> (id 1) instead of failing, with a warning naming each of them.
    with pytest.warns(UserWarning, match=r"2 word\(s\) .* <unk>: harfe, xylophon$"):
        out = translate(
            model, ["der xylophon trinkt", "der harfe", "Xylophon"], src_vocab, tgt_vocab
        )
    assert all(isinstance(text, str) for text in out)
    # Case and punctuation are folded like the corpus: the same ids, the same translation.
    assert translate(model, ["Der MANN trinkt ein Bier?"], src_vocab, tgt_vocab) == translate(
        model, ["der mann trinkt ein bier ?"], src_vocab, tgt_vocab
    )
    # Beam search goes through the same path.
    assert len(translate(model, ["der mann", ""], src_vocab, tgt_vocab, beam_size=2)) == 2


def test_translate_on_the_shipped_model(shipped):
    model, src_vocab, tgt_vocab = shipped
    sentences = ["Heute trinkt der Mann ein Bier", "heute trinkt der mann ein bier", ""]
    greedy = translate(model, sentences, src_vocab, tgt_vocab)
    assert greedy == ["today the man drinks a beer", "today the man drinks a beer", ""]
    assert translate(model, sentences[:1], src_vocab, tgt_vocab, beam_size=4) == greedy[:1]
    with pytest.warns(UserWarning, match="become <unk>: zauberer$"):
        unknown = translate(model, ["der Zauberer trinkt ein Bier"], src_vocab, tgt_vocab)[0]
    assert unknown.endswith("drinks a beer"), unknown


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"sentences": "der mann"}, "sentences"),
        ({"sentences": ["der mann", 3]}, "sentences"),
        ({"sentences": ["der mann"], "beam_size": 0}, "beam_size"),
        ({"sentences": [], "beam_size": 0}, "beam_size"),
        ({"sentences": ["der mann"], "max_new_tokens": 0}, "max_new_tokens"),
        ({"sentences": ["der mann"], "model": "a model"}, "model"),
    ],
)
def test_translate_bad_input(tiny_translator, kwargs, name):
    model, src_vocab, tgt_vocab = tiny_translator
    kwargs = {"model": model, **kwargs}
    with pytest.raises(ValueError, match=f"^{name}:"):
        translate(src_vocab=src_vocab, tgt_vocab=tgt_vocab, **kwargs)


# ---------------------------------------------------------------- exercise checks


def solution_doubling_length(alpha):
    return next(n for n in range(1, 1000) if length_penalty(n, alpha) >= 2)


def solution_cache_numbers(n_steps, src_len, batch_size, n_layers, d_model):
    return 2 * n_layers * batch_size * d_model * (n_steps + src_len)


def solution_best_hypothesis(finished, alpha):
    return max(finished, key=lambda item: item[1] / ((5 + len(item[0])) / 6) ** alpha)[0]


CHECKS = [
    (
        notebook_12.check_doubling_length,
        solution_doubling_length,
        lambda alpha: solution_doubling_length(alpha) - 1,
        "still below 2",
    ),
    (
        notebook_12.check_doubling_length,
        solution_doubling_length,
        lambda alpha: 6 * 2 ** (1 / alpha) - 5,
        "whole number",
    ),
    (
        notebook_12.check_cache_numbers,
        solution_cache_numbers,
        lambda n, s, b, layers, d: 2 * layers * b * d * n,
        "cross-attention caches",
    ),
    (
        notebook_12.check_cache_numbers,
        solution_cache_numbers,
        lambda n, s, b, layers, d: layers * b * d * (n + s),
        "keys and values",
    ),
    (
        notebook_12.check_best_hypothesis,
        solution_best_hypothesis,
        lambda finished, alpha: max(finished, key=lambda item: item[1])[0],
        "divide each by lp",
    ),
]


@pytest.mark.parametrize(
    ("check", "solution", "wrong", "hint"), CHECKS, ids=lambda x: getattr(x, "__name__", "")
)
def test_exercise_checks(check, solution, wrong, hint, verdicts):
    verdicts.exercise(check, solution, [(wrong, hint)])


# ---------------------------------------------------------------- batching and exact search


@pytest.mark.parametrize(("beam_size", "alpha"), [(2, 0.0), (3, 0.6), (4, 1.0)])
def test_beam_search_of_a_batch_equals_one_sentence_at_a_time(beam_size, alpha):
    model = eos_first(tiny_model(seed=4), 2.0)
    src = padded_src(seed=4)
    batched = beam_search(model, src, beam_size=beam_size, alpha=alpha, max_extra_len=6)
    for row, sentence in enumerate(src):
        alone = sentence[sentence != PAD][None]
        expected = beam_search(model, alone, beam_size=beam_size, alpha=alpha, max_extra_len=6)
        width = expected.shape[1]
        assert batched[row, :width].tolist() == expected[0].tolist(), row
        assert set(batched[row, width:].tolist()) <= {PAD}


def test_beam_search_of_the_shipped_model_batched_equals_one_at_a_time(shipped, test_pairs):
    model, src_vocab, tgt_vocab = shipped
    sentences = [german for german, _ in test_pairs[:6]]
    batched = translate(model, sentences, src_vocab, tgt_vocab, beam_size=4)
    alone = [translate(model, [s], src_vocab, tgt_vocab, beam_size=4)[0] for s in sentences]
    assert batched == alone


def exhaustive_best(model, src, alpha, max_new_tokens):
    """The finished hypothesis with the best log P / lp(|Y|), by enumerating every one."""
    tokens = [t for t in range(model.config.tgt_vocab_size) if t not in (PAD, BOS)]
    finished, live = [], [[]]
    for _ in range(max_new_tokens):
        finished += [prefix + [EOS] for prefix in live]
        live = [prefix + [token] for prefix in live for token in tokens if token != EOS]
    scores = [normalised_scores(model, src, torch.tensor([ids]), alpha)[0] for ids in finished]
    return finished[max(range(len(finished)), key=scores.__getitem__)]


@pytest.mark.parametrize("alpha", [0.0, 0.6, 2.0])
def test_a_beam_wide_enough_finds_the_exhaustive_optimum(alpha):
    torch.manual_seed(5)
    config = TransformerConfig(8, 6, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_positions=16)
    model = eos_first(Transformer(config).eval(), 1.0)
    src = torch.tensor([[5, 6, 7]])
    # 4 tokens may follow a prefix (<unk>, </s> and two words): 3 live prefixes of length 1, 9 of
    # length 2, 27 of length 3. A beam of 27 keeps every one: the search is exhaustive.
    found = beam_search(model, src, beam_size=27, alpha=alpha, max_new_tokens=4)[0].tolist()
    expected = exhaustive_best(model, src, alpha, max_new_tokens=4)
    assert found[: len(expected)] == expected and set(found[len(expected) :]) <= {PAD}


def test_translate_batches_by_length_and_keeps_the_input_order(shipped, test_pairs):
    model, src_vocab, tgt_vocab = shipped
    sentences = [german for german, _ in test_pairs[:20]][::-1]
    in_one_batch = translate(model, sentences, src_vocab, tgt_vocab, batch_size=64)
    in_batches_of_three = translate(model, sentences, src_vocab, tgt_vocab, batch_size=3)
    one_by_one = [translate(model, [s], src_vocab, tgt_vocab)[0] for s in sentences]
    assert in_one_batch == in_batches_of_three == one_by_one


def test_translate_default_length_is_the_source_length_plus_fifty(tiny_translator):
    model, src_vocab, tgt_vocab = tiny_translator
    never_ends = eos_first(model, -100.0)
    try:
        out = translate(never_ends, ["der mann trinkt"], src_vocab, tgt_vocab)[0]
        assert len(out.split()) == 3 + 50
        short = translate(never_ends, ["der mann trinkt"], src_vocab, tgt_vocab, max_new_tokens=7)[
            0
        ]
        assert len(short.split()) == 7
    finally:
        never_ends.output_projection._forward_hooks.clear()  # the fixture is shared


# ---------------------------------------------------------------- one API, every option passed on


def test_the_three_decoders_share_names_order_and_defaults():
    common = ["max_new_tokens", "max_extra_len", "use_cache", "beam_size", "alpha"]
    signatures = {
        f: inspect.signature(f).parameters for f in (greedy_decode, beam_search, translate)
    }
    defaults = {
        "beam_size": 1,
        "alpha": 0.6,
        "max_new_tokens": None,
        "max_extra_len": 50,
        "use_cache": True,
    }
    for function, parameters in signatures.items():
        shared = [name for name in parameters if name in common]
        assert shared == sorted(shared, key=list(parameters).index)
        for name in shared:
            expected = 4 if (function is beam_search and name == "beam_size") else defaults[name]
            assert parameters[name].default == expected, (function.__name__, name)
    assert inspect.signature(translate).parameters["batch_size"].default == 64


class Spy:
    """Stands in for greedy_decode or beam_search: records each call, answers </s> at once."""

    def __init__(self):
        self.calls: list[tuple[torch.Tensor, dict]] = []

    def __call__(self, model, src, **options):
        self.calls.append((src.clone(), options))
        return torch.full((src.shape[0], 1), options["eos_id"], dtype=torch.long)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_translate_passes_every_option_to_the_decoder(tiny_translator, monkeypatch, beam_size):
    model, src_vocab, tgt_vocab = tiny_translator
    spy = Spy()
    monkeypatch.setattr(decoding, "greedy_decode" if beam_size == 1 else "beam_search", spy)
    options = {"max_new_tokens": 7, "max_extra_len": 3, "use_cache": False}
    out = translate(
        model, ["der mann"], src_vocab, tgt_vocab, beam_size=beam_size, alpha=1.5, **options
    )
    assert out == [""]
    ((_, passed),) = spy.calls
    expected = options | {"bos_id": tgt_vocab.bos_id, "eos_id": tgt_vocab.eos_id}
    if beam_size > 1:
        expected |= {"beam_size": beam_size, "alpha": 1.5}
    assert passed == expected


def test_translate_defaults_reach_the_decoders(tiny_translator, monkeypatch):
    model, src_vocab, tgt_vocab = tiny_translator
    greedy, beam = Spy(), Spy()
    monkeypatch.setattr(decoding, "greedy_decode", greedy)
    monkeypatch.setattr(decoding, "beam_search", beam)
    translate(model, ["der mann"], src_vocab, tgt_vocab)
    translate(model, ["der mann"], src_vocab, tgt_vocab, beam_size=2)
    assert len(greedy.calls) == 1 and len(beam.calls) == 1
    assert greedy.calls[0][1]["use_cache"] is True and greedy.calls[0][1]["max_extra_len"] == 50
    assert beam.calls[0][1]["alpha"] == 0.6 and beam.calls[0][1]["beam_size"] == 2


def test_translate_decodes_batch_size_sentences_at_a_time_sorted_by_length(
    tiny_translator, monkeypatch
):
    model, src_vocab, tgt_vocab = tiny_translator
    spy = Spy()
    monkeypatch.setattr(decoding, "greedy_decode", spy)
    sentences = ["der mann trinkt", "bier", "ein bier", "der", "der mann trinkt"]
    translate(model, sentences, src_vocab, tgt_vocab, batch_size=2)
    # Sorted by length: [1, 1] | [2, 3] | [3] words; by input order it would pad [3, 1] and [2, 1].
    assert [tuple(src.shape) for src, _ in spy.calls] == [(2, 1), (2, 3), (1, 3)]
    spy.calls.clear()
    translate(model, sentences, src_vocab, tgt_vocab, batch_size=1)
    assert [src.shape[0] for src, _ in spy.calls] == [1] * 5


def test_translate_results_do_not_depend_on_the_batch_size(tiny_translator):
    model, src_vocab, tgt_vocab = tiny_translator
    sentences = ["der mann trinkt ein bier", "bier", "", "ein bier ?", "der mann"]
    one = translate(model, sentences, src_vocab, tgt_vocab, max_new_tokens=6, batch_size=1)
    assert translate(model, sentences, src_vocab, tgt_vocab, max_new_tokens=6, batch_size=3) == one
    assert one[2] == ""


def test_translate_errors_name_the_argument_and_what_came(tiny_translator):
    # The contract: the argument's name first, then what came (the wording around may change).
    model, src_vocab, tgt_vocab = tiny_translator
    with pytest.raises(ValueError, match=r"^sentences: .*single str"):
        translate(model, "der mann", src_vocab, tgt_vocab)
    with pytest.raises(ValueError, match=r"^sentences: .*NoneType at index 1$"):
        translate(model, ["der mann", None], src_vocab, tgt_vocab)
    with pytest.raises(ValueError, match=r"^model: .*got str$"):
        translate("a model", ["der"], src_vocab, tgt_vocab)
    with pytest.raises(ValueError, match=r"^batch_size: .*got 0$"):
        translate(model, ["der"], src_vocab, tgt_vocab, batch_size=0)
    size = model.config.src_vocab_size
    with pytest.raises(ValueError, match=rf"^src_vocab: expected the model's vocabulary \({size} "):
        translate(model, ["der"], Vocab(["der"]), tgt_vocab)  # the right type, the wrong size
    with pytest.raises(ValueError, match=r"^tgt_vocab: expected the model's vocabulary"):
        translate(model, ["der"], src_vocab, list(range(len(tgt_vocab))))  # not a Vocab


def test_translate_warns_at_the_callers_line(tiny_translator):
    if "mutmut" in sys.modules:
        pytest.skip("under mutation testing a wrapper sits between the test and translate")
    model, src_vocab, tgt_vocab = tiny_translator
    with pytest.warns(UserWarning) as records:
        translate(model, ["der zauberer"], src_vocab, tgt_vocab)
    assert records[0].filename == __file__


@pytest.mark.parametrize("margin", [0.0, 1.0], ids=["no end", "ends"])
def test_trace_candidates_are_the_models_extensions_with_their_fate(margin):
    """Each candidate's log P(token) is the model's, its total adds up, and its fate is right."""
    model = eos_first(tiny_model(seed=3), margin)
    src = padded_src(seed=3)[:1]
    trace: list = []
    beam_search(model, src, beam_size=2, alpha=0.0, max_new_tokens=6, trace=trace)
    with torch.no_grad():
        memory, _ = model.encode(src)
    fates, parents = set(), {(): 0.0}  # live prefix -> its total log P
    for record in trace:
        live = [tokens for tokens, _ in record["live"]]
        finished_now = [tokens for _, tokens in record["finished"]]
        for prefix, token, log_p, total, fate in record["candidates"]:
            fates.add(fate)
            with torch.no_grad():
                logits, _, _ = model.decode(torch.tensor([[BOS, *prefix]]), memory, src)
            expected = torch.log_softmax(forbid_special_tokens(logits[0, -1], PAD, BOS), -1)
            assert log_p == pytest.approx(expected[token].item(), abs=1e-4)
            assert len(prefix) == record["step"]
            assert total == pytest.approx(parents[tuple(prefix)] + log_p, abs=1e-4)
            if fate == "live":
                assert prefix + [token] in live and token != EOS
            elif fate == "finished":
                assert token == EOS and prefix + [token] in finished_now
            else:
                assert fate == "dropped" and prefix + [token] not in live
        parents = {tuple(tokens): score for tokens, score in record["live"]}
    assert {"live", "dropped"} <= fates
    assert ("finished" in fates) == (margin > 0)


@pytest.mark.parametrize(("beam_size", "alpha"), [(2, 0.0), (3, 0.6)])
def test_beam_search_with_the_cache_equals_without(beam_size, alpha):
    model, src = tiny_model(), padded_src()
    options = {"beam_size": beam_size, "alpha": alpha, "max_new_tokens": 9}
    with_cache = beam_search(model, src, use_cache=True, **options)
    assert torch.equal(with_cache, beam_search(model, src, use_cache=False, **options))


@torch.no_grad()
def test_beam_search_holds_the_memory_once_per_sentence():
    model, src, beam_size = tiny_model(), padded_src(), 3
    seen = []  # (tgt rows, memory rows, cross-attention cache rows) at each step
    decode = model.decode

    def spy(tgt, memory, src, need_weights=False, cache=None, start=0):
        logits = decode(tgt, memory, src, need_weights, cache, start)
        seen.append((tgt.shape[0], memory.shape[0], [cross.key.shape[0] for _, cross in cache]))
        return logits

    model.decode = spy
    beam_search(model, src, beam_size=beam_size, max_extra_len=6)
    assert seen[0] == (8 * beam_size, 8, [8, 8])
    for tgt_rows, memory_rows, cross_rows in seen:
        assert tgt_rows == beam_size * memory_rows and cross_rows == [memory_rows] * 2
    assert seen[-1][1] < 8  # sentences that are done have left, memory rows included


def test_output_limits_at_their_edges():
    model = eos_first(tiny_model(), -100.0)  # never ends by itself
    src = padded_src()
    # No extra length: each row as long as its source; a row of padding alone still gets one step.
    empty = torch.cat([src[:1], torch.full_like(src[:1], PAD)])
    output = greedy_decode(model, empty, max_extra_len=0)
    assert output.shape[1] == 7 and (output[1] != PAD).sum().item() == 1
    # Far more than the model's positions: cut at its max_positions (64), for greedy and beam search.
    assert greedy_decode(model, src[:2], max_extra_len=1000).shape[1] == 64
    assert beam_search(model, src[:1], beam_size=2, max_extra_len=1000).shape[1] == 64
    # max_new_tokens from 1 to the model's max_positions is accepted, and is the width when nothing ends.
    assert greedy_decode(model, src[:2], max_new_tokens=1).shape[1] == 1
    assert greedy_decode(model, src[:2], max_new_tokens=64).shape[1] == 64


@pytest.mark.parametrize(
    "options, pattern",
    [
        ({"alpha": True}, r"^alpha: .*got True$"),
        ({"alpha": float("inf")}, r"^alpha: .*got inf$"),
        ({"bos_id": 15}, r"^bos_id: .*\[0, 15\).*pad_id=0.*got 15$"),
        ({"bos_id": EOS}, rf"^eos_id: .*bos_id={EOS}.*got {EOS}$"),
    ],
)
def test_decoding_option_errors_name_the_option_and_the_value(options, pattern):
    with pytest.raises(ValueError, match=pattern):
        beam_search(tiny_model(), padded_src()[:1], beam_size=2, max_new_tokens=4, **options)


def test_beam_step_extends_every_hypothesis_and_keeps_the_best_that_go_on():
    """k = 2, vocabulary of 4 with </s> = 3: the 4 best of 8 extensions, best first."""
    scores = torch.tensor([[-1.0, -2.0]])
    log_probs = torch.tensor([[[-0.1, -3.0, -4.0, -0.2], [-0.5, -9.0, -9.0, -0.3]]])
    totals, origin, token, ends, pick, new_scores = beam_step(scores, log_probs, eos_id=3)
    assert totals[0].tolist() == pytest.approx([-1.1, -1.2, -2.3, -2.5])
    assert origin.tolist() == [[0, 0, 1, 1]] and token.tolist() == [[0, 3, 3, 0]]
    assert ends.tolist() == [[False, True, True, False]]
    assert pick.tolist() == [[0, 3]]  # the ended ones do not take a live place
    assert new_scores[0].tolist() == pytest.approx([-1.1, -2.5])


def test_beam_step_fills_the_beam_with_dead_copies_when_too_few_go_on():
    """One live hypothesis, a vocabulary of 2 (token 0 and </s> = 1): one extension goes on."""
    scores = torch.tensor([[0.0, float("-inf")]])
    log_probs = torch.log(torch.tensor([[[0.25, 0.75], [0.5, 0.5]]]))
    totals, origin, token, ends, pick, new_scores = beam_step(scores, log_probs, eos_id=1)
    assert ends.tolist() == [[True, False, False, False]]  # -inf extensions never end
    assert pick.tolist() == [[1, 1]]  # the one going on, and a copy of it
    assert new_scores[0, 0].item() == pytest.approx(math.log(0.25))
    assert new_scores[0, 1].item() == float("-inf")
    assert token[0, pick[0, 0]].item() == 0 and origin[0, pick[0, 0]].item() == 0


def test_beam_search_restores_training_mode_even_after_an_error():
    model = tiny_model().train()
    beam_search(model, padded_src()[:2], beam_size=2, max_new_tokens=3)
    assert model.training
    model.decoder.new_cache = None  # breaks the search half-way
    with pytest.raises(TypeError):
        beam_search(model, padded_src()[:2], beam_size=2, max_new_tokens=3)
    assert model.training
