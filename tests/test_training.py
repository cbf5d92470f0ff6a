"""helpers.training.transformer (notebook 11): batching, label smoothing, schedule, training loop."""

import math
import re
import warnings
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from shared_models import tiny_transformer

from helpers.exercises import notebook_11
from helpers.text.vocab import Vocab, collate, encode_pairs
from helpers.training.transformer import (
    LOSS_BLOCK_SIZE,
    History,
    SmoothedCrossEntropy,
    batches_forever,
    evaluate_loss,
    label_smoothing_loss,
    make_optimizer,
    smoothed_targets,
    token_budget_batches,
    train_model,
    train_on_batches,
    warmup_lambda,
)


def random_examples(count: int, seed: int = 0, vocab_size: int = 20) -> list:
    """(source ids, target ids + </s>) lists of random lengths 1..9, ids from 4 up."""
    generator = torch.Generator().manual_seed(seed)
    examples = []
    for _ in range(count):
        src_len, tgt_len = torch.randint(1, 10, (2,), generator=generator).tolist()
        source = torch.randint(4, vocab_size, (src_len,), generator=generator).tolist()
        target = torch.randint(4, vocab_size, (tgt_len,), generator=generator).tolist()
        examples.append((source, [*target, 3]))
    return examples


def padded_batch(seed: int = 0, vocab_size: int = 13):
    generator = torch.Generator().manual_seed(seed)
    logits = 3 * torch.randn(4, 7, vocab_size, generator=generator)
    target = torch.randint(1, vocab_size, (4, 7), generator=generator)
    target[1, 5:] = 0
    target[2, 2:] = 0
    target[3, :] = 0  # a row of padding only
    return logits, target


