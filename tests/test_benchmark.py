"""tools.benchmark: its building blocks are correct. Nothing here times anything.

The two attention paths of MultiHeadAttention (explicit with need_weights=True, fused without)
are checked equal in tests/test_multi_head_attention.py::test_fast_path_equals_explicit_path and,
for the whole model, tests/test_transformer.py::test_need_weights_does_not_change_logits.
"""

import itertools
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from helpers.model.transformer import Transformer
from helpers.model_sizes import MODEL_SIZES
from helpers.paths import ROOT
from helpers.text.vocab import Vocab
from tools import benchmark
from tools.benchmark import (
    BenchConfig,
    Comparison,
    RunResult,
    alternate,
    decode_both_ways,
    decoding_setup,
    generate_both_ways,
    generation_setup,
    machine_info,
    markdown_table,
    report,
    run_and_measure,
    speed_ratio,
    synthetic_batch,
    training_pair,
    training_step,
)
from tools.benchmark.report import (
    README_TABLE_END,
    README_TABLE_START,
    run_times_markdown,
    write_readme_table,
)

TINY = BenchConfig("tiny", 16, 2, 1, 32, 50, batch=3, length=5, decode_batch=2)


class FakeClock:
    """A clock that advances by the next given step each time it is read."""

    def __init__(self, steps):
        self.now, self.steps = 0.0, iter(steps)

    def __call__(self):
        self.now += next(self.steps)
        return self.now


# ---------------------------------------------------------------- alternate, speed_ratio


def test_alternate_calls_the_sides_in_turn_after_warmup():
    calls = []
    sides = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    clock = FakeClock(itertools.repeat(1.0))
    durations = alternate(sides, rounds=3, warmup=2, clock=clock)
    assert calls == ["a", "b"] * 5
    assert durations == {"a": [1.0, 1.0, 1.0], "b": [1.0, 1.0, 1.0]}


def test_alternate_measures_each_call_between_two_clock_readings():
    # Readings: a starts at 1, ends at 3 (2 s); b starts at 4, ends at 9 (5 s); and so on.
    clock = FakeClock([1, 2, 1, 5, 1, 3, 1, 6])
    durations = alternate({"a": lambda: None, "b": lambda: None}, rounds=2, warmup=0, clock=clock)
    assert durations == {"a": [2.0, 3.0], "b": [5.0, 6.0]}


