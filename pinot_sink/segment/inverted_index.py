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
from .row_order import dict_id_counts, rows_by_dict_id, rows_by_dict_id_narrow


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
    if row_lengths is None:  # value i: doc i
        return rows_by_dict_id_narrow(dict_ids, cardinality, np.uint32), np.cumsum(dict_id_counts(dict_ids, cardinality))
    order = rows_by_dict_id(dict_ids, cardinality)
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
    if row_lengths is None and cardinality <= _SCAN_CARDINALITY:
        return _scanned_inverted_index(dict_ids, cardinality)
    docs, ends = _grouped_docs(dict_ids, cardinality, row_lengths)
    counts = np.diff(ends, prepend=0)
    arrays = _array_containers(docs, ends - counts, counts)
    others = np.flatnonzero(~arrays.only_arrays).tolist()
    # One array.array sliced per other dictId: per-bitmap numpy conversions would dominate when those
    # dictIds are many and their doc lists short.
    doc_array = None
    other_bitmaps = []
    for i in others:
        start, end = int(ends[i] - counts[i]), int(ends[i])
        bitmap = _without_runs(docs[start:end]) if end - start > _ARRAY_CONTAINER_MAX else None
        if bitmap is None:
            if doc_array is None:
                doc_array = _uint32_array(docs)
            bitmap = _serialize(doc_array[start:end])
        other_bitmaps.append(bitmap)
    del docs, doc_array  # every bitmap is made: the output is written from the stream and other_bitmaps
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
_RUN_COOKIE = 12347  # CRoaring's SERIAL_COOKIE: the bitmap holds a run container
_NO_OFFSET_THRESHOLD = 4  # with run containers, offsets only from this many containers


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
    # A container starts at a group's first doc or where the key changes inside a group.
    starts_container = np.empty(len(docs), dtype=bool)
    starts_container[0] = True
    _compare_next(docs, starts_container, _key_changes)
    present_groups = np.flatnonzero(present)
    group_starts = starts[present_groups]
    starts_container[group_starts] = True
    container_at = np.flatnonzero(starts_container)
    cards = np.diff(container_at, append=len(docs))
    runs = _container_runs(docs, starts_container, container_at, cards)
    del starts_container
    # The containers come group by group: each present group's count of them, then each container's group.
    containers = np.zeros(groups, dtype=np.int64)
    containers[present_groups] = np.diff(np.searchsorted(container_at, group_starts), append=len(container_at))
    del group_starts
    container_group = np.repeat(present_groups, containers[present_groups])
    is_array = (cards <= _ARRAY_CONTAINER_MAX) & (2 + 4 * runs >= 2 * cards)
    del runs
    only_arrays = present.copy()
    only_arrays[container_group[~is_array]] = False
    sizes = np.where(only_arrays, 8 + 8 * containers + 2 * counts, 0)

    # Keep the array-only groups' containers and docs.
    if only_arrays.all():
        container_keys, kept_docs = docs[container_at] >> 16, docs
    else:
        keep = only_arrays[container_group]
        cards, container_keys = cards[keep], docs[container_at[keep]] >> 16
        kept_docs = docs[np.repeat(only_arrays, counts)]
    # (each step below lets go of what it no longer needs: with a few docs a container, the per-container
    # arrays are ~0.6x the docs' bytes each; a 64mb compaction's inverted index held a dozen at once)
    del container_at, container_group, is_array
    chosen = np.flatnonzero(only_arrays)
    k, n = containers[chosen], counts[chosen]  # every chosen group has a container
    header_words = 4 + 4 * k
    total = int(header_words.sum() + n.sum())
    group_at = np.cumsum(header_words + n) - (header_words + n)  # word index of each bitmap
    # Container j of a bitmap: its (key, docs - 1) at 4 + 2j, its offset at 4 + 2k + 2j, its docs after.
    # The kept containers are the chosen groups' in group order: per-group figures reach them by a repeat.
    first_container = np.cumsum(k) - k
    j = np.arange(len(cards)) - np.repeat(first_container, k)
    docs_before = np.cumsum(cards) - cards
    docs_before -= np.repeat(docs_before[first_container], k)
    bitmap_at, containers_of = np.repeat(group_at, k), np.repeat(k, k)
    words = np.empty(total, dtype="<u2")
    at = bitmap_at + 4 + 2 * j
    del bitmap_at, j
    words[at] = container_keys
    words[at + 1] = cards - 1
    del container_keys, cards
    offset_bytes = 8 + 8 * containers_of + 2 * docs_before
    del docs_before
    at += 2 * containers_of
    del containers_of
    words[at] = offset_bytes & 0xFFFF
    words[at + 1] = offset_bytes >> 16
    del at, offset_bytes
    words[group_at] = _NO_RUN_COOKIE
    words[group_at + 1] = 0
    words[group_at + 2] = k & 0xFFFF
    words[group_at + 3] = k >> 16
    # Each bitmap's header words, then its docs: the docs' places by one repeat of (header, docs) flags.
    pieces = np.empty(2 * len(chosen), dtype=np.int64)
    pieces[0::2], pieces[1::2] = header_words, n
    is_doc = np.repeat(np.tile(np.array([False, True]), len(chosen)), pieces)
    words[is_doc] = kept_docs  # keeps the low 16 bits (an unsafe cast, buffered: no uint16 copy of the docs)
    return _ArrayContainers(only_arrays, sizes, words.view(np.uint8))


