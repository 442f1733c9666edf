"""Run in a subprocess by test_memory.py: one partition through the executor's write path, peak memory out.

Feeds 10,000-row Arrow batches made on the fly (as Spark hands them over, so the input itself is never
held) to ``write_partition`` in embedded mode and prints JSON with the process's peak RSS before and after.
"""
from __future__ import annotations

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


def main() -> None:
    rows, max_size = int(sys.argv[1]), sys.argv[2]
    arrow_schema = next(batches(10)).schema
    job = prepare_job({"table-name": "orders", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG),
                       "output-uri": tempfile.mkdtemp(), "sink.buffer-flush.max-rows": "100000000",
                       "sink.buffer-flush.max-size": max_size, "creation-time": "0"},
                      arrow_schema, overwrite=False, streaming=False)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    report = write_partition(job, batches(rows), partition_id=0, threads=1)  # one core, as a Spark task
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"rss_before": before, "rss_peak": after, "rows": report.rows,
                      "segments": len(report.segments), "arrow_peak": pa.default_memory_pool().max_memory()}))


if __name__ == "__main__":
    main()