# ---------------------------------------------------------------- label smoothing


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1, 0.25])
def test_label_smoothing_equals_cross_entropy(label_smoothing):
    logits, target = padded_batch()
    ours = label_smoothing_loss(logits, target, label_smoothing, pad_id=0)
    reference = F.cross_entropy(
        logits.flatten(0, 1), target.flatten(), label_smoothing=label_smoothing, ignore_index=0
    )
    torch.testing.assert_close(ours, reference, atol=1e-5, rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_label_smoothing_of_low_precision_logits_is_computed_in_float32(dtype):
    logits, target = padded_batch()
    low = logits.to(dtype).requires_grad_(True)
    loss = label_smoothing_loss(low, target, 0.1, pad_id=0)
    assert loss.dtype == torch.float32
    reference = F.cross_entropy(
        low.detach().float().flatten(0, 1), target.flatten(), label_smoothing=0.1, ignore_index=0
    )
    torch.testing.assert_close(loss.detach(), reference, atol=1e-5, rtol=1e-6)
    loss.backward()
    assert low.grad.dtype == dtype and low.grad[target != 0].abs().max() > 0


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("block_size", [LOSS_BLOCK_SIZE, 7 * 11 + 5])  # one block; 1 row and a bit
def test_the_hand_written_backward_is_the_gradient_of_cross_entropy(label_smoothing, block_size):
    import helpers.training.transformer as training

    torch.manual_seed(0)
    logits = torch.randn(2, 7, 11, dtype=torch.float64, requires_grad=True)
    target = torch.randint(1, 11, (2, 7))
    target[1, 4:] = 0
    original, training.LOSS_BLOCK_SIZE = training.LOSS_BLOCK_SIZE, block_size
    try:
        ours = label_smoothing_loss(logits, target, label_smoothing, pad_id=0)
        (ours_grad,) = torch.autograd.grad(ours, logits)
        per_row = lambda z: SmoothedCrossEntropy.apply(z, target.flatten(), label_smoothing)  # noqa: E731
        assert torch.autograd.gradcheck(per_row, (logits.detach().flatten(0, 1).requires_grad_(),))
    finally:
        training.LOSS_BLOCK_SIZE = original
    reference = F.cross_entropy(
        logits.flatten(0, 1), target.flatten(), label_smoothing=label_smoothing, ignore_index=0
    )
    (reference_grad,) = torch.autograd.grad(reference, logits)
    torch.testing.assert_close(ours, reference, atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(ours_grad, reference_grad, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_loss_holds_no_n_by_v_tensor_but_the_gradient(dtype):
    from helpers.evaluation.costs.meter import CostMeter

    n, vocab_size = 600, 3000  # under one block: the block temporaries are (n, V) here too
    logits = torch.randn(n, vocab_size).to(dtype).requires_grad_()
    target = torch.randint(1, vocab_size, (n,))
    with CostMeter() as meter:
        label_smoothing_loss(logits, target, 0.1, pad_id=0).backward()
    gradient = n * vocab_size * logits.element_size()
    one_float32 = n * vocab_size * 4
    # The gradient, plus one float32 block at a time; F.cross_entropy keeps log p (n, V) from the
    # forward pass into the backward, and makes more there.
    assert meter.peak_bytes <= gradient + one_float32 + 100_000  # + the (n,) vectors
    with CostMeter() as reference:
        F.cross_entropy(logits.float(), target, label_smoothing=0.1).backward()
    assert meter.peak_bytes < reference.peak_bytes


def test_label_smoothing_ignores_padding():
    logits, target = padded_batch()
    changed = logits.clone()
    changed[target == 0] = 100 * torch.randn_like(changed[target == 0])  # only pad positions
    torch.testing.assert_close(
        label_smoothing_loss(changed, target, 0.1, 0), label_smoothing_loss(logits, target, 0.1, 0)
    )


def test_label_smoothing_has_gradient_and_uses_pad_id():
    logits, target = padded_batch()
    logits.requires_grad_(True)
    loss = label_smoothing_loss(logits, target, 0.1, pad_id=0)
    loss.backward()
    assert logits.grad[target == 0].abs().max() == 0
    assert logits.grad[target != 0].abs().max() > 0
    # With another pad id the zeros count as words, and the loss changes.
    shifted = label_smoothing_loss(logits.detach(), target, 0.1, pad_id=5)
    assert not torch.isclose(shifted, loss.detach())


def test_smoothed_targets_sum_to_one_with_gold_share():
    target = torch.tensor([0, 4, 3, 3, 2])
    for vocab_size, label_smoothing in [(8, 0.1), (11, 0.3), (5, 0.0)]:
        q = smoothed_targets(target, vocab_size, label_smoothing)
        assert q.shape == (5, vocab_size)
        torch.testing.assert_close(q.sum(dim=1), torch.ones(5))
        gold = q[torch.arange(5), target]
        torch.testing.assert_close(
            gold, torch.full((5,), 1 - label_smoothing + label_smoothing / vocab_size)
        )
        others = q.clone()
        others[torch.arange(5), target] = label_smoothing / vocab_size
        torch.testing.assert_close(others, torch.full_like(q, label_smoothing / vocab_size))


def test_all_pad_target_raises():
    logits, _ = padded_batch()
    with pytest.raises(ValueError, match="target"):
        label_smoothing_loss(logits, torch.zeros(4, 7, dtype=torch.long), 0.1, pad_id=0)


@pytest.mark.parametrize("label_smoothing", [-0.1, 1.0, 1.5, float("nan"), True])
def test_bad_label_smoothing_raises_at_the_loss(label_smoothing):
    # smoothed_targets is the lesson's inner piece; the loss is the entry point that checks.
    logits, target = padded_batch()
    with pytest.raises(ValueError, match="label_smoothing"):
        label_smoothing_loss(logits, target, label_smoothing, pad_id=0)


def test_mismatched_target_shape_raises():
    logits, target = padded_batch()
    with pytest.raises(ValueError, match="target"):
        label_smoothing_loss(logits, target[:, :-1], 0.1, pad_id=0)
    with pytest.raises(ValueError, match="target"):
        label_smoothing_loss(logits, target[None], 0.1, pad_id=0)  # an extra dimension


# ---------------------------------------------------------------- schedule and optimizer


@pytest.mark.parametrize("d_model, warmup", [(512, 4000), (512, 8000), (256, 4000), (128, 100)])
def test_schedule_peaks_at_warmup(d_model, warmup):
    rate = warmup_lambda(d_model, warmup)
    values = [rate(index) for index in range(3 * warmup)]  # index 0 is step 1
    peak_index = max(range(len(values)), key=values.__getitem__)
    assert peak_index + 1 == warmup
    assert math.isclose(values[peak_index], d_model**-0.5 * warmup**-0.5, rel_tol=1e-12)
    assert values[0] < values[warmup // 2] < values[peak_index] > values[2 * warmup]


def test_schedule_formula_both_sides():
    rate = warmup_lambda(512, 4000)
    assert math.isclose(rate(0), 512**-0.5 * 4000**-1.5)  # step 1, linear part
    assert math.isclose(rate(9999), 512**-0.5 * 10000**-0.5)  # step 10,000, decay


def test_adam_settings_and_lambdalr():
    model = torch.nn.Linear(3, 3)
    optimizer, scheduler = make_optimizer(model, d_model=64, warmup_steps=10, lr_factor=2.0)
    assert isinstance(optimizer, torch.optim.Adam)
    assert isinstance(scheduler, torch.optim.lr_scheduler.LambdaLR)
    group = optimizer.param_groups[0]
    assert group["betas"] == (0.9, 0.98)
    assert group["eps"] == 1e-9
    rates = []
    for _ in range(25):
        model(torch.randn(2, 3)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        rates.append(scheduler.get_last_lr()[0])
        scheduler.step()
    expected = [2.0 * 64**-0.5 * min(s**-0.5, s * 10**-1.5) for s in range(1, 26)]
    assert rates == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(d_model=64, warmup_steps=0), "warmup_steps"),
        (dict(d_model=0, warmup_steps=10), "d_model"),
        (dict(d_model=64, warmup_steps=10, lr_factor=0.0), "lr_factor"),
    ],
)
def test_bad_schedule_arguments_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make_optimizer(torch.nn.Linear(2, 2), **kwargs)


# ---------------------------------------------------------------- batching


def example_length(example) -> int:
    return max(len(example[0]), len(example[1]))  # tgt_input and tgt_output: len(target) wide


@pytest.mark.parametrize("tokens_per_batch", [11, 37, 200])
def test_batches_cover_each_example_once_within_budget(tokens_per_batch):
    examples = random_examples(300)
    batches = token_budget_batches(examples, tokens_per_batch, seed=3)
    assert sorted(i for batch in batches for i in batch) == list(range(len(examples)))
    for batch in batches:
        assert batch, "no empty batch"
        assert len(batch) * max(example_length(examples[i]) for i in batch) <= tokens_per_batch
        src, tgt_input, tgt_output = collate(examples, batch, pad_id=0, bos_id=2)
        assert max(src.numel(), tgt_input.numel(), tgt_output.numel()) <= tokens_per_batch


def test_batches_group_similar_lengths():
    examples = random_examples(400)
    batches = token_budget_batches(examples, 60, shuffle=False)
    target_lengths = [len(examples[i][1]) for batch in batches for i in batch]
    assert target_lengths == sorted(target_lengths)  # unshuffled: short to long


def test_batches_deterministic_for_a_seed():
    examples = random_examples(300)
    first = token_budget_batches(examples, 50, seed=7)
    assert first == token_budget_batches(examples, 50, seed=7)
    other = token_budget_batches(examples, 50, seed=8)
    assert other != first
    assert sorted(map(tuple, other)) == sorted(map(tuple, first)), "same batches, other order"


@pytest.mark.parametrize("tokens_per_batch", [0, -5, 2.5, "100", True])
def test_bad_max_tokens_raises(tokens_per_batch):
    with pytest.raises(ValueError, match="tokens_per_batch"):
        token_budget_batches(random_examples(10), tokens_per_batch)


def test_max_tokens_smaller_than_an_example_raises():
    examples = [([5, 6, 7, 4], [8, 9, 3])]  # length 4: the source (the target tensors hold 3)
    assert token_budget_batches(examples, 4) == [[0]]
    with pytest.raises(ValueError, match="tokens_per_batch: 3 is smaller than example 0"):
        token_budget_batches(examples, 3)
    examples = [([5], [8, 9, 3])]  # length 3: tgt_input <s> 8 9 and tgt_output 8 9 </s>
    assert token_budget_batches(examples, 3) == [[0]]
    src, tgt_input, tgt_output = collate(examples, [0], pad_id=0, bos_id=2)
    assert tgt_input.shape == tgt_output.shape == (1, 3)
    with pytest.raises(ValueError, match="tokens_per_batch: 2 is smaller than example 0"):
        token_budget_batches(examples, 2)


def test_collate_shapes_and_shift():
    examples = [([5, 6, 7], [8, 9, 3]), ([5], [10, 11, 12, 13, 3])]
    src, tgt_input, tgt_output = collate(examples, [0, 1], pad_id=0, bos_id=2)
    assert src.tolist() == [[5, 6, 7], [5, 0, 0]]
    assert tgt_input.tolist() == [[2, 8, 9, 0, 0], [2, 10, 11, 12, 13]]
    assert tgt_output.tolist() == [[8, 9, 3, 0, 0], [10, 11, 12, 13, 3]]
    assert src.dtype == tgt_input.dtype == tgt_output.dtype == torch.long


def test_encode_pairs_appends_eos_only_to_targets():
    src_vocab, tgt_vocab = Vocab(["ein", "bier"]), Vocab(["a", "beer"])
    assert encode_pairs([("ein bier", "a beer")], src_vocab, tgt_vocab) == [([4, 5], [4, 5, 3])]


# ---------------------------------------------------------------- training loop


def copy_task(count: int, seed: int) -> list:
    """Targets equal to their sources: a task a tiny model learns in a few dozen steps."""
    generator = torch.Generator().manual_seed(seed)
    examples = []
    for _ in range(count):
        length = int(torch.randint(2, 6, (1,), generator=generator))
        ids = torch.randint(4, 12, (length,), generator=generator).tolist()
        examples.append((ids, [*ids, 3]))
    return examples


tiny_model = tiny_transformer


def test_train_lowers_the_loss_without_warnings(capsys):
    model = tiny_model()
    train_examples, valid_examples = copy_task(400, seed=0), copy_task(50, seed=1)
    before = evaluate_loss(model, valid_examples, bos_id=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        history = train_model(
            model,
            train_examples,
            valid_examples,
            bos_id=2,
            steps=60,
            tokens_per_batch=120,
            warmup_steps=10,
            lr_factor=0.2,  # peak 0.2 * 32^-0.5 * 10^-0.5 = 1.1e-2
            eval_every=25,
            progress=False,
        )
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert isinstance(history, History)
    assert history.step == list(range(1, 61))
    assert len(history.loss) == len(history.accuracy) == len(history.learning_rate) == 60
    assert history.valid_step == [25, 50, 60]
    assert history.valid_loss[-1] < 0.6 * before
    assert sum(history.loss[-5:]) < 0.7 * sum(history.loss[:5])
    assert all(isinstance(value, float) for value in history.loss + history.accuracy)
    assert max(history.learning_rate) == history.learning_rate[9]  # peak at warm-up step 10


def test_train_calls_after_step_at_the_end_of_every_step_with_the_current_weights():
    model = tiny_model()
    seen = []

    def after_step(step):
        seen.append((step, model.encoder.layers[0].self_attention.w_o.weight.detach().clone()))

    history = train_model(
        model,
        copy_task(100, seed=0),
        copy_task(20, seed=1),
        bos_id=2,
        steps=12,
        tokens_per_batch=120,
        warmup_steps=4,
        eval_every=5,
        progress=False,
        after_step=after_step,
    )
    assert [step for step, _ in seen] == list(range(1, 13))
    # Each call sees the weights after that step's update: they change from one call to the next.
    assert all(not torch.equal(a, b) for (_, a), (_, b) in zip(seen, seen[1:], strict=False))
    assert torch.equal(seen[-1][1], model.encoder.layers[0].self_attention.w_o.weight)
    assert history.valid_step == [5, 10, 12]


class AlwaysGuessesOne(torch.nn.Module):
    """Scores that favour token 1 everywhere, by a margin a few small steps cannot close."""

    def __init__(self):
        super().__init__()
        self.config = SimpleNamespace(pad_id=0, d_model=4)
        self.bias = torch.nn.Parameter(torch.tensor([0.0, 5.0, 0.0, 0.0]))

    def forward(self, ids):
        return self.bias.expand(*ids.shape, 4)


def test_train_on_batches_records_the_token_accuracy_over_the_non_pad_targets():
    target = torch.tensor([[1, 1, 2, 0], [1, 3, 0, 0]])  # 5 real tokens, 3 of them 1; 3 pads
    batches = iter([((target,), target)] * 3)
    history = train_on_batches(
        AlwaysGuessesOne(), batches, steps=3, warmup_steps=1, lr_factor=1e-3, progress=False
    )
    assert history.step == [1, 2, 3]
    assert history.accuracy == pytest.approx([3 / 5] * 3)  # the pads neither count nor score


def test_evaluate_loss_restores_mode_and_is_token_weighted():
    model = tiny_model()
    examples = copy_task(30, seed=2)
    model.train()
    value = evaluate_loss(model, examples, bos_id=2, tokens_per_batch=1000)
    assert model.training
    model.eval()
    src, tgt_input, tgt_output = collate(examples, list(range(30)), pad_id=0, bos_id=2)
    with torch.no_grad():
        reference = F.cross_entropy(
            model(src, tgt_input).flatten(0, 1), tgt_output.flatten(), ignore_index=0
        ).item()
    assert value == pytest.approx(reference, rel=1e-5)


def test_train_clips_like_clip_grad_norm():
    # train_model() against a hand-written loop that uses torch.nn.utils.clip_grad_norm_.
    train_examples, valid_examples = copy_task(200, seed=3), copy_task(20, seed=4)
    settings = dict(tokens_per_batch=120, warmup_steps=4, lr_factor=0.2)
    model = tiny_model(seed=5)
    history = train_model(
        model,
        train_examples,
        valid_examples,
        2,
        steps=6,
        progress=False,
        clip_norm=0.5,
        eval_every=100,
        **settings,
    )
    by_hand = tiny_model(seed=5)
    optimizer, scheduler = make_optimizer(
        by_hand, 32, settings["warmup_steps"], settings["lr_factor"]
    )
    batches = batches_forever(train_examples, settings["tokens_per_batch"], seed=0)
    norms = []
    by_hand.train()
    for _ in range(6):
        src, tgt_input, tgt_output = collate(train_examples, next(batches), 0, 2)
        loss = label_smoothing_loss(by_hand(src, tgt_input), tgt_output, 0.1, 0)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(by_hand.parameters(), 0.5).item())
        optimizer.step()
        scheduler.step()
    assert history.grad_norm == pytest.approx(norms, rel=1e-6)
    assert max(norms) > 0.5, "the test needs steps that are really clipped"
    for (name, ours), theirs in zip(
        model.state_dict().items(), by_hand.state_dict().values(), strict=True
    ):
        torch.testing.assert_close(ours, theirs, msg=name)


def test_train_without_clip_norm_records_the_norm_and_does_not_clip():
    train_examples, valid_examples = copy_task(200, seed=3), copy_task(20, seed=4)
    runs = {}
    for clip_norm in (None, 1e9, 0.05):
        model = tiny_model(seed=5)
        history = train_model(
            model,
            train_examples,
            valid_examples,
            2,
            steps=4,
            tokens_per_batch=120,
            warmup_steps=4,
            progress=False,
            clip_norm=clip_norm,
        )
        runs[clip_norm] = (history.grad_norm, list(model.parameters()))
    assert len(runs[None][0]) == 4 and min(runs[None][0]) > 0.05
    assert runs[None][0] == runs[1e9][0]  # a limit never reached changes nothing
    assert all(torch.equal(a, b) for a, b in zip(runs[None][1], runs[1e9][1], strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(runs[None][1], runs[0.05][1], strict=True))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"steps": 0}, "steps"), ({"eval_every": 0}, "eval_every")]
    + [
        ({"clip_norm": value}, "clip_norm")
        for value in (0, -1.0, float("inf"), float("nan"), "1", True)
    ],
)
def test_train_bad_arguments_raise(kwargs, name):
    arguments = {"steps": 1, "tokens_per_batch": 50, "warmup_steps": 2} | kwargs
    with pytest.raises(ValueError, match=name):
        train_model(tiny_model(), copy_task(10, 0), copy_task(5, 1), 2, **arguments)


