"""df.write.format("pinot") with no controller: segments land in output-uri (real local Spark)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.compute as pc
import pytest

import pinot_sink
from pinot_sink.naming import write_tag
from tests.datasource.helpers import BASE_MS, SCHEMA, TABLE_CONFIG, embedded_writer, events_df, read_rows, tarballs

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    assert pinot_sink.register(spark) is True  # no JVM 'pinot' source on this classpath


def test_append_writes_readable_segments_with_deterministic_names(spark, tmp_path):
    df = events_df(spark, rows=3000, partitions=2)
    options = {"sink.buffer-flush.max-rows": 1000, "creation-time": "1700000000000", "write.id": "daily_1"}
    embedded_writer(df, tmp_path, **options).mode("append").save()
    first = tarballs(tmp_path)
    tag = write_tag("daily_1")
    # 1500 rows per partition, cut at exactly 1000: two segments per partition, sequence inside partition.
    shapes = sorted(re.sub(r"_r[0-9a-z]+_", "_R_", name) for name in first)
    assert shapes == [
        f"events_{BASE_MS}_{BASE_MS + 999_000}_{tag}_R_0_0", f"events_{BASE_MS + 1_000_000}_{BASE_MS + 1_499_000}_{tag}_R_0_1",
        f"events_{BASE_MS + 1_500_000}_{BASE_MS + 2_499_000}_{tag}_R_1_0",
        f"events_{BASE_MS + 2_500_000}_{BASE_MS + 2_999_000}_{tag}_R_1_1",
    ]
    table = read_rows(Path(tmp_path, "events").glob("*.tar.gz"))
    assert table.num_rows == 3000
    assert pc.sum(table.column("value")).as_py() == sum(range(3000))
    assert sorted(table.column("value").to_pylist()) == list(range(3000))
    assert pc.min(table.column("ts").cast("int64")).as_py() == BASE_MS
    assert not Path(tmp_path, "events", "_staging").exists() or not any(Path(tmp_path, "events", "_staging").iterdir())

    # A rerun of the same write replaces all of its segments, here with another partitioning: no extra row.
    embedded_writer(events_df(spark, rows=3000, partitions=3), tmp_path, **options).mode("append").save()
    again = tarballs(tmp_path)
    assert len(again) == 3 and set(again).isdisjoint(first)
    assert sorted(read_rows(Path(tmp_path, "events").glob("*.tar.gz")).column("value").to_pylist()) == list(range(3000))

    # Another write (no write.id: a fresh one) appends, and leaves the earlier write's segments alone.
    embedded_writer(events_df(spark, rows=100, start=3000, partitions=1), tmp_path).mode("append").save()
    assert set(again) < set(tarballs(tmp_path))
    assert sorted(read_rows(Path(tmp_path, "events").glob("*.tar.gz")).column("value").to_pylist()) == list(range(3100))


def test_overwrite_replaces_the_directory_contents(spark, tmp_path):
    embedded_writer(events_df(spark, rows=2000), tmp_path).option("sink.buffer-flush.max-rows", 500) \
        .mode("append").save()
    assert len(tarballs(tmp_path)) == 4
    embedded_writer(events_df(spark, rows=300, start=10_000), tmp_path).mode("overwrite").save()
    after = tarballs(tmp_path)
    assert len(after) == 2  # every earlier segment went, whichever write it belonged to
    table = read_rows(Path(tmp_path, "events").glob("*.tar.gz"))
    assert sorted(table.column("value").to_pylist()) == list(range(10_000, 10_300))


@pytest.mark.parametrize("mode", ["errorifexists", "ignore"])
def test_modes_spark_cannot_hand_us_are_errors(spark, tmp_path, mode):
    with pytest.raises(Exception, match="UNSUPPORTED_DATA_SOURCE_SAVE_MODE|Append.*Overwrite"):
        embedded_writer(events_df(spark, rows=10), tmp_path).mode(mode).save()
    assert tarballs(tmp_path) == {}


def test_max_size_cuts_and_version_and_name_options(spark, tmp_path):
    options = {"sink.buffer-flush.max-size": "16kb", "sink.buffer-flush.max-rows": 100_000,
               "segment.name.postfix": "nightly", "segment-version": "v1"}
    embedded_writer(events_df(spark, rows=4000, partitions=1), tmp_path, **options).mode("append").save()
    names = sorted(tarballs(tmp_path))
    assert len(names) > 2 and all(re.search(r"_nightly_w[0-9a-f]{10}_r[0-9a-z]+_0_\d+$", n) for n in names)
    table = read_rows(Path(tmp_path, "events").glob("*.tar.gz"))
    assert table.num_rows == 4000


def test_normalized_date_names(spark, tmp_path):
    config = dict(TABLE_CONFIG, ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "APPEND",
                                                                          "segmentIngestionFrequency": "DAILY"}})
    embedded_writer(events_df(spark, rows=100, partitions=1), tmp_path, **{
        "table-config": json.dumps(config), "segment-name.type": "normalizedDate", "segment.name.prefix": "ev"})\
        .mode("append").save()
    [name] = tarballs(tmp_path)
    assert re.fullmatch(r"ev_2023-11-14_2023-11-14_w[0-9a-f]{10}_r[0-9a-z]+_0_0", name)


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
def test_fixed_name_one_segment_and_clear_error_for_more(spark, tmp_path):
    embedded_writer(events_df(spark, rows=50, partitions=1), tmp_path, **{
        "segment-name.type": "fixed", "segment.name": "events_backfill"}).mode("append").save()
    assert list(tarballs(tmp_path)) == ["events_backfill"]
    with pytest.raises(Exception, match="fixed allows one segment"):
        embedded_writer(events_df(spark, rows=50, partitions=1), tmp_path / "two", **{
            "segment-name.type": "fixed", "segment.name": "x", "sink.buffer-flush.max-rows": 20}).mode("append").save()
    assert tarballs(tmp_path / "two") == {}  # abort removed what the failed write added
    with pytest.raises(Exception, match="produced by partitions"):
        embedded_writer(events_df(spark, rows=50, partitions=2), tmp_path / "parts", **{
            "segment-name.type": "fixed", "segment.name": "x"}).mode("append").save()
    assert tarballs(tmp_path / "parts") == {}


def test_schema_mismatch_fails_fast_naming_the_column(spark, tmp_path):
    from pyspark.sql import functions as F

    df = events_df(spark, rows=10).withColumn("extra_col", F.lit(1))
    with pytest.raises(Exception, match="extra_col"):
        embedded_writer(df, tmp_path).mode("append").save()
    embedded_writer(df, tmp_path, **{"schema.unknown-columns": "ignore"}).mode("append").save()
    assert read_rows(Path(tmp_path, "events").glob("*.tar.gz")).num_rows == 10


def test_option_errors_surface_before_any_task(spark, tmp_path):
    with pytest.raises(Exception, match="did you mean 'sink.buffer-flush.max-rows'"):
        embedded_writer(events_df(spark, rows=10), tmp_path, **{"sink.buffer-flush.maxrows": 5}).mode("append").save()
    with pytest.raises(Exception, match="'schema' option"):
        events_df(spark, rows=10).write.format("pinot").option("table-name", "events").mode("append").save()
    assert tarballs(tmp_path) == {}


def test_conversion_error_names_partition_and_column(spark, tmp_path):
    from pyspark.sql import functions as F

    schema = json.loads(json.dumps(SCHEMA))
    schema["metricFieldSpecs"][0]["dataType"] = "INT"
    df = events_df(spark, rows=100, partitions=1).withColumn(
        "value", F.when(F.col("value") == 42, F.lit(2**40)).otherwise(F.col("value")))
    with pytest.raises(Exception, match=r"partition 0.*value"):
        embedded_writer(df, tmp_path, schema=json.dumps(schema)).mode("append").save()


def test_write_helper_applies_sink_parallelism(spark, tmp_path):
    import json as _json

    from tests.datasource.helpers import SCHEMA as _SCHEMA, TABLE_CONFIG as _CONFIG

    pinot_sink.write(events_df(spark, rows=90, partitions=1), "events", **{
        "sink.parallelism": 3, "schema": _json.dumps(_SCHEMA), "table-config": _json.dumps(_CONFIG),
        "output-uri": str(tmp_path)})
    names = tarballs(tmp_path)
    assert sorted(n.rsplit("_", 2)[1] for n in names) == ["0", "1", "2"]  # one segment per partition
    assert read_rows(Path(tmp_path, "events").glob("*.tar.gz")).num_rows == 90


def test_empty_dataframe_writes_nothing(spark, tmp_path):
    embedded_writer(events_df(spark, rows=0), tmp_path).mode("append").save()
    assert tarballs(tmp_path) == {}


def test_time_values_pinot_rejects_in_names_are_a_clear_error(spark, tmp_path):
    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
              "dateTimeFieldSpecs": [{"name": "day", "dataType": "STRING",
                                      "format": "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm:ss",
                                      "granularity": "1:SECONDS"}]}
    config = {"tableName": "events_OFFLINE", "segmentsConfig": {"timeColumnName": "day"}}
    df = spark.createDataFrame([("US", "2024-01-01 10:00:00")], "country STRING, day STRING")
    with pytest.raises(Exception, match=r"partition \d, segment 0 of the partition.*':'"):
        (df.write.format("pinot").option("table-name", "events").option("schema", json.dumps(schema))
           .option("table-config", json.dumps(config)).option("output-uri", str(tmp_path)).mode("append").save())
    assert tarballs(tmp_path) == {}
