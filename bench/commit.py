"""The driver's commit for 1,000 segments, against a plain parallel push of the same tarballs.

Tasks stage; the single committer (``pinot_sink.commit.commit_job``) lists the table, opens one lineage
entry, pushes every staged segment ``push-parallelism`` at a time and ends the entry. The baseline is
``push_segments`` of the same files with the same parallelism and no lineage: the difference is what the
exactly-once protocol costs. The test controller runs in its own process and untars every upload as
Pinot does; ``--latency-ms`` adds a fixed server-side cost per upload (Pinot's ZooKeeper writes).

    .venv/bin/python bench/commit.py [--segments 1000] [--rows 200] [--parallel 8] [--latency-ms 0,20]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from pinot_sink.commit import commit_job
from pinot_sink.controller import ControllerClient, RetryPolicy, push_segments
from pinot_sink.job import prepare_job
from pinot_sink.task import write_partition

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "bench"))  # after the package: upload.py puts tests/ on the path too

from upload import start_controller  # noqa: E402

BASE_MS = 1_700_000_000_000


def staged_job(url: str, stage: Path, segments: int, rows: int, mode: str, parallel: int):
    # The test controller's events table: country STRING, value LONG, ts TIMESTAMP (its time column).
    arrow = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))])
    job = prepare_job({"table-name": "events", "url": url, "output-uri": str(stage), "push-mode": mode,
                       "push-parallelism": str(parallel), "sink.buffer-flush.max-rows": str(rows)},
                      arrow, overwrite=False)
    values = np.arange(segments * rows, dtype=np.int64)
    batch = pa.record_batch({"country": pa.array(np.array(["US", "DE", "FR"])[values % 3]), "value": values,
                             "ts": pa.array(BASE_MS + values * 1000, pa.timestamp("ms"))})
    report = write_partition(job, iter([batch]), partition_id=0, threads=1)
    return job, [report]


def clear(url: str) -> None:
    with ControllerClient(url, retry=RetryPolicy(max_attempts=1)) as client:
        client.delete_segments("events", client.list_segments("events", exclude_replaced=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=200, help="rows per segment")
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--latency-ms", default="0,20")
    parser.add_argument("--modes", default="tar,metadata")
    args = parser.parse_args()
    print(f"{args.segments} segments of {args.rows} rows, push-parallelism {args.parallel}")
    print("| push mode | server latency | plain push s | commit s | commit / plain |")
    print("|---|---|---|---|---|")
    for latency in [float(x) for x in args.latency_ms.split(",")]:
        process, url = start_controller(latency)
        try:
            for mode in args.modes.split(","):
                with tempfile.TemporaryDirectory() as work:
                    job, reports = staged_job(url, Path(work) / "stage", args.segments, args.rows, mode,
                                              args.parallel)
                    paths = [s.staged_uri[len("file://"):] for s in reports[0].segments]
                    deep = (Path(work) / "deep").as_uri() if mode != "tar" else None
                    with ControllerClient(url, retry=RetryPolicy(max_attempts=1),
                                          pool_size=args.parallel) as client:
                        started = time.perf_counter()
                        push_segments(client, "events", paths, push_mode=mode, parallel=args.parallel,
                                      deep_store_uri=deep)
                        plain = time.perf_counter() - started
                    clear(url)
                    started = time.perf_counter()
                    result = commit_job(job, reports)
                    committed = time.perf_counter() - started
                    assert len(result.segments) == args.segments
                    clear(url)
                print(f"| {mode} | {latency:.0f} ms | {plain:.2f} | {committed:.2f} | {committed / plain:.2f}x |",
                      flush=True)
        finally:
            process.stdin.close()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
