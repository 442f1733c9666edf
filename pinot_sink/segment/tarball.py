"""``<segment>.tar.gz``: deterministic, written atomically (SEGMENT_FORMAT.md 1.6).

The first member is the ``<segment>/`` directory, then its children (directories before their files,
names in ``String.compareTo`` order). Every member has the same mtime, uid/gid 0, empty owner names and
fixed modes; the gzip header carries mtime 0 and no file name, so the same files give the same bytes.

The tar stream is the one ``tarfile`` writes (GNU format, records of 10 240 bytes), produced here from
the files' buffers without copying them. It is written as one gzip member made of independent deflate
pieces, each ended on a byte boundary (a sync flush, as pigz does), so the pieces compress in parallel
threads (ISA-L and zlib release the GIL) and the bytes do not depend on the number of threads:

* the stream is cut into windows of ``GZIP_CHUNK`` bytes, one thread's work each;
* a file part of at least ``_MIN_REGION`` bytes (an index buffer of ``columns.psf``, a dictionary, a whole
  v1 file) that does not compress (``_incompressible``: the bit-packed forward index of a column of many
  values) is stored as it is, in deflate's stored blocks: compressing it would cost ISA-L ~13 instructions
  a byte for nothing; so is one that compresses a little, within a budget of bytes the tarball may grow by;
* what is left of a window is deflated by ISA-L (``isal``, level 2) or zlib (level 1), as samples of the
  window say (``_method``), one deflate piece per stretch between stored ones, primed with up to 32 KiB of
  the stream before it (not with stored bytes).

ISA-L deflates each stretch in one call (``_isal_stretch``), the stretch one buffer (a window holding spilled
payloads is read into one buffer, ``_windows``): its output depends on where its input is cut between calls,
and so the same files give the same tarball held in memory or spilled. (Without python-isal's private
``_ParallelCompress`` the public compressor is fed piece by piece, and the two can differ by a few hundred
bytes, with the same files inside.)
"""
from __future__ import annotations

import bisect
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

import numpy as np

from pinot_sink.segment.fast_zlib import HAVE_ISAL, fast_zlib as isal_zlib

from .format import METADATA_FILE, V3_DIR
from .spill import FileSpan
from .tar_codecs import GZIP, write_stream

# Bit-packed forward indexes and dictionaries barely compress: on a 1M-row, 10-column segment (33.1 MB
# untarred) level 1 gave 25.9 MB and level 6 (Pinot's Deflater default) 26.3 MB, at a third more time.
GZIP_LEVEL = 1
# Uncompressed bytes per window (one thread's share). Each deflate piece pays a compressor set-up, a 32 KiB
# priming, a sync flush and its window's samples (_method): at 1 MiB that was a fifth of the tar.gz's
# instructions on a 200k-row orders segment; at 4 MiB, 14% fewer instructions for the whole tar.gz
# (bench/task_instructions.py), tarballs +0.3% (orders) and +0.5% (events) at 1M rows. Threads still
# get a window each from 4 windows on (a 1M-row segment is ~8).
GZIP_CHUNK = 1 << 22
_WINDOW = 1 << 15  # deflate's history: each piece is primed with this much of the stream before it
_GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 255])  # deflate, no flags, mtime 0, fastest, OS unknown
_STORED_BLOCK = 0xFFFF  # the most bytes a deflate stored block holds

# One buffer, or buffers that make up the file back to back; a FileSpan is a payload held on disk (spill.py)
FileContent = Union[bytes, Sequence[Union[bytes, FileSpan]]]
Part = Union[bytes, memoryview, FileSpan]


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


def directory_bytes(files: Mapping[str, FileContent]) -> int:
    """The untarred segment's size: its files' bytes (what Pinot's ``FileUtils.sizeOfDirectory`` counts for a
    realtime segment's size threshold, less the directories' own blocks)."""
    return sum(_size(part) for content in files.values() for part in _parts(content))


