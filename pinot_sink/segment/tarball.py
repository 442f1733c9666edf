"""``<segment>.tar.gz``: deterministic, written atomically (SEGMENT_FORMAT.md 1.6).

The first member is the ``<segment>/`` directory, then its children (directories before their files,
names in ``String.compareTo`` order). Every member has the same mtime, uid/gid 0, empty owner names and
fixed modes; the gzip header carries mtime 0 and no file name, so the same files give the same bytes.

The tar stream is the one ``tarfile`` writes (GNU format, records of 10 240 bytes), produced here from
the files' buffers without copying them. It is compressed as one gzip member made of independent
deflate pieces of ``GZIP_CHUNK`` bytes, each primed with the 32 KiB before it and ended on a byte
boundary by a sync flush (as pigz does), so the pieces compress in parallel threads (ISA-L and zlib
release the GIL) and the bytes do not depend on the number of threads. Each piece is deflated by ISA-L
(``isal``, level 1), by zlib (level 1), or stored, as samples of it say (``_method``).
"""
from __future__ import annotations

import os
import shutil
import struct
import tarfile
import tempfile
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence, Union

from pinot_sink.segment.fast_zlib import fast_zlib as isal_zlib

from .format import METADATA_FILE, V3_DIR
from .spill import FileSpan

# Bit-packed forward indexes and dictionaries barely compress: on a 1M-row, 10-column segment (33.1 MB
# untarred) level 1 gave 25.9 MB and level 6 (Pinot's Deflater default) 26.3 MB, at a third more time.
GZIP_LEVEL = 1
# Uncompressed bytes per independently compressed deflate piece. Each piece pays a compressor set-up, a
# 32 KiB priming, a sync flush and its samples (_method): at 1 MiB that was a fifth of the tar.gz's
# instructions on a 200k-row orders segment; at 4 MiB, 14% fewer instructions for the whole tar.gz
# (bench/task_instructions.py), tarballs +0.3% (orders) and +0.5% (events) at 1M rows. Threads still
# get a piece each from 4 pieces on (a 1M-row segment is ~8).
GZIP_CHUNK = 1 << 22
_WINDOW = 1 << 15  # deflate's history: each piece is primed with this much of the stream before it
_GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 255])  # deflate, no flags, mtime 0, fastest, OS unknown

# One buffer, or buffers that make up the file back to back; a FileSpan is a payload held on disk (spill.py)
FileContent = Union[bytes, Sequence[Union[bytes, FileSpan]]]


def _info(name: str, mtime: int, size: int | None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if size is None:
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
    else:
        info.size = size
        info.mode = 0o644
    return info


def _parts(content: FileContent) -> Sequence[bytes | FileSpan]:
    return [content] if isinstance(content, (bytes, bytearray, memoryview)) else content


def _size(part: bytes | FileSpan) -> int:
    return len(part) if isinstance(part, FileSpan) else memoryview(part).nbytes


def _buffers(parts: Sequence[bytes | FileSpan]) -> Iterator[bytes]:
    """The parts' bytes in order, a spilled payload read back a piece at a time."""
    for part in parts:
        if isinstance(part, FileSpan):
            yield from part.pieces()
        else:
            yield part


def _header(info: tarfile.TarInfo) -> bytes:
    return info.tobuf(tarfile.GNU_FORMAT, tarfile.ENCODING, "surrogateescape")


def tar_stream(root: str, directories: list[str], files: Mapping[str, FileContent], mtime: int) -> Iterator[bytes]:
    """The uncompressed tar, buffer by buffer: what ``tarfile`` (GNU format) writes for these members."""
    written = 0
    for name in [root + "/"] + [f"{root}/{d}" for d in directories]:
        header = _header(_info(name, mtime, None))
        written += len(header)
        yield header
    for name, content in files.items():
        parts = _parts(content)
        size = sum(map(_size, parts))
        header = _header(_info(f"{root}/{name}", mtime, size))
        written += len(header)
        yield header
        yield from _buffers(parts)
        padding = -size % tarfile.BLOCKSIZE
        written += size + padding
        if padding:
            yield bytes(padding)
    written += 2 * tarfile.BLOCKSIZE  # end-of-archive blocks, then zeros up to a whole record
    yield bytes(2 * tarfile.BLOCKSIZE + (-written % tarfile.RECORDSIZE))


def _compress_piece(pieces: list[memoryview], primer: bytes, last: bool) -> list[bytes]:
    """The piece's deflate output, as the compressor's chunks (written one by one: no joined copy of a piece)."""
    method = _method(pieces)
    if method == STORED:
        compressor = zlib.compressobj(0, zlib.DEFLATED, -zlib.MAX_WBITS)
    else:
        primed = {"zdict": primer} if primer else {}
        library = isal_zlib if method == ISAL else zlib
        compressor = library.compressobj(GZIP_LEVEL, library.DEFLATED, -library.MAX_WBITS, _MEM_LEVEL[method],
                                         library.Z_DEFAULT_STRATEGY, **primed)
    out = [compressor.compress(piece) for piece in pieces]
    out.append(compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH))
    return out


