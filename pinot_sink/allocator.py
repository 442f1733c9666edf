"""The process's allocator for Arrow, set for a task's peak: one heap for Arrow buffers and numpy arrays.

A task's peak RSS is set by the allocators as much as by the rows it holds (docs/performance.md, "Task
memory"). Measured on ``tests/datasource/memory_probe.py`` (ten segments, one builder thread), the bytes in
use peak at ~2.3-2.8x max-size, and glibc's heap holds another 20-55 MB free inside it at that moment:
frees of one size that the next, larger request cannot use. Arrow's own pool (mimalloc) makes it worse,
as it keeps the pages Arrow freed where numpy cannot reuse them, and glibc's per-thread arenas too (the
build thread's arena cannot reuse what the writer's thread freed). So once per process (``settle``, from
the partition writer), Arrow allocates from glibc (``pa.system_memory_pool()``): Arrow buffers and numpy
arrays share one heap, and a column the builder gives up is memory the next column reuses.

At max-size 64mb (alternated runs, load ~9, no more CPU) the peak above the baseline was 223-235 MB with
mimalloc, 213 MB with the system pool, and 198-202 MB with the system pool and ``MALLOC_ARENA_MAX=1`` in
the environment. The arena limit is not set here: glibc fixes it when a second arena is made, and
importing pyarrow and numpy already makes one, so only the environment of the worker can set it
(``spark.executorEnv.MALLOC_ARENA_MAX``, docs/data-source.md "Memory"). jemalloc with immediate decay did
about as well but cost ~0.06 CPU-s per million rows in page faults; a fixed ``M_MMAP_THRESHOLD`` (large
arrays mapped and unmapped) removed the free space but cost 0.3-0.5 CPU-s per million rows.

Not done: handing free pages back to the OS after each segment (glibc's ``malloc_trim``). It does not lower
the peak, which is inside a build, and the next build faults the pages in again: +0.05-0.18 CPU-s per
million rows on ``bench/task_cpu.py`` (three runs, load 6-7).

The user's setting wins: with ``ARROW_DEFAULT_MEMORY_POOL`` in the environment the pool is left alone.
"""
from __future__ import annotations

import os
import threading

import pyarrow as pa

_lock = threading.Lock()
_settled = False


def settle() -> None:
    """Once per process: Arrow on the system allocator (unless ARROW_DEFAULT_MEMORY_POOL says otherwise)."""
    global _settled
    with _lock:
        if _settled:
            return
        _settled = True
        if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
            pa.set_memory_pool(pa.system_memory_pool())


_malloc_trim = None  # glibc's malloc_trim, looked up once; False where there is none (musl, macOS)


def release_free() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim(0)``: whole free pages anywhere in
    the heap, not only at its top), where glibc is the allocator; a no-op elsewhere.

    For a build's columns on one thread (``BuildOptions.release_free``, set by the compaction): each column frees
    working arrays whose holes the next column's differently sized ones do not fit, and freed pages stay
    resident. Trimmed before each column, a 256mb compaction of 1 GB peaked at 745-751 MB above its imports
    against 871 (docs/performance-log.md, compaction memory); the pages reused are faulted in again, within the
    CPU-s' noise there. (After each whole segment, the task path's, it did not lower the peak: the module doc.)"""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            import ctypes

            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
            _malloc_trim.argtypes, _malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)