def _buffers(parts: Sequence[bytes | FileSpan]) -> Iterator[bytes]:
    """The parts' bytes in order, a spilled payload read back a piece at a time."""
    for part in parts:
        if isinstance(part, FileSpan):
            yield from part.pieces()
        else:
            yield part


def _header(info: tarfile.TarInfo) -> bytes:
    return info.tobuf(tarfile.GNU_FORMAT, tarfile.ENCODING, "surrogateescape")


def _members(root: str, directories: list[str], files: Mapping[str, FileContent], mtime: int) -> list[Part]:
    """The tar stream's items in order (headers, the files' parts as given, padding, the end blocks): what
    ``tarfile`` (GNU format) writes for these members, a spilled payload still unread."""
    items: list[Part] = []
    written = 0
    for name in [root + "/"] + [f"{root}/{d}" for d in directories]:
        items.append(_header(_info(name, mtime, None)))
        written += len(items[-1])
    for name, content in files.items():
        parts = _parts(content)
        size = sum(map(_size, parts))
        header = _header(_info(f"{root}/{name}", mtime, size))
        items.append(header)
        items.extend(parts)
        padding = -size % tarfile.BLOCKSIZE
        written += len(header) + size + padding
        if padding:
            items.append(bytes(padding))
    written += 2 * tarfile.BLOCKSIZE  # end-of-archive blocks, then zeros up to a whole record
    items.append(bytes(2 * tarfile.BLOCKSIZE + (-written % tarfile.RECORDSIZE)))
    return items


def tar_stream(root: str, directories: list[str], files: Mapping[str, FileContent], mtime: int) -> Iterator[bytes]:
    """The uncompressed tar, buffer by buffer: what ``tarfile`` (GNU format) writes for these members."""
    return _buffers(_members(root, directories, files, mtime))


# How a window's other bytes are compressed. ISA-L's level 1 takes 3-10x less CPU than zlib's (on the 1M-row
# bench, 0.17 s instead of 0.83 s for the whole stream) but finds fewer matches in very repetitive data (sorted
# or increasing numbers, low-cardinality bit-packed columns), where its output can be 1.3-1.8x zlib's. So a
# window goes to zlib only when, on a few small samples, ISA-L's output is over _ZLIB_WORTH times zlib's
# (there zlib is also at its fastest), and is stored when neither saves 3%. On the 1M-row bench: 0.33 s
# of CPU and 37.1 MiB, against 0.17 s / 40.8 MiB for ISA-L throughout and 0.83 s / 35.3 MiB for zlib
# (level 1 or Huffman only by samples, the previous scheme).
# memLevel 9 (zlib's largest hash table) measured both faster and smaller than 8 for zlib; ISA-L's default
# 8 is its fastest here (9: +7% time, +0.6% size; 1: 4x the time).
# ISA-L's level 2 costs fewer instructions than its level 1 and gives fewer bytes on most of an index's buffers
# (alone, orders 200k: price's raw doubles 29.9 -> 28.1 M instructions and 659 -> 622 kB, order_id's LZ4 chunks
# 24.8 -> 24.2 M, customer_id's dictionary 16.8 -> 16.4 M and 342 -> 333 kB; sorted longs such as order_time's
# dictionary 34.1 -> 34.8 M and 715 -> 742 kB); its level 0 costs what level 1 does for 18-25% more bytes, its
# level 3 1.3-1.7x the instructions. The whole tar.gz: orders 200k 143.6 -> 140.3 M instructions and -0.49%
# bytes, events 1M 3,713 -> 3,686 M and +0.12% (bench/tar_instructions.py).
# Without the isal wheel (fast_zlib is then zlib) the ISAL windows are zlib's, whose level 2 is ~13% slower
# and ~6% larger than its level 1 on index buffers: they keep GZIP_LEVEL.
ISAL, ZLIB, STORED = "isal", "zlib", "stored"
_LEVEL = {ISAL: 2 if HAVE_ISAL else GZIP_LEVEL, ZLIB: GZIP_LEVEL}
_MEM_LEVEL = {ISAL: 8, ZLIB: 9}
_SAMPLES, _SAMPLE_BYTES, _ZLIB_WORTH, _STORE_RATIO = 4, 4096, 1.3, 0.97


