"""Per-column statistics, as Pinot's ``*ColumnPreIndexStatsCollector`` computes them.

Everything is derived from the column's ``Dictionary`` (distinct values in Pinot's order) and the
row lengths, so it is vectorised and consistent with the dictionary: cardinality, min/max (first/last
distinct value), ``isSorted`` (single-value dictIds non-decreasing in doc order), element lengths over
distinct values, ``isAscii``, ``maxNumberOfMultiValues``, ``totalNumberOfEntries`` and
``maxRowLengthInBytes``. The attribute names the raw forward index writer reads are part of the contract.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.java_text import big_decimal_string, java_float_str, java_length
from type_mapping.pinot_schema import FIXED_WIDTH_STORED, FieldSpec
from type_mapping.stored import offsets_view

from .dictionary import Dictionary
from .gather import gather
from .properties import pinot_escape_string

METADATA_PROPERTY_LENGTH_LIMIT = 512  # BaseSegmentCreator.getValidPropertyValue, in UTF-16 chars


@dataclass
class ColumnStats:
    column: str
    stored_type: str
    single_value: bool
    total_docs: int
    cardinality: int
    is_sorted: bool
    min_value: Any  # stored-type Python value (BIG_DECIMAL: canonical text)
    max_value: Any
    length_of_shortest_element: int
    length_of_longest_element: int
    is_ascii: bool
    max_number_of_multi_values: int
    total_number_of_entries: int
    max_row_length_in_bytes: int

    @property
    def is_fixed_length(self) -> bool:
        return self.length_of_shortest_element == self.length_of_longest_element


def collect_stats(
    spec: FieldSpec, dictionary: Dictionary, row_lengths: np.ndarray | None, total_docs: int,
    flat: pa.Array | None = None, default_id: int | None = None, row_starts: np.ndarray | None = None,
) -> ColumnStats:
    """``flat``: the column's values flattened (``flatten``), which gives STRING / BYTES multi-value rows'
    byte lengths straight from the Arrow offsets; ``row_starts``: the list's own offsets (``offsets_view``),
    when at hand, where each row's values start in it. ``default_id``: a multi-value column whose ``[default]``
    rows are not in ``flat`` (``PinotColumns.defaults``): there ``row_lengths`` is 0 and each such row
    stands for one value, this dictId (the figures are the filled column's; ``dictionary.dict_ids`` is not
    read)."""
    stored = spec.stored_type
    if stored in FIXED_WIDTH_STORED:
        size = FIXED_WIDTH_STORED[stored]
        shortest = longest = size
        value_lengths = None
    else:
        value_lengths = dictionary.serialized_lengths
        shortest = int(value_lengths.min())
        longest = int(value_lengths.max())
    is_ascii = False
    if stored == "STRING":
        is_ascii = dictionary.is_ascii
        if is_ascii is None:
            is_ascii = bool(pc.all(pc.string_is_ascii(dictionary.values)).as_py())

    dict_ids = dictionary.dict_ids  # None for a raw number column: its values were only sorted
    count = dictionary.input_count if dict_ids is None else len(dict_ids)
    if spec.single_value:
        is_sorted = (bool(dictionary.input_sorted) if dict_ids is None
                     else bool((dict_ids[1:] >= dict_ids[:-1]).all()))
        max_mv = 0
        max_row = longest
    else:
        is_sorted = False
        max_mv = int(row_lengths.max())
        unfilled = False
        if default_id is not None:
            unfilled = len(row_lengths) - np.count_nonzero(row_lengths)
            count = int(row_lengths.sum()) + unfilled
            if unfilled:
                max_mv = max(max_mv, 1)
        if value_lengths is None:
            max_row = max_mv * shortest
        elif flat is not None and stored in ("STRING", "BYTES") and len(row_lengths):
            # A row's bytes: its values' data, back to back. The Arrow offsets as they are (a view, no int64
            # copy): only differences of them are taken.
            max_row = _longest_row_bytes(offsets_view(flat), row_lengths, row_starts)
            if unfilled:
                max_row = max(max_row, int(value_lengths[default_id]))
        elif default_id is not None:
            raise ValueError(f"column {spec.name!r}: statistics of unfilled [default] rows need the STRING / "
                             f"BYTES values' offsets")
        else:
            max_row = _longest_row_of_ids(value_lengths, dict_ids, row_lengths)
    values = dictionary.values
    return ColumnStats(
        column=spec.name,
        stored_type=stored,
        single_value=spec.single_value,
        total_docs=total_docs,
        cardinality=dictionary.cardinality,
        is_sorted=is_sorted,
        min_value=values[0].as_py(),
        max_value=values[len(values) - 1].as_py(),
        length_of_shortest_element=shortest,
        length_of_longest_element=longest,
        is_ascii=is_ascii,
        max_number_of_multi_values=max_mv,
        total_number_of_entries=count,
        max_row_length_in_bytes=max_row,
    )


def value_to_string(value: Any, stored_type: str) -> str:
    """Java ``toString()`` of a stored value (min/max in metadata; also the bloom filter's strings)."""
    if stored_type in ("INT", "LONG"):
        return str(int(value))
    if stored_type == "FLOAT":
        return java_float_str(value, float32=True)
    if stored_type == "DOUBLE":
        return java_float_str(value)
    if stored_type == "BYTES":
        return bytes(value).hex()
    if stored_type == "BIG_DECIMAL":
        return value if isinstance(value, str) else big_decimal_string(value)
    return str(value)


def min_max_property(value: Any, stored_type: str) -> str | None:
    """``getValidPropertyValue``: None when Pinot would leave the key out (too long, or a surrogate)."""
    text = value_to_string(value, stored_type)
    if java_length(text) > METADATA_PROPERTY_LENGTH_LIMIT:
        return None
    return pinot_escape_string(text) if stored_type == "STRING" else text


STATS_BLOCK_ROWS = 65_536  # rows whose byte lengths are measured at a time


def _longest_row_bytes(offsets: np.ndarray, row_lengths: np.ndarray, row_starts: np.ndarray | None = None) -> int:
    """The most bytes of one multi-value row: its values' data, back to back (``offsets``: the flat values'
    Arrow offsets; ``row_starts``: the list's offsets, else summed from ``row_lengths``). A block of rows at a
    time: the column-sized ends, starts and differences of int64 were ~16 MB of the 32mb task's peak, at the
    build's largest step (docs/performance.md, "Task memory")."""
    longest, done = 0, 0  # done: values before the block
    for first in range(0, len(row_lengths), STATS_BLOCK_ROWS):
        block = row_lengths[first:first + STATS_BLOCK_ROWS]
        if row_starts is not None:  # the block's rows' first values and its end, read, not summed (1.2 M
            bounds = row_starts[first:first + len(block) + 1]  # instructions fewer per 200k rows)
            if row_starts[0]:  # a sliced list's offsets count from its first value
                bounds = bounds - row_starts[0]
        else:
            bounds = np.empty(len(block) + 1, dtype=np.int64)  # the block's rows' first values and its end
            bounds[0] = done
            np.cumsum(block, out=bounds[1:])
            bounds[1:] += done
            done = int(bounds[-1])
        longest = max(longest, int(np.diff(gather(offsets, bounds)).max()))  # one gather of the bounds, not two
    return longest


def _longest_row_of_ids(value_lengths: np.ndarray, dict_ids: np.ndarray, row_lengths: np.ndarray) -> int:
    """The most bytes of one multi-value row given as dictIds (a compaction's encoded lists: no flat values'
    offsets), each value's length looked up. A block of rows at a time: a length per value and a start and a
    sum per row, column-sized, were ~180 MB of a 256mb compaction's build peak (docs/performance-log.md)."""
    longest, done = 0, 0  # done: values before the block
    for first in range(0, len(row_lengths), STATS_BLOCK_ROWS):
        block = row_lengths[first:first + STATS_BLOCK_ROWS]
        starts = np.zeros(len(block), dtype=np.int64)
        np.cumsum(block[:-1], out=starts[1:])
        count = int(starts[-1]) + int(block[-1]) if len(block) else 0
        if count:
            per_value = value_lengths[dict_ids[done:done + count]]
            np.minimum(starts, count - 1, out=starts)  # (empty rows, refused before, would end a block past it)
            longest = max(longest, int(np.add.reduceat(per_value, starts).max()))
        done += count
    return longest


def flatten(column: pa.ChunkedArray | pa.Array, single_value: bool) -> tuple[pa.Array, np.ndarray | None]:
    """The column's values as one flat array, plus the per-row value counts for multi-value columns."""
    if isinstance(column, pa.ChunkedArray):  # combine_chunks copies even a single chunk
        array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    else:
        array = column
    if single_value:
        return array, None
    # int32 for a list (int64 for a large_list): one per row, gathered and summed by the builder's steps
    lengths = pc.list_value_length(array).to_numpy(zero_copy_only=False)
    return array.flatten(), lengths

