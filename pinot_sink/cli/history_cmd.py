"""``pinot-sink history --table T [--url URL] [--output-uri URI]``: the writes of a table, oldest first, each
live, replaced or reverted (``pinot_sink.history``)."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, reach_controller


def register(subparsers) -> None:
    parser = subparsers.add_parser("history", help="list the writes of a table: live, replaced or reverted",
                                   description="List the writes pinot_sink made to a table, from the controller's "
                                               "lineage and segments (and the runs' manifests with --output-uri).")
    parser.add_argument("--output-uri", help="the writes' output-uri: adds write ids, notes and bytes from their "
                                             "manifests")
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def _when(millis: int | None) -> str:
    if millis is None:
        return "-"
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _runs(tags: list[str], shown: int = 3) -> str:
    return ", ".join(tags[:shown]) + (f" and {len(tags) - shown} more" if len(tags) > shown else "")


def run(args) -> int:
    from pinot_sink.history import folder_history, table_history

    if not args.url and args.output_uri:  # embedded mode: the folder's manifests are the record
        runs = folder_history(args.output_uri, args.table)
    else:
        with client_from_args(args) as client:
            reach_controller(client, args.table)
            runs = table_history(client, args.table, output_uri=args.output_uri)
    rows = [{"started": _when(r.started_ms), "write": r.write_id or r.write_tag, "write_tag": r.write_tag,
             "run": r.run_tag, "mode": r.mode, "status": r.status, "segments": len(r.segments), "live": r.live,
             "rows": r.rows, "bytes": r.bytes, "replaced": len(r.replaced), "replaced_by": r.replaced_by,
             "replaced_by_runs": r.replaced_by_runs or ([r.replaced_by] if r.replaced_by else []),
             "lineage_id": r.lineage_id, "note": r.note} for r in runs]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    header = ("started (UTC)", "write", "run", "mode", "status", "segments", "rows", "bytes", "note")
    table = [header] + [(r["started"], r["write"], r["run"], r["mode"],
                         r["status"] + (f" by {_runs(r['replaced_by_runs'])}" if r["replaced_by_runs"]
                                        and r["status"] != "live" else ""),
                         str(r["segments"]), str(r["rows"]), str(r["bytes"]), r["note"]) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print(f"{len(rows)} run(s); `pinot-sink undo --table {args.table} --write-id WRITE` reverts a live one")
    return 0
