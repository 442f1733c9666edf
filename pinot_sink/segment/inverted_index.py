"""Bitmap inverted index (``BitmapInvertedIndexWriter``, SEGMENT_FORMAT.md 6.1).

``(cardinality + 1)`` uint32 BE offsets from the start of the buffer, then one portable RoaringBitmap
per dictId. pyroaring's constructor run-optimises like Java's ``RoaringBitmapWriter``, which makes the
bytes identical to Pinot's.
"""
from __future__ import annotations

import array
from dataclasses import dataclass

import numpy as np
from pyroaring import BitMap

from .bitpack import byte_view
from .dictionary import rows_by_dict_id


def serialize_bitmap(doc_ids: np.ndarray) -> bytes:
    return _serialize(_uint32_array(doc_ids))


def _uint32_array(doc_ids: np.ndarray) -> array.array:
    # pyroaring reads an array.array('I') through the buffer protocol; a numpy array goes value by value.
    values = array.array("I")
    values.frombytes(np.ascontiguousarray(doc_ids, dtype=np.uint32).tobytes())
    return values


def _serialize(doc_ids: array.array) -> bytes:
    bitmap = BitMap(doc_ids)
    bitmap.run_optimize()
    return bitmap.serialize()


_SCAN_CARDINALITY = 12  # up to this many dictIds, one scan per dictId beats a sort (measured at 1M docs)


