"""Segment tarballs, read side: which compression a tarball has (by its magic number, never its name), and
its members read safely from a stream (a local file or an object store's file object).

Pinot's ``TarCompressionUtils`` writes ``.tar.gz`` by default and ``.tar.lz4`` / ``.tar.zst`` when a table
asks for them; a plain ``.tar`` is accepted too. gzip streams through ISA-L's igzip where installed (2-3x
zlib's speed); LZ4 frames and zstd frames stream through Arrow's codecs (``pyarrow.CompressedInputStream``:
2-2.5x less CPU than cramjam's whole-buffer decoders, bench/read.py), which ``open_tar`` (random access, for
tests and the test controller) still uses.

``load_tarball`` is how a segment is read: its members go straight from the decompressed stream into memory,
never written to a temp folder and read back; past ``MEMORY_BUDGET`` bytes a member is spilled to a temp file
instead (bench/read.py: the temp folder's write, read and removal were a fifth of a ``.tar.gz`` read's CPU).
A small local gzip tarball (a compaction's inputs) is inflated whole in one call instead, its members views
of that one buffer and its plain tar headers read here (``_inflated_whole``, ``_plain_headers``).
"""
from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import struct
import tarfile
import tempfile
import zlib
from contextlib import contextmanager
from typing import IO, Iterator

from ..tar_codecs import GZIP, LZ4, ZSTD, codec_of
from .files import SegmentFiles
from .pooled import empty
from .segment_metadata import SegmentFormatError

try:  # libdeflate: a whole small tarball inflated in one call (_by_libdeflate)
    import deflate as _libdeflate
except ImportError:
    _libdeflate = None

TAR_MAGIC_OFFSET = 257  # "ustar" in the first header block of a POSIX / GNU tar
try:  # what a corrupt gzip stream raises, from either inflater
    from isal.isal_zlib import IsalError as _InflateError
except ImportError:
    _InflateError = zlib.error
_CORRUPT = (tarfile.TarError, EOFError, OSError, zlib.error, gzip.BadGzipFile, _InflateError)
COPY_BUFFER = 1 << 20  # tarfile copies members in 16 KiB blocks by default: 1 MiB is ~15% less CPU here
# A tarball's members held in memory by load_tarball, in all; a member past it goes to a temp file (read
# through a memory map). Pinot's guidance is segments of 100-500 MB: most fit, the largest spill.
MEMORY_BUDGET = 512 << 20

# Names a segment tarball may carry (a folder listing keeps these); the content decides how it is read.
TARBALL_SUFFIXES = (".tar.gz", ".tgz", ".tar.zst", ".tar.zstd", ".tar.lz4", ".tar")


def compression_of(head: bytes) -> str:
    """``gzip`` | ``zstd`` | ``lz4`` (``tar_codecs``' magic numbers, the writer's) | ``tar`` from a file's
    first 512 bytes, else ``unknown``."""
    codec = codec_of(head)
    if codec is not None:
        return codec
    if head[TAR_MAGIC_OFFSET:TAR_MAGIC_OFFSET + 5] == b"ustar":
        return "tar"
    return "unknown"


def _decompressed(stream: IO[bytes], where: str):
    """The tar bytes of ``stream`` (a buffered binary file object positioned at its start), as a stream."""
    head = stream.peek(512)[:512] if hasattr(stream, "peek") else b""
    if len(head) < 4:  # an unbuffered object store file: read the head and put it back in front
        head = stream.read(512)
        stream = _Prefixed(head, stream)
    kind = compression_of(head)
    if kind == GZIP:
        try:
            from isal import igzip_threaded
        except ImportError:  # no ISA-L wheel for this platform: the standard library, slower
            return gzip.GzipFile(fileobj=stream, mode="rb")
        # Inflating in a thread of its own while this one writes the files out: less wall time, the same CPU.
        return igzip_threaded.open(stream, "rb", threads=1)
    if kind in (ZSTD, LZ4):
        import pyarrow as pa

        return pa.CompressedInputStream(pa.PythonFile(stream, mode="r"), "zstd" if kind == ZSTD else "lz4")
    if kind == "tar":
        return stream
    raise not_a_tarball(where, head)


