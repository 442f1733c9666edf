"""The reader's large arrays come from Arrow's pool (which keeps freed pages for the next read), unless the
process put Arrow on the system allocator (``pinot_sink.allocator.settle``: write tasks and the compaction keep
numpy's arrays, as before)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from pinot_sink.segment.read import pooled


def test_large_arrays_come_from_arrows_pool_and_small_ones_from_numpy(arrows_own_pool):
    large = pooled.empty(pooled.MIN_BYTES // 4, np.int32)
    assert large.dtype == np.int32 and large.shape == (pooled.MIN_BYTES // 4,) and large.flags.writeable
    assert isinstance(large.base, pa.Buffer)
    small = pooled.empty(10, np.int64)
    assert small.shape == (10,) and not isinstance(small.base, pa.Buffer)


def test_on_the_system_allocator_numpy_allocates():
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        array = pooled.empty(pooled.MIN_BYTES, np.uint8)
        assert not isinstance(array.base, pa.Buffer)
    finally:
        pa.set_memory_pool(before)


def test_copies_are_the_values_in_their_new_type():
    source = np.arange(-5, 400_000, dtype=">i8")
    copied = pooled.copy_as(source, np.int64)
    assert copied.dtype == np.int64 and np.array_equal(copied, source)
    matrix = pooled.copy_as(source[:400_000].reshape(200_000, 2), np.int32)
    assert matrix.shape == (200_000, 2) and np.array_equal(matrix.ravel(), source[:400_000])
    raw = bytes(range(256)) * 8192
    assert pooled.copy_bytes(memoryview(raw)).tobytes() == raw
