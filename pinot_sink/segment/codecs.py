"""Chunk compression codecs of Pinot's raw forward index (``ChunkCompressionType``), via cramjam.

Payload formats are those of SEGMENT_FORMAT.md section 5.4: Snappy raw blocks (not framed), one zstd
frame (level 3, content size present), raw LZ4 blocks, LZ4 with a 4-byte little-endian length prefix,
and zlib + an int32 length for GZIP (big-endian, or little-endian in V4 var-byte chunks).
"""
from __future__ import annotations

import zlib

import cramjam
import numpy as np
from type_mapping.errors import PinotSinkError

PASS_THROUGH, SNAPPY, ZSTANDARD, LZ4, LZ4_LENGTH_PREFIXED, GZIP = 0, 1, 2, 3, 4, 5
CODEC_IDS = {
    "PASS_THROUGH": PASS_THROUGH,
    "SNAPPY": SNAPPY,
    "ZSTANDARD": ZSTANDARD,
    "LZ4": LZ4,
    "LZ4_LENGTH_PREFIXED": LZ4_LENGTH_PREFIXED,
    "GZIP": GZIP,
}
CODEC_NAMES = {v: k for k, v in CODEC_IDS.items()}
ZSTD_LEVEL = 3  # zstd-jni's Zstd.compress default, which Pinot uses


class UnsupportedCodec(PinotSinkError, ValueError):
    pass


def codec_id(name: str) -> int:
    try:
        return CODEC_IDS[name.upper()]
    except KeyError:
        raise UnsupportedCodec(
            f"compression codec {name!r} is not supported (supported: {', '.join(CODEC_IDS)})"
        ) from None


def compress(codec: int, data: bytes, *, length_byte_order: str = "big") -> bytes:
    """Compress one chunk. ``length_byte_order`` is the byte order of GZIP's trailing length: Pinot's
    ``GzipCompressor`` writes it with the output buffer's order, big-endian in the fixed-byte and v2/v3
    writers, little-endian in the V4/V5/V6 var-byte writer (whose reader uses it for huge chunks)."""
    if codec == PASS_THROUGH:
        return bytes(data)
    if codec == SNAPPY:
        return bytes(cramjam.snappy.compress_raw(data))
    if codec == ZSTANDARD:
        return bytes(cramjam.zstd.compress(data, level=ZSTD_LEVEL))
    if codec == LZ4:
        return bytes(cramjam.lz4.compress_block(data, store_size=False))
    if codec == LZ4_LENGTH_PREFIXED:
        return bytes(cramjam.lz4.compress_block(data, store_size=True))
    if codec == GZIP:
        return zlib.compress(data) + len(data).to_bytes(4, length_byte_order, signed=True)
    raise UnsupportedCodec(f"compression codec id {codec} is not supported for writing")


class ChunkCompressor:
    """``compress`` for the chunks of one file, one after another (not shared between threads).

    LZ4 blocks go into one output buffer kept from chunk to chunk: cramjam's ``compress_block`` allocates and
    zero-fills a buffer of the block's bound per call (calloc's memset and the copy out were ~2 M instructions
    of a raw STRING column's 200 chunks, on top of the codec's own 22 M)."""

    def __init__(self, codec: int, *, length_byte_order: str = "big"):
        self.codec, self.length_byte_order = codec, length_byte_order
        self._out: np.ndarray | None = None

    def __call__(self, data) -> bytes:
        """One chunk's payload; ``data``: bytes or a contiguous uint8 array."""
        if self.codec not in (LZ4, LZ4_LENGTH_PREFIXED):
            return compress(self.codec, data, length_byte_order=self.length_byte_order)
        size = len(data)
        bound = size + size // 255 + 16 + 4  # LZ4_COMPRESSBOUND, and the length prefix
        if self._out is None or len(self._out) < bound:
            self._out = np.empty(bound, dtype=np.uint8)
        written = cramjam.lz4.compress_block_into(data, self._out, store_size=self.codec == LZ4_LENGTH_PREFIXED)
        return self._out[:written].tobytes()


def decompress(codec: int, data: bytes, uncompressed_size: int | None = None) -> bytes:
    """Decompress one chunk; raw LZ4 blocks need ``uncompressed_size`` (an upper bound is enough)."""
    if codec == PASS_THROUGH:
        return bytes(data)
    if codec == SNAPPY:
        return bytes(cramjam.snappy.decompress_raw(data))
    if codec == ZSTANDARD:
        return bytes(cramjam.zstd.decompress(data))
    if codec == LZ4:
        if uncompressed_size is None:
            raise ValueError("a raw LZ4 block needs the uncompressed size to decompress")
        # decompress_block(output_len=n) returns all n bytes even when the block is shorter (a bound,
        # e.g. a partial last chunk); decompressing into a buffer reports the real length.
        out = bytearray(uncompressed_size)
        written = cramjam.lz4.decompress_block_into(data, out, output_len=uncompressed_size)
        return bytes(out[:written])
    if codec == LZ4_LENGTH_PREFIXED:
        return bytes(cramjam.lz4.decompress_block(data))
    if codec == GZIP:
        return zlib.decompress(data[:-4])
    raise UnsupportedCodec(f"compression codec id {codec} ({CODEC_NAMES.get(codec, '?')}) is not supported")


def decompress_joined(codec: int, payloads, bound: int) -> bytes | np.ndarray:
    """Chunks decompressed back to back: the bytes of ``decompress`` of each, joined. Raw LZ4 blocks go
    straight into one buffer (``bound`` bytes a chunk at most), not a zero-filled buffer and two copies
    each and a join: a compaction reads a small segment's raw number columns in ~20 chunks each."""
    if codec != LZ4:
        return b"".join(decompress(codec, bytes(payload), bound) for payload in payloads)
    out = np.empty(len(payloads) * bound, dtype=np.uint8)
    at = 0
    for payload in payloads:
        at += cramjam.lz4.decompress_block_into(payload, out[at:at + bound], output_len=bound)
    return out[:at]
