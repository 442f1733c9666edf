"""complexTypeConfig on Arrow map columns (Spark MapType), as ComplexTypeTransformer flattens Java maps.

Facts (apache/pinot 210c2951e720, ComplexTypeTransformer and its test, BaseRecordExtractor.stringifyMapKey,
ArrowToPinotTypeConverter.convertMap): each map entry becomes ``<map><delimiter><key>``, recursively; the map
itself stays in the record; keys are ``toString()`` of the reader's Java value; nested entries are put after
their parent's, depth first, so they win over a key that holds the delimiter.
"""
from __future__ import annotations

import datetime as dt
import json
import decimal

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.complex_types import ComplexTypeSpec, java_map_key
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

STR_INT = pa.map_(pa.string(), pa.int64())


def spec(*columns, **kwargs) -> ComplexTypeSpec:
    return ComplexTypeSpec(columns=frozenset(columns), **kwargs)


def flat(table: pa.Table, *columns, **kwargs) -> dict:
    return spec(*columns, **kwargs).apply(table).to_pydict()


def test_entries_become_columns_null_and_empty_maps_give_nulls_the_map_kept_only_when_read():
    table = pa.table({"id": [1, 2, 3, 4], "m": pa.array([[("a", 1), ("b", 2)], [("b", 3)], None, []], STR_INT)})
    out = flat(table, "id", "m.a", "m.b", "m.zz")
    assert out == {"id": [1, 2, 3, 4], "m.a": [1, None, None, None], "m.b": [2, 3, None, None],
                   "m.zz": [None] * 4}  # a key no row has: a null column, as Pinot's missing field
    kept = flat(table, "m", "m.a")
    assert kept["m"] == table.column("m").to_pylist() and kept["m.a"] == [1, None, None, None]


def test_without_columns_every_key_of_the_batch_gives_a_column_in_first_seen_order():
    table = pa.table({"m": pa.array([[("b", 1)], [("a", 2), ("b", 3)]], STR_INT)})
    out = ComplexTypeSpec().apply(table)
    assert out.column_names == ["m", "m.b", "m.a"]
    assert out.column("m.b").to_pylist() == [1, 3]


def test_large_string_keys():
    table = pa.table({"m": pa.array([[("a", {"x": 1})], []], pa.map_(pa.large_string(), pa.struct([("x", pa.int64())])))})
    assert flat(table, "m.a", "m.a.x") == {"m.a": [{"x": 1}, None], "m.a.x": [1, None]}


def test_a_repeated_key_keeps_its_last_value():
    table = pa.table({"m": pa.array([[("a", 1), ("a", 2)]], STR_INT)})
    assert flat(table, "m.a")["m.a"] == [2]
    by_text = pa.table({"m": pa.array([[(1, "x"), (2, "y"), (1, "z")], [(1, "w")]], pa.map_(pa.int8(), pa.string()))})
    assert flat(by_text, "m.1")["m.1"] == ["z", "w"]


def test_nested_maps_are_flattened_recursively():
    inner = pa.map_(pa.string(), STR_INT)
    table = pa.table({"m": pa.array([[("x", [("y", 1), ("z", 2)])], [("x", None)], [("w", [])]], inner)})
    out = flat(table, "m.x.y", "m.x.z", "m.w.y", "m.x")
    assert out["m.x.y"] == [1, None, None]
    assert out["m.x.z"] == [2, None, None]
    assert out["m.w.y"] == [None, None, None]
    assert out["m.x"] == [[("y", 1), ("z", 2)], None, None]  # a nested map is a column too


def test_maps_inside_structs_and_structs_inside_maps():
    struct_with_map = pa.struct([("name", pa.string()), ("attrs", STR_INT)])
    map_of_structs = pa.map_(pa.string(), pa.struct([("a", pa.int32()), ("b", pa.string())]))
    table = pa.table({
        "s": pa.array([{"name": "n1", "attrs": [("k", 5)]}, None, {"name": "n3", "attrs": None}], struct_with_map),
        "m": pa.array([[("p", {"a": 1, "b": "x"})], [("p", None)], [("q", {"a": 3, "b": None})]], map_of_structs),
    })
    out = flat(table, "s.name", "s.attrs.k", "m.p.a", "m.p.b", "m.q.a")
    assert out["s.name"] == ["n1", None, "n3"]
    assert out["s.attrs.k"] == [5, None, None]
    assert out["m.p.a"] == [1, None, None] and out["m.p.b"] == ["x", None, None]
    assert out["m.q.a"] == [None, None, 3]
    assert "s" not in out and "m" not in out and "s.attrs" not in out  # not read: dropped as Pinot drops them


