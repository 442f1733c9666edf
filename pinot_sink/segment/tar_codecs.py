"""The segment tarball's compression: gzip (the default), LZ4 (framed) or Zstandard.

Pinot reads all three alike: ``TarCompressionUtils.untar`` lets commons-compress choose the decompressor by the
file's magic number (gzip ``1f 8b``, LZ4 frame ``04 22 4d 18``, Zstandard ``28 b5 2f fd``), whatever the file is
called. It does so from Pinot 1.3.0 (apache/pinot#13782, which added ``.tar.lz4`` and ``.tar.zst``); before, a
segment had to be gzip, so gzip stays the default for older clusters. The file keeps its name
``<segment>.tar.gz`` with every codec: the controller stores an uploaded segment under its segment name, the
server reads it by its magic number, and our folders, manifests and pushes list tarballs by that one suffix.

Writing: gzip is tarball.py's parallel deflate; LZ4 and Zstandard stream the same tar bytes through cramjam
(the Rust codecs, already a dependency) at their fastest levels: LZ4's fast mode (cramjam's default, level 4,
is LZ4 HC: 6x the CPU for 15% smaller output), Zstandard level 1 (half the CPU of level 3, commons-compress's
default, for a size within 1% on segment data); bench/tar_codecs.py measures them. Reading (our reader, the
test controller): ``open_tar``.
"""
from __future__ import annotations

import io
import tarfile
from typing import BinaryIO, Iterable

GZIP, LZ4, ZSTD = "gzip", "lz4", "zstd"
CODECS = (GZIP, LZ4, ZSTD)
_MAGIC = {GZIP: b"\x1f\x8b", LZ4: b"\x04\x22\x4d\x18", ZSTD: b"\x28\xb5\x2f\xfd"}
LZ4_LEVEL = 0  # below 3: LZ4's fast mode (3 and above is LZ4 HC)
ZSTD_LEVEL = 1
# Bytes handed to the compressor per call before its output is drained (its buffer would otherwise hold the
# whole compressed tarball).
_FEED = 1 << 22


def codec_of(head: bytes) -> str | None:
    """The codec whose magic number ``head`` (a file's first bytes) starts with; None: none of ours (a plain tar)."""
    return next((codec for codec, magic in _MAGIC.items() if head.startswith(magic)), None)


def _compressor(codec: str):
    import cramjam

    if codec == LZ4:
        return cramjam.lz4.Compressor(level=LZ4_LEVEL)
    if codec == ZSTD:
        return cramjam.zstd.Compressor(level=ZSTD_LEVEL)
    raise ValueError(f"tarball codec {codec!r}: one of {', '.join(CODECS)}")


def write_stream(out: BinaryIO, buffers: Iterable, codec: str) -> None:
    """Write the tar stream ``buffers`` (bytes-like, in order) compressed with LZ4 (framed) or Zstandard."""
    compressor = _compressor(codec)
    pending, size = [], 0
    for buffer in buffers:
        pending.append(buffer)
        size += memoryview(buffer).nbytes
        if size >= _FEED:
            compressor.compress(b"".join(pending))
            out.write(bytes(compressor.flush()))
            pending, size = [], 0
    if pending:
        compressor.compress(b"".join(pending))
    out.write(bytes(compressor.finish()))


def open_tar(source) -> tarfile.TarFile:
    """A tarball (a path or a seekable binary file object) opened for reading, its codec chosen by its magic
    number as Pinot chooses it: gzip (and any codec ``tarfile`` knows) streamed, LZ4 and Zstandard decompressed
    whole."""
    if not hasattr(source, "read"):
        with open(source, "rb") as f:
            codec = codec_of(f.read(4))
            if codec in (LZ4, ZSTD):
                return _decompressed(f, codec)
        return tarfile.open(source, "r:*")
    codec = codec_of(source.read(4))
    source.seek(0)
    if codec in (LZ4, ZSTD):
        return _decompressed(source, codec)
    return tarfile.open(fileobj=source, mode="r:*")


class _Prefixed(io.RawIOBase):
    """``head`` (bytes already read from ``rest``), then the rest of ``rest``: a peek at a stream that cannot
    seek back."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def open_tar_stream(source) -> tarfile.TarFile:
    """Like ``open_tar``, for one pass over the members (``tarfile``'s stream mode, any readable file object):
    gzip is read as it comes, never whole in memory; LZ4 and Zstandard are decompressed whole (cramjam has no
    streaming decoder), so reading such a tarball's metadata holds the segment in memory once."""
    if not hasattr(source, "read"):
        with open(source, "rb") as f:
            codec = codec_of(f.read(4))
            if codec in (LZ4, ZSTD):
                return _decompressed(f, codec)
        return tarfile.open(source, mode="r|*")
    head = source.read(4)
    codec = codec_of(head)
    if codec in (LZ4, ZSTD):
        return _decompressed(_Prefixed(head, source), codec)
    return tarfile.open(fileobj=io.BufferedReader(_Prefixed(head, source)), mode="r|*")


def _decompressed(fileobj: BinaryIO, codec: str) -> tarfile.TarFile:
    import cramjam

    if not isinstance(fileobj, _Prefixed):
        fileobj.seek(0)
    library = cramjam.lz4 if codec == LZ4 else cramjam.zstd
    try:
        data = bytes(library.decompress(fileobj.read()))
    except Exception as exc:  # cramjam's DecompressionError: a truncated or corrupt frame
        raise tarfile.ReadError(f"{codec}: {exc}") from None
    return tarfile.open(fileobj=io.BytesIO(data), mode="r:")


def is_tarball(path) -> bool:
    """A compressed tarball by its magic number (a truncated one too, so that reading it says so), or a tar."""
    with open(path, "rb") as f:
        if codec_of(f.read(4)) is not None:
            return True
    return tarfile.is_tarfile(path)
