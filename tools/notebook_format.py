"""What every stored notebook of the series looks like: one kernel, canonical metadata."""

import re

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


def canonical_metadata(metadata: dict) -> dict:
    """The notebook metadata we store: the series' kernel and no machine-specific details."""
    kept = {
        key: value
        for key, value in metadata.items()
        if key not in {"kernelspec", "language_info", "widgets"}
    }
    return {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO), **kept}


SOLUTION_TAG = "solution"
# A deep dive's title, "Deep dive · ..." ("深入 · ..." in the Chinese edition), and its heading.
DEEP_DIVE_TITLE = re.compile(r"^(?:Deep dive|深入)\s*·")
DEEP_DIVE_HEADING = re.compile(r"^#{1,6}\s+(?:Deep dive|深入)\s*·")


def _joined(text: str | list[str]) -> str:
    """A notebook's multi-line string, stored as one string or as a list of lines."""
    return "".join(text) if isinstance(text, list) else text


def cell_text(cell: dict) -> str:
    return _joined(cell.get("source", ""))


def is_solution(cell: dict) -> bool:
    """A code cell tagged ``solution``: the filled-in answer to an exercise."""
    return cell.get("cell_type") == "code" and SOLUTION_TAG in cell.get("metadata", {}).get(
        "tags", []
    )


def first_line(cell: dict) -> str:
    """A cell's first line that is not empty at its start (where a markdown cell's heading is)."""
    return cell_text(cell).lstrip("\n").split("\n", 1)[0]


def is_deep_dive_heading(cell: dict) -> bool:
    """A markdown cell whose first line is a ``Deep dive ·`` heading."""
    return cell.get("cell_type") == "markdown" and bool(DEEP_DIVE_HEADING.match(first_line(cell)))


def canonical_cell_metadata(cell: dict) -> None:
    """How a reader first sees a cell in JupyterLab, set in place.

    An exercise's solution is hidden (its source collapsed: try first, then look); a deep dive's
    heading is collapsed (the core path reads straight through; a click opens the deep dive).
    """
    metadata = cell.setdefault("metadata", {})
    if is_solution(cell):
        metadata.setdefault("jupyter", {})["source_hidden"] = True
    if is_deep_dive_heading(cell):
        metadata["jp-MarkdownHeadingCollapsed"] = True


def coalesce_streams(cell: dict) -> None:
    """Join consecutive outputs of one stream (stdout or stderr) into one, in place.

    The kernel sends a cell's printing in chunks, split wherever its output buffer happened to be
    flushed; stored as they came, one ``print`` may show as several blocks, split differently on
    every run. Joined, a cell's text output is one block per stream.
    """
    joined: list = []
    for output in cell.get("outputs", []):
        previous = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = _joined(previous["text"]) + _joined(output["text"])
        else:
            joined.append(output)
    if "outputs" in cell:
        cell["outputs"] = joined