def test_non_string_keys_as_pinot_readers_stringify_them():
    ts = pa.timestamp("us", tz="UTC")
    table = pa.table({
        "i": pa.array([[(1, "one"), (-20, "minus")]], pa.map_(pa.int32(), pa.string())),
        "d": pa.array([[(1.0, "a"), (1e10, "b"), (0.1, "c")]], pa.map_(pa.float64(), pa.string())),
        "f": pa.array([[(0.1, "a")]], pa.map_(pa.float32(), pa.string())),
        "b": pa.array([[(True, "t")]], pa.map_(pa.bool_(), pa.string())),
        "day": pa.array([[(dt.date(2024, 2, 29), "leap")]], pa.map_(pa.date32(), pa.string())),
        "t": pa.array([[(dt.datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=dt.timezone.utc), "x"),
                        (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), "y")]], pa.map_(ts, pa.string())),
        "dec": pa.array([[(decimal.Decimal("1.50"), "x")]], pa.map_(pa.decimal128(5, 2), pa.string())),
        "bin": pa.array([[(b"\x00\x01", "x")]], pa.map_(pa.binary(), pa.string())),
    })
    names = ["i.1", "i.-20", "d.1.0", "d.1.0E10", "d.0.1", "f.0.1", "b.true", "day.2024-02-29",
             "t.2024-01-02T03:04:05.120Z", "t.2024-01-02T03:04:05Z", "dec.1.50", "bin.AAE="]
    out = flat(table, *names)
    assert [out[n][0] for n in names] == ["one", "minus", "a", "b", "c", "a", "t", "leap", "x", "y", "x", "x"]
    assert java_map_key(dt.datetime(2024, 1, 2, 0, 0, 0, 123456), ts) == "2024-01-02T00:00:00.123456Z"


def test_a_key_holding_the_delimiter_and_a_nested_entry_the_later_put_wins():
    nested = pa.map_(pa.string(), STR_INT)
    table = pa.table({"m": pa.array([
        [("a.b", [("c", 1)])],
        [("a", [("b.c", 2)])],
        [("a", [("b.c", 2)]), ("a.b", [("c", 1)])],  # Pinot visits a, then a.b: a.b's entry is put last
        [("a.b", [("c", 1)]), ("a", [("b.c", 2)])],
    ], nested)})
    assert flat(table, "m.a.b.c")["m.a.b.c"] == [1, 2, 1, 2]
    primitive = pa.table({"m": pa.array([[("x.y", 7)], [("x.y", 8)]], STR_INT)})
    assert flat(primitive, "m.x.y")["m.x.y"] == [7, 8]  # a key holding the delimiter is one column
    struct_or_key = pa.map_(pa.string(), pa.struct([("y", pa.int64())]))
    both = pa.table({"m": pa.array([[("x", {"y": 1})], [("x", None)]], struct_or_key)})
    assert flat(both, "m.x.y")["m.x.y"] == [1, None]


def test_a_custom_delimiter():
    table = pa.table({"m": pa.array([[("a", [("b", 1)])]], pa.map_(pa.string(), STR_INT))})
    assert flat(table, "m_a_b", delimiter="_")["m_a_b"] == [1]


def test_maps_inside_unnested_arrays_become_columns_of_each_row():
    items = pa.list_(pa.map_(pa.string(), pa.string()))
    table = pa.table({"id": [1, 2, 3], "items": pa.array([[[("sku", "s1")], [("sku", "s2"), ("c", "red")]], [], None],
                                                        items)})
    out = flat(table, "id", "items.sku", "items.c", fields_to_unnest=("items",))
    assert out == {"id": [1, 1, 2, 3], "items.sku": ["s1", "s2", None, None], "items.c": [None, "red", None, None]}
    # a read unnested field keeps the whole original list on every row (Pinot puts it back for its readers)
    kept = flat(table, "items", "items.sku", fields_to_unnest=("items",))
    assert kept["items"][:2] == ['[{"sku":"s1"},{"sku":"s2","c":"red"}]'] * 2  # then to JSON (NON_PRIMITIVE)


def test_nested_unnest_through_map_entries():
    element = pa.map_(pa.string(), pa.list_(pa.string()))
    table = pa.table({"a": pa.array([[[("tags", ["x", "y"])], [("tags", [])]]], pa.list_(element))})
    out = flat(table, "a.tags", fields_to_unnest=("a.tags", "a"))  # sorted: a first, then a.tags
    assert out["a.tags"] == ["x", "y", None]
    of_maps = pa.table({"m": pa.array([[("l", [[("k", "v1")], [("k", "v2")]])]],
                                      pa.map_(pa.string(), pa.list_(pa.map_(pa.string(), pa.string()))))})
    out = flat(of_maps, "m.l", "m.l.k", fields_to_unnest=("m.l",))
    assert out == {"m.l.k": ["v1", "v2"]}  # m.l is not an input column: Pinot has no copy to put back


