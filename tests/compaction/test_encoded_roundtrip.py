"""Compaction's encoded path end to end (review): segments built from plain rows, read back by
``merge.read_rows`` (dictIds over dictionaries), concatenated and built again have the bytes of a build from
the decoded rows, and the values of the inputs, for the column kinds where a remap could go wrong: a dictionary
of one value, BYTES / BIG_DECIMAL / JSON dictionaries, null rows, multi-value columns, a sorted column, and
inputs whose dictIds are narrowed to different widths."""
from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

from pinot_sink.compaction import merge
from pinot_sink.segment import BuildOptions, build_segment
from pinot_sink.segment.read.reader import read_segment
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [
        {"name": "country", "dataType": "STRING"},
        {"name": "one", "dataType": "STRING"},
        {"name": "blob", "dataType": "BYTES"},
        {"name": "doc", "dataType": "JSON"},
        {"name": "nullable", "dataType": "INT"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "wide", "dataType": "INT"},
    ],
    "metricFieldSpecs": [{"name": "amount", "dataType": "BIG_DECIMAL"}, {"name": "f", "dataType": "FLOAT"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})
CONFIG = TableConfig.from_json({
    "tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
    "tableIndexConfig": {"sortedColumn": ["country"], "invertedIndexColumns": ["tags", "one"],
                         "nullHandlingEnabled": True},
    "metadata": {},
}, SCHEMA)
TYPES = {"country": pa.string(), "one": pa.string(), "blob": pa.binary(), "doc": pa.string(),
         "nullable": pa.int32(), "tags": pa.list_(pa.string()), "wide": pa.int32(), "amount": pa.string(),
         "f": pa.float32(), "ts": pa.int64()}


def _rows(rng, n, wide):
    return {
        "country": rng.choice(["US", "DE", "FR"], n).tolist(),
        "one": ["same"] * n,
        "blob": [bytes([int(v), 0]) for v in rng.integers(0, 4, n)],
        "doc": [f'{{"k":{int(v)}}}' for v in rng.integers(0, 5, n)],
        "nullable": rng.integers(0, 3, n).tolist(),
        "tags": [rng.choice(["a", "b", "c"], int(rng.integers(1, 3))).tolist() for _ in range(n)],
        "wide": rng.integers(0, wide, n).tolist(),  # 200 distinct in one segment (int16 dictIds), 3 in another (int8)
        "amount": [str(v) for v in rng.choice(["1.50", "2", "-0.25", "10"], n)],
        "f": rng.choice([0.5, -1.0, 2.25], n).tolist(),
        "ts": (1_700_000_000_000 + rng.integers(0, 10**6, n)).tolist(),
    }


def _segment(tmp_path, name, rows, nulls):
    table = pa.table({k: pa.array(v, TYPES[k]) for k, v in rows.items()})
    masks = {"nullable": nulls, "country": np.roll(nulls, 1), "tags": np.roll(nulls, 2)}  # the sorted and MV ones too
    built = build_segment(PinotColumns(table, masks), SCHEMA, CONFIG, tmp_path / "in", name,
                          creation_time_ms=1, options=BuildOptions(threads=1))
    return str(built.tar_path)


def test_compaction_reads_and_rebuilds_encoded_columns_losslessly(tmp_path):
    rng = np.random.default_rng(3)
    inputs, expected = [], []
    for i, (n, wide) in enumerate([(300, 200), (150, 3), (1, 1)]):
        rows = _rows(rng, n, wide)
        nulls = rng.random(n) < 0.3
        inputs.append(_segment(tmp_path, f"t_{i}", rows, nulls))
        expected.append((rows, nulls))
    parts = [merge.read_rows(path, SCHEMA, path, "ts") for path in inputs]
    assert pa.types.is_dictionary(parts[0].table.schema.field("country").type)
    rows = merge.concat(parts)
    digests, contents = [], []
    for label, columns in (("encoded", rows), ("decoded", merge.decoded_rows(rows))):
        built = build_segment(columns, SCHEMA, CONFIG, tmp_path / label, "t_out", creation_time_ms=1,
                              options=BuildOptions(threads=1))
        digests.append(hashlib.sha256(built.tar_path.read_bytes()).hexdigest())
        contents.append(read_segment(str(built.tar_path)))
    assert digests[0] == digests[1]
    got = contents[0].stored
    # every input row once (a multiset of rows, the sorted column reorders them)
    def keyed(table, masks):
        cols = table.to_pydict()
        null = lambda c, i: c in masks and masks[c][i]  # noqa: E731
        return sorted(repr(tuple(None if null(c, i) else cols[c][i] for c in sorted(cols)))
                      for i in range(table.num_rows))
    want = []
    for rows_, nulls in expected:
        table = pa.table({k: pa.array(v, TYPES[k]) for k, v in rows_.items()})
        want += keyed(table, {"nullable": nulls, "country": np.roll(nulls, 1), "tags": np.roll(nulls, 2)})
    assert sorted(want) == keyed(got.table.select(sorted(TYPES)), got.null_masks)


