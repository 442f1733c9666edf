"""What ``read`` / ``read_batches`` return stays theirs while the reader's arrays come from Arrow's pool
(segment/read/pooled.py), which hands freed pages to the next allocation: tables, slices, batches and numpy
views kept from earlier reads, and reads on two threads at once, equal a fresh read after the pool's pages were
reused and scribbled over; on Arrow's own pool and on the system's (a write task's, allocator.settle) alike.
The segments (tests/read_stress_segments.py) hold every layout the reader decodes into arrays of its own."""
from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import pinot_sink
from pinot_sink.segment.read.reader import open_segment
from read_stress_segments import build_stress_segment, stress_table

ROWS = 30_000  # dictIds, dictionaries, doc ranges and tar members from 64 KiB: from the pool
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def segments(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stress")
    return [build_stress_segment(folder / str(seed), seed, ROWS) for seed in SEEDS]


@pytest.fixture(params=["arrows_own", "system"])
def pool(request):
    if request.param == "arrows_own":
        yield request.getfixturevalue("arrows_own_pool")
        return
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    yield pa.system_memory_pool()
    pa.set_memory_pool(before)


def _scribble():
    """Take pool memory of the sizes a read uses, fill it with 0xAB and free it: the next read reuses it."""
    for size in (1 << 16, 120_000, 240_000, 1 << 20, 3 << 20, 8 << 20):
        np.frombuffer(pa.allocate_buffer(size), dtype=np.uint8)[:] = 0xAB


def test_the_segments_read_back_as_written(segments):
    """The fixture itself: each column (sorted runs, one run, 1-doc runs, one-width and variable text, BYTES,
    BIG_DECIMAL, JSON, multi-value, nulls, raw) reads as the rows written."""
    table = pinot_sink.read(segments[1])
    written, masks = stress_table(1, ROWS)
    for name in written.column_names:
        column = written.column(name).combine_chunks()
        if masks[name].any():
            column = pc.if_else(pa.array(masks[name]), pa.scalar(None, column.type), column)
        assert table.column(name).combine_chunks().equals(column), name
    with open_segment(segments[1]) as reader:
        assert all(reader.column(n).sorted for n in ("runs", "text_runs", "one_run", "unique"))


def test_results_kept_across_reads_stay_intact(segments, pool):
    fresh = [pinot_sink.read(p) for p in segments]
    kept = []
    for _ in range(2):
        for i, path in enumerate(segments):
            table = pinot_sink.read(path)
            views = {name: table.column(name).chunk(0).to_numpy() for name in ("runs", "unique", "d", "raw_l")}
            kept.append((i, table, table.slice(1000, 5000), views, table.column("mi").chunk(0).values.to_numpy()))
            del table
            _scribble()
        for i, path in enumerate(segments):
            kept.append((i, pa.Table.from_batches(list(pinot_sink.read_batches(path, batch_rows=777))), None, {},
                         None))  # batches cut runs of 7 and of 100
            _scribble()
    _scribble()
    for i, table, piece, views, mv_values in kept:
        assert table.equals(fresh[i])
        assert piece is None or piece.equals(fresh[i].slice(1000, 5000))
        for name, view in views.items():
            assert np.array_equal(view, fresh[i].column(name).chunk(0).to_numpy()), name
        assert mv_values is None or np.array_equal(mv_values, fresh[i].column("mi").chunk(0).values.to_numpy())


def test_batches_of_several_segments_kept_equal_read(segments, pool):
    batches = list(pinot_sink.read_batches(segments, batch_rows=4096))
    _scribble()
    assert max(b.num_rows for b in batches) == 4096
    assert pa.Table.from_batches(batches).equals(pinot_sink.read(segments))


def test_two_threads_reading_at_once(segments, pool):
    fresh = [pinot_sink.read(p) for p in segments]
    results, errors = [], []

    def reading(offset):
        try:
            for k in range(4):
                i = (offset + k) % len(segments)
                results.append((i, pinot_sink.read(segments[i])))
                _scribble()
        except BaseException as exc:  # noqa: BLE001 - reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=reading, args=(offset,)) for offset in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 8
    for i, table in results:
        assert table.equals(fresh[i])


def test_segments_side_by_side_and_columns_on_threads_equal_one_at_a_time(segments, pool, monkeypatch):
    """The threaded paths (several segments at once from 4 MiB each; a segment's columns on threads, costliest
    first, from 500k rows) on segments below those sizes."""
    from pinot_sink import reading

    one_by_one = pa.concat_tables([pinot_sink.read(p) for p in segments])
    monkeypatch.setattr(reading, "SIDE_BY_SIDE_BYTES", 0)
    monkeypatch.setattr(reading, "default_threads", lambda: 2)
    assert pinot_sink.read(segments).equals(one_by_one)
    for path in segments:
        with open_segment(path) as reader:
            assert reader.read(threads=3).table.equals(pinot_sink.read(path).select(reader.column_names))


def test_a_process_on_the_system_allocator_reads_with_numpys_arrays(segments, arrows_own_pool, monkeypatch):
    """Where allocator.settle put Arrow on the system allocator (write tasks, the compaction) no array of the
    reader's comes from ``pa.allocate_buffer``; on Arrow's own pool its large ones do."""
    from pinot_sink.segment.read import pooled

    calls = []
    real = pooled.pa.allocate_buffer
    monkeypatch.setattr(pooled.pa, "allocate_buffer", lambda *a, **k: calls.append(a) or real(*a, **k))
    pa.set_memory_pool(pa.system_memory_pool())
    on_system = pinot_sink.read(segments[0])
    assert calls == []
    pa.set_memory_pool(arrows_own_pool)
    assert pinot_sink.read(segments[0]).equals(on_system) and calls