def test_collection_not_unnested_to_json_with_arrays_of_maps():
    items = pa.list_(pa.map_(pa.int32(), pa.float64()))
    table = pa.table({"l": pa.array([[[(1, 1e10)], []], [], None], items),
                      "p": pa.array([[1, 2], [], None], pa.list_(pa.int32()))})
    out = flat(table, "l", "p")
    # Java key text, Jackson's doubles, an empty map {}; an empty list has no first element to call non-primitive,
    # so it stays an empty array, null in a column (tests/fixtures/complex_types/unnest_nested.json, Pinot's build)
    assert out["l"] == ['[{"1":1.0E10},{}]', None, None]
    assert out["p"] == [[1, 2], [], None]
    assert flat(table, "l", "p", collection_to_json="ALL")["p"] == ["[1,2]", "[]", None]
    assert flat(table, "l", "p", collection_to_json="NONE")["l"] == table.column("l").to_pylist()
    in_map = pa.table({"m": pa.array([[("k", [[("x", 1)]])]], pa.map_(pa.string(), pa.list_(STR_INT)))})
    assert flat(in_map, "m.k")["m.k"] == ['[{"x":1}]']  # a list in a map entry is a column, then JSON


def test_prefixes_to_rename_apply_to_map_columns_and_are_undone_to_find_the_keys():
    table = pa.table({"map1": pa.array([[("b", 1), ("c", 2)]], STR_INT), "map2": pa.array([[("c", 3)]], STR_INT)})
    out = flat(table, "b", "test.c", "test", prefixes_to_rename=(("map1.", ""), ("map2", "test")))
    assert out == {"b": [1], "test": [[("c", 3)]], "test.c": [3]}
    clash = table.append_column("b", pa.array([9]))
    with pytest.raises(ValueError, match=r"prefixesToRename: row 0: columns 'b' and 'map1.b' are both renamed"):
        spec("b", prefixes_to_rename=(("map1.", ""),)).apply(clash)
    fills = table.append_column("b", pa.array([None], pa.int64()))  # Pinot's conflict needs a value there
    assert flat(fills, "b", prefixes_to_rename=(("map1.", ""),))["b"] == [1]


def test_a_schema_column_named_like_the_map_gets_the_whole_map_as_json(tmp_path):
    """Pinot >= 1.2 keeps the map in the record: a JSON column ``attrs`` still gets it next to ``attrs.color``."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "id", "dataType": "INT"}, {"name": "attrs", "dataType": "JSON"},
        {"name": "attrs.color", "dataType": "STRING"}, {"name": "size", "dataType": "LONG"},
        {"name": "info.n", "dataType": "INT"}]})
    config = {"tableName": "t", "ingestionConfig": {
        "complexTypeConfig": {},
        "transformConfigs": [{"columnName": "size", "transformFunction": "\"attrs.size\" * 10"}],
        "filterConfig": {"filterFunction": "startsWith(\"attrs.drop\", 'y')"}}}
    table = pa.table({"id": pa.array([1, 2, 3, 4], pa.int32()),
                      "attrs": pa.array([[("color", "red"), ("size", "2")], [("drop", "yes")], None,
                                         [("color", "blue"), ("other", "x")]], pa.map_(pa.string(), pa.string())),
                      "info": pa.array([{"n": 5}, {"n": 6}, None, {"n": 8}])})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    assert pipeline.output_schema.names == ["id", "attrs", "attrs.color", "info.n", "size"]
    result = pipeline.apply(table, 0)
    assert result.filtered_rows == 1
    out = result.table.to_pydict()
    assert out["attrs.color"] == ["red", None, "blue"] and out["size"] == [20, None, None]
    assert out["info.n"] == [5, None, 8]

    from pinot_sink.segment import read_segment
    from pinot_sink.segment.builder import build_segment
    from type_mapping.convert import to_pinot_columns
    from type_mapping.reconcile import plan_write

    columns = to_pinot_columns(result.table, schema, plan_write(result.table.schema, schema, table_config=TableConfig.from_json(config, schema)))
    built = build_segment(columns, schema, TableConfig.from_json(config, schema), tmp_path, "t_0", 1700000000000)
    rows = read_segment(str(built.tar_path)).table.to_pylist()
    assert [r["attrs"] for r in rows] == ['{"color":"red","size":"2"}', "null", '{"color":"blue","other":"x"}']
    assert [r["attrs.color"] for r in rows] == ["red", "null", "blue"]  # default null values
    assert [r["info.n"] for r in rows] == [5, -2147483648, 8]


def test_unknown_keys_do_not_reach_the_plan():
    """Keys nobody reads give no column, so a schema without them needs no ignore-unknown-columns."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "m.a", "dataType": "LONG"}]})
    table = pa.table({"m": pa.array([[("a", 1), ("zz", 2)]], STR_INT)})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json({"ingestionConfig": {"complexTypeConfig": {}}}, schema), table.schema)
    assert pipeline.output_schema.names == ["m.a"]
    assert pipeline.apply(table, 0).table.to_pydict() == {"m.a": [1]}


