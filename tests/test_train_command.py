"""helpers.train (python -m helpers.train): ranks, accumulation, resume, averaging, bad input.

Tiny configurations on a few hundred pairs of the generated corpus, one thread per process. The
two-rank test launches torchrun itself (two gloo processes); the resume test kills a real process
from outside with SIGKILL once it has written a checkpoint, and resumes it.
"""

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from helpers.checkpoints import load_checkpoint
from helpers.decoding.search import translate
from helpers.model.transformer import Transformer
from helpers.paths import ROOT
from helpers.runtime import seed_everything
from helpers.text.vocab import collate
from helpers.train.__main__ import main
from helpers.train.ablations import run_ablations
from helpers.train.checkpoints import list_checkpoints
from helpers.train.config import TrainConfig, build_parser, parse_config
from helpers.train.data import DataPosition, StepBatches, load_run_data, plan_batches
from helpers.train.loop import build_model, clip_gradients, summary
from helpers.train.real import load_run_model
from helpers.train.real import main as real_main
from helpers.training.transformer import label_smoothing_loss, make_optimizer

TIMINGS = ("tokens_per_s", "seconds")  # the log's columns that depend on the machine
TINY = ["--model", "tiny", "--train-pairs", "400", "--valid-pairs", "40"]
TINY += ["--warmup-steps", "10", "--no-progress"]


@pytest.fixture(autouse=True)
def _isolated():
    """In-process runs seed the global generators and may change threads: put them back
    (tests/conftest.py has already set one thread)."""
    threads = torch.get_num_threads()
    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    yield
    torch.set_num_threads(threads)
    random.setstate(states[0])
    np.random.set_state(states[1])
    torch.set_rng_state(states[2])


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        env.pop(name, None)
    return env


def weights(run_dir, step=None) -> dict[str, torch.Tensor]:
    checkpoints = dict(list_checkpoints(run_dir))
    folder = checkpoints[step if step is not None else max(checkpoints)]
    return torch.load(folder / "weights.pt", weights_only=True)


def log_rows(run_dir) -> list[dict[str, str]]:
    with (run_dir / "log.csv").open(newline="") as file:
        return list(csv.DictReader(file))


