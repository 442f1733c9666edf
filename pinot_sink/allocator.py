"""Hand a finished build's free heap pages back to the OS, so a task between segments holds its rows only.

glibc keeps freed memory inside its heap (and Arrow's pool keeps its own pages) for reuse: after a segment
is built, its working arrays' pages would stay resident as the task's high-water until the process ends.
``release`` returns them (glibc's ``malloc_trim``, Arrow's ``release_unused``); the partition writer calls it
after each segment. It costs a few milliseconds per segment. Calling it more often (after every column)
cost ~0.2 CPU-s per million rows in page faults for little lower a peak, so the writer does not.

What does not help the peak (measured on ``tests/datasource/memory_probe.py``, docs/performance.md, "Task
memory"): Arrow on the system allocator, jemalloc with immediate decay, or glibc capped to one arena. Each
changed the peak by less than the run-to-run spread on a loaded machine, so the process's allocators are
left as the user (or Spark) set them.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import pyarrow as pa

_libc = None


def _glibc():
    """glibc through ctypes, or None off glibc (macOS, musl)."""
    global _libc
    if _libc is None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.malloc_trim  # glibc only
            _libc = libc
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


def release() -> None:
    """Hand free heap pages back to the OS (after a segment is built)."""
    pa.default_memory_pool().release_unused()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
