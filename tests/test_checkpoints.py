"""helpers.checkpoints: saving and loading a trained model, and the damage load_checkpoint refuses."""

import json
import re

import pytest
import torch
from shared_models import tiny_transformer

from helpers.checkpoints import file_sha256, load_checkpoint, save_checkpoint
from helpers.model.transformer import Transformer, TransformerConfig
from helpers.text.vocab import Vocab

tiny_model = tiny_transformer


def saved(tmp_path):
    model = tiny_model().eval()
    src_vocab = Vocab([f"de{i}" for i in range(8)])
    tgt_vocab = Vocab([f"en{i}" for i in range(8)])
    folder = save_checkpoint(tmp_path / "ckpt", model, src_vocab, tgt_vocab, {"steps": 3})
    return model, src_vocab, tgt_vocab, folder


def test_checkpoint_round_trip(tmp_path):
    model, src_vocab, tgt_vocab, folder = saved(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["checkpoint.json", "weights.pt"]
    reloaded, src_vocab_2, tgt_vocab_2, metadata = load_checkpoint(folder)
    assert not reloaded.training
    assert reloaded.config == model.config
    assert src_vocab_2.to_list() == src_vocab.to_list()
    assert tgt_vocab_2.to_list() == tgt_vocab.to_list()
    assert metadata == {"steps": 3}
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[2, 7, 8, 9]])
    with torch.no_grad():
        assert torch.equal(reloaded(src, tgt), model(src, tgt))


def test_corrupted_weights_raise(tmp_path):
    _, _, _, folder = saved(tmp_path)
    weights = folder / "weights.pt"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ValueError) as error:
        load_checkpoint(folder)
    assert str(error.value) == (
        "directory: weights.pt does not match the SHA-256 in checkpoint.json (corrupt or replaced)"
    )


@pytest.mark.parametrize("name", ["weights.pt", "checkpoint.json"])
def test_missing_file_raises(tmp_path, name):
    _, _, _, folder = saved(tmp_path)
    (folder / name).unlink()
    with pytest.raises(FileNotFoundError) as error:
        load_checkpoint(folder)
    assert str(error.value) == f"directory: ckpt/ has no {name}"


def test_damaged_json_raises(tmp_path):
    _, _, _, folder = saved(tmp_path)
    (folder / "checkpoint.json").write_text("{not json")
    with pytest.raises(ValueError) as error:
        load_checkpoint(folder)
    assert str(error.value).startswith(
        "directory: ckpt/checkpoint.json is damaged (JSONDecodeError: Expecting property name"
    )


class _Payload:
    def __reduce__(self):
        return (exec, ("raise RuntimeError('pickled code ran')",))


def test_load_refuses_pickled_code(tmp_path):
    """Weights that name a Python function are refused, even with a matching SHA-256."""
    _, _, _, folder = saved(tmp_path)
    weights = folder / "weights.pt"
    torch.save({"payload": _Payload()}, weights)
    description = json.loads((folder / "checkpoint.json").read_text())
    description["weights_sha256"] = file_sha256(weights)
    (folder / "checkpoint.json").write_text(json.dumps(description))
    with pytest.raises(ValueError) as error:
        load_checkpoint(folder)
    assert str(error.value) == (
        "directory: weights.pt holds pickled Python objects, not only tensors: refused without "
        "running them"
    )


