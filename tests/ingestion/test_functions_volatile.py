"""Pinot's volatile functions at ingestion: ``rand()``, ``uuidV4()``, ``uuidV7()`` (a fresh value per row, as
Pinot's transformer calls them once a row) and ``sleep(ms)`` (its argument: the pause only runs with Java's
assertions on). Their values are random, so these tests hold the shape Pinot gives them: range and bits, one
draw per row and per call, and what Pinot's own UUID functions read back from them."""
from __future__ import annotations

import time
import uuid

import numpy as np
import pyarrow as pa

from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.functions.uuid_functions import random_uuid_bytes, uuid_texts
from test_functions import evaluate
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

ROWS = 20_000


def test_rand_is_a_fresh_double_in_zero_one_for_every_row():
    values, _ = evaluate("rand()", k=list(range(ROWS)))
    values = np.array(values)
    assert values.dtype == np.float64 and ((values >= 0) & (values < 1)).all()
    assert len(np.unique(values)) == ROWS  # no row shares a draw (a constant, or a draw per batch, fails)
    assert 0.45 < values.mean() < 0.55
    again, _ = evaluate("rand()", k=list(range(ROWS)))
    assert not np.array_equal(values, again)  # a fresh draw each time, not a fixed seed


def test_two_calls_in_one_expression_are_two_draws():
    values, _ = evaluate("rand() - rand()", k=list(range(1000)))
    assert sum(v != 0 for v in values) == 1000


def test_uuid_v4_texts_are_version_4_and_distinct():
    values, _ = evaluate("uuidV4()", k=list(range(ROWS)))
    parsed = [uuid.UUID(v) for v in values]
    assert all(str(u) == v for u, v in zip(parsed, values))  # the lowercase canonical text
    assert {u.version for u in parsed} == {4} and {u.variant for u in parsed} == {uuid.RFC_4122}
    assert len(set(values)) == ROWS
    versions, _ = evaluate("uuidVersion(UUID_V4())", k=list(range(10)))  # Pinot's own reading, and the alias
    assert versions == [4] * 10


def test_uuid_v7_holds_the_clock_in_its_first_48_bits():
    before = time.time_ns() // 1_000_000
    values, _ = evaluate("uuidV7()", k=list(range(ROWS)))
    stamps, _ = evaluate("uuidTimestamp(uuidV7())", k=list(range(10)))
    after = time.time_ns() // 1_000_000
    parsed = [uuid.UUID(v) for v in values]
    assert {u.version for u in parsed} == {7} and {u.variant for u in parsed} == {uuid.RFC_4122}
    assert len(set(values)) == ROWS
    assert all(before <= s <= after for s in stamps)
    assert all(before <= int(v.replace("-", "")[:12], 16) <= after for v in values)


def test_uuid_texts_are_pythons():
    raw = random_uuid_bytes(500, 4)
    assert uuid_texts(raw).to_pylist() == [str(uuid.UUID(bytes=bytes(row))) for row in raw]
    assert uuid_texts(raw[:0]).to_pylist() == []


def test_sleep_gives_its_argument():
    values, _ = evaluate("sleep(ms)", ms=pa.array([0, 5, None, 2**62], pa.int64()))
    assert values == [0, 5, None, 2**62]


def test_a_table_config_with_the_volatile_functions_builds():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "k", "dataType": "INT"}, {"name": "id", "dataType": "STRING"}, {"name": "id7", "dataType": "STRING"},
        {"name": "sample", "dataType": "DOUBLE"}, {"name": "slept", "dataType": "LONG"}]})
    config = {"tableName": "t", "ingestionConfig": {"transformConfigs": [
        {"columnName": "id", "transformFunction": "uuidV4()"},
        {"columnName": "id7", "transformFunction": "uuid_v7()"},
        {"columnName": "sample", "transformFunction": "rand()"},
        {"columnName": "slept", "transformFunction": "sleep(k)"}]}}
    table = pa.table({"k": pa.array(range(1000), pa.int32())})
    out = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema).apply(table, 0).table
    assert out.column("slept").to_pylist() == list(range(1000))
    assert len(set(out.column("id").to_pylist())) == 1000 and len(set(out.column("id7").to_pylist())) == 1000
    assert len(set(out.column("sample").to_pylist())) == 1000