INDEXED_SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [{"name": "doc", "dataType": "JSON"}, {"name": "part", "dataType": "INT"},
                            {"name": "city", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "n", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP",
                            "granularity": "1:MILLISECONDS"}],
})
INDEXED_CONFIG = TableConfig.from_json({
    "tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
    "tableIndexConfig": {"jsonIndexColumns": ["doc"], "bloomFilterColumns": ["city"], "rangeIndexColumns": ["n"],
                         "optimizeDictionary": True, "nullHandlingEnabled": True,
                         "segmentPartitionConfig": {"columnPartitionMap": {
                             "part": {"functionName": "Murmur", "numPartitions": 2}}}},
    "fieldConfigList": [{"name": "ts", "timestampConfig": {"granularities": ["DAY", "HOUR"]}}],
    "metadata": {},
}, INDEXED_SCHEMA)


def test_compaction_rebuilds_indexed_encoded_columns_as_from_decoded_rows(tmp_path):
    """A JSON index, a bloom filter, a TIMESTAMP index's derived columns, optimizeDictionary and a partitioned
    column over the encoded rows of three segments: the bytes of the decoded rows."""
    rng = np.random.default_rng(11)
    types = {"doc": pa.string(), "part": pa.int32(), "city": pa.string(), "n": pa.int64(), "ts": pa.int64()}
    inputs = []
    for i, n in enumerate([200, 80, 1]):
        rows = {"doc": [f'{{"a":{int(v)},"b":"x"}}' for v in rng.integers(0, 4, n)],
                "part": [2] * n, "city": rng.choice(["Oslo", "Rome"], n).tolist(),
                "n": rng.integers(0, 3, n).tolist(), "ts": (1_700_000_000_000 + rng.integers(0, 10**8, n)).tolist()}
        table = pa.table({k: pa.array(v, types[k]) for k, v in rows.items()})
        built = build_segment(PinotColumns(table, {"city": rng.random(n) < 0.2}), INDEXED_SCHEMA, INDEXED_CONFIG,
                              tmp_path / "in", f"t_{i}", creation_time_ms=1, options=BuildOptions(threads=1))
        inputs.append(str(built.tar_path))
    rows = merge.concat([merge.read_rows(path, INDEXED_SCHEMA, path, "ts") for path in inputs])
    digests = []
    for label, columns in (("encoded", rows), ("decoded", merge.decoded_rows(rows))):
        built = build_segment(columns, INDEXED_SCHEMA, INDEXED_CONFIG, tmp_path / label, "t_out", creation_time_ms=1,
                              options=BuildOptions(threads=1))
        digests.append(hashlib.sha256(built.tar_path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]


def test_a_column_raw_in_one_segment_and_encoded_in_another_compacts_to_the_decoded_rows(tmp_path):
    """The table config changed between writes (``noDictionaryColumns``): one segment's column is raw, the
    other's dictIds; the merged rows are plain values, and every row is kept."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "m", "dataType": "INT", "singleValueField": False}]})
    paths = []
    for i, raw in enumerate((["s", "m"], [])):
        config = TableConfig.from_json({"tableName": "t_OFFLINE", "tableType": "OFFLINE",
                                        "tableIndexConfig": {"noDictionaryColumns": raw}}, schema)
        table = pa.table({"s": pa.array([f"v{i}{k % 3}" for k in range(50)]),
                          "m": pa.array([[k, k + i] for k in range(50)], pa.list_(pa.int32()))})
        built = build_segment(PinotColumns(table, {}), schema, config, tmp_path / "in", f"t_{i}",
                              creation_time_ms=1, options=BuildOptions(threads=1))
        paths.append(str(built.tar_path))
    parts = [merge.read_rows(p, schema, p) for p in paths]
    assert not pa.types.is_dictionary(parts[0].table.schema.field("s").type)
    assert pa.types.is_dictionary(parts[1].table.schema.field("s").type)
    rows = merge.concat(parts)
    config = TableConfig.from_json({"tableName": "t_OFFLINE", "tableType": "OFFLINE"}, schema)
    digests = []
    for label, columns in (("encoded", rows), ("decoded", merge.decoded_rows(rows))):
        built = build_segment(columns, schema, config, tmp_path / label, "t_out", creation_time_ms=1,
                              options=BuildOptions(threads=1))
        digests.append(hashlib.sha256(built.tar_path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert merge.decoded_rows(rows).table.column("s").to_pylist() == \
        [f"v0{k % 3}" for k in range(50)] + [f"v1{k % 3}" for k in range(50)]


def test_a_dict_id_past_the_dictionary_is_refused_before_arrow_takes_the_ids_unchecked(tmp_path):
    """``merge._over_dictionary`` hands Arrow the dictIds without its bounds check: the reader's own check of
    every id against the cardinality must stop a corrupt forward index first."""
    import tarfile

    import pytest

    from pinot_sink.segment.read.reader import SegmentFormatError
    from pinot_sink.segment.read.segment_metadata import parse_index_map
    from pinot_sink.segment.read.tar_source import extract_all

    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "s", "dataType": "STRING"}]})
    config = TableConfig.from_json({"tableName": "t_OFFLINE", "tableType": "OFFLINE"}, schema)
    table = pa.table({"s": pa.array(["a", "b", "c"] * 20)})  # cardinality 3: 2-bit ids, 3 = 0b11 is past it
    built = build_segment(PinotColumns(table, {}), schema, config, tmp_path / "in", "t_0", creation_time_ms=1,
                          options=BuildOptions(threads=1))
    with tarfile.open(built.tar_path) as tar:
        extract_all(tar, tmp_path / "out")
    folder = tmp_path / "out" / "t_0"
    entry = parse_index_map((folder / "v3" / "index_map").read_bytes())["s"]["forward_index"]
    psf = bytearray((folder / "v3" / "columns.psf").read_bytes())
    psf[entry.offset + 8] = 0xFF  # the first four ids: 3
    (folder / "v3" / "columns.psf").write_bytes(bytes(psf))
    with pytest.raises(SegmentFormatError, match="has dictId 3 >= cardinality 3"):
        merge.read_rows(str(folder), schema, "t_0")


def test_raw_long_columns_held_as_int32_build_the_bytes_of_their_values(tmp_path):
    """``merge.narrowable_columns``: raw LONG values held as int32 where an input's fit (not the time column, a
    partitioned one, or in rollup / dedup). Inputs narrowed and not (one input's values past int32), concatenated,
    built with the compaction's options (and a raw LONG sortedColumn, and the same column with a dictionary
    once the config changed): the bytes of a build from the int64 values."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"}, {"name": "part", "dataType": "LONG"}, {"name": "s", "dataType": "STRING"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                "granularity": "1:MILLISECONDS"}]})
    raw = {"tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
           "tableIndexConfig": {"noDictionaryColumns": ["id", "part", "ts"], "segmentPartitionConfig": {
               "columnPartitionMap": {"part": {"functionName": "Murmur", "numPartitions": 4}}}}}
    config = TableConfig.from_json(raw, schema)
    assert merge.narrowable_columns(schema, config, "ts", "concat") == {"id"}
    assert merge.narrowable_columns(schema, config, "ts", "rollup") == frozenset()
    paths, values = [], []
    for i, first in enumerate((-5, 1 << 40, 1_000)):  # the second input's ids do not fit int32
        ids = np.arange(first, first + 60, dtype=np.int64)[::-1].copy()
        table = pa.table({"id": ids, "part": ids % 3, "s": pa.array([f"v{k % 4}" for k in range(60)]),
                          "ts": 1_700_000_000_000 + ids % 1000})
        built = build_segment(PinotColumns(table, {}), schema, config, tmp_path / "in", f"t_{i}",
                              creation_time_ms=1, options=BuildOptions(threads=1))
        paths.append(str(built.tar_path))
        values += ids.tolist()
    parts = [merge.read_rows(p, schema, p, "ts", narrow=frozenset({"id"})) for p in paths]
    assert [p.table.schema.field("id").type for p in parts] == [pa.int32(), pa.int64(), pa.int32()]
    assert all(p.table.schema.field(n).type == pa.int64() for p in parts for n in ("part", "ts"))
    rows = merge.concat([parts[0], parts[2]])
    assert rows.table.schema.field("id").type == pa.int32()  # both narrowed: held so
    mixed = merge.concat(parts)
    assert mixed.table.schema.field("id").type == pa.int64() and mixed.table.column("id").to_pylist() == values
    wide = merge.concat([merge.read_rows(p, schema, p, "ts") for p in paths])
    for label, extra in (("raw", {}), ("sorted", {"sortedColumn": ["id"]}),
                         ("dictionary", {"noDictionaryColumns": []})):
        table_config = TableConfig.from_json({**raw, "tableIndexConfig": {**raw["tableIndexConfig"], **extra}}, schema)
        digests = []
        for name, columns in (("narrow", mixed), ("narrow2", rows), ("wide", wide), ("wide2", merge.concat(
                [merge.read_rows(p, schema, p, "ts") for p in (paths[0], paths[2])]))):
            built = build_segment(PinotColumns(columns.table, dict(columns.null_masks)), schema, table_config,
                                  tmp_path / label / name, "t_out", creation_time_ms=1,
                                  options=BuildOptions(threads=1, release_input=True, largest_first=True,
                                                       narrow_order=True))
            digests.append(hashlib.sha256(built.tar_path.read_bytes()).hexdigest())
        assert digests[0] == digests[2] and digests[1] == digests[3], label


