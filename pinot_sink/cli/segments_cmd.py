"""``pinot-sink segments --url URL --table T``: list a table's segments with rows, CRC and time range."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, reach_controller


def register(subparsers) -> None:
    parser = subparsers.add_parser("segments", help="list the segments of an OFFLINE table",
                                   description="List segments with rows, CRC and time range (from ZK metadata).")
    parser.add_argument("--all", action="store_true",
                        help="include segments replaced by a completed consistent push (hidden from queries)")
    parser.add_argument("--json", action="store_true", help="one JSON object per segment")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def _when(millis: str | None) -> str:
    if millis is None or int(millis) < 0:
        return "-"
    return datetime.fromtimestamp(int(millis) / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def describe(names: list[str], zk: dict[str, dict]) -> list[dict]:
    rows = []
    for name in names:
        meta = zk.get(name, {})
        rows.append({
            "segment": name,
            "rows": int(meta["segment.total.docs"]) if meta.get("segment.total.docs") not in (None, "") else None,
            "crc": int(meta["segment.crc"]) if meta.get("segment.crc") not in (None, "") else None,
            "start": _when(meta.get("segment.start.time")),
            "end": _when(meta.get("segment.end.time")),
            "size_bytes": int(meta["segment.size.in.bytes"]) if meta.get("segment.size.in.bytes") else None,
            "download_url": meta.get("segment.download.url"),
        })
    return rows


def run(args) -> int:
    with client_from_args(args) as client:
        reach_controller(client, args.table)
        names = client.list_segments(args.table, exclude_replaced=not args.all)
        zk = client.segment_zk_metadata(args.table) if names else {}
    rows = describe(sorted(names), zk)
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    header = ("segment", "rows", "crc", "start (UTC)", "end (UTC)")
    table = [header] + [(r["segment"], str(r["rows"] if r["rows"] is not None else "-"),
                         str(r["crc"] if r["crc"] is not None else "-"), r["start"], r["end"]) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    total = sum(r["rows"] or 0 for r in rows)
    print(f"{len(rows)} segments, {total} rows")
    return 0
