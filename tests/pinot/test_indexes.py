"""A table with every index kind this cluster can load (sorted, inverted, range, bloom, JSON, TIMESTAMP, null
vector, raw ZSTANDARD forward, a disabled forward index, a star-tree), written by pinot_sink and queried
through the broker; each answer compared with Spark's. The Lucene kinds (text, FST, vector) and H3 are left
out: this cluster is built without Lucene and H3 (shared/pinot-cluster/README.md)."""
from __future__ import annotations

import pinot_sink

from .cluster import BASE_MS, DAY_MS

TABLE = "rp_indexes"
SCHEMA = {
    "schemaName": TABLE,
    "dimensionFieldSpecs": [
        {"name": "country", "dataType": "STRING"}, {"name": "city", "dataType": "STRING"},
        {"name": "payload", "dataType": "STRING"}, {"name": "raw_text", "dataType": "STRING"},
        {"name": "note", "dataType": "STRING"}, {"name": "fwd_off", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
CONFIG = {
    "tableName": TABLE, "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
    "tenants": {}, "metadata": {},
    "tableIndexConfig": {
        "loadMode": "MMAP", "nullHandlingEnabled": True, "sortedColumn": ["country"],
        "invertedIndexColumns": ["city", "fwd_off"], "rangeIndexColumns": ["value"], "bloomFilterColumns": ["city"],
        "jsonIndexColumns": ["payload"], "noDictionaryColumns": ["raw_text"],
        "starTreeIndexConfigs": [{"dimensionsSplitOrder": ["country", "city"], "skipStarNodeCreationForDimensions": [],
                                  "functionColumnPairs": ["COUNT__*", "SUM__value"], "maxLeafRecords": 10}],
    },
    "fieldConfigList": [
        {"name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
         "timestampConfig": {"granularities": ["DAY"]}},
        {"name": "raw_text", "encodingType": "RAW", "compressionCodec": "ZSTANDARD"},
        {"name": "fwd_off", "encodingType": "DICTIONARY", "indexTypes": ["INVERTED"],
         "properties": {"forwardIndexDisabled": "true"}},
    ],
}
ROWS = 4000


def frame(spark):
    from pyspark.sql import functions as F

    i = F.col("id")
    return spark.range(0, ROWS, numPartitions=2).select(
        F.concat(F.lit("k"), (i % 4).cast("string")).alias("country"),
        F.concat(F.lit("c"), (i % 13).cast("string")).alias("city"),
        F.concat(F.lit('{"k": "v'), (i % 5).cast("string"), F.lit('", "n": '), (i % 7).cast("string"),
                 F.lit("}")).alias("payload"),
        F.concat(F.lit("x"), (i % 11).cast("string")).alias("raw_text"),
        F.when(i % 3 == 0, F.lit(None)).otherwise(F.concat(F.lit("n"), (i % 2).cast("string"))).alias("note"),
        F.concat(F.lit("f"), (i % 3).cast("string")).alias("fwd_off"),
        i.alias("value"),
        F.timestamp_millis(F.lit(BASE_MS) + (i % 3) * DAY_MS + i * 1000).alias("ts"),
    )


def test_every_loadable_index_kind_answers_as_spark(spark, pinot):
    pinot.create(SCHEMA, CONFIG)
    df = frame(spark).cache()
    pinot_sink.write(df, TABLE, url=pinot.url, **{"retry.initial-backoff": "100ms"})
    df.createOrReplaceTempView("rows")

    def spark_rows(sql: str) -> list[list]:
        zone = spark.conf.get("spark.sql.session.timeZone")
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        try:
            return [list(r) for r in spark.sql(sql).collect()]
        finally:
            spark.conf.set("spark.sql.session.timeZone", zone)

    count = f"SELECT COUNT(*) FROM {TABLE}"
    pinot.wait_rows(count, [[ROWS]])
    checks = {  # Pinot SQL -> the same question in Spark SQL over the DataFrame
        f"SELECT COUNT(*) FROM {TABLE} WHERE city = 'c7'": "SELECT COUNT(*) FROM rows WHERE city = 'c7'",
        f"SELECT COUNT(*) FROM {TABLE} WHERE city IN ('c1', 'c12')":
            "SELECT COUNT(*) FROM rows WHERE city IN ('c1', 'c12')",
        f"SELECT COUNT(*), SUM(value) FROM {TABLE} WHERE value BETWEEN 100 AND 1999":
            "SELECT COUNT(*), SUM(value) FROM rows WHERE value BETWEEN 100 AND 1999",
        f"SELECT COUNT(*) FROM {TABLE} WHERE JSON_MATCH(payload, '\"$.k\" = ''v2''')":
            "SELECT COUNT(*) FROM rows WHERE get_json_object(payload, '$.k') = 'v2'",
        f"SELECT COUNT(*) FROM {TABLE} WHERE raw_text = 'x5'": "SELECT COUNT(*) FROM rows WHERE raw_text = 'x5'",
        f"SELECT COUNT(*) FROM {TABLE} WHERE note IS NULL": "SELECT COUNT(*) FROM rows WHERE note IS NULL",
        f"SELECT COUNT(*) FROM {TABLE} WHERE fwd_off = 'f1'": "SELECT COUNT(*) FROM rows WHERE fwd_off = 'f1'",
        f"SELECT COUNT(*) FROM {TABLE} WHERE country = 'k2' AND city = 'c3'":
            "SELECT COUNT(*) FROM rows WHERE country = 'k2' AND city = 'c3'",
        f"SELECT DATETRUNC('DAY', ts), COUNT(*) FROM {TABLE} GROUP BY DATETRUNC('DAY', ts) ORDER BY 1 LIMIT 10":
            "SELECT concat(date_format(date_trunc('DAY', ts), 'yyyy-MM-dd HH:mm:ss'), '.0'), COUNT(*) FROM rows "
            "GROUP BY 1 ORDER BY 1",  # the broker prints a TIMESTAMP as Java's Timestamp.toString, in UTC
    }
    for pinot_sql, spark_sql in checks.items():
        pinot.wait_rows(pinot_sql, spark_rows(spark_sql), timeout=30)

    # Star-tree: a group-by on its dimensions with its function pairs is answered from the tree's pre-aggregated
    # records, far fewer than the rows.
    star = f"SELECT country, COUNT(*), SUM(value) FROM {TABLE} GROUP BY country ORDER BY country LIMIT 10"
    pinot.wait_rows(star, spark_rows("SELECT country, COUNT(*), SUM(value) FROM rows GROUP BY country ORDER BY 1"))
    answer = pinot.query(star)
    assert answer["totalDocs"] == ROWS and 0 < answer["numDocsScanned"] <= 4 * 13, answer
    plain = pinot.query(f"SELECT COUNT(*), SUM(value) FROM {TABLE} WHERE raw_text = 'x1'")  # not a tree dimension
    assert plain["numDocsScanned"] > 4 * 13
    df.unpersist()
