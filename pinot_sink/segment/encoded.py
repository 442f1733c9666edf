"""Dictionary-encoded input columns (Arrow ``dictionary``) of the builder: a single-value column whose rows
come as dictIds over a dictionary of stored values (any order, repeats and unused values allowed), or a
multi-value one as lists of them (``list<dictionary>``, ``dictionary_of_encoded_lists``), as a compaction reads
them from segments. Where nothing but its dictIds and dictionary is needed, the builder takes
its dictionary from ``dictionary_of_encoded`` (work per distinct value, plus one remap of the dictIds) and never
decodes its rows; elsewhere ``decoded_unless_encodable`` decodes it first. The bytes are those of the decoded
rows either way (tests/segment/test_encoded_columns.py).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns

from .counted_numbers import counting_pays, running_ranks
from .dictionary import NUMPY_NATIVE, Dictionary, build_dictionary
from .index_policy import has_dict_ids
from .table_config import TableIndexSettings


# dictIds renumbered in place this many at a time: np.take copies int32 indices to intp first, a whole
# column's 8 bytes a row at once (15 MB of a 64mb compaction's build) where a block's are 2 MB
_RENUMBER_BLOCK = 1 << 18


def dictionary_of_encoded(column: pa.ChunkedArray, stored_type: str, name: str, narrow: bool = True) -> Dictionary:
    """What ``build_dictionary`` gives for the decoded values of a dictionary-encoded single-value column
    (Arrow ``dictionary`` chunks, no nulls), without decoding its rows: the dictionary of its chunks'
    dictionaries put together (any order, repeats allowed), each row's dictId mapped through it, and values
    no row uses left out. A compaction's rows come this way (a segment's dictIds and its dictionary): the
    work is per distinct value, not per row. ``narrow``: the dictIds in the smallest signed integer type that
    holds the chunks' dictionaries together (int8 up to 127 values), not int32: a compaction's build holds
    every row it has not built yet beside them, and each dictIds array is gathered once more by the segment's
    order (a 64mb compaction's flag and code columns: 2 x 7.5 MB each as int32, 2 x 1.9 MB as int8); every
    writer of a dictionary column takes any integer width."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    if not chunks:
        return build_dictionary(pa.array([], type=column.type.value_type), stored_type, name)
    runs = _dictionary_of_ordered_runs(chunks, len(column), stored_type, narrow)
    if runs is not None:
        return runs
    counted = _dictionary_of_counted(chunks, stored_type, len(column), narrow)
    if counted is not None:
        return counted
    merged = build_dictionary(pa.concat_arrays([chunk.dictionary for chunk in chunks]), stored_type, name)
    cardinality = merged.cardinality
    ids = np.empty(len(column), dtype=_narrow_ids(cardinality) if narrow else merged.dict_ids.dtype)
    # The merged values some row uses; once every one is, the later chunks' rows need no look (a low-cardinality
    # column's first input usually uses them all: ~40 us of 20k rows spared a chunk).
    used = np.zeros(cardinality, dtype=np.bool_)
    unseen = cardinality
    at = offset = 0
    for chunk in chunks:
        indices = chunk.indices.to_numpy(zero_copy_only=False)
        mapping = merged.dict_ids[offset:offset + len(chunk.dictionary)]
        if len(mapping) == cardinality and (mapping == np.arange(cardinality)).all():
            ids[at:at + len(chunk)] = indices  # the chunk's dictionary is the merged one: its dictIds stay
        else:
            ids[at:at + len(chunk)] = mapping[indices]
        if unseen:
            chunk_used = np.zeros(len(chunk.dictionary), dtype=np.bool_)  # small: the chunk's dictionary
            chunk_used[indices] = True
            used[mapping[chunk_used]] = True
            unseen = cardinality - int(np.count_nonzero(used))  # (a dictionary may repeat a value)
        at += len(chunk)
        offset += len(chunk.dictionary)
    if unseen:  # a dictionary of the used values only, ids renumbered
        # Each step lets go of what it replaces first: a time column's merge (every value distinct, the first
        # chunk the rest of an input cut before, most of its dictionary unused) held ~4x its dictIds' bytes
        # at once, the last and largest column's step of a compaction's build (docs/performance-log.md)
        merged.dict_ids = mapping = None
        renumber = np.cumsum(used, dtype=ids.dtype)
        renumber -= 1
        kept = merged.values.filter(pa.array(used))
        merged = used = None
        merged = build_dictionary(kept, stored_type, name)
        del kept
        for start in range(0, len(ids), _RENUMBER_BLOCK):  # in place: every id is in range
            block = ids[start:start + _RENUMBER_BLOCK]
            np.take(renumber, block, out=block, mode="clip")
    merged.dict_ids = ids
    return merged


def _dictionary_of_ordered_runs(chunks: list[pa.DictionaryArray], rows: int, stored_type: str,
                                narrow: bool) -> Dictionary | None:
    """``dictionary_of_encoded`` where the chunks' dictionaries are integers, each strictly increasing, and,
    taken in the order of their first values, none overlaps the next: a time column's (each input segment a
    stretch of time, its dictionary sorted). The merged dictionary is then the used values of each dictionary
    one run after the other, and a chunk's dictIds map through its own used values' running count: no
    dictionary of all the chunks' values put together, no renumbering. Working memory is the result's (the
    values used and the dictIds) and one chunk's map: the whole merge held ~4x the dictIds' bytes beside the
    rows, a 16mb compaction's build's largest step (docs/performance-log.md). None where it does not apply
    (overlapping or unsorted dictionaries, repeats, other types): the general merge then."""
    if stored_type not in ("INT", "LONG"):
        return None
    dtype = np.dtype(NUMPY_NATIVE[stored_type])
    if any(chunk.dictionary.type != pa.from_numpy_dtype(dtype) or chunk.dictionary.null_count for chunk in chunks):
        return None
    dictionaries = [chunk.dictionary.to_numpy(zero_copy_only=False) for chunk in chunks]
    if any(not len(values) for values in dictionaries):
        return None
    runs = sorted(range(len(chunks)), key=lambda i: dictionaries[i][0])
    last = None
    for i in runs:
        values = dictionaries[i]
        if (last is not None and values[0] <= last) or not bool((values[1:] > values[:-1]).all()):
            return None
        last = values[-1]
    # Which values of each dictionary rows use, and where each run's used values start in the merged one; a
    # dictionary shared by several chunks (the rest of an input cut before, the same buffers) would repeat
    # values across runs and was refused above
    used = []
    for chunk, values in zip(chunks, dictionaries):
        flags = np.zeros(len(values), dtype=np.bool_)
        flags[chunk.indices.to_numpy(zero_copy_only=False)] = True
        used.append(flags)
    counts = [int(np.count_nonzero(flags)) for flags in used]
    starts, cardinality = {}, 0
    for i in runs:
        starts[i] = cardinality
        cardinality += counts[i]
    merged = np.empty(cardinality, dtype=dtype)
    for i in runs:
        np.compress(used[i], dictionaries[i], out=merged[starts[i]:starts[i] + counts[i]])
    ids = np.empty(rows, dtype=_narrow_ids(cardinality) if narrow else np.int32)
    at = 0
    for i, chunk in enumerate(chunks):
        mapping = np.cumsum(used[i], dtype=np.int32)  # a chunk's dictionary's length: small
        mapping += starts[i] - 1
        # every index is in range (the flags above were set by them): no bounds check, no buffered copy
        np.take(mapping.astype(ids.dtype, copy=False), chunk.indices.to_numpy(zero_copy_only=False),
                out=ids[at:at + len(chunk)], mode="clip")
        at += len(chunk)
    return Dictionary(stored_type, pa.array(merged), ids)


# Dictionaries of fewer values than this together are merged as they are (a low-cardinality column's: a
# few values an input, cheaper to concatenate than to count chunk by chunk)
_COUNTED_MIN_VALUES = 1 << 16


def _dictionary_of_counted(chunks: list[pa.DictionaryArray], stored_type: str, rows: int,
                           narrow: bool) -> Dictionary | None:
    """``dictionary_of_encoded`` of integer chunks whose values span a small range next to their
    dictionaries' values together (``counted_numbers.counting_pays``: customer ids, product ids), else None:
    one presence table over min..max marked with each chunk's used values, whose running count is every
    value's dictId, then each chunk's dictIds through its values' ranks. The dictionaries are never put
    together (335 inputs' customer ids: 6.4M values, and a dictId of each, where the table has 200k)."""
    if stored_type not in ("INT", "LONG") or \
            sum(len(chunk.dictionary) for chunk in chunks) < _COUNTED_MIN_VALUES:
        return None
    dtype = NUMPY_NATIVE[stored_type]
    numbers = []
    for chunk in chunks:
        if not len(chunk.dictionary) or chunk.dictionary.null_count:
            return None
        numbers.append(np.asarray(chunk.dictionary.to_numpy(zero_copy_only=False), dtype=dtype))
    low, high = min(int(v.min()) for v in numbers), max(int(v.max()) for v in numbers)
    span = high - low + 1
    if not counting_pays(span, sum(len(v) for v in numbers)):
        return None
    present = np.zeros(span, dtype=np.bool_)
    missing = span  # values of min..max no row has shown yet: once none, the later chunks add nothing
    for chunk, values in zip(chunks, numbers):
        if not missing:
            break
        used = np.zeros(len(values), dtype=np.bool_)
        used[chunk.indices.to_numpy(zero_copy_only=False)] = True
        present[np.subtract(values[used], low, dtype=np.int64)] = True  # (int64: an INT's offset may not fit)
        missing = span - int(np.count_nonzero(present))
    # every value of min..max present: a value's dictId is its offset from the least
    ranks = running_ranks(present) if missing else None
    ids = np.empty(rows, dtype=_narrow_ids(span - missing) if narrow else np.int32)
    at = 0
    for chunk, values in zip(chunks, numbers):
        # the dictIds of the chunk's values (a value no row uses gets its neighbour's: never looked up)
        offsets = np.subtract(values, low, dtype=np.int64)
        mapping = (offsets if ranks is None else np.take(ranks, offsets, mode="clip")).astype(ids.dtype)
        np.take(mapping, chunk.indices.to_numpy(zero_copy_only=False), out=ids[at:at + len(chunk)], mode="clip")
        at += len(chunk)
    distinct = np.flatnonzero(present)
    distinct += low
    return Dictionary(stored_type, pa.array(distinct.astype(dtype)), ids)


def _narrow_ids(cardinality: int) -> np.dtype:
    """The smallest signed integer type that holds dictIds ``0 .. cardinality - 1`` (signed: the builder's
    dictIds are non-negative signed integers everywhere)."""
    for dtype in (np.int8, np.int16):
        if cardinality <= np.iinfo(dtype).max + 1:
            return np.dtype(dtype)
    return np.dtype(np.int32)


def is_encoded_list(data_type: pa.DataType) -> bool:
    """A multi-value column whose values are dictionary-encoded (``list<dictionary<...>>``)."""
    return (pa.types.is_list(data_type) or pa.types.is_large_list(data_type)) and \
        pa.types.is_dictionary(data_type.value_type)


def dictionary_of_encoded_lists(column: pa.ChunkedArray, stored_type: str,
                                name: str) -> tuple[Dictionary, np.ndarray]:
    """A dictionary-encoded multi-value column's dictionary (dictIds of its values, row after row) and its
    rows' value counts: what the builder gets from the decoded lists' values and lengths. Its dictIds come as
    narrow as the cardinality allows (``narrow``): a list column's values outnumber its rows, its dictIds and
    their reorder were the largest arrays of a 64mb compaction's build beside the rows (int8: a quarter of
    int32's 10 MB each; docs/performance-log.md), and its writers (the forward index's bit packing, the
    statistics, an inverted index) take any integer width."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    values = pa.chunked_array([chunk.flatten() for chunk in chunks], column.type.value_type)
    lengths = [pc.list_value_length(chunk).to_numpy(zero_copy_only=False) for chunk in chunks]
    return (dictionary_of_encoded(values, stored_type, name),
            np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int32))


def decoded_unless_encodable(columns: PinotColumns, schema: PinotSchema, settings: TableIndexSettings,
                              star_columns: set[str]) -> PinotColumns:
    """The rows with every dictionary-encoded (Arrow ``dictionary``) column decoded but those built from their
    dictionary and dictIds alone (``dictionary_of_encoded``): single-value, surely dictionary-encoded in the
    segment, no default to fill, and nothing else reading their values (partitions, star-trees, TIMESTAMP
    indexes). The same bytes either way; the encoded ones skip the per-row work."""
    table = columns.table
    for spec in schema:
        column = table.column(spec.name)
        listed = is_encoded_list(column.type)
        if not (pa.types.is_dictionary(column.type) or listed):
            continue
        c = settings.columns[spec.name]
        heuristics = settings.optimize_dictionary or settings.optimize_dictionary_for_metrics
        if (spec.single_value != listed and has_dict_ids(c) and (c.inverted or not heuristics)
                and spec.name not in columns.defaults and spec.name not in star_columns
                and spec.name not in settings.partitions and not c.timestamp_granularities):
            continue
        table = table.set_column(table.schema.get_field_index(spec.name), spec.name, decoded_column(column))
    if table is columns.table:
        return columns
    return replace(columns, table=table)


def decoded_column(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary-encoded column (single- or multi-value) with its values decoded."""
    if pa.types.is_dictionary(column.type):
        return pa.chunked_array([chunk.dictionary_decode() for chunk in column.chunks], column.type.value_type)
    if is_encoded_list(column.type):
        value_type = column.type.value_type.value_type
        lists = [pa.ListArray.from_arrays(chunk.offsets, chunk.values.dictionary_decode())
                 if pa.types.is_list(chunk.type) else
                 pa.LargeListArray.from_arrays(chunk.offsets, chunk.values.dictionary_decode())
                 for chunk in column.chunks]
        return pa.chunked_array(lists, pa.list_(value_type) if pa.types.is_list(column.type)
                                else pa.large_list(value_type))
    return column
