"""Stream a directory of Parquet files into Pinot, one set of segments per micro-batch.

Each micro-batch's segments carry the query and batch id in their names, so a batch that Spark replays
after a crash (same checkpoint) replaces its own segments: every row is in the table exactly once.

    python examples/streaming_files.py --input /data/incoming --checkpoint /tmp/ckpt \
        [--url http://localhost:9000 --table events]      # without --url: local segments in --out

With no --input, a demo directory with three generated files is created and streamed (embedded mode).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
TABLE_CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE",
                "segmentsConfig": {"timeColumnName": "ts"}, "tenants": {}, "tableIndexConfig": {}, "metadata": {}}


def demo_input(folder: Path, files: int = 3, rows: int = 10_000) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        ids = np.arange(index * rows, (index + 1) * rows)
        pq.write_table(pa.table({
            "country": pa.array(np.array(["US", "DE", "FR", "JP"])[ids % 4]),
            "value": pa.array(ids, pa.int64()),
            "ts": pa.array(1_704_067_200_000 + ids * 1000, pa.timestamp("ms", tz="UTC")),
        }), folder / f"events-{index:04d}.parquet")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input")
    parser.add_argument("--checkpoint")
    parser.add_argument("--url")
    parser.add_argument("--table", default="events")
    parser.add_argument("--out", default="pinot-segments")
    parser.add_argument("--files-per-batch", type=int, default=1)
    parser.add_argument("--continuous", action="store_true", help="keep watching (default: process what is there)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pinot-stream-demo-"))
    source = Path(args.input) if args.input else work / "incoming"
    if not args.input:
        demo_input(source)
    checkpoint = args.checkpoint or str(work / "checkpoint")

    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("pinot-streaming-files")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    import pinot_sink

    pinot_sink.register(spark)
    stream = (spark.readStream.schema("country STRING, value BIGINT, ts TIMESTAMP")
              .option("maxFilesPerTrigger", args.files_per_batch).parquet(str(source)))
    writer = (stream.writeStream.format("pinot").option("table-name", args.table)
              .option("checkpointLocation", checkpoint).option("sink.buffer-flush.max-rows", 100_000))
    if args.url:
        writer = writer.option("url", args.url)
    else:
        writer = (writer.option("output-uri", args.out).option("schema", json.dumps(SCHEMA))
                  .option("table-config", json.dumps(TABLE_CONFIG)))
    trigger = {"processingTime": "10 seconds"} if args.continuous else {"availableNow": True}
    query = writer.trigger(**trigger).start()
    query.awaitTermination()
    for progress in query.recentProgress:
        print(f"batch {progress['batchId']}: {progress['numInputRows']} rows")
    spark.stop()
    if not args.url:
        names = sorted(p.name for p in (Path(args.out) / args.table).glob("*.tar.gz"))
        print(f"{len(names)} segments in {Path(args.out) / args.table}:", *names, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
