"""DataFrames for the real-Pinot tier and the Pinot table they fit: rows spread over whole UTC days."""
from __future__ import annotations

from .cluster import BASE_MS, DAY_MS


def events_schema(table: str) -> dict:
    return {"schemaName": table,
            "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
            "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
            "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                    "granularity": "1:MILLISECONDS"}]}


def events_config(table: str, **extra) -> dict:
    return {"tableName": table, "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}, "metadata": {}, **extra}


def events(spark, start: int, stop: int, days: list[int], partitions: int = 2, scale: int = 1):
    """Rows ``id`` in [start, stop): value = id * scale, country one of 5, ts on day ``days[id % len(days)]``
    (a day index from BASE_MS) at second ``id % 80000`` of it."""
    from pyspark.sql import functions as F

    day_of = F.element_at(F.array(*[F.lit(d) for d in days]), (F.col("id") % len(days) + 1).cast("int"))
    return spark.range(start, stop, numPartitions=partitions).select(
        F.element_at(F.array(*[F.lit(c) for c in ("US", "DE", "FR", "JP", "BR")]),
                     (F.col("id") % 5 + 1).cast("int")).alias("country"),
        (F.col("id") * scale).alias("value"),
        (F.lit(BASE_MS) + day_of.cast("long") * DAY_MS + (F.col("id") % 80000) * 1000).alias("ts"),
    )


def day_ms(day: int) -> int:
    return BASE_MS + day * DAY_MS


def on_days(df, days: list[int], keep: bool = True):
    """The rows of ``df`` on (or, with ``keep=False``, off) the given day indexes."""
    from pyspark.sql import functions as F

    day = F.floor((F.col("ts") - BASE_MS) / DAY_MS)
    return df.where(day.isin(days) if keep else ~day.isin(days))