def test_number_columns_whose_dictionary_outweighs_their_values_are_held_decoded_with_the_same_bytes(tmp_path):
    """``merge._held_single_value``: a number column of nearly as many distinct values as rows is held as its
    values (int32 where a LONG's fit and the column may be narrowed), not its dictIds over its dictionary; one of
    few values, a string column and the time column stay encoded. The segment built from them has the bytes of
    one built from the decoded rows, nulls included."""
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"}, {"name": "few", "dataType": "LONG"}, {"name": "s", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "price", "dataType": "DOUBLE"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                "granularity": "1:MILLISECONDS"}]})
    config = TableConfig.from_json({"tableName": "t_OFFLINE", "tableType": "OFFLINE",
                                    "segmentsConfig": {"timeColumnName": "ts"},
                                    "tableIndexConfig": {"sortedColumn": ["few"], "nullHandlingEnabled": True}}, schema)
    narrow = merge.narrowable_columns(schema, config, "ts", "concat")
    assert narrow == {"id", "few"}
    paths, expected = [], []
    for i, first in enumerate((-5, 1 << 40, 1_000)):  # the second input's ids do not fit int32
        ids = np.arange(first, first + 60, dtype=np.int64)[::-1].copy()
        table = pa.table({"id": ids, "few": ids % 3, "s": pa.array([f"v{k}" for k in range(60)]),
                          "price": ids * 0.25, "ts": 1_700_000_000_000 + ids % 1000})
        nulls = np.zeros(60, dtype=np.bool_)
        nulls[i::7] = True
        built = build_segment(PinotColumns(table, {"id": nulls, "price": np.roll(nulls, 1)}), schema, config,
                              tmp_path / "in", f"t_{i}", creation_time_ms=1, options=BuildOptions(threads=1))
        paths.append(str(built.tar_path))
        expected += [None if null else int(v) for v, null in zip(ids, nulls)]
    parts = [merge.read_rows(p, schema, p, "ts", narrow=narrow) for p in paths]
    assert [p.table.schema.field("id").type for p in parts] == [pa.int32(), pa.int64(), pa.int32()]
    for part in parts:
        assert part.table.schema.field("price").type == pa.float64()
        assert all(pa.types.is_dictionary(part.table.schema.field(n).type) for n in ("few", "s", "ts"))
    rows = merge.concat(parts)
    ids = rows.table.column("id").to_pylist()
    held = [None if null else v for v, null in zip(ids, rows.null_masks["id"])]  # rows sorted by "few"
    assert sorted(held, key=lambda v: (v is None, v or 0)) == sorted(expected, key=lambda v: (v is None, v or 0))
    digests = []
    for label, columns in (("held", rows), ("decoded", merge.decoded_rows(merge.concat(
            [merge.read_rows(p, schema, p, "ts") for p in paths])))):
        built = build_segment(PinotColumns(columns.table, dict(columns.null_masks)), schema, config,
                              tmp_path / label, "t_out", creation_time_ms=1,
                              options=BuildOptions(threads=1, release_input=True, largest_first=True,
                                                   narrow_order=True))
        digests.append(hashlib.sha256(built.tar_path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]


def test_a_number_column_is_decoded_only_where_its_values_held_take_fewer_bytes():
    """30 values twice each (int8 dictIds, 1 B a row, and 8 B of dictionary per two rows: 5 B): as int32 values
    4 B a row, decoded; past int32 (8 B a row as values), or the time column, kept encoded."""
    ids = pa.array(list(range(30)) * 2, pa.int32())
    small, large = pa.array(range(30), pa.int64()), pa.array([(1 << 40) + v for v in range(30)], pa.int64())
    held = merge._held_single_value(ids, small, narrow=True, decode=True)
    assert held.type == pa.int32() and held.to_pylist() == list(range(30)) * 2
    assert pa.types.is_dictionary(merge._held_single_value(ids, large, narrow=True, decode=True).type)
    assert pa.types.is_dictionary(merge._held_single_value(ids, small, narrow=False, decode=True).type)
    assert pa.types.is_dictionary(merge._held_single_value(ids, small, narrow=True, decode=False).type)
