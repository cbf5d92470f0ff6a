"""The explorers: the logic behind each control, and the controls driving it as a student would."""

import math

import matplotlib
import pytest
import torch

from helpers.explore.masks import explore_masks, masks_view
from helpers.explore.positions import explore_positions, positions_view
from helpers.explore.schedule import explore_schedule, schedule_view
from helpers.model.embeddings import sinusoidal_table
from helpers.pipeline.training import warmup_lambda

matplotlib.use("Agg")


# ---------------------------------------------------------------- positions


def test_positions_view_is_the_sinusoidal_table_and_its_dot_products():
    view = positions_view(d_model=16, positions=20, pair=3, offset=4)
    table = sinusoidal_table(20, 16).double()
    torch.testing.assert_close(view["table"], table)
    torch.testing.assert_close(view["dot_products"], table @ table.T)
    torch.testing.assert_close(view["sin"], table[:, 6])
    torch.testing.assert_close(view["cos"], table[:, 7])
    assert view["frequency"] == pytest.approx(10000 ** (-6 / 16))


@pytest.mark.parametrize(("pair", "offset"), [(0, 1), (3, 7), (7, 19)])
def test_the_offset_rotation_maps_each_position_to_the_shifted_one(pair, offset):
    view = positions_view(d_model=16, positions=20, pair=pair, offset=offset)
    rotation = view["rotation"]
    assert view["rotation_error"] < 1e-5
    torch.testing.assert_close(rotation @ rotation.T, torch.eye(2, dtype=torch.float64))
    angle = view["frequency"] * offset
    assert float(rotation[0, 0]) == pytest.approx(math.cos(angle))


@pytest.mark.parametrize(
    ("changes", "argument"),
    [
        ({"d_model": 15}, "d_model"),
        ({"pair": 8}, "pair"),
        ({"offset": 20}, "offset"),
        ({"positions": 1}, "positions"),
    ],
)
def test_positions_view_names_a_bad_setting(changes, argument):
    settings = {"d_model": 16, "positions": 20, "pair": 3, "offset": 4, **changes}
    with pytest.raises(ValueError, match=argument):
        positions_view(**settings)


def test_moving_the_positions_sliders_redraws_what_the_view_returns():
    explorer = explore_positions(show=False)
    first_png = explorer.last_png
    data = explorer.update(d_model=32, pair=9, offset=3)
    expected = positions_view(d_model=32, positions=50, pair=9, offset=3)
    torch.testing.assert_close(data["table"], expected["table"])
    assert "pair i=9" in explorer.last_text
    assert explorer.last_png != first_png and explorer.last_png.startswith(b"\x89PNG")


def test_a_smaller_d_model_pulls_the_pair_slider_into_range():
    explorer = explore_positions(d_model=64, pair=30, show=False)
    explorer.update(d_model=16)
    assert explorer.controls["pair"].value <= 7
    assert explorer.last_data["pair"] == explorer.controls["pair"].value


def test_update_refuses_an_unknown_control():
    with pytest.raises(ValueError, match="changes"):
        explore_positions(show=False).update(width=3)


# ---------------------------------------------------------------- masks


@pytest.mark.parametrize(
    ("src_len", "tgt_len", "src_pad", "tgt_pad"), [(6, 5, 2, 1), (1, 1, 0, 0), (4, 7, 3, 6)]
)
def test_masks_view_hides_padding_keys_and_the_future(src_len, tgt_len, src_pad, tgt_pad):
    view = masks_view(src_len, tgt_len, src_pad, tgt_pad)
    src_real = torch.arange(src_len) < src_len - src_pad
    tgt_real = torch.arange(tgt_len) < tgt_len - tgt_pad
    future = torch.arange(tgt_len)[None, :] > torch.arange(tgt_len)[:, None]
    assert torch.equal(view["masks"]["encoder self"], src_real.expand(src_len, src_len))
    assert torch.equal(view["masks"]["cross"], src_real.expand(tgt_len, src_len))
    assert torch.equal(view["masks"]["decoder self"], tgt_real[None, :] & ~future)
    for kind, mask in view["masks"].items():
        weights = view["weights"][kind]
        assert torch.all(weights[~mask] == 0), kind
        torch.testing.assert_close(weights.sum(-1), torch.ones(mask.shape[0]))


def test_masks_view_names_too_much_padding():
    with pytest.raises(ValueError, match="tgt_pad"):
        masks_view(4, 3, 0, 3)


def test_moving_the_mask_sliders_redraws_what_the_view_returns():
    explorer = explore_masks(show=False)
    data = explorer.update(src_len=8, src_pad=5)
    assert torch.equal(data["masks"]["cross"], masks_view(8, 5, 5, 1)["masks"]["cross"])
    assert "cross         allowed pairs  15/40" in explorer.last_text


# ---------------------------------------------------------------- schedule


def test_schedule_view_follows_the_paper_and_peaks_at_the_warmup_step():
    view = schedule_view(d_model=512, warmup_steps=4000, factor=2.0, steps=10000)
    rate = warmup_lambda(512, 4000)
    assert view["rates"][0] == pytest.approx(2.0 * rate(0))
    assert view["rates"][9999] == pytest.approx(2.0 * rate(9999))
    assert view["peak_step"] == 4000
    assert view["peak_rate"] == pytest.approx(2.0 * (512 * 4000) ** -0.5)


def test_moving_the_schedule_sliders_moves_the_peak():
    explorer = explore_schedule(show=False)
    explorer.update(warmup_steps=1000, d_model=128)
    assert explorer.last_data["peak_step"] == 1000
    assert explorer.last_text == f"peak learning rate {(128 * 1000) ** -0.5:.6f} at step 1000"


@pytest.mark.parametrize(
    ("changes", "argument"),
    [({"factor": 0.0}, "factor"), ({"steps": 0}, "steps"), ({"warmup_steps": 0}, "warmup_steps")],
)
def test_schedule_view_names_a_bad_setting(changes, argument):
    settings = {"d_model": 512, "warmup_steps": 4000, "factor": 1.0, "steps": 100, **changes}
    with pytest.raises(ValueError, match=argument):
        schedule_view(**settings)
