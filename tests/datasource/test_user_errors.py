"""A user's mistakes surface as one line naming the option, on the driver, before Spark runs; Spark's save
modes mean what they mean for other sources (real local Spark)."""
from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

import pinot_sink
from pinot_sink.spark_write import WriteCheckError
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, embedded_writer, events_df, tarballs

pytestmark = pytest.mark.spark


def _options(tmp_path, **extra):
    return {"schema": json.dumps(SCHEMA), "table-config": json.dumps(TABLE_CONFIG), "output-uri": str(tmp_path),
            **extra}


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    pinot_sink.register(spark)


@pytest.mark.parametrize("entry_point", ["data-source", "map-in-arrow"])
def test_write_checks_schema_before_spark_runs_and_names_the_option(spark, tmp_path, entry_point):
    df = events_df(spark, rows=10, partitions=1).withColumn("extra", F.lit(1))
    sc = spark.sparkContext
    sc.setJobGroup("pinot-sink-probe", "checks before Spark")
    try:
        with pytest.raises(WriteCheckError) as info:
            pinot_sink.write(df, "events", entry_point=entry_point, **_options(tmp_path))
        assert list(sc.statusTracker().getJobIdsForGroup("pinot-sink-probe")) == []  # no Spark job ran
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    message = str(info.value)
    assert message.startswith("pinot_sink.write to table events: cannot write this DataFrame")
    assert "set option 'schema.unknown-columns'=ignore" in message and "ignore_unknown_columns" not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_write_names_a_misspelled_option_in_one_line(spark, tmp_path):
    with pytest.raises(WriteCheckError, match=r"^pinot_sink.write to table events: unknown option "
                                             r"'sink.buffer-flush.maxrows' \(did you mean 'sink.buffer-flush.max-rows'"):
        pinot_sink.write(events_df(spark, rows=10, partitions=1), "events",
                         **_options(tmp_path, **{"sink.buffer-flush.maxrows": 10}))


def test_the_data_source_leads_with_the_message(spark, tmp_path):
    df = events_df(spark, rows=10, partitions=1).withColumn("extra", F.lit(1))
    with pytest.raises(Exception) as info:
        embedded_writer(df, tmp_path).mode("append").save()
    message = str(info.value)
    first = message.splitlines()[0]
    assert "PlanError: cannot write this DataFrame to Pinot table schema 'events'" in first
    assert "Traceback" not in message and "schema.unknown-columns" in message


@pytest.mark.parametrize("mode", ["error", "errorifexists"])
def test_mode_error_fails_when_the_table_holds_segments(spark, tmp_path, mode):
    df = events_df(spark, rows=100, partitions=1)
    first = pinot_sink.write(df, "events", mode=mode, **_options(tmp_path))  # an empty table: written
    assert first.rows == 100 and len(tarballs(tmp_path)) == 1
    with pytest.raises(WriteCheckError, match=r"^table events already holds 1 segment\(s\) and the save mode is "
                                             r"'error'.*'append'.*'overwrite'"):
        pinot_sink.write(df, "events", mode=mode, **_options(tmp_path))
    assert len(tarballs(tmp_path)) == 1


def test_mode_ignore_does_nothing_when_the_table_holds_segments(spark, tmp_path):
    df = events_df(spark, rows=100, partitions=1)
    assert pinot_sink.write(df, "events", mode="ignore", **_options(tmp_path)).rows == 100
    before = tarballs(tmp_path)
    result = pinot_sink.write(events_df(spark, rows=50, start=500, partitions=1), "events", mode="ignore",
                              **_options(tmp_path))
    assert result.mode == "ignore" and result.segments == () and tarballs(tmp_path) == before


@pytest.mark.parametrize("entry_point", ["data-source", "map-in-arrow"])
def test_an_error_inside_a_task_ends_sparks_python_traceback_in_one_line(spark, tmp_path, entry_point):
    schema = json.loads(json.dumps(SCHEMA))
    schema["metricFieldSpecs"][0]["dataType"] = "INT"
    df = events_df(spark, rows=100, partitions=1).withColumn(
        "value", F.when(F.col("value") == 42, F.lit(2**40)).otherwise(F.col("value")))
    with pytest.raises(pinot_sink.spark_write.WriteFailedError) as info:
        pinot_sink.write(df, "events", entry_point=entry_point, **_options(tmp_path, schema=json.dumps(schema)))
    line = str(info.value)  # the task's error in one line (issue 32 item 4), not Spark's traceback
    assert "\n" not in line and line.startswith("pinot_sink.write to table events failed: table events, partition 0: ")
    assert "'value'" in line and "row 42" in line and "set option 'convert.on-overflow'=null" in line, line
    assert str(2**40) in line, line  # the value itself
    if entry_point == "data-source":  # format("pinot") itself: Spark's exception, our line without a traceback
        writer = df.write.format("pinot").option("table-name", "events").mode("append")
        for key, value in _options(tmp_path, schema=json.dumps(schema)).items():
            writer = writer.option(key, value)
        with pytest.raises(Exception) as direct:
            writer.save()
        assert "Traceback" not in str(direct.value)
        assert "pinot_sink.partition_writer.PinotWriteError: table events, partition 0: " in str(direct.value)
