"""The first segment of a compaction is aimed by its rows' merged dictionaries (``merged_bytes_per_row``): many
small inputs sharing their values make a segment whose bytes per row are well under the inputs', and aimed
by the inputs' own it came out under the size band and was built twice."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

import pinot_sink
from pinot_sink.compaction import merge
from type_mapping.stored import PinotColumns
from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, SCHEMA, write


def _encoded(*dictionaries_and_ids) -> pa.ChunkedArray:
    return pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array(ids, pa.int8()), pa.array(values, pa.int64()))
                             for values, ids in dictionaries_and_ids])


def test_a_value_in_several_inputs_dictionaries_is_counted_once():
    metadata = merge.METADATA_PER_COLUMN  # two inputs' metadata files become one segment's, per column
    # two inputs' dictionaries share 2 and 3: the merged one has 4 entries, not 6 (8 B each, and each a bitmap
    # of 20 B); 6 rows whose dictIds stay 2 bits (cardinality 3 and 4)
    column = _encoded(([1, 2, 3], [0, 1, 2]), ([2, 3, 4], [0, 1, 2]))
    rows = PinotColumns(pa.table({"k": column, "plain": pa.array(np.arange(6))}), {})
    assert merge.merged_bytes_per_row(rows, 1000.0, {"k": 20}) == 1000.0 - (2 * (8 + 20) + 2 * metadata) / 6
    # the forward index's dictIds grow to the merged cardinality's bits: 1 + 1 bit -> 2 bits for 4 rows
    wider = PinotColumns(pa.table({"k": _encoded(([1, 2], [0, 1]), ([3, 4], [0, 1]))}), {})
    assert merge.merged_bytes_per_row(wider, 1000.0, {}) == 1000.0 - (metadata - 4 * (2 - 1) / 8) / 4
    # one dictionary carried by two chunks (a segment cut before) is one input's: nothing merged
    shared = pa.array([5, 6, 7], pa.int64())
    once = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), shared),
                             pa.DictionaryArray.from_arrays(pa.array([2], pa.int8()), shared)])
    assert merge.merged_bytes_per_row(PinotColumns(pa.table({"k": once}), {}), 10.0, {"k": 20}) == 10.0
    # a multi-value column's values: "b" in both inputs' dictionaries (1 B a string); 6 values' dictIds 1 -> 2 bits
    def listed(values, offsets, ids):
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.DictionaryArray.from_arrays(
            pa.array(ids, pa.int8()), pa.array(values)))
    tags = pa.chunked_array([listed(["a", "b"], [0, 2, 3], [0, 1, 1]), listed(["b", "c"], [0, 1, 3], [0, 1, 0])])
    assert merge.merged_bytes_per_row(PinotColumns(pa.table({"tags": tags}), {}), 1000.0, {}) == \
        1000.0 - (1 - 6 * (2 - 1) / 8 + metadata) / 4
    # never below a quarter of the inputs' (an estimate gone wrong still aims near the band)
    assert merge.merged_bytes_per_row(rows, 100.0, {"k": 20}) == 25.0


def test_the_cutter_aims_its_first_segment_by_the_estimate_and_waits_for_its_rows():
    """Built sizes follow 10 B a row; the inputs say 20: aimed by theirs, the first segment is half the target
    and built again; with the estimate every segment is built once."""
    def cut(estimate):
        built = []

        def build(rows, key):
            count = rows.table.num_rows
            built.append(count)
            return merge.Built(f"s{len(built)}", count, 10 * count, "", lambda: None, lambda: None)

        cutter = merge.Cutter(10_000, build, 20.0, estimate=estimate)
        for start in range(0, 4000, 100):
            cutter.add((0,), PinotColumns(pa.table({"x": pa.array(np.arange(start, start + 100))}), {}))
        cutter.finish()
        return built

    assert cut(None)[:2] == [450, 900]
    assert cut(lambda rows, bytes_per_row: 10.0) == [900, 900, 900, 900, 400]


def test_many_small_inputs_sharing_their_values_are_compacted_with_one_build_a_segment(tmp_path):
    out = tmp_path / "segments"
    for i in range(40):  # every input holds the same 300 ids and amounts: their dictionaries merge
        ids = np.arange(300, dtype=np.int64)
        write(pa.record_batch({"id": ids, "country": np.array(["US", "DE", "FR"])[ids % 3], "amount": ids * 0.5,
                               "clicks": ids % 7, "ts": pa.array(BASE_MS + i * 300_000 + ids * 1000,
                                                                 type=pa.timestamp("ms", tz="UTC"))},
                              schema=ARROW), out=out, write_id=f"w{i}")
    options = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}
    report = pinot_sink.compact("events", output_uri=str(out), target_size="64kb", options=options)
    [group] = report.groups
    assert group.rows_after == 12_000 and group.segments_after > 1
    assert group.builds == group.segments_after
