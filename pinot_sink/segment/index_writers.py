"""The index-writer contract and the registry the builder loops over.

Like Pinot's ``IndexType`` / ``IndexCreator`` pairs (one creator per index, ``StandardIndexes``), each
index of a column is written by one ``IndexWriter``: its ``index_id`` (the v3 ``index_map`` key), its v1
``file_extension``, ``applies_to`` (does this column get the index, from the table config and what the
column turned out to be) and ``write`` (the payload bytes, or None when there is nothing to write).

A new index type is one class here (its payload function in its own module) and one entry in
``INDEX_WRITERS``; the builder does not change. What a writer reads is the ``ColumnContext`` the builder
prepared once per column: values in segment order, the dictionary and dictIds, the statistics.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pyarrow as pa

from type_mapping.pinot_schema import METRIC, FieldSpec

from .bitpack import bits_per_value
from .bloom_filter import build_bloom_filter
from .codecs import codec_id
from .dictionary import ColumnValueError, Dictionary, serialize_dictionary, uses_var_length
from .format import (BLOOM_FILTER_EXTENSION, DICTIONARY_EXTENSION, INVERTED_INDEX_EXTENSION, JSON_INDEX_EXTENSION,
                     NULLVALUE_VECTOR_EXTENSION,
                     RANGE_INDEX_EXTENSION, forward_index_extension)
from .forward_index import multi_value_forward_index, sorted_forward_index, unsorted_forward_index
from .index_policy import has_dict_ids, range_supported
from .inverted_index import inverted_index
from .json_index import build_json_index
from .null_vector import null_vector
from .range_index import build_range_index, build_raw_range_index
from .raw_forward import RawColumnStats, write_raw_forward
from .spill import Pieces
from .stats import ColumnStats
from .table_config import ColumnIndexSettings, TableIndexSettings

log = logging.getLogger(__name__)

Payload = bytes | memoryview | Pieces  # Pieces: made a block at a time (spill.py)


@dataclass
class ColumnContext:
    """One column as its index writers see it, in the segment's row order."""

    spec: FieldSpec
    values: pa.ChunkedArray  # the column's values (a raw column's already in segment order)
    null_mask: np.ndarray | None  # rows that were null (in segment order), or None
    settings: ColumnIndexSettings  # the table config for this column
    table: TableIndexSettings  # the table-wide settings
    dictionary: Dictionary  # always built: it gives the statistics; dictIds in segment order
    row_lengths: np.ndarray | None  # multi-value: values per row, in segment order
    stats: ColumnStats
    has_dictionary: bool  # the column is dictionary-encoded (after the optimizeDictionary heuristics)
    unsupported_mode: str = "defer"  # the index plan's mode: defer | error
    # a raw number column whose ``values`` are in input order: the segment's is values[raw_order] (the forward
    # index, its only reader, gathers them: builder._reordered_by_writer)
    raw_order: np.ndarray | None = None

    @property
    def is_sorted_single_value(self) -> bool:
        return self.spec.single_value and self.stats.is_sorted


class IndexWriter(Protocol):
    index_id: str

    def file_extension(self, ctx: ColumnContext) -> str: ...

    def applies_to(self, ctx: ColumnContext) -> bool: ...

    def write(self, ctx: ColumnContext) -> Payload | None: ...


class _FixedExtension:
    extension = ""

    def file_extension(self, ctx: ColumnContext) -> str:
        return self.extension


class DictionaryWriter(_FixedExtension):
    index_id, extension = "dictionary", DICTIONARY_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        return ctx.has_dictionary

    def write(self, ctx: ColumnContext) -> Payload:
        var_length = uses_var_length(ctx.dictionary, ctx.settings.var_length_dictionary,
                                     ctx.table.optimize_dictionary_type)
        return serialize_dictionary(ctx.dictionary, var_length)


