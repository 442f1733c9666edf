"""A whole write outside Spark: every task's loop (convert, buffer, build, stage) and the driver's commit,
in one process, timed in CPU seconds (what load on a shared machine does not inflate) and wall seconds.

``--repo DIR`` runs another checkout's code (e.g. one from before the exactly-once protocol, whose tasks
wrote straight into the output folder and whose commit only cleaned up), so the protocol's own cost
(staging, the commit's renames, the manifest) shows as the difference of the two runs:

    .venv/bin/python bench/write_path.py [--rows 2000000] [--partitions 4] [--repeat 5] [--repo /path/to/old]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

SCHEMA = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
          "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
          "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                                  "granularity": "1:MILLISECONDS"}]}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {}, "metadata": {}}
BASE_MS = 1_700_000_000_000


def partitions(rows: int, count: int, batch: int = 10_000):
    per = rows // count
    for p in range(count):
        def batches(p=p):
            for start in range(p * per, (p + 1) * per, batch):
                ids = np.arange(start, min((p + 1) * per, start + batch), dtype=np.int64)
                yield pa.record_batch({"country": pa.array(np.array(["US", "DE", "FR", "JP"])[ids % 4]),
                                       "value": ids, "ts": pa.array(BASE_MS + ids * 1000, pa.timestamp("ms"))})
        yield p, batches


def api():
    """(prepare_job, write_partition, commit_job) of whichever checkout is on the path."""
    try:
        from pinot_sink.commit import commit_job
        from pinot_sink.job import prepare_job
        from pinot_sink.task import write_partition
    except ImportError:  # before the job / task / commit split
        from pinot_sink.datasource import commit_job, prepare_job, write_partition
    return prepare_job, write_partition, commit_job


def one_write(rows: int, count: int, max_rows: int) -> tuple[float, float]:
    prepare_job, write_partition, commit_job = api()
    out = Path(tempfile.mkdtemp(prefix="bench-write-path-"))
    try:
        arrow = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))])
        cpu, wall = time.process_time(), time.perf_counter()
        job = prepare_job({"table-name": "events", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG),
                           "output-uri": str(out), "sink.buffer-flush.max-rows": str(max_rows)},
                          arrow, overwrite=False, streaming=False)
        reports = [write_partition(job, batches(), partition_id=p) for p, batches in partitions(rows, count)]
        commit_job(job, reports)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        written = sum(1 for _ in (out / "events").glob("*.tar.gz"))
        assert written == sum(len(r.segments) for r in reports), "every segment published"
        return cpu, wall
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--max-rows", type=int, default=250_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repo", help="run this checkout's pinot_sink instead")
    args = parser.parse_args()
    if args.repo:
        sys.path.insert(0, str(Path(args.repo).resolve()))
        for name in [m for m in sys.modules if m.startswith(("pinot_sink", "type_mapping"))]:
            del sys.modules[name]
    import logging

    logging.getLogger("pinot_sink").setLevel(logging.WARNING)
    logging.getLogger("pinot_sink").addHandler(logging.NullHandler())
    one_write(100_000, 1, args.max_rows)  # warm up imports and caches
    runs = [one_write(args.rows, args.partitions, args.max_rows) for _ in range(args.repeat)]
    cpu = [c for c, _ in runs]
    wall = [w for _, w in runs]
    import pinot_sink

    print(f"{Path(pinot_sink.__file__).parent.parent}: {args.rows} rows, {args.partitions} partitions, "
          f"max-rows {args.max_rows}: CPU s median {statistics.median(cpu):.2f} (min {min(cpu):.2f}), "
          f"wall s median {statistics.median(wall):.2f} (min {min(wall):.2f})")


if __name__ == "__main__":
    main()
