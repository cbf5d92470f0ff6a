"""What one training run is: model size, corpus, batch size, schedule, precision, folders.

Hand-written: edit this file itself; no notebook generates it.

A run is described by a :class:`TrainConfig`: defaults, then an optional config file (JSON, or
TOML read with the standard library's ``tomllib``), then command-line flags, each overriding the
one before. ``python -m helpers.train --help`` lists every flag; a config file uses the same names
with underscores (``tokens_per_batch = 25000``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from helpers.checkpoints import with_current_names
from helpers.checks import check_number, fail
from helpers.language import tr
from helpers.model.transformer import TransformerConfig
from helpers.model_sizes import MODEL_SIZES

CORPORA = ("series", "real")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
DEVICES = ("auto", "cpu", "cuda")
POSITIONAL = ("sinusoidal", "learned")
EMBEDDING_INITS = ("xavier", "normal")
# The embedding initialisation a corpus gets when --embedding-init is not given (see
# helpers.train.loop.init_embeddings_): Xavier's spread shrinks with the vocabulary, so the real
# corpus's 8,000 shared BPE pieces start from N(0, 1/d_model) instead.
CORPUS_EMBEDDING_INIT = {"series": "xavier", "real": "normal"}

# Fields that may change between a run and its --resume: they do not change what is computed.
CHANGEABLE_ON_RESUME = frozenset(
    {"steps", "eval_every", "checkpoint_every", "output", "resume", "progress"}
)


@dataclass
class TrainConfig:
    """One training run. Sizes left at None come from ``model`` (MODEL_SIZES).

    tokens_per_batch: the padded tokens (batch x longest sequence, per side) of one optimizer
    step over all ranks; the paper's batches held about 25,000 source and 25,000 target tokens.
    max_tokens_per_step: the most one device computes at once; when tokens_per_batch / ranks is
    larger, the step is split into micro-batches whose gradients are accumulated.
    clip_norm: scale the step's gradients down whenever their global L2 norm exceeds it (None:
    no clipping; notebook 11's loop takes the same option).
    embedding_init: "xavier" (the model's own initialisation) or "normal" (N(0, 1/d_model));
    None: the corpus's choice, CORPUS_EMBEDDING_INIT.
    compile: run the model through torch.compile.
    train_pairs, valid_pairs: use only the first pairs of a split (tests, quick runs).
    task, train_kinds, bpe_vocab_size: for corpus "real" (notebook 15, the installed
    German-English dictionary): the held-out pairs it is validated on
    (helpers.data.dictionary.TASKS), the kinds of training pair it learns from (comma-separated
    among sentence, phrase, word) and the size of its shared source-target BPE vocabulary.
    """

    model: str = "small"
    corpus: str = "series"
    task: str = "sentences"
    train_kinds: str = "sentence,phrase"
    bpe_vocab_size: int = 8_000
    tokens_per_batch: int = 25_000
    max_tokens_per_step: int | None = None
    steps: int = 100_000
    warmup_steps: int = 4_000
    lr_factor: float = 1.0
    label_smoothing: float = 0.1
    clip_norm: float | None = None
    dropout: float | None = None
    n_layers: int | None = None
    d_model: int | None = None
    d_ff: int | None = None
    n_heads: int | None = None
    d_k: int | None = None
    d_v: int | None = None
    positional: str = "sinusoidal"
    embedding_init: str | None = None
    max_positions: int = 256
    max_example_len: int | None = None
    eval_every: int = 1_000
    checkpoint_every: int = 1_000
    output: str = "runs/default"
    seed: int = 0
    precision: str = "auto"
    device: str = "auto"
    train_pairs: int | None = None
    valid_pairs: int | None = None
    compile: bool = False
    resume: bool = False
    progress: bool = True

    def validate(self) -> None:
        """Raise ValueError naming the first field that cannot make a run."""
        choices = {
            "model": tuple(MODEL_SIZES),
            "corpus": CORPORA,
            "precision": PRECISIONS,
            "device": DEVICES,
            "positional": POSITIONAL,
            "embedding_init": EMBEDDING_INITS,
        }
        for name, allowed in choices.items():
            value = getattr(self, name)
            if value not in allowed and not (name == "embedding_init" and value is None):
                raise ValueError(
                    tr("{name}: expected one of {allowed}, got {value!r}").format(
                        name=name, allowed=", ".join(allowed), value=value
                    )
                )
        from helpers.data.dictionary import TASKS, check_train_kinds

        if self.task not in TASKS:
            raise ValueError(
                tr("task: expected one of {tasks}, got {task!r}").format(
                    tasks=", ".join(TASKS), task=self.task
                )
            )
        check_train_kinds(self.train_kinds)
        positive = ["tokens_per_batch", "steps", "warmup_steps", "max_positions", "eval_every"]
        positive += ["checkpoint_every", "bpe_vocab_size"]
        optional_positive = ["max_tokens_per_step", "n_layers", "d_model", "d_ff", "n_heads"]
        optional_positive += ["d_k", "d_v", "train_pairs", "valid_pairs", "max_example_len"]
        for name in positive + optional_positive:
            value = getattr(self, name)
            if value is None and name in optional_positive:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(
                    tr("{name}: expected a positive int, got {value!r}").format(
                        name=name, value=value
                    )
                )
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(
                tr("seed: expected a non-negative int, got {seed!r}").format(seed=self.seed)
            )
        if not isinstance(self.lr_factor, (int, float)) or not 0 < self.lr_factor < math.inf:
            raise ValueError(
                tr("lr_factor: expected a positive number, got {lr_factor!r}").format(
                    lr_factor=self.lr_factor
                )
            )
        for name in ("label_smoothing", "dropout"):
            value = getattr(self, name)
            if value is None and name == "dropout":
                continue
            if not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
                raise ValueError(
                    tr("{name}: expected a number in [0, 1), got {value!r}").format(
                        name=name, value=value
                    )
                )

        if self.max_example_len is not None and self.max_example_len >= self.max_positions:
            fail(
                "max_example_len: expected at most max_positions - 1 = {limit} (room for <s> or "
                "</s>), got {value}",
                limit=self.max_positions - 1,
                value=self.max_example_len,
            )
        check_number("clip_norm", self.clip_norm, low=0, low_open=True, allow_none=True)
        for name in ("compile", "resume", "progress"):
            if not isinstance(getattr(self, name), bool):
                fail(
                    "{name}: expected true or false, got {value!r}",
                    name=name,
                    value=getattr(self, name),
                )

    @property
    def embedding_init_used(self) -> str:
        """The embedding initialisation of this run: ``embedding_init``, else the corpus's."""
        return self.embedding_init or CORPUS_EMBEDDING_INIT[self.corpus]

    @property
    def example_len_limit(self) -> int:
        """The longest side, in tokens, a training pair of corpus "real" may have."""
        return self.max_example_len or self.max_positions - 1

    def to_dict(self) -> dict:
        """The fields, with the embedding initialisation the run uses written out."""
        values = dataclasses.asdict(self)
        if self.corpus in CORPUS_EMBEDDING_INIT:
            values["embedding_init"] = self.embedding_init_used
        return values

    def model_config(
        self, src_vocab_size: int, tgt_vocab_size: int, pad_id: int
    ) -> TransformerConfig:
        """The TransformerConfig of this run: the named size, then any size given explicitly.

        Corpus "real" has one BPE vocabulary for both languages, so, as in the paper (§3.4), one
        matrix is the source embedding, the target embedding and the output projection.
        """
        sizes = dict(MODEL_SIZES[self.model])
        for name in ("n_layers", "d_model", "d_ff", "n_heads", "dropout"):
            if getattr(self, name) is not None:
                sizes[name] = getattr(self, name)
        config = TransformerConfig(
            src_vocab_size=src_vocab_size,
            tgt_vocab_size=tgt_vocab_size,
            d_k=self.d_k,
            d_v=self.d_v,
            positional=self.positional,
            share_embeddings=self.corpus == "real",
            max_positions=self.max_positions,
            pad_id=pad_id,
            **sizes,
        )
        config.validate()
        return config


def _optional_int(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def _optional_float(text: str) -> float | None:
    return None if text.lower() == "none" else float(text)


def _flag_type(field: dataclasses.Field):
    annotation = str(field.type)
    if annotation == "int":
        return int
    if annotation == "int | None":
        return _optional_int
    if annotation == "float | None":
        return _optional_float
    if annotation == "float":
        return float
    return str


def read_config_file(path: Path) -> dict:
    """The fields of a JSON or TOML config file; unknown keys raise ValueError."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(
            tr("config: expected a JSON or TOML file, got {path!r} (not found)").format(
                path=str(path)
            )
        )
    text = path.read_text(encoding="utf-8")
    try:
        values = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise ValueError(
            tr("config: {file} is not valid {format} ({error})").format(
                file=path.name, format=path.suffix[1:], error=error
            )
        ) from error
    values = with_current_names(values)
    known = {field.name for field in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            tr("config: expected keys among {known}; got unknown {unknown}").format(
                known=", ".join(sorted(known)), unknown=", ".join(unknown)
            )
        )
    return values


# One sentence per flag of ``python -m helpers.train --help`` (argparse formats them with %, so
# none holds a bare percent sign). The flags with a fixed set of values show it as their metavar.
FLAG_HELP: dict[str, str] = {
    "model": "the model size: tiny (tests), small (the shipped model, N=3, d_model=128), base or "
    "big (the paper's Table 3)",
    "corpus": "series: the generated corpus of the notebooks; real: notebook 15's German-English "
    "dictionary in BPE pieces (needs the dictionary installed)",
    "task": "corpus real: the held-out pairs the run is validated on",
    "train_kinds": "corpus real: the kinds of training pair to learn from, comma-separated among "
    "sentence, phrase, word",
    "bpe_vocab_size": "corpus real: the size of the BPE vocabulary shared by both languages",
    "tokens_per_batch": "padded tokens per side of one optimizer step, over all ranks (the paper: "
    "about 25,000). The step is made of micro-batches of tokens_per_batch / (ranks x "
    "accumulation) tokens, so the number of ranks changes the batches: 2 ranks equal 1 process "
    "with --max-tokens-per-step at half of it, not 1 process with the same --tokens-per-batch",
    "max_tokens_per_step": "the most tokens one device computes at once; a larger share is split "
    "into micro-batches whose gradients are accumulated (none: no limit)",
    "steps": "optimizer steps to train for (a resumed run may raise it)",
    "warmup_steps": "steps of linear learning-rate warm-up before the inverse square-root decay "
    "(paper section 5.3)",
    "lr_factor": "multiplies the whole learning-rate schedule (the paper: 1)",
    "label_smoothing": "the label-smoothing ε of paper section 5.4: the probability moved from the "
    "right token to all tokens, in [0, 1)",
    "clip_norm": "clip the gradients of each step to this global L2 norm (none: no clipping)",
    "dropout": "dropout probability, in [0, 1) (none: the model size's)",
    "n_layers": "encoder and decoder layers, N (none: the model size's)",
    "d_model": "width of the model (none: the model size's)",
    "d_ff": "width of the feed-forward layers (none: the model size's)",
    "n_heads": "attention heads, h (none: the model size's)",
    "d_k": "width of each head's queries and keys (none: d_model / n_heads)",
    "d_v": "width of each head's values (none: d_model / n_heads)",
    "positional": "sinusoidal encodings (the paper) or a learned table (Table 3 row E)",
    "embedding_init": "xavier: the model's own initialisation; normal: embeddings drawn from "
    "N(0, 1/d_model) (none: normal for --corpus real, xavier for --corpus series)",
    "max_positions": "the most positions the model encodes (the size of its positional table)",
    "max_example_len": "corpus real: drop training pairs with a side longer than this many pieces "
    "(none: max_positions - 1, the longest that fits with <s> or </s>)",
    "eval_every": "compute the validation loss every this many steps (and at the last)",
    "checkpoint_every": "write a checkpoint every this many steps (and at the last); a resumed "
    "run loses at most this many",
    "output": "the run folder: config.json, log.csv, checkpoints/",
    "seed": "seed of the weights, the batch order and the dropout masks",
    "precision": "auto: fp32 on a CPU, bf16 autocast on a GPU that has it, else fp16 with a "
    "gradient scaler",
    "device": "auto: a CUDA GPU when there is one, else the CPU",
    "train_pairs": "train on the first pairs of the training split only (none: all)",
    "valid_pairs": "validate on the first pairs of the validation split only (none: all)",
}


def _flag_metavars() -> dict[str, str]:
    from helpers.data.dictionary import TASKS

    choices = {
        "model": tuple(MODEL_SIZES),
        "corpus": CORPORA,
        "task": tuple(TASKS),
        "positional": POSITIONAL,
        "embedding_init": EMBEDDING_INITS,
        "precision": PRECISIONS,
        "device": DEVICES,
    }
    return {name: "{" + ",".join(values) + "}" for name, values in choices.items()}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train",
        description="Train a Transformer on one CPU, one GPU or many (through torchrun). "
        "Subcommand: `python -m helpers.train average RUN_DIR --last 5`.",
        epilog="Ranks: torchrun --nproc_per_node=N starts N ranks, and a step's micro-batches are "
        "shared out between them, so N changes the micro-batch size and with it the batches: "
        "to reproduce a run of N ranks in one process, keep --tokens-per-batch and set "
        "--max-tokens-per-step to tokens_per_batch / N.",
    )
    parser.add_argument(
        "--config", type=Path, help="a JSON or TOML file of the fields below (underscores)"
    )
    defaults = TrainConfig()
    metavars = _flag_metavars()
    for field in dataclasses.fields(TrainConfig):
        if field.type == "bool":
            continue
        default = getattr(defaults, field.name)  # None: the sentence says what none means
        parser.add_argument(
            "--" + field.name.replace("_", "-"),
            type=_flag_type(field),
            default=None,
            metavar=metavars.get(field.name),
            help=FLAG_HELP[field.name] + ("" if default is None else f" (default: {default})"),
        )
    parser.add_argument(
        "--compile",
        action="store_true",
        default=None,
        help="compile the model with torch.compile (off by default): the first steps of each "
        "batch shape compile, which takes minutes on a CPU (it needs a C++ compiler there), and "
        "the dropout masks differ from an uncompiled run's",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        default=None,
        help="continue the latest checkpoint of --output (same flags as the run)",
    )
    parser.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        default=None,
        help="no progress bar (the final summary is still printed)",
    )
    return parser


def parse_config(argv: list[str] | None = None) -> TrainConfig:
    """Defaults, then --config's file, then the flags; validated."""
    args = vars(build_parser().parse_args(argv))
    values = read_config_file(args.pop("config")) if args.get("config") else {}
    args.pop("config", None)
    values.update({name: value for name, value in args.items() if value is not None})
    config = TrainConfig(**values)
    config.validate()
    return config
