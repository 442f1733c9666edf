"""Dictionary-encoded forward indexes (SEGMENT_FORMAT.md 5.1-5.3).

* sorted SV (``.sv.sorted.fwd``): per dictId the inclusive ``(firstDocId, lastDocId)`` as two int32 BE;
* unsorted SV (``.sv.unsorted.fwd``): dictIds bit-packed MSB-first;
* MV (``.mv.fwd``): chunk offsets, a row-start bitmap, then all dictIds bit-packed.
"""
from __future__ import annotations

import math

import numpy as np

from .bitpack import pack_bits

MV_CHUNK_TARGET_VALUES = 2048  # FixedBitMVForwardIndexWriter: docsPerChunk = ceil(2048 / avg values per doc)


def sorted_forward_index(dict_ids: np.ndarray, cardinality: int) -> bytes:
    """Doc ranges of each dictId; ``dict_ids`` must be non-decreasing and cover every dictId."""
    count = len(dict_ids)
    # A non-decreasing array covering 0..cardinality-1 starts dictId d's run at its d-th change point.
    starts = np.flatnonzero(dict_ids[1:] != dict_ids[:-1]) + 1
    pairs = np.empty((cardinality, 2), dtype=">i4")
    if len(starts) + 1 != cardinality or (count and (dict_ids[0] != 0 or dict_ids[-1] != cardinality - 1)):
        raise ValueError(f"sorted forward index: dictIds do not cover 0..{cardinality - 1} in order")
    pairs[0, 0] = 0
    pairs[1:, 0] = starts
    pairs[:-1, 1] = starts - 1
    pairs[-1, 1] = count - 1
    return pairs.tobytes()


def unsorted_forward_index(dict_ids: np.ndarray, bits: int) -> bytes:
    return pack_bits(dict_ids, bits)


def multi_value_forward_index(dict_ids: np.ndarray, row_lengths: np.ndarray, bits: int) -> bytes:
    """``FixedBitMVForwardIndexWriter``: every row has at least one value (ingestion guarantees it)."""
    num_docs = len(row_lengths)
    row_starts = np.empty(num_docs, dtype=np.intp)  # not zeros: calloc's memset cost more than the running sum
    row_starts[0] = 0
    np.cumsum(row_lengths[:-1], out=row_starts[1:])
    total = int(row_starts[-1]) + int(row_lengths[-1])
    avg = total // num_docs
    docs_per_chunk = math.ceil(MV_CHUNK_TARGET_VALUES / avg)
    num_chunks = math.ceil(num_docs / docs_per_chunk)
    chunk_offsets = row_starts[::docs_per_chunk][:num_chunks].astype(">i4")
    row_start_bits = np.zeros(total, dtype=np.uint8)
    row_start_bits[row_starts] = 1
    bitmap = np.packbits(row_start_bits, bitorder="big").tobytes()
    return chunk_offsets.tobytes() + bitmap + pack_bits(dict_ids, bits)
