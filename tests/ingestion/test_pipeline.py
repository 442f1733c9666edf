"""IngestionPipeline: ordering, existing values, errors, unsupported settings, complex types, time check."""
from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionError, IngestionPipeline, UnsupportedIngestionConfig
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig


def schema(*columns, time=None):
    specs = [{"name": n, "dataType": t, **({"singleValueField": False} if mv else {})} for n, t, mv in
             [(c[0], c[1], len(c) > 2) for c in columns]]
    out = {"schemaName": "t", "dimensionFieldSpecs": specs}
    if time:
        out["dateTimeFieldSpecs"] = [{"name": time[0], "dataType": "LONG", "format": time[1],
                                      "granularity": "1:MILLISECONDS"}]
    return PinotSchema.from_json(out)


def config(transforms=(), filter_function=None, **ingestion):
    ingestion = dict(ingestion)
    if transforms:
        ingestion["transformConfigs"] = [{"columnName": c, "transformFunction": f} for c, f in transforms]
    if filter_function:
        ingestion["filterConfig"] = {"filterFunction": filter_function}
    return {"tableName": "t", "segmentsConfig": {"timeColumnName": "ts"}, "ingestionConfig": ingestion}


def test_no_ingestion_config_is_identity():
    table = pa.table({"a": [1, 2]})
    pipeline = IngestionPipeline.from_configs(schema(("a", "INT")), TableConfig.from_json({"tableName": "t"}, schema(("a", "INT"))), table.schema)
    assert pipeline.is_identity
    assert pipeline.apply(table, 0).table is table


def test_chained_transforms_run_in_dependency_order_whatever_the_config_order():
    s = schema(("c", "LONG"), ("b", "LONG"))
    cfg = config([("c", "plus(b, 1)"), ("b", "times(a, 10)")])
    table = pa.table({"a": [1, 2]})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema)
    assert [t.column for t in pipeline.transforms] == ["b", "c"]
    out = pipeline.apply(table, 0).table
    assert out.column("c").to_pylist() == [11, 21]
    assert "a" not in out.column_names  # only feeds a transform, not in the schema


def test_a_cycle_is_an_error():
    with pytest.raises(ValueError, match="cycle"):
        IngestionPipeline.from_configs(schema(("a", "LONG"), ("b", "LONG")),
                                       TableConfig.from_json(config([("a", "plus(b, 1)"), ("b", "plus(a, 1)")]), schema(("a", "LONG"), ("b", "LONG"))), pa.schema([]))


def test_an_existing_value_is_kept_and_only_nulls_are_filled():
    s = schema(("d", "INT"))
    table = pa.table({"d": pa.array([7, None], pa.int32()), "ts": pa.array([0, 86_400_000 * 3], pa.int64())})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(config([("d", "toEpochDays(ts)")]), s), table.schema)
    assert pipeline.apply(table, 0).table.column("d").to_pylist() == [7, 3]


def test_results_take_the_column_type_as_pinot_converts_them():
    s = schema(("l", "LONG"), ("i", "INT"), ("s", "STRING"), ("b", "BOOLEAN"), ("mv", "STRING", True),
               ("one", "STRING"))
    cfg = config([("l", "p * 100"), ("i", "p * 100"), ("s", "p * 2"), ("b", "p > 0"), ("mv", "split(t, ',')"),
                  ("one", "split(t, ',')")])
    table = pa.table({"p": [0.29, -1.99], "t": ["x", ""]})  # split("") is an empty array (",," gives [""])
    out = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema).apply(table, 0).table
    assert out.column("l").to_pylist() == [28, -199]  # (long) 28.999999999999996
    assert out.column("i").type == pa.int32()
    assert out.column("s").to_pylist() == ["0.58", "-3.98"]  # Double.toString
    assert out.column("b").to_pylist() == [1, 0]  # BOOLEAN in its stored form
    assert out.column("mv").to_pylist() == [["x"], None]  # an empty array is null
    assert out.column("one").to_pylist() == ["x", None]  # a one-element array into a single value


def test_filter_drops_true_rows_only_and_counts_them():
    s = schema(("a", "INT"))
    table = pa.table({"a": pa.array([1, None, 3, 4], pa.int32())})
    result = IngestionPipeline.from_configs(s, TableConfig.from_json(config(filter_function="a > 2"), s), table.schema).apply(table, 0)
    assert result.table.column("a").to_pylist() == [1, None]
    assert (result.filtered_rows, result.error_rows) == (2, 0)