def _grouped_docs(dict_ids: np.ndarray, cardinality: int,
                  row_lengths: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """All docIds (uint32) ordered by dictId, ascending within one, and the end of each dictId's docs."""
    if row_lengths is None and cardinality <= _SCAN_CARDINALITY:  # a few vectorised scans
        keys = dict_ids.astype(np.uint8 if cardinality <= 1 << 8 else np.int32)  # uint8: a quarter of the bytes
        groups = [np.flatnonzero(keys == dict_id).astype(np.uint32) for dict_id in range(cardinality)]
        return np.concatenate(groups), np.cumsum([len(group) for group in groups])
    order = rows_by_dict_id(dict_ids, cardinality)
    if row_lengths is None:
        return order.astype(np.uint32), np.cumsum(np.bincount(dict_ids, minlength=cardinality))  # value i: doc i
    docs = np.repeat(np.arange(len(row_lengths), dtype=np.uint32), row_lengths)[order]
    # A multi-value row can hold one value twice: its doc is in that bitmap once.
    sorted_ids = dict_ids[order]
    keep = np.ones(len(docs), dtype=bool)
    keep[1:] = (docs[1:] != docs[:-1]) | (sorted_ids[1:] != sorted_ids[:-1])
    if not keep.all():
        docs, sorted_ids = docs[keep], sorted_ids[keep]
    return docs, np.cumsum(np.bincount(sorted_ids, minlength=cardinality))


def docs_by_dict_id(dict_ids: np.ndarray, cardinality: int, row_lengths: np.ndarray | None = None) -> list[np.ndarray]:
    """The sorted docIds of each dictId; for multi-value columns ``row_lengths`` maps values to docs."""
    docs, ends = _grouped_docs(dict_ids, cardinality, row_lengths)
    return np.split(docs, ends[:-1])


def inverted_index(dict_ids: np.ndarray, cardinality: int, row_lengths: np.ndarray | None = None) -> memoryview:
    docs, ends = _grouped_docs(dict_ids, cardinality, row_lengths)
    counts = np.diff(ends, prepend=0)
    arrays = _array_containers(docs, ends - counts, counts)
    others = np.flatnonzero(~arrays.only_arrays).tolist()
    # One array.array sliced per other dictId: per-bitmap numpy conversions would dominate when those
    # dictIds are many and their doc lists short.
    doc_array = _uint32_array(docs) if others else None
    other_bitmaps = [_serialize(doc_array[ends[i] - counts[i] : ends[i]]) for i in others]
    sizes = arrays.sizes.copy()
    sizes[others] = [len(b) for b in other_bitmaps]
    offsets = np.zeros(cardinality + 1, dtype=np.int64)
    offsets[0] = 4 * (cardinality + 1)
    np.cumsum(sizes, out=offsets[1:])
    offsets[1:] += offsets[0]
    if offsets[-1] >= 2**32:
        raise ValueError("inverted index larger than 4 GiB")
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    out[: offsets[0]] = offsets.astype(">u4").view(np.uint8)
    # Runs of consecutive array-only dictIds come from the stream in one copy each; the others go between.
    fast = arrays.only_arrays
    bounds = [0, *(np.flatnonzero(fast[1:] != fast[:-1]) + 1).tolist(), cardinality]
    others_in_order = iter(other_bitmaps)
    read = 0
    for first, end in zip(bounds[:-1], bounds[1:]):
        if fast[first]:
            length = int(offsets[end] - offsets[first])
            out[offsets[first] : offsets[end]] = arrays.stream[read : read + length]
            read += length
        else:
            for i in range(first, end):
                out[offsets[i] : offsets[i + 1]] = np.frombuffer(next(others_in_order), dtype=np.uint8)
    return byte_view(out)


# Most bitmaps of a high-cardinality column hold a few docs: Roaring array containers only (each a
# 16-bit key's docs, at most 4096, and not few enough runs of consecutive docs to make a run container
# strictly smaller, 2 + 4 * runs bytes against 2 * docs: CRoaring's and Java's rule). Such a bitmap's
# portable serialization is fixed (checked against pyroaring, whose bytes are Java's), all little-endian
# uint16 words: cookie 12346 (no run containers) and the container count as two uint32s, then per
# container its key and docs - 1, then per container its byte offset (uint32), then each container's
# docs' low 16 bits. Writing them with numpy makes an inverted index over a million dictIds take tens of
# milliseconds instead of a second of per-bitmap calls; the other bitmaps still go through pyroaring.
_ARRAY_CONTAINER_MAX = 4096
_NO_RUN_COOKIE = 12346


@dataclass
class _ArrayContainers:
    only_arrays: np.ndarray  # per dictId: its bitmap is array containers only (the stream holds it)
    sizes: np.ndarray  # per dictId: its serialized bytes (0 for the others)
    stream: np.ndarray  # uint8: the array-only bitmaps, serialized back to back in dictId order


def _none_array_only(groups: int) -> _ArrayContainers:
    return _ArrayContainers(np.zeros(groups, dtype=bool), np.zeros(groups, dtype=np.int64), np.zeros(0, np.uint8))


def _array_containers(docs: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> _ArrayContainers:
    groups = len(counts)
    if not len(docs):
        return _none_array_only(groups)
    present = counts > 0
    # A bitmap with more docs than 4096 per key it can span holds a bitmap container: skip the work below
    # when no dictId can be array containers only (low-cardinality columns).
    spans = (docs[np.maximum(starts + counts - 1, 0)] >> 16) - (docs[np.minimum(starts, len(docs) - 1)] >> 16) + 1
    if not (present & (counts <= _ARRAY_CONTAINER_MAX * spans.astype(np.int64))).any():
        return _none_array_only(groups)
    group_of_doc = np.repeat(np.arange(groups), counts)
    keys = docs >> 16
    # A container starts at a group's first doc or where the key changes inside a group.
    starts_container = np.ones(len(docs), dtype=bool)
    starts_container[1:] = keys[1:] != keys[:-1]
    starts_container[starts[present]] = True
    run_starts = np.ones(len(docs), dtype=bool)
    run_starts[1:] = docs[1:] != docs[:-1] + 1
    run_starts |= starts_container
    container_at = np.flatnonzero(starts_container)
    cards = np.diff(container_at, append=len(docs))
    runs = np.add.reduceat(run_starts, container_at)
    container_group = group_of_doc[container_at]
    is_array = (cards <= _ARRAY_CONTAINER_MAX) & (2 + 4 * runs >= 2 * cards)
    only_arrays = present & (np.bincount(container_group, weights=~is_array, minlength=groups) == 0)
    containers = np.bincount(container_group, minlength=groups)
    sizes = np.where(only_arrays, 8 + 8 * containers + 2 * counts, 0)

    # Keep the array-only groups' containers and docs.
    keep = only_arrays[container_group]
    container_group, cards, container_keys = container_group[keep], cards[keep], keys[container_at[keep]]
    kept_docs = docs if only_arrays.all() else docs[only_arrays[group_of_doc]]
    chosen = np.flatnonzero(only_arrays)
    k, n = containers[chosen], counts[chosen]
    header_words = 4 + 4 * k
    total = int(header_words.sum() + n.sum())
    group_at = np.cumsum(header_words + n) - (header_words + n)  # word index of each bitmap
    # Container j of a bitmap: its (key, docs - 1) at 4 + 2j, its offset at 4 + 2k + 2j, its docs after.
    rank = np.searchsorted(chosen, container_group)  # container -> index among the chosen groups
    first_container = np.cumsum(k) - k
    j = np.arange(len(container_group)) - first_container[rank]
    docs_before = np.cumsum(cards) - cards
    docs_before -= docs_before[first_container][rank]
    words = np.empty(total, dtype="<u2")
    at = group_at[rank] + 4 + 2 * j
    words[at] = container_keys
    words[at + 1] = cards - 1
    offset_bytes = 8 + 8 * k[rank] + 2 * docs_before
    at = group_at[rank] + 4 + 2 * k[rank] + 2 * j
    words[at] = offset_bytes & 0xFFFF
    words[at + 1] = offset_bytes >> 16
    words[group_at] = _NO_RUN_COOKIE
    words[group_at + 1] = 0
    words[group_at + 2] = k & 0xFFFF
    words[group_at + 3] = k >> 16
    # Header words are +1 .. -1 marked spans (a bitmap has a doc, so a header never ends where one starts).
    header_mark = np.zeros(total, dtype=np.int8)
    header_mark[group_at] = 1
    header_mark[group_at + header_words] = -1
    is_doc = np.cumsum(header_mark, dtype=np.int8) == 0
    words[is_doc] = kept_docs  # uint32 -> uint16 keeps the low 16 bits
    return _ArrayContainers(only_arrays, sizes, words.view(np.uint8))