# Which parts are stored. A part (an index buffer, a dictionary, a file) of at least _MIN_REGION bytes is judged
# by itself, in slices of at most _REGION_SLICE (the judgement of a window, _method, is a mix of its parts:
# a bit-packed forward index of 18-bit dictIds beside a dictionary of sorted numbers). Samples (_SAMPLES x
# _SAMPLE_BYTES spread over the slice) whose bytes have an order-0 entropy under _ENTROPY_SCREEN bits per byte
# compress (Huffman coding alone gets within a few % of it), which settles most parts for the price of a
# byte count; the others are deflated by ISA-L (which also catches repeats a byte count does not see). A slice
# that does not save 3% (_STORE_RATIO) is stored. One that saves under 15% (_STORE_FLOOR) costs ISA-L ~20
# instructions a byte for a saving of ~130-700 instructions a byte saved: those are stored too, the least
# compressible first, while the bytes they add (by their samples) stay under _STORE_BUDGET of the stream, which
# bounds what the tarball grows by. On the 200k-row orders segment: the bit-packed forward indexes of
# customer_id, order_time and product_id (1.2 of its 7.3 MB) save nothing; tags' forward index (0.96), quantity's
# (0.89) and device's inverted index (0.87) are stored within the budget: 140.3 -> 137.7 M instructions for the
# tar.gz, +0.22% bytes (bench/tar_instructions.py; storing at 0.85 without a budget: events 1M +1.8%; at 0.80,
# which takes product_id's inverted index (0.82): orders -18 M, +2.5%, events +3.9%). Bit-packed columns of few
# values, or sorted ones, have lower entropy and are compressed. Below _MIN_REGION a part is not worth the
# samples (they cost about what ISA-L spends on 10-20 KB) nor the deflate piece it would split.
_MIN_REGION = 1 << 16
_REGION_SLICE = 1 << 22
_STORE_FLOOR, _STORE_BUDGET = 0.85, 0.005
_ENTROPY_SCREEN = 6.9  # ISA-L's output on such bytes is ~entropy / 8 + 1%: 6.9 bits ~ 0.87 (_STORE_FLOOR)
_SCREEN_BYTES = 1 << 10  # of each sample: a byte count costs ~13 instructions a byte (numpy's bincount)
# of each sample, deflated by the probe: ISA-L costs ~35 instructions a byte on so little (0.55-0.7 M for 16 KiB);
# 8 KiB read the shares of the orders segment's parts within 0.01 of 16 KiB's (4 KiB: up to 0.03 higher, the
# Huffman header's weight)
_PROBE_BYTES = 1 << 11
# A stretch to compress shorter than this, in a window that stores something, is stored too: a deflate piece
# (set-up, Huffman header, sync flush) for a tar header and an index's 8-byte marker costs more than it saves.
_MIN_PIECE = 1 << 12


