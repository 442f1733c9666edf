"""Write plans: name matching and case rules, missing and unknown columns, type checks before any task."""
from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from type_mapping import PinotSchema, PlanError, plan_write
from type_mapping.table_config import TableConfig

SCHEMA = PinotSchema.from_json({
    "schemaName": "orders",
    "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"},
        {"name": "City", "dataType": "STRING"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "payload", "dataType": "JSON"},
    ],
    "metricFieldSpecs": [{"name": "price", "dataType": "DOUBLE"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})


def _schema(**fields):
    return pa.schema(list(fields.items()))


def test_exact_and_case_insensitive_matching_and_missing_columns():
    plan = plan_write(_schema(ID=pa.int64(), city=pa.string(), price=pa.float32(), ts=pa.timestamp("us", tz="UTC")),
                      SCHEMA)
    assert plan.source_for("id") == "ID"
    assert plan.source_for("City") == "city"
    assert plan.source_for("price") == "price"
    assert plan.missing_columns == ["tags", "payload"]
    assert plan.source_columns == ["ID", "city", "price", "ts"]
    assert "City <- city" in plan.describe() and "tags <- (default null value)" in plan.describe()
    with pytest.raises(KeyError):
        plan.source_for("nope")


def test_case_sensitive_makes_case_mismatches_unknown():
    with pytest.raises(PlanError) as info:
        plan_write(_schema(city=pa.string()), SCHEMA, case_sensitive=True)
    assert "['city'] are not in the Pinot schema" in str(info.value)
    assert plan_write(_schema(City=pa.string()), SCHEMA, case_sensitive=True).source_for("City") == "City"


def test_unknown_columns_error_or_ignored():
    with pytest.raises(PlanError) as info:
        plan_write(_schema(id=pa.int64(), extra=pa.int32(), more=pa.string()), SCHEMA)
    assert "['extra', 'more'] are not in the Pinot schema 'orders'" in str(info.value)
    assert "set option 'schema.unknown-columns'=ignore" in str(info.value)  # the option a user types
    plan = plan_write(_schema(id=pa.int64(), extra=pa.int32()), SCHEMA, ignore_unknown_columns=True)
    assert plan.ignored_columns == ("extra",) and plan.source_columns == ["id"]


def test_duplicate_source_names_ignoring_case():
    with pytest.raises(PlanError, match="'id' and 'ID' have the same name ignoring case"):
        plan_write(_schema(id=pa.int64(), ID=pa.int64()), SCHEMA)
    # with case sensitivity they are distinct; 'ID' is then unknown
    plan = plan_write(_schema(id=pa.int64(), ID=pa.int64()), SCHEMA, case_sensitive=True,
                      ignore_unknown_columns=True)
    assert plan.source_for("id") == "id"


def test_pinot_columns_differing_only_in_case_exact_match_wins():
    schema = PinotSchema.from_json({"schemaName": "s", "dimensionFieldSpecs": [
        {"name": "a", "dataType": "INT"}, {"name": "A", "dataType": "INT"}]})
    plan = plan_write(_schema(A=pa.int32()), schema)
    assert plan.source_for("A") == "A" and plan.source_for("a") is None


def test_ambiguous_case_insensitive_match():
    schema = PinotSchema.from_json({"schemaName": "s", "dimensionFieldSpecs": [
        {"name": "ab", "dataType": "INT"}, {"name": "AB", "dataType": "INT"}]})
    with pytest.raises(PlanError, match=r"'Ab' matches Pinot columns \['ab', 'AB'\] ignoring case"):
        plan_write(_schema(Ab=pa.int32()), schema)


def test_every_problem_reported_at_once():
    with pytest.raises(PlanError) as info:
        plan_write(_schema(id=pa.list_(pa.int64()), tags=pa.list_(pa.list_(pa.string())),
                           price=pa.duration("s"), payload=pa.binary(), extra=pa.int8()), SCHEMA)
    text = str(info.value)
    assert "column 'id'" in text and "multi-value" in text
    assert "column 'tags'" in text and "nested array" in text
    assert "column 'price'" in text and "INTERVAL" in text
    assert "column 'payload'" in text and "cannot be converted to Pinot JSON" in text
    assert "['extra']" in text


def test_two_sources_for_one_pinot_column():
    with pytest.raises(PlanError) as info:
        plan_write(_schema(City=pa.string(), CITY=pa.string()), SCHEMA)
    assert "'City' and 'CITY' have the same name ignoring case" in str(info.value)
    assert "Pinot column 'City' is fed by both 'City' and 'CITY'" in str(info.value)


def test_time_column_must_exist():
    with pytest.raises(PlanError, match="time column 'day' is not in the Pinot schema"):
        plan_write(_schema(id=pa.int64()), SCHEMA, table_config=TableConfig.from_json({"segmentsConfig": {"timeColumnName": "day"}}, SCHEMA))


def test_plan_pickles_and_keeps_the_time_column():
    config = {"segmentsConfig": {"timeColumnName": "ts"}}
    plan = plan_write(_schema(id=pa.int64(), ts=pa.timestamp("us")), SCHEMA, table_config=TableConfig.from_json(config, SCHEMA))
    again = pickle.loads(pickle.dumps(plan))
    assert again == plan and again.time_column == "ts"


def test_spark_struct_with_unmappable_column():
    T = pytest.importorskip("pyspark.sql.types")
    struct = T.StructType([T.StructField("v", T.VariantType()), T.StructField("id", T.LongType())])
    assert plan_write(struct, SCHEMA, ignore_unknown_columns=True).ignored_columns == ("v",)
    schema = PinotSchema.from_json({"schemaName": "s", "dimensionFieldSpecs": [{"name": "v", "dataType": "STRING"}]})
    with pytest.raises(PlanError, match=r"column 'v' \(from 'v'\): its Spark type has no Pinot mapping"):
        plan_write(struct, schema, ignore_unknown_columns=True)
