"""Rows gathered by index across segments (dedup's first-seen rows, a partitioned table's split): the segments'
dictIds are int8 where a segment's dictionary is small, and gathering over several of them unifies their
dictionaries; a union past 127 (or 32,767) values must widen, not fail the group (found on a real cluster:
``compact --mode dedup`` of 16 small segments failed "The unified dictionary requires a larger index type")."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from pinot_sink.compaction.merge import concat, dedup, take, used_values
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns


def _part(prefix: str, n: int = 100) -> PinotColumns:
    ids = np.arange(n, dtype=np.int8)
    single = pa.DictionaryArray.from_arrays(pa.array(ids), pa.array([f"{prefix}{i}" for i in range(n)]))
    multi = pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32)), single)
    return PinotColumns(pa.table({"s": single, "m": multi}), {"s": np.arange(n) % 7 == 0})


def test_take_across_segments_whose_dictionaries_unite_past_int8():
    rows = concat([_part("a"), _part("b"), _part("c")])
    got = take(rows, np.array([0, 150, 299, 1]))
    assert got.table.column("s").to_pylist() == ["a0", "b50", "c99", "a1"]
    assert got.table.column("m").to_pylist() == [["a0"], ["b50"], ["c99"], ["a1"]]
    assert got.null_masks["s"].tolist() == [True, False, False, False]


def test_dedup_of_duplicated_small_segments():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "s", "dataType": "STRING"}]})
    parts = [_part("a"), _part("b")]
    single = [PinotColumns(p.table.select(["s"]), p.null_masks) for p in parts]
    got = dedup(concat(single + single), schema)  # every row twice
    assert got.table.num_rows == 200
    assert got.table.column("s").to_pylist() == [f"{p}{i}" for p in "ab" for i in range(100)]


def test_used_values_are_the_values_rows_hold():
    # A build's time range (its segment's name) from each chunk's used dictionary values: values no row uses
    # (the rest of an input cut before, here below and above the rows') are left out, as decoding leaves them
    dictionary = pa.array([100, 200, 300, 400, 500], pa.int64())
    column = pa.chunked_array([
        pa.DictionaryArray.from_arrays(pa.array([1, 2, 2, 1], pa.int16()), dictionary),
        pa.DictionaryArray.from_arrays(pa.array([3, None, 2], pa.int16()), dictionary),  # a null: decoded
        pa.DictionaryArray.from_arrays(pa.array([], pa.int16()), dictionary),
    ])
    got = used_values(column)
    assert got.type == pa.int64()
    assert [chunk.to_pylist() for chunk in got.chunks] == [[200, 300], [400, None, 300], []]
    assert pa.compute.min_max(got).as_py() == pa.compute.min_max(column.cast(pa.int64())).as_py() == \
        {"min": 200, "max": 400}
    plain = pa.chunked_array([pa.array([5, 1])])
    assert used_values(plain) is plain