def _sample(part: Part, start: int, end: int) -> list[bytes]:
    """_SAMPLES pieces of _SAMPLE_BYTES spread evenly over bytes ``start``..``end`` of ``part``."""
    length = end - start
    if length <= _SAMPLES * _SAMPLE_BYTES:
        offsets, size = [start], length
    else:
        offsets = [start + k * (length - _SAMPLE_BYTES) // (_SAMPLES - 1) for k in range(_SAMPLES)]
        size = _SAMPLE_BYTES
    if isinstance(part, FileSpan):
        return [part.read(offset, size) for offset in offsets]
    view = memoryview(part).cast("B")
    return [view[offset : offset + size].tobytes() for offset in offsets]


def _entropy(samples: list[bytes]) -> float:
    """Order-0 entropy in bits per byte of the first _SCREEN_BYTES of each sample (bias-corrected: a count of
    a few thousand bytes under-reads it by (distinct values - 1) / (2 n ln 2), 0.05 bits for random bytes)."""
    screen = b"".join(sample[:_SCREEN_BYTES] for sample in samples)
    counts = np.bincount(np.frombuffer(screen, np.uint8), minlength=256)
    counts = counts[counts > 0]
    shares = counts / len(screen)
    return -float(shares @ np.log2(shares)) + (len(counts) - 1) / (2 * len(screen) * np.log(2))


def _deflated_share(samples: list[bytes]) -> float:
    """ISA-L's output over its input on ``samples``; 0.0 when their entropy already says they compress (see
    _MIN_REGION)."""
    if _entropy(samples) < _ENTROPY_SCREEN:
        return 0.0
    sample = b"".join(sample[:_PROBE_BYTES] for sample in samples)
    return _deflated_size(ISAL, sample) / len(sample)


def _deflated_size(method: str, sample: bytes) -> int:
    """The bytes ``method`` (ISAL or ZLIB, at its _LEVEL) deflates ``sample`` to: a probe of what a piece costs."""
    library = isal_zlib if method == ISAL else zlib
    probe = library.compressobj(_LEVEL[method], library.DEFLATED, -library.MAX_WBITS, _MEM_LEVEL[method])
    return len(probe.compress(sample)) + len(probe.flush())


def _incompressible(items: Sequence[Part]) -> list[tuple[int, int]]:
    """The stretches of the stream ``items`` make (start, end offsets, in order, apart) to store."""
    stored: list[tuple[int, int]] = []
    candidates: list[tuple[float, int, int]] = []  # (share, start, end): stored if the budget allows
    offset = 0
    for item in items:
        size = _size(item)
        if size >= _MIN_REGION:
            count = -(-size // _REGION_SLICE)
            for k in range(count):
                start, end = offset + size * k // count, offset + size * (k + 1) // count
                share = _deflated_share(_sample(item, start - offset, end - offset))
                if share >= _STORE_RATIO:
                    stored.append((start, end))
                elif share >= _STORE_FLOOR:
                    candidates.append((share, start, end))
        offset += size
    budget = _STORE_BUDGET * offset
    for share, start, end in sorted(candidates, key=lambda c: (-c[0], c[1])):  # the least compressible first
        added = (end - start) * (1 - share)
        if added <= budget:
            stored.append((start, end))
            budget -= added
    merged: list[tuple[int, int]] = []
    for start, end in sorted(stored):
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _method(pieces: list[memoryview]) -> str:
    """ISAL, ZLIB or STORED for a window's bytes, from samples of them."""
    total = sum(len(p) for p in pieces)
    if total < 4 * _SAMPLES * _SAMPLE_BYTES:
        return ISAL
    starts = [k * (total - _SAMPLE_BYTES) // (_SAMPLES - 1) for k in range(_SAMPLES)]
    sample = b"".join(_read(pieces, start, _SAMPLE_BYTES) for start in starts)
    sizes = {method: _deflated_size(method, sample) for method in (ISAL, ZLIB)}
    if min(sizes.values()) >= _STORE_RATIO * len(sample):
        return STORED
    return ZLIB if sizes[ISAL] > _ZLIB_WORTH * sizes[ZLIB] else ISAL


def _read(pieces: list[memoryview], start: int, length: int) -> bytes:
    """``length`` bytes from offset ``start`` of the pieces taken back to back."""
    return b"".join(_slice(pieces, start, start + length))


def _windows(items: Iterable[Part], size: int) -> Iterator[list[memoryview]]:
    """The stream of ``items`` (buffers, or spans of the spill) regrouped into windows of exactly ``size`` bytes
    (the last: the rest, possibly none), each a list of views. A window holding spilled bytes is read into one buffer of its own (the
    kernel reads them into it: the spilled payloads are most of a task's segment), so each of its stretches is
    one contiguous buffer for ISA-L (a join of views would copy them, ~1 instruction a byte); other windows
    are views of the items as given."""
    window: list[tuple[Part, int, int]] = []
    filled = 0
    for item in items:
        length, position = _size(item), 0
        while position < length:
            take = min(length - position, size - filled)
            window.append((item, position, position + take))
            filled, position = filled + take, position + take
            if filled == size:
                yield _window(window, filled)
                window, filled = [], 0
    yield _window(window, filled)


def _window(spans: list[tuple[Part, int, int]], length: int) -> list[memoryview]:
    if not any(isinstance(item, FileSpan) for item, _, _ in spans):
        return [memoryview(item).cast("B")[start:end] for item, start, end in spans]
    # numpy's empty: malloc without a zeroing pass, from the heap the build freed where glibc takes it from there
    # (fresh anonymous pages, an mmap, raised a task's peak memory by 5-10 MB)
    buffer = memoryview(np.empty(length, np.uint8)).cast("B")
    position = 0
    for item, start, end in spans:
        target = buffer[position : position + end - start]
        if isinstance(item, FileSpan):
            item.read_into(target, start)
        else:
            target[:] = memoryview(item).cast("B")[start:end]
        position += end - start
    return [buffer]


def _slice(pieces: list[memoryview], start: int, end: int) -> list[memoryview]:
    """Views of bytes ``start``..``end`` of the pieces taken back to back."""
    out = []
    for piece in pieces:
        if end <= 0:
            break
        if start < len(piece):
            out.append(piece[max(start, 0) : end])
        start -= len(piece)
        end -= len(piece)
    return out


def _tail(pieces: list[memoryview], length: int) -> bytes:
    """The last ``length`` bytes of the pieces taken back to back (all of them if fewer)."""
    return _read(pieces, max(0, sum(map(len, pieces)) - length), length)


class _Stretch:
    """Bytes ``start``..``end`` of a window, stored or compressed; ``primer``: how many bytes of the stream
    before it prime its compressor (up to _WINDOW, never reaching into stored bytes: no match is found there)."""

    __slots__ = ("start", "end", "stored", "primer")

    def __init__(self, start: int, end: int, stored: bool) -> None:
        self.start, self.end, self.stored, self.primer = start, end, stored, 0


def _stretches(stored: Sequence[tuple[int, int]], offset: int, length: int, history: int) -> list[_Stretch]:
    """The window at stream ``offset`` of ``length`` bytes as stored and compressed stretches, in order;
    ``history``: the bytes of the previous window it may be primed with."""
    before = bisect.bisect_right(stored, (offset, float("inf"))) - 1  # the last stored one starting at or before it
    stretches: list[_Stretch] = []
    position = offset
    for start, end in stored[max(before, 0):]:
        if start >= offset + length:
            break
        if end <= offset:
            continue
        start, end = max(start, offset), min(end, offset + length)
        if start > position:
            stretches.append(_Stretch(position - offset, start - offset, False))
        stretches.append(_Stretch(start - offset, end - offset, True))
        position = end
    if position < offset + length or not stretches:
        stretches.append(_Stretch(position - offset, length, False))
    if len(stretches) > 1:
        for stretch in stretches:
            stretch.stored = stretch.stored or stretch.end - stretch.start < _MIN_PIECE
    merged: list[_Stretch] = []
    for stretch in stretches:
        if merged and merged[-1].stored == stretch.stored:
            merged[-1].end = stretch.end
        else:
            merged.append(stretch)
    # priming: the stream before a compressed stretch, back to the last stored byte
    floor = offset - history
    if before >= 0:
        floor = max(floor, min(stored[before][1], offset))
    for stretch in merged:
        if stretch.stored:
            floor = offset + stretch.end
        else:
            stretch.primer = min(_WINDOW, offset + stretch.start - floor)
    return merged


def _stored_blocks(views: list[memoryview], last: bool) -> list:
    """``views`` as deflate stored blocks (byte-aligned: each starts after a sync flush or another block),
    the last one final if ``last``; no copy of the bytes."""
    blocks = list(_windows(views, _STORED_BLOCK))
    if len(blocks) > 1 and not blocks[-1]:
        blocks.pop()
    out: list = []
    for k, block in enumerate(blocks):
        size = sum(map(len, block))
        out.append(struct.pack("<BHH", last and k == len(blocks) - 1, size, size ^ 0xFFFF))
        out.extend(block)
    return out


_SMALL_CALL = 1 << 12


def _joined_small(views: list[memoryview]) -> list:
    """``views`` with each run of small ones (tar headers, 8-byte index markers, padding) joined: a compressor
    call has a fixed cost of ~30k instructions in ISA-L, whatever its size."""
    out: list = []
    run: list[memoryview] = []
    for view in views:
        if len(view) < _SMALL_CALL:
            run.append(view)
            continue
        if run:
            out.append(b"".join(run))
            run = []
        out.append(view)
    if run:
        out.append(b"".join(run))
    return out


# ISA-L through python-isal's _ParallelCompress (what its own threaded gzip writer uses): one call deflates a whole
# stretch into an output buffer allocated once at its full size, with a sync flush, and returns the stretch's
# CRC-32 computed on the way. The public compressobj grows its output from 16 KiB by doubling (a realloc copy per
# step) and, each time the output fills, makes ISA-L copy input through its own buffer: on the 200k-row orders
# segment those copies were ~10 M of the tar.gz's 151 M instructions, the separate CRC pass 3 M. Private in
# python-isal, hence looked up, with the public path where it is missing (and where ISA-L is not installed).
_PARALLEL = getattr(isal_zlib, "_ParallelCompress", None)
_CRC_COMBINE = getattr(isal_zlib, "crc32_combine", None)


def _parallel_works() -> bool:
    """Whether the private class still does what this module relies on: a primed raw deflate of the input,
    ended by a sync flush, and the input's CRC-32. Checked once at import on a small input, so that a python-isal
    release that changes it makes the tarball take the public path instead of failing every write."""
    if _PARALLEL is None or _CRC_COMBINE is None:
        return False
    primer, data = b"pinot segment " * 40, b"columns.psf index_map metadata.properties " * 200
    try:
        compressed, crc = _PARALLEL(len(data) + (1 << 16), _LEVEL[ISAL]).compress_and_crc(data, primer)
        inflater = zlib.decompressobj(-zlib.MAX_WBITS, zdict=primer)
        ok = inflater.decompress(bytes(compressed)) == data and crc == zlib.crc32(data)
        return ok and bytes(compressed).endswith(b"\x00\x00\xff\xff")  # the sync flush's empty stored block
    except Exception:  # noqa: BLE001 - any failure of a private API means: do not use it
        return False


if not _parallel_works():
    _PARALLEL = None
_EMPTY_FINAL_BLOCK = b"\x01\x00\x00\xff\xff"  # a final stored block of no bytes: ends the deflate stream


def _isal_stretch(data, primer, final: bool) -> tuple[list, int] | None:
    """ISA-L's deflate of ``data`` (one buffer, at most a window) primed with ``primer``, sync-flushed (then
    ended if ``final``), and its CRC-32; None when the output outgrew its buffer (never seen: the bound is 1/8
    over the input). (Calls of at most 1 MiB, each primed with the 32 KiB before it, bound the output buffer
    but cost 1.1 M instructions more on orders 200k, for no measurable memory.)"""
    size = len(data)
    try:
        compressed, crc = _PARALLEL(size + (size >> 3) + (1 << 16), _LEVEL[ISAL]).compress_and_crc(data, primer)
    except OverflowError:
        return None
    return ([compressed, _EMPTY_FINAL_BLOCK] if final else [compressed]), crc


def _compress_window(chunk: list[memoryview], history: bytes, stretches: list[_Stretch], last: bool,
                     with_crc: bool = False) -> tuple[list, int | None]:
    """The window's deflate output, as the compressors' chunks (written one by one: no joined copy), and, when
    ``with_crc``, the CRC-32 of its bytes (else None)."""
    primed = [memoryview(history)] + chunk if history else chunk
    views = [_slice(chunk, s.start, s.end) for s in stretches]
    # samples of the whole window, stored stretches included, as before they were stored: the same choice of
    # ISA-L or zlib (samples of the compressed stretches alone sent more to zlib: events bench -0.9% bytes, +2.5%
    # instructions)
    method = _method(chunk) if not all(s.stored for s in stretches) else STORED
    out: list = []
    crc = 0 if with_crc else None
    for k, (stretch, pieces) in enumerate(zip(stretches, views)):
        final = last and k == len(stretches) - 1
        length = stretch.end - stretch.start
        start = len(history) + stretch.start
        primer = _read(primed, start - stretch.primer, stretch.primer) if stretch.primer else b""
        if with_crc and method == ISAL and not stretch.stored:
            done = _isal_stretch(pieces[0] if len(pieces) == 1 else b"".join(pieces), primer, final)
            if done is not None:
                out.extend(done[0])
                crc = _CRC_COMBINE(crc, done[1], length)
                continue
        if with_crc:
            for piece in pieces:
                crc = isal_zlib.crc32(piece, crc)
        if stretch.stored or method == STORED:
            out.extend(_stored_blocks(pieces, final))
            continue
        library = isal_zlib if method == ISAL else zlib
        compressor = library.compressobj(_LEVEL[method], library.DEFLATED, -library.MAX_WBITS, _MEM_LEVEL[method],
                                         library.Z_DEFAULT_STRATEGY, **({"zdict": primer} if primer else {}))
        out.extend(compressor.compress(piece) for piece in _joined_small(pieces))
        out.append(compressor.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH))
    return out, crc


def write_gzip(out, buffers: Iterable[Part], threads: int = 1, stored: Sequence[tuple[int, int]] = ()) -> None:
    """Write ``buffers`` (bytes-like, or spans of the spill) back to back as one gzip member to the binary file
    ``out`` (windows compressed by up to ``threads`` threads; the bytes are the same for any number). ``stored``: (start, end) offsets of the
    stream, in order and apart, written as stored blocks (``_incompressible``)."""
    out.write(_GZIP_HEADER)
    # the CRC-32 by the windows (ISA-L's on the stretches it deflates), combined here; without ISA-L's
    # _ParallelCompress, here over the whole stream
    by_window = _PARALLEL is not None and _CRC_COMBINE is not None
    crc, total = 0, 0
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    pending: deque = deque()  # (compressed window or its future, its length) in stream order

    def flush_one() -> None:
        nonlocal crc
        window, length = pending.popleft()
        chunks, window_crc = window.result() if pool is not None else window
        out.writelines(chunks)
        if window_crc is not None:
            crc = _CRC_COMBINE(crc, window_crc, length)

    items = list(buffers)
    length_of_stream = sum(map(_size, items))
    try:
        history = b""
        # one window read at a time (its end tells whether it is the last): a window of spilled bytes is a buffer
        # of its own, ~4 MiB, and only those being compressed are held
        for chunk in _windows(items, GZIP_CHUNK):
            length = 0
            for piece in chunk:
                if not by_window:
                    crc = isal_zlib.crc32(piece, crc)  # ISA-L's CRC-32: 3x faster than zlib's here
                length += len(piece)
            last = total + length == length_of_stream
            work = (chunk, history, _stretches(stored, total, length, len(history)), last, by_window)
            total += length
            history = _tail(chunk, _WINDOW)
            if pool is None:
                pending.append((_compress_window(*work), length))
                flush_one()
            else:
                pending.append((pool.submit(_compress_window, *work), length))
                while len(pending) > 2 * threads or (last and pending):
                    flush_one()
            del work, chunk
            if last:
                break
    finally:
        if pool is not None:
            for future, _ in pending:
                future.cancel()
            pool.shutdown()
    out.write(struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))


def write_tarball(path: Path, root: str, directories: list[str], files: Mapping[str, FileContent], mtime: int,
                  threads: int = 1, codec: str = GZIP) -> int:
    """Write ``path`` atomically (temp file in the same directory, then rename); returns its size. ``codec``:
    gzip, lz4 or zstd (tar_codecs.py)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            items = _members(root, directories, files, mtime)
            if codec == GZIP:
                write_gzip(raw, items, threads, _incompressible(items))
            else:
                write_stream(raw, _buffers(items), codec)
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
