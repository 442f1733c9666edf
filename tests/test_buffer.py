import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.buffer import PartitionBuffer
from type_mapping.stored import PinotColumns


def part(start, count, width=1):
    values = np.arange(start, start + count, dtype=np.int64)
    table = pa.table({"v": values, "s": pa.array(["x" * width] * count)})
    return PinotColumns(table, {"v": values % 2 == 0})


def drain_all(buffer, parts):
    out = []
    for p in parts:
        out.extend(buffer.add(p))
    last = buffer.drain()
    return out + ([last] if last is not None else [])


def test_cut_at_exactly_max_rows_when_batches_straddle():
    buffer = PartitionBuffer(max_rows=1000, max_bytes=10**12)
    segments = drain_all(buffer, [part(0, 700), part(700, 700), part(1400, 2000)])
    assert [s.num_rows for s in segments] == [1000, 1000, 1000, 400]
    values = np.concatenate([s.table.column("v").to_numpy() for s in segments])
    assert np.array_equal(values, np.arange(3400))  # order kept, nothing lost or doubled
    masks = np.concatenate([s.null_masks["v"] for s in segments])
    assert np.array_equal(masks, np.arange(3400) % 2 == 0)


def test_batch_larger_than_many_segments():
    segments = drain_all(PartitionBuffer(max_rows=3, max_bytes=10**12), [part(0, 10)])
    assert [s.num_rows for s in segments] == [3, 3, 3, 1]


def test_cut_by_size_splits_a_large_batch():
    one = part(0, 10_000, width=100)
    per_row = one.nbytes / one.num_rows
    limit = int(per_row * 2500)
    buffer = PartitionBuffer(max_rows=10**9, max_bytes=limit)
    segments = drain_all(buffer, [one])
    assert [s.num_rows for s in segments] == [2500, 2500, 2500, 2500]
    for s in segments:
        assert s.nbytes <= limit + per_row * 2  # bounded by the size, not the batch


def test_empty_parts_and_drain():
    buffer = PartitionBuffer(max_rows=5, max_bytes=100)
    assert list(buffer.add(part(0, 0))) == []
    assert buffer.drain() is None
    with pytest.raises(ValueError):
        PartitionBuffer(0, 1)
