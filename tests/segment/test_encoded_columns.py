"""Dictionary-encoded input columns (``segment.encoded``): the same dictionary as from the decoded values, and
a segment built from them (single- and multi-value) has the bytes of one built from the decoded rows, whatever
the chunks' dictionaries look like (unsorted, repeated values, values no row uses, one chunk per source
segment)."""
from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.segment import BuildOptions, build_segment
from pinot_sink.segment.dictionary import build_dictionary
from pinot_sink.segment import encoded
from pinot_sink.segment.encoded import dictionary_of_encoded
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

VALUES = {
    "INT": (pa.int32(), lambda rng, n: rng.integers(-50, 50, n).tolist()),
    "LONG": (pa.int64(), lambda rng, n: (rng.integers(0, 10**6, n) * 10**9).tolist()),
    "DOUBLE": (pa.float64(), lambda rng, n: rng.choice([-0.0, 0.0, 1.5, -2.25, 1e300, 3.0], n).tolist()),
    "STRING": (pa.string(), lambda rng, n: rng.choice(["b", "a", "é", "\U0001F600", "", "zz", "\uffff"], n).tolist()),
    "BYTES": (pa.binary(), lambda rng, n: [bytes(v) for v in rng.integers(0, 256, (n, 2)).astype(np.uint8)]),
}


def _encoded_chunks(rng, values: list, arrow_type, chunks: int) -> pa.ChunkedArray:
    """``values`` cut into chunks, each over a dictionary of its own: shuffled, with repeats and extra values."""
    out = []
    for part in np.array_split(np.arange(len(values)), chunks):
        rows = [values[i] for i in part]
        distinct = list(dict.fromkeys(rows)) + list(dict.fromkeys(values))[:3]  # extra (maybe unused) values
        rng.shuffle(distinct)
        distinct = distinct + distinct[:2]  # repeats: a row may point at either copy
        first = {}
        for i, v in enumerate(distinct):
            first.setdefault(v, []).append(i)
        indices = [first[v][int(rng.integers(0, len(first[v])))] for v in rows]
        out.append(pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(distinct, arrow_type)))
    return pa.chunked_array(out)


