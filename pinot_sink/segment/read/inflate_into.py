"""A small gzip file inflated by libdeflate into memory used again and again: a compaction's thousands of small
inputs (a 20k-row micro-batch: 0.47 MB of gzip, 0.89 MB of tar) each read into a new buffer and inflated into
another faulted in the buffers' pages afresh whenever the heap had handed them back (~40 page faults an input
in the compaction of 2000, 0.25 ms of system CPU each beside 1.1 ms of inflating; ~415 in a loop of reads
alone). Here both go into buffers kept in a small pool.

libdeflate's own ``libdeflate_gzip_decompress_ex`` is called (through ``ctypes``: the ``deflate`` package's
library exports it, but its Python API allocates every output), which also says how many bytes the gzip
member took: the member must end the file, so a second member or trailing bytes are never left unread (the
caller's other inflater reads such a file). libdeflate checks the member's CRC-32 and size itself.

A buffer goes back to the pool only when nothing views it any more: a ``bytearray`` refuses to change size
while a view of it lives (``BufferError``), which is the check. A view kept past the segment's ``close``
(the reader's decoders copy what they keep) leaves its buffer to the garbage collector, never to the next read.
"""
from __future__ import annotations

import ctypes
import threading

POOLED = 2  # buffers kept: an input's gzip and its tar (one read at a time; more threads allocate their own)
POOLED_MAX = 8 << 20  # a larger buffer is not kept: a pool must not hold much memory between reads
_GRANULE = 64 << 10  # sizes rounded up, so the next input, a few KB larger, fits the same buffer
_spare: list[bytearray] = []
_local = threading.local()


class _Entry:
    """libdeflate's gzip inflater, or None where the ``deflate`` package or its exported symbols are missing."""

    def __init__(self) -> None:
        try:
            from deflate import _deflate

            library = ctypes.CDLL(_deflate.__file__)
            self.inflate = library.libdeflate_gzip_decompress_ex
            self.allocate = library.libdeflate_alloc_decompressor
            self.free = library.libdeflate_free_decompressor
        except (ImportError, OSError, AttributeError):
            self.inflate = None
            return
        size = ctypes.c_size_t
        self.inflate.argtypes = [ctypes.c_void_p, ctypes.c_void_p, size, ctypes.c_void_p, size,
                                 ctypes.POINTER(size), ctypes.POINTER(size)]
        self.inflate.restype = ctypes.c_int
        self.allocate.argtypes, self.allocate.restype = [], ctypes.c_void_p
        self.free.argtypes, self.free.restype = [ctypes.c_void_p], None


_ENTRY = _Entry()


class _Inflater:
    """One thread's libdeflate decompressor (not to be shared between threads), freed with the thread."""

    def __init__(self) -> None:
        self.handle = _ENTRY.allocate()
        self.taken, self.made = ctypes.c_size_t(), ctypes.c_size_t()

    def __del__(self) -> None:
        if self.handle:
            _ENTRY.free(self.handle)


def available() -> bool:
    return _ENTRY.inflate is not None


def take(size: int) -> bytearray:
    """A buffer of at least ``size`` bytes (its contents are not zeroed: whatever an earlier read left)."""
    for index in range(len(_spare) - 1, -1, -1):
        try:
            buffer = _spare.pop(index)
        except IndexError:  # another thread took it
            continue
        if len(buffer) >= size:
            return buffer
    return bytearray(-(-size // _GRANULE) * _GRANULE)


def give_back(buffer: bytearray) -> None:
    """``buffer`` kept for the next ``take``, unless a view of it still lives (or the pool is full)."""
    if not isinstance(buffer, bytearray) or len(buffer) > POOLED_MAX or len(_spare) >= POOLED:
        return
    try:  # a viewed bytearray refuses to shrink: then someone still reads it, and it is never reused
        last = buffer.pop()
    except BufferError:
        return
    buffer.append(last)  # (within its allocation: no copy)
    _spare.append(buffer)


def read_into(handle, size: int) -> bytearray | None:
    """The ``size`` bytes left in ``handle`` read into a pooled buffer (``give_back`` it), or None when the file
    holds more or fewer (it changed while read)."""
    buffer = take(size + 1)
    view = memoryview(buffer)
    try:
        read = handle.readinto(view[:size + 1])
    finally:
        view.release()
    if read != size:
        give_back(buffer)
        return None
    return buffer


def gzip_into(compressed: bytearray, length: int, size: int) -> memoryview | None:
    """The one gzip member that is ``compressed[:length]`` inflated into a pooled buffer, as a view of its
    ``size`` bytes (the member's own size, its trailer checked by libdeflate), or None: no libdeflate, a corrupt
    or short stream, more or less than ``size`` bytes, or a member that does not end at ``length`` (a second
    member, trailing bytes). ``give_back(view.obj)`` once the view and every view of it are gone."""
    if not available() or size <= 0:
        return None
    inflater = getattr(_local, "inflater", None)
    if inflater is None:
        inflater = _local.inflater = _Inflater()
    out = take(size)
    source = (ctypes.c_char * length).from_buffer(compressed)
    target = (ctypes.c_char * size).from_buffer(out)
    try:
        result = _ENTRY.inflate(inflater.handle, source, length, target, size,
                                ctypes.byref(inflater.taken), ctypes.byref(inflater.made))
    finally:
        del source, target  # their exports of the two buffers
    if result != 0 or inflater.taken.value != length or inflater.made.value != size:
        give_back(out)
        return None
    return memoryview(out)[:size]