@pytest.mark.parametrize(
    ("sides", "rounds", "warmup", "name"),
    [({}, 1, 0, "sides"), ({"a": print}, 0, 0, "rounds"), ({"a": print}, 1, -1, "warmup")],
)
def test_alternate_bad_input(sides, rounds, warmup, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        alternate(sides, rounds, warmup)


def test_speed_ratio_uses_medians():
    assert speed_ratio([1.0, 100.0, 2.0], [4.0, 4.0, 0.1]) == 2.0
    with pytest.raises(ValueError):
        speed_ratio([], [1.0])


# ---------------------------------------------------------------- training


def test_synthetic_batch_is_reproducible_and_shifted():
    src, tgt_input, tgt_output = synthetic_batch(TINY, seed=3)
    again = synthetic_batch(TINY, seed=3)
    assert all(torch.equal(a, b) for a, b in zip((src, tgt_input, tgt_output), again, strict=True))
    assert src.shape == tgt_input.shape == tgt_output.shape == (TINY.batch, TINY.length)
    assert (tgt_input[:, 0] == benchmark.BOS_ID).all()
    assert torch.equal(tgt_input[:, 1:], tgt_output[:, :-1])
    assert int(src.min()) > benchmark.EOS_ID and int(src.max()) < TINY.vocab_size


def test_training_pair_is_one_model_twice():
    ours, reference = training_pair(TINY)
    assert isinstance(ours, Transformer) and ours.training and reference.training
    assert ours.config.dropout == 0.1 == reference.config.dropout
    src, tgt_input, _ = synthetic_batch(TINY)
    ours.eval(), reference.eval()  # without dropout the two must agree
    with torch.no_grad():
        torch.testing.assert_close(
            ours(src, tgt_input), reference(src, tgt_input), atol=1e-5, rtol=0
        )


def test_training_steps_start_from_the_same_loss_and_learn():
    ours, reference = training_pair(replace(TINY, dropout=0.0))
    batch = synthetic_batch(TINY)
    ours_step, reference_step = (
        training_step(ours, batch, lr=1e-2),
        training_step(reference, batch, lr=1e-2),
    )
    first_ours, first_reference = ours_step(), reference_step()
    assert first_ours == pytest.approx(first_reference, abs=1e-5)
    before = [p.detach().clone() for p in ours.parameters()]
    for _ in range(3):
        last_ours, last_reference = ours_step(), reference_step()
    assert last_ours < first_ours and last_reference < first_reference
    assert last_ours == pytest.approx(last_reference, abs=1e-3)  # still the same model
    assert any(not torch.equal(b, p) for b, p in zip(before, ours.parameters(), strict=True))


# ---------------------------------------------------------------- decoding


def test_decoding_runs_all_steps_and_both_ways_agree():
    model, src = decoding_setup(TINY)
    assert src.shape == (TINY.decode_batch, TINY.length)
    assert not model.output_projection.weight[benchmark.EOS_ID].any()
    cached, uncached = decode_both_ways(model, src, steps=12)
    assert cached.shape == (TINY.decode_batch, 12)
    assert torch.equal(cached, uncached)
    assert not (cached == benchmark.EOS_ID).any()


def test_generation_with_and_without_the_cache_agree():
    model, prompts = generation_setup(batch=3)
    assert (prompts[:, 0] == benchmark.BOS_ID).all() and prompts.shape == (3, 4)
    cached, uncached = generate_both_ways(model, prompts, steps=6)
    assert cached.shape == (3, 10) and torch.equal(cached, uncached)


def test_generate_both_ways_catches_a_disagreement(monkeypatch):
    model, prompts = generation_setup(batch=2)
    import helpers.decoding.sampling as sampling

    monkeypatch.setattr(sampling, "generate", lambda model, ids, steps, **_: ids.repeat(1, 3))
    with pytest.raises(AssertionError, match="different tokens"):
        generate_both_ways(model, prompts, steps=8)


def test_decode_both_ways_catches_an_early_stop(monkeypatch):
    model, src = decoding_setup(TINY)

    def stops_early(model, src, max_new_tokens, bos_id, eos_id, use_cache=True):
        return torch.full((src.shape[0], 3), eos_id)

    monkeypatch.setattr(benchmark.model, "greedy_decode", stops_early)
    with pytest.raises(AssertionError, match="stopped early"):
        decode_both_ways(model, src, steps=12)


def test_decode_both_ways_catches_different_tokens(monkeypatch):
    model, src = decoding_setup(TINY)

    def disagrees(model, src, max_new_tokens, bos_id, eos_id, use_cache=True):
        return torch.full((src.shape[0], max_new_tokens), 5 if use_cache else 6)

    monkeypatch.setattr(benchmark.model, "greedy_decode", disagrees)
    with pytest.raises(AssertionError, match="different tokens"):
        decode_both_ways(model, src, steps=4)


# ---------------------------------------------------------------- process trees


def test_run_and_measure_sees_the_memory_of_a_child_process(tmp_path: Path):
    script = textwrap.dedent(
        """
        import subprocess, sys, time
        # A grandchild holding 200 MB: the tree's memory must include it.
        child = subprocess.Popen([sys.executable, "-c",
            "import time; block = bytearray(200 * 2**20); block[::4096] = b'x' * len(block[::4096]); time.sleep(0.6)"])
        child.wait()
        sys.exit(3)
        """
    )
    result = run_and_measure([sys.executable, "-c", script], cwd=tmp_path, poll_seconds=0.05)
    assert result.returncode == 3
    assert result.peak_rss > 200 * 2**20
    assert result.peak_bytes >= 150 * 2**20
    assert result.seconds > 0


def test_process_tree_contains_the_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        import os

        tree = benchmark.process_tree(os.getpid())
        assert tree[0] == os.getpid() and child.pid in tree
    finally:
        child.kill()
        child.wait()


# ---------------------------------------------------------------- reporting


def test_markdown_table():
    table = markdown_table(["a", "b"], [["1", "2"], ["3", "4"]])
    assert table.splitlines() == ["| a | b |", "|---|---|", "| 1 | 2 |", "| 3 | 4 |"]
    with pytest.raises(ValueError, match="rows"):
        markdown_table(["a", "b"], [["1"]])


def test_machine_info_names_what_timings_depend_on():
    info = machine_info()
    assert set(info) >= {"CPU", "cores", "torch threads", "torch"}
    assert info["torch"] == torch.__version__ and info["torch threads"] == "1"
    assert all(isinstance(value, str) and value for value in info.values())


def test_report_has_the_command_the_goals_and_the_verdicts():
    comparisons = [
        Comparison("training step", "tiny", "ours", 0.9, "reference", 1.0, 1.0 / 0.9, 1.0),
        Comparison("decoding", "tiny", "cache", 1.0, "no cache", 2.0, 2.0, 3.0),
        Comparison("decoding, one sentence", "tiny", "cache", 1.0, "no cache", 1.5, 1.5, None),
    ]
    suite = RunResult(f"{sys.executable} -m pytest -n 2", 0, 100.0, 4 * 2**30, 2 * 2**30)
    notebook = RunResult(f"{sys.executable} -m pytest -q nb.ipynb", 1, 5.0, 2**30, 0)
    text = report(
        "python -m tools.benchmark --quick",
        {"CPU": "x"},
        [TINY],
        comparisons,
        suite,
        [(Path("notebooks/nb.ipynb"), notebook)],
    )
    assert "`python -m tools.benchmark --quick`" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[1].endswith("| 1.11x | >= 1.0x | yes |")
    assert rows[2].endswith("| 2.00x | >= 3.0x | **no** |")
    assert rows[3].endswith("| 1.50x | - | - |")
    assert (
        "| `python -m pytest -n 2` | passed | 100.0 s | 2,048 MB | 4,096 MB | <= 360 s, <= 3 GB | yes |"
        in rows
    )
    assert (
        "| `python -m pytest -q nb.ipynb` | **failed (1)** | 5.0 s | n/a | 1,024 MB | <= 30 s | **no** |"
        in rows
    )
    assert sys.executable not in text


def test_bench_configs_are_the_series_sizes():
    """ "small" and "base" mean in the benchmark what they mean everywhere (MODEL_SIZES)."""
    small, base = benchmark.SMALL, benchmark.BASE
    for config in (small, base):
        sizes = MODEL_SIZES[config.name]
        assert (config.d_model, config.n_heads, config.n_layers, config.d_ff, config.dropout) == (
            sizes["d_model"],
            sizes["n_heads"],
            sizes["n_layers"],
            sizes["d_ff"],
            sizes["dropout"],
        )
        config.model_config().validate()
    assert (small.batch, small.length, small.vocab_size) == (64, 24, 1000)
    cases = benchmark.decoding_cases(quick=False)
    assert [(config.name, config.decode_batch, goal) for config, goal in cases] == [
        ("small", 32, 3.0),
        ("small", 1, None),
        ("base", 4, 3.0),
    ]
    assert len(benchmark.decoding_cases(quick=True)) == 2


def test_the_synthetic_batches_use_the_special_ids_of_the_series_vocabularies():
    src, tgt_input, tgt_output = synthetic_batch(TINY, seed=0)
    assert (tgt_input[:, 0] == Vocab.bos_id).all()  # <s> = 2 in every Vocab, not 1
    words = torch.cat([src, tgt_output])
    assert not torch.isin(words, torch.tensor([Vocab.pad_id, Vocab.bos_id, Vocab.eos_id])).any()
    assert TINY.model_config().pad_id == Vocab.pad_id


# ---------------------------------------------------------------- notebook run times for the docs


def test_run_times_record_keeps_the_notebooks_that_passed(tmp_path: Path):
    import datetime

    from tools import docs

    paths = [Path("notebooks/00_overview.ipynb"), Path("notebooks/01_tokens.ipynb")]
    results = [
        RunResult("python -m pytest -q notebooks/00_overview.ipynb", 0, 5.24, 1, 1),
        RunResult("python -m pytest -q notebooks/01_tokens.ipynb", 1, 9.0, 1, 1),
    ]
    info = {"CPU": "x", "cores": "2", "torch threads": "1"}
    record = benchmark.run_times_record(
        "python -m tools.benchmark --notebooks",
        info,
        paths,
        results,
        date=datetime.date(2026, 1, 2),
    )
    assert record == {
        "command": "python -m tools.benchmark --notebooks",
        "machine": "CPU x, cores 2",
        "date": "2026-01-02",
        "seconds": {"00_overview": 5.2},  # the failed notebook is left out
    }
    written = benchmark.write_run_times(record, tmp_path / "docs" / "times.json")
    loaded = docs.load_run_times(written)  # what the teacher's page reads
    assert loaded.seconds == {"00_overview": 5.2} and loaded.date == "2026-01-02"
    with pytest.raises(ValueError, match="^paths, results:"):
        benchmark.run_times_record("x", info, paths, results[:1])


def test_run_times_record_keeps_the_earlier_time_of_a_failed_notebook():
    import datetime

    from tools import docs

    paths = [Path(f"notebooks/{stem}.ipynb") for stem in ("00_a", "01_b", "02_c", "03_d")]
    results = [
        RunResult("pytest 00_a", 0, 4.04, 1, 1),  # passed: its new time
        RunResult("pytest 01_b", 1, 9.0, 1, 1),  # failed: its time of the last run
        RunResult("pytest 02_c", 1, 9.0, 1, 1),  # failed: its time of a run before that
        RunResult("pytest 03_d", 1, 9.0, 1, 1),  # failed, never measured: left out
    ]
    previous = docs.RunTimes(
        "old command",
        "old machine",
        "2026-01-02",
        {"00_a": 5.0, "01_b": 6.0, "02_c": 7.0, "99_gone": 1.0},
        {"02_c": "2025-12-30"},
    )
    record = benchmark.run_times_record(
        "new command", {"CPU": "x"}, paths, results, datetime.date(2026, 1, 5), previous
    )
    assert record == {
        "command": "new command",
        "machine": "CPU x",
        "date": "2026-01-05",
        "seconds": {"00_a": 4.0, "01_b": 6.0, "02_c": 7.0},  # 99_gone is no notebook any more
        "older_times": {"01_b": "2026-01-02", "02_c": "2025-12-30"},
    }
    # When every notebook passes, nothing is older and the file has its four keys only.
    passed = [replace(result, returncode=0) for result in results]
    record = benchmark.run_times_record(
        "new", {"CPU": "x"}, paths, passed, datetime.date(2026, 1, 5), previous
    )
    assert set(record) == {"command", "machine", "date", "seconds"} and len(record["seconds"]) == 4


def fake_notebook_runs(monkeypatch, tmp_path, failing=(), all_fail=False):
    """bench_notebooks replaced: notebook i takes 1 + i s, and those in failing (or all) fail."""

    def fake_bench(paths):
        return [
            RunResult(f"pytest {p}", int(all_fail or p.stem in failing), 1.0 + i, 1, 1)
            for i, p in enumerate(paths)
        ]

    monkeypatch.setattr(benchmark.command, "bench_notebooks", fake_bench)
    monkeypatch.setattr(benchmark.command, "RUN_TIMES", tmp_path / "times.json")
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n{README_TABLE_START}\nold table\n{README_TABLE_END}\nend\n")
    monkeypatch.setattr(benchmark.command, "README", readme)
    return tmp_path / "times.json"


def test_notebooks_flag_times_the_notebooks_and_writes_the_file(tmp_path: Path, monkeypatch):
    import json

    times = fake_notebook_runs(monkeypatch, tmp_path)
    assert benchmark.main(["--notebooks"]) == 0
    record = json.loads(times.read_text(encoding="utf-8"))
    assert record["command"] == "python -m tools.benchmark --notebooks"
    assert list(record["seconds"]) == [path.stem for path in benchmark.notebook_paths()]
    assert record["seconds"]["00_overview"] == 1.0
    assert "older_times" not in record
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "old table" not in readme and readme.startswith("# Title\n") and readme.endswith("end\n")
    assert "| `00_overview` | 1.0 s | <= 30 s | yes |" in readme


def test_the_readme_table_is_the_recorded_run_times():
    import json

    record = json.loads(benchmark.runs.RUN_TIMES.read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[
        readme.index(README_TABLE_START) + len(README_TABLE_START) : readme.index(README_TABLE_END)
    ]
    assert block.strip() == run_times_markdown(record).strip()
    assert set(record["seconds"]) == {path.stem for path in benchmark.notebook_paths()}


def test_the_readme_table_marks_a_missed_goal_and_an_older_time():
    record = {
        "command": "c",
        "machine": "m",
        "date": "2026-01-01",
        "seconds": {"00_overview": 31.0, "11_training": 100.0},
        "older_times": {"11_training": "2025-12-31"},
    }
    table = run_times_markdown(record)
    assert "| `00_overview` | 31.0 s | <= 30 s | **no** |" in table
    assert "| `11_training` | 100.0 s (from 2025-12-31) | <= 120 s | yes |" in table


def test_a_readme_without_the_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="readme: expected the markers"):
        write_readme_table({"command": "c", "machine": "m", "date": "d", "seconds": {}}, readme)
    assert readme.read_text() == "no markers\n"


def test_a_failed_notebook_keeps_its_earlier_time_in_the_file(tmp_path: Path, monkeypatch, capsys):
    import json

    from tools import docs

    stems = [path.stem for path in benchmark.notebook_paths()]
    times = fake_notebook_runs(monkeypatch, tmp_path, failing={stems[0], stems[1]})
    earlier = {
        "command": "python -m tools.benchmark --suite",
        "machine": "an earlier machine",
        "date": "2026-01-02",
        "seconds": {stems[0]: 50.0},
    }
    times.write_text(json.dumps(earlier), encoding="utf-8")
    assert benchmark.main(["--notebooks"]) == 1
    err = capsys.readouterr().err
    assert (
        f"kept the earlier time of the notebooks that failed: {stems[0]} (from 2026-01-02)" in err
    )
    assert f"left out, because they failed and had no earlier time: {stems[1]}" in err
    loaded = docs.load_run_times(times)  # what `make docs` reads
    assert loaded.seconds[stems[0]] == 50.0 and stems[1] not in loaded.seconds
    assert loaded.seconds[stems[2]] == 3.0 and loaded.older_times == {stems[0]: "2026-01-02"}
    assert loaded.date != "2026-01-02" and loaded.machine != "an earlier machine"


def test_the_file_is_not_written_when_every_notebook_fails(tmp_path: Path, monkeypatch, capsys):
    times = fake_notebook_runs(monkeypatch, tmp_path, all_fail=True)
    assert benchmark.main(["--notebooks"]) == 1
    assert not times.exists()
    times.write_text("the earlier record", encoding="utf-8")
    assert benchmark.main(["--notebooks"]) == 1
    assert times.read_text(encoding="utf-8") == "the earlier record"
    assert "not written: no notebook passed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "others",
    [["--quick"], ["--suite"], ["--profile"], ["--rounds", "2"], ["--threads", "1"]],
)
def test_notebooks_flag_rejects_the_options_it_would_ignore(others, monkeypatch, capsys):
    def must_not_run(paths):
        raise AssertionError("the notebooks were run")

    monkeypatch.setattr(benchmark.command, "bench_notebooks", must_not_run)
    with pytest.raises(SystemExit) as exit_info:
        benchmark.main(["--notebooks", *others])
    assert exit_info.value.code == 2
    assert f"--notebooks cannot be combined with {others[0]}:" in capsys.readouterr().err


