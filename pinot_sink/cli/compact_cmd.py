"""``pinot-sink compact``: merge a table's small segments into right-sized ones per time bucket, each bucket
group replaced atomically and exactly once (``pinot_sink.compaction``).

    pinot-sink compact --table T (--url URL | --output-uri URI) [--target-size 256mb] [--time-range FROM..TO]
                       [--min-segment-size SIZE] [--mode concat|rollup|dedup] [--aggregate COL=SUM|MIN|MAX ...]
                       [--bucket day|hour] [--dry-run] [--schema S.json --table-config T.json] [--option K=V ...]

Progress goes to stderr, the report (segments, bytes and rows before and after, per group) to stdout; the
exit status is 1 when a group failed (the table keeps that group's segments)."""
from __future__ import annotations

import os
import sys

from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, reach_controller
from pinot_sink.controller.errors import ControllerNotFoundError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compact", help="merge small segments into right-sized ones per time bucket, atomically",
        description="Merge a table's small segments (a controller's table, or a folder of tarballs) into "
                    "segments of about --target-size per time bucket; one lineage entry (or manifest) per group.")
    parser.add_argument("--output-uri", metavar="URI", help="a folder of tarballs (<URI>/<table>/), without a controller")
    parser.add_argument("--target-size", default="256mb", metavar="SIZE",
                        help="the untarred size of each new segment, as Pinot counts a segment's size "
                             "(default %(default)s)")
    parser.add_argument("--time-range", metavar="FROM..TO", help="only buckets inside this range (end exclusive)")
    parser.add_argument("--min-segment-size", metavar="SIZE",
                        help="segments at least this big (untarred, estimated) are left alone (default: "
                             "0.8 x the target for concat; rollup and dedup take every segment of a bucket)")
    parser.add_argument("--mode", choices=("concat", "rollup", "dedup"), default="concat")
    parser.add_argument("--aggregate", action="append", default=[], metavar="COLUMN=TYPE",
                        help="rollup: the aggregation of a metric column (SUM, the default, MIN or MAX)")
    parser.add_argument("--bucket", choices=("day", "hour"),
                        help="time bucket (default: hour for an HOURLY push frequency, else day)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan; change nothing")
    parser.add_argument("--schema", metavar="FILE", help="with --output-uri: the Pinot schema JSON file")
    parser.add_argument("--table-config", metavar="FILE", help="with --output-uri: the table config JSON file")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a write option that applies (storage.*, auth, TLS)")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"{flag} {value!r}: give KEY=VALUE")
        pairs[key.strip()] = rest.strip()
    return pairs


def run(args) -> int:
    from pinot_sink.compaction.run import compact

    if bool(args.url) == bool(args.output_uri):
        raise SystemExit("give --url (a controller's table) or --output-uri (a folder of tarballs), one of them")
    options = _pairs(args.option, "--option")
    for flag, key in ((args.schema, "schema"), (args.table_config, "table-config")):
        if flag:
            options[key] = flag
    output_uri = args.output_uri
    if output_uri and "://" not in output_uri:
        output_uri = os.path.abspath(output_uri)
    table = args.table  # "raw or with _OFFLINE", as every controller command takes it
    if table.endswith("_REALTIME"):
        raise SystemExit(f"--table {table}: compaction merges OFFLINE tables only")
    table = table[: -len("_OFFLINE")] if table.endswith("_OFFLINE") else table
    client = client_from_args(args) if args.url else None
    try:
        if client is not None:
            reach_controller(client, table)
            try:
                client.get_table_config(table)
            except ControllerNotFoundError:  # said as push says it, not as the schema lookup's 404
                raise SystemExit(f"table {table}_OFFLINE does not exist on {client.url} (compaction merges OFFLINE "
                                 f"tables only): nothing was compacted") from None
        report = compact(table, output_uri=output_uri, client_config=client.config if client else None,
                         target_size=args.target_size, time_range=args.time_range,
                         min_segment_size=args.min_segment_size, mode=args.mode, dry_run=args.dry_run,
                         bucket=args.bucket, aggregations=_pairs(args.aggregate, "--aggregate"), options=options,
                         progress=lambda line: print(f"pinot-sink compact: {line}", file=sys.stderr, flush=True))
    finally:
        if client is not None:
            client.close()
    print(report.summary())
    return 1 if report.failed else 0
