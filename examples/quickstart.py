"""The README's quick start: a first write to a new table is one call (table.create=if-missing).

    .venv/bin/python examples/quickstart.py [http://localhost:9000]
"""
import sys

from pyspark.sql import SparkSession

import pinot_sink

url = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:9000"
spark = SparkSession.builder.master("local[2]").appName("pinot-sink-quickstart").getOrCreate()
clicks = spark.sql("""
    SELECT id AS click_id, element_at(array('US', 'DE', 'JP'), CAST(id % 3 + 1 AS INT)) AS country,
           CAST(id % 100 AS DECIMAL(10, 2)) AS price, timestamp_seconds(1700000000 + id * 60) AS ts
    FROM range(10000)""")
result = pinot_sink.write(clicks, "clicks", url=url, **{
    "table.create": "if-missing",              # derive the schema from the DataFrame, create schema + table
    "table.time-column": "ts",
    "table.inverted-index-columns": "country",
    "write.id": "clicks-quickstart",           # run it again: it replaces its own rows, never doubles them
})
print(f"wrote {result.rows} rows in {len(result.segments)} segment(s) to table {result.table}")
spark.stop()
