"""Numbers' distinct values (and dictIds) without a sort, for ``dictionary``: integers over a small range by a
presence table (``distinct_by_counting``), floats with a fixed number of decimals as those integers
(``distinct_of_decimals``), each a block of values at a time; and the sample both decide from."""
from __future__ import annotations

import numpy as np



SAMPLE_BLOCKS, SAMPLE_BLOCK_SIZE = 4, 4096  # a sample: this many blocks of this many values


def sample_blocks(values):
    """A few contiguous blocks spread over ``values`` (numpy or Arrow), without copying."""
    count = len(values)
    size = SAMPLE_BLOCKS * SAMPLE_BLOCK_SIZE
    if count <= size:
        return [values]
    step = (count - SAMPLE_BLOCK_SIZE) // (SAMPLE_BLOCKS - 1)
    return [values[k * step : k * step + SAMPLE_BLOCK_SIZE] for k in range(SAMPLE_BLOCKS)]


def running_ranks(flags: np.ndarray) -> np.ndarray:
    """The running count of ``flags`` less one, as int32: the rank of each set entry among the set ones (a
    sorted position's dictId, a present key's in a presence table; meaningless where not set)."""
    rank = np.cumsum(flags, dtype=np.int32)
    rank -= 1
    return rank


# Integers spanning at most this many values per value counted (or _COUNTING_MIN_SPAN) take the counting
# path: a presence table over min..max, whose running sum is the dictId of every value. No sort and no hash:
# on 1M ids over 0..200k, 14 ms instead of 40 ms for the packed sort.
_COUNTING_SPAN_PER_VALUE = 1
# Distinct values only (a raw column's): a presence table of up to this many bytes a value, not the sort's
# copy of the values (8 bytes a LONG), which was the raw order_id's step of a 64mb compaction's build (its ids
# span a little more than its rows); the table's scan costs less than the sort too
_DISTINCT_SPAN_PER_VALUE = 4
_COUNTING_MIN_SPAN = 1 << 16


def counting_pays(span: int, count: int, ids: bool = True) -> bool:
    """Whether ``count`` integers spanning ``span`` values take the presence table (the rule above)."""
    return span <= max((_COUNTING_SPAN_PER_VALUE if ids else _DISTINCT_SPAN_PER_VALUE) * count, _COUNTING_MIN_SPAN)


