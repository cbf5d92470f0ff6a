"""The corpus of a run, and its length-bucketed batches shared out between ranks.

Hand-written: edit this file itself; no notebook generates it.

Every rank builds the same list of token-budget batches (``token_budget_batches``, paper §5.1),
in the same shuffled order, epoch after epoch. One optimizer step takes the next
``ranks x accumulation`` batches of that stream; rank r computes the r-th share of them. So the
examples of a step do not depend on how the work is split: two ranks, or one rank accumulating two
micro-batches, see exactly the same data. The position in the stream (epoch, batch) is all a
checkpoint needs to carry on where it stopped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from helpers.language import tr
from helpers.text.bpe import BPETokenizer, PieceVocab, train_bpe
from helpers.text.vocab import Example, Vocab, encode_pairs
from helpers.train.config import TrainConfig
from helpers.training.transformer import token_budget_batches

TOKENIZER_FILE = "bpe.txt"  # corpus "real": the run's BPE, saved in its folder


@dataclass
class RunData:
    """Encoded splits and the vocabularies of a run (vocabularies come from the training split).

    tokenizer: the BPE of corpus "real" (source and target share it and one vocabulary of its
    pieces); None for the series' word-level corpus.
    """

    train: list[Example]
    valid: list[Example]
    test_pairs: list[tuple[str, str]]
    src_vocab: Vocab
    tgt_vocab: Vocab
    tokenizer: BPETokenizer | None = None


def load_run_data(config: TrainConfig) -> RunData:
    """The corpus named by ``config.corpus``: the series' corpus with word-level vocabularies,
    or the real dictionary's pairs (``config.task``) in BPE pieces with one shared vocabulary."""
    if config.corpus == "real":
        return _load_real(config)
    from helpers.data.corpus import load_corpus
    from helpers.pretrained import build_vocabularies

    train_pairs = load_corpus("train")[: config.train_pairs]
    valid_pairs = load_corpus("valid")[: config.valid_pairs]
    src_vocab, tgt_vocab = build_vocabularies(train_pairs)
    return RunData(
        encode_pairs(train_pairs, src_vocab, tgt_vocab),
        encode_pairs(valid_pairs, src_vocab, tgt_vocab),
        load_corpus("test"),
        src_vocab,
        tgt_vocab,
    )


def _load_real(config: TrainConfig) -> RunData:
    from helpers.data.dictionary import task_pairs

    train_pairs = task_pairs(config.task, "train", train_kinds=config.train_kinds)
    train_pairs = train_pairs[: config.train_pairs]
    valid_pairs = task_pairs(config.task, "valid")[: config.valid_pairs]
    tokenizer = train_bpe([text for pair in train_pairs for text in pair], config.bpe_vocab_size)
    vocab = PieceVocab(tokenizer)  # text <-> ids of the pieces, for both languages
    train = [
        example
        for example in encode_pairs(train_pairs, vocab, vocab)
        if example_length(example) <= config.example_len_limit
    ]
    valid = encode_pairs(valid_pairs, vocab, vocab)
    return RunData(train, valid, task_pairs(config.task, "test"), vocab, vocab, tokenizer)


def example_length(example: Example) -> int:
    """Tokens an example takes in a batch, as ``token_budget_batches`` counts them: its source,
    or its target (ending with </s>; tgt_input trades it for <s>, so both are as wide)."""
    return max(len(example[0]), len(example[1]))


@dataclass(frozen=True)
class BatchPlan:
    """How one optimizer step is split: micro-batches of at most ``micro_tokens`` padded tokens,
    ``accumulation`` of them on each of ``world_size`` ranks."""

    world_size: int
    accumulation: int
    micro_tokens: int
    batches_per_epoch: int

    @property
    def batches_per_step(self) -> int:
        return self.world_size * self.accumulation


