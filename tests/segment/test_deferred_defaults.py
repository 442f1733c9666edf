"""Null rows whose default is left to the builder (``to_pinot_columns(defer_defaults=True)``,
``PinotColumns.defaults``) give the same segment bytes, statistics and buffer sizes as the filled rows.

The builder writes such a column's default as a dictId (``builder._context_filling_ids``) instead of reading it
from the values; every case here builds both ways and compares the tarballs byte for byte: sparse and dense
nulls, all-null and no-null columns, empty / null / emptied lists, the default among the values and not, with
and without a sortedColumn, inverted indexes, raw columns, a partition column, a bloom filter, ``release_input``.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.buffer import PartitionBuffer
from pinot_sink.segment import BuildOptions, build_segment
from pinot_sink.segment.builder import SegmentBuildError
from type_mapping import PinotSchema, plan_write, to_pinot_columns
from type_mapping.stored import PinotColumns, fill_defaults, filled_nbytes
from type_mapping.table_config import TableConfig

T0 = 1_700_000_000_000
WORDS = np.array(["sale", "gift", "null", "prime", "a-much-longer-tag", "é", ""], dtype=object)


def _schema(tags_default=None, code_default=None):
    def field(spec, default):
        return {**spec, "defaultNullValue": default} if default is not None else spec
    return PinotSchema.from_json({
        "schemaName": "t",
        "dimensionFieldSpecs": [
            {"name": "id", "dataType": "INT"},
            {"name": "country", "dataType": "STRING"},
            field({"name": "code", "dataType": "STRING"}, code_default),
            {"name": "blob", "dataType": "BYTES"},
            field({"name": "tags", "dataType": "STRING", "singleValueField": False}, tags_default),
            {"name": "raw_tags", "dataType": "STRING", "singleValueField": False},
            {"name": "nums", "dataType": "INT", "singleValueField": False},
            {"name": "longs", "dataType": "LONG", "singleValueField": False},
            {"name": "scores", "dataType": "DOUBLE", "singleValueField": False},
            {"name": "ratios", "dataType": "FLOAT", "singleValueField": False},
            {"name": "blobs", "dataType": "BYTES", "singleValueField": False},
            {"name": "note", "dataType": "STRING"},
        ],
    })


def _config(sorted_column="country", partition=False, star_tree=False, optimize=False, null_vectors=False):
    indexing = {"invertedIndexColumns": ["tags", "code", "nums"], "noDictionaryColumns": ["raw_tags", "note"],
                "bloomFilterColumns": ["blob"]}
    if null_vectors:  # where the null rows went in the segment's order (the builder's marked dictIds tell)
        indexing["nullHandlingEnabled"] = True
    if optimize:  # the single-value columns without an inverted index turn raw after their statistics
        indexing.update(optimizeDictionary=True, noDictionaryCardinalityRatioThreshold=0.0001)
    if star_tree:  # its dimensions' values are read from the start: the builder fills them first
        indexing["starTreeIndexConfigs"] = [{"dimensionsSplitOrder": ["code", "country"],
                                             "functionColumnPairs": ["COUNT__*", "MAX__id"],
                                             "maxLeafRecords": 10}]
    if sorted_column:  # a column with nulls to fill ("code") is filled before the rows' order is taken
        indexing["sortedColumn"] = [sorted_column]
    if partition:
        indexing["segmentPartitionConfig"] = {"columnPartitionMap": {"code": {"functionName": "Murmur",
                                                                              "numPartitions": 4}}}
    return {"tableName": "t_OFFLINE", "tableIndexConfig": indexing}


def _lists(rng, rows, make, null_share, empty_share, null_element_share=0.0):
    lengths = rng.integers(1, 4, rows)
    lengths[rng.random(rows) < empty_share] = 0
    values = make(int(lengths.sum()))
    items, start = [], 0
    for length in lengths:
        row = list(values[start : start + length])
        start += length
        items.append([None if rng.random() < null_element_share else v for v in row])
    return [None if rng.random() < null_share else row for row in items]


def _batch(rng, rows, null_share, empty_share):
    def strings(n):
        return [str(x) for x in WORDS[rng.integers(0, len(WORDS), n)]]

    def sparse(values):
        return [None if rng.random() < null_share else v for v in values]

    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int32)),
        "country": pa.array([["US", "DE", "FR"][i] for i in rng.integers(0, 3, rows)]),
        "code": pa.array(sparse(strings(rows)), pa.string()),
        "blob": pa.array(sparse([bytes([b]) * int(b % 3) for b in rng.integers(0, 256, rows)]), pa.binary()),
        "tags": pa.array(_lists(rng, rows, strings, null_share, empty_share, 0.1), pa.list_(pa.string())),
        "raw_tags": pa.array(_lists(rng, rows, strings, null_share, empty_share), pa.list_(pa.string())),
        "nums": pa.array(_lists(rng, rows, lambda n: rng.integers(-5, 5, n).tolist(), null_share, empty_share),
                         pa.list_(pa.int32())),
        "longs": pa.array(_lists(rng, rows, lambda n: rng.integers(0, 2**40, n).tolist(), null_share, empty_share),
                          pa.list_(pa.int64())),
        "scores": pa.array(_lists(rng, rows, lambda n: [float("nan") if x < 0.05 else x for x in rng.random(n)],
                                  null_share, empty_share), pa.list_(pa.float64())),
        "ratios": pa.array(_lists(rng, rows, lambda n: rng.random(n).astype(np.float32).tolist(), null_share,
                                  empty_share), pa.list_(pa.float32())),
        "blobs": pa.array(_lists(rng, rows, lambda n: [bytes([b]) for b in rng.integers(0, 4, n)], null_share,
                                 empty_share), pa.list_(pa.binary())),
        "note": pa.array(sparse(strings(rows)), pa.string()),
    })


def _both(batch, schema, config):
    plan = plan_write(batch.schema, schema, table_config=TableConfig.from_json(config, schema))
    return (to_pinot_columns(batch, schema, plan),
            to_pinot_columns(batch, schema, plan, defer_defaults=True))


CASES = [  # (null share, empty-list share)
    (0.0, 0.0), (0.1, 0.1), (0.5, 0.3), (0.95, 0.0), (1.0, 0.0), (0.0, 1.0),
]


@pytest.mark.parametrize("null_share,empty_share", CASES)
@pytest.mark.parametrize("defaults", [(None, None), ("gift", "sale"), ("zzz", "")])
def test_deferred_defaults_build_the_same_bytes(tmp_path, null_share, empty_share, defaults):
    rng = np.random.default_rng(int(null_share * 100 + empty_share * 10) + len(str(defaults)))
    schema = _schema(*defaults)
    for sorted_column, partition, star_tree, optimize, null_vectors in (
            ("country", False, False, False, False), (None, True, False, False, False),
            ("country", False, True, False, False), ("code", False, False, False, False),
            ("country", False, False, True, False), ("country", False, False, False, True)):
        config = _config(sorted_column, partition, star_tree, optimize, null_vectors)
        batch = _batch(rng, 300, null_share, empty_share)
        plain, deferred = _both(batch, schema, config)
        assert "id" not in deferred.defaults and "country" not in deferred.defaults  # no nulls: nothing to fill
        assert ("tags" in deferred.defaults) == ("tags" in plain.null_masks)  # null, empty or emptied rows
        assert ("code" in deferred.defaults) == bool(null_share)
        assert not plain.defaults
        assert deferred.nbytes == plain.nbytes  # the buffer cuts segments by these
        assert deferred.filled().table.equals(plain.table)
        built = []
        for i, (rows, release) in enumerate(((plain, False), (deferred, False), (deferred, True))):
            rows = PinotColumns(rows.table, dict(rows.null_masks), dict(rows.defaults), rows.fill_nbytes)
            out = tmp_path / f"{sorted_column}{partition}{star_tree}{optimize}{null_vectors}{i}"
            built.append(build_segment(rows, schema, TableConfig.from_json(config, schema), out, "seg_0", T0,
                                       BuildOptions(threads=1, release_input=release)))
        first = built[0].tar_path.read_bytes()
        for other in built[1:]:
            assert other.tar_path.read_bytes() == first
        assert built[0].partitions == built[1].partitions


def test_filled_nbytes_is_arrows_figure():
    rng = np.random.default_rng(3)
    for rows in (1, 7, 64, 1000):
        batch = _batch(rng, rows, 0.3, 0.2)
        schema, config = _schema(), _config()
        plain, deferred = _both(batch, schema, config)
        for name, default in deferred.defaults.items():
            column = deferred.table.column(name).chunk(0)
            mask = deferred.null_masks[name]
            assert filled_nbytes(column, mask, default) == plain.table.column(name).nbytes, name
            assert fill_defaults(column, mask, default).equals(plain.table.column(name).chunk(0)), name


def test_buffer_cuts_the_same_rows_and_joins_them_filled():
    rng = np.random.default_rng(5)
    schema, config = _schema(), _config()
    parts = [_both(_batch(rng, rows, 0.4, 0.3), schema, config) for rows in (50, 120, 31, 90)]
    cuts = {}
    for kind in (0, 1):
        buffer = PartitionBuffer(max_rows=1000, max_bytes=parts[0][0].nbytes + 500)
        cuts[kind] = [cut for pair in parts for cut in buffer.add(pair[kind])] + list(buffer.drain_all())
    assert [c.num_rows for c in cuts[0]] == [c.num_rows for c in cuts[1]]
    assert len(cuts[0]) > 2
    for plain, deferred in zip(cuts[0], cuts[1]):
        assert deferred.filled().table.equals(plain.table)
        assert deferred.column("tags").equals(plain.table.column("tags"))


def test_parts_with_different_defaults_do_not_join():
    one = PinotColumns(pa.table({"c": pa.array([None], pa.string())}), {"c": np.array([True])},
                       {"c": pa.scalar("x")})
    other = PinotColumns(pa.table({"c": pa.array([None], pa.string())}), {"c": np.array([True])},
                         {"c": pa.scalar("y")})
    with pytest.raises(ValueError, match="column 'c'.*different defaults"):
        PinotColumns.concat([one, other])


def test_a_default_needs_its_mask_and_empty_rows_must_be_the_masked_ones(tmp_path):
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "tags", "dataType": "STRING", "singleValueField": False}]})
    table = pa.table({"tags": pa.array([["a"], [], ["b"]], pa.list_(pa.string()))})
    with pytest.raises(SegmentBuildError, match="'tags'.*no null mask"):
        build_segment(PinotColumns(table, {}, {"tags": pa.scalar("null")}), schema, TableConfig.from_json(None, schema), tmp_path, "s", T0)
    wrong = {"tags": np.array([False, False, True])}
    with pytest.raises(SegmentBuildError, match="column 'tags': row 1 is empty, but its null mask"):
        build_segment(PinotColumns(table, wrong, {"tags": pa.scalar("null")}), schema, TableConfig.from_json(None, schema), tmp_path, "s", T0)
    right = {"tags": np.array([False, True, False])}
    built = build_segment(PinotColumns(table, right, {"tags": pa.scalar("null")}), schema, TableConfig.from_json(None, schema), tmp_path, "s", T0)
    filled = pa.table({"tags": pa.array([["a"], ["null"], ["b"]], pa.list_(pa.string()))})
    again = build_segment(PinotColumns(filled, right), schema, TableConfig.from_json(None, schema), tmp_path / "f", "s", T0)
    assert built.tar_path.read_bytes() == again.tar_path.read_bytes()


@pytest.mark.parametrize("mask", [[False, True, True], [False, False, False], [True, True, False],
                                  [True, False, False]])
def test_a_single_value_column_s_nulls_must_be_the_masked_rows(tmp_path, mask):
    # the builder takes the values of the rows outside the mask: a null there, or a value inside it, is refused
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "code", "dataType": "STRING"}]})
    table = pa.table({"code": pa.array(["a", None, "b"], pa.string())})
    with pytest.raises(SegmentBuildError, match="column 'code': its nulls are not the rows of its null mask"):
        build_segment(PinotColumns(table, {"code": np.array(mask)}, {"code": pa.scalar("null")}), schema, TableConfig.from_json(None, schema),
                      tmp_path, "s", T0)


@pytest.mark.parametrize("valid", [[True, False, False, False, True], [True, True, False, True, True]])
def test_filled_nbytes_leaves_out_the_bytes_a_null_slot_spans(valid):
    # A null slot whose offsets span bytes (Arrow allows it; if_else can leave them): fill_null drops them.
    offsets = np.array([0, 2, 5, 5, 9, 10], dtype=np.int32)
    column = pa.Array.from_buffers(pa.string(), 5, [pa.array(valid).buffers()[1], pa.py_buffer(offsets),
                                                    pa.py_buffer(b"abcdefghij")])
    mask = ~np.array(valid)
    for default in ("null", ""):
        filled = fill_defaults(column, mask, pa.scalar(default))
        assert filled_nbytes(column, mask, pa.scalar(default)) == filled.nbytes
        assert filled.to_pylist() == [v if ok else default for v, ok in zip(column.to_pylist(), valid)]
