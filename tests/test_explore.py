"""The explorers: the logic behind each control, and the controls driving it as a student would."""

import math

import matplotlib
import pytest
import torch

from helpers.explore.masks import explore_masks, masks_view
from helpers.explore.positions import explore_positions, positions_view
from helpers.explore.schedule import explore_schedule, schedule_view
from helpers.model.embeddings import sinusoidal_table
from helpers.training.transformer import warmup_lambda

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
    view = schedule_view(d_model=512, warmup_steps=4000, lr_factor=2.0, steps=10000)
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
    [
        ({"lr_factor": 0.0}, "lr_factor"),
        ({"steps": 0}, "steps"),
        ({"warmup_steps": 0}, "warmup_steps"),
    ],
)
def test_schedule_view_names_a_bad_setting(changes, argument):
    settings = {"d_model": 512, "warmup_steps": 4000, "lr_factor": 1.0, "steps": 100, **changes}
    with pytest.raises(ValueError, match=argument):
        schedule_view(**settings)


# ---------------------------------------------------------------- a trained model's attention


def test_attention_view_is_the_model_reading_its_own_translation(shipped):
    from helpers.explore.attention import AttentionSource, attention_view

    model, src_vocab, tgt_vocab = shipped
    source = AttentionSource(model, src_vocab, tgt_vocab)
    view = attention_view(source, "die lehrerin kann ein wasser trinken", "cross", 1, 2)
    assert view["translation"] == "the teacher can drink a water"
    assert view["unknown"] == []
    src = torch.tensor([src_vocab.encode("die lehrerin kann ein wasser trinken")])
    tgt = torch.tensor([[tgt_vocab.bos_id, *tgt_vocab.encode(view["translation"].split())]])
    with torch.no_grad():
        _, weights = model.forward_with_weights(src, tgt)
    torch.testing.assert_close(view["chosen"], weights.decoder_cross[1][0, 2])
    assert (len(view["queries"]), len(view["keys"])) == tuple(view["chosen"].shape)
    # A decoder row is labelled by the token predicted there: the translation, then </s>.
    assert view["queries"] == [*view["translation"].split(), "</s>"]


def test_the_description_names_where_each_row_looks(shipped):
    from helpers.explore.attention import AttentionSource, attention_view, describe_attention

    source = AttentionSource(*shipped)
    sentence = "die lehrerin kann ein wasser trinken"
    last_layer = attention_view(source, sentence, "cross", 2, "all")
    assert describe_attention(last_layer).splitlines()[-1] == (
        "each row looks most at (mean of all heads): the→die, teacher→lehrerin, can→kann, "
        "drink→trinken, a→ein, water→wasser, </s>→trinken"
    )
    one_head = describe_attention(attention_view(source, sentence, "decoder self", 2, 0))
    assert "(head 0)" in one_head and "the→<s>" in one_head  # the first row sees only <s>
    long = attention_view(source, "wo ist der bahnhof", "cross", 2, "all")
    assert len(long["queries"]) > 12
    assert describe_attention(long).endswith(f"... ({len(long['queries']) - 12} more)")


def test_moving_the_attention_controls_redraws_what_the_view_returns(shipped):
    from helpers.explore.attention import explore_attention

    explorer = explore_attention(*shipped, show=False)
    data = explorer.update(kind="encoder self", layer=0, head="all")
    assert data["chosen"].shape == (4, 6, 6)  # all heads, source x source
    data = explorer.update(sentence="wo ist der bahnhof", kind="decoder self", head=1)
    assert data["unknown"] == ["wo", "ist", "bahnhof"]
    assert "words the model does not know: wo, ist, bahnhof" in explorer.last_text
    assert data["chosen"].shape == (len(data["tgt_tokens"]),) * 2


def test_attention_view_names_a_bad_setting(shipped):
    from helpers.explore.attention import AttentionSource, attention_view

    source = AttentionSource(*shipped)
    for settings, name in [
        ({"kind": "diagonal"}, "kind"),
        ({"layer": 3}, "layer"),
        ({"head": 4}, "head"),
    ]:
        arguments = {"sentence": "der mann", "kind": "cross", "layer": 0, "head": 0, **settings}
        with pytest.raises(ValueError, match=name):
            attention_view(source, **arguments)
    with pytest.raises(ValueError, match="sentence"):
        attention_view(source, "  ", "cross", 0, 0)


