"""helpers.model.modern (notebook 17): the modern block's parts against PyTorch and their
properties, the Llama-style decoder against notebook 16's GPT, and ``make modern-block``
end to end on a tiny budget, with the stored results the notebook reads."""

import itertools
import json

import pytest
import torch
import torch.nn.functional as F

from helpers import GPT, GPTConfig, Llama, LlamaConfig, RMSNorm, apply_rotary, generate
from helpers.model.modern import (
    STYLE_2017,
    GroupedQueryAttention,
    SwiGLU,
    llama_parameters,
    rotary_angles,
    swiglu_width,
)
from helpers.train.modern_block import DEFAULT_OUTPUT, ROWS, main, run_experiment


def test_rms_norm_equals_torch():
    torch.manual_seed(0)
    x = torch.randn(3, 4, 10) * 5 + 2
    norm, reference = RMSNorm(10), torch.nn.RMSNorm(10, eps=1e-5)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 2.0)
        reference.weight.copy_(norm.weight)
    torch.testing.assert_close(norm(x), reference(x))
    assert not torch.allclose(norm(x), F.layer_norm(x, (10,), norm.weight), atol=1e-3)


def test_rotary_equals_the_complex_form_and_keeps_lengths():
    torch.manual_seed(0)
    x, positions = torch.randn(2, 3, 7, 12), torch.arange(5, 12)
    turned = apply_rotary(x, positions, base=500.0)
    pairs = torch.view_as_complex(x.reshape(2, 3, 7, 6, 2))
    turns = torch.polar(torch.ones(7, 6), rotary_angles(positions, 12, 500.0))
    torch.testing.assert_close(torch.view_as_real(pairs * turns).flatten(-2), turned)
    torch.testing.assert_close(turned.norm(dim=-1), x.norm(dim=-1))
    assert not torch.allclose(turned, apply_rotary(x, positions))  # the base matters


def test_rotary_scores_depend_only_on_the_offset():
    torch.manual_seed(0)
    q, k = torch.randn(32), torch.randn(32)
    positions = torch.arange(20)
    scores = apply_rotary(q.expand(20, 32), positions) @ apply_rotary(k.expand(20, 32), positions).T
    for offset in range(-19, 20):
        diagonal = torch.diagonal(scores, -offset)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal))
    assert scores.std() > 0.1  # the score does change with the offset


def test_swiglu_width_is_llamas():
    assert swiglu_width(4096) == 11008  # Llama 2 7B
    assert swiglu_width(5120) == 13824  # Llama 2 13B
    assert swiglu_width(8192, 4096, 1.3) == 28672  # Llama 2 70B
    assert swiglu_width(64, 8) == 176
    swiglu = SwiGLU(512, swiglu_width(512, 8))
    relu = 2 * 512 * 2048
    assert abs(sum(p.numel() for p in swiglu.parameters()) / relu - 1) < 0.02


@pytest.mark.parametrize("n_kv_heads", [8, 4, 2, 1])
def test_grouped_query_attention_equals_sdpa_enable_gqa(n_kv_heads):
    torch.manual_seed(0)
    attention = GroupedQueryAttention(32, 8, n_kv_heads, bias=True)
    x = torch.randn(2, 9, 32)
    causal = torch.ones(9, 9).tril().bool()
    q, k, v = attention.w_qkv(x).split(attention.sizes, dim=-1)
    q = q.view(2, 9, 8, 4).transpose(1, 2)
    k, v = (t.view(2, 9, n_kv_heads, 4).transpose(1, 2) for t in (k, v))
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    expected = attention.w_o(heads.transpose(1, 2).reshape(2, 9, 32))
    torch.testing.assert_close(attention(x, causal, torch.arange(9)), expected)


def test_every_switch_off_is_notebook_16s_gpt():
    sizes = {"d_model": 32, "n_heads": 4, "d_ff": 64, "n_layers": 2, "max_positions": 16}
    torch.manual_seed(3)
    gpt = GPT(GPTConfig(40, dropout=0.0, **sizes)).eval()
    torch.manual_seed(3)
    llama = Llama(LlamaConfig(40, **sizes, **STYLE_2017)).eval()
    ids = torch.randint(3, 40, (3, 10))
    ids[0, 7:] = 0  # padding
    torch.testing.assert_close(llama(ids), gpt(ids))
    modern = Llama(LlamaConfig(40, **sizes)).eval()
    assert not torch.allclose(modern(ids), gpt(ids), atol=1e-2)


@pytest.mark.parametrize("n_kv_heads", [None, 2, 1])
def test_the_cache_gives_the_parallel_scores_and_generate_works(n_kv_heads):
    torch.manual_seed(0)
    model = Llama(LlamaConfig(30, d_model=32, n_heads=4, n_kv_heads=n_kv_heads, d_ff=48,
                              max_positions=20)).eval()  # fmt: skip
    ids = torch.randint(3, 30, (2, 9))
    cache = model.new_cache()
    with torch.no_grad():
        prompt = model(ids[:, :4], cache=cache)
        steps = [model(ids[:, t : t + 1], cache=cache, start=t) for t in range(4, 9)]
        torch.testing.assert_close(torch.cat([prompt, *steps], dim=1), model(ids))
    assert cache[0].key.shape[1] == (n_kv_heads or 4)  # the cache keeps n_kv_heads heads
    out = generate(model, ids[:, :3], 6, temperature=0.0)
    assert out.shape == (2, 9) and torch.equal(out[:, :3], ids[:, :3])


