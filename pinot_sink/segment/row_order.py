"""Stable orders of rows by dictId: the segment's row order by its sortedColumn's dictIds, an inverted index's
docs grouped by dictId (rows of one dictId keep their order)."""
from __future__ import annotations

import numpy as np


def rows_by_dict_id(dict_ids: np.ndarray, cardinality: int) -> np.ndarray:
    """The stable order of rows by dictId (rows of one dictId stay in row order), fastest per width:
    numpy radix-sorts 8- and 16-bit keys; wider ones sort as (dictId, row) packed into one uint64, several
    times faster than a stable argsort, with the same result."""
    if cardinality <= 1 << 16:
        return np.argsort(dict_ids.astype(np.uint8 if cardinality <= 1 << 8 else np.uint16), kind="stable")
    bits = max(1, (len(dict_ids) - 1).bit_length())
    packed = dict_ids.astype(np.uint64)
    packed <<= np.uint64(bits)
    packed |= np.arange(len(dict_ids), dtype=np.uint64)
    packed.sort()
    return (packed & np.uint64((1 << bits) - 1)).astype(np.intp)


_COUNTING_BLOCK = 1 << 16  # rows sorted at a time by rows_by_dict_id_narrow


def dict_id_counts(dict_ids: np.ndarray, cardinality: int) -> np.ndarray:
    """The rows of each dictId (intp). ``np.bincount`` casts its input to intp first: a block at a time, that
    copy is a block's, not a column's (8 bytes a row)."""
    totals = np.zeros(cardinality, dtype=np.intp)
    for start in range(0, len(dict_ids), _COUNTING_BLOCK):
        totals += np.bincount(dict_ids[start:start + _COUNTING_BLOCK], minlength=cardinality)
    return totals


def rows_by_dict_id_narrow(dict_ids: np.ndarray, cardinality: int, dtype=np.uint32) -> np.ndarray:
    """``rows_by_dict_id`` (the same order) in a 4-byte ``dtype`` (the rows fit it), built without a whole
    intp copy: a stable counting sort, each block of rows radix-sorted on its own and scattered into its
    dictIds' places. The whole-column argsort held its intp result beside numpy's intp buffer of the same size
    and the narrow copy (16 bytes a row more: a 64mb compaction's inverted index, ~30 MB of its build's peak;
    docs/performance-log.md) for ~10% more CPU on the step."""
    if cardinality > 1 << 16:
        bits = max(1, (len(dict_ids) - 1).bit_length())
        packed = dict_ids.astype(np.uint64)
        packed <<= np.uint64(bits)
        packed |= np.arange(len(dict_ids), dtype=np.uint64)
        packed.sort()
        packed &= np.uint64((1 << bits) - 1)
        return packed.astype(dtype)
    keys = np.uint8 if cardinality <= 1 << 8 else np.uint16
    out = np.empty(len(dict_ids), dtype=dtype)
    # where each dictId's next row goes: its first place, moved on by each block's count of it
    totals = dict_id_counts(dict_ids, cardinality)
    cursor = np.cumsum(totals)
    cursor -= totals
    del totals
    steps = np.arange(min(len(dict_ids), _COUNTING_BLOCK), dtype=np.intp)
    for start in range(0, len(dict_ids), _COUNTING_BLOCK):
        block = dict_ids[start:start + _COUNTING_BLOCK]
        rows = np.argsort(block.astype(keys), kind="stable")
        counts = np.bincount(block, minlength=cardinality)
        # the k-th of a block's rows in sorted order goes to cursor[id] + k - (the block's rows before id's)
        shift = np.cumsum(counts)
        np.subtract(cursor, shift, out=shift)
        shift += counts
        places = np.take(shift, np.take(block, rows, mode="clip"), mode="clip")
        places += steps[:len(rows)]
        rows += start
        out[places] = rows
        cursor += counts
    return out


# A row order from runs of equal dictIds is taken where there are at most a row in this many of them
RUNS_MAX_FRACTION = 32


def rows_by_dict_id_runs(dict_ids: np.ndarray, dtype=np.intp) -> np.ndarray | None:
    """``rows_by_dict_id`` (the same order) when the dictIds come in few runs of one value, else None: a
    compaction's rows are its inputs one after the other, each sorted by the sortedColumn already, so each
    dictId's rows are a handful of runs (8 values in 335 inputs: ~2,700 runs of 6.7M rows). The runs are
    ordered by their dictId (stably: a dictId's runs keep their row order) and the order is written from them,
    ~4x faster than a counting sort of every row. Told from the rows' descents first: unsorted rows (a Spark
    task's) have many, and leave after one pass."""
    count = len(dict_ids)
    limit = count // RUNS_MAX_FRACTION
    if count < 2 or np.count_nonzero(dict_ids[1:] < dict_ids[:-1]) > limit:
        return None
    changes = np.flatnonzero(dict_ids[1:] != dict_ids[:-1])
    if len(changes) > limit:
        return None
    starts = np.empty(len(changes) + 1, dtype=np.intp)
    starts[0] = 0
    np.add(changes, 1, out=starts[1:])
    lengths = np.diff(starts, append=count)
    by_id = np.argsort(dict_ids[starts], kind="stable")
    starts, lengths = starts[by_id], lengths[by_id]
    # the order as a running sum of steps: +1 inside a run, and at a run's first place the jump from the
    # previous run's last row to its first
    out = np.ones(count, dtype=dtype)
    places = np.cumsum(lengths)
    places -= lengths
    out[0] = starts[0]
    out[places[1:]] = starts[1:] - starts[:-1] - lengths[:-1] + 1
    np.cumsum(out, out=out)
    return out