_COMPARE_BLOCK = 1 << 18  # docs compared with their successor at a time (no whole-column temporaries)


def _key_changes(later: np.ndarray, earlier: np.ndarray, out: np.ndarray) -> None:
    np.not_equal(later >> 16, earlier >> 16, out=out)


def _follows(later: np.ndarray, earlier: np.ndarray, out: np.ndarray) -> None:
    np.equal(later, earlier + 1, out=out)


def _compare_next(docs: np.ndarray, out: np.ndarray, compare) -> None:
    """``out[i] = compare(docs[i], docs[i - 1])`` for i >= 1, a block at a time: the shifted and compared
    copies (4 bytes a doc each) are a block's, not the column's."""
    for start in range(1, len(docs), _COMPARE_BLOCK):
        end = min(start + _COMPARE_BLOCK, len(docs))
        compare(docs[start:end], docs[start - 1:end - 1], out[start:end])


def _container_runs(docs: np.ndarray, starts_container: np.ndarray, container_at: np.ndarray,
                    cards: np.ndarray) -> np.ndarray:
    """Runs of consecutive docs in each container: its docs less those that follow the doc before it by one
    inside the container. Sparse bitmaps (many dictIds) have few such docs, counted from their positions."""
    follows = np.empty(len(docs), dtype=bool)
    follows[0] = False
    _compare_next(docs, follows, _follows)
    follows = np.flatnonzero(follows)
    follows = follows[~starts_container[follows]]
    if len(follows) > len(container_at):  # many: a sum per container over a flag per doc
        run_starts = np.ones(len(docs), dtype=bool)
        run_starts[follows] = False
        return np.add.reduceat(run_starts, container_at, dtype=np.int64)
    return cards - np.bincount(np.searchsorted(container_at, follows, side="right") - 1, minlength=len(cards))


# A bitmap of more than 4096 docs holds bitmap containers where a key has that many docs; when run-optimising
# would turn none of its containers into a run container (Roaring's rule: a run container only when
# strictly smaller, 2 + 4 * runs bytes against 2 * docs for an array and 8192 for a bitmap container), its
# portable bytes are fixed as the array-only ones above, a bitmap container being its 1024 little-endian
# uint64 words (bit i of word w: doc 64 w + i of the key). Written with numpy: a scatter and packbits per
# container instead of pyroaring adding the docs one by one. At most docs / 4096 bitmaps come here.
_BITMAP_CONTAINER_BYTES = 8192


def _without_runs(docs: np.ndarray) -> bytes | None:
    """One bitmap's portable bytes (docs sorted, unique, uint32), or None if it would hold a run container."""
    keys = docs >> 16
    container_at = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    container_at = np.concatenate([[0], container_at])
    cards = np.diff(container_at, append=len(docs))
    run_starts = np.empty(len(docs), dtype=bool)
    run_starts[0] = True
    np.not_equal(docs[1:], docs[:-1] + 1, out=run_starts[1:])
    run_starts[container_at] = True
    run_bytes = 2 + 4 * np.add.reduceat(run_starts, container_at, dtype=np.int64)
    is_array = cards <= _ARRAY_CONTAINER_MAX
    sizes = np.where(is_array, 2 * cards, _BITMAP_CONTAINER_BYTES)
    if (run_bytes < sizes).any():
        return None
    k = len(cards)
    header = np.empty(4 + 4 * k, dtype="<u2")
    header[:4] = (_NO_RUN_COOKIE, 0, k & 0xFFFF, k >> 16)
    header[4 : 4 + 2 * k : 2] = keys[container_at]
    header[5 : 4 + 2 * k : 2] = cards - 1
    offsets = 8 + 8 * k + np.cumsum(sizes) - sizes
    header[4 + 2 * k :: 2] = offsets & 0xFFFF
    header[5 + 2 * k :: 2] = offsets >> 16
    pieces = [header.tobytes()]
    low = (docs & 0xFFFF).astype("<u2")
    present = np.zeros(1 << 16, dtype=bool)
    for start, card, array in zip(container_at.tolist(), cards.tolist(), is_array.tolist()):
        container = low[start : start + card]
        if array:
            pieces.append(container.tobytes())
        else:
            present[:] = False
            present[container] = True
            pieces.append(np.packbits(present, bitorder="little").tobytes())
    return b"".join(pieces)


