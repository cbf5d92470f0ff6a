"""Command line: ``python -m helpers.train [flags]`` trains; ``... average RUN_DIR --last N`` averages.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from helpers.train.checkpoints import average_checkpoints
from helpers.train.config import parse_config
from helpers.train.loop import run_training


def average_main(argv: list[str]) -> Path:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.train average",
        description="Average the parameters of a run's last n checkpoints (paper: 5 for base, 20 for big).",
    )
    parser.add_argument("run_dir", type=Path, help="the --output folder of a run")
    parser.add_argument(
        "--last",
        type=int,
        default=5,
        help="how many of the latest checkpoints to average (default: 5)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="the folder of the averaged checkpoint (default: RUN_DIR/average_lastN)",
    )
    args = parser.parse_args(argv)
    output = average_checkpoints(args.run_dir, args.last, args.output)
    print(f"averaged the last {args.last} checkpoints of {args.run_dir} into {output}")
    return output


def main(argv: list[str] | None = None) -> Path:
    """Train (or average); raises ValueError on bad input before any training starts."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "average":
        return average_main(argv[1:])
    return run_training(parse_config(argv))


def cli() -> int:
    try:
        main()
    except ValueError as error:
        print(f"python -m helpers.train: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(cli())