# ---------------------------------------------------------------- exercise checks


def steps_to_fall(d_model, warmup_steps, fraction):
    return math.ceil(warmup_steps / fraction**2)


def perplexity(logits, target, pad_id, reduction="mean"):
    flat_logits, flat_target = logits.flatten(0, 1), target.flatten()
    losses = F.cross_entropy(flat_logits, flat_target, ignore_index=pad_id, reduction=reduction)
    return losses.exp()


def smooth(target, vocab_size, label_smoothing):
    return (1 - label_smoothing) * F.one_hot(
        target, vocab_size
    ).float() + label_smoothing / vocab_size


def two_term(logits, target, label_smoothing, pad_id, reduce=True):
    logits, target = logits.reshape(-1, logits.shape[-1]), target.reshape(-1)
    keep = target != pad_id
    log_probs = F.log_softmax(logits[keep], dim=-1)
    nll = -log_probs.gather(1, target[keep][:, None]).squeeze(1)
    losses = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=-1)
    return losses.mean() if reduce else losses


CHECKS = [
    (
        notebook_11.check_steps_to_fall,
        steps_to_fall,
        [
            (lambda d, w, f: steps_to_fall(d, w, f) - 1, "still above the fraction"),
            (lambda d, w, f: steps_to_fall(d, w, f) + 1, "the step before already"),
            (lambda d, w, f: math.ceil(w * f), "in the warm-up, before the peak"),
            (lambda d, w, f: math.ceil(w / f), "not like 1/step"),
            (lambda d, w, f: math.ceil(w / f**2 * (512 / d) ** 0.5), "compare the rate"),
            (lambda d, w, f: w / f**2, "expected a whole step number"),
        ],
    ),
    (
        notebook_11.check_perplexity,
        perplexity,
        [
            (lambda z, t, p: perplexity(z, t, p).log(), "that is the mean cross-entropy"),
            (lambda z, t, p: perplexity(z, t, -100), "the padding counts as targets"),
            (
                lambda z, t, p: perplexity(z, t, p, reduction="none")[t.flatten() != p].mean(),
                "not the mean of each token's e to its loss",
            ),
            (lambda z, t, p: perplexity(z, t, p) + 1, "e to the mean cross-entropy"),
            (
                lambda z, t, p: perplexity(z, t, p, reduction="none"),
                "got a tensor of shape (8,)",
            ),
        ],
    ),
    (
        notebook_11.check_smoothed_targets,
        smooth,
        [
            (
                lambda t, v, e: (
                    (1 - e) * F.one_hot(t, v).float() + e / (v - 1) * (1 - F.one_hot(t, v).float())
                ),
                "V - 1 wrong words",
            ),
            (
                lambda t, v, e: (
                    (1 - e) * F.one_hot(t, v).float() + e / v - e / v * F.one_hot(t, v).float()
                ),
                "sum to 1",
            ),
            (lambda t, v, e: F.one_hot(t, v).float(), "1 - ε + ε/V"),
            (lambda t, v, e: smooth(t, v, e)[:, :-1], "expected shape"),
        ],
    ),
    (
        notebook_11.check_two_term_smoothing_loss,
        two_term,
        [
            (
                lambda logits, t, e, p: F.cross_entropy(
                    logits.flatten(0, 1), t.flatten(), label_smoothing=e
                ),
                "pad positions are counted",
            ),
            (lambda logits, t, e, p: two_term(logits, t, 0.5, p), "check both terms"),
            (lambda logits, t, e, p: [1.0], "expected a scalar"),
            (
                lambda logits, t, e, p: two_term(logits, t, e, p, reduce=False),
                "got a tensor of shape (12,): one loss per position; average it with .mean()",
            ),
        ],
    ),
]