def test_a_failing_row_fails_the_batch_naming_column_and_row():
    s = schema(("n", "LONG"))
    table = pa.table({"t": ["2024-01-01", "oops"]})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(config([("n", "fromDateTime(t, 'yyyy-MM-dd')")]), s), table.schema)
    with pytest.raises(IngestionError, match=r"column 'n'.*row 41: cannot parse"):
        pipeline.apply(table, 40)


def test_continue_on_error_nulls_the_value_and_counts_the_row():
    s = schema(("n", "LONG"), ("k", "STRING"))
    cfg = config([("n", "fromDateTime(t, 'yyyy-MM-dd')")], "k = 1", continueOnError="true")
    table = pa.table({"t": ["2024-01-01", "oops", "2024-01-02"], "k": ["1", "2", "x"]})
    result = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema).apply(table, 0)
    # row 0 is filtered (k = 1), row 2's filter throws (kept, counted), row 1's transform throws
    assert result.filtered_rows == 1
    assert result.error_rows == 2
    assert result.table.column("n").to_pylist() == [None, 1704153600000]


def test_unsupported_settings_are_errors_naming_the_key_or_skipped_on_request():
    s = schema(("a", "STRING"))
    cfg = config([("a", "Groovy({x + 1}, x)")], enrichmentConfigs=[{"enricherType": "clpEnricher"}])
    with pytest.raises(UnsupportedIngestionConfig) as raised:
        IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), pa.schema([("x", pa.int64())]))
    assert "ingestionConfig.enrichmentConfigs" in str(raised.value)
    assert "transformConfigs[0]" in str(raised.value) and "Groovy" in str(raised.value)
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), pa.schema([("x", pa.int64())]), unsupported="skip")
    assert len(pipeline.skipped) == 2 and not pipeline.transforms


def test_pickles_and_gives_the_same_rows():
    s = schema(("d", "INT"))
    table = pa.table({"ts": pa.array([86_400_000 * 5], pa.int64())})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(config([("d", "toEpochDays(ts)")], "d > 10"), s), table.schema)
    clone = pickle.loads(pickle.dumps(pipeline))
    assert clone.apply(table, 0).table.equals(pipeline.apply(table, 0).table)


def test_schema_transform_function_is_applied():
    s = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "u", "dataType": "STRING", "transformFunction": "upper(x)"}]})
    table = pa.table({"x": ["ab"]})
    assert IngestionPipeline.from_configs(s, TableConfig.from_json({}, s), table.schema).apply(table, 0).table.column("u").to_pylist() == ["AB"]


def test_row_time_value_check():
    s = schema(("a", "INT"), time=("ts", "1:MILLISECONDS:EPOCH"))
    table = pa.table({"a": pa.array([1, 2], pa.int32()), "ts": pa.array([1_700_000_000_000, 5], pa.int64())})
    with pytest.raises(IngestionError, match="row 1: time value is not in the valid range"):
        IngestionPipeline.from_configs(s, TableConfig.from_json(config(rowTimeValueCheck=True), s), table.schema).apply(table, 0)
    result = IngestionPipeline.from_configs(s, TableConfig.from_json(config(rowTimeValueCheck=True, continueOnError=True), s),
                                            table.schema).apply(table, 0)
    assert result.table.column("ts").to_pylist() == [1_700_000_000_000, None] and result.error_rows == 1


# --- complex types ------------------------------------------------------------------------------------

ORDERS = pa.table({
    "id": [1, 2, 3],
    "customer": pa.array([{"name": "a", "address": {"city": "x"}}, None, {"name": "c", "address": None}]),
    "items": pa.array([[{"sku": "s1", "qty": 1}, {"sku": "s2", "qty": 2}], [], None]),
    "tags": pa.array([["p", "q"], [], None]),
    "nested": pa.array([[[1, 2]], [], None]),
})


def test_flatten_structs_and_unnest_arrays():
    s = schema(("id", "INT"), ("customer.name", "STRING"), ("customer.address.city", "STRING"),
               ("items.sku", "STRING"), ("items.qty", "INT"), ("tags", "STRING", True), ("nested", "STRING"))
    cfg = config(complexTypeConfig={"fieldsToUnnest": ["items"]})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), ORDERS.schema)
    out = pipeline.apply(ORDERS, 0).table
    assert out.schema == pipeline.output_schema
    assert out.column("id").to_pylist() == [1, 1, 2, 3]
    assert out.column("items.sku").to_pylist() == ["s1", "s2", None, None]
    assert out.column("items.qty").to_pylist() == [1, 2, None, None]
    assert out.column("customer.address.city").to_pylist() == ["x", "x", None, None]
    assert out.column("tags").to_pylist() == [["p", "q"], ["p", "q"], [], None]  # primitive lists stay lists
    # NON_PRIMITIVE -> JSON; an empty list has no first element to call non-primitive: it stays an empty array,
    # null in a column (tests/fixtures/complex_types/unnest_nested.json, Pinot's build)
    assert out.column("nested").to_pylist() == ["[[1,2]]", "[[1,2]]", None, None]