def _scanned_inverted_index(dict_ids: np.ndarray, cardinality: int) -> memoryview:
    """A few dictIds over single-value docs: each dictId's docs as one boolean scan, which is already the
    bitmap: packed to bits it gives the bitmap containers, and the array and run containers come from its
    few set positions and run starts, without listing every doc."""
    keys = dict_ids.astype(np.uint8 if cardinality <= 1 << 8 else np.int32)
    # One mask of whole 65,536-doc keys for every dictId: each scan is written into it, and the padding
    # past the last doc is cleared once (a zeroed mask and a copy into it per dictId cost ~0.45 M per 200k docs).
    padded = np.empty(-(-len(keys) // _KEY_DOCS) * _KEY_DOCS, dtype=bool)
    padded[len(keys) :] = False
    bitmaps = []
    for dict_id in range(cardinality):
        np.equal(keys, dict_id, out=padded[: len(keys)])
        bitmap = _bitmap_from_mask(padded)
        bitmaps.append(_serialize(array.array("I")) if bitmap is None else bitmap)  # None: no docs
    offsets = np.cumsum([4 * (cardinality + 1)] + [len(b) for b in bitmaps])
    if offsets[-1] >= 2**32:
        raise ValueError("inverted index larger than 4 GiB")
    return memoryview(offsets.astype(">u4").tobytes() + b"".join(bitmaps))


_KEY_DOCS = 1 << 16  # docs per Roaring container (one 16-bit key)


def _bitmap_from_mask(padded: np.ndarray) -> bytes | None:
    """The portable bytes of the run-optimised bitmap of the docs where ``padded`` is true (None when it is
    empty; its length a whole number of 65,536-doc keys, the docs past the last false). Each key's container is the smallest of array (2 bytes per doc, up to 4096 docs), bitmap (8192
    bytes) and run (2 + 4 per run: only when strictly smaller), Roaring's rule. With a run container the
    header is CRoaring's: cookie 12347 | (containers - 1) << 16, a bit per container marking the runs, the
    keys and counts, offsets only from 4 containers; a run container is its count and (start, length - 1)."""
    blocks = len(padded) // _KEY_DOCS
    run_starts = np.empty_like(padded)
    run_starts[0] = padded[0]
    np.greater(padded[1:], padded[:-1], out=run_starts[1:])  # set after clear
    run_starts[::_KEY_DOCS] = padded[::_KEY_DOCS]  # a container's first doc starts a run
    cards = np.array([np.count_nonzero(padded[b * _KEY_DOCS : (b + 1) * _KEY_DOCS]) for b in range(blocks)])
    keys = np.flatnonzero(cards)
    if not len(keys):
        return None
    cards = cards[keys]
    runs = np.array([np.count_nonzero(run_starts[b * _KEY_DOCS : (b + 1) * _KEY_DOCS]) for b in keys.tolist()])
    is_array = cards <= _ARRAY_CONTAINER_MAX
    sizes = np.where(is_array, 2 * cards, _BITMAP_CONTAINER_BYTES)
    is_run = 2 + 4 * runs < sizes
    sizes = np.where(is_run, 2 + 4 * runs, sizes)
    k = len(cards)
    if is_run.any():
        run_flags = np.packbits(is_run, bitorder="little").tobytes()
        with_offsets = k >= _NO_OFFSET_THRESHOLD
        first = 4 + len(run_flags) + (8 if with_offsets else 4) * k
        head = [np.array([_RUN_COOKIE | (k - 1) << 16], dtype="<u4").tobytes(), run_flags]
    else:
        with_offsets, first = True, 8 + 8 * k
        head = [np.array([_NO_RUN_COOKIE, k], dtype="<u4").tobytes()]
    pairs = np.empty(2 * k, dtype="<u2")
    pairs[0::2], pairs[1::2] = keys, cards - 1
    head.append(pairs.tobytes())
    if with_offsets:
        head.append((first + np.cumsum(sizes) - sizes).astype("<u4").tobytes())
    pieces = head
    for key, array, run in zip(keys.tolist(), is_array.tolist(), is_run.tolist()):
        block = padded[key * _KEY_DOCS : (key + 1) * _KEY_DOCS]
        if run:
            starts = np.flatnonzero(run_starts[key * _KEY_DOCS : (key + 1) * _KEY_DOCS])
            ends = np.empty_like(block)  # a run's last doc: set, and the next clear (or the key's end)
            np.greater(block[:-1], block[1:], out=ends[:-1])
            ends[-1] = block[-1]
            words = np.empty(1 + 2 * len(starts), dtype="<u2")
            words[0] = len(starts)
            words[1::2], words[2::2] = starts, np.flatnonzero(ends) - starts
            pieces.append(words.tobytes())
        elif array:
            pieces.append(np.flatnonzero(block).astype("<u2").tobytes())
        else:
            pieces.append(np.packbits(block, bitorder="little").tobytes())
    return b"".join(pieces)
