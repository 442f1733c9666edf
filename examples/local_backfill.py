"""The README's main job: ~1M generated rows -> df.write.format("pinot") -> local segments -> verified.

No controller needed: without a `url` the data source writes segment tarballs into `output-uri`
(here ./pinot-segments/orders/), ready for `pinot-sink push` or a Pinot server's deep store. The job then
reads every segment back with pinot_sink.segment.read_segment and checks the row count and a few
aggregates against the DataFrame's.

    python examples/local_backfill.py [--rows 1000000] [--out pinot-segments]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

# No PYSPARK_PYTHON needed: in local mode pinot_sink makes Spark's Python workers run this interpreter.

TABLE = "orders"
SCHEMA = {
    "schemaName": TABLE,
    "dimensionFieldSpecs": [
        {"name": "order_id", "dataType": "LONG"},
        {"name": "customer_id", "dataType": "LONG"},
        {"name": "country", "dataType": "STRING"},
        {"name": "device", "dataType": "STRING"},
        {"name": "product_id", "dataType": "INT"},
        {"name": "is_returning", "dataType": "BOOLEAN"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "coupon", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [
        {"name": "quantity", "dataType": "INT"},
        {"name": "price", "dataType": "DOUBLE"},
    ],
    "dateTimeFieldSpecs": [
        {"name": "order_time", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
         "granularity": "1:MILLISECONDS"},
    ],
}
TABLE_CONFIG = {
    "tableName": f"{TABLE}_OFFLINE",
    "tableType": "OFFLINE",
    "segmentsConfig": {"timeColumnName": "order_time", "replication": "1"},
    "tenants": {},
    "tableIndexConfig": {
        "loadMode": "MMAP",
        "sortedColumn": ["country"],
        "invertedIndexColumns": ["device", "product_id"],
        "noDictionaryColumns": ["order_id", "price"],
    },
    "metadata": {},
}


def generate(spark, rows: int, partitions: int):
    """Realistic-looking orders over 30 days of 2024, built with Spark expressions (no Python per row)."""
    from pyspark.sql import functions as F

    countries = F.array(*[F.lit(c) for c in ("US", "US", "US", "DE", "FR", "GB", "JP", "BR", "IN", "CA")])
    devices = F.array(*[F.lit(d) for d in ("ios", "android", "web", "web")])
    tag_pool = F.array(*[F.lit(t) for t in ("sale", "gift", "prime", "new", "bulk")])
    start_ms = 1_704_067_200_000  # 2024-01-01T00:00:00Z
    h = F.xxhash64("id")
    return spark.range(rows, numPartitions=partitions).select(
        F.col("id").alias("order_id"),
        (F.abs(h) % 200_000).alias("customer_id"),
        F.element_at(countries, (F.abs(h) % 10 + 1).cast("int")).alias("country"),
        F.element_at(devices, (F.abs(F.xxhash64("id", F.lit(1))) % 4 + 1).cast("int")).alias("device"),
        (F.abs(F.xxhash64("id", F.lit(2))) % 5000).cast("int").alias("product_id"),
        (F.abs(F.xxhash64("id", F.lit(3))) % 3 == 0).alias("is_returning"),
        F.slice(tag_pool, (F.abs(F.xxhash64("id", F.lit(4))) % 5 + 1).cast("int"),
                (F.abs(F.xxhash64("id", F.lit(5))) % 3).cast("int")).alias("tags"),
        F.when(F.abs(F.xxhash64("id", F.lit(6))) % 10 == 0, F.lit("WINTER10")).alias("coupon"),  # mostly null
        (F.abs(F.xxhash64("id", F.lit(7))) % 5 + 1).cast("int").alias("quantity"),
        F.round((F.abs(F.xxhash64("id", F.lit(8))) % 20_000) / 100 + 0.99, 2).alias("price"),
        F.timestamp_millis(F.lit(start_ms) + (F.col("id") * 2_592_000_000 / rows).cast("long")).alias("order_time"),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--out", default="pinot-segments")
    args = parser.parse_args()

    from pinot_sink.java_check import problem

    message = problem()
    if message:
        print(message, file=sys.stderr)
        return 2

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (SparkSession.builder.master("local[2]").appName("pinot-sink-local-backfill")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    # no import of pinot_sink: Spark 4 finds format("pinot") itself (the installed pyspark_pinot package)
    out = Path(args.out).resolve()
    shutil.rmtree(out / TABLE, ignore_errors=True)

    df = generate(spark, args.rows, args.partitions).cache()
    expected = df.agg(
        F.count("*").alias("rows"), F.sum("quantity").alias("quantity"), F.sum("price").alias("price"),
        F.countDistinct("country").alias("countries"), F.count("coupon").alias("coupons"),
        F.min("order_time").alias("first"), F.max("order_time").alias("last"),
    ).first()

    started = time.time()
    (df.write.format("pinot")
       .option("table-name", TABLE)
       .option("schema", json.dumps(SCHEMA))
       .option("table-config", json.dumps(TABLE_CONFIG))
       .option("output-uri", str(out))
       # no sink.buffer-flush.* options: the defaults cut a segment at 1,000,000 rows or 128mb per partition
       .option("write.id", "orders-demo")  # a rerun replaces this write's segments instead of adding to them
       .mode("append")
       .save())
    write_s = time.time() - started
    spark.stop()

    import pyarrow as pa
    import pyarrow.compute as pc

    from pinot_sink.segment import read_segment

    tarballs = sorted((out / TABLE).glob("*.tar.gz"))
    contents = [read_segment(path) for path in tarballs]
    table = pa.concat_tables([c.table for c in contents])
    coupon_nulls = sum(int(pc.sum(pc.equal(c.table.column("coupon"), "null")).as_py() or 0) for c in contents)
    found = {
        "rows": table.num_rows,
        "quantity": pc.sum(table.column("quantity")).as_py(),
        "price": pc.sum(table.column("price")).as_py(),
        "countries": len(pc.unique(table.column("country"))),
        "coupons": table.num_rows - coupon_nulls,
        "first": pc.min(table.column("order_time").cast("int64")).as_py(),
        "last": pc.max(table.column("order_time").cast("int64")).as_py(),
    }
    wanted = {
        "rows": expected["rows"], "quantity": expected["quantity"], "price": expected["price"],
        "countries": expected["countries"], "coupons": expected["coupons"],
        "first": int(expected["first"].timestamp() * 1000), "last": int(expected["last"].timestamp() * 1000),
    }
    total_mb = sum(p.stat().st_size for p in tarballs) / 1024**2
    print(f"\nwrote {len(tarballs)} segments ({total_mb:.1f} MB) to {out / TABLE} in {write_s:.1f}s "
          f"({found['rows'] / write_s:,.0f} rows/s)")
    print("with the default sizes (a segment per 1,000,000 rows or 128mb of rows, per Spark partition): "
          + ", ".join(f"{c.table.num_rows:,} rows / {p.stat().st_size / 1024**2:.1f} MB"
                      for c, p in zip(contents, tarballs)))
    print(f"{'check':<12} {'DataFrame':>22} {'segments':>22}")
    failures = 0
    for key in wanted:
        same = abs(found[key] - wanted[key]) <= 1e-6 * abs(wanted[key]) if key == "price" else found[key] == wanted[key]
        failures += not same
        print(f"{key:<12} {wanted[key]!s:>22} {found[key]!s:>22} {'ok' if same else 'MISMATCH'}")
    print("verified: the segments hold exactly the DataFrame's rows" if not failures else f"{failures} mismatches")
    # the schema and table config beside the table's folder, for push --create-table (a controller without
    # the table, such as the quick start's, gets it created first)
    (out / f"{TABLE}_schema.json").write_text(json.dumps(SCHEMA, indent=2))
    (out / f"{TABLE}_table_config.json").write_text(json.dumps(TABLE_CONFIG, indent=2))
    print(f"upload them with: {_here(_cli())} push {_here(out / TABLE)} --url http://localhost:9000 --table {TABLE} "
          f"--create-table {_here(out / f'{TABLE}_schema.json')} {_here(out / f'{TABLE}_table_config.json')}")
    return 1 if failures else 0


def _cli() -> Path:
    """The pinot-sink script beside this interpreter (the virtualenv's, whether it is activated or not)."""
    found = Path(sys.executable).parent / "pinot-sink"
    return found if found.exists() else Path("pinot-sink")


def _here(path: Path) -> str:
    """``path`` as the user types it from here: relative when it is under the current folder."""
    try:
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
