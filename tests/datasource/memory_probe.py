"""Run in a subprocess by test_memory.py: one partition through the executor's write path, peak memory out.

Feeds 10,000-row Arrow batches made on the fly (as Spark hands them over, so the input itself is never
held) to ``write_partition`` in embedded mode, after a small warm-up task, and prints JSON with the
process's RSS before the measured task and its peak RSS after it (Linux: /proc/self/statm).
"""
from __future__ import annotations

import ctypes
import gc
import json
import resource
import sys
import tempfile

import numpy as np
import pyarrow as pa

from pinot_sink.job import prepare_job
from pinot_sink.task import write_partition

SCHEMA = {
    "schemaName": "orders",
    "dimensionFieldSpecs": [
        {"name": "order_id", "dataType": "LONG"}, {"name": "country", "dataType": "STRING"},
        {"name": "product_id", "dataType": "INT"}, {"name": "tags", "dataType": "STRING", "singleValueField": False},
    ],
    "metricFieldSpecs": [{"name": "price", "dataType": "DOUBLE"}, {"name": "quantity", "dataType": "INT"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
CONFIG = {"tableName": "orders_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {"sortedColumn": ["country"], "invertedIndexColumns": ["product_id"]}, "metadata": {}}
COUNTRIES = np.array(["US", "DE", "FR", "GB", "JP", "BR", "IN", "CA"])


def batches(rows: int, size: int = 10_000):
    for start in range(0, rows, size):
        ids = np.arange(start, min(rows, start + size), dtype=np.int64)
        tags = pa.ListArray.from_arrays(pa.array(np.arange(0, 2 * len(ids) + 1, 2, dtype=np.int32)),
                                        pa.array(np.array(["sale", "gift", "new"])[ids.repeat(2) % 3]))
        yield pa.record_batch({
            "order_id": ids, "country": pa.array(COUNTRIES[ids % 8]), "product_id": (ids % 5000).astype(np.int32),
            "tags": tags, "price": ids * 0.01, "quantity": (ids % 5 + 1).astype(np.int32),
            "ts": pa.array(1_704_067_200_000 + ids * 1000, pa.timestamp("ms", tz="UTC")),
        })


WARM_ROWS = 20_000  # the warm-up task: two small segments, far below any max-size measured


def job_of(max_size: str, max_rows: int = 100_000_000):
    return prepare_job({"table-name": "orders", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG),
                        "output-uri": tempfile.mkdtemp(), "sink.buffer-flush.max-rows": str(max_rows),
                        "sink.buffer-flush.max-size": max_size, "creation-time": "0"},
                       next(batches(10)).schema, overwrite=False, streaming=False)


def rss() -> int:
    """The process's resident bytes now (VmRSS)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def high_water() -> int:
    """The process's peak resident bytes since start or the last reset (VmHWM)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def main() -> None:
    rows, max_size = int(sys.argv[1]), sys.argv[2]
    # The baseline is a worker that has run a task before (Spark reuses its Python workers): the modules,
    # compiled kernels and allocator set-up every task needs are in place, and what the small warm-up task
    # held is handed back to the OS (gc, Arrow's release_unused, glibc's malloc_trim), so nothing of a
    # buffer's size is counted in the baseline. The high-water mark (VmHWM) is then reset (Linux's clear_refs
    # "5"), so the peak read is the measured task's own even when the warm-up's was higher.
    write_partition(job_of(max_size, max_rows=WARM_ROWS // 2), batches(WARM_ROWS), partition_id=0, threads=1)
    gc.collect()
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
    job = job_of(max_size)
    warm_peak = high_water()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # VmHWM := VmRSS
    before = rss()
    report = write_partition(job, batches(rows), partition_id=0, threads=1)  # one core, as a Spark task
    after = high_water()
    print(json.dumps({"rss_before": before, "rss_peak": after, "warm_peak": warm_peak, "rows": report.rows,
                      "segments": len(report.segments), "arrow_peak": pa.default_memory_pool().max_memory(),
                      "arrow_pool": pa.default_memory_pool().backend_name}))


if __name__ == "__main__":
    main()