def test_notebook_goals_give_the_training_notebook_two_minutes():
    assert benchmark.notebook_seconds_goal("04_masks") == 30.0
    assert benchmark.notebook_seconds_goal("11_training") == 120.0
    assert benchmark.notebook_seconds_goal(Path("notebooks/11_training.ipynb")) == 120.0
    assert benchmark.notebook_seconds_goal(Path("notebooks/04_masks.ipynb")) == 30.0


def test_the_explorer_timings_cover_every_explorer_and_their_goals():
    timings = benchmark.bench_explorers(rounds=1)
    assert {t.explorer for t in timings} == {
        "schedule",
        "positions",
        "masks",
        "attention",
        "decoding",
        "sampling",
    }
    assert all(t.seconds > 0 for t in timings)
    goals = {(t.explorer, t.change): t.goal for t in timings}
    assert goals["attention", "new sentence (translated)"] == 1.0
    assert goals["schedule", "warm-up slider"] == goals["attention", "head"] == 0.3
    table = benchmark.explorers_table(timings)
    assert table.count("\n") == len(timings) + 1 and "| attention | head |" in table


def test_beam_search_benchmark_compares_identical_translations():
    comparison = benchmark.bench_beam_search(rounds=1, sentences=3)
    assert comparison.first == "one batch" and comparison.goal == benchmark.BEAM_GOAL
    assert comparison.first_seconds > 0 and comparison.second_seconds > 0


def test_bpe_benchmark_compares_the_same_merges_and_pieces():
    texts = ["der kleine hund trinkt", "the small dog drinks", "die kleine katze"] * 20 + ["zoë"]
    learning, encoding = benchmark.bench_bpe(1, texts, "tiny", vocab_size=40)
    assert learning.first == "train_bpe" and learning.second == "tokenizers"
    assert encoding.first == "BPETokenizer.encode" and encoding.goal is None
    assert "61 texts, vocab_size 40" in learning.measurement
    assert "(61 texts)" in encoding.measurement
    assert min(learning.first_seconds, encoding.second_seconds, learning.ratio) > 0


def test_a_missed_explorer_goal_gets_a_line_and_a_met_one_none():
    from tools.benchmark.explorers import ExplorerTiming, missed_explorer_goals

    timings = [
        ExplorerTiming("attention", "head", 0.12, 0.3),
        ExplorerTiming("attention", "kind", 0.35, 0.3),
        ExplorerTiming("masks", "padding", 0.9, None),  # no goal: never missed
    ]
    (line,) = missed_explorer_goals(timings)
    assert line.startswith("goal missed: attention, kind:") and "300" in line
    assert missed_explorer_goals(timings[:1]) == []