@pytest.mark.parametrize("stored", sorted(VALUES))
@pytest.mark.parametrize("chunks", [1, 4])
def test_dictionary_of_encoded_equals_build_dictionary(stored, chunks):
    rng = np.random.default_rng(len(stored) * 10 + chunks)
    arrow_type, make = VALUES[stored]
    values = make(rng, 400)
    column = _encoded_chunks(rng, values, arrow_type, chunks)
    column = column.slice(37, 300)  # the slice leaves some dictionary values without a row
    expected = build_dictionary(pa.array(values[37:337], arrow_type), stored, "c")
    got = dictionary_of_encoded(column, stored, "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()
    if expected.serialized_lengths is not None:
        assert got.serialized_lengths.tolist() == expected.serialized_lengths.tolist()


def test_dict_ids_renumbered_a_block_at_a_time_as_at_once(monkeypatch):
    """Values no row uses leave the dictionary and the dictIds are renumbered in place, a block at a time
    (here of 7 ids, across many blocks): the same dictIds as the decoded rows' dictionary gives."""
    monkeypatch.setattr(encoded, "_RENUMBER_BLOCK", 7)
    rng = np.random.default_rng(5)
    arrow_type, make = VALUES["LONG"]
    values = make(rng, 400)
    column = _encoded_chunks(rng, values, arrow_type, 4).slice(37, 300)
    expected = build_dictionary(pa.array(values[37:337], arrow_type), "LONG", "c")
    assert sum(len(chunk.dictionary) for chunk in column.chunks) > expected.cardinality  # unused values
    got = dictionary_of_encoded(column, "LONG", "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()


@pytest.mark.parametrize("rows", [[[0, 2], [2, 0]], [[0, 1, 2], [2]], [[1], [0, 2]]])
def test_chunks_over_the_merged_dictionary_itself_keep_their_ids_and_drop_what_no_row_uses(rows):
    """Each chunk's dictionary is the whole sorted one (a low-cardinality column of many inputs): its dictIds
    stay as they are; a value no chunk's row uses still leaves the dictionary."""
    dictionary = pa.array([10, 20, 30], pa.int32())
    column = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array(ids, pa.int8()), dictionary) for ids in rows])
    values = [[10, 20, 30][i] for ids in rows for i in ids]
    expected = build_dictionary(pa.array(values, pa.int32()), "INT", "c")
    got = dictionary_of_encoded(column, "INT", "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()


def _sorted_runs(rng, stored: str, chunks: int, order: list[int]) -> tuple[pa.ChunkedArray, list]:
    """A time column's chunks: each over its own sorted dictionary of a stretch of values (the stretches
    apart, the chunks in ``order`` of their stretches), some values no row uses, rows in any order."""
    arrow_type = {"INT": pa.int32(), "LONG": pa.int64()}[stored]
    scale = 1 if stored == "INT" else 10**9
    out, values = [], []
    for run in order:
        dictionary = np.sort(rng.choice(np.arange(run * 1000, run * 1000 + 500), 200, replace=False)) * scale - 7
        ids = rng.integers(0, len(dictionary), 150)  # some values no row uses
        out.append(pa.DictionaryArray.from_arrays(pa.array(ids, pa.int32()), pa.array(dictionary, arrow_type)))
        values += dictionary[ids].tolist()
    return pa.chunked_array(out), values


@pytest.mark.parametrize("stored", ["INT", "LONG"])
@pytest.mark.parametrize("order", [[0], [0, 1, 2, 3], [2, 0, 3, 1]])
@pytest.mark.parametrize("narrow", [True, False])
def test_sorted_runs_merge_without_a_merged_dictionary_of_every_value(stored, order, narrow):
    """Chunks whose dictionaries are sorted stretches apart (a time column's inputs, in any order): their used
    values one run after the other, dictIds through each run's own map; the dictionary and dictIds of the
    decoded rows either way, narrow as asked."""
    rng = np.random.default_rng(len(order) * 7 + len(stored))
    column, values = _sorted_runs(rng, stored, len(order), order)
    column = column.slice(20, len(values) - 45)  # the cut rows' values leave the dictionary
    values = values[20:len(values) - 25]
    expected = build_dictionary(pa.array(values, column.type.value_type), stored, "c")
    assert encoded._dictionary_of_ordered_runs(
        [c for c in column.chunks if len(c)], len(column), stored, narrow) is not None  # this path, not the general
    got = dictionary_of_encoded(column, stored, "c", narrow=narrow)
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()
    assert got.dict_ids.dtype == (np.int16 if narrow and got.cardinality > 127 else np.int8 if narrow else np.int32)


@pytest.mark.parametrize("case", ["overlap", "unsorted", "repeat", "same dictionary twice", "double"])
def test_dictionaries_not_in_sorted_runs_take_the_general_merge(case):
    """Dictionaries that overlap, are not sorted, repeat a value or are shared by two chunks (an input's two
    slices), or of another type: not merged as runs; the result is still the decoded rows' dictionary."""
    rng = np.random.default_rng(3)
    column, _ = _sorted_runs(rng, "LONG", 3, [0, 1, 2])
    chunks = list(column.chunks)
    stored = "LONG"
    if case == "overlap":
        chunks[1] = pa.DictionaryArray.from_arrays(chunks[1].indices, pa.array(
            chunks[1].dictionary.to_numpy() - 10**9 * 600))  # into the first stretch
    elif case == "unsorted":
        chunks[1] = pa.DictionaryArray.from_arrays(chunks[1].indices, pa.array(chunks[1].dictionary.to_numpy()[::-1]))
    elif case == "repeat":
        d = chunks[1].dictionary.to_numpy().copy()
        d[5] = d[4]
        chunks[1] = pa.DictionaryArray.from_arrays(chunks[1].indices, pa.array(d))
    elif case == "same dictionary twice":
        chunks = [chunks[0].slice(0, 70), chunks[0].slice(70)] + chunks[1:]
    else:
        stored = "DOUBLE"
        chunks = [pa.DictionaryArray.from_arrays(c.indices, c.dictionary.cast(pa.float64())) for c in chunks]
    assert encoded._dictionary_of_ordered_runs(chunks, sum(len(c) for c in chunks), stored, True) is None
    column = pa.chunked_array(chunks)
    decoded = pa.chunked_array([c.dictionary_decode() for c in chunks]).combine_chunks()
    expected = build_dictionary(decoded, stored, "c")
    got = dictionary_of_encoded(column, stored, "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()


SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}, {"name": "device", "dataType": "STRING"},
                            {"name": "user", "dataType": "LONG"}, {"name": "part", "dataType": "INT"},
                            {"name": "tags", "dataType": "STRING", "singleValueField": False},
                            {"name": "codes", "dataType": "INT", "singleValueField": False}],
    "metricFieldSpecs": [{"name": "price", "dataType": "DOUBLE"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})