def test_the_parameter_count_formula():
    for switches in itertools.product((False, True), repeat=5):
        for n_kv_heads in (None, 2):
            norm_first, rms_norm, swiglu, bias, tie = switches
            config = LlamaConfig(23, d_model=16, n_heads=4, d_ff=20, n_layers=3,
                                 norm_first=norm_first, rms_norm=rms_norm, swiglu=swiglu,
                                 bias=bias, tie_embeddings=tie, n_kv_heads=n_kv_heads)  # fmt: skip
            assert llama_parameters(config) == sum(p.numel() for p in Llama(config).parameters())
    seven_b = LlamaConfig(32000, d_model=4096, n_heads=32, d_ff=11008, n_layers=32,
                          tie_embeddings=False)  # fmt: skip
    assert llama_parameters(seven_b) == 6_738_415_616


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"n_kv_heads": 3}, "n_kv_heads: expected a positive divisor of n_heads=4"),
        ({"n_kv_heads": 0}, "n_kv_heads: expected None or a positive int"),
        ({"d_model": 12, "n_heads": 4}, "n_heads: rotary positions turn pairs"),
        ({"rope_base": 1.0}, "rope_base: expected a number"),
        ({"n_heads": 5}, "n_heads: expected a positive divisor of d_model=32"),
    ],
)
def test_a_config_that_cannot_make_a_model_says_which_field(changes, words):
    sizes = {"d_model": 32, "n_heads": 4, **changes}
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        Llama(LlamaConfig(30, **sizes))


ROW_FIELDS = {
    "perplexity_mean",
    "perplexity_std",
    "parameters",
    "difference_mean",
    "difference_std",
}


def check_results(results: dict, seeds: int) -> None:
    assert set(results["rows"]) == set(ROWS)
    for name, entry in results["rows"].items():
        assert len(entry["runs"]) == seeds
        assert set(entry["summary"]) >= ROW_FIELDS, name
        for run in entry["runs"]:
            assert {"seed", "parameters", "final_loss", "valid_perplexity"} <= set(run)
            assert run["valid_perplexity"] > 1.0
    baseline = results["rows"]["2017 baseline"]["summary"]
    assert baseline["difference_mean"] == 0.0 and baseline["difference_std"] == 0.0
    rows = results["rows"]
    assert rows["GQA (2 KV heads)"]["summary"]["parameters"] < baseline["parameters"]
    assert abs(rows["SwiGLU"]["summary"]["parameters"] / baseline["parameters"] - 1) < 0.02
    assert {"steps", "batch_size", "warmup_steps", "lr_factor", "clip_norm"} <= set(
        results["recipe"]
    )
    assert {"model", "valid_sentences", "command"} <= set(results)


def test_the_command_trains_every_row_and_writes_the_spread(tmp_path, capsys):
    output = tmp_path / "modern_block.json"
    flags = ["--steps", "3", "--seeds", "0,1", "--train-sentences", "300"]
    assert main([*flags, "--valid-sentences", "20", "--output", str(output)]) == 0
    results = json.loads(output.read_text(encoding="utf-8"))
    check_results(results, seeds=2)
    assert results["recipe"]["steps"] == 3 and results["valid_sentences"] == 20
    assert results["command"].endswith("--steps 3 --seeds 0,1")
    assert "all together" in capsys.readouterr().out
    rows = results["rows"]
    # The same seed, the same batches: the baseline's runs differ between seeds, not rows' code.
    assert rows["2017 baseline"]["runs"][0] != rows["2017 baseline"]["runs"][1]


def test_one_row_without_writing():
    results = run_experiment(["2017 baseline"], [0], steps=1, output=None, train_sentences=100,
                             valid_sentences=5)  # fmt: skip
    assert results["rows"]["2017 baseline"]["summary"]["perplexity_std"] == 0.0


@pytest.mark.skipif(not DEFAULT_OUTPUT.is_file(), reason="docs/modern_block.json not made yet")
def test_the_stored_results_have_what_notebook_17_reads():
    results = json.loads(DEFAULT_OUTPUT.read_text(encoding="utf-8"))
    seeds = len(results["rows"]["2017 baseline"]["runs"])
    assert seeds >= 3
    check_results(results, seeds)
    assert results["valid_sentences"] == 2000


# ---------------------------------------------------------------- the exercises' checks


def test_exercise_checks(verdicts):
    from helpers.exercises import notebook_17

    def rms_norm(x, weight, eps):
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight

    def layer_norm(x, weight, eps):
        return F.layer_norm(x, (x.shape[-1],), weight, None, eps)

    verdicts.exercise(
        notebook_17.check_rms_norm,
        rms_norm,
        [
            (layer_norm, "does not subtract the mean"),
            (lambda x, weight, eps: rms_norm(x, torch.ones_like(weight), eps), "gain"),
            (lambda x, weight, eps: x / x.abs().amax(-1, keepdim=True), "sqrt(mean(x^2) + eps)"),
            (lambda x, weight, eps: x[..., :2], "shape"),
        ],
    )
    verdicts.exercise(
        notebook_17.check_kv_cache_bytes,
        lambda n_layers, n_kv_heads, d_k, size: 2 * n_layers * n_kv_heads * d_k * size,
        [
            (lambda n_layers, n_kv_heads, d_k, size: n_layers * n_kv_heads * d_k * size, "both"),
            (lambda n_layers, n_kv_heads, d_k, size: 2 * n_layers * d_k * size, "n_kv_heads heads"),
        ],
    )
    verdicts.exercise(
        notebook_17.check_repeat_kv,
        lambda k, group: k.repeat_interleave(group, dim=1),
        [
            (lambda k, group: k.repeat(1, group, 1, 1), "j // group"),
            (lambda k, group: k, "shape"),
        ],
    )
