"""Column dictionaries: the distinct values in Pinot's order, dictIds per value, and the ``.dict`` bytes.

Order per stored type (SEGMENT_FORMAT.md 4.1): numeric for INT/LONG/FLOAT/DOUBLE, ``BigDecimal.compareTo``
for BIG_DECIMAL, ``String.compareTo`` (UTF-16 code units) for STRING, unsigned lexicographic for BYTES.
Layouts: fixed-width big-endian numbers (4.2), NUL-padded fixed-width entries (4.3) and the ``.vl;``
var-length layout (4.4).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import numpy.ma  # noqa: F401 (pa.array(ndarray) imports it on first use, ~20 ms: at import, not mid-build)
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.java_text import (BigDecimalError, big_decimal_string, java_sort_key, parse_big_decimal, to_decimal,
                                    utf8_needs_java_order)
from type_mapping.stored import offsets_and_data, offsets_view

from . import bigdecimal
from .bitpack import byte_view
from .format import VAR_LENGTH_DICTIONARY_MAGIC
from .counted_numbers import OFFSET_BLOCK as _OFFSET_BLOCK
from .counted_numbers import SAMPLE_BLOCK_SIZE as _SAMPLE_BLOCK_SIZE
from .counted_numbers import SAMPLE_BLOCKS as _SAMPLE_BLOCKS
from .counted_numbers import SAMPLE_PER_VALUE as _SAMPLE_PER_VALUE
from .counted_numbers import distinct_by_counting as _distinct_by_counting
from .counted_numbers import distinct_of_decimals as _distinct_of_decimals
from .counted_numbers import running_ranks as _running_ranks
from .counted_numbers import sample_blocks as _sample
from .gather import gather
from type_mapping.errors import PinotSinkError

NUMPY_BIG_ENDIAN = {"INT": ">i4", "LONG": ">i8", "FLOAT": ">f4", "DOUBLE": ">f8"}
NUMPY_NATIVE = {"INT": np.int32, "LONG": np.int64, "FLOAT": np.float32, "DOUBLE": np.float64}
VAR_LENGTH_VERSION = 1


class ColumnValueError(PinotSinkError, ValueError):
    """A value Pinot cannot store; the message names the column (and the row where known)."""


@dataclass
class Dictionary:
    """Distinct values of a column (flattened for multi-value) in Pinot's order.

    ``values`` is an Arrow array of the stored type (BIG_DECIMAL: the canonical decimal text),
    ``dict_ids`` the dictId of every (flattened) value, ``serialized_lengths`` the byte length each
    distinct value takes in a dictionary or raw index (None for fixed-width types), and
    ``serialized`` the per-value bytes for BIG_DECIMAL (whose bytes are not the text), ``padded``
    (when the builder has it anyway) one row per distinct value, NUL-padded to the longest one.
    """

    stored_type: str
    values: pa.Array
    dict_ids: np.ndarray | None  # None: built for the stats of a raw column (``ids=False``)
    serialized_lengths: np.ndarray | None = None
    serialized: list[bytes] | None = None
    padded: np.ndarray | None = None
    is_ascii: bool | None = None  # STRING: known already (None: stats computes it)
    input_sorted: bool | None = None  # without dict_ids: were the values non-decreasing
    input_count: int | None = None  # without dict_ids: how many values there were

    @property
    def cardinality(self) -> int:
        return len(self.values)


def build_dictionary(flat: pa.Array, stored_type: str, column: str, ids: bool = True) -> Dictionary:
    """Distinct values and dictIds of ``flat`` (one stored-type array, no nulls). ``ids=False``: a raw
    column only needs the distinct values for its stats, which numbers get from a plain sort."""
    if stored_type in NUMPY_NATIVE:
        return _numeric(flat, stored_type, column, ids)
    if stored_type == "BIG_DECIMAL":
        return _big_decimal(flat, column)
    if stored_type in ("STRING", "BYTES"):
        return _binary_like(flat, stored_type, column)
    raise ColumnValueError(f"column {column!r}: stored type {stored_type} has no dictionary support")


def _numeric(flat: pa.Array, stored_type: str, column: str, ids: bool = True) -> Dictionary:
    values = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=NUMPY_NATIVE[stored_type])
    bounds = None  # floats: (min, max), which both the checks and the decimals' counting use
    if stored_type in ("FLOAT", "DOUBLE") and len(values):
        bounds = values.min(), values.max()
        if np.isnan(bounds[0]):  # the minimum of values with a NaN is NaN: no pass of its own
            raise ColumnValueError(
                f"column {column!r}: NaN at value #{int(np.argmax(np.isnan(values)))}; Pinot stores NaN as null "
                f"(the type mapping must turn it into the default null value)"
            )
        if bounds[0] <= 0 <= bounds[1]:  # a -0.0 is between them (only there): -0.0 -> 0.0, as Pinot's ingestion
            values = values + values.dtype.type(0.0)
    if non_decreasing(values):
        distinct, dict_ids = _distinct_of_sorted(values, ids)
        if dict_ids is None:
            return Dictionary(stored_type, pa.array(distinct), None, input_sorted=True, input_count=len(values))
    elif (counted := _distinct_by_counting(values, ids) if bounds is None
                     else _distinct_of_decimals(values, bounds, ids)) is not None:
        distinct, dict_ids = counted
        if dict_ids is None:
            return Dictionary(stored_type, pa.array(distinct), None, input_sorted=False, input_count=len(values))
    elif not ids:
        if _looks_low_cardinality(values):  # hash out the distinct values, then sort only those
            distinct = np.sort(pc.unique(pa.array(values)).to_numpy(zero_copy_only=False))
        else:
            distinct = _distinct_in_place(np.sort(values))
        return Dictionary(stored_type, pa.array(distinct), None, input_sorted=False, input_count=len(values))
    elif _looks_low_cardinality(values):
        distinct, dict_ids = _distinct_by_hash(values)
    else:
        distinct, dict_ids = _distinct_by_packed_sort(values)
    return Dictionary(stored_type, pa.array(distinct), dict_ids.astype(np.int32, copy=False))


_SORTED_PROBE = 1024  # values checked first for order: an unsorted column shows it there, before a whole pass


def non_decreasing(values: np.ndarray) -> bool:
    """Whether ``values`` never decrease (also empty and single-value arrays)."""
    head = values[: _SORTED_PROBE + 1]
    if not bool((head[1:] >= head[:-1]).all()):
        return False
    return len(values) == len(head) or bool((values[1:] >= values[:-1]).all())


# Cardinality guess from a sample: when most sampled values repeat, hashing every value and sorting
# only the distinct ones beats sorting all values. The result is the same either way; only speed differs.
_LOW_CARDINALITY_FRACTION = 0.9


def _distinct_count(values: np.ndarray) -> int:
    """How many distinct values (numbers; no NaN). Integers by Arrow's hash, where numpy's unique hashes them
    with FNV-1a at several times the instructions (~190 per value, against ~40); floats by numpy's sort."""
    if values.dtype.kind in "iu":
        return len(pc.unique(pa.array(values)))
    return len(np.unique(values))


