"""The architecture figure of notebook 00 (helpers/display/diagrams.py), checked through its data.

Pixels are not compared: the boxes, arrows and texts the drawing places are read back from the
axes and must be those of the paper's Figure 1.
"""

import re
from collections import Counter

import matplotlib.pyplot as plt
import pytest
from matplotlib import path as mpath

from helpers.display.diagrams import draw_arrow, draw_box, draw_transformer


@pytest.fixture(scope="module")
def drawing():
    fig, boxes = draw_transformer()
    yield fig, fig.axes[0], boxes
    plt.close(fig)


def patches_with_gid(ax, gid):
    return [patch for patch in ax.patches if patch.get_gid() == gid]


def points_of(patch):
    """The vertices of an arrow's path, in data units (arrow head included)."""
    path = patch.get_path()
    return path.vertices[path.codes != mpath.Path.CLOSEPOLY]


def touches_bottom_of(patch, box):
    # The head stops about 0.01 short of its point so that its outline ends there.
    return any(
        box.get_x() <= x <= box.get_x() + box.get_width() and abs(y - box.get_y()) < 0.03
        for x, y in points_of(patch)
    )


def test_the_boxes_are_those_of_figure_1(drawing):
    _, ax, _ = drawing
    drawn = Counter(
        patch.get_gid().removeprefix("box:")
        for patch in ax.patches
        if (patch.get_gid() or "").startswith("box:")
    )
    assert drawn == {
        "embedding": 2,  # input and output embedding
        "attention": 3,  # encoder self, decoder masked self, decoder cross
        "add_norm": 5,  # one per sublayer: 2 in the encoder layer, 3 in the decoder layer
        "feed_forward": 2,
        "linear": 1,
        "softmax": 1,
    }


def test_the_encoder_and_decoder_layers_are_framed_and_every_box_is_on_the_canvas(drawing):
    _, ax, _ = drawing
    assert len(patches_with_gid(ax, "frame")) == 2
    boxes = [p for p in ax.patches if (p.get_gid() or "").startswith("box:")]
    for box in boxes:
        assert box.get_x() >= 0 and box.get_x() + box.get_width() <= 10
        assert box.get_y() >= 0 and box.get_y() + box.get_height() <= 10.8
    # No two boxes overlap.
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart_x = (
                a.get_x() + a.get_width() <= b.get_x() or b.get_x() + b.get_width() <= a.get_x()
            )
            apart_y = (
                a.get_y() + a.get_height() <= b.get_y() or b.get_y() + b.get_height() <= a.get_y()
            )
            assert apart_x or apart_y, (a.get_gid(), b.get_gid())


def test_every_notebook_from_01_to_10_is_named(drawing):
    _, ax, _ = drawing
    texts = " ".join(text.get_text() for text in ax.texts)
    named = set(re.findall(r"\b(\d\d) ·", texts))
    assert {f"{number:02d}" for number in range(1, 11)} <= named


def test_one_residual_connection_per_sublayer_rejoins_at_its_add_and_norm(drawing):
    _, ax, boxes = drawing
    residuals = patches_with_gid(ax, "residual")
    assert len(residuals) == 5
    norms = [box for name, box in boxes.items() if name.endswith("/ add & norm")]
    # The two "Feed forward" sublayers share a name, so the dict holds 4 of the 5 norms.
    assert len(norms) == 4
    for norm in norms:
        centre_y = norm.get_y() + norm.get_height() / 2
        assert any(abs(points_of(arrow)[-1][1] - centre_y) < 0.03 for arrow in residuals)


def test_the_memory_goes_from_the_encoder_into_the_cross_attention(drawing):
    _, ax, boxes = drawing
    memory = patches_with_gid(ax, "memory")
    assert len(memory) == 2, "one arrow for the keys, one for the values"
    cross = boxes["Multi-head cross-attention"]
    assert all(touches_bottom_of(arrow, cross) for arrow in memory)
    # It starts on the encoder's column, left of the decoder.
    encoder_attention = boxes["Multi-head self-attention"]
    start_x = points_of(memory[0])[0][0]
    assert (
        encoder_attention.get_x()
        <= start_x
        <= encoder_attention.get_x() + encoder_attention.get_width()
    )
    assert not touches_bottom_of(memory[0], boxes["Masked multi-head attention"])


def test_the_output_is_linear_then_softmax_above_the_decoder(drawing):
    _, _, boxes = drawing
    decoder_top = boxes["Feed forward / add & norm"]
    assert decoder_top.get_y() < boxes["Linear"].get_y() < boxes["Softmax"].get_y()


def test_bad_input_is_refused_with_a_named_argument():
    fig, ax = plt.subplots()
    try:
        with pytest.raises(ValueError, match="kind: expected one of"):
            draw_box(ax, 0, 0, "x", "y", "decoration")
        with pytest.raises(ValueError, match="points: expected at least 2 points, got 1"):
            draw_arrow(ax, [(0, 0)])
    finally:
        plt.close(fig)