def _whole(kind: str, data: bytes) -> bytes:
    """An LZ4 or zstd frame decompressed whole (cramjam has no streaming decoder); a corrupt or truncated
    frame is ``tarfile.ReadError`` naming the codec."""
    import cramjam

    try:
        return bytes((cramjam.zstd if kind == ZSTD else cramjam.lz4).decompress(data))
    except Exception as exc:  # cramjam raises its own DecompressionError
        raise tarfile.ReadError(f"{kind}: {exc}") from None


def open_tar(source) -> tarfile.TarFile:
    """A tarball (a path or a seekable binary file object) opened for random access, its codec chosen by its
    magic number as Pinot's ``TarCompressionUtils`` chooses it: gzip (and plain tar) read in place, LZ4 and
    zstd decompressed whole."""
    if not hasattr(source, "read"):
        with open(source, "rb") as handle:
            head = handle.read(4)
            if codec_of(head) in (LZ4, ZSTD):
                return tarfile.open(fileobj=io.BytesIO(_whole(codec_of(head), head + handle.read())), mode="r:")
        return tarfile.open(source, "r:*")
    head = source.read(4)
    source.seek(0)
    if codec_of(head) in (LZ4, ZSTD):
        return tarfile.open(fileobj=io.BytesIO(_whole(codec_of(head), source.read())), mode="r:")
    return tarfile.open(fileobj=source, mode="r:*")


@contextmanager
def open_tar_stream(source, where: str | None = None) -> Iterator[tarfile.TarFile]:
    """One pass over a tarball's members (``tarfile``'s stream mode), from a path or any readable binary file
    object, its codec by magic number: gzip read as it comes, LZ4 and zstd decompressed whole."""
    where = where or (os.fspath(source) if not hasattr(source, "read") else "segment tarball")
    handle = open(source, "rb") if not hasattr(source, "read") else None
    try:
        stream = _decompressed(handle if handle is not None else io.BufferedReader(_Prefixed(b"", source)), where)
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            yield tar
    finally:
        if handle is not None:
            handle.close()


def load_tarball(source: str | os.PathLike | IO[bytes], where: str | None = None,
                 budget: int | None = None) -> SegmentFiles:
    """A segment tarball's regular files as ``SegmentFiles`` named from the segment's folder (the first
    member's top folder, SEGMENT_FORMAT.md 1.6; a flat tarball's names as they are), read once as a stream.
    Members are held in memory up to ``budget`` bytes in all (default ``MEMORY_BUDGET``), later ones spilled to
    a temp folder that ``SegmentFiles.close`` removes. Absolute names, ``..``, links and devices are refused."""
    where = where or (os.fspath(source) if not hasattr(source, "read") else "segment tarball")
    budget = MEMORY_BUDGET if budget is None else budget
    handle = open(source, "rb") if not hasattr(source, "read") else None
    members: dict[str, memoryview | bytes | str] = {}
    temp_dir, stream = None, None
    source_stream = handle if handle is not None else source
    try:
        whole = _inflated_whole(handle, budget) if handle is not None else None
        if whole is not None:
            return _members_of_whole(whole, where)
        stream = (_local_gzip(handle) if handle is not None else None) or _decompressed(source_stream, where)
        reader = _Forward(stream)
        with tarfile.open(fileobj=reader, mode="r:") as tar:
            first, held = None, 0
            for member in tar:
                name = _file_name(member, where)
                first = first or member
                if name is None:
                    continue
                if held + member.size <= budget:
                    members[name] = reader.take(member.size)
                    held += member.size
                    continue
                if temp_dir is None:
                    temp_dir = tempfile.mkdtemp(prefix="pinot-segment-")
                path = os.path.join(temp_dir, str(len(members)))
                with open(path, "wb") as out:
                    reader.copy(member.size, out)
                members[name] = path
    except BaseException as exc:
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
        if not isinstance(exc, _corrupt()) or (isinstance(exc, FileNotFoundError) and handle is None):
            raise
        raise SegmentFormatError(f"{where}: unsafe or unreadable tarball: {exc}") from None
    finally:
        if hasattr(stream, "close") and stream is not source_stream:  # igzip's inflating thread stops
            stream.close()
        if handle is not None:
            handle.close()
    return _segment_files(where, first, members, temp_dir)


