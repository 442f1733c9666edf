"""The ``pinot-sink`` console script.

Each subcommand lives in its own module ``pinot_sink.cli.<name>_cmd`` exposing
``register(subparsers)``, which adds its parser and sets ``func(args) -> int`` as the default.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

SUBCOMMANDS = ("schema", "build", "inspect", "push", "segments")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinot-sink", description="Build, inspect and push Apache Pinot segments from Python."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in SUBCOMMANDS:
        importlib.import_module(f"pinot_sink.cli.{name}_cmd").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # one clear line for the user; -v shows the trace
        if args.verbose:
            raise
        print(f"pinot-sink {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