# How a piece is compressed. ISA-L's level 1 takes 3-10x less CPU than zlib's (on the 1M-row bench, 0.17 s
# instead of 0.83 s for the whole stream) but finds fewer matches in very repetitive data (sorted or
# increasing numbers, low-cardinality bit-packed columns), where its output can be 1.3-1.8x zlib's. So a
# piece goes to zlib only when, on a few small samples, ISA-L's output is over _ZLIB_WORTH times zlib's
# (there zlib is also at its fastest), and is stored when neither saves 3%. On the 1M-row bench: 0.33 s
# of CPU and 37.1 MiB, against 0.17 s / 40.8 MiB for ISA-L throughout and 0.83 s / 35.3 MiB for zlib
# (level 1 or Huffman only by samples, the previous scheme).
ISAL, ZLIB, STORED = "isal", "zlib", "stored"
# memLevel 9 (zlib's largest hash table) measured both faster and smaller than 8 for zlib; ISA-L's default
# 8 is its fastest here (9: +7% time, +0.6% size; 1: 4x the time).
_MEM_LEVEL = {ISAL: 8, ZLIB: 9}
_SAMPLES, _SAMPLE_BYTES, _ZLIB_WORTH, _STORE_RATIO = 4, 4096, 1.3, 0.97


def _method(pieces: list[memoryview]) -> str:
    """ISAL, ZLIB or STORED for a piece, from samples of it."""
    total = sum(len(p) for p in pieces)
    if total < 4 * _SAMPLES * _SAMPLE_BYTES:
        return ISAL
    starts = [k * (total - _SAMPLE_BYTES) // (_SAMPLES - 1) for k in range(_SAMPLES)]
    sample = b"".join(_read(pieces, start, _SAMPLE_BYTES) for start in starts)
    sizes = {}
    for method, library in ((ISAL, isal_zlib), (ZLIB, zlib)):
        probe = library.compressobj(GZIP_LEVEL, library.DEFLATED, -library.MAX_WBITS, _MEM_LEVEL[method])
        sizes[method] = len(probe.compress(sample)) + len(probe.flush())
    if min(sizes.values()) >= _STORE_RATIO * len(sample):
        return STORED
    return ZLIB if sizes[ISAL] > _ZLIB_WORTH * sizes[ZLIB] else ISAL


def _read(pieces: list[memoryview], start: int, length: int) -> bytes:
    """``length`` bytes from offset ``start`` of the pieces taken back to back."""
    out = []
    for piece in pieces:
        if start >= len(piece):
            start -= len(piece)
            continue
        out.append(piece[start : start + length].tobytes())
        length -= len(out[-1])
        start = 0
        if length <= 0:
            break
    return b"".join(out)


def _chunks(buffers: Iterable[bytes], size: int) -> Iterator[list[memoryview]]:
    """Regroup a stream of buffers into lists of views totalling exactly ``size`` bytes (the last: the rest)."""
    chunk: list[memoryview] = []
    filled = 0
    for buffer in buffers:
        view = memoryview(buffer).cast("B")
        while len(view):
            take = min(len(view), size - filled)
            chunk.append(view[:take])
            filled += take
            view = view[take:]
            if filled == size:
                yield chunk
                chunk, filled = [], 0
    yield chunk


def _tail(pieces: list[memoryview], length: int) -> bytes:
    tail: list[bytes] = []
    for piece in reversed(pieces):
        tail.append(piece[max(0, len(piece) - length):].tobytes())
        length -= len(tail[-1])
        if length <= 0:
            break
    return b"".join(reversed(tail))


def write_gzip(out, buffers: Iterable[bytes], threads: int = 1) -> None:
    """Write ``buffers`` back to back as one gzip member to the binary file ``out`` (pieces compressed
    by up to ``threads`` threads; the bytes are the same for any number)."""
    out.write(_GZIP_HEADER)
    crc, total = 0, 0
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    pending: deque = deque()  # compressed pieces (or futures of them) in stream order
    try:
        primer = b""
        chunks = _chunks(buffers, GZIP_CHUNK)
        chunk = next(chunks)
        while chunk is not None:
            following = next(chunks, None)
            for piece in chunk:
                crc = isal_zlib.crc32(piece, crc)  # ISA-L's CRC-32: 3x faster than zlib's here
                total += len(piece)
            last = following is None
            if pool is None:
                out.writelines(_compress_piece(chunk, primer, last))
            else:
                pending.append(pool.submit(_compress_piece, chunk, primer, last))
                while len(pending) > 2 * threads or (last and pending):
                    out.writelines(pending.popleft().result())
            primer = _tail(chunk, _WINDOW)
            chunk = following
    finally:
        if pool is not None:
            for future in pending:
                future.cancel()
            pool.shutdown()
    out.write(struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))


def write_tarball(path: Path, root: str, directories: list[str], files: Mapping[str, FileContent], mtime: int,
                  threads: int = 1) -> int:
    """Write ``path`` atomically (temp file in the same directory, then rename); returns its size."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            write_gzip(raw, tar_stream(root, directories, files, mtime), threads)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path.stat().st_size


def write_directory(target: Path, directories: list[str], files: Mapping[str, FileContent]) -> None:
    """Write the untarred segment directory (``keep_dir``): built beside ``target``, then renamed in."""
    target = Path(target)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        for directory in directories:
            (staging / directory).mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            with open(staging / name, "wb") as out:
                for part in _buffers(_parts(content)):
                    out.write(part)
        staging.chmod(0o755)
        if target.exists():
            _remove_old_segment_dir(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _remove_old_segment_dir(target: Path) -> None:
    """Replace an earlier build of the same segment, but never an unrelated directory."""
    if not ((target / METADATA_FILE).is_file() or (target / V3_DIR / METADATA_FILE).is_file()):
        raise FileExistsError(f"{target} exists and is not a segment directory; not replacing it")
    shutil.rmtree(target)
