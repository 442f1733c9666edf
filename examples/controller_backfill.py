"""Backfill a Parquet dataset into a live Pinot OFFLINE table through its controller.

The table and schema must exist on the controller (the data source fetches both and checks the
DataFrame against them before any task runs). Segments are built on the executors and uploaded by
each task; `--mode overwrite` swaps the table's segments atomically (Pinot's segment replacement).

    python examples/controller_backfill.py --url http://localhost:9000 --table airlineStats \
        --input /data/airline/*.parquet [--mode overwrite] [--user admin --password ...]
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="controller URL, e.g. http://localhost:9000")
    parser.add_argument("--table", required=True, help="raw table name (no _OFFLINE)")
    parser.add_argument("--input", required=True, help="Parquet file(s) or directory")
    parser.add_argument("--mode", choices=("append", "overwrite"), default="append")
    parser.add_argument("--partitions", type=int, default=0, help="repartition to N tasks first (0: keep)")
    parser.add_argument("--max-rows", default="5000000", help="rows per segment")
    parser.add_argument("--max-size", default="512mb", help="buffered size per segment")
    parser.add_argument("--user")
    parser.add_argument("--password", default=os.environ.get("PINOT_PASSWORD"))
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master(args.master).appName(f"pinot-backfill-{args.table}").getOrCreate()
    import pinot_sink

    pinot_sink.register(spark)
    df = spark.read.parquet(args.input)
    options = {
        "url": args.url,
        "sink.buffer-flush.max-rows": args.max_rows,
        "sink.buffer-flush.max-size": args.max_size,
        "schema.unknown-columns": "ignore",  # extra columns in the files are dropped, not an error
    }
    if args.partitions:
        options["sink.parallelism"] = args.partitions
    if args.user:
        options.update({"auth.username": args.user, "auth.password": args.password or ""})
    # pinot_sink.write = df.write.format("pinot_sink") with sink.parallelism applied.
    pinot_sink.write(df, args.table, mode=args.mode, **options)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
