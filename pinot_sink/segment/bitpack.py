"""Fixed-bit packing of dictIds (``PinotDataBitSet``): MSB-first, each value's bits high to low.

Value i occupies bits ``[i*b, (i+1)*b)`` of the stream, bit 0 being the most significant bit of byte 0;
the unused low bits of the last byte are 0 and there is no padding beyond ``ceil(n*b/8)`` bytes.
"""
from __future__ import annotations

import math

import numpy as np


def bits_per_value(cardinality: int) -> int:
    """``PinotDataBitSet.getNumBitsPerValue(cardinality - 1)``: at least 1 bit."""
    max_value = cardinality - 1
    return 1 if max_value <= 1 else int(max_value).bit_length()


def byte_view(array: np.ndarray) -> memoryview:
    """The bytes of a C-contiguous array as a flat memoryview: an index payload without a ``tobytes`` copy."""
    return memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8))


def pack_bits(values: np.ndarray, bits: int) -> memoryview | bytes:
    """Pack non-negative integers (< 2**bits, bits <= 32) into the MSB-first stream, vectorised.

    A group of ``64 / gcd(bits, 64)`` values fills a whole number of uint64 words, and each value of a
    group sits at the same bit offset in every group. So each group gets its words, each value position is
    OR-ed into (at most two of) them with one vectorised shift, and the groups' big-endian words back to
    back are the stream. (Widths of whole bytes are just the values' low big-endian bytes.) Groups of whole
    words, not of whole bytes: the words need no slicing to bytes afterwards, whose strided copy was a
    memcpy call per group (at 18 bits, over half of the packing's instructions).
    """
    values = np.asarray(values)
    count = values.size
    if count == 0:
        return b""
    if bits % 8 == 0:  # whole bytes per value: its big-endian bytes, less the leading zero ones
        whole = values.astype(">u4").view(np.uint8).reshape(count, 4)[:, 4 - bits // 8 :]
        return byte_view(whole)
    if bits == 1:  # 0 / 1 values: numpy packs them MSB-first itself (a seventh of the grouped path's instructions)
        return byte_view(np.packbits(values.astype(np.uint8, copy=False), bitorder="big"))
    group = 64 // math.gcd(bits, 64)
    group_words = group * bits // 64
    padded = -count % group
    if padded:
        values = np.concatenate([values, np.zeros(padded, dtype=values.dtype)])
    columns = values.reshape(-1, group)
    rows = len(columns)
    # Word-major, so every shift and OR runs over contiguous memory.
    words = np.zeros((group_words, rows), dtype=np.uint64)
    shifted = np.empty(rows, dtype=np.uint64)
    for j in range(group):
        word, offset = divmod(j * bits, 64)
        end = offset + bits  # the value's bits are [offset, end) of this word, spilling into the next
        np.copyto(shifted, columns[:, j], casting="unsafe")
        if end <= 64:
            shifted <<= np.uint64(64 - end)
            words[word] |= shifted
        else:
            words[word] |= shifted >> np.uint64(end - 64)
            shifted <<= np.uint64(128 - end)
            words[word + 1] |= shifted
    big_endian = np.empty((rows, group_words), dtype=">u8")
    big_endian[...] = words.T
    size = (count * bits + 7) // 8  # the padding values' whole bytes are not written
    return byte_view(big_endian)[:size]


def unpack_bits(data: bytes, bits: int, count: int) -> np.ndarray:
    """The inverse of ``pack_bits`` (for tests and round-trip checks)."""
    stream = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big")[: count * bits]
    matrix = stream.reshape(count, bits).astype(np.uint32)
    weights = (1 << np.arange(bits - 1, -1, -1, dtype=np.uint64)).astype(np.uint32)
    return (matrix * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)