def rewrite_description(folder, change) -> None:
    description = json.loads((folder / "checkpoint.json").read_text())
    change(description)
    (folder / "checkpoint.json").write_text(json.dumps(description))


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut in the middle
        lambda data: data[:100],  # only the start of the zip archive
        lambda data: b"",  # empty
        lambda data: bytes(range(256)) * 4,  # not a file torch.save wrote
    ],
    ids=["half", "100 bytes", "empty", "garbage"],
)
def test_damaged_weights_with_a_matching_sha_raise_value_error(tmp_path, damage):
    """A damaged weights.pt whose SHA-256 was recorded after the damage: ValueError, not torch's."""
    _, _, _, folder = saved(tmp_path)
    weights = folder / "weights.pt"
    damaged = damage(weights.read_bytes())
    weights.write_bytes(damaged)
    rewrite_description(folder, lambda d: d.update(weights_sha256=file_sha256(weights)))
    with pytest.raises(ValueError) as error:
        load_checkpoint(folder)
    # The reason: the type of what torch raised and the first line of its message (an empty file
    # gives an EOFError with none).
    reason = r"[A-Z]\w+: [^\n]+" if damaged else "EOFError"
    assert re.fullmatch(rf"directory: weights\.pt is damaged \({reason}\)", str(error.value))
    assert "NoneType" not in str(error.value)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.pop("config"), "checkpoint.json is damaged"),
        (lambda d: d["config"].update(d_model="wide"), "d_model: expected a positive int"),
        (lambda d: d.pop("weights_sha256"), "checkpoint.json is damaged"),
        (
            lambda d: d["src_vocab"].pop(),
            "ckpt/checkpoint.json has a src_vocab of 11 tokens with pad id 0; its config expects "
            "12 tokens with pad id 0",
        ),
        (
            lambda d: d["tgt_vocab"].append("en_extra"),
            "ckpt/checkpoint.json has a tgt_vocab of 13 tokens with pad id 0; its config expects "
            "12 tokens with pad id 0",
        ),
        (
            lambda d: d["config"].update(pad_id=1),
            "src_vocab of 12 tokens with pad id 0; its config expects 12 tokens with pad id 1",
        ),
        (lambda d: d["src_vocab"].insert(4, 7), "checkpoint.json is damaged"),
    ],
)
def test_an_inconsistent_description_raises_value_error_naming_it(tmp_path, change, words):
    _, _, _, folder = saved(tmp_path)
    rewrite_description(folder, change)
    with pytest.raises(ValueError, match=re.escape(words)):
        load_checkpoint(folder)


def test_weights_of_another_config_raise_value_error(tmp_path):
    _, _, _, folder = saved(tmp_path)
    other = Transformer(TransformerConfig(12, 12, d_model=16, n_heads=2, d_ff=32, n_layers=2))
    torch.save(other.state_dict(), folder / "weights.pt")
    rewrite_description(
        folder, lambda d: d.update(weights_sha256=file_sha256(folder / "weights.pt"))
    )
    with pytest.raises(ValueError, match="does not hold this config's weights"):
        load_checkpoint(folder)


def test_load_checkpoint_and_load_pretrained_return_the_same_kind_of_thing(tmp_path):
    from helpers.pretrained import load_pretrained

    _, _, _, folder = saved(tmp_path)
    mine, shipped = load_checkpoint(folder), load_pretrained()
    assert type(mine) is type(shipped)
    assert mine._fields == ("model", "src_vocab", "tgt_vocab", "metadata")


def test_checkpoint_json_is_readable_and_keeps_non_ascii_text(tmp_path):
    model = tiny_model().eval()
    src_vocab = Vocab([f"de{i}" for i in range(7)] + ["möchte"])
    tgt_vocab = Vocab([f"en{i}" for i in range(8)])
    folder = save_checkpoint(tmp_path / "a" / "b", model, src_vocab, tgt_vocab, {"note": "ü"})
    text = (folder / "checkpoint.json").read_bytes().decode("utf-8")
    description = json.loads(text)
    assert text == json.dumps(description, indent=1, ensure_ascii=False) + "\n"
    assert "möchte" in text and '"note": "ü"' in text
    assert load_checkpoint(folder).src_vocab.to_list() == src_vocab.to_list()


def test_load_checkpoint_refuses_extra_weights(tmp_path):
    _, _, _, folder = saved(tmp_path)
    state = torch.load(folder / "weights.pt", weights_only=True)
    torch.save(state | {"extra.weight": torch.zeros(1)}, folder / "weights.pt")
    rewrite_description(
        folder, lambda d: d.update(weights_sha256=file_sha256(folder / "weights.pt"))
    )
    with pytest.raises(ValueError) as error:
        load_checkpoint(folder)
    assert str(error.value).startswith(
        "directory: weights.pt does not hold this config's weights (Error(s) in loading"
    )


def test_helpers_exports_the_checkpoint_functions_of_helpers_checkpoints():
    import helpers

    assert helpers.save_checkpoint is save_checkpoint
    assert helpers.load_checkpoint is load_checkpoint
