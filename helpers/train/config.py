"""What one training run is: model size, corpus, batch size, schedule, precision, folders.

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

from helpers.language import tr
from helpers.model.transformer import TransformerConfig

# The paper's Table 3 "base" and "big" rows; "small" is the series' shipped model
# (helpers.pretrained.RECIPE); "tiny" is for tests.
MODEL_SIZES: dict[str, dict[str, int | float]] = {
    "tiny": {"d_model": 32, "n_heads": 2, "d_ff": 64, "n_layers": 1, "dropout": 0.1},
    "small": {"d_model": 128, "n_heads": 4, "d_ff": 512, "n_layers": 3, "dropout": 0.1},
    "base": {"d_model": 512, "n_heads": 8, "d_ff": 2048, "n_layers": 6, "dropout": 0.1},
    "big": {"d_model": 1024, "n_heads": 16, "d_ff": 4096, "n_layers": 6, "dropout": 0.3},
}
CORPORA = ("series", "real")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
DEVICES = ("auto", "cpu", "cuda")

# Fields that may change between a run and its --resume: they do not change what is computed.
CHANGEABLE_ON_RESUME = frozenset(
    {"steps", "eval_every", "checkpoint_every", "output", "resume", "stop_after", "progress"}
)


@dataclass
class TrainConfig:
    """One training run. Sizes left at None come from ``model`` (MODEL_SIZES).

    tokens_per_batch: the padded tokens (batch x longest sequence, per side) of one optimizer
    step over all ranks; the paper's batches held about 25,000 source and 25,000 target tokens.
    max_tokens_per_step: the most one device computes at once; when tokens_per_batch / ranks is
    larger, the step is split into micro-batches whose gradients are accumulated.
    stop_after: kill the process (SIGKILL) after this step, to test --resume.
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
    dropout: float | None = None
    n_layers: int | None = None
    d_model: int | None = None
    d_ff: int | None = None
    n_heads: int | None = None
    d_k: int | None = None
    d_v: int | None = None
    positional: str = "sinusoidal"
    max_len: int = 256
    eval_every: int = 1_000
    checkpoint_every: int = 1_000
    output: str = "runs/default"
    seed: int = 0
    precision: str = "auto"
    device: str = "auto"
    train_pairs: int | None = None
    valid_pairs: int | None = None
    stop_after: int | None = None
    resume: bool = False
    progress: bool = True

    def validate(self) -> None:
        """Raise ValueError naming the first field that cannot make a run."""
        choices = {
            "model": tuple(MODEL_SIZES),
            "corpus": CORPORA,
            "precision": PRECISIONS,
            "device": DEVICES,
            "positional": ("sinusoidal", "learned"),
        }
        for name, allowed in choices.items():
            value = getattr(self, name)
            if value not in allowed:
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
        positive = ["tokens_per_batch", "steps", "warmup_steps", "max_len", "eval_every"]
        positive += ["checkpoint_every", "bpe_vocab_size"]
        optional_positive = ["max_tokens_per_step", "n_layers", "d_model", "d_ff", "n_heads"]
        optional_positive += ["d_k", "d_v", "train_pairs", "valid_pairs", "stop_after"]
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

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

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
            max_len=self.max_len,
            pad_id=pad_id,
            **sizes,
        )
        config.validate()
        return config


def _optional_int(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def _flag_type(field: dataclasses.Field):
    annotation = str(field.type)
    if annotation == "int":
        return int
    if annotation == "int | None":
        return _optional_int
    if annotation.startswith("float"):
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
    known = {field.name for field in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            tr("config: expected keys among {known}; got unknown {unknown}").format(
                known=", ".join(sorted(known)), unknown=", ".join(unknown)
            )
        )
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train",
        description="Train a Transformer on one CPU, one GPU or many (through torchrun). "
        "Subcommand: `python -m helpers.train average RUN_DIR --last 5`.",
    )
    parser.add_argument("--config", type=Path, help="a JSON or TOML file of the fields below")
    defaults = TrainConfig()
    for field in dataclasses.fields(TrainConfig):
        flag = "--" + field.name.replace("_", "-")
        if field.type == "bool":
            continue
        parser.add_argument(
            flag,
            type=_flag_type(field),
            default=None,
            help=f"(default: {getattr(defaults, field.name)})",
        )
    parser.add_argument(
        "--resume",
        action="store_true",
        default=None,
        help="continue the latest checkpoint of --output",
    )
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", default=None, help="no progress bar"
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