def test_collection_not_unnested_to_json_all_and_delimiter():
    cfg = config(complexTypeConfig={"delimiter": "_", "collectionNotUnnestedToJson": "ALL"})
    pipeline = IngestionPipeline.from_configs(schema(("customer_name", "STRING")), TableConfig.from_json(cfg, schema(("customer_name", "STRING"))), ORDERS.schema)
    out = pipeline.apply(ORDERS, 0).table
    assert out.column("customer_name").to_pylist() == ["a", None, "c"]
    assert out.column("tags").to_pylist() == ['["p","q"]', "[]", None]
    assert out.column("items").to_pylist()[0] == '[{"sku":"s1","qty":1},{"sku":"s2","qty":2}]'


def test_the_spark_scenario_without_spark(tmp_path):
    """The rows the Spark test expects, from the same configs through pipeline, type mapping and builder."""
    from pinot_sink.segment import read_segment
    from pinot_sink.segment.builder import build_segment
    from tests.ingestion.test_spark_ingestion import SCHEMA, TABLE_CONFIG, _expected, _order, _rows
    from type_mapping.convert import to_pinot_columns
    from type_mapping.reconcile import plan_write

    arrow_schema = pa.schema([("id", pa.int64()), ("ts", pa.int64()), ("status", pa.string()),
                              ("customer", pa.struct([("name", pa.string())])),
                              ("items", pa.list_(pa.struct([("sku", pa.string()), ("qty", pa.int32())]))),
                              ("price", pa.float64())])
    table = pa.Table.from_pylist([dict(zip(arrow_schema.names, r)) for r in _rows()], schema=arrow_schema)
    pinot_schema = PinotSchema.from_json(SCHEMA)
    result = IngestionPipeline.from_configs(pinot_schema, TableConfig.from_json(TABLE_CONFIG, pinot_schema), arrow_schema).apply(table, 0)
    assert result.filtered_rows == 5  # counted after unnesting: ids 0, 10, 20 (two items), 30
    built = build_segment(to_pinot_columns(result.table, pinot_schema, plan_write(result.table.schema, pinot_schema, table_config=TableConfig.from_json(TABLE_CONFIG, pinot_schema))), pinot_schema, TableConfig.from_json(TABLE_CONFIG, pinot_schema),
                          tmp_path, "orders_0", 1700000000000)
    expected = _expected()
    rows = sorted(({k: r[k] for k in expected[0]} for r in read_segment(str(built.tar_path)).table.to_pylist()),
                  key=_order)
    assert rows == expected


def test_timestamp_big_decimal_and_bytes_results_in_stored_form():
    s = schema(("t1", "TIMESTAMP"), ("t2", "TIMESTAMP"), ("d", "BIG_DECIMAL"), ("b", "BYTES"))
    cfg = config([("t1", "fromDateTime(x, 'yyyy-MM-dd')"), ("t2", "concat(x, ' 00:00:00')"), ("d", "p * 1"),
                  ("b", "lower(h)")])
    table = pa.table({"x": ["2024-01-02", None], "p": [1.5, 2.25], "h": ["0A0B", None]})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema)
    out = pipeline.apply(table, 0).table
    assert out.schema == pipeline.output_schema
    assert out.column("t1").to_pylist() == [1704153600000, None]
    assert out.column("t2").to_pylist() == [1704153600000, None]
    assert out.column("d").to_pylist() == ["1.5", "2.25"]
    assert out.column("b").to_pylist() == [b"\x0a\x0b", None]


# --- which rows a transform runs on (Pinot's ExpressionTransformer; outcomes from Pinot's own build: a row with a
# value of its own is not transformed, so it cannot fail; a transform of a column the schema lacks still runs) ---

_SKIP_SCHEMA = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
    {"name": "k", "dataType": "INT"}, {"name": "c", "dataType": "LONG"}, {"name": "s", "dataType": "STRING"},
    {"name": "s2", "dataType": "STRING"}]})


def _skip_apply(transform_column: str, rows: list[dict], continue_on_error: bool):
    source = "s" if transform_column == "c" else "s2"
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": continue_on_error, "transformConfigs": [
        {"columnName": transform_column, "transformFunction": f"fromDateTime({source}, 'yyyy-MM-dd')"}]}}
    table = pa.table({"k": pa.array([r["k"] for r in rows], pa.int32()),
                      "c": pa.array([r["c"] for r in rows], pa.int64()),
                      "s": pa.array([r["s"] for r in rows]), "s2": pa.array([r["s2"] for r in rows])})
    return IngestionPipeline.from_configs(_SKIP_SCHEMA, TableConfig.from_json(config, _SKIP_SCHEMA), table.schema).apply(table, 0)


