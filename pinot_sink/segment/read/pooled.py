"""Large arrays the reader fills (tarball members, dictIds, dictionaries, doc ranges), allocated from Arrow's
memory pool where that is Arrow's own allocator (mimalloc or jemalloc), else by numpy as any array.

Why: reading 1M rows makes ~150 MB of such arrays. From glibc (numpy's allocator) the freed ones go back to
the system and the next read faults them in again, a page at a time: reading bench/read.py's segment folder
took ~11k page faults and 25 ms of system CPU-s per read beside 52 ms user (with glibc told to keep its pages,
5 ms), a tar.zst 52 ms (5). Arrow's pool keeps what it frees for the next allocation (Parquet's read of the
same rows: 1.3k faults). Where the process put Arrow on the system allocator (``pinot_sink.allocator.settle``:
a write's tasks, the compaction), numpy allocates as before.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

# Below this numpy's allocator (the pool's own call costs more than such an array saves). Not higher: arrays of
# 1-4 MB (a 250k-row segment's dictIds, dictionaries) left to glibc faulted in anew as often as the large ones
# (bench/read.py's table of 4 folders in the process that read the other cases: 8.7k faults per read at a 1 MiB
# floor, 2.1k at 64 KiB; the lone folder 3.9k and 1.6k).
MIN_BYTES = 1 << 16


def empty(count: int, dtype=np.uint8) -> np.ndarray:
    """A writable 1-d array of ``count`` items, not zero-filled."""
    dtype = np.dtype(dtype)
    nbytes = count * dtype.itemsize
    if nbytes < MIN_BYTES or pa.default_memory_pool().backend_name == "system":
        return np.empty(count, dtype=dtype)
    return np.frombuffer(pa.allocate_buffer(nbytes), dtype=dtype, count=count)


def copy_as(source: np.ndarray, dtype, allocate=empty) -> np.ndarray:
    """``source.astype(dtype)`` (a byte swap, a widening) into an array of ``allocate`` (``empty``)."""
    out = allocate(source.size, dtype)
    np.copyto(out, source.reshape(-1), casting="unsafe")
    return out.reshape(source.shape)


def copy_bytes(buf) -> np.ndarray:
    """The bytes of ``buf`` as a uint8 array of their own (outliving a file mapping it came from)."""
    source = np.frombuffer(buf, dtype=np.uint8)
    out = empty(source.size)
    np.copyto(out, source)
    return out
