"""Range index v2: byte equality with Pinot's RangeBitmaps, and the bit-sliced semantics via a decoder."""
from __future__ import annotations

import json
import struct
import tarfile

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pinot_sink.segment import range_index as ri
from pinot_sink.segment.properties import parse_properties
from type_mapping.pinot_schema import FieldSpec


def _load(case_dir, case):
    with tarfile.open(case_dir / f"{case}_0.tar.gz") as tar:
        psf = tar.extractfile(f"{case}_0/v3/columns.psf").read()
        index_map = parse_properties(tar.extractfile(f"{case}_0/v3/index_map").read())
    rows = [json.loads(line) for line in (case_dir / "dump-rows.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r.get("kind") == "row"]
    columns = {
        c["column"]: c
        for c in map(json.loads, (case_dir / "dump-columns.jsonl").read_text().splitlines())
        if c.get("kind") == "column"
    }

    def range_index(column):
        start = int(index_map[f"{column}.range_index.startOffset"])
        size = int(index_map[f"{column}.range_index.size"])
        return psf[start + 8 : start + size]

    return range_index, rows, columns


@pytest.mark.parametrize("case", ["events_indexes", "events_partitioned"])
@pytest.mark.parametrize("column", ["user_id", "price"])
def test_pinot_range_index_is_reproduced_from_dict_ids(pinot_built, case, column):
    range_index, rows, columns = _load(pinot_built / case, case)
    dict_ids = np.array([r["dictIds"][column] for r in rows])
    pinot = range_index(column)
    assert ri.build_range_index(dict_ids, columns[column]["cardinality"]) == pinot
    # and the bytes mean what Pinot's RangeBitmap.lte means
    minimum, values = ri.read_range_index(pinot)
    assert minimum == 0 and (values == dict_ids).all()
    for threshold in (0, 17, columns[column]["cardinality"] // 2, columns[column]["cardinality"] - 1):
        assert ri.rows_less_or_equal(pinot, threshold).tolist() == np.flatnonzero(dict_ids <= threshold).tolist()


def test_cardinality_one_column_has_the_size_of_the_startree_fixture():
    """The star-tree fixture's range indexes on 313-doc, cardinality-1 columns are 38 bytes in columns.psf
    (8 marker + 12 header + 18 RangeBitmap bytes)."""
    buf = ri.build_range_index(np.zeros(313, dtype=np.int32), 1)
    assert len(buf) == 30
    assert struct.unpack("<HBBHI", buf[12:22]) == (0xF00D, 2, 1, 1, 313)
    assert buf[22:] == bytes([1]) + struct.pack("<BHHH", ri.RUN, 1, 0, 312)


def _container_kinds(buf):
    """Types of the containers in a RangeBitmap, in file order."""
    _, _, slices, blocks, _ = struct.unpack_from("<HBBHI", buf, 0)
    per_mask = (slices + 7) // 8
    masks = [int.from_bytes(buf[10 + b * per_mask : 10 + (b + 1) * per_mask], "little") for b in range(blocks)]
    position, kinds = 10 + blocks * per_mask, []
    for mask in masks:
        for _ in range(bin(mask).count("1")):
            kind, count = struct.unpack_from("<BH", buf, position)
            kinds.append(kind)
            position += 3 + (8192 if kind == ri.BITMAP else 4 * count if kind == ri.RUN else 2 * count)
    assert position == len(buf)
    return kinds


def test_container_choices_follow_the_appender():
    rng = np.random.default_rng(7)
    # 63 = 0b111111: slices 0-5. Sparse zero bits: mostly 63, a few random rows have value 0.
    values = np.full(100_000, 63, dtype=np.uint64)
    values[rng.choice(100_000, 300, replace=False)] = 0
    kinds = _container_kinds(ri.serialize_range_bitmap(values, 63))
    # slices 0-4 of a sparse block: bitmap containers turned into runs (never arrays); slice 5: array
    assert kinds == [ri.RUN] * 5 + [ri.ARRAY] + [ri.RUN] * 5 + [ri.ARRAY]
    noisy = rng.integers(0, 64, 65_536).astype(np.uint64)  # dense, no runs: bitmaps everywhere
    assert set(_container_kinds(ri.serialize_range_bitmap(noisy, 63))) == {ri.BITMAP}


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.uint64, st.integers(0, 140_000), elements=st.integers(0, 2**20 - 1)),
    st.integers(2**20 - 1, 2**40),
)
def test_round_trip_any_values(values, max_value):
    buf = ri.serialize_range_bitmap(values, max_value)
    assert (ri.decode_range_bitmap(buf) == values).all()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=70_000).map(lambda v: np.repeat(v, 3)))
def test_round_trip_runs(values):
    values = values.astype(np.uint64)
    assert (ri.decode_range_bitmap(ri.serialize_range_bitmap(values, 5)) == values).all()


def test_raw_int_and_long_shift_by_the_minimum():
    values = pa.array([-5, 10, -5, 3], pa.int32())
    minimum, stored = ri.read_range_index(ri.build_raw_range_index(values, FieldSpec("n", "INT")))
    assert minimum == -5 and stored.tolist() == [0, 15, 0, 8]
    extremes = pa.array([-(2**63), 2**63 - 1, 0], pa.int64())
    minimum, stored = ri.read_range_index(ri.build_raw_range_index(extremes, FieldSpec("n", "LONG")))
    assert minimum == -(2**63) and stored.tolist() == [0, 2**64 - 1, 2**63]


@pytest.mark.parametrize("data_type, dtype", [("FLOAT", np.float32), ("DOUBLE", np.float64)])
def test_raw_float_ordinals_preserve_order(data_type, dtype):
    ordered = np.array([-np.inf, -1e30, -2.5, -1e-30, 0.0, 1e-30, 1.0, 3.5, 1e30, np.inf], dtype=dtype)
    _, stored = ri.read_range_index(ri.build_raw_range_index(pa.array(ordered), FieldSpec("x", data_type)))
    assert (np.diff(stored.astype(object)) > 0).all()
    zeros = ri.float_ordinals(np.array([0.0, -0.0], np.float32)) if data_type == "FLOAT" else \
        ri.double_ordinals(np.array([0.0, -0.0]))
    assert zeros[0] == zeros[1]  # FPOrdering conflates -0.0 and 0.0


def test_bad_inputs_are_rejected():
    with pytest.raises(ri.RangeIndexError, match="dictIds"):
        ri.build_range_index(np.array([0, 3]), 3)
    with pytest.raises(ri.RangeIndexError, match="'tags'"):
        ri.build_raw_range_index(pa.array([[1]]), FieldSpec("tags", "INT", single_value=False))
    with pytest.raises(ri.RangeIndexError, match="exceeds"):
        ri.serialize_range_bitmap(np.array([8], np.uint64), 7)
