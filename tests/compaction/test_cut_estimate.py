"""The first segment of a compaction is aimed by its rows' merged dictionaries (``merged_bytes_per_row``): many
small inputs sharing their values make a segment whose bytes per row are well under the inputs', and aimed
by the inputs' own it came out under the size band and was built twice."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pytest

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


def test_the_cutter_hands_a_build_its_rows_alone_and_rereads_them_after_a_miss():
    """With ``reread``, the cutter keeps none of a segment's rows while it is built (the builder lets them
    go); after a build outside the band it reads them again: the builds get the same rows as without."""
    parts = [np.arange(start, start + 100) for start in range(0, 4000, 100)]

    def cut(reread, below=None):
        built, held = [], []

        def build(rows, key):
            values = rows.table.column("x").to_numpy()
            built.append(values.tolist())
            held.append(sum(p.count for p in cutter.pending[key] if p.rows is not None))
            rows.table = rows.table.schema.empty_table()  # as the builder's release_input
            return merge.Built(f"s{len(built)}", len(values), 10 * len(values), "", lambda: None, lambda: None)

        cutter = merge.Cutter(10_000, build, 20.0, reread=reread, reread_below=below)
        for number, values in enumerate(parts):
            cutter.add((0,), PinotColumns(pa.table({"x": pa.array(values)}), {}), number)
        cutter.finish()
        return built, held, cutter.rereads

    kept, kept_held, none = cut(None)
    read = []
    built, held, rereads = cut(lambda number: read.append(number) or
                               PinotColumns(pa.table({"x": pa.array(parts[number])}), {}))
    assert built == kept and [len(b) for b in built[:3]] == [450, 900, 900]  # the first missed the band
    assert none == 0 and rereads == 5 and read == [0, 1, 2, 3, 4]  # the first build's 450 rows, 4.5 parts
    # while built, the cutter held only the rows after the segment's (50: the 5th part's rest); without
    # reread, all it had (the first segment's 450 rows beside them)
    assert held == [50, 0, 0, 0, 0, 0] and kept_held == [500, 900, 900, 900, 900, 400]
    # reread_below: segments of 900 rows (not 450 or 400) keep theirs held
    assert cut(lambda number: PinotColumns(pa.table({"x": pa.array(parts[number])}), {}), 900)[1] == \
        [50, 900, 900, 900, 900, 0]


def test_a_segment_built_again_from_reread_rows_is_the_one_built_from_kept_rows(tmp_path, monkeypatch):
    """A first build aimed at half the band (the estimate made wrong) is built again: from its sources read
    again by default, from the rows the cutter kept without ``reread``; the segments hold the same rows."""
    from pinot_sink.compaction import run as run_module
    from pinot_sink.segment import read_segment

    options = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}
    rereads = []

    class Counting(merge.Cutter):
        def finish(self):
            super().finish()
            rereads.append(self.rereads)

    class Keeping(Counting):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "reread": None})

    made = tmp_path / "made"
    for i in range(40):
        ids = np.arange(i * 300, (i + 1) * 300, dtype=np.int64)
        write(pa.record_batch({"id": ids, "country": np.array(["US", "DE", "FR"])[ids % 3], "amount": ids * 0.5,
                               "clicks": ids % 7, "ts": pa.array(BASE_MS + ids * 1000,
                                                                 type=pa.timestamp("ms", tz="UTC"))},
                              schema=ARROW), out=made, write_id=f"w{i}")

    def compacted(cutter, folder) -> list[pa.Table]:
        out = shutil.copytree(made, tmp_path / folder)  # the same inputs (their write tags are in the segments)
        monkeypatch.setattr(merge, "merged_bytes_per_row", lambda rows, bytes_per_row, *_: 2 * bytes_per_row)
        monkeypatch.setattr(merge, "Cutter", cutter)
        # one instant for both (the names and creation time in the segments, so their sizes, depend on it)
        monkeypatch.setattr(run_module.time, "time", lambda: 1_700_000_000.0)
        [group] = pinot_sink.compact("events", output_uri=str(out), target_size="64kb", options=options).groups
        monkeypatch.undo()
        assert group.segments_after > 1 and group.builds > group.segments_after  # the first missed the band
        return [read_segment(str(out / "events" / f"{name}.tar.gz")).table for name in group.new]

    again, kept = compacted(Counting, "reread"), compacted(Keeping, "kept")
    assert rereads[0] > 0 and rereads[1] == 0
    assert [t.num_rows for t in again] == [t.num_rows for t in kept] and all(
        a.equals(k) for a, k in zip(again, kept))


def _buffer_spans(table: pa.Table) -> list[tuple[int, int]]:
    return [(b.address, b.address + b.size) for column in table.columns for chunk in column.chunks
            for b in chunk.buffers() if b is not None and b.size]


def test_the_rest_of_an_input_cut_for_a_built_segment_is_held_as_its_own_copy():
    """An input cut across two segments: once the first is built, the cutter holds the rest's rows in buffers
    of their own (not slices of the input's, which held the built rows too: the whole input stayed beside the
    next segment's build; the dictionaries, an input's distinct values, are still shared); the next segment gets
    the same rows, values, dictIds and nulls."""
    parts = [PinotColumns(pa.table({
        "x": pa.array(np.arange(start, start + 100)),
        "d": pa.DictionaryArray.from_arrays(pa.array(np.arange(100) % 5, pa.int8()), pa.array([7, 8, 9, 10, 11])),
        "tags": pa.ListArray.from_arrays(pa.array(np.arange(101) * 2, pa.int32()),
                                         pa.array(np.arange(start, start + 200))),
    }), {"x": np.arange(100) % 3 == 0}) for start in range(0, 1000, 100)]
    spans = [_buffer_spans(p.table) for p in parts]
    built, pending = [], []

    def build(rows, key):
        built.append((rows.table, rows.null_masks["x"].copy()))
        pending.append([(p.origin, p.start, p.count, p.rows) for p in cutter.pending[key]])
        return merge.Built(f"s{len(built)}", rows.table.num_rows, 20 * rows.table.num_rows, "", lambda: None,
                           lambda: None)

    cutter = merge.Cutter(10_000, build, 20.0)  # 450 rows a segment: part 4 cut at 50
    for number, part in enumerate(parts):
        cutter.add((0,), part, number)
    cutter.finish()
    [(start, count, rest)] = [(s, c, r) for origin, s, c, r in pending[1] if origin == 4]
    assert (start, count) == (50, 50)
    assert not any(a < end and start_ < b for a, b in _buffer_spans(rest.table) for start_, end in spans[4])
    # the rows are the same as the input's: the next segment begins with them
    second, mask = built[1]
    assert second.slice(0, 50).equals(parts[4].table.slice(50, 50))
    assert mask[:50].tolist() == parts[4].null_masks["x"][50:].tolist()
    assert [t.num_rows for t, _ in built] == [450, 450, 100]


def test_a_dictionary_column_held_as_values_is_estimated_as_its_inputs_dictionaries():
    """A number column held decoded (``merge._held_single_value``) saves what its inputs' dictionaries would:
    each input's distinct values one dictionary (a chunk sliced from an input counts the whole input's, as an
    encoded chunk carries its input's whole dictionary), the merged one the distinct values of all."""
    first, second = pa.array([1, 2, 3, 3], pa.int64()), pa.array([2, 3, 4, 5], pa.int64())
    encoded = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array(ids, pa.int8()), pa.array(values, pa.int64()))
                                for values, ids in (([1, 2, 3], [0, 1, 2, 2]), ([2, 3, 4, 5], [0, 1, 2]))])
    values = pa.chunked_array([first, second.slice(0, 3)])
    per_value = {"k": 20}
    estimate = merge.merged_bytes_per_row(PinotColumns(pa.table({"k": encoded}), {}), 1000.0, per_value)
    assert estimate < 1000.0 - 2 * (8 + 20) / 7  # two values in both inputs (5: in the second's dictionary)
    assert merge.merged_bytes_per_row(PinotColumns(pa.table({"k": values}), {}), 1000.0, per_value,
                                      value_widths={"k": 8}) == estimate
    # not a dictionary column of the segment (a raw one): nothing merged
    assert merge.merged_bytes_per_row(PinotColumns(pa.table({"k": values}), {}), 1000.0, per_value) == 1000.0


@pytest.mark.parametrize("values", [
    pa.array(np.concatenate([np.sort(np.random.default_rng(1).integers(0, 5000, 3000))] * 4), pa.int64()),  # ids
    pa.array(np.arange(-40_000, 40_000, 3), pa.int64()),  # never falling (a time column's dictionaries)
    pa.array(np.random.default_rng(2).integers(-2**62, 2**62, 5000), pa.int64()),  # a wide span: sorted
    pa.array(np.random.default_rng(3).integers(-2**31, 2**31 - 1, 5000) // 7, pa.int32()),
    pa.array([0.5, -0.0, 0.0, 0.5, 2.0]),
    pa.array(["b", "a", "b"]),
])
def test_distinct_counts_the_distinct_values(values):
    # The first segment's estimate counts the inputs' dictionaries' values together, each once, by whichever way
    assert merge._distinct(values) == len(set(values.to_pylist()))
