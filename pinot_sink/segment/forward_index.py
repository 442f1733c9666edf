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
    total = int(row_lengths.sum())
    avg = total // num_docs
    docs_per_chunk = math.ceil(MV_CHUNK_TARGET_VALUES / avg)
    num_chunks = math.ceil(num_docs / docs_per_chunk)
    chunk_offsets = np.empty(num_chunks, dtype=">i4")
    row_start_bits = np.zeros(total, dtype=np.uint8)
    # Each row's first value, a block of rows at a time (a whole column's intp starts were 8 bytes a row, the
    # list column's largest array at this step); a block is a whole number of chunks, so its chunks' first
    # rows are every docs_per_chunk-th of its own.
    block_rows = docs_per_chunk * max(1, _MV_BLOCK_ROWS // docs_per_chunk)
    done = 0  # values before the block
    for first in range(0, num_docs, block_rows):
        block = row_lengths[first:first + block_rows]
        starts = np.cumsum(block, dtype=np.intp)
        starts -= block
        starts += done
        row_start_bits[starts] = 1
        chunk_offsets[first // docs_per_chunk:(first + len(block) + docs_per_chunk - 1) // docs_per_chunk] = \
            starts[::docs_per_chunk]
        done = int(starts[-1]) + int(block[-1])
    bitmap = np.packbits(row_start_bits, bitorder="big").tobytes()
    del row_start_bits
    return chunk_offsets.tobytes() + bitmap + pack_bits(dict_ids, bits)


_MV_BLOCK_ROWS = 1 << 16  # rows of a multi-value forward index whose starts are made at a time
