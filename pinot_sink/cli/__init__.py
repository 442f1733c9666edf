"""The ``pinot-sink`` console script.

Each subcommand lives in its own module ``pinot_sink.cli.<name>_cmd`` exposing
``register(subparsers)``, which adds its parser and sets ``func(args) -> int`` as the default. Running a
subcommand imports only its module (its dependencies are heavy: Arrow, the segment builder, HTTP); the
others are imported only to list them (``pinot-sink --help``, or a command that does not exist).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from pinot_sink import __version__

SUBCOMMANDS = ("schema", "build", "inspect", "push", "segments", "recover", "history", "undo", "compact")


def requested_command(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs: its first argument that is not an option (the global options take
    no value), if it names a subcommand."""
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    return command if command in SUBCOMMANDS else None


def only_version(argv: list[str]) -> bool:
    """``pinot-sink --version`` with no subcommand: argparse prints it and exits before any subcommand's
    parser is read, so none needs importing (the version is the CLI's cheapest answer)."""
    return "--version" in argv and requested_command(argv) is None


def build_parser(command: str | None = None, subcommands: bool = True) -> argparse.ArgumentParser:
    """The parser with ``command``'s subparser only, or (None) with every subcommand's; ``subcommands``
    False: with none (the version only)."""
    parser = argparse.ArgumentParser(
        prog="pinot-sink", description="Build, inspect and push Apache Pinot segments from Python."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    parser.add_argument("--version", action="version", version=f"pinot-sink {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in (command,) if command is not None else SUBCOMMANDS if subcommands else ():
        importlib.import_module(f"pinot_sink.cli.{name}_cmd").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(requested_command(argv), subcommands=not only_version(argv)).parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of stdout left (`pinot-sink history ... | head`): not a failure
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # or the flush at exit raises it again
        return 141  # what a shell reports for a command SIGPIPE ended
    except Exception as exc:  # one clear line for the user; -v shows the trace
        if args.verbose:
            raise
        print(f"pinot-sink {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