def combined_batch_reference(
    argv: list[str], world_size: int
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """One process, one batch per step: the union of what the ranks computed, one loss over it.

    Returns the final parameters, for each the largest |gradient| any step gave each entry, and
    the loss of each step.
    """
    config = parse_config(argv)
    data = load_run_data(config)
    plan = plan_batches(config, data.train, world_size)
    steps = StepBatches(data.train, plan, config.seed, DataPosition())
    pad_id, bos_id = data.tgt_vocab.pad_id, data.tgt_vocab.bos_id
    seed_everything(config.seed)
    model_config = config.model_config(len(data.src_vocab), len(data.tgt_vocab), pad_id)
    model = Transformer(model_config).train()
    optimizer, scheduler = make_optimizer(model, model_config.d_model, config.warmup_steps)
    largest = {name: torch.zeros_like(p) for name, p in model.named_parameters()}
    losses = []
    for _ in range(config.steps):
        indices = [i for batch in steps.next_step() for i in batch]
        src, tgt_input, tgt_output = collate(data.train, indices, pad_id, bos_id)
        loss = label_smoothing_loss(model(src, tgt_input), tgt_output, 0.1, pad_id)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        for name, parameter in model.named_parameters():
            largest[name] = torch.maximum(largest[name], parameter.grad.abs())
        optimizer.step()
        scheduler.step()
    return dict(model.named_parameters()), largest, losses


def test_two_ranks_and_accumulation_match_one_process_on_the_combined_batch(tmp_path):
    common = [*TINY, "--steps", "3", "--tokens-per-batch", "600", "--dropout", "0"]
    common += ["--checkpoint-every", "3", "--eval-every", "3"]
    two_ranks, accumulated = tmp_path / "two_ranks", tmp_path / "accumulated"
    launch = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--standalone"]
    subprocess.run(
        [*launch, "-m", "helpers.train", *common, "--output", str(two_ranks)],
        env=subprocess_env(),
        cwd=ROOT,
        check=True,
        timeout=180,
    )
    main([*common, "--max-tokens-per-step", "300", "--output", str(accumulated)])
    described = [json.loads((d / "config.json").read_text()) for d in (two_ranks, accumulated)]
    assert [(d["world_size"], d["accumulation"]) for d in described] == [(2, 1), (1, 2)]
    assert described[0]["micro_tokens"] == described[1]["micro_tokens"] == 300
    reference, largest_gradient, reference_losses = combined_batch_reference(
        [*common, "--output", str(tmp_path / "unused")], 2
    )
    # Entries whose gradient is rounding noise in every step (the loss does not depend on a key
    # bias: softmax ignores a shift of all scores) get full-sized Adam steps in a random
    # direction, since Adam divides by the gradient's own size; they cannot agree and are skipped.
    signal_entries = {name: (g > 1e-8) | (g == 0) for name, g in largest_gradient.items()}
    skipped = sum(int((~kept).sum()) for kept in signal_entries.values())
    assert skipped < 0.01 * sum(t.numel() for t in reference.values())
    for run in (two_ranks, accumulated):
        trained = weights(run)
        assert set(reference) <= set(trained)
        for name, tensor in reference.items():
            kept = signal_entries[name]
            torch.testing.assert_close(
                trained[name][kept], tensor.detach()[kept], rtol=1e-4, atol=5e-5, msg=name
            )
    # The steps moved the weights far more than the tolerance, so the match is not trivial.
    seed_everything(0)
    start = Transformer(parse_config([*common]).model_config(*_vocab_sizes(common))).state_dict()
    moved = max((reference[n].detach() - start[n]).abs().max().item() for n in reference)
    assert moved > 1e-2
    losses = [[float(r["loss"]) for r in log_rows(run)] for run in (two_ranks, accumulated)]
    assert losses[0] == pytest.approx(reference_losses, rel=1e-5)
    assert losses[1] == pytest.approx(reference_losses, rel=1e-5)


def _vocab_sizes(argv: list[str]) -> tuple[int, int, int]:
    data = load_run_data(parse_config(argv))
    return len(data.src_vocab), len(data.tgt_vocab), data.tgt_vocab.pad_id


RESUME = [*TINY, "--steps", "8", "--tokens-per-batch", "300", "--checkpoint-every", "2"]
RESUME += ["--eval-every", "4"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("uninterrupted")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    main([*RESUME, "--output", str(run_dir)])
    torch.set_num_threads(threads)
    return run_dir


def kill_after_checkpoint(argv: list[str], run_dir, step: int, timeout: float = 120) -> int:
    """Start ``python -m helpers.train`` and SIGKILL it from outside once it has written the
    checkpoint of ``step`` or a later one; returns the latest complete checkpoint's step."""
    process = subprocess.Popen(
        [sys.executable, "-m", "helpers.train", *argv, "--output", str(run_dir)],
        env=subprocess_env(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    try:
        while not (list_checkpoints(run_dir) and list_checkpoints(run_dir)[-1][0] >= step):
            assert process.poll() is None, (
                f"the run ended ({process.returncode}) before step {step}"
            )
            assert time.monotonic() < deadline, f"no checkpoint of step {step} in {timeout} s"
            time.sleep(0.002)
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL
    return list_checkpoints(run_dir)[-1][0]


def test_a_killed_run_resumes_bit_identical_to_an_uninterrupted_one(uninterrupted, tmp_path):
    resumed = tmp_path / "resumed"
    # Started for far more steps than the reference's 8, so that it is still running when its
    # checkpoint of step 4 appears (steps may change on --resume: they change nothing before).
    running = [*RESUME, "--steps", "100000"]
    latest = kill_after_checkpoint(running, resumed, step=4)
    assert 4 <= latest < 8, "killed before the reference's last step"
    # Killed after a checkpoint, often in the middle of the next steps or checkpoint: the log
    # may hold steps after the latest checkpoint; --resume drops them and does them again.
    assert len(log_rows(resumed)) >= latest
    main([*RESUME, "--output", str(resumed), "--resume"])
    expected, got = weights(uninterrupted), weights(resumed)
    assert expected.keys() == got.keys()
    for name in expected:
        assert torch.equal(expected[name], got[name]), name
    states = [
        torch.load(list_checkpoints(run)[-1][1] / "training_state.pt", weights_only=True)
        for run in (uninterrupted, resumed)
    ]
    assert states[0]["data_position"] == states[1]["data_position"]
    for a, b in zip(
        states[0]["optimizer"]["state"].values(),
        states[1]["optimizer"]["state"].values(),
        strict=True,
    ):
        assert torch.equal(a["exp_avg_sq"], b["exp_avg_sq"])
    # The log holds each step once (the steps after the checkpoint redone), with the same numbers.
    without_speed = [
        [{k: v for k, v in row.items() if k not in TIMINGS} for row in log_rows(run)]
        for run in (uninterrupted, resumed)
    ]
    assert without_speed[0] == without_speed[1]
    assert [row["step"] for row in without_speed[1]] == [str(s) for s in range(1, 9)]


def test_averaging_gives_the_mean_of_the_last_n_and_a_loadable_model(uninterrupted, tmp_path):
    output = main(["average", str(uninterrupted), "--last", "3", "--output", str(tmp_path / "avg")])
    loaded = load_checkpoint(output)
    model, src_vocab, tgt_vocab = loaded[0], loaded[1], loaded[2]
    last = [weights(uninterrupted, step) for step in (4, 6, 8)]
    for name, tensor in model.state_dict().items():
        mean = sum(w[name].double() for w in last) / 3
        torch.testing.assert_close(tensor.double(), mean, rtol=0, atol=1e-6, msg=name)
    assert not torch.equal(last[0]["output_projection.weight"], last[2]["output_projection.weight"])
    metadata = json.loads((output / "checkpoint.json").read_text())["metadata"]
    assert metadata["averaged_steps"] == [4, 6, 8]
    (translation,) = translate(
        model, ["der mann trinkt ein bier"], src_vocab, tgt_vocab, max_new_tokens=8
    )
    assert isinstance(translation, str)
    with pytest.raises(ValueError, match=r"last: expected at most 4, .* got 5"):
        main(["average", str(uninterrupted), "--last", "5"])


BAD_INPUT = {
    "unknown model size": (
        ["--model", "huge"],
        r"model: expected one of tiny, small, base, big, got 'huge'",
    ),
    "unknown task": (
        ["--corpus", "real", "--task", "poems"],
        r"task: expected one of sentences, frequent_phrases, got 'poems'",
    ),
    "unknown kind of training pair": (
        ["--corpus", "real", "--train-kinds", "sentence,poem"],
        r"train_kinds: expected distinct kinds among sentence, phrase, word, .* got 'sentence,poem'",
    ),
    "batch smaller than one sentence": (
        ["--tokens-per-batch", "8"],
        r"tokens_per_batch: .* expected at least \d+ tokens per micro-batch, got 8",
    ),
    "micro-batch smaller than one sentence": (
        ["--max-tokens-per-step", "6"],
        r"max_tokens_per_step: .* expected at least \d+ tokens per micro-batch, got 6",
    ),
    "resume without a run": (["--resume"], r"resume: expected a run folder with config.json"),
    "clip norm of zero": (["--clip-norm", "0"], r"clip_norm: expected a number in \(0, inf\)"),
    "training pairs longer than the positional table": (
        ["--max-positions", "64", "--max-example-len", "64"],
        r"max_example_len: expected at most max_positions - 1 = 63 .*got 64",
    ),
    "unknown embedding initialisation": (
        ["--embedding-init", "uniform"],
        r"embedding_init: expected one of xavier, normal, got 'uniform'",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUT, ids=list(BAD_INPUT))
def test_bad_input_raises_before_training(case, tmp_path):
    flags, message = BAD_INPUT[case]
    output = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        main([*TINY, "--steps", "2", *flags, "--output", str(output)])
    assert not output.exists()  # nothing was written: no training started


def test_more_ranks_than_batches_raises_before_joining_a_process_group(monkeypatch, tmp_path):
    # torchrun sets WORLD_SIZE; 2 pairs make one batch, too few for 3 ranks.
    monkeypatch.setenv("WORLD_SIZE", "3")
    output = tmp_path / "run"
    flags = ["--model", "tiny", "--train-pairs", "2", "--tokens-per-batch", "300"]
    with pytest.raises(ValueError, match=r"nproc_per_node: expected at most 1 rank\(s\).* got 3"):
        main([*flags, "--output", str(output)])
    assert not output.exists()


def test_resume_refuses_a_run_of_another_config_and_a_used_folder(uninterrupted):
    before = (uninterrupted / "log.csv").read_text()
    with pytest.raises(
        ValueError, match=r"resume: .* trained with label_smoothing=0.1, got label_smoothing=0.2"
    ):
        main([*RESUME, "--output", str(uninterrupted), "--resume", "--label-smoothing", "0.2"])
    with pytest.raises(ValueError, match=r"output: .* already holds checkpoints; pass --resume"):
        main([*RESUME, "--output", str(uninterrupted)])
    assert (uninterrupted / "log.csv").read_text() == before


def test_config_file_then_flags(tmp_path):
    toml = tmp_path / "run.toml"
    toml.write_text('model = "base"\nsteps = 30\nlabel_smoothing = 0.2\n')
    config = parse_config(["--config", str(toml), "--steps", "40"])
    assert (config.model, config.steps, config.label_smoothing) == ("base", 40, 0.2)
    sizes = config.model_config(100, 100, 0)
    assert (sizes.d_model, sizes.n_heads, sizes.d_ff, sizes.n_layers) == (512, 8, 2048, 6)
    big = TrainConfig(model="big").model_config(100, 100, 0)
    assert (big.d_model, big.n_heads, big.d_ff, big.dropout) == (1024, 16, 4096, 0.3)
    bad = tmp_path / "run.json"
    bad.write_text(json.dumps({"modle": "base"}))
    with pytest.raises(ValueError, match=r"config: expected keys among .* got unknown modle"):
        parse_config(["--config", str(bad)])


def test_the_length_filter_defaults_to_what_fits_the_positional_table(tmp_path):
    assert TrainConfig(max_positions=64).example_len_limit == 63  # room for <s> or </s>
    assert TrainConfig(max_positions=64, max_example_len=20).example_len_limit == 20
    # A config file written before issue 25 renamed max_len to max_positions still reads.
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"max_len": 128}))
    assert parse_config(["--config", str(old)]).max_positions == 128


def test_bf16_autocast_trains_on_the_cpu(tmp_path):
    main(
        [*TINY, "--steps", "2", "--tokens-per-batch", "300", "--precision", "bf16"]
        + ["--output", str(tmp_path)]
    )
    losses = [float(row["loss"]) for row in log_rows(tmp_path)]
    assert len(losses) == 2 and all(np.isfinite(losses))


def test_ablations_write_one_scored_row_per_table_3_change(tmp_path):
    output = tmp_path / "table3.json"
    extra = {"train_pairs": 300, "valid_pairs": 30, "tokens_per_batch": 300}
    results = run_ablations(
        ["base", "E"],
        steps=2,
        output=output,
        runs_dir=tmp_path / "runs",
        model="tiny",
        test_sentences=5,
        extra=extra,
    )
    assert json.loads(output.read_text()) == results
    base, learned = results["rows"]
    assert (base["row"], learned["row"]) == ("base", "E")
    # The learned table adds max_positions x d_model parameters to each stack.
    assert learned["parameters"] - base["parameters"] == 2 * 256 * 32
    assert "--positional learned" in learned["command"] and learned["seed"] == 0
    for row in (base, learned):
        assert 1 < row["valid_perplexity"] < 10_000 and 0 <= row["test_bleu_greedy"] <= 100
    with pytest.raises(ValueError, match=r"rows: expected groups among .* got F"):
        run_ablations(["F"], output=output)


@pytest.mark.dictionary
def test_a_run_on_the_real_dictionary_translates_and_is_scored(tmp_path, capsys):
    # Notebook 15's corpus: BPE pieces, one vocabulary and one embedding matrix for both sides.
    output = tmp_path / "real"
    flags = ["--model", "tiny", "--corpus", "real", "--task", "frequent_phrases"]
    flags += ["--train-pairs", "300", "--valid-pairs", "20", "--bpe-vocab-size", "300"]
    flags += ["--tokens-per-batch", "600", "--warmup-steps", "10", "--steps", "4"]
    main(
        [
            *flags,
            "--output",
            str(output),
            "--eval-every",
            "2",
            "--checkpoint-every",
            "2",
            "--no-progress",
        ]
    )
    model, vocab = load_run_model(list_checkpoints(output)[-1][1])
    assert model.config.share_embeddings and len(vocab) == len(vocab.tokenizer.vocabulary) + 4
    assert model.encoder.embedding.embedding.weight is model.output_projection.weight
    # N(0, d_model^-0.5), not Xavier (whose spread, about 0.08 here, shrinks with the vocabulary)
    assert 0.15 < model.output_projection.weight.std().item() < 0.2
    (translation,) = translate(model, ["Ich weiß es nicht."], vocab, vocab)
    assert isinstance(translation, str)
    assert (
        real_main(
            [str(output), "--limit", "10", "--every", "2", "--json", str(tmp_path / "s.json")]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "word for word: BLEU" in printed and "step 4: BLEU" in printed
    assert "step 2: BLEU" not in printed  # every second checkpoint: step 4 only
    scores = json.loads((tmp_path / "s.json").read_text())
    assert set(scores["tasks"]) == {"sentences", "frequent_phrases"}
    (checkpoint,) = scores["tasks"]["sentences"]["checkpoints"]
    assert checkpoint["step"] == 4 and checkpoint["seconds"] > 0
    assert real_main([str(tmp_path / "nothing")]) == 2
    if not torch.cuda.is_available():
        assert real_main([str(output), "--device", "cuda"]) == 2
        assert "device: expected 'cpu' or 'auto'" in capsys.readouterr().err


def test_help_gives_every_option_a_sentence_and_its_choices():
    parser = build_parser()
    options = [action for action in parser._actions if action.option_strings != ["-h", "--help"]]
    assert len(options) > 30
    for action in options:
        assert action.help and len(action.help.split()) >= 4, action.option_strings
    text = parser.format_help()
    for choices in (
        "--model {tiny,small,base,big}",
        "--precision {auto,fp32,bf16,fp16}",
        "--corpus {series,real}",
        "--device {auto,cpu,cuda}",
        "--positional {sinusoidal,learned}",
        "--embedding-init {xavier,normal}",
        "--task {sentences,frequent_phrases}",
    ):
        assert choices in text
    helps = {action.option_strings[-1]: action.help for action in options}
    assert helps["--tokens-per-batch"].endswith("(default: 25000)")
    assert helps["--model"].endswith("(default: small)")
    # The number of ranks changes the batches: said where the batch size is set, and below.
    assert (
        "2 ranks equal 1 process with --max-tokens-per-step at half of it"
        in helps["--tokens-per-batch"]
    )
    assert "to reproduce a run of N ranks in one process" in parser.epilog


def test_clipping_bounds_the_gradient_norm_and_returns_the_norm_before():
    seed_everything(0)
    config = parse_config([*TINY, "--train-pairs", "40"])
    data = load_run_data(config)
    model = build_model(config, data, torch.device("cpu"))
    src, tgt_input, tgt_output = collate(data.train, list(range(8)), 0, data.tgt_vocab.bos_id)
    loss = label_smoothing_loss(model(src, tgt_input), tgt_output, 0.1, data.tgt_vocab.pad_id)
    (loss * 1e4).backward()  # a spike: gradients ten thousand times their size
    optimizer = torch.optim.Adam(model.parameters())
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    before = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]).item()
    assert clip_gradients(model, optimizer, scaler, 0.5) == pytest.approx(before)
    after = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]).item()
    assert before > 100 and after <= 0.5 * (1 + 1e-5)
    assert after == pytest.approx(0.5, rel=1e-4)  # scaled down to the bound, not below
    assert clip_gradients(model, optimizer, scaler, None) == pytest.approx(after)  # untouched


