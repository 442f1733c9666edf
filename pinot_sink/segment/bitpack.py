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

    A group of ``32 / gcd(bits, 32)`` values fills a whole number of uint32 words, and each value of a
    group sits at the same bit offset in every group. So each group gets its words, each value position is
    OR-ed into (at most two of) them with one vectorised shift, and the groups' big-endian words back to
    back are the stream. (Widths of whole bytes are just the values' low big-endian bytes.) Groups of whole
    words, not of whole bytes: the words need no slicing to bytes afterwards, whose strided copy was a
    memcpy call per group. uint32 words, not uint64: an int32 dictId's strided copy into a word is a plain
    copy rather than a widening cast (6 instructions per value of the 64-bit version's ~14), the shifts and
    ORs take twice the values per vector instruction, and half as many value positions mean half the calls.
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
    if values.dtype.kind in "iu" and values.dtype.itemsize == 4:
        values = values.reshape(-1).view(np.uint32)  # non-negative and < 2**bits: the same numbers
    elif values.dtype.kind in "iu" and values.dtype.itemsize < 4:
        # narrow dictIds (a compaction's list columns): unsigned of their width, widened into the words by the
        # copies below, not a whole uint32 copy first
        values = values.reshape(-1).view(f"u{values.dtype.itemsize}")
    else:
        values = values.reshape(-1).astype(np.uint32)
    group = 32 // math.gcd(bits, 32)
    group_words = group * bits // 32
    full, tail = divmod(count, group)
    columns = values[: full * group].reshape(full, group)
    # Word-major, so every shift and OR runs over contiguous memory; a last partial group is packed apart
    # (no padded copy of the values).
    words = np.zeros((group_words, full), dtype=np.uint32)
    shifted = np.empty(full, dtype=np.uint32)
    for j in range(group if full else 0):
        word, offset = divmod(j * bits, 32)
        end = offset + bits  # the value's bits are [offset, end) of this word, spilling into the next
        np.copyto(shifted, columns[:, j])
        if end <= 32:
            shifted <<= np.uint32(32 - end)
            words[word] |= shifted
        else:
            words[word] |= shifted >> np.uint32(end - 32)
            shifted <<= np.uint32(64 - end)
            words[word + 1] |= shifted
    stream = np.empty(full * group_words * 4 + (group_words * 4 if tail else 0), dtype=np.uint8)
    stream[: full * group_words * 4].view(">u4").reshape(full, group_words)[...] = words.T
    if tail:  # the last values, zero-padded to a group, as one big number of the group's bits
        number = 0
        for value in values[full * group :].tolist():
            number = (number << bits) | value
        number <<= bits * (group - tail)
        stream[full * group_words * 4 :] = np.frombuffer(number.to_bytes(group_words * 4, "big"), dtype=np.uint8)
    size = (count * bits + 7) // 8  # the padding values' whole bytes are not written
    return byte_view(stream)[:size]


def unpack_bits(data: bytes, bits: int, count: int) -> np.ndarray:
    """The inverse of ``pack_bits`` (for tests and round-trip checks)."""
    stream = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big")[: count * bits]
    matrix = stream.reshape(count, bits).astype(np.uint32)
    weights = (1 << np.arange(bits - 1, -1, -1, dtype=np.uint64)).astype(np.uint32)
    return (matrix * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)
