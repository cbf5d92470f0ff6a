"""helpers.train.translation_as_lm: notebook 16's closing experiment, end to end on a tiny budget,
and the stored results that the notebook reads."""

import json

import pytest
import torch

from helpers.paths import DOCS_DIR
from helpers.train.translation_as_lm import (
    DEFAULT_OUTPUT,
    SEP,
    joint_vocab,
    lm_sequence,
    main,
    run_experiment,
)
from helpers.training.language_model import next_token_loss

MODELS = ("encoder_decoder", "decoder_only")
RUN_FIELDS = {"parameters", "n_layers", "pairs_per_step", "tokens_per_step", "test_bleu", "example"}


def check_results(results: dict, seeds: int) -> None:
    assert len(results["runs"]) == seeds
    for run in results["runs"]:
        for name in MODELS:
            assert set(run[name]) >= RUN_FIELDS
            assert 0.0 <= run[name]["test_bleu"] <= 100.0
        counts = [run[name]["parameters"] for name in MODELS]
        assert abs(counts[0] - counts[1]) / counts[0] < 0.05, "the parameter counts must match"
        assert (
            round(run["encoder_decoder"]["pairs_per_step"]) == run["decoder_only"]["pairs_per_step"]
        )
    summary = results["summary"]
    for name in MODELS:
        assert {"bleu_mean", "bleu_std"} <= set(summary[name])
    assert {"difference_mean", "difference_std"} <= set(summary)
    assert {"steps", "warmup_steps", "lr_factor", "label_smoothing", "clip_norm"} <= set(
        results["recipe"]
    )
    assert {"test_sentences", "max_new_tokens", "example", "command"} <= set(results)


def test_the_command_trains_both_models_and_writes_their_bleu(tmp_path, capsys):
    output = tmp_path / "translation_as_lm.json"
    flags = ["--steps", "2", "--seeds", "0,1", "--train-pairs", "300", "--test-sentences", "8"]
    assert main([*flags, "--max-new-tokens", "5", "--output", str(output)]) == 0
    results = json.loads(output.read_text(encoding="utf-8"))
    check_results(results, seeds=2)
    assert results["test_sentences"] == 8 and results["recipe"]["steps"] == 2
    assert all(len(run["decoder_only"]["example"].split()) <= 5 for run in results["runs"])
    assert '"difference_mean"' in capsys.readouterr().out


def test_the_decoder_only_model_is_scored_on_the_english_only():
    pairs = [("der mann trinkt", "the man drinks"), ("die frau liest", "the woman reads")]
    vocab = joint_vocab(pairs)
    sequence = lm_sequence(vocab, *pairs[0])
    assert vocab.decode(sequence, skip_special=False).split() == [
        "<s>", "der", "mann", "trinkt", SEP, "the", "man", "drinks", "</s>",
    ]  # fmt: skip
    from helpers import GPT, GPTConfig

    torch.manual_seed(0)
    model = GPT(GPTConfig(len(vocab), d_model=16, n_heads=2, d_ff=32, n_layers=1, dropout=0.0))
    full = model(torch.tensor([sequence[:-1]]))[0].log_softmax(-1)
    english = range(sequence.index(vocab.token_to_id[SEP]), len(sequence) - 1)
    expected = -torch.stack([full[t, sequence[t + 1]] for t in english]).mean()
    torch.testing.assert_close(
        next_token_loss(model, [sequence], sep_id=vocab.token_to_id[SEP]), expected
    )
    assert not torch.isclose(next_token_loss(model, [sequence]), expected)


@pytest.mark.skipif(not DEFAULT_OUTPUT.is_file(), reason="docs/translation_as_lm.json not made yet")
def test_the_stored_results_have_what_notebook_16_reads():
    results = json.loads((DOCS_DIR / "translation_as_lm.json").read_text(encoding="utf-8"))
    check_results(results, seeds=len(results["runs"]))
    assert len(results["runs"]) >= 3 and results["test_sentences"] == 2000


def test_seeds_run_side_by_side_combine_into_one_record(tmp_path):
    parts = []
    for seed in (1, 0):
        parts.append(tmp_path / f"seed{seed}.json")
        run_experiment([seed], steps=1, output=parts[-1], train_pairs=200, test_sentences=3,
                       max_new_tokens=3)  # fmt: skip
    output = tmp_path / "all.json"
    assert main(["--combine", *map(str, parts), "--output", str(output)]) == 0
    results = json.loads(output.read_text(encoding="utf-8"))
    check_results(results, seeds=2)
    assert [run["seed"] for run in results["runs"]] == [0, 1]
    assert results["command"].endswith("--steps 1 --seeds 0,1")


def test_a_smaller_experiment_can_run_without_writing(tmp_path):
    results = run_experiment([0], steps=1, output=None, train_pairs=200, test_sentences=3,
                             max_new_tokens=3)  # fmt: skip
    check_results(results, seeds=1)
    assert results["summary"]["difference_std"] == 0.0
