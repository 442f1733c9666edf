"""Shared bits of the data source tests: a small Pinot table, a DataFrame that fits it, readers."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
TABLE_CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE",
                "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
                "tableIndexConfig": {"loadMode": "MMAP"}, "metadata": {}}
BASE_MS = 1_700_000_000_000


def events_df(spark, rows: int = 3000, partitions: int = 2, start: int = 0):
    """Deterministic rows: value = id, ts = BASE + id seconds, country cycles through 5 codes."""
    from pyspark.sql import functions as F

    return spark.range(start, start + rows, numPartitions=partitions).select(
        F.element_at(F.array(*[F.lit(c) for c in ("US", "DE", "FR", "JP", "BR")]),
                     (F.col("id") % 5 + 1).cast("int")).alias("country"),
        F.col("id").alias("value"),
        F.timestamp_seconds(F.lit(BASE_MS // 1000) + F.col("id")).alias("ts"),  # timestamp_millis: Spark 3.5+
    )


def embedded_writer(df, out_dir, **options):
    writer = (df.write.format("pinot").option("table-name", "events").option("schema", json.dumps(SCHEMA))
              .option("table-config", json.dumps(TABLE_CONFIG)).option("output-uri", str(out_dir)))
    for key, value in options.items():
        writer = writer.option(key, str(value))
    return writer


def controller_writer(df, controller, **options):
    """``df.write.format("pinot")`` into the test controller's ``events`` table, with quick retries."""
    writer = df.write.format("pinot").option("table-name", "events").option("url", controller.url) \
        .option("retry.initial-backoff", "10ms").option("retry.max-backoff", "50ms")
    for key, value in options.items():
        writer = writer.option(key, str(value))
    return writer


def tarballs(out_dir, table: str = "events") -> dict[str, bytes]:
    folder = Path(out_dir) / table
    if not folder.is_dir():
        return {}
    return {p.name[: -len(".tar.gz")]: p.read_bytes() for p in sorted(folder.glob("*.tar.gz"))}


def read_rows(paths) -> pa.Table:
    from pinot_sink.segment import read_segment

    tables = [read_segment(os.fspath(p)).table for p in paths]
    return pa.concat_tables(tables) if tables else pa.table({})


def read_tar_bytes(blobs: dict[str, bytes], tmp_path) -> pa.Table:
    paths = []
    for name, data in blobs.items():
        path = Path(tmp_path) / f"{name}.tar.gz"
        path.write_bytes(data)
        paths.append(path)
    return read_rows(paths)


def controller_values(controller, tmp_path, column: str = "value", table: str = "events") -> list:
    """The sorted values of ``column`` over the segments a query of the test controller's table sees."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    segments = controller.segments(table)
    blobs = {name: segments[name].tar_bytes for name in controller.live_segments(table)}
    return sorted(read_tar_bytes(blobs, tmp_path).column(column).to_pylist()) if blobs else []


def prepared_job(schema: dict, table_config: dict, arrow_schema, *, out=None, url: str | None = None,
                 overwrite: bool = False, **options):
    """``prepare_job`` for Spark-free tests: the schema and table config inline (or the test controller's),
    quick retries, ``output-uri`` when given."""
    from pinot_sink.job import prepare_job

    raw = {"table-name": "events", **{k: str(v) for k, v in options.items()}}
    if url:
        raw.update({"url": url, "retry.initial-backoff": "10ms", "retry.max-backoff": "50ms"})
    else:
        raw.update({"schema": json.dumps(schema), "table-config": json.dumps(table_config)})
    if out is not None:
        raw["output-uri"] = str(out)
    return prepare_job(raw, arrow_schema, overwrite=overwrite)