_ROWS = [{"k": 0, "c": 5, "s": "bad", "s2": "2020-01-01"}, {"k": 1, "c": None, "s": "2020-01-02", "s2": "2020-01-01"},
         {"k": 2, "c": None, "s": "worse", "s2": "2020-01-01"}]


def test_a_row_with_its_own_value_is_not_transformed_so_cannot_fail():
    ok = _skip_apply("c", _ROWS[:2], False)  # Pinot builds it: row 0's bad text is never parsed
    assert ok.table.column("c").to_pylist() == [5, 1577923200000] and ok.error_rows == 0
    with pytest.raises(IngestionError, match="row 2: "):  # the first row without a value of its own fails
        _skip_apply("c", _ROWS, False)
    counted = _skip_apply("c", _ROWS, True)
    assert counted.table.column("c").to_pylist() == [5, 1577923200000, None] and counted.error_rows == 1


def test_a_transform_of_a_column_the_schema_lacks_still_runs():
    rows = [{"k": 0, "c": 5, "s": "2020-01-01", "s2": "2020-01-01"}, {"k": 1, "c": 6, "s": "2020-01-01", "s2": "nope"}]
    with pytest.raises(IngestionError, match="row 1: "):  # Pinot's build fails on it too
        _skip_apply("x", rows, False)
    counted = _skip_apply("x", rows, True)
    assert counted.table.num_rows == 2 and "x" not in counted.table.column_names and counted.error_rows == 1


@pytest.mark.parametrize("expression, column_type, expected, failing", [
    ("CASE WHEN greaterThan(n, 0) THEN fromEpochSecondsMV(ia) ELSE s END", ("c", "STRING"), [None, "y", "z"], 1),
    ("coalesce(doyMV(ia), s)", ("c", "STRING"), [None, None, "z"], 2),
    ("CASE WHEN greaterThan(n, 0) THEN fromEpochSecondsMV(ia) END", ("c", "LONG", True), [None, None, None], 1),
])
def test_a_case_branch_returning_a_primitive_array_fails_its_rows_as_the_array_would(expression, column_type,
                                                                                      expected, failing):
    # seed 303: CASE ... THEN fromEpochSecondsMV(ia) END into a STRING column, where Pinot stores the long[]'s
    # identity text '[J@1059754c' (round7_search_303 keeps its answers); the rows taking the branch fail as the
    # array itself does as a transform's value, the other rows keep their branch's value
    s = schema(column_type)
    table = pa.table({"n": [1, 0, 0], "ia": pa.array([[1, 2], [3], None], pa.list_(pa.int64())), "s": ["x", "y", "z"]})
    cfg = config([("c", expression)], continueOnError=True)
    result = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema).apply(table, 0)
    assert result.table.column("c").to_pylist() == expected and result.error_rows == failing


def test_a_json_column_the_pipeline_made_is_stored_as_pinot_wrote_it():
    # Pinot's DataTypeTransformer: Jackson writes a Map / an array as they are (1.0E10, -0.0), and reads a String
    # as JSON (' 12 x' is 12, decimals without trailing zeros); the writer must not read the former again
    # (round8_json_text, round8_json_arrays keep Pinot's answers)
    from type_mapping import plan_write, to_pinot_columns

    s = schema(("m", "JSON"), ("a", "JSON"), ("t", "JSON"), ("raw", "JSON"))
    cfg = config([("m", "jsonStringToMap(j)"), ("a", "split(j, ':')"), ("t", "concat(j, '')")])
    del cfg["segmentsConfig"]  # (no time column)
    table = pa.table({"j": ['{"x": 1.0E10, "y": -0.0}', " 12 x"], "raw": ['{"b": 1.50}', ""]})
    pipeline = IngestionPipeline.from_configs(s, TableConfig.from_json(cfg, s), table.schema)
    out = pipeline.apply(table, 0).table
    stored = to_pinot_columns(out, s, plan_write(out.schema, s, table_config=TableConfig.from_json(cfg, s))).table
    assert stored.column("m").to_pylist() == ['{"x":1.0E10,"y":-0.0}', "null"]
    assert stored.column("a").to_pylist() == ['["{\\"x\\""," 1.0E10, \\"y\\""," -0.0}"]', '[" 12 x"]']
    assert stored.column("t").to_pylist() == ['{"x":1E+10,"y":0}', "12"]
    assert stored.column("raw").to_pylist() == ['{"b":1.5}', ""]  # an input column: the writer reads it