CONFIG = TableConfig.from_json({
    "tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
    "tableIndexConfig": {
        "sortedColumn": ["country"], "invertedIndexColumns": ["device", "tags"], "noDictionaryColumns": ["price"],
        "bloomFilterColumns": ["user"], "rangeIndexColumns": ["ts"],
        # a partitioned column is decoded first (its partition ids read values)
        "segmentPartitionConfig": {"columnPartitionMap": {"part": {"functionName": "Modulo", "numPartitions": 4}}},
    },
    "metadata": {},
}, SCHEMA)


def _rows(rng, n):
    return {
        "country": rng.choice(["US", "DE", "FR", "JP"], n).tolist(),
        "device": rng.choice(["ios", "web", "android"], n).tolist(),
        "user": rng.integers(0, 300, n).tolist(),
        "part": rng.integers(0, 40, n).tolist(),
        "price": rng.random(n).round(2).tolist(),
        "ts": (1_700_000_000_000 + np.sort(rng.integers(0, 10**6, n))).tolist(),
        "tags": [rng.choice(["sale", "gift", "é", "new"], int(rng.integers(1, 4))).tolist() for _ in range(n)],
        "codes": [rng.integers(-5, 500, int(rng.integers(1, 3))).tolist() for _ in range(n)],
    }


def _encoded_lists(rng, rows: list, value_type, chunks: int) -> pa.ChunkedArray:
    """Multi-value rows as lists of dictIds, each chunk over a dictionary of its own (``_encoded_chunks``)."""
    out = []
    for part in np.array_split(np.arange(len(rows)), chunks):
        lists = [rows[i] for i in part]
        lengths = np.array([len(r) for r in lists])
        flat = _encoded_chunks(rng, [v for r in lists for v in r], value_type, 1).chunk(0)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        out.append(pa.ListArray.from_arrays(pa.array(offsets), flat))
    return pa.chunked_array(out)


def test_segment_from_encoded_columns_has_the_decoded_rows_bytes(tmp_path):
    rng = np.random.default_rng(5)
    rows = _rows(rng, 3000)
    types = {s.name: {"STRING": pa.string(), "LONG": pa.int64(), "INT": pa.int32(), "DOUBLE": pa.float64()}[
        s.stored_type] for s in SCHEMA}
    plain = pa.table({name: pa.array(values, types[name] if SCHEMA[name].single_value else pa.list_(types[name]))
                      for name, values in rows.items()})
    encoded = pa.table({name: (pa.chunked_array([pa.array(values, types[name])]) if name == "price" else
                               _encoded_chunks(rng, values, types[name], 3) if SCHEMA[name].single_value else
                               _encoded_lists(rng, values, types[name], 3))
                        for name, values in rows.items()})
    assert pa.types.is_dictionary(encoded.schema.field("tags").type.value_type)
    mask = np.zeros(3000, dtype=np.bool_)
    mask[::7] = True  # a null vector beside the encoded dictIds
    built = []
    for name, table in (("plain", plain), ("encoded", encoded)):
        segment = build_segment(PinotColumns(table.slice(11, 2500), {"device": mask[11:2511]}), SCHEMA, CONFIG,
                                tmp_path / name, "t_0", creation_time_ms=1, options=BuildOptions(threads=1))
        built.append(hashlib.sha256(segment.tar_path.read_bytes()).hexdigest())
    assert built[0] == built[1]


def _ascending_chunks(arrow_type, dictionaries: list[list[int]], rows: list[list[int]]) -> pa.ChunkedArray:
    return pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array(ids, pa.int16()), pa.array(values, arrow_type))
                             for values, ids in zip(dictionaries, rows)])