@pytest.mark.parametrize(("check", "solution", "wrong"), CHECKS)
def test_exercise_checks(check, solution, wrong, verdicts):
    verdicts.exercise(check, solution, wrong)


# ---------------------------------------------------------------- what mutation testing found untested


def test_label_smoothing_errors_name_the_argument_and_what_came():
    logits, target = padded_batch()
    with pytest.raises(ValueError, match=r"^target: .*\(4, 7\).*got \(4, 6\)$"):
        label_smoothing_loss(logits, target[:, :-1], 0.1, pad_id=0)
    for label_smoothing in (1.0, 1.5):
        with pytest.raises(ValueError, match=rf"^label_smoothing: .*got {label_smoothing!r}$"):
            label_smoothing_loss(logits, target, label_smoothing, pad_id=0)
    with pytest.raises(ValueError, match=r"^target: .*padding"):
        label_smoothing_loss(logits, torch.zeros(4, 7, dtype=torch.long), 0.1, pad_id=0)


def test_smoothing_follows_the_device_of_the_ids():
    target = torch.tensor([1, 2, 0], device="meta")
    assert smoothed_targets(target, 5, 0.1).device.type == "meta"


def test_the_smallest_warmup_and_the_errors_name_the_argument():
    assert warmup_lambda(1, 1)(0) == 1.0  # d_model 1, warm-up 1: the rate at step 1 is 1
    for kwargs, name in (
        ({"d_model": 0, "warmup_steps": 4}, "d_model"),
        ({"d_model": True, "warmup_steps": 4}, "d_model"),
        ({"d_model": 64, "warmup_steps": 0}, "warmup_steps"),
        ({"d_model": 64, "warmup_steps": 2.0}, "warmup_steps"),
    ):
        value = re.escape(repr(kwargs[name]))
        with pytest.raises(ValueError, match=rf"^{name}: .*got {value}$"):
            warmup_lambda(**kwargs)


