"""helpers.paths: the repository's layout in one place, and clear errors without a checkout."""

from pathlib import Path

import pytest

from helpers import paths


def fake_checkout(root: Path) -> Path:
    (root / "notebooks").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return root


def test_this_repository_is_a_checkout():
    assert paths.is_checkout()
    assert paths.is_checkout(paths.ROOT)
    assert paths.NOTEBOOKS_DIR == paths.ROOT / "notebooks"


def test_a_checkout_needs_both_its_notebooks_and_its_pyproject(tmp_path):
    assert not paths.is_checkout(tmp_path)
    (tmp_path / "notebooks").mkdir()
    assert not paths.is_checkout(tmp_path), "notebooks/ alone: not the repository"
    (tmp_path / "pyproject.toml").write_text("")
    assert paths.is_checkout(tmp_path)
    (tmp_path / "notebooks").rmdir()
    assert not paths.is_checkout(tmp_path), "pyproject.toml alone: not the repository"


def test_is_checkout_follows_root(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    assert not paths.is_checkout()
    fake_checkout(tmp_path)
    assert paths.is_checkout()


def test_require_returns_a_path_that_exists(tmp_path):
    path = tmp_path / "weights.pt"
    path.write_bytes(b"")
    assert paths.require(path, "the weights") == path
    assert paths.require(str(tmp_path), "a folder") == tmp_path


def test_require_in_a_checkout_names_what_is_missing_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", fake_checkout(tmp_path / "repo"))
    missing = tmp_path / "repo" / "checkpoints" / "weights.pt"
    with pytest.raises(FileNotFoundError) as error:
        paths.require(missing, "the shipped weights")
    message = str(error.value)
    assert message.startswith(f"the shipped weights not found at {missing}; ")
    assert "git checkout" in message and "clone" not in message
    with pytest.raises(FileNotFoundError, match="rebuild it with `make train`$"):
        paths.require(missing, "the shipped weights", "rebuild it with `make train`")


def test_require_without_a_checkout_says_the_file_ships_with_the_repository(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path / "site-packages")  # an installed package
    missing = tmp_path / "site-packages" / "checkpoints" / "weights.pt"
    for fix in (None, "rebuild it with `make train`"):
        with pytest.raises(FileNotFoundError) as error:
            paths.require(missing, "the shipped weights", fix)
        message = str(error.value)
        assert message.startswith(f"the shipped weights not found at {missing}; ")
        assert "ships with the repository" in message and "clone" in message
        assert "make train" not in message and "git checkout" not in message


@pytest.mark.parametrize(
    ("name", "lesson"),
    [
        ("00_overview.ipynb", True),
        ("15_real_german.ipynb", True),
        ("glossary.ipynb", False),
        ("03_attention.py", False),
        ("3_attention.ipynb", False),
        ("03_Attention.ipynb", False),
        ("03_attention-checkpoint.ipynb", False),
    ],
)
def test_is_lesson(name, lesson):
    assert paths.is_lesson(Path("notebooks") / name) is lesson


def test_numbered_notebooks_are_the_lessons_in_order():
    lessons = paths.numbered_notebooks()
    names = [path.name for path in lessons]
    assert names == sorted(names) and names[0] == "00_overview.ipynb"
    everything = sorted(paths.NOTEBOOKS_DIR.glob("*.ipynb"))
    assert [path for path in everything if path not in lessons] == [
        paths.NOTEBOOKS_DIR / "glossary.ipynb"
    ]


def test_numbered_notebooks_refuses_a_folder_without_lessons(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        paths.numbered_notebooks(tmp_path / "missing")
    (tmp_path / "glossary.ipynb").write_text("{}")
    with pytest.raises(ValueError, match="found none"):
        paths.numbered_notebooks(tmp_path)
