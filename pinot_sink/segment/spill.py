"""Index payloads held on disk, not in memory, from the moment their column is built until the tarball.

A segment's indexes are about 0.6x its converted rows (uncompressed), and the builder used to hold every
column's payloads until the tarball was written: at the build's peak (the largest column's dictionary and
reorder) the earlier columns' indexes sat beside its working arrays. Given a ``Spill``, ``build_segment``
writes each payload, once its Adler-32 is taken, to the spill's unlinked temporary file and replaces it by
a ``FileSpan``; the tarball (and a kept directory) read the spans back in pieces. The page cache holds the
written bytes, which is not the process's resident memory, and the bytes written are the same
(docs/performance.md, "Task memory").

A partition writer keeps one spill for all its segments (one build at a time): each build writes over the
last one's bytes, in pages the page cache already holds, which halves the cost of the writes (a fresh file
takes ~12 ms of CPU per 32 MB of indexes for its new pages, an overwritten one ~5 ms; reading back ~4 ms).
"""
from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator

from pinot_sink.segment.fast_zlib import fast_zlib as isal_zlib

READ_PIECE = 1 << 20  # bytes read back per call: a span is streamed, never read whole
_seek_lock = threading.Lock()  # where os.pread / os.pwrite do not exist (Windows): seek and read under it


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    with _seek_lock:
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, size)


def _pwrite(fd: int, data: memoryview, offset: int) -> int:
    if hasattr(os, "pwrite"):
        return os.pwrite(fd, data, offset)
    with _seek_lock:
        os.lseek(fd, offset, os.SEEK_SET)
        return os.write(fd, data)


def _pwrite_all(fd: int, view: memoryview, offset: int) -> None:
    """All of ``view`` at ``offset`` (a write may take less than it is given)."""
    done = 0
    while done < len(view):
        done += _pwrite(fd, view[done:], offset + done)


class FileSpan:
    """``length`` bytes at ``offset`` of an open file: a payload held on disk. ``len()`` is its size."""

    __slots__ = ("fd", "offset", "length")

    def __init__(self, fd: int, offset: int, length: int) -> None:
        self.fd, self.offset, self.length = fd, offset, length

    def __len__(self) -> int:
        return self.length

    def read(self, start: int, length: int) -> bytes:
        """``length`` bytes from ``start`` within the span (the tarball's samples of a payload)."""
        if start < 0 or start + length > self.length:
            raise ValueError(f"bytes {start}..{start + length} are outside a span of {self.length}")
        out = b""
        while len(out) < length:
            piece = _pread(self.fd, length - len(out), self.offset + start + len(out))
            if not piece:
                raise OSError(f"spilled index file ended {length - len(out)} bytes early")
            out += piece
        return out

    def read_into(self, view: memoryview, start: int = 0) -> None:
        """Fill ``view`` (writable bytes) with the span's bytes from ``start``: read by the kernel straight into
        it where ``os.preadv`` exists (the tarball's windows: no copy in the process)."""
        if start < 0 or start + len(view) > self.length:
            raise ValueError(f"bytes {start}..{start + len(view)} are outside a span of {self.length}")
        done = 0
        while done < len(view):
            position = self.offset + start + done
            if hasattr(os, "preadv"):
                count = os.preadv(self.fd, [view[done:]], position)
            else:
                piece = _pread(self.fd, len(view) - done, position)
                view[done : done + len(piece)] = piece
                count = len(piece)
            if not count:
                raise OSError(f"spilled index file ended {len(view) - done} bytes early")
            done += count

    def pieces(self, size: int | None = None) -> Iterator[bytes]:
        """The span's bytes, at most ``size`` (READ_PIECE) at a time, each a new ``bytes``: safe to hold on to
        (the tarball's compressor keeps a few pieces' views until their deflate piece is done)."""
        size = size or READ_PIECE
        position, end = self.offset, self.offset + self.length
        while position < end:
            piece = _pread(self.fd, min(size, end - position), position)
            if not piece:
                raise OSError(f"spilled index file ended at byte {position}, {end - position} bytes early")
            position += len(piece)
            yield piece


class Pieces:
    """A payload made a block at a time (a raw PASS_THROUGH forward index): a build with a spill writes the
    blocks there as they come, so the whole payload (8 bytes a row of a LONG / DOUBLE, beside its input) is
    never in memory; without a spill the builder joins them. ``len()`` is the payload's size."""

    __slots__ = ("length", "_make")

    def __init__(self, length: int, make: Callable[[], Iterator]) -> None:
        self.length, self._make = length, make

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator:
        return self._make()

    def joined(self) -> bytes:
        return b"".join(memoryview(piece).cast("B") for piece in self)


class Spill:
    """One unlinked temporary file that payloads are appended to (by any number of threads). A ``FileSpan``
    is readable until ``restart`` (the next segment's payloads overwrite it) or ``close``."""

    def __init__(self, directory: Path) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        self._file = tempfile.TemporaryFile(prefix=".spill.", dir=directory)
        self._fd = self._file.fileno()
        self._end = 0
        self._lock = threading.Lock()

    def hold(self, payload) -> FileSpan:
        """Write ``payload`` (bytes-like) to the file; the span that reads it back."""
        view = memoryview(payload).cast("B")
        with self._lock:  # reserve the range; the writes themselves may run in parallel
            offset = self._end
            self._end += len(view)
        _pwrite_all(self._fd, view, offset)
        return FileSpan(self._fd, offset, len(view))

    def hold_pieces(self, pieces: Pieces) -> tuple[FileSpan, int]:
        """Write ``pieces`` to the file as they are made; the span that reads them back and their Adler-32."""
        with self._lock:
            offset = self._end
            self._end += len(pieces)
        written, adler = 0, 1
        for piece in pieces:
            view = memoryview(piece).cast("B")
            adler = isal_zlib.adler32(view, adler)
            _pwrite_all(self._fd, view, offset + written)
            written += len(view)
        if written != len(pieces):
            raise ValueError(f"a payload of {len(pieces)} bytes made {written}")
        return FileSpan(self._fd, offset, written), adler & 0xFFFFFFFF

    def restart(self) -> None:
        """Write the next payloads from the file's start again: the spans handed out so far are done with."""
        with self._lock:
            self._end = 0

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "Spill":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
