"""sink.time-bucket on randomly partitioned input: pinot_sink.write clusters rows by bucket first, so each
day makes one segment, not one per input partition (real local Spark, embedded)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import pinot_sink
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, embedded_writer, read_rows

pytestmark = pytest.mark.spark
DAY_S = 86_400
FIRST = 1_707_955_200  # 2024-02-15T00:00:00Z


def _scattered(spark, days: int = 7, per_day: int = 500):
    """Every day's rows spread over 4 partitions (round-robin), as a random shuffle leaves them."""
    return spark.range(days * per_day, numPartitions=1).select(
        F.lit("US").alias("country"), F.col("id").alias("value"),
        F.timestamp_seconds(F.lit(FIRST) + (F.col("id") % days) * DAY_S + F.col("id") / days).alias("ts"),
    ).repartition(4)


def _days(paths) -> Counter:
    return Counter(len({int(t) // (DAY_S * 1000) for t in read_rows([p]).column("ts").cast("int64").to_pylist()})
                   for p in paths)


def test_write_makes_one_segment_per_day_whatever_the_partitioning(spark, tmp_path):
    result = pinot_sink.write(_scattered(spark), "events", schema=json.dumps(SCHEMA),
                              **{"table-config": json.dumps(TABLE_CONFIG), "output-uri": str(tmp_path / "w"),
                                 "sink.time-bucket": "day"})
    paths = sorted(Path(tmp_path, "w", "events").glob("*.tar.gz"))
    assert len(result.segments) == len(paths) == 7 and {s.rows for s in result.segments} == {500}
    assert _days(paths) == Counter({1: 7})  # each segment holds one day


def test_the_data_source_alone_cuts_per_partition_and_bucket(spark, tmp_path):
    # what the docs say to do with format("pinot"): repartition by the bucket first; without it, 28 segments
    embedded_writer(_scattered(spark), tmp_path, **{"sink.time-bucket": "day"}).mode("append").save()
    assert len(list(Path(tmp_path, "events").glob("*.tar.gz"))) == 28


def test_a_time_column_made_by_a_transform_is_clustered_by_bucket_too(spark, tmp_path):
    """`ts` is the table config's `times(epoch_s, 1000)`: the buckets come from the stored times (the
    transform runs in a pass before the shuffle), so each day still makes one segment."""
    config = {**TABLE_CONFIG, "ingestionConfig": {
        "transformConfigs": [{"columnName": "ts", "transformFunction": "times(epoch_s, 1000)"}]}}
    df = _scattered(spark).select("country", "value", F.unix_timestamp("ts").alias("epoch_s"))
    result = pinot_sink.write(df, "events", schema=json.dumps(SCHEMA),
                              **{"table-config": json.dumps(config), "output-uri": str(tmp_path / "w"),
                                 "sink.time-bucket": "day"})
    paths = sorted(Path(tmp_path, "w", "events").glob("*.tar.gz"))
    assert len(result.segments) == len(paths) == 7 and {s.rows for s in result.segments} == {500}
    assert _days(paths) == Counter({1: 7})
