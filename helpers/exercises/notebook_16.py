"""Checks for the exercises of notebook 16 (a decoder-only language model, trained and sampled).

Hand-written: edit this file itself; no notebook generates it.

Each check prints its answer in words and returns None; it never raises on a wrong or
unfinished answer.
"""

import math
from collections.abc import Callable

import torch

from helpers.exercises import as_number, call_solution, failed, keeps_random_state, passed
from helpers.language import tr


def _min_p_filter(logits: torch.Tensor, min_p: float) -> torch.Tensor:
    probs = logits.softmax(-1)
    largest = probs.amax(dim=-1, keepdim=True)
    return logits.masked_fill(probs < min_p * largest, float("-inf"))


def check_min_p_filter(function: Callable[[torch.Tensor, float], torch.Tensor]) -> None:
    """Exercise 1: min_p_filter(logits, min_p), -inf where a token's probability is below min_p
    times the most probable token's."""
    logits = torch.tensor([2.0, 1.5, 1.0, 0.5, 0.0, -1.0])
    batch = torch.tensor([[3.0, 0.0, -1.0, -2.0], [0.5, 0.4, 0.3, 0.2]])
    cases = [(logits, 0.1), (logits, 0.5), (logits, 0.0), (logits, 1.0), (batch, 0.2)]
    for case_logits, min_p in cases:
        result, problem = call_solution(function, case_logits.clone(), min_p)
        if problem is not None:
            return failed(problem)
        if not isinstance(result, torch.Tensor) or result.shape != case_logits.shape:
            return failed(
                tr("expected a tensor of the logits' shape {shape}, got {got}").format(
                    shape=tuple(case_logits.shape),
                    got=getattr(result, "shape", type(result).__name__),
                ),
            )
        result, expected = result.detach().cpu().float(), _min_p_filter(case_logits, min_p)
        same_kept = torch.equal(result.isinf(), expected.isinf())
        if same_kept and torch.allclose(result[~result.isinf()], case_logits[~expected.isinf()]):
            continue
        if same_kept:
            hint = tr("leave the kept scores as they are: -inf only where a token is removed")
        elif torch.equal(result.isinf(), case_logits.softmax(-1) < min_p):
            hint = tr("compare with min_p times the largest probability, not with min_p alone")
        else:
            hint = tr("keep a token when its probability is at least min_p times the largest")
        kept = (~expected.isinf()).sum(dim=-1).tolist()
        return failed(
            tr("min_p_filter(logits, {min_p}): expected {kept} kept token(s) ({hint})").format(
                min_p=min_p, kept=kept, hint=hint
            ),
        )
    return passed(tr("min_p_filter is right in all {count} cases").format(count=len(cases)))


def _nucleus_size(probs: torch.Tensor, p: float) -> int:
    from helpers.decoding.sampling import filter_logits

    return int((filter_logits(probs.log(), top_p=p) > -math.inf).sum())


def check_nucleus_size(function: Callable[[torch.Tensor, float], int]) -> None:
    """Exercise 2: nucleus_size(probs, p), the number of tokens filter_logits keeps under top-p."""
    probs = torch.tensor([0.05, 0.4, 0.3, 0.15, 0.1])
    cases = [(probs, 0.3), (probs, 0.4), (probs, 0.5), (probs, 0.9), (probs, 1.0)]
    cases.append((torch.tensor([0.95, 0.03, 0.02]), 0.5))
    for case_probs, p in cases:
        result, problem = call_solution(function, case_probs.clone(), p)
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        expected = _nucleus_size(case_probs, p)
        if value is None:
            return failed(tr("expected a number, got {type}").format(type=type(result).__name__))
        if value != expected:
            hint = tr("sort in descending order and keep the token where the sum reaches p")
            if value == expected - 1:
                hint = tr("keep the token that crosses p too: the kept mass must reach p")
            return failed(
                tr(
                    "nucleus_size({probs}, {p}): expected {expected}, got {value:g} ({hint})"
                ).format(probs=case_probs.tolist(), p=p, expected=expected, value=value, hint=hint),
            )
    return passed(
        tr("nucleus_size matches filter_logits(top_p=p) in all {count} cases").format(
            count=len(cases)
        )
    )


@keeps_random_state
def check_sentence_log_prob(function: Callable) -> None:
    """Exercise 3: sentence_log_prob(model, ids), the sum of the next tokens' log-probabilities."""
    from helpers.model.gpt import GPT, GPTConfig

    torch.manual_seed(0)
    model = GPT(GPTConfig(12, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_positions=16)).eval()
    for ids in (torch.tensor([[2, 5, 7, 3]]), torch.tensor([[2, 9, 9, 11, 4, 3]])):
        result, problem = call_solution(function, model, ids.clone())
        if problem is not None:
            return failed(problem)
        value = as_number(result)
        if value is None:
            return failed(
                tr("expected a number (a float), got {type}").format(type=type(result).__name__),
            )
        with torch.no_grad():
            log_probs = model(ids)[:, :-1].log_softmax(-1)
        expected = log_probs.gather(-1, ids[:, 1:, None]).sum().item()
        if not math.isclose(value, expected, rel_tol=1e-4, abs_tol=1e-4):
            hint = tr("the scores at position t are for the token at t + 1")
            same_position = model(ids).log_softmax(-1).gather(-1, ids[..., None]).sum().item()
            if math.isclose(value, same_position, rel_tol=1e-4, abs_tol=1e-4):
                hint = tr("shift by one: position t's scores predict token t + 1, not token t")
            elif value > 0:
                hint = tr("a log-probability is at most 0: take log_softmax of the scores")
            return failed(
                tr("for ids {ids}: expected {expected:.4f}, got {value:.4f} ({hint})").format(
                    ids=ids.tolist(), expected=expected, value=value, hint=hint
                ),
            )
    return passed(tr("sentence_log_prob matches the model's next-token log-probabilities"))
