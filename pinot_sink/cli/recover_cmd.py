"""``pinot-sink recover --table T [--url URL] [--output-uri URI] [--apply]``: what interrupted writes left
behind (lineage entries left IN_PROGRESS, staging folders, publishes that never finished), and with
``--apply`` settle them: revert, delete, finish or roll back (``pinot_sink.recovery``). A running write's
entry and staging look the same as a dead one's: what changed less than ``--min-age`` ago (30 minutes) and
belongs to no run a manifest says ended is left, and said; ``--min-age 0`` once no write of the table runs."""
from __future__ import annotations

import os
import sys

from pinot_sink.controller import offline_raw_name
from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, reach_controller
from pinot_sink.naming import write_tag
from pinot_sink.options import OptionError, parse_duration
from pinot_sink.recovery import find_leftovers


# Long enough that a running write's staging (files land as tasks finish) and its commit's lineage entry (open
# while the segments upload) look alive; short enough that the morning after a crash needs no flag.
DEFAULT_MIN_AGE = "30m"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "recover", help="list (and with --apply settle) what interrupted writes left behind",
        description="List this package's unfinished lineage entries (with --url), staging folders and "
                    "unfinished publishes (with --output-uri) of a table; --apply reverts / removes / finishes "
                    "or rolls them back. Run it when no write of the table is running.")
    parser.add_argument("--output-uri", metavar="URI",
                        help="the writes' output-uri (the folder holding <table>/_staging and <table>/_manifests)")
    parser.add_argument("--write-id", metavar="ID", help="only the leftovers of this write.id")
    parser.add_argument("--apply", action="store_true", help="settle them (default: only list)")
    parser.add_argument("--min-age", metavar="DURATION", default=DEFAULT_MIN_AGE,
                        help="leave what changed less than this long ago, unless a manifest says its run ended: it "
                             "may be a running write's (default %(default)s; 0 settles everything, when you know no "
                             "write of the table is running)")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    if not args.url and not args.output_uri:
        raise SystemExit("give --url (lineage entries), --output-uri (staging, publishes), or both")
    output_uri = args.output_uri
    if output_uri and "://" not in output_uri:
        output_uri = os.path.abspath(output_uri)
    try:
        min_age = parse_duration(args.min_age, "--min-age")
    except OptionError as exc:
        raise SystemExit(str(exc)) from None
    client = client_from_args(args) if args.url else None
    try:
        if client is not None:
            reach_controller(client, args.table)
        # The raw name: a private staging root and an output-uri's folder are named by it, whatever the type
        # (``--table events_REALTIME`` picks the client's type, and its lineage, in client_from_args).
        table = offline_raw_name(args.table, client.table_type) if client is not None else args.table
        leftovers = find_leftovers(table, client=client, output_uri=output_uri,
                                   write_tag=write_tag(args.write_id) if args.write_id else None)
        if not leftovers:
            print(f"table {args.table}: nothing left behind")
            return 0
        failed = 0
        for leftover in leftovers:
            running = leftover.may_be_running(min_age)
            if not args.apply:
                print(leftover.describe() + (f" (may be a running write's: {running})" if running else ""))
                continue
            if running:
                failed += 1
                print(f"{leftover.describe()} -> left as it is: {running} and may be a running write's; "
                      f"--min-age 0 settles it once no write of the table runs")
                continue
            try:
                outcome = leftover.settle()
            except Exception as exc:  # noqa: BLE001 - settle the others; report this one
                outcome = f"FAILED: {exc}"
            failed += outcome.startswith(("FAILED", "COULD NOT"))
            print(f"{leftover.describe()} -> {outcome}")
        if not args.apply:
            print(f"{len(leftovers)} leftover(s); run again with --apply to settle them", file=sys.stderr)
        return 1 if failed else 0
    finally:
        if client is not None:
            client.close()
