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
    """Pack non-negative integers (< 2**bits) into the MSB-first stream, vectorised."""
    values = np.asarray(values, dtype=np.uint32)
    if values.size == 0:
        return b""
    # One row of `bits` bits per value, most significant first, then packbits over the flat stream.
    shifts = np.arange(bits - 1, -1, -1, dtype=np.uint32)
    out = bytearray()
    step = max(1, (1 << 24) // bits)  # bound the temporary bit matrix (~16 MiB) for huge columns
    step -= step % 8  # keep chunk boundaries on whole bytes
    step = max(step, 8)
    for start in range(0, values.size, step):
        chunk = values[start : start + step]
        matrix = ((chunk[:, None] >> shifts) & 1).astype(np.uint8)
        out += np.packbits(matrix.ravel(), bitorder="big").tobytes()
    return bytes(out)


def unpack_bits(data: bytes, bits: int, count: int) -> np.ndarray:
    """The inverse of ``pack_bits`` (for tests and round-trip checks)."""
    stream = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big")[: count * bits]
    matrix = stream.reshape(count, bits).astype(np.uint32)
    weights = (1 << np.arange(bits - 1, -1, -1, dtype=np.uint64)).astype(np.uint32)
    return (matrix * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)