class ForwardIndexWriter:
    """Sorted / bit-packed / multi-value dictIds, or the raw values (``raw_forward``)."""

    index_id = "forward_index"

    def file_extension(self, ctx: ColumnContext) -> str:
        return forward_index_extension(ctx.has_dictionary, ctx.spec.single_value, ctx.stats.is_sorted)

    def applies_to(self, ctx: ColumnContext) -> bool:
        return True  # a disabled forward index is refused (or skipped) before the build

    def write(self, ctx: ColumnContext) -> Payload:
        stats, dict_ids = ctx.stats, ctx.dictionary.dict_ids
        if not ctx.has_dictionary:
            raw_stats = RawColumnStats(stats.length_of_longest_element, stats.max_number_of_multi_values,
                                       stats.max_row_length_in_bytes, stats.total_number_of_entries)
            codec = raw_codec_id(ctx.settings, ctx.spec.field_type == METRIC)
            return write_raw_forward(ctx.values, ctx.spec, codec, raw_stats, order=ctx.raw_order, pieces=True)
        bits = bits_per_value(stats.cardinality)
        if not ctx.spec.single_value:
            return multi_value_forward_index(dict_ids, ctx.row_lengths, bits)
        if stats.is_sorted:
            return sorted_forward_index(dict_ids, stats.cardinality)
        return unsorted_forward_index(dict_ids, bits)


def raw_codec_id(c: ColumnIndexSettings, is_metric: bool) -> int:
    """The raw forward index's codec; Pinot's default: PASS_THROUGH for metrics, LZ4 for every other field."""
    if c.compression_codec is None:
        return codec_id("PASS_THROUGH" if is_metric else "LZ4")
    return codec_id(c.compression_codec)  # validated by the index plan on the driver


class InvertedIndexWriter(_FixedExtension):
    index_id, extension = "inverted_index", INVERTED_INDEX_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        # A sorted column's forward index serves as its inverted index; Pinot builds none.
        return ctx.settings.inverted and not ctx.is_sorted_single_value

    def write(self, ctx: ColumnContext) -> Payload:
        return inverted_index(ctx.dictionary.dict_ids, ctx.stats.cardinality, ctx.row_lengths)


class RangeIndexWriter(_FixedExtension):
    index_id, extension = "range_index", RANGE_INDEX_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        return ctx.settings.range and range_supported(ctx.settings, ctx.spec)

    def write(self, ctx: ColumnContext) -> Payload | None:
        if ctx.has_dictionary:
            return build_range_index(ctx.dictionary.dict_ids, ctx.stats.cardinality)
        if ctx.spec.is_fixed_width:
            return build_raw_range_index(ctx.values, ctx.spec)
        # optimizeDictionary turned a var-width column raw: no raw range index for it
        if ctx.unsupported_mode == "error":
            raise ColumnValueError(
                f"column {ctx.spec.name!r}: optimizeDictionary made the column raw, and a range index on a raw "
                f"{ctx.spec.data_type} column is not written by this builder (build.unsupported-indexes=defer leaves it to the server's RangeIndexHandler)")
        log.warning("column %r: the range index of a column optimizeDictionary made raw is deferred to the server "
                    "(RangeIndexHandler builds it at each load)", ctx.spec.name)
        return None


class BloomFilterWriter(_FixedExtension):
    index_id, extension = "bloom_filter", BLOOM_FILTER_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        return ctx.settings.bloom is not None

    def write(self, ctx: ColumnContext) -> Payload:
        bloom = ctx.settings.bloom
        return build_bloom_filter(ctx.dictionary.values, ctx.spec, bloom.fpp, bloom.max_size_in_bytes)


class JsonIndexWriter(_FixedExtension):
    index_id, extension = "json_index", JSON_INDEX_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        return ctx.settings.json is not None

    def write(self, ctx: ColumnContext) -> Payload:
        if ctx.dictionary.dict_ids is not None:  # each distinct value flattened once
            distinct, doc_values = ctx.dictionary.values.to_pylist(), ctx.dictionary.dict_ids
        else:  # a raw column: its values are in segment order
            values = np.asarray(ctx.values.to_pylist(), dtype=object)
            distinct, doc_values = np.unique(values, return_inverse=True)
            distinct = distinct.tolist()
        return build_json_index(distinct, np.asarray(doc_values, dtype=np.int64), ctx.settings.json, ctx.spec.name)


class NullValueVectorWriter(_FixedExtension):
    index_id, extension = "nullvalue_vector", NULLVALUE_VECTOR_EXTENSION

    def applies_to(self, ctx: ColumnContext) -> bool:
        return ctx.settings.null_vector

    def write(self, ctx: ColumnContext) -> Payload | None:
        return null_vector(ctx.null_mask)  # None: no null row, no file (the column is marked non-null)


# In the order the builder writes them (the bytes do not depend on it: layouts sort by name and id).
INDEX_WRITERS: tuple[IndexWriter, ...] = (
    DictionaryWriter(), ForwardIndexWriter(), InvertedIndexWriter(), RangeIndexWriter(), BloomFilterWriter(),
    JsonIndexWriter(), NullValueVectorWriter(),
)
