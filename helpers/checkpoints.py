"""Saving and loading a trained model: weights, configuration and vocabularies in one folder.

Hand-written (notebook 11 uses it in a deep dive; notebooks 12-15, ``helpers.pretrained`` and
``helpers.train`` read and write checkpoints with it). A checkpoint folder holds ``weights.pt``
(the state dict, by ``torch.save``) and ``checkpoint.json`` (configuration, vocabularies, metadata
and the SHA-256 of ``weights.pt``). ``load_checkpoint`` refuses weights whose hash does not match
and reads them with ``torch.load(weights_only=True)``, which runs no pickled code.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import NamedTuple

import torch

from helpers.language import tr
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.text.vocab import Vocab

# Fields renamed since older checkpoints and runs were written (issue 25): old name -> new name.
RENAMED_FIELDS = {"max_len": "max_positions"}


def with_current_names(fields: dict) -> dict:
    """A stored config with the fields of RENAMED_FIELDS under their current names."""
    return {RENAMED_FIELDS.get(name, name): value for name, value in fields.items()}


def file_sha256(path: Path) -> str:
    """The SHA-256 hash of a file's bytes, as 64 hex digits."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_checkpoint(
    directory: Path,
    model: Transformer,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    metadata: dict | None = None,
) -> Path:
    """Write ``weights.pt`` (the state dict) and ``checkpoint.json`` (config, vocabularies, metadata)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    weights = directory / "weights.pt"
    torch.save(model.state_dict(), weights)
    description = {
        "config": model.config.to_dict(),
        "src_vocab": src_vocab.to_list(),
        "tgt_vocab": tgt_vocab.to_list(),
        "weights_sha256": file_sha256(weights),
        "metadata": metadata or {},
    }
    text = json.dumps(description, indent=1, ensure_ascii=False) + "\n"
    (directory / "checkpoint.json").write_text(text, encoding="utf-8")
    return directory


def _reason(error: BaseException) -> str:
    """``TypeName: what went wrong``, in one line, for an error that ends up inside a ValueError."""
    text = str(error)
    text = text.partition("WeightsUnpickler error:")[2] or text  # torch's weights-only reason
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


class Checkpoint(NamedTuple):
    """What load_checkpoint returns: unpack it as ``model, src_vocab, tgt_vocab, metadata``."""

    model: Transformer
    src_vocab: Vocab
    tgt_vocab: Vocab
    metadata: dict


def load_checkpoint(directory: Path, device: torch.device | str = "cpu") -> Checkpoint:
    """The inverse of save_checkpoint: the model (in eval mode), its vocabularies and metadata.

    Weights are read with ``torch.load(weights_only=True)``, which refuses to run pickled code,
    and checked against the SHA-256 recorded next to them. The vocabularies must match the config
    (sizes and pad id). A missing file raises FileNotFoundError; a damaged or inconsistent one,
    ValueError naming what is wrong.
    """
    directory = Path(directory)
    for name in ("checkpoint.json", "weights.pt"):
        if not (directory / name).is_file():
            raise FileNotFoundError(
                tr("directory: {directory}/ has no {name}").format(
                    directory=directory.name, name=name
                )
            )
    try:
        description = json.loads((directory / "checkpoint.json").read_text(encoding="utf-8"))
        config = TransformerConfig(**with_current_names(description["config"]))
        expected_sha256 = description["weights_sha256"]
        vocabularies = (
            Vocab.from_list(description["src_vocab"]),
            Vocab.from_list(description["tgt_vocab"]),
        )
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise ValueError(
            tr("directory: {directory}/checkpoint.json is damaged ({error_type}: {error})").format(
                directory=directory.name, error_type=type(error).__name__, error=error
            )
        ) from error
    for name, vocab, size in zip(
        ("src_vocab", "tgt_vocab"),
        vocabularies,
        (config.src_vocab_size, config.tgt_vocab_size),
        strict=True,
    ):
        if len(vocab) != size or vocab.pad_id != config.pad_id:
            raise ValueError(
                tr(
                    "directory: {directory}/checkpoint.json has a {name} of {tokens} tokens with "
                    "pad id {pad_id}; its config expects {size} tokens with pad id {config_pad_id}"
                ).format(
                    directory=directory.name,
                    name=name,
                    tokens=len(vocab),
                    pad_id=vocab.pad_id,
                    size=size,
                    config_pad_id=config.pad_id,
                )
            )
    weights = directory / "weights.pt"
    if file_sha256(weights) != expected_sha256:
        raise ValueError(
            tr(
                "directory: {weights} does not match the SHA-256 in checkpoint.json "
                "(corrupt or replaced)"
            ).format(weights=weights.name)
        )
    model = Transformer(config)
    try:
        state = torch.load(weights, map_location=device, weights_only=True)
    except pickle.UnpicklingError as error:
        if "Unsupported global" in str(error):  # the file names a Python function or class
            raise ValueError(
                tr(
                    "directory: {weights} holds pickled Python objects, not only tensors: "
                    "refused without running them"
                ).format(weights=weights.name)
            ) from error
        raise ValueError(
            tr("directory: {weights} is damaged ({reason})").format(
                weights=weights.name, reason=_reason(error)
            )
        ) from error
    except (RuntimeError, EOFError, OSError, KeyError) as error:
        # A truncated or overwritten file, whose SHA-256 was recorded after the damage.
        raise ValueError(
            tr("directory: {weights} is damaged ({reason})").format(
                weights=weights.name, reason=_reason(error)
            )
        ) from error
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        raise ValueError(
            tr("directory: {weights} does not hold this config's weights ({reason})").format(
                weights=weights.name, reason=str(error).splitlines()[0]
            )
        ) from error
    return Checkpoint(model.to(device).eval(), *vocabularies, description.get("metadata", {}))
