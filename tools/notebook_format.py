"""What every stored notebook of the series looks like: one kernel, canonical metadata."""

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