# ---------------------------------------------------------------- decoding, step by step


def test_the_decoding_steps_are_the_search_that_translate_runs(shipped):
    from helpers.decoding.search import translate
    from helpers.explore.decoding import DecodingSource, decoding_view

    model, src_vocab, tgt_vocab = shipped
    sentence = "ihr kauft ein , weil wir aufstehen"
    source = DecodingSource(model, src_vocab, tgt_vocab)
    last = decoding_view(source, sentence, beam_size=4, alpha=0.6, step=99)
    assert last["translation"] == translate(model, [sentence], src_vocab, tgt_vocab, beam_size=4)[0]
    first = decoding_view(source, sentence, beam_size=4, alpha=0.6, step=0)
    fates = [fate for *_, fate in first["candidates"]]
    assert fates.count("live") == 4 and len(fates) == 8
    totals = [total for *_, total, _ in first["candidates"]]
    assert totals == sorted(totals, reverse=True)  # best first
    assert float(first["attention"].sum()) == pytest.approx(1.0, abs=1e-5)
    greedy = decoding_view(source, sentence, beam_size=1, alpha=0.0, step=99)
    assert greedy["translation"] == translate(model, [sentence], src_vocab, tgt_vocab)[0]


def test_stepping_the_decoder_redraws_each_step(shipped):
    from helpers.explore.decoding import explore_decoding

    explorer = explore_decoding(*shipped, show=False)
    # The first view is a step where the search has already branched, not step 0.
    assert explorer.controls["step"].value == 3
    pictures = set()
    for step in range(3):
        explorer.update(step=step)
        assert explorer.last_text.startswith(f"step {step}:")
        pictures.add(explorer.last_png)
    assert len(pictures) == 3
    assert explorer.controls["step"].max == explorer.last_data["n_steps"] - 1


def test_the_readout_shows_the_score_that_alpha_changes(shipped):
    """A finished hypothesis is ranked by log P / lp(|Y|): the readout prints that score, so that
    moving alpha changes what the student reads, not only what the search does."""
    from helpers.decoding.search import length_penalty
    from helpers.explore.decoding import DecodingSource, decoding_view, describe_decoding

    source = DecodingSource(*shipped)
    sentence = "ihr kauft ein , weil wir aufstehen"
    texts = {}
    for alpha in (0.0, 0.6, 2.0):
        # Step 7: "you go shopping because we get up </s>" finishes (8 tokens).
        view = decoding_view(source, sentence, beam_size=4, alpha=alpha, step=7)
        finished = [
            (candidate, score)
            for candidate, score in zip(view["candidates"], view["scores"], strict=True)
            if candidate[-1] == "finished"
        ]
        assert [c[0] + " " + c[1] for c, _ in finished] == [
            "you go shopping because we get up </s>"
        ]
        (_, _, _, total, _), score = finished[0]
        assert score == pytest.approx(total / length_penalty(8, alpha))
        assert all(s is None for c, s in zip(view["candidates"], view["scores"], strict=True)
                   if c[-1] != "finished")  # fmt: skip
        # The search's own record of finished hypotheses holds the same score, and is best first.
        assert view["finished"][0] == (
            "you go shopping because we get up </s>",
            pytest.approx(score),
        )
        assert [s for _, s in view["finished"]] == sorted(
            (s for _, s in view["finished"]), reverse=True
        )
        text = describe_decoding(view)
        assert f"finished, score = total / lp(8) = {score:.3f}" in text
        assert (
            f"finished so far, best score first: you go shopping because we get up </s> ({score:.3f})"
            in text
        )
        texts[alpha] = text
    assert len(set(texts.values())) == 3, "moving alpha must change the printed scores"
    assert "-1.330" in texts[0.0]  # alpha = 0: lp = 1, the score is the total log-probability
