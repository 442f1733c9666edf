"""A table config with segmentPartitionConfig: every segment holds one partition id per partitioned column
(its metadata's partitionValues has one entry), as Pinot's partition pruning needs, on randomly partitioned
input (real local Spark, embedded); partition_by naming other columns is refused in one line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import pinot_sink
from pinot_sink.controller.push import metadata_files
from pinot_sink.segment.partition import partition_ids
from pinot_sink.segment.read.segment_metadata import parse_segment_metadata
from type_mapping.pinot_schema import FieldSpec
from tests.datasource.helpers import SCHEMA, TABLE_CONFIG, embedded_writer, read_rows

pytestmark = pytest.mark.spark
COUNTRIES = ["US", "DE", "FR", "JP", "BR", "IN", "CA", "GB", "MX", "IT", "ES", "NL"]
PARTITIONED = {**TABLE_CONFIG, "tableIndexConfig": {
    "segmentPartitionConfig": {"columnPartitionMap": {"country": {"functionName": "Murmur", "numPartitions": 4}}}}}
OPTIONS = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(PARTITIONED)}


def _scattered(spark, rows: int = 2400):
    """Countries spread over 4 partitions (round-robin over a hash), as a random shuffle leaves them."""
    countries = F.array(*[F.lit(c) for c in COUNTRIES])
    return spark.range(rows, numPartitions=1).select(
        F.element_at(countries, (F.pmod(F.hash("id"), F.lit(len(COUNTRIES))) + 1).cast("int")).alias("country"),
        F.col("id").alias("value"), F.timestamp_seconds(F.lit(1_700_000_000) + F.col("id")).alias("ts"),
    ).repartition(4)


def _partition_values(paths) -> list[tuple[int, ...]]:
    metas = [parse_segment_metadata(metadata_files(p)["metadata.properties"]) for p in paths]
    assert all(m.columns["country"].partition_function == "Murmur" for m in metas)
    return [m.columns["country"].partitions for m in metas]


def _expected_ids() -> set[int]:
    import pyarrow as pa

    return set(partition_ids(pa.array(COUNTRIES), FieldSpec("country", "STRING"), "Murmur", 4).tolist())


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
def test_write_makes_one_partition_per_segment_and_one_segment_per_partition(spark, tmp_path):
    result = pinot_sink.write(_scattered(spark), "events", partition_by=["country"],
                              **OPTIONS, **{"output-uri": str(tmp_path)})
    paths = sorted(Path(tmp_path, "events").glob("*.tar.gz"))
    values = _partition_values(paths)
    assert all(len(v) == 1 for v in values), values  # each segment: one partition id
    assert sorted(v[0] for v in values) == sorted(_expected_ids())  # clustered: one segment per id
    assert len(result.segments) == len(paths) and sum(s.rows for s in result.segments) == 2400
    assert sorted(read_rows(paths).column("value").to_pylist()) == list(range(2400))


def test_without_partition_by_the_table_config_still_decides(spark, tmp_path):
    result = pinot_sink.write(_scattered(spark), "events", **OPTIONS, **{"output-uri": str(tmp_path),
                                                                          "sink.buffer-flush.max-rows": 250})
    values = _partition_values(sorted(Path(tmp_path, "events").glob("*.tar.gz")))
    assert all(len(v) == 1 for v in values) and {v[0] for v in values} == _expected_ids()
    assert sum(s.rows for s in result.segments) == 2400


def test_the_data_source_alone_cuts_one_segment_per_partition_id_per_task(spark, tmp_path):
    # format("pinot") cannot repartition its input: each of the 4 tasks cuts a segment per id it holds
    embedded_writer(_scattered(spark), tmp_path).option("table-config", json.dumps(PARTITIONED)) \
        .mode("append").save()
    values = _partition_values(sorted(Path(tmp_path, "events").glob("*.tar.gz")))
    assert all(len(v) == 1 for v in values) and len(values) > len(_expected_ids())


@pytest.mark.parametrize("asked", [["value"], ["country", "value"], "ts"])
def test_partition_by_other_columns_is_one_line_naming_both(spark, tmp_path, asked):
    with pytest.raises(pinot_sink.spark_write.WriteCheckError) as failure:
        pinot_sink.write(_scattered(spark, 10), "events", partition_by=asked, **OPTIONS,
                         **{"output-uri": str(tmp_path)})
    message = str(failure.value)
    assert "\n" not in message and "['country']" in message and "segmentPartitionConfig" in message
    assert str([asked] if isinstance(asked, str) else asked) in message
    assert not Path(tmp_path, "events").exists()


def test_partition_by_on_a_table_without_partitions_is_refused(spark, tmp_path):
    with pytest.raises(pinot_sink.spark_write.WriteCheckError, match=r"has no tableIndexConfig\.segmentPartitionConfig"):
        pinot_sink.write(_scattered(spark, 10), "events", partition_by="country", schema=json.dumps(SCHEMA),
                         **{"table-config": json.dumps(TABLE_CONFIG), "output-uri": str(tmp_path)})


def test_format_pinot_partition_by_is_refused_by_spark_before_our_code(spark, tmp_path):
    # A Python data source cannot declare a partitioning (Spark's PythonTable has none), so Spark's
    # DataFrameWriter refuses partitionBy for it: what docs/data-source.md says, pinned so a Spark that lets
    # it through is noticed.
    with pytest.raises(Exception, match=r"partitioning or clustering columns do not match") as failure:
        embedded_writer(_scattered(spark, 10), tmp_path).option("table-config", json.dumps(PARTITIONED)) \
            .partitionBy("country").mode("append").save()
    assert "identity(country)" in str(failure.value) and not Path(tmp_path, "events").exists()


@pytest.mark.slow  # issue 36: among the heaviest of make test (55-105 s at load 20, several Spark jobs); make test-slow runs it
def test_a_partition_column_made_by_a_transform_is_clustered_too(spark, tmp_path):
    """`country` is the table config's `upper(src)`, and a filter drops every tenth row: the keys come from the
    stored values (the transforms run in a pass before the shuffle), still one segment per partition id."""
    config = {**PARTITIONED, "ingestionConfig": {
        "transformConfigs": [{"columnName": "country", "transformFunction": "upper(src)"}],
        "filterConfig": {"filterFunction": "value % 10 = 0"}}}
    df = _scattered(spark).select(F.lower("country").alias("src"), "value", "ts")
    result = pinot_sink.write(df, "events", schema=json.dumps(SCHEMA), **{"table-config": json.dumps(config),
                                                                           "output-uri": str(tmp_path)})
    paths = sorted(Path(tmp_path, "events").glob("*.tar.gz"))
    values = _partition_values(paths)
    assert all(len(v) == 1 for v in values), values
    assert sorted(v[0] for v in values) == sorted(_expected_ids())  # clustered: one segment per id
    assert sorted(read_rows(paths).column("value").to_pylist()) == [v for v in range(2400) if v % 10]
    assert set(read_rows(paths).column("country").to_pylist()) == set(COUNTRIES)
    assert sum(s.rows for s in result.segments) == 2160
