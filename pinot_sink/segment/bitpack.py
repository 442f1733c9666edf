"""Fixed-bit packing of dictIds (``PinotDataBitSet``): MSB-first, each value's bits high to low.

Value i occupies bits ``[i*b, (i+1)*b)`` of the stream, bit 0 being the most significant bit of byte 0;
the unused low bits of the last byte are 0 and there is no padding beyond ``ceil(n*b/8)`` bytes.
"""
from __future__ import annotations

import numpy as np


def bits_per_value(cardinality: int) -> int:
    """``PinotDataBitSet.getNumBitsPerValue(cardinality - 1)``: at least 1 bit."""
    max_value = cardinality - 1
    return 1 if max_value <= 1 else int(max_value).bit_length()


def pack_bits(values: np.ndarray, bits: int) -> bytes:
    """Pack non-negative integers (< 2**bits) into the MSB-first stream, vectorised.

    Each value as big-endian bytes, unpacked to bits, keeping the low ``bits`` of each row, then packed
    again: row-major order puts the values' bits in sequence.
    """
    values = np.asarray(values)
    if values.size == 0:
        return b""
    width = 1 if bits <= 8 else 2 if bits <= 16 else 4
    step = max(8, ((1 << 25) // (8 * width)) // 8 * 8)  # bound the bit matrix (32 MiB); whole bytes per chunk
    parts = []
    for start in range(0, values.size, step):
        chunk = values[start : start + step].astype(f">u{width}")
        matrix = np.unpackbits(chunk.view(np.uint8).reshape(-1, width), axis=1)
        parts.append(np.packbits(matrix[:, 8 * width - bits :].ravel()).tobytes())
    return parts[0] if len(parts) == 1 else b"".join(parts)


def unpack_bits(data: bytes, bits: int, count: int) -> np.ndarray:
    """The inverse of ``pack_bits`` (for tests and round-trip checks)."""
    stream = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big")[: count * bits]
    matrix = stream.reshape(count, bits).astype(np.uint32)
    weights = (1 << np.arange(bits - 1, -1, -1, dtype=np.uint64)).astype(np.uint32)
    return (matrix * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)
