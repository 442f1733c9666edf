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
default, for a size within 1% on segment data); bench/tar_codecs.py measures them. Reading, by these magic
numbers: ``segment.read.tar_source``.
"""
from __future__ import annotations

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