def test_batches_forever_reshuffles_every_epoch_from_its_seed():
    examples = random_examples(40, seed=2)
    stream = batches_forever(examples, tokens_per_batch=30, seed=5)
    first = token_budget_batches(examples, 30, shuffle=True, seed=5)
    second = token_budget_batches(examples, 30, shuffle=True, seed=6)
    third = token_budget_batches(examples, 30, shuffle=True, seed=7)
    assert first != second != third
    taken = [next(stream) for _ in range(len(first) * 3)]
    assert taken == first + second + third


def test_train_model_by_default_follows_the_paper_s_rate_validates_every_100_steps_and_prints(
    capsys,
):
    history = train_model(
        tiny_model(),
        copy_task(10, 0),
        copy_task(5, 1),
        2,
        steps=150,
        tokens_per_batch=50,
        warmup_steps=4,
    )
    rate = warmup_lambda(32, 4)  # lr_factor 1: the paper's schedule itself
    assert history.learning_rate[:6] == pytest.approx([rate(i) for i in range(6)])
    assert history.valid_step == [100, 150]  # every 100 steps, and the last
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in printed] == ["step 100", "step 150"]


@pytest.mark.parametrize(
    "kwargs, name, value", [({"steps": 0}, "steps", 0), ({"eval_every": True}, "eval_every", True)]
)
def test_train_model_names_a_bad_argument(kwargs, name, value):
    arguments = {"steps": 1, "tokens_per_batch": 50, "warmup_steps": 2} | kwargs
    with pytest.raises(ValueError) as error:
        train_model(tiny_model(), copy_task(10, 0), copy_task(5, 1), 2, **arguments)
    assert str(error.value).startswith(f"{name}: expected a positive int")