def test_clip_norm_clips_every_step_of_the_command(tmp_path):
    # Adam divides each update by the gradient's own size, so one clipped step moves the weights
    # as much as an unclipped one; clipping shows from the second step on, through Adam's moments.
    runs = {}
    for name, flags in (("plain", []), ("clipped", ["--clip-norm", "0.05"])):
        argv = [*TINY, "--steps", "3", "--tokens-per-batch", "300", "--dropout", "0", *flags]
        runs[name] = main([*argv, "--output", str(tmp_path / name)])
    plain, clipped = (log_rows(runs[name]) for name in ("plain", "clipped"))
    assert all(float(row["grad_norm"]) > 0.05 for row in clipped)  # logged before clipping
    assert [row["grad_norm"] for row in plain][:1] == [row["grad_norm"] for row in clipped][:1]
    losses = [[float(row["loss"]) for row in run] for run in (plain, clipped)]
    assert losses[1][:2] == pytest.approx(losses[0][:2], rel=1e-5)  # the first update (above)
    assert abs(losses[1][2] - losses[0][2]) > 1e-3
    config = json.loads((runs["clipped"] / "config.json").read_text())["config"]
    assert config["clip_norm"] == 0.05


def test_a_quiet_run_still_says_where_its_checkpoints_are_and_its_last_validation_loss(
    tmp_path, capsys
):
    output = tmp_path / "quiet"
    main([*TINY, "--steps", "3", "--tokens-per-batch", "300", "--output", str(output)])
    printed = capsys.readouterr()
    assert "it/s" not in printed.err and "step/s" not in printed.err  # no progress bar
    last = log_rows(output)[-1]
    assert f"validation loss {float(last['valid_loss']):.4f}" in printed.out
    assert str(output / "checkpoints") in printed.out and "step_00000003" in printed.out
    assert printed.out.strip() == summary(output)