def distinct_by_counting(values: np.ndarray, ids: bool, bounds: tuple[int, int] | None = None
                          ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Distinct values (ascending) and, with ``ids``, dictIds of integers whose range is small next to their
    count; None for floats, empty arrays and wide ranges. ``bounds``: their minimum and maximum, when known.
    A block of values at a time (``_offset_blocks``): a whole column's offsets were 8 bytes a value beside it."""
    if values.dtype.kind != "i" or not len(values):
        return None
    low, high = (int(values.min()), int(values.max())) if bounds is None else bounds
    span = high - low + 1
    if not counting_pays(span, len(values), ids):
        return None
    if span * SAMPLE_PER_VALUE <= SAMPLE_BLOCKS * SAMPLE_BLOCK_SIZE < len(values) and \
            _all_in_sample(values, low, span):
        # every value of min..max is in a sample (flags, codes, small counts): no count over all the values
        distinct = np.arange(low, high + 1, dtype=values.dtype)
        return distinct, (_offsets_int32(values, low) if ids else None)
    if span <= _COUNTING_MIN_SPAN:  # a small table: counting is about half the instructions of a scatter
        counts = np.zeros(span, dtype=np.intp)
        for offsets in _offset_blocks(values, low):
            counts += np.bincount(offsets, minlength=span)
        present = counts > 0
        del counts
    else:
        present = np.zeros(span, dtype=bool)
        for offsets in _offset_blocks(values, low):
            present[offsets] = True
    distinct = np.flatnonzero(present)
    distinct += low
    distinct = distinct.astype(values.dtype, copy=False)
    if not ids:
        return distinct, None
    if len(distinct) == span:  # every value of min..max present (codes, flags, small counts): dictId = offset
        return distinct, _offsets_int32(values, low)
    ranks = running_ranks(present)
    dict_ids = np.empty(len(values), dtype=np.int32)
    at = 0
    for offsets in _offset_blocks(values, low):
        np.take(ranks, offsets, out=dict_ids[at:at + len(offsets)], mode="clip")  # gather()
        at += len(offsets)
    return distinct, dict_ids


OFFSET_BLOCK = 1 << 18  # values offset from the minimum at a time


def _offset_blocks(values: np.ndarray, low: int):
    """``values - low`` (each within 0..span-1: no overflow, any wrap-around cancels out), a block at a time."""
    low = values.dtype.type(low)
    for start in range(0, len(values), OFFSET_BLOCK):
        yield values[start:start + OFFSET_BLOCK] - low


def _offsets_int32(values: np.ndarray, low: int) -> np.ndarray:
    """``values - low`` as int32 (all within 0..span-1), cast a buffer at a time by the subtraction itself."""
    out = np.empty(len(values), dtype=np.int32)
    np.subtract(values, values.dtype.type(low), out=out, casting="unsafe")
    return out


# A range this many times smaller than the sample is likely to be all in it (few codes or flags).
SAMPLE_PER_VALUE = 8


# Floats with a fixed number of decimals (prices, amounts, rounded measures) are integers scaled down: each
# value v with v == rint(v * s) / s, checked exactly, maps to the integer rint(v * s), in the same order (both
# steps are monotonic) and one to one (two values of one integer k both equal k / s). Those integers take the
# counting path, with no sort and no hash (price's 20k distinct of 200k: 17.9 -> ~6 M instructions, Arrow's
# hash and its table's growth gone). The scale is the first that fits a sample; the column is then checked whole.
_DECIMAL_SCALES = (1, 10, 100, 1000, 10_000)


def distinct_of_decimals(values: np.ndarray, bounds: tuple, ids: bool
                          ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Distinct values (ascending) and, with ``ids``, dictIds of floats (no NaN; ``bounds`` their minimum and
    maximum) that are all integers over one of ``_DECIMAL_SCALES`` in a range the counting path takes; None
    otherwise."""
    sample = np.concatenate(sample_blocks(values))
    scale = next((s for s in _DECIMAL_SCALES if _scaled(sample, s) is not None), None)
    if scale is None:
        return None
    scale = values.dtype.type(scale)
    with np.errstate(over="ignore"):  # an infinity is out of the range
        low, high = np.rint(bounds[0] * scale), np.rint(bounds[1] * scale)  # the scaled values' (monotonic)
    if not -2.0**62 < low <= high < 2.0**62:  # finite, and exact as int64
        return None
    if not ids:  # the distinct values only: each block scaled, checked and counted, no scaled copy of the column
        counted = _distinct_of_scaled_blocks(values, scale, int(low), int(high))
    else:
        scaled = _scaled(values, scale)
        counted = None if scaled is None else distinct_by_counting(scaled.astype(np.int64), ids, (int(low), int(high)))
    if counted is None:
        return None
    integers, dict_ids = counted
    # the check's own division: each distinct value comes back exactly
    return integers.astype(values.dtype) / scale, dict_ids


def _distinct_of_scaled_blocks(values: np.ndarray, scale, low: int, high: int) -> tuple[np.ndarray, None] | None:
    """``distinct_by_counting(rint(values * scale), ids=False)`` when every value is its integer over ``scale``
    (None otherwise, or when the range is too wide), a block at a time: a raw DOUBLE column's scaled copy, its
    check and its integers were ~3x the column's bytes at once (a 64mb compaction's price, ~44 MB)."""
    span = high - low + 1
    if span > max(_COUNTING_SPAN_PER_VALUE * len(values), _COUNTING_MIN_SPAN):
        return None
    present = np.zeros(span, dtype=bool)
    for start in range(0, len(values), OFFSET_BLOCK):
        scaled = _scaled(values[start:start + OFFSET_BLOCK], scale)
        if scaled is None:
            return None
        offsets = scaled.astype(np.int64)
        offsets -= low
        present[offsets] = True
    distinct = np.flatnonzero(present)
    distinct += low
    return distinct, None


def _scaled(values: np.ndarray, scale) -> np.ndarray | None:
    """rint(values * scale) when every value equals it divided by ``scale``, else None."""
    scale = values.dtype.type(scale)
    with np.errstate(over="ignore", invalid="ignore"):  # infinities pass here: the caller checks the range
        scaled = values * scale
        np.rint(scaled, out=scaled)
        return scaled if bool((scaled / scale == values).all()) else None


def _all_in_sample(values: np.ndarray, low: int, span: int) -> bool:
    """Whether a sample of ``values`` (each in low..low+span-1) holds every one of them: then so do all of them."""
    offsets = np.concatenate(sample_blocks(values)) - values.dtype.type(low)
    return bool(np.count_nonzero(np.bincount(offsets, minlength=span)) == span)
