"""tools.notebook_format: how every stored notebook looks."""

from tools.notebook_format import coalesce_streams


def test_consecutive_outputs_of_one_stream_are_joined():
    cell = {
        "cell_type": "code",
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]},
            {"output_type": "stream", "name": "stdout", "text": "c\n"},
            {"output_type": "stream", "name": "stderr", "text": "warning\n"},
            {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": {}},
            {"output_type": "stream", "name": "stdout", "text": "d\n"},
            {"output_type": "stream", "name": "stdout", "text": "\n"},
        ],
    }
    coalesce_streams(cell)
    assert [(o["output_type"], o.get("name"), o.get("text")) for o in cell["outputs"]] == [
        ("stream", "stdout", "a\nbc\n"),
        ("stream", "stderr", "warning\n"),
        ("display_data", None, None),
        ("stream", "stdout", "d\n\n"),
    ]