def plan_batches(config: TrainConfig, train: Sequence[Example], world_size: int) -> BatchPlan:
    """Split tokens_per_batch over ranks and accumulation; raise ValueError when it cannot work.

    accumulation = ceil(tokens_per_batch / (ranks x max_tokens_per_step)), and each micro-batch
    holds tokens_per_batch / (ranks x accumulation) tokens, so a step stays near tokens_per_batch.
    """
    if not isinstance(world_size, int) or world_size < 1:
        raise ValueError(
            tr("world_size: expected a positive int, got {world_size!r}").format(
                world_size=world_size
            )
        )
    if not train:
        raise ValueError(tr("train_pairs: expected at least one training pair, got none"))
    per_rank = math.ceil(config.tokens_per_batch / world_size)
    cap = config.max_tokens_per_step or per_rank
    accumulation = math.ceil(per_rank / cap)
    micro_tokens = math.ceil(config.tokens_per_batch / (world_size * accumulation))
    longest = max(example_length(example) for example in train)
    if micro_tokens < longest:
        name = "max_tokens_per_step" if config.max_tokens_per_step else "tokens_per_batch"
        raise ValueError(
            tr(
                "{name}: a micro-batch of {micro_tokens} tokens (tokens_per_batch="
                "{tokens_per_batch} over {world_size} rank(s) x {accumulation} accumulation "
                "step(s)) cannot hold the longest sentence; expected at least {longest} tokens per "
                "micro-batch, got {micro_tokens}"
            ).format(
                name=name,
                micro_tokens=micro_tokens,
                tokens_per_batch=config.tokens_per_batch,
                world_size=world_size,
                accumulation=accumulation,
                longest=longest,
            )
        )
    batches_per_epoch = len(token_budget_batches(train, micro_tokens, shuffle=False))
    plan = BatchPlan(world_size, accumulation, micro_tokens, batches_per_epoch)
    if plan.batches_per_step > batches_per_epoch:
        raise ValueError(
            tr(
                "nproc_per_node: expected at most {most} rank(s): the corpus gives "
                "{batches_per_epoch} batch(es) of {micro_tokens} tokens per epoch and a step "
                "needs {accumulation} per rank; got {world_size} ranks"
            ).format(
                most=batches_per_epoch // accumulation,
                batches_per_epoch=batches_per_epoch,
                micro_tokens=micro_tokens,
                accumulation=accumulation,
                world_size=world_size,
            )
        )
    return plan


@dataclass
class DataPosition:
    """Where the batch stream stands: the next batch is number ``batch`` of epoch ``epoch``."""

    epoch: int = 0
    batch: int = 0


class StepBatches:
    """The stream of optimizer steps: each a list of ``plan.batches_per_step`` batches of indices."""

    def __init__(
        self, examples: Sequence[Example], plan: BatchPlan, seed: int, position: DataPosition
    ):
        self.examples, self.plan, self.seed = examples, plan, seed
        self.position = DataPosition(position.epoch, position.batch)
        self._epoch, self._batches = -1, []

    def _epoch_batches(self, epoch: int) -> list[list[int]]:
        if epoch != self._epoch:
            self._epoch = epoch
            self._batches = token_budget_batches(
                self.examples, self.plan.micro_tokens, shuffle=True, seed=self.seed + epoch
            )
        return self._batches

    def next_step(self) -> list[list[int]]:
        """The batches of the next optimizer step (every rank's), advancing the position."""
        step = []
        while len(step) < self.plan.batches_per_step:
            batches = self._epoch_batches(self.position.epoch)
            if self.position.batch >= len(batches):
                self.position = DataPosition(self.position.epoch + 1, 0)
                continue
            step.append(batches[self.position.batch])
            self.position = DataPosition(self.position.epoch, self.position.batch + 1)
        return step

    def shard(self, step: list[list[int]], rank: int) -> list[list[int]]:
        """Rank ``rank``'s micro-batches of a step."""
        size = self.plan.accumulation
        return step[rank * size : (rank + 1) * size]
