"""pinot_sink.partitioning without Spark: a task's buffer cuts one segment per partition id (the metadata's
partitionValues has one entry), MV partitioned columns are left out, and partition_by is checked."""
from __future__ import annotations

import json
import tempfile

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.controller.push import metadata_files
from pinot_sink.job import prepare_job
from pinot_sink.partitioning import PartitionByError, check_partition_by, partitioned_columns
from pinot_sink.segment.read.segment_metadata import parse_segment_metadata
from pinot_sink.task import write_partition
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

SCHEMA = {"schemaName": "events",
          "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}, {"name": "shop", "dataType": "INT"},
                                  {"name": "tags", "dataType": "STRING", "singleValueField": False}],
          "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}]}
PARTITIONS = {"country": {"functionName": "Murmur", "numPartitions": 4},
              "shop": {"functionName": "Modulo", "numPartitions": 3},
              "tags": {"functionName": "Murmur", "numPartitions": 2}}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
          "tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": PARTITIONS}}, "metadata": {}}
COUNTRIES = np.array(["US", "DE", "FR", "JP", "BR", "IN", "CA"])


def _batches(rows: int, size: int = 1000):
    for start in range(0, rows, size):
        ids = np.arange(start, min(rows, start + size))
        yield pa.record_batch({"country": pa.array(COUNTRIES[ids * 7919 % 7]), "shop": (ids % 10).astype(np.int32),
                               "tags": pa.array([["a", "b"]] * len(ids)), "value": ids})


def _models():
    schema = PinotSchema.from_json(SCHEMA)
    return TableConfig.from_json(CONFIG, schema), schema


def test_a_task_cuts_one_segment_per_partition_id_of_every_column():
    job = prepare_job({"table-name": "events", "schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG),
                       "output-uri": tempfile.mkdtemp(), "creation-time": "0"},
                      next(_batches(1)).schema, overwrite=False, streaming=False)
    report = write_partition(job, _batches(5000), partition_id=0, threads=1)
    assert sum(s.rows for s in report.segments) == 5000
    metas = [parse_segment_metadata(metadata_files(s.staged_uri.removeprefix("file://"))["metadata.properties"])
             for s in report.segments]
    pairs = [(m.columns["country"].partitions, m.columns["shop"].partitions) for m in metas]
    assert all(len(c) == 1 and len(s) == 1 for c, s in pairs), pairs
    assert len(set(pairs)) == len(pairs) == 4 * 3  # one segment per (country id, shop id) present
    assert {m.columns["tags"].partitions for m in metas} == {()}  # MV: Pinot records no partition values


def test_partitioned_columns_leave_multi_value_out():
    config, schema = _models()
    assert partitioned_columns(config, schema) == ["country", "shop"]


@pytest.mark.parametrize("asked", [None, ["shop", "country", "tags"], ("COUNTRY", "shop", "tags")])
def test_partition_by_the_configs_columns_in_any_order(asked):
    config, schema = _models()
    assert check_partition_by(asked, config, schema, "events") == ["country", "shop"]


@pytest.mark.parametrize("asked", [["country"], ["country", "shop", "tags", "value"], "value", []])
def test_partition_by_other_columns_names_both(asked):
    config, schema = _models()
    with pytest.raises(PartitionByError) as failure:
        check_partition_by(asked, config, schema, "events")
    message = str(failure.value)
    assert "\n" not in message and "['country', 'shop', 'tags']" in message


def test_a_source_columns_ids_are_the_stored_values_ids_and_none_when_a_value_does_not_convert():
    from pinot_sink.partitioning import source_partition_ids
    from pinot_sink.segment.partition import partition_ids

    config, schema = _models()
    longs = pa.array([0, 1, 7, -1, 2**31 - 1], pa.int64())  # a Spark long column into the INT column 'shop'
    expected = partition_ids(pa.array([0, 1, 7, -1, 2**31 - 1], pa.int32()), schema["shop"], "Modulo", 3)
    assert source_partition_ids(longs, "shop", config, schema, source="shop").tolist() == expected.tolist()
    assert source_partition_ids(pa.array([1, 2**40], pa.int64()), "shop", config, schema, source="shop") is None


def test_keys_before_the_write_see_the_writes_instant():
    """pinot_sink.write's clustering pass runs the table config's transforms as the task does, now() included:
    the time bucket of a time column made by now() is the write's own instant's."""
    import json

    import pyarrow as pa

    from pinot_sink.job import prepare_job
    from pinot_sink.task import segment_keys_of_input

    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
              "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                      "granularity": "1:MILLISECONDS"}]}
    config = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
              "ingestionConfig": {"transformConfigs": [{"columnName": "ts", "transformFunction": "now()"}]}}
    batch = pa.RecordBatch.from_pydict({"country": ["US", "DE"]})
    job = prepare_job({"table-name": "events", "schema": json.dumps(schema), "table-config": json.dumps(config),
                       "sink.time-bucket": "day"}, batch.schema, overwrite=False, now_ms=1_700_000_000_000)
    width, keys_of = segment_keys_of_input(job)
    assert width == 1 and keys_of(batch)[0].tolist() == [1_700_000_000_000 // 86_400_000] * 2