def test_embedding_initialisation_is_an_option_whose_default_is_the_corpus_choice(tmp_path):
    data = load_run_data(parse_config([*TINY, "--train-pairs", "40"]))
    spreads = {}
    for init in (None, "xavier", "normal"):
        flags = [*TINY, "--train-pairs", "40"] + (["--embedding-init", init] if init else [])
        config = parse_config(flags)
        model = build_model(config, data, torch.device("cpu"))
        spreads[init] = model.encoder.embedding.embedding.weight.std().item()
        assert config.to_dict()["embedding_init"] == (init or "xavier")  # recorded explicitly
    # tiny: d_model=32, N(0, 1/32) has std 0.18; Xavier's depends on the vocabulary's size.
    assert spreads[None] == spreads["xavier"] < 0.13
    assert 0.15 < spreads["normal"] < 0.2
    assert TrainConfig(corpus="real").embedding_init_used == "normal"
    assert TrainConfig(corpus="real", embedding_init="xavier").embedding_init_used == "xavier"


def test_compile_without_a_cpu_compiler_fails_before_training(monkeypatch, tmp_path):
    from torch._inductor import cpp_builder

    def no_compiler():
        raise RuntimeError("Failed to find a working C++ compiler. Tried: ('g++',)")

    monkeypatch.setattr(cpp_builder, "get_cpp_compiler", no_compiler)
    output = tmp_path / "run"
    with pytest.raises(ValueError, match=r"^compile: expected a C\+\+ compiler on a CPU .* g\+\+"):
        main([*TINY, "--steps", "2", "--device", "cpu", "--compile", "--output", str(output)])
    assert not output.exists()