def _segment_files(where: str, first: tarfile.TarInfo | None, members: dict, temp_dir: str | None) -> SegmentFiles:
    """The members named from the segment's folder, the first member's top folder (SEGMENT_FORMAT.md 1.6)."""
    if first is None:
        raise SegmentFormatError(f"{where}: empty tarball")
    top = first.name.replace("\\", "/").lstrip("./").split("/", 1)[0]
    if top and any(n.startswith(top + "/") for n in members):
        members = {n[len(top) + 1:]: m for n, m in members.items() if n.startswith(top + "/")}
    return SegmentFiles(where, members, temp_dir)


def _members_of_whole(data: bytes, where: str) -> SegmentFiles:
    """A whole tar's regular files as views of ``data`` (no copies), refused as ``load_tarball`` refuses."""
    view, members, first = memoryview(data), {}, None
    headers = _plain_headers(data)
    with contextlib.nullcontext(headers) if headers is not None else tarfile.open(fileobj=io.BytesIO(data),
                                                                                   mode="r:") as tar:
        for member in tar:
            name = _file_name(member, where)
            first = first or member
            if name is not None:
                if member.offset_data + member.size > len(data):
                    raise EOFError("the tarball ends inside a member")
                members[name] = view[member.offset_data:member.offset_data + member.size]
    return _segment_files(where, first, members, None)


_BLOCK = 512
_ZERO_BLOCK = bytes(_BLOCK)
_PLAIN_MAGIC = (tarfile.POSIX_MAGIC, tarfile.GNU_MAGIC)
# name, size, checksum, type, link name, magic, prefix (user and group names, modes, times: not read)
_HEADER = struct.Struct("100s24x12s12x8sc100s8s80x155s12x")


