"""Bitmap inverted index (``BitmapInvertedIndexWriter``, SEGMENT_FORMAT.md 6.1).

``(cardinality + 1)`` uint32 BE offsets from the start of the buffer, then one portable RoaringBitmap
per dictId. pyroaring's constructor run-optimises like Java's ``RoaringBitmapWriter``, which makes the
bytes identical to Pinot's.
"""
from __future__ import annotations

import array

import numpy as np
from pyroaring import BitMap


def serialize_bitmap(doc_ids: np.ndarray) -> bytes:
    # pyroaring reads an array.array('I') through the buffer protocol; a numpy array goes value by value.
    values = array.array("I")
    values.frombytes(np.ascontiguousarray(doc_ids, dtype=np.uint32).tobytes())
    bitmap = BitMap(values)
    bitmap.run_optimize()
    return bitmap.serialize()


_SCAN_CARDINALITY = 12  # up to this many dictIds, one scan per dictId beats a sort (measured at 1M docs)


def docs_by_dict_id(dict_ids: np.ndarray, cardinality: int, row_lengths: np.ndarray | None = None) -> list[np.ndarray]:
    """The sorted docIds of each dictId; for multi-value columns ``row_lengths`` maps values to docs."""
    keys = dict_ids.astype(np.uint8 if cardinality <= 1 << 8 else np.uint16 if cardinality <= 1 << 16 else np.int32,
                           copy=False)
    if row_lengths is None and cardinality <= _SCAN_CARDINALITY:
        return [np.flatnonzero(keys == dict_id) for dict_id in range(cardinality)]  # a few vectorised scans
    # Stable, so docIds stay ascending inside each group; numpy radix-sorts 8- and 16-bit keys.
    order = np.argsort(keys, kind="stable")
    if row_lengths is None:
        docs = order  # value i is doc i
    else:
        docs = np.repeat(np.arange(len(row_lengths), dtype=np.uint32), row_lengths)[order]
    counts = np.bincount(dict_ids, minlength=cardinality)
    return np.split(docs, np.cumsum(counts)[:-1])


def inverted_index(dict_ids: np.ndarray, cardinality: int, row_lengths: np.ndarray | None = None) -> bytes:
    bitmaps = [serialize_bitmap(group) for group in docs_by_dict_id(dict_ids, cardinality, row_lengths)]
    sizes = np.array([len(b) for b in bitmaps], dtype=np.int64)
    offsets = np.zeros(cardinality + 1, dtype=np.int64)
    offsets[0] = 4 * (cardinality + 1)
    np.cumsum(sizes, out=offsets[1:])
    offsets[1:] += offsets[0]
    if offsets[-1] >= 2**32:
        raise ValueError("inverted index larger than 4 GiB")
    return offsets.astype(">u4").tobytes() + b"".join(bitmaps)
