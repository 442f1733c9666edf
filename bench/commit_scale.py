"""The driver's commit of 1k, 10k and 50k segments in metadata mode, batched through
``/segments/batchUpload`` (``push.batch-size``, default 1000) against one request per segment
(``push.batch-size=1``) in the same run.

The segments are tiny (one real 10-row segment's metadata cloned under N names,
``tests/datasource/scale_helpers.py``); the commit path is the real one: the ZooKeeper budget (lineage and
ideal state read and sized), one lineage entry, the deep-store copies, the announcements, the end. The test
controller runs in its own process; CPU-s is this (driver) process's. The one-per-segment baseline is run up
to ``--baseline-max`` segments (50k single requests take many minutes on the test controller).

    .venv/bin/python bench/commit_scale.py [--segments 1000,10000,50000] [--baseline-max 10000]
"""
from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from pinot_sink.commit import commit_job
from pinot_sink.controller import ControllerClient, RetryPolicy
from pinot_sink.job import prepare_job
from pinot_sink.task import write_partition

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "bench"))
sys.path.append(str(REPO))

from upload import start_controller  # noqa: E402
from tests.datasource.scale_helpers import cloned_report  # noqa: E402

BASE_MS = 1_700_000_000_000


def staged(url: str, stage: Path, segments: int, batch: int):
    arrow = pa.schema([("country", pa.string()), ("value", pa.int64()), ("ts", pa.timestamp("ms"))])
    job = prepare_job({"table-name": "events", "url": url, "output-uri": str(stage), "push-mode": "metadata",
                       "push-parallelism": "8", "push.batch-size": str(batch)}, arrow, overwrite=False)
    values = np.arange(10, dtype=np.int64)
    batch_rows = pa.record_batch({"country": pa.array(np.array(["US", "DE", "FR"])[values % 3]), "value": values,
                                  "ts": pa.array(BASE_MS + values * 1000, pa.timestamp("ms"))})
    report = write_partition(job, iter([batch_rows]), partition_id=0, threads=1)
    return job, [cloned_report(report, segments)]


def clear(url: str) -> None:
    with ControllerClient(url, retry=RetryPolicy(max_attempts=1)) as client:
        client.delete_segments("events", client.list_segments("events", exclude_replaced=False))


def timed_commit(url: str, segments: int, batch: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as work:
        job, reports = staged(url, Path(work) / "stage", segments, batch)
        wall, cpu = time.perf_counter(), time.process_time()
        result = commit_job(job, reports)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert len(result.segments) == segments
    clear(url)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segments", default="1000,10000,50000")
    parser.add_argument("--baseline-max", type=int, default=10000)
    args = parser.parse_args()
    logging.getLogger("pinot_sink").setLevel(logging.ERROR)
    print("| segments | batched commit s (CPU-s) | one request per segment s (CPU-s) | batched / per segment |")
    print("|---|---|---|---|")
    process, url = start_controller(0)
    try:
        for count in [int(x) for x in args.segments.split(",")]:
            wall, cpu = timed_commit(url, count, 1000)
            if count <= args.baseline_max:
                base_wall, base_cpu = timed_commit(url, count, 1)
                base, ratio = f"{base_wall:.1f} ({base_cpu:.1f})", f"{wall / base_wall:.2f}x"
            else:
                base, ratio = "not run", "-"
            print(f"| {count:,} | {wall:.1f} ({cpu:.1f}) | {base} | {ratio} |", flush=True)
    finally:
        process.stdin.close()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
