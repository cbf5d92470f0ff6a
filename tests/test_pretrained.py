"""The shipped German→English model: it loads, it is what its metadata says, and it translates."""

import json
import shutil

import pytest

from helpers import paths
from helpers.checkpoints import file_sha256
from helpers.data.corpus import load_corpus
from helpers.decoding.search import translate
from helpers.evaluation.bleu import corpus_bleu
from helpers.pretrained import CHECKPOINT_DIR, RECIPE, load_pretrained, pretrained_metadata


def test_the_checkpoint_is_small_and_its_hash_matches():
    weights = CHECKPOINT_DIR / "weights.pt"
    assert weights.stat().st_size < 10_000_000, "a few MB, so the repository clones fast"
    description = json.loads((CHECKPOINT_DIR / "checkpoint.json").read_text())
    assert description["weights_sha256"] == file_sha256(weights)


def test_metadata_records_the_recipe_and_meets_the_targets():
    metadata = pretrained_metadata()
    assert metadata["recipe"] == RECIPE, "the shipped weights were trained with the current recipe"
    assert metadata["test_bleu_greedy"] >= 95
    assert metadata["test_unseen_bleu_greedy"] >= 90
    assert metadata["rebuild_command"] == "make train"


def test_the_loaded_model_translates_the_toy_pair(shipped):
    model, src_vocab, tgt_vocab = shipped
    assert not model.training
    assert translate(model, ["ich möchte ein bier"], src_vocab, tgt_vocab) == ["i want a beer"]


def test_greedy_bleu_on_part_of_the_test_split_is_high(shipped):
    model, src_vocab, tgt_vocab = shipped
    pairs = load_corpus("test")[:300]
    hypotheses = translate(model, [german for german, _ in pairs], src_vocab, tgt_vocab)
    assert corpus_bleu(hypotheses, [english for _, english in pairs]) >= 90


def test_a_missing_checkpoint_names_the_command_that_rebuilds_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint.json not found .*`make train`"):
        load_pretrained(tmp_path)
    with pytest.raises(FileNotFoundError, match="checkpoint.json not found .*`make train`"):
        pretrained_metadata(tmp_path)
    shutil.copyfile(CHECKPOINT_DIR / "checkpoint.json", tmp_path / "checkpoint.json")
    assert pretrained_metadata(tmp_path) == pretrained_metadata()
    with pytest.raises(FileNotFoundError, match="weights.pt not found .*`make train`"):
        load_pretrained(tmp_path)


def test_without_a_checkout_a_missing_checkpoint_says_it_ships_with_the_repository(
    tmp_path, monkeypatch
):
    # Installed without a checkout: the package's parent folder holds no notebooks/ and no
    # pyproject.toml, and `make train` is not there to run.
    monkeypatch.setattr(paths, "ROOT", tmp_path / "site-packages")
    for call in (load_pretrained, pretrained_metadata):
        with pytest.raises(FileNotFoundError) as error:
            call(tmp_path / "de_en_small")
        assert "ships with the repository" in str(error.value)
        assert "make train" not in str(error.value)


def test_a_corrupt_checkpoint_names_the_command_that_rebuilds_it(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(CHECKPOINT_DIR, copy)
    weights = copy / "weights.pt"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="make train"):
        load_pretrained(copy)
    (copy / "checkpoint.json").write_text("{not json")
    with pytest.raises(ValueError, match="make train"):
        load_pretrained(copy)


def test_without_a_checkout_a_corrupt_checkpoint_says_it_ships_with_the_repository(
    tmp_path, monkeypatch
):
    copy = tmp_path / "copy"
    shutil.copytree(CHECKPOINT_DIR, copy)
    (copy / "checkpoint.json").write_text("{not json")
    monkeypatch.setattr(paths, "ROOT", tmp_path / "site-packages")
    with pytest.raises(ValueError, match="cannot be loaded") as error:
        load_pretrained(copy)
    assert "ships with the repository" in str(error.value)
    assert "make train" not in str(error.value)
