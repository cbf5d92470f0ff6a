"""``make dictionary``: get notebook 15's German-English dictionary where apt cannot install it.

Hand-written: edit this file itself; no notebook generates it.

    make dictionary                       # the publisher's file, into the user's cache folder
    python -m helpers.data.get_dictionary --url file:///path/to/de-en.txt.gz --to /tmp/de-en

The series' one download, and a command the user runs: no notebook or test downloads anything.
It fetches the Ding dictionary's ``de-en`` file from its publisher, TU Chemnitz (plain or
gzipped), checks that it is a whole dictionary (``German :: English`` lines, about 200,000 of
them, ending with a line break), and writes it where ``helpers.data.dictionary`` looks
(``cache_file()``, outside the repository; ``$TRANSFORMER_DICTIONARY`` still overrides). The
dictionary is GPL-licensed: the command says so, and the repository never holds a copy. A version
other than the one notebook 15's stored outputs come from works, with a note that the split and
the numbers will differ.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import urllib.request
import zlib
from collections.abc import Sequence
from pathlib import Path

from helpers.data.dictionary import (
    RECORDED_SHA256,
    RECORDED_VERSION,
    cache_file,
    other_version_message,
    sha256,
)
from helpers.language import tr

URL = "https://ftp.tu-chemnitz.de/pub/Local/urz/ding/de-en/de-en.txt.gz"
# The whole file has about 200,000 entries; a download cut short has far fewer.
MIN_ENTRIES = 100_000
SEPARATOR = " :: "


class NotADictionary(ValueError):
    """The downloaded file is truncated or is not the German-English dictionary."""


def decompress(data: bytes) -> bytes:
    """The file's bytes, gunzipped when they are gzip (the publisher offers both)."""
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gzip.decompress(data)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise NotADictionary(
            tr("download: the gzip file is truncated or damaged ({reason})").format(reason=error)
        ) from error


def count_entries(data: bytes) -> int:
    """The number of ``German :: English`` lines; NotADictionary for anything else."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotADictionary(
            tr("download: expected UTF-8 text, got bytes that are not ({reason})").format(
                reason=error
            )
        ) from error
    if not text.endswith("\n"):
        raise NotADictionary(tr("download: the file is truncated (its last line is cut off)"))
    entries = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        if SEPARATOR not in line:
            raise NotADictionary(
                tr(
                    "download: expected 'German :: English' lines, got line {number}: {line!r}"
                ).format(number=number, line=line[:80])
            )
        entries += 1
    if entries < MIN_ENTRIES:
        raise NotADictionary(
            tr(
                "download: expected the whole dictionary (at least {minimum:,} entries), got "
                "{entries:,}: the file is truncated"
            ).format(minimum=MIN_ENTRIES, entries=entries)
        )
    return entries


def install(url: str = URL, destination: Path | None = None) -> Path:
    """Download ``url``, check it, and write it to ``destination`` (default ``cache_file()``).

    Nothing is written unless the whole file passed the checks (a temporary file is renamed).
    """
    destination = cache_file() if destination is None else Path(destination)
    print(tr("Downloading {url}").format(url=url))
    with urllib.request.urlopen(url, timeout=300) as response:  # noqa: S310 - the user's command
        data = decompress(response.read())
    entries = count_entries(data)
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=destination.parent, delete=False) as file:
        file.write(data)
    os.replace(file.name, destination)
    print(tr("Wrote {entries:,} entries to {path}").format(entries=entries, path=destination))
    print(
        tr(
            "The Ding German-English dictionary, (c) Frank Richter, TU Chemnitz, is free software "
            "under the GNU General Public License, version 2 or later (https://dict.tu-chemnitz.de/). "
            "It is kept in your cache folder for your own use; the series never copies it into "
            "the repository."
        )
    )
    if sha256(destination) == RECORDED_SHA256:
        print(
            tr(
                "This is the version notebook 15's stored outputs were made from ({version})."
            ).format(version=RECORDED_VERSION)
        )
    else:
        print(tr("Note: {message}.").format(message=other_version_message(destination)))
    return destination


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make dictionary",
        description="Download notebook 15's German-English dictionary (GPL) into your cache folder.",
    )
    parser.add_argument("--url", default=URL, help=f"where to get it (default: {URL})")
    parser.add_argument(
        "--to",
        type=Path,
        default=None,
        help=f"the file to write (default: {cache_file()}, where the helpers look)",
    )
    args = parser.parse_args(argv)
    try:
        install(args.url, args.to)
    except (NotADictionary, OSError) as error:
        print(tr("error: {error}").format(error=error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