def _looks_low_cardinality(values: np.ndarray) -> bool:
    sample = np.concatenate(_sample(values))
    return _distinct_count(sample) < _LOW_CARDINALITY_FRACTION * len(sample)


def _change_flags(sorted_values: np.ndarray) -> np.ndarray:
    """True where a sorted array starts a new distinct value (rows of a 2-D array compare whole)."""
    flags = np.empty(len(sorted_values), dtype=bool)
    if len(flags):
        flags[0] = True
        differs = sorted_values[1:] != sorted_values[:-1]
        flags[1:] = differs.any(axis=1) if differs.ndim == 2 else differs
    return flags


def _sorted_ranks(flags: np.ndarray) -> np.ndarray:
    """The dictId of each sorted position, from the flags of the positions that start a new value."""
    if flags.all():  # all distinct (ids, timestamps): cheaper than a running sum
        return np.arange(len(flags), dtype=np.int32)
    return _running_ranks(flags)


def _distinct_of_sorted(values: np.ndarray, ids: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Distinct values and (with ``ids``) dictIds of a non-decreasing array, in one pass."""
    flags = _change_flags(values)
    return (values if flags.all() else values[flags]), (_sorted_ranks(flags) if ids else None)


def _distinct_in_place(ordered: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array (its own copy): moved to its front a block at a time, not gathered
    into a new one (a raw high-cardinality LONG column's sorted copy and its distinct copy were two columns'
    bytes at once: a 64mb compaction's order_id, 30 MB); all distinct, it is the array itself."""
    flags = _change_flags(ordered)
    if flags.all():
        return ordered
    write = 0
    for start in range(0, len(ordered), _OFFSET_BLOCK):
        kept = ordered[start:start + _OFFSET_BLOCK][flags[start:start + _OFFSET_BLOCK]]  # a copy: no overlap
        ordered[write:write + len(kept)] = kept
        write += len(kept)
    # a small remainder is copied out, so that the sorted copy's buffer does not stay behind it
    return ordered[:write].copy() if 2 * write < len(ordered) else ordered[:write]


def _distinct_by_hash(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pc.dictionary_encode`` (hash, first-seen order), then sort the few distinct values and remap."""
    encoded = pc.dictionary_encode(pa.array(values))
    distinct = encoded.dictionary.to_numpy(zero_copy_only=False)
    order = np.argsort(distinct, kind="stable")
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    return distinct[order], gather(_ranks(order), indices)


def _order_preserving_unsigned(values: np.ndarray) -> np.ndarray:
    """Unsigned integers of the same width whose order is the values' numeric order (no NaN, no -0.0)."""
    width = values.dtype.itemsize
    signed = values.view(f"i{width}")
    sign = np.array(-(1 << (8 * width - 1)), dtype=signed.dtype)
    if values.dtype.kind == "f":  # negative floats: every bit flipped; the others: the sign bit set
        flip = signed >> (8 * width - 1)  # -1 for negative values, 0 otherwise
        flip &= ~sign
        flip ^= signed
        flip ^= sign
        return flip.view(f"u{width}")
    return (signed ^ sign).view(f"u{width}")


def _from_order_preserving_unsigned(keys: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The inverse of ``_order_preserving_unsigned``."""
    width = dtype.itemsize
    signed = keys.view(f"i{width}") ^ np.array(-(1 << (8 * width - 1)), dtype=f"i{width}")
    if dtype.kind == "f":  # now negative values have every bit but the sign flipped
        signed ^= (signed >> (8 * width - 1)) & np.array((1 << (8 * width - 1)) - 1, dtype=f"i{width}")
    return signed.view(dtype)


def _distinct_by_packed_sort(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values and dictIds by sorting (key, row) pairs packed into one uint64: numpy's sort is
    several times faster than its argsort, and the row comes back from the low bits. The key is the
    value's order-preserving unsigned form less the minimum; when it and the row number need more
    than 64 bits, its low bits are dropped and only the rows that then tie are sorted by the whole key."""
    count = len(values)
    keys = _order_preserving_unsigned(values)
    low = keys.min()
    relative = (keys - low).astype(np.uint64)
    row_bits = max(1, (count - 1).bit_length())
    dropped = max(0, int(keys.max() - low).bit_length() + row_bits - 64)
    packed = (relative >> np.uint64(dropped) if dropped else relative) << np.uint64(row_bits)
    packed |= np.arange(count, dtype=np.uint64)
    packed.sort()
    order = (packed & np.uint64((1 << row_bits) - 1)).astype(np.intp)
    flags = _change_flags(packed >> np.uint64(row_bits))
    if dropped and not flags.all():
        tie = ~flags[1:]
        in_run = np.zeros(count, dtype=bool)
        in_run[1:] |= tie
        in_run[:-1] |= tie
        tied = order[in_run]  # whole runs, ascending by the kept bits, so they stay in place
        whole = relative[tied]
        sub_order = np.argsort(whole)
        order[in_run] = tied[sub_order]
        flags[in_run] = _change_flags(whole[sub_order])  # a run's first row differs from the row before
    dict_ids = np.empty(count, dtype=np.int32)
    dict_ids[order] = _sorted_ranks(flags)
    if dropped:
        return values[order[flags]], dict_ids
    # The sorted keys are whole: the distinct values come back from them without a random gather.
    distinct_keys = (packed[flags] >> np.uint64(row_bits)).astype(keys.dtype) + low
    return _from_order_preserving_unsigned(distinct_keys, values.dtype), dict_ids


def _ranks(order: np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank


def _has_nul(strings: pa.Array) -> bool:
    data = offsets_and_data(strings)[1]
    return bool(data.size) and int(data.min()) == 0


def _reject_nul(distinct: pa.Array, column: str) -> None:
    # Dictionaries pad with NUL and readers cut at it; Pinot's ingestion truncates at the first NUL.
    if _has_nul(distinct):
        bad = next(v for v in distinct.to_pylist() if "\0" in v)
        raise ColumnValueError(f"column {column!r}: value {bad[:40]!r} contains a NUL character, which Pinot "
                               "cannot store (its ingestion cuts the string at the first NUL)")


# The sort path for strings and BYTES: every value NUL-padded to a whole number of 8-byte words, sorted as
# big-endian uint64 keys: by one word, with the rows that tie on it settled by all words. Only for values
# of at most _SORT_KEY_MAX_BYTES, when the padded matrix stays within _SORT_KEY_MAX_INFLATION times the
# data, when most values look distinct (otherwise hashing and sorting only the distinct values is
# cheaper), and when a sample shows few ties on the sort word after the bytes all values share (many
# ties over long keys make lexsort slower than Arrow's sort).
_SORT_KEY_MAX_BYTES = 64
_SORT_KEY_MAX_INFLATION = 4
_SORT_KEY_MAX_TIES = 0.1  # sampled distinct values that share their sort word with another one
_CHEAP_TIE_WORDS = 2  # ties over at most this many words are cheap to settle whatever their number


def _sort_by_keys(flat: pa.Array, stored_type: str, column: str) -> Dictionary | None:
    """High-cardinality strings (or BYTES of one length): sort all values by fixed-width keys instead
    of hashing them.

    NUL padding keeps the order of the UTF-8 bytes (no STRING holds a NUL, checked here; BYTES need no
    padding but to whole words, equal for all), and UTF-8 byte order is Java's order when no value has
    a supplementary character (checked too: those columns take the general path). Returns None when
    the column does not fit this path.
    """
    count = len(flat)
    if count < 2:
        return None
    sample = pc.unique(pa.chunked_array(_sample(flat), type=flat.type))
    if len(sample) < _LOW_CARDINALITY_FRACTION * min(count, _SAMPLE_BLOCKS * _SAMPLE_BLOCK_SIZE):
        return None
    offsets, data = offsets_and_data(flat)
    lengths = np.diff(offsets)
    width = int(lengths.max())
    words = max(1, -(-width // 8))
    if width > _SORT_KEY_MAX_BYTES or count * words * 8 > _SORT_KEY_MAX_INFLATION * max(data.size, count * 8):
        return None
    top = int(data.max()) if data.size else 0
    if stored_type == "BYTES":
        if int(lengths.min()) != width:  # padding would make b"a" and b"a\0" one key
            return None
    elif top >= 0xF0:  # a supplementary character: Java orders by UTF-16
        return None
    elif data.size and int(data.min()) == 0:
        _reject_nul(flat, column)
    sample_offsets, sample_data = offsets_and_data(sample.combine_chunks() if isinstance(sample, pa.ChunkedArray)
                                                   else sample)
    sample_matrix = _padded_matrix(sample_data, sample_offsets, words * 8)
    shared = _common_prefix(sample_matrix)
    sample_words = _key_word(sample_matrix, shared)
    ties = len(sample_words) - _distinct_count(sample_words)
    if ties > _SORT_KEY_MAX_TIES * len(sample_words) and words - shared // 8 > _CHEAP_TIE_WORDS:
        return None
    matrix = _padded_matrix(data, offsets, words * 8)
    shared = _common_prefix(matrix, shared)
    order, flags = _sorted_rows(matrix.view(">u8"), _key_word(matrix, shared))
    firsts = order[flags]
    dict_ids = np.empty(count, dtype=np.int32)
    dict_ids[order] = _sorted_ranks(flags)
    padded = np.take(matrix, firsts, axis=0)
    if padded.shape[1] != width:
        padded = np.ascontiguousarray(padded[:, :width])
    same_length = int(lengths.min()) == width
    distinct_lengths = np.full(len(firsts), width, dtype=lengths.dtype) if same_length else lengths[firsts]
    values = _strings_from_padded(padded, distinct_lengths, binary=stored_type == "BYTES")
    is_ascii = top < 0x80 if stored_type == "STRING" else None
    return Dictionary(stored_type, values, dict_ids, distinct_lengths, padded=padded, is_ascii=is_ascii)


def _common_prefix(matrix: np.ndarray, at_most: int | None = None) -> int:
    """How many leading bytes every row of ``matrix`` shares (checking only the first ``at_most``)."""
    columns = matrix.shape[1] if at_most is None else min(at_most, matrix.shape[1])
    if len(matrix) == 0 or columns == 0:
        return 0
    same = (matrix[:, :columns] == matrix[0, :columns]).all(axis=0)
    return columns if same.all() else int(np.argmin(same))


def _key_word(matrix: np.ndarray, start: int) -> np.ndarray:
    """Bytes ``start .. start + 8`` of every row as big-endian uint64 (zeros past the row's end)."""
    if start % 8 == 0 and start < matrix.shape[1]:
        return matrix.view(">u8")[:, start // 8].astype(np.uint64)
    window = np.zeros((len(matrix), 8), dtype=np.uint8)
    available = max(0, min(8, matrix.shape[1] - start))
    window[:, :available] = matrix[:, start : start + available]
    return window.view(">u8").reshape(-1).astype(np.uint64)


def _sorted_rows(keys: np.ndarray, sort_words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row order of a (rows, words) big-endian uint64 key matrix compared word by word, and the flags
    of the rows (in that order) that start a new distinct key. Sorts by ``sort_words`` (one word per
    row, taken after the bytes all rows share, so ordering by it agrees with the keys), then settles
    only the runs that tie on it by all words."""
    order = np.argsort(sort_words)
    flags = _change_flags(sort_words[order])
    if keys.shape[1] > 1 and not flags.all():
        tie = ~flags[1:]
        in_run = np.zeros(len(order), dtype=bool)
        in_run[1:] |= tie
        in_run[:-1] |= tie
        tied = order[in_run]  # whole runs, ascending by the sort word, so they stay in place
        sub = keys[tied].astype(np.uint64)
        sub_order = np.lexsort(sub.T[::-1])
        order[in_run] = tied[sub_order]
        # A run's first row differs from the row before it (another sort word); the rest compare whole.
        flags[in_run] = _change_flags(sub[sub_order])
    return order, flags


def _strings_from_padded(padded: np.ndarray, lengths: np.ndarray, binary: bool = False) -> pa.Array:
    """A string (or binary) array from NUL-padded rows and their lengths."""
    width = padded.shape[1]
    if len(lengths) and lengths.min() == width:  # one length: the rows are the data
        data = padded.reshape(-1)
        offsets = np.arange(len(lengths) + 1, dtype=np.int64) * width
    else:
        data = padded[np.arange(width) < lengths[:, None]]
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
    large = offsets[-1] >= 2**31
    arrow_type = (pa.large_binary() if large else pa.binary()) if binary else (pa.large_string() if large
                                                                             else pa.string())
    return pa.Array.from_buffers(arrow_type, len(lengths), [None, pa.py_buffer(offsets.astype(
        np.int64 if large else np.int32)), pa.py_buffer(np.ascontiguousarray(data))])


# Values of one length up to this many bytes are read as big-endian unsigned integers (their bytes' order):
# country or currency codes, hashes' prefixes. Up to 2 bytes the ids come by counting over all 65 536 keys.
_FIXED_KEY_MAX_BYTES = 8


def _by_fixed_width_keys(flat: pa.Array, stored_type: str, column: str) -> Dictionary | None:
    """Values that all have one length of at most 8 bytes: the distinct values and dictIds of their bytes
    read as big-endian integers, whose unsigned order is the bytes' order (Java's for strings without a
    supplementary character, checked; BYTES compare unsigned). Hashing (or counting) integers is several
    times cheaper than hashing strings. None when the values do not fit."""
    count = len(flat)
    if count < 2:
        return None
    offsets = offsets_view(flat)  # Arrow's, not rebased: a view (no int64 copy for a column that has one length)
    first = int(offsets[0])
    width = int(offsets[1]) - first
    if not 0 < width <= _FIXED_KEY_MAX_BYTES or int(offsets[-1]) - first != width * count:
        return None
    data = np.frombuffer(flat.buffers()[2], dtype=np.uint8)[first : first + width * count]
    top = int(data.max())
    if stored_type == "STRING":
        if top >= 0xF0:  # a supplementary character: Java orders by UTF-16
            return None
        if int(data.min()) == 0:
            _reject_nul(flat, column)
    if not (np.diff(offsets) == width).all():  # one length in total is not one length each
        return None
    rows = data.reshape(count, width)
    key_width = 1 if width == 1 else 2 if width == 2 else 4 if width <= 4 else 8
    if key_width == width:
        keys = rows.view(f">u{width}").reshape(count)
    else:
        padded_rows = np.zeros((count, key_width), dtype=np.uint8)
        padded_rows[:, :width] = rows
        keys = padded_rows.view(f">u{key_width}").reshape(count)
    keys = keys.astype(f"u{key_width}")  # native order for numpy and Arrow
    if key_width <= 2:
        distinct_keys, dict_ids = _counted_keys(keys, 1 << (8 * key_width))
    else:
        # the keys' numeric order is the bytes' order: a few distinct ones need no hash and no rank lookup
        distinct_keys = _sampled_distinct(keys)
        dict_ids = None if distinct_keys is None else _ids_among(keys, distinct_keys)
        if dict_ids is None:
            encoded = pc.dictionary_encode(pa.array(keys))
            first_seen = encoded.dictionary.to_numpy(zero_copy_only=False)
            order = np.argsort(first_seen)
            distinct_keys = first_seen[order]
            dict_ids = gather(_ranks(order), encoded.indices.to_numpy(zero_copy_only=False))
    padded = distinct_keys.astype(f">u{key_width}").view(np.uint8).reshape(len(distinct_keys), key_width)
    padded = np.ascontiguousarray(padded[:, :width])
    distinct_lengths = np.full(len(distinct_keys), width, dtype=np.int64)
    values = _strings_from_padded(padded, distinct_lengths, binary=stored_type == "BYTES")
    is_ascii = top < 0x80 if stored_type == "STRING" else None
    return Dictionary(stored_type, values, dict_ids, distinct_lengths, padded=padded, is_ascii=is_ascii)


def _counted_keys(keys: np.ndarray, table: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys (ascending, ``keys``' type) and int32 ranks of small unsigned ``keys`` (below ``table``), by
    a presence table. When a sample holds few distinct keys (country or currency codes) the table is the
    sample's: a key outside it gets rank -1, which sends the column to a count of every key; otherwise the
    sample's keys are all the keys, with no count over the column (about half the instructions)."""
    sample = np.concatenate(_sample(keys))
    # a byte per key, set at the sample's (bincount's int64 table of 65,536 keys is 512 KiB to zero, ~0.5 M)
    present = np.zeros(table, dtype=bool)
    present[sample] = True
    whole = len(sample) == len(keys)
    if not whole and np.count_nonzero(present) * _SAMPLE_PER_VALUE > len(sample):
        present, whole = np.bincount(keys, minlength=table) > 0, True  # many keys: count them all at once
    distinct = np.flatnonzero(present)
    if whole:
        rank = _running_ranks(present)
    else:  # a few keys (an eighth of the sample at most): their ranks set at them, -1 at every other key
        rank = np.full(table, -1, dtype=np.int32)
        rank[distinct] = np.arange(len(distinct), dtype=np.int32)
    dict_ids = gather(rank, keys)
    if not whole and int(dict_ids.min()) < 0:  # a key the sample missed: count every key
        present = np.bincount(keys, minlength=table) > 0
        distinct = np.flatnonzero(present)
        dict_ids = gather(_running_ranks(present), keys)
    return distinct.astype(keys.dtype), dict_ids


# Strings of several lengths, none over this many bytes (device names, tags, codes, "null"), are hashed as one
# 64-bit integer each instead of as strings: Arrow's hash of integers takes about a third of the instructions of
# its hash of short strings, and building the integers is a few vector passes.
_SHORT_KEY_MAX_BYTES = 8


def _by_short_keys(flat: pa.Array, column: str) -> Dictionary | None:
    """STRING values of at most 8 UTF-8 bytes (of any lengths): each value's bytes as one little-endian uint64,
    shifted to the top (a string holds no NUL, checked, so the integer is unique to the string; the empty
    string is 0), hashed by Arrow; only the distinct ones are decoded and sorted by their bytes, which is
    Java's order when no value has a supplementary character (checked). None when the values do not fit."""
    count = len(flat)
    if count < 2 or _SHORT_KEY_MAX_BYTES < 1:
        return None
    keys = np.empty(count, dtype=np.uint64)
    # A slice at a time: its offsets and working arrays, never arrays of the column's size beside the keys (this
    # runs in a build's peak, docs/performance.md "Task memory"). Any value too long or with a supplementary
    # character sends the column to another path; a NUL is rejected only when none does. The offsets are
    # Arrow's as they are (not rebased), into the whole data buffer, which the keys read in place.
    raw = offsets_view(flat)
    buffer = flat.buffers()[2]
    data = np.zeros(0, dtype=np.uint8) if buffer is None else np.frombuffer(buffer, dtype=np.uint8)
    top, has_nul = 0, False
    for at in range(0, count, _SHORT_KEY_SLICE):
        bits = raw[at : at + _SHORT_KEY_SLICE + 1].astype(np.int64)  # the offsets in bits: what the shifts take
        bits <<= 3
        lengths = np.diff(bits)
        if int(lengths.max()) > 8 * min(8, _SHORT_KEY_MAX_BYTES):
            return None
        used = data[bits[0] >> 3 : bits[-1] >> 3]
        if used.size:
            top = max(top, int(used.max()))
            if top >= 0xF0:  # a supplementary character: Java orders by UTF-16
                return None
            has_nul = has_nul or int(used.min()) == 0
        _short_keys(bits, lengths, data, keys[at : at + _SHORT_KEY_SLICE])
    if has_nul:
        _reject_nul(flat, column)
    dict_ids = None
    sampled = _sampled_distinct(keys)  # a few distinct values (device names, tags, codes): no hash
    if sampled is not None:
        order, rows, distinct_lengths = _decode_short_keys(sampled)
        dict_ids = _ids_among(keys, sampled[order])
    if dict_ids is None:
        encoded = pc.dictionary_encode(pa.array(keys))
        del keys
        order, rows, distinct_lengths = _decode_short_keys(encoded.dictionary.to_numpy(zero_copy_only=False))
        dict_ids = gather(_ranks(order), encoded.indices.to_numpy(zero_copy_only=False))
    values = _strings_from_padded(rows, distinct_lengths)
    return Dictionary("STRING", values, dict_ids, distinct_lengths, padded=rows, is_ascii=top < 0x80)


def _decode_short_keys(distinct: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The byte order of distinct ``_short_keys`` keys, and their values in that order as NUL-padded rows and
    lengths. A value's length is 8 less its key's leading zero bytes (low bytes, little-endian); shifted back
    down, the key's bytes are the value left-aligned and NUL-padded."""
    as_bytes = distinct.view(np.uint8).reshape(-1, 8)
    nonzero = as_bytes != 0
    lengths = np.where(nonzero.any(axis=1), 8 - np.argmax(nonzero, axis=1), 0).astype(np.int64)
    left_aligned = distinct >> ((np.uint64(64) - (lengths.astype(np.uint64) << np.uint64(3))))
    left_aligned[lengths == 0] = 0  # a shift by 64 gives 0 on numpy, but say so
    order = np.argsort(left_aligned.byteswap(), kind="stable")  # big-endian: numeric order is the bytes' order
    width = int(lengths.max())
    rows = np.ascontiguousarray(left_aligned[order].view(np.uint8).reshape(-1, 8)[:, :width])
    return order, rows, lengths[order]


# Integer keys with at most this many distinct values in a sample are matched against those values one at a
# time (a compare and an add per value and candidate, ~3.5 instructions) instead of hashed (~75 per value with
# the rank lookup); the result is exact either way: a key matching no candidate sends the column to the hash.
_FEW_DISTINCT = 16


def _sampled_distinct(keys: np.ndarray) -> np.ndarray | None:
    """The distinct values (ascending) of a sample of ``keys``, or None when there are over ``_FEW_DISTINCT``."""
    distinct = pc.unique(pa.array(np.concatenate(_sample(keys)))).to_numpy(zero_copy_only=False)  # Arrow's hash
    return np.sort(distinct) if len(distinct) <= _FEW_DISTINCT else None


def _ids_among(keys: np.ndarray, candidates: np.ndarray) -> np.ndarray | None:
    """The index in ``candidates`` (distinct, at most 254) of every key, as int32 dictIds; None when some key
    is none of them. Each key matches at most one candidate: the sum of (index + 1) over the candidates a key
    matches is its index + 1, or 0 when it matched none (one minimum at the end, not a count per candidate)."""
    ids = None
    equal = np.empty(len(keys), dtype=np.bool_)
    for i, candidate in enumerate(candidates):
        np.equal(keys, candidate, out=equal)
        hits = equal.view(np.uint8)
        if ids is None:  # the first candidate's hits start the sum (no zeroed array)
            ids, equal = hits, np.empty(len(keys), dtype=np.bool_)
        else:
            hits *= np.uint8(i + 1)
            ids += hits
    if ids is None or int(ids.min()) == 0:
        return None
    dict_ids = ids.astype(np.int32)
    dict_ids -= 1
    return dict_ids


_SHORT_KEY_SLICE = 1 << 16  # values per slice of _short_keys


def _short_keys(bits: np.ndarray, lengths: np.ndarray, data: np.ndarray, keys: np.ndarray) -> None:
    """``keys`` of the values at bit offsets ``bits`` (int64, 8 times their byte offsets into ``data``; ``lengths``
    their differences, overwritten): each value's bytes as one uint64, shifted to the top, the bytes after it
    shifted out."""
    # Eight bytes from any byte offset: two aligned words of the data, shifted together. The data's whole words
    # are read in place (a copy is ~1 instruction a byte); only values that end in its last partial word, or
    # data that is not 8-byte aligned (np.take would copy the whole buffer), take a zero-padded copy of theirs.
    whole = data.size // 8 * 8 if data.ctypes.data % 8 == 0 else 0
    body = int(np.searchsorted(bits[1:], 8 * whole, side="right")) if whole >= 16 else 0
    if body < len(keys):
        first = int(bits[body]) >> 3
        size = (int(bits[-1]) >> 3) - first
        padded = np.empty(-(-(size + 16) // 8) * 8, dtype=np.uint8)  # not zeros: a memset of the whole
        padded[:size] = data[first : first + size]
        padded[size:] = 0
        _short_keys_in_words(bits[body:] - 8 * first, lengths[body:], padded.view("<u8"), keys[body:])
    if body:
        _short_keys_in_words(bits[: body + 1], lengths[:body], data[:whole].view("<u8"), keys[:body])


def _short_keys_in_words(bits: np.ndarray, lengths: np.ndarray, words: np.ndarray, keys: np.ndarray) -> None:
    """``_short_keys`` for values that each end within ``words`` (at least two)."""
    starts = bits[:-1]
    index = starts >> 6  # the word of the value's first byte
    # bit offsets are non-negative int64: their bit patterns are the uint64 values (views, not converted copies)
    shift = np.bitwise_and(starts, 63).view(np.uint64)  # where the value starts in that word
    np.take(words, index, out=keys, mode="clip")  # in range; "raise" would take through a copy
    keys >>= shift
    # The next word (a view from the second word: no index + 1), its low bytes above the first's high ones; a
    # value that needs none of it may be at the last word, whose next is clipped, and shifted out below.
    high = np.take(words[1:], index, mode="clip")
    del index
    np.subtract(np.uint64(64), shift, out=shift)
    high <<= shift  # a shift of 64 (a value at a word's start) gives 0 on numpy: nothing of the next word
    keys |= high
    del high, shift
    # the value's bytes to the top, the bytes after it shifted out (an empty value: a shift by 64, 0)
    top = lengths.view(np.uint64)
    np.subtract(np.uint64(64), top, out=top)
    keys <<= top


# Columns of this many values or fewer are ordered in Python: a default merged into a column's distinct values
# (builder._dictionary_with: coupon's 2, tags' 6) would pay the vector paths' ~100 numpy and Arrow calls, ~0.6 M
# instructions, for a handful of values.
_FEW_VALUES = 16


def _few_values(flat: pa.Array, stored_type: str, column: str) -> Dictionary:
    """The dictionary of a few STRING / BYTES values, by Python's sort: Java's order for strings by their UTF-16
    code units (``java_sort_key``), BYTES unsigned as Python compares bytes."""
    items = flat.to_pylist()
    if stored_type == "STRING":
        if any("\0" in text for text in items):
            _reject_nul(flat, column)
        distinct = sorted(set(items), key=java_sort_key)
        values = pa.array(distinct, pa.string())
    else:
        distinct = sorted(set(items))
        values = pa.array(distinct, pa.binary())
    position = {value: i for i, value in enumerate(distinct)}
    dict_ids = np.array([position[value] for value in items], dtype=np.int32)
    return Dictionary(stored_type, values, dict_ids, pc.binary_length(values).to_numpy().astype(np.int64))


def _binary_like(flat: pa.Array, stored_type: str, column: str) -> Dictionary:
    if len(flat) <= _FEW_VALUES:
        return _few_values(flat, stored_type, column)
    fast = _by_fixed_width_keys(flat, stored_type, column)
    if fast is None and stored_type == "STRING":
        fast = _by_short_keys(flat, column)
    if fast is None:
        fast = _sort_by_keys(flat, stored_type, column)
    if fast is not None:
        return fast
    encoded = pc.dictionary_encode(flat)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    distinct = encoded.dictionary
    if pa.types.is_large_string(distinct.type) or pa.types.is_large_binary(distinct.type):
        distinct = distinct.cast(pa.string() if stored_type == "STRING" else pa.binary())
    if stored_type == "STRING":
        _reject_nul(distinct, column)
    # Arrow sorts strings by UTF-8 bytes (= code point order) and binaries as unsigned bytes, which
    # equals Java's order except for strings mixing supplementary and U+E000..U+FFFF characters.
    if stored_type == "STRING" and utf8_needs_java_order(offsets_and_data(distinct)[1]):
        texts = distinct.to_pylist()
        order = np.array(sorted(range(len(texts)), key=lambda i: java_sort_key(texts[i])), dtype=np.int64)
    else:
        order = pc.sort_indices(distinct).to_numpy()
    rank = _ranks(order)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    values = distinct.take(pa.array(order))
    lengths = pc.binary_length(values).to_numpy(zero_copy_only=False).astype(np.int64)
    return Dictionary(stored_type, values, gather(rank, indices), lengths)


# --- BIG_DECIMAL -----------------------------------------------------------------------------------


def _is_big_decimal(text: str) -> bool:
    try:
        parse_big_decimal(text)
    except BigDecimalError:
        return False
    return True


def _big_decimal(flat: pa.Array, column: str) -> Dictionary:
    encoded = pc.dictionary_encode(flat)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    texts = encoded.dictionary.to_pylist()
    try:
        parsed = [parse_big_decimal(t) for t in texts]
    except BigDecimalError:
        bad = next(t for t in texts if not _is_big_decimal(t))
        raise ColumnValueError(f"column {column!r}: {bad!r} is not a BIG_DECIMAL") from None
    # Distinct by BigDecimal.equals (value and scale): the canonical text identifies it.
    canonical = [big_decimal_string(v) for v in parsed]
    by_text: dict[str, tuple[int, int]] = {}
    for text, value in zip(canonical, parsed):
        by_text.setdefault(text, value)
    # BigDecimal.compareTo, then the scale (equal values of different scales are distinct entries).
    ordered = sorted(by_text, key=lambda t: (to_decimal(*by_text[t]), -by_text[t][1]))
    position = {text: i for i, text in enumerate(ordered)}
    rank = np.array([position[t] for t in canonical], dtype=np.int32)
    try:
        serialized = [bigdecimal.serialize(by_text[t]) for t in ordered]
    except BigDecimalError as exc:
        raise ColumnValueError(f"column {column!r}: BIG_DECIMAL {exc}") from None
    lengths = np.array([len(b) for b in serialized], dtype=np.int64)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    return Dictionary("BIG_DECIMAL", pa.array(ordered, pa.string()), rank[indices], lengths, serialized)


# --- serialisation ---------------------------------------------------------------------------------


def value_bytes(dictionary: Dictionary) -> tuple[np.ndarray, np.ndarray]:
    """All distinct values' bytes back to back and their offsets (var-width types)."""
    if dictionary.serialized is not None:
        data = np.frombuffer(b"".join(dictionary.serialized), dtype=np.uint8)
        offsets = np.zeros(len(dictionary.serialized) + 1, dtype=np.int64)
        np.cumsum(dictionary.serialized_lengths, out=offsets[1:])
        return data, offsets
    offsets, data = offsets_and_data(dictionary.values)
    return data, offsets


def uses_var_length(dictionary: Dictionary, configured: bool, optimize_type: bool) -> bool:
    """Pinot's choice (``DictionaryIndexType.shouldUseVarLengthDictionary`` and ``optimizeDictionaryType``)."""
    if dictionary.serialized_lengths is None:
        return False
    if configured:
        return True
    lengths = dictionary.serialized_lengths
    unequal = len(lengths) > 0 and lengths.min() != lengths.max()
    if dictionary.stored_type in ("BYTES", "BIG_DECIMAL"):
        return bool(unequal)
    return bool(optimize_type and unequal)


def entry_width(dictionary: Dictionary) -> int:
    """``lengthOfEachEntry``: 0 for fixed-width numbers, else the longest serialized value."""
    lengths = dictionary.serialized_lengths
    if lengths is None:
        return 0
    return int(lengths.max()) if len(lengths) else 0


def serialize_dictionary(dictionary: Dictionary, var_length: bool) -> memoryview | bytes:
    if dictionary.stored_type in NUMPY_BIG_ENDIAN:
        return byte_view(dictionary.values.to_numpy(zero_copy_only=False).astype(
            NUMPY_BIG_ENDIAN[dictionary.stored_type]))
    if not var_length and dictionary.padded is not None and dictionary.padded.shape[1] == entry_width(dictionary):
        return byte_view(dictionary.padded)
    data, offsets = value_bytes(dictionary)
    if var_length:
        return var_length_bytes(data, offsets)
    return padded_bytes(data, offsets, entry_width(dictionary))


def var_length_bytes(data: np.ndarray, offsets: np.ndarray) -> bytes:
    """``VarLengthValueWriter``: magic, version, count, data start 16, absolute int32 offsets, values."""
    count = len(offsets) - 1
    header_size = 16 + 4 * (count + 1)
    header = VAR_LENGTH_DICTIONARY_MAGIC + struct.pack(">iii", VAR_LENGTH_VERSION, count, 16)
    absolute = (offsets + header_size).astype(">i4")
    return header + absolute.tobytes() + data.tobytes()


def padded_bytes(data: np.ndarray, offsets: np.ndarray, width: int) -> bytes:
    """Each value left-aligned in ``width`` bytes, right-padded with NUL (vectorised scatter)."""
    return _padded_matrix(data, offsets, width).tobytes()


def _padded_matrix(data: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """One row per value, ``width`` bytes wide: a boolean mask selects each row's first ``length``
    cells, and row-major order makes the masked cells take the values' bytes in sequence. (Values of
    one length ``width`` give a read-only view of ``data``.)"""
    count = len(offsets) - 1
    lengths = np.diff(offsets)
    data = data[offsets[0] : offsets[-1]]
    if count and lengths.min() == lengths.max():  # equal lengths (ids, hashes): the data is the matrix
        same = int(lengths[0])
        if same == width:
            return data.reshape(count, width)
        matrix = np.zeros((count, width), dtype=np.uint8)
        matrix[:, :same] = data.reshape(count, same)
        return matrix
    matrix = np.zeros((count, width), dtype=np.uint8)
    if data.size:
        matrix[np.arange(width) < lengths[:, None]] = data
    return matrix