@pytest.mark.parametrize("stored, arrow_type", [("INT", pa.int32()), ("LONG", pa.int64())])
def test_ascending_dictionaries_are_put_one_after_the_other(monkeypatch, stored, arrow_type):
    """Chunks whose dictionaries each start above where the one before ended (a time column's inputs): their
    used values one chunk after the other, without merging them (``build_dictionary`` is never called), the
    same dictionary and dictIds as from the decoded values; the first chunk (the rest of an input cut before)
    and a later one leave values unused, and 128 values kept make int8 dictIds."""
    dictionaries = [list(range(-300, -100)), list(range(-50, -22)), [7, 9, 10**6]]
    rows = [[150, 100, 199, *range(100, 199)], [0, 27, *range(28)], [0, 0, 2]]
    column = _ascending_chunks(arrow_type, dictionaries, rows)
    values = [dictionaries[c][i] for c, ids in enumerate(rows) for i in ids]
    expected = build_dictionary(pa.array(values, arrow_type), stored, "c")
    monkeypatch.setattr(encoded, "build_dictionary", None)  # not merged: a call would fail
    got = dictionary_of_encoded(column, stored, "c")
    assert expected.cardinality == 100 + 28 + 2
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()
    first_two = dictionary_of_encoded(column.slice(0, len(rows[0]) + len(rows[1])), stored, "c")
    assert first_two.cardinality == 128 and first_two.dict_ids.dtype == np.int8
    assert first_two.dict_ids.tolist() == expected.dict_ids[:len(first_two.dict_ids)].tolist()


@pytest.mark.parametrize("dictionaries", [
    [[1, 2, 3], [3, 4]],  # the second starts where the first ended: a value in both
    [[1, 2, 3], [0, 5]],  # the second starts below
    [[1, 3, 2], [4, 5]],  # one is not sorted
    [[1, 2, 2], [4, 5]],  # one repeats a value
])
def test_dictionaries_not_ascending_are_merged(dictionaries):
    rows = [[2, 0, 1, 2], [1, 0, 1]]
    column = _ascending_chunks(pa.int64(), dictionaries, rows)
    values = [dictionaries[c][i] for c, ids in enumerate(rows) for i in ids]
    expected = build_dictionary(pa.array(values, pa.int64()), "LONG", "c")
    assert encoded._dictionary_of_ordered_runs(list(column.chunks), len(column), "LONG", True) is None
    got = dictionary_of_encoded(column, "LONG", "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.tolist() == expected.dict_ids.tolist()


@pytest.mark.parametrize("stored, arrow_type, low", [("INT", pa.int32(), -2**31), ("INT", pa.int32(), 2**31 - 60),
                                                     ("LONG", pa.int64(), -5), ("LONG", pa.int64(), 2**62)])
@pytest.mark.parametrize("every_value", [False, True])
def test_dictionaries_over_a_small_span_are_counted(monkeypatch, stored, arrow_type, low, every_value):
    """Integer chunks over a small span (customer ids): their dictionaries (shuffled, repeated, values no row
    uses) marked in one presence table, never put together (``build_dictionary`` is never called); the same
    dictionary and dictIds as from the decoded values, at the type's ends too, whether or not every value of the
    span shows (then a dictId is the value's offset), and 60 values narrow to int8."""
    rng = np.random.default_rng(abs(low) % 97 + every_value)
    span = np.arange(60, dtype=np.int64) + low
    values = (span if every_value else span[rng.random(60) < 0.6]).tolist()
    values = [values[i] for i in rng.integers(0, len(values), 900)] + values  # every kept value has a row
    rng.shuffle(values)
    column = _encoded_chunks(rng, values, arrow_type, 5).slice(0, len(values))
    expected = build_dictionary(pa.array(values, arrow_type), stored, "c")
    monkeypatch.setattr(encoded, "_COUNTED_MIN_VALUES", 0)
    monkeypatch.setattr(encoded, "build_dictionary", None)  # not merged: a call would fail
    got = dictionary_of_encoded(column, stored, "c")
    assert got.values.equals(expected.values)
    assert got.dict_ids.dtype == np.int8 and got.dict_ids.tolist() == expected.dict_ids.tolist()
    unused = dictionary_of_encoded(column.slice(100, 300), stored, "c")  # values the cut leaves without a row
    monkeypatch.undo()
    expected = build_dictionary(pa.array(values[100:400], arrow_type), stored, "c")
    assert unused.values.equals(expected.values) and unused.dict_ids.tolist() == expected.dict_ids.tolist()
