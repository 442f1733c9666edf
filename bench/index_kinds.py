"""The build time a JSON index and a TIMESTAMP index add, as ratios against the same segment without them
(best of --repeat, seconds).

100,000 rows: a LONG id, a STRING holding a distinct 3-level JSON value with an array per row, a TIMESTAMP;
``jsonIndexColumns`` on the STRING, then a TIMESTAMP index with HOUR, DAY, WEEK, MONTH on the TIMESTAMP.

    python bench/index_kinds.py [--rows 100000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time

import pyarrow as pa

from pinot_sink.segment import build_segment
from type_mapping import PinotColumns, PinotSchema

SCHEMA = PinotSchema.from_json({
    "schemaName": "b",
    "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}, {"name": "p", "dataType": "STRING", "maxLength": 1000}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})
CONFIGS = {
    "no extra index": {"tableName": "b"},
    "json index": {"tableName": "b", "tableIndexConfig": {"jsonIndexColumns": ["p"]}},
    "timestamp index (4 granularities)": {"tableName": "b", "fieldConfigList": [
        {"name": "ts", "timestampConfig": {"granularities": ["HOUR", "DAY", "WEEK", "MONTH"]}}]},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.rows
    texts = [json.dumps({"user": {"id": i % 5000, "name": f"u{i % 977}"}, "tags": [f"t{i % 7}", f"t{i % 11}"],
                         "n": i}) for i in range(n)]
    columns = PinotColumns(pa.table({"id": pa.array(range(n), pa.int64()), "p": pa.array(texts),
                                     "ts": pa.array([1_700_000_000_000 + i * 60_000 for i in range(n)], pa.int64())}),
                           {})
    out = tempfile.mkdtemp()
    timings = {}
    for label, config in CONFIGS.items():
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            build_segment(columns, SCHEMA, config, out, "b_0", 0)
            best = min(best, time.perf_counter() - started)
        timings[label] = best
    base = timings["no extra index"]
    for label, seconds in timings.items():
        print(f"{label:36s} {seconds:7.2f} s   {seconds / base:6.2f}x")


if __name__ == "__main__":
    main()