def _plain_headers(data: bytes) -> list[tarfile.TarInfo] | None:
    """The members of a whole tar as ``tarfile`` reads them, when every header is a plain one (what Pinot's
    and this package's writers make: ustar or GNU magic, a regular file or a folder, the name in its own
    field, no prefix, an octal size, a sound checksum) up to an end-of-archive block: ~6x less CPU than
    ``tarfile``'s reader for a segment's six headers. ``None`` for anything else (a pax or GNU long-name
    header, a link, a device, a bad checksum, a short archive): ``tarfile`` reads that one, and refuses what
    it refuses."""
    members: list[tarfile.TarInfo] = []
    at = 0
    while True:
        block = data[at:at + _BLOCK]
        if len(block) < _BLOCK or block == _ZERO_BLOCK:
            return members if at and (block == _ZERO_BLOCK or not block) else None
        raw_name, raw_size, raw_sum, kind, link, magic, prefix = _HEADER.unpack(block)
        if (magic not in _PLAIN_MAGIC or kind not in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE)
                or link.strip(b"\0") or prefix.strip(b"\0") or not raw_size.rstrip(b"\0 ").isdigit()):
            return None
        try:
            checksum = int(raw_sum.rstrip(b"\0 ") or b"0", 8)
            size = int(raw_size.rstrip(b"\0 "), 8)
        except ValueError:
            return None
        if checksum != 256 + sum(block[:148]) + sum(block[156:]):  # the checksum field counted as spaces
            return None
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        member = tarfile.TarInfo(name)
        if kind == tarfile.DIRTYPE or (kind == tarfile.AREGTYPE and name.endswith("/")):
            member.type, member.name, size = tarfile.DIRTYPE, name.rstrip("/"), 0
        else:
            member.type = tarfile.REGTYPE
        member.size, member.offset, member.offset_data = size, at, at + _BLOCK
        members.append(member)
        at += _BLOCK + -(-size // _BLOCK) * _BLOCK


def _file_name(member: tarfile.TarInfo, where: str) -> str | None:
    """A regular file's name (its path parts joined, ``.`` dropped); ``None`` for a folder; anything else
    (a link, a device), an absolute name or ``..`` makes the tarball unsafe."""
    parts = _member_parts(member, where)
    if not (member.isfile() or member.isdir()):
        raise SegmentFormatError(f"{where}: unsafe tarball member {member.name!r}")
    return "/".join(p for p in parts if p and p != ".") if member.isfile() else None


def _member_parts(member: tarfile.TarInfo, where: str) -> list[str]:
    """A member's path parts; an absolute name, or one with ``..``, makes the tarball unsafe (checked before
    tarfile's ``data`` filter, which would strip a leading ``/`` rather than refuse it)."""
    parts = member.name.replace("\\", "/").split("/")
    if member.name.startswith("/") or ".." in parts:
        raise SegmentFormatError(f"{where}: unsafe tarball member {member.name!r}")
    return parts


# A local gzip tarball up to this size is inflated in one call into one buffer, its members views of it
# (``_inflated_whole``); a larger one streams into a buffer per member. One tarball loaded again and again
# (load_tarball, libdeflate, CPU-s): 0.47 MB 1.7 against 2.4 ms streamed, 2.1 MB 7.7 against 8.1, but 3.8 MB
# 12.5-14 against 11.2 and 19 MB 67 against 41 (the one large buffer's page faults: 3.4k against 2.3k, 17k
# against 4.5k). A compaction's small inputs (a 20k-row micro-batch: 0.47 MB) are what gain.
WHOLE_INFLATE_MAX = 1 << 20


def _inflated_whole(handle, budget: int) -> bytes | bytearray | None:
    """A local gzip tarball of at most ``WHOLE_INFLATE_MAX`` bytes inflated whole, its CRC checked, when the
    tar fits ``budget``: by libdeflate (the ``deflate`` package) where installed, ~10% less CPU than ISA-L's
    inflate (a 20k-row segment, 890 KB of tar: 1.05 against 1.17 ms into reused memory, 1.63 against 1.79 ms
    loaded into fresh), else by ISA-L. A compaction reads thousands of small segments; streamed, their reads
    and a buffer per member cost more again.
    ``None`` for anything else (the stream reads it, from the start): a tarball of another codec, larger,
    past the budget, of more than one gzip member, or without ISA-L."""
    try:
        from isal import isal_zlib
    except ImportError:
        return None
    if codec_of(handle.peek(4)[:4]) != GZIP or os.fstat(handle.fileno()).st_size > WHOLE_INFLATE_MAX:
        return None
    compressed = handle.read()
    tar = _by_libdeflate(compressed, budget)
    if tar is not None:
        return tar
    inflater = isal_zlib.decompressobj(wbits=31)  # gzip: header and CRC-32 checked
    data = inflater.decompress(compressed, budget + 1)
    if not inflater.eof and len(data) <= budget:
        raise EOFError("the gzip stream ends early: a truncated tarball")
    if len(data) > budget or inflater.unused_data:
        handle.seek(0)
        return None
    return data


def _by_libdeflate(compressed: bytes, budget: int) -> bytearray | None:
    """A one-member gzip stream inflated by libdeflate into a buffer of the size its trailer gives (ISIZE),
    or ``None`` (ISA-L decides): no libdeflate, a size past the budget, or a stream libdeflate refuses (corrupt,
    cut short) or that is not one member whose trailer ends the file. libdeflate inflates the first member
    and checks it against its own trailer; a second member, or bytes after the first, would go unseen, so
    the size and CRC-32 the file's last eight bytes give must be the ones of what was inflated."""
    if _libdeflate is None or len(compressed) < 18:  # a gzip header and trailer
        return None
    crc, size = struct.unpack_from("<II", compressed, len(compressed) - 8)
    if not 0 < size <= budget:  # (0 would ask libdeflate to read the size itself)
        return None
    try:
        tar = _libdeflate.gzip_decompress(compressed, size)
    except _libdeflate.DeflateError:
        return None
    return tar if len(tar) == size and _libdeflate.crc32(tar) == crc else None


def _local_gzip(handle):
    """A local gzip tarball's tar bytes, of any size, inflated as they are read in this thread (ISA-L's igzip)
    straight into the members' buffers: a compaction reads hundreds of small segments, and the threaded
    stream's thread and queue per tarball cost ~15% over the inflate itself (bench/compact.py); a large one
    gains nothing from them either (its blocks copied out of the queue: ~5% more CPU-s, no less wall,
    bench/read.py), and ``read`` of a table reads its segments side by side instead. ``None`` for anything
    else (``_decompressed``: a remote stream keeps the thread, which overlaps fetching with inflating)."""
    if codec_of(handle.peek(4)[:4]) != GZIP:
        return None
    try:
        from isal import igzip
    except ImportError:
        return None
    return igzip.open(handle, "rb")


class _Forward(io.RawIOBase):
    """A forward-only stream as ``tarfile``'s random-access mode reads it (headers by ``read``, forward
    ``seek`` over padding), whose member data ``take`` reads straight into a buffer of its size, without
    ``tarfile``'s own copies (its stream mode joins and slices every 10 KiB record)."""

    def __init__(self, stream):
        self._stream = stream
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self._pos + offset
        if whence not in (io.SEEK_SET, io.SEEK_CUR) or target < self._pos:
            raise tarfile.ReadError("the tar stream can only be read forward")
        while self._pos < target:
            step = min(target - self._pos, COPY_BUFFER)
            if len(self._read(step)) < step:
                break
        return self._pos

    def _read(self, size: int) -> bytes:
        data = self._stream.read(size)
        self._pos += len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self._read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        return bytes(self._read(size if size >= 0 else 1 << 62))

    def take(self, size: int) -> memoryview:
        data = memoryview(empty(size))  # not zero-filled (bytearray's memset: +30% CPU); pooled.py: why not numpy's
        done = 0
        while done < size:
            n = self._stream.readinto(data[done:done + (8 << 20)])
            if not n:
                raise EOFError("the tarball ends inside a member")
            done += n
        self._pos += done
        return data

    def copy(self, size: int, out) -> None:
        while size > 0:
            chunk = self._read(min(size, COPY_BUFFER))
            if not chunk:
                raise EOFError("the tarball ends inside a member")
            out.write(chunk)
            size -= len(chunk)


def _corrupt() -> tuple[type[BaseException], ...]:
    """What a corrupt or truncated tarball raises, from any decoder (Arrow's for LZ4 / zstd, imported then)."""
    import sys

    arrow = sys.modules.get("pyarrow")
    return _CORRUPT + ((arrow.ArrowException,) if arrow is not None else ())


def not_a_tarball(where: str, head: bytes) -> SegmentFormatError:
    return SegmentFormatError(f"{where}: not a segment tarball (gzip, zstd, LZ4 or plain tar); "
                              f"it starts with {head[:4].hex() or 'nothing'}")


class _Prefixed(io.RawIOBase):
    """``head`` followed by the rest of ``stream``: the bytes read to sniff the format, given back."""

    def __init__(self, head: bytes, stream: IO[bytes]):
        self._head, self._stream = memoryview(head), stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def is_tarball(path: str | os.PathLike, *, required: bool = False) -> bool:
    """A local file that is a segment tarball by its content (any of the four formats); ``required``: one
    that is not is an error saying so."""
    with open(path, "rb") as handle:
        head = handle.read(512)
    if required and compression_of(head) == "unknown":
        raise not_a_tarball(os.fspath(path), head)
    return compression_of(head) != "unknown"


_HAS_DATA_FILTER = hasattr(tarfile, "data_filter")  # Python 3.10.12+ / 3.11.4+; Debian 12's 3.11.2 has none


def _extract_member(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: str) -> None:
    """One member (its name checked by ``_member_parts``) into ``dest`` through tarfile's ``data`` filter, or, on
    a Python without it, with the refusals a segment tarball needs made here: only regular files and folders
    (no links, no devices), without set-uid bits or write access for others."""
    if _HAS_DATA_FILTER:
        tar.extract(member, dest, filter="data")
        return
    if not (member.isfile() or member.isdir()):
        raise tarfile.TarError(f"member {member.name!r} is not a regular file or folder")
    member.mode &= 0o755
    tar.extract(member, dest, set_attrs=member.isfile())


def extract_all(tar: tarfile.TarFile, dest: str | os.PathLike, where: str = "segment tarball") -> None:
    """Every member of ``tar`` into ``dest`` (tests, benches and tools unpacking a tarball; a segment is read
    without unpacking, ``load_tarball``): an absolute name, ``..``, a link or device is an unsafe tarball."""
    for member in tar:
        _member_parts(member, where)
        try:
            _extract_member(tar, member, os.fspath(dest))
        except tarfile.TarError as exc:
            raise SegmentFormatError(f"{where}: unsafe tarball member {member.name!r}: {exc}") from None
