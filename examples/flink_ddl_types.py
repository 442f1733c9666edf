"""The Flink-DDL type path: one column list drives the Pinot schema and the DataFrame.

Teams moving a Flink SQL sink (`CREATE TABLE ... WITH ('connector' = 'pinot')`) to Spark keep their
column definitions: `type_mapping.flink_ddl_to_pinot` turns them into a Pinot schema (the WATERMARK
column becomes the time column, the PRIMARY KEY the primary key columns), and the same text, read as a
Spark DDL, types the DataFrame. The data source then writes it, with no controller, into ./pinot-segments.

    python examples/flink_ddl_types.py
"""
from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

FLINK_DDL = """
    page_id      BIGINT NOT NULL,
    url          STRING,
    referrer     VARCHAR(200),
    is_bot       BOOLEAN,
    latency_ms   INT,
    revenue      DECIMAL(10, 2),
    labels       ARRAY<STRING>,
    viewed_at    TIMESTAMP(3),
    WATERMARK FOR viewed_at AS viewed_at - INTERVAL '5' SECOND,
    PRIMARY KEY (page_id) NOT ENFORCED
"""
SPARK_DDL = ("page_id BIGINT, url STRING, referrer STRING, is_bot BOOLEAN, latency_ms INT, "
             "revenue DECIMAL(10,2), labels ARRAY<STRING>, viewed_at TIMESTAMP")


def main() -> int:
    from type_mapping.flink_ddl import flink_ddl_to_pinot

    schema = flink_ddl_to_pinot(FLINK_DDL, "page_views", metric_columns=["latency_ms", "revenue"])
    schema_json = schema.to_json()
    print("Pinot schema from the Flink DDL:\n" + json.dumps(schema_json, indent=2))
    table_config = {"tableName": "page_views_OFFLINE", "tableType": "OFFLINE",
                    "segmentsConfig": {"timeColumnName": "viewed_at"}, "tenants": {}, "tableIndexConfig": {},
                    "metadata": {}}

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    import pinot_sink

    pinot_sink.register(spark)
    rows = [
        (1, "/home", None, False, 120, Decimal("0.00"), ["landing"], datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)),
        (2, "/cart", "/home", False, 340, Decimal("19.99"), ["checkout", "ab-test"],
         datetime(2024, 5, 1, 12, 1, tzinfo=timezone.utc)),
        (3, "/robots.txt", None, True, None, None, [], datetime(2024, 5, 1, 12, 2, tzinfo=timezone.utc)),
    ]
    df = spark.createDataFrame(rows, SPARK_DDL)
    out = Path("pinot-segments").resolve()
    (df.write.format("pinot").option("table-name", "page_views").option("schema", json.dumps(schema_json))
       .option("table-config", json.dumps(table_config)).option("output-uri", str(out)).mode("append").save())
    spark.stop()

    from pinot_sink.segment import read_segment

    for path in sorted((out / "page_views").glob("*.tar.gz")):
        contents = read_segment(path)
        print(f"\n{path.name}: {contents.table.num_rows} rows")
        for row in contents.table.to_pylist():
            print("  ", row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