def test_token_budget_batches_fill_the_budget_exactly_and_never_return_an_empty_batch():
    examples = [([4] * 3, [5] * 4 + [3])] * 5  # each 5 tokens wide: 4 target ids + </s> (or <s>)
    assert token_budget_batches(examples, 10, shuffle=False) == [[0, 1], [2, 3], [4]]
    assert token_budget_batches(examples, 15, shuffle=False) == [[0, 1, 2], [3, 4]]
    assert token_budget_batches([([4], [])], 1, shuffle=False) == [[0]]  # the smallest budget
    with pytest.raises(ValueError) as error:
        token_budget_batches(examples, True)
    assert str(error.value).startswith("tokens_per_batch: expected a positive int")


def test_token_budget_batches_and_make_optimizer_defaults_are_seed_0_and_the_paper_s_rate():
    examples = random_examples(40, seed=2)
    assert token_budget_batches(examples, 30) == token_budget_batches(examples, 30, seed=0)
    assert token_budget_batches(examples, 30) != token_budget_batches(examples, 30, seed=1)
    optimizer, scheduler = make_optimizer(tiny_model(), d_model=32, warmup_steps=4)
    assert scheduler.get_last_lr()[0] == pytest.approx(warmup_lambda(32, 4)(0))


def test_collate_pads_with_the_given_pad_id():
    examples = [([4, 5, 6], [7, 3]), ([4], [8, 9, 3])]
    src, tgt_input, tgt_output = collate(examples, [0, 1], pad_id=11, bos_id=2)
    assert src.tolist() == [[4, 5, 6], [4, 11, 11]]
    assert tgt_input.tolist() == [[2, 7, 11], [2, 8, 9]]
    assert tgt_output.tolist() == [[7, 3, 11], [8, 9, 3]]


def test_train_model_prints_each_validation_loss_with_progress(capsys):
    model = tiny_model()
    arguments = {"steps": 4, "tokens_per_batch": 60, "warmup_steps": 2, "eval_every": 2}
    history = train_model(model, copy_task(20, 0), copy_task(5, 1), 2, **arguments)
    printed = capsys.readouterr()
    assert printed.err == ""
    assert history.valid_step == [2, 4]
    losses = history.valid_loss
    assert printed.out.splitlines() == [
        f"step {2 * k + 2}: validation loss {losses[k]:.4f}" for k in (0, 1)
    ]


def test_train_model_is_what_helpers_exports():
    import helpers

    assert helpers.train_model is train_model
    assert "train" not in helpers.__all__  # helpers.train is the training command's package


def test_print_validation_prints_one_line_with_four_decimals(capsys):
    from helpers.display.progress import print_validation

    print_validation(100, 1.14843)
    assert capsys.readouterr().out == "step 100: validation loss 1.1484\n"