def test_entries_of_different_types_for_one_column_are_an_error_naming_it():
    nested = pa.map_(pa.string(), STR_INT)
    table = pa.table({"m": pa.array([[("a", [("b", 1)])], [("a.b", [("c", 1)])]], nested)})
    with pytest.raises(ValueError, match=r"column 'm.a.b', row 1"):
        spec("m.a.b").apply(table)


def test_a_map_key_type_without_text_is_an_error():
    table = pa.table({"m": pa.array([[([1], "x")]], pa.map_(pa.list_(pa.int32()), pa.string()))})
    with pytest.raises(ValueError, match="map key of type"):
        spec("m.x").apply(table)


def test_sliced_and_chunked_map_columns():
    whole = pa.array([[("a", 1)], [("a", 2)], [("a", 3)], [("b", 4)]], STR_INT)
    table = pa.Table.from_batches([pa.record_batch({"m": whole.slice(1, 2)}), pa.record_batch({"m": whole.slice(3)})])
    assert flat(table, "m.a", "m.b") == {"m.a": [2, 3, None], "m.b": [None, None, 4]}


@pytest.mark.spark
def test_spark_map_columns_through_the_data_source(spark, tmp_path):
    """df.write.format("pinot") with MapType columns (one inside an unnested array) into a segment, read back."""
    from pathlib import Path

    import pinot_sink
    from tests.datasource.helpers import read_rows

    assert pinot_sink.register(spark) is True
    schema = {"schemaName": "events", "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"}, {"name": "attrs", "dataType": "JSON"},
        {"name": "attrs.color", "dataType": "STRING"}, {"name": "scores.7", "dataType": "DOUBLE"},
        {"name": "events.kind", "dataType": "STRING"}, {"name": "events.at.day", "dataType": "STRING"},
        {"name": "label", "dataType": "STRING"}]}
    table_config = {"tableName": "events_OFFLINE", "tableType": "OFFLINE",
                    "tableIndexConfig": {"nullHandlingEnabled": True},
                    "ingestionConfig": {"complexTypeConfig": {"fieldsToUnnest": ["events"]},
                                        "transformConfigs": [{"columnName": "label",
                                                              "transformFunction": "upper(\"attrs.size\")"}]}}
    rows = [
        (1, {"color": "red", "size": "xl"}, {7: 0.5, 8: 1.0}, [{"kind": "view", "at.day": "mon"}, {"kind": "buy"}]),
        (2, {"size": "s"}, None, []),
        (3, None, {}, None),
        (4, {}, {7: 2.5}, [{"at.day": "sun"}]),
    ]
    df = spark.createDataFrame(rows, "id long, attrs map<string,string>, scores map<int,double>, "
                                     "events array<map<string,string>>").repartition(2)
    (df.write.format("pinot").option("table-name", "events").option("schema", json.dumps(schema))
     .option("table-config", json.dumps(table_config)).option("output-uri", str(tmp_path))
     .option("creation-time", "1700000000000").mode("append").save())
    got = sorted(read_rows(Path(tmp_path, "events").glob("*.tar.gz")).to_pylist(),
                 key=lambda r: (r["id"], r["events.kind"] or ""))
    columns = ["id", "attrs", "attrs.color", "scores.7", "events.kind", "events.at.day", "label"]
    for r in got:  # the map's JSON in Spark's entry order
        r["attrs"] = None if r["attrs"] is None else json.loads(r["attrs"])
    assert [tuple(r[c] for c in columns) for r in got] == [
        (1, {"color": "red", "size": "xl"}, "red", 0.5, "buy", None, "XL"),
        (1, {"color": "red", "size": "xl"}, "red", 0.5, "view", "mon", "XL"),
        (2, {"size": "s"}, None, None, None, None, "S"),
        (3, None, None, None, None, None, None),
        (4, {}, None, 2.5, None, "sun", None),
    ]
