"""The rows of a compaction: read from the merged segments, reduced (concat, rollup, dedup), split by time
bucket and partition id, and cut into right-sized segments.

Rows travel in Pinot's stored form (``PinotColumns``: what the segment reader gives and the builder takes),
so nothing is converted twice and the table config's ingestion steps are not applied again.

Sizing: a segment's size is its untarred size (its files' bytes: Pinot's 100-500 MB guidance is for
untarred segments, and a realtime table's ``segment.size`` threshold measures the segment's directory), known
only once it is built. The row count of the next segment is ``0.9 * target / bytes-per-row``; the bytes per
row start from the merged segments' own, less what merging their dictionaries saves (``merged_bytes_per_row``:
without it the first segment of many small inputs came out ~20% under the band and was built twice), and are
learned from every segment built. A segment that comes out
outside [0.8, 1.0] of the target is built again with the corrected count (at most ``MAX_BUILDS`` times); the
last of a bucket only needs to fit under the target.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_schema import METRIC, PinotSchema
from type_mapping.convert import default_column
from type_mapping.stored import PinotColumns
from type_mapping.errors import PinotSinkError

from pinot_sink.segment.bitpack import bits_per_value
from pinot_sink.segment.builder import time_values_ms
from pinot_sink.segment.dictionary import build_dictionary
from pinot_sink.segment.read.files import SegmentFiles
from pinot_sink.segment.read.reader import SegmentReader
from pinot_sink.segment.read.segment_metadata import SegmentFormatError
from pinot_sink.segment.encoded import decoded_column as decoded, is_encoded_list
from pinot_sink.segment.read.tar_source import load_tarball

from ..partitioning import partition_id_arrays, partitioned_columns
from ..time_window import bucket_keys

log = logging.getLogger("pinot_sink")

MAX_BUILDS = 4  # builds of one segment while its size is learned
LOW, HIGH, AIM = 0.8, 1.0, 0.9  # of the target size
AGGREGATIONS = ("SUM", "MIN", "MAX")  # MergeRollupTask's numeric aggregation types this compaction applies


class CompactionError(PinotSinkError, ValueError):
    """A compaction that cannot be done as asked; the message names the column or segment."""


def read_rows(path: str, schema: PinotSchema, where: str, time_column: str | None = None, *,
              refuse_dropped: bool = False, narrow: frozenset[str] = frozenset()) -> PinotColumns:
    """Every schema column of a segment (a tarball of any codec, or a folder), in stored form with null masks
    (a column the segment lacks, but for ``time_column``, filled with its default null value, null).
    A tarball is read in memory by the reader's ``load_tarball`` (its codec by magic number, gzip through ISA-L
    where installed: most of a small segment's read; unsafe members refused), never unpacked into a folder:
    the folders' making, writing and removal were ~1 ms of CPU a segment even on tmpfs.

    A column with a dictionary comes dictionary-encoded (its dictIds over its dictionary, never decoded; a
    multi-value one as lists of them): the builder merges the dictionaries of a new segment's inputs and remaps
    the dictIds, the same bytes as from the values at a fraction of the work (``segment.encoded``).

    ``refuse_dropped``: a column the segment holds but the schema lacks is an error (``check_columns``).
    ``narrow``: raw LONG columns held as int32 where their values fit (``narrowable_columns``)."""
    if os.path.isdir(path):
        return _stored(path, schema, where, time_column, refuse_dropped, narrow)
    try:
        files = load_tarball(path, where)
    except (SegmentFormatError, OSError) as exc:
        raise CompactionError(f"{where}: unreadable tarball: {exc}") from None
    return _stored(files, schema, where, time_column, refuse_dropped, narrow)  # the reader closes (frees) the files


def _stored(segment: "str | SegmentFiles", schema: PinotSchema, where: str,
            time_column: str | None = None, refuse_dropped: bool = False,
            narrow: frozenset[str] = frozenset()) -> PinotColumns:
    with SegmentReader(segment) as reader:
        total_docs = reader.metadata.total_docs
        check_columns(schema, reader.metadata.columns, where, refuse_dropped=refuse_dropped)
        gained = gained_columns(schema, reader.metadata.columns, total_docs, where, time_column)
        columns, masks = {}, {}
        for spec in schema:
            if spec.name in gained:
                columns[spec.name] = gained[spec.name]
                masks[spec.name] = np.ones(total_docs, dtype=np.bool_)  # every row null
                continue
            ids = reader.dict_ids(spec.name) if total_docs else None
            if ids is not None and spec.single_value:
                columns[spec.name] = _held_single_value(ids, reader.dictionary(spec.name), spec.name in narrow,
                                                       decode=spec.name != time_column)
            elif ids is not None:
                values = _over_dictionary(ids.values, reader.dictionary(spec.name))
                columns[spec.name] = pa.ListArray.from_arrays(ids.offsets, values)
            else:
                values = reader.stored_values(spec.name)
                columns[spec.name] = _narrow_values(values) if spec.name in narrow else values
            mask = reader.null_mask(spec.name)
            if mask is not None:
                masks[spec.name] = mask
        return PinotColumns(pa.table(columns), masks)


def gained_columns(schema: PinotSchema, present, num_rows: int, where: str,
                   time_column: str | None) -> dict[str, pa.Array]:
    """The schema's columns a segment lacks (the schema gained them after it was written), each its default
    null value in every row (the rows are null): as Pinot's servers serve such a segment and its
    SegmentProcessorFramework merges it (docs/compaction.md). A time column is not made up: refused."""
    gained = {}
    for spec in schema:
        if spec.name in present:
            continue
        if spec.name == time_column:
            raise CompactionError(f"{where}: has no column {spec.name!r}, the table's time column (the schema "
                                  f"gained it after the segment was written): not compacted")
        gained[spec.name] = default_column(spec, num_rows)
    return gained


def _over_dictionary(ids: pa.Array, dictionary: pa.Array) -> pa.DictionaryArray:
    """A segment's dictIds over its dictionary, narrowed. Not checked again by Arrow (``safe``: ~10 us a column
    of 20k rows, ~9 columns an input): the reader checked every id against the column's cardinality, the
    dictionary's length (``decoders.check_dict_ids``, ``decode_dictionary``)."""
    return pa.DictionaryArray.from_arrays(_narrow(ids, len(dictionary)), dictionary, safe=False)


def _held_single_value(ids: pa.Array, dictionary: pa.Array, narrow: bool, decode: bool) -> pa.Array:
    """A single-value dictionary column as the compaction holds it: its dictIds over its dictionary, or its
    values decoded where those take fewer bytes (a number column of nearly as many values as rows: the bench's
    customer_id, 10.3 B a row encoded, 4 decoded as int32). The held rows are most of a small target's peak
    (16mb: ~1.5x the target of ~3.2x; docs/performance-log.md); the builder makes the dictionary from the
    values, the same bytes, about the work of merging the inputs' near-row-sized dictionaries. Not the time
    column (``decode`` False): its inputs' dictionaries merge as sorted runs (``encoded``), where its values
    would be sorted again, at the build's first column, its peak (16mb: 3.9x against 3.0x, one pair)."""
    value_type = dictionary.type
    if not (pa.types.is_integer(value_type) or pa.types.is_floating(value_type)) or not len(ids) or not decode:
        return _over_dictionary(ids, dictionary)
    # Decided and decoded in numpy from the dictionary's values (no dictionary array made to be decoded, no
    # second pass over the rows for their range): ~0.2 ms of an input's ~2 past its inflate, 2000 inputs.
    values = dictionary.to_numpy(zero_copy_only=False)
    fits = (narrow and value_type == pa.int64()  # held as int32 where its values fit (``_narrow_values``)
            and -(1 << 31) <= int(values.min()) and int(values.max()) < 1 << 31)
    encoded_bytes = len(ids) * _narrow_width(len(dictionary)) + values.nbytes
    if (4 if fits else values.itemsize) * len(ids) >= encoded_bytes:
        return _over_dictionary(ids, dictionary)
    decoded = values.take(ids.to_numpy(zero_copy_only=False))
    return pa.array(decoded.astype(np.int32) if fits else decoded)


def narrowable_columns(schema: PinotSchema, table_config, time_column: str | None, mode: str) -> frozenset[str]:
    """The LONG columns whose raw values (or decoded ones: ``_held_single_value``) the compaction may hold as
    int32 (``read_rows``' ``narrow``): 8 bytes a
    row held to 4 until the builder widens each as it takes it (``builder._joined``): a 16mb compaction holds
    ~1.2 segments' rows at its peak, a raw id column 8 of their ~50 bytes a row. Not the time column nor
    partitioned ones (their buckets and partition ids are computed from the values as read), nor in rollup or
    dedup (their rows are reduced from values)."""
    if mode != "concat":
        return frozenset()
    keyed = set(partitioned_columns(table_config, schema)) | {time_column}
    return frozenset(spec.name for spec in schema if spec.single_value and spec.data_type == "LONG"
                     and spec.stored_type == "LONG" and spec.name not in keyed)


def _narrow_values(values: pa.Array) -> pa.Array:
    """A raw LONG column's values as int32 where every one fits (numpy's cast: the range is checked first)."""
    if values.type != pa.int64() or not len(values) or values.null_count:
        return values
    numbers = values.to_numpy(zero_copy_only=False)
    low, high = numbers.min(), numbers.max()
    if low < -(1 << 31) or high >= 1 << 31:
        return values
    return pa.array(numbers.astype(np.int32))


def _narrow(ids: pa.Array, cardinality: int) -> pa.Array:
    """dictIds in the narrowest integer type that holds them: the rows a compaction holds until a segment's
    worth is in are mostly dictIds (one byte each, not four, for a column of up to 127 values)."""
    width = _narrow_width(cardinality)
    if width < 4:
        # numpy's cast, not Arrow's checked one (~3x its CPU): the reader checked every id < cardinality
        return pa.array(ids.to_numpy(zero_copy_only=False).astype(np.int8 if width == 1 else np.int16))
    return ids


def _narrow_width(cardinality: int) -> int:
    """The bytes of a dictId ``_narrow`` holds for a dictionary of ``cardinality`` values."""
    return 1 if cardinality - 1 <= 127 else 2 if cardinality - 1 <= 32_767 else 4


def used_values(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """What a single-value column's rows hold, each chunk's distinct values at most once: of a
    dictionary-encoded chunk its dictionary's values some row uses (not decoded row by row), of another the
    chunk itself. Enough for a minimum and a maximum: a build's time range for its segment's name was a
    decoding of 6.7M LONGs (53 MB) from 335 inputs' chunks, against ~20 us a chunk here."""
    if not pa.types.is_dictionary(column.type):
        return column
    chunks = []
    for chunk in column.chunks:
        if chunk.null_count:  # (not from a segment) decoded as it is
            chunks.append(chunk.dictionary_decode())
            continue
        used = np.zeros(len(chunk.dictionary), dtype=np.bool_)
        used[chunk.indices.to_numpy(zero_copy_only=False)] = True
        chunks.append(chunk.dictionary.filter(pa.array(used)))
    return pa.chunked_array(chunks, column.type.value_type)


def decoded_rows(rows: PinotColumns) -> PinotColumns:
    table = rows.table
    for index, name in enumerate(table.column_names):
        column = table.column(name)
        if pa.types.is_dictionary(column.type) or is_encoded_list(column.type):
            table = table.set_column(index, name, decoded(column))
    return PinotColumns(table, rows.null_masks)


def concat(parts: list[PinotColumns]) -> PinotColumns:
    if len(parts) == 1:
        return parts[0]
    first = parts[0].table.schema
    if any(p.table.schema != first for p in parts):
        common = pa.schema([pa.field(name, _common_type([p.table.schema.field(name).type for p in parts]))
                            for name in first.names])
        parts = [p if p.table.schema == common else PinotColumns(p.table.cast(common), p.null_masks) for p in parts]
    table = pa.concat_tables([p.table for p in parts])
    masked = {name for p in parts for name in p.null_masks}
    masks = {name: np.concatenate([p.null_masks.get(name, np.zeros(p.table.num_rows, dtype=np.bool_))
                                   for p in parts]) for name in masked}
    return PinotColumns(table, masks)


_INDEX_WIDTH = {pa.int8(): 0, pa.int16(): 1, pa.int32(): 2}


def _common_type(types: list[pa.DataType]) -> pa.DataType:
    """One Arrow type for a column whose parts come from different segments: dictIds of differently sized
    dictionaries (``_narrow``: int8 in one part, int16 in another) widen to the widest; a part whose column is
    plain (a default-filled gained column, a raw one) makes the column plain values, integers the widest of the
    parts' (a raw LONG column held as int32 in some parts only: ``narrowable_columns``)."""
    if all(t == types[0] for t in types):
        return types[0]
    listed = all(pa.types.is_list(t) for t in types)
    inner = [t.value_type if listed else t for t in types]
    if all(pa.types.is_dictionary(t) for t in inner) and len({t.value_type for t in inner}) == 1:
        widest = max((t.index_type for t in inner), key=lambda index: _INDEX_WIDTH.get(index, 3))
        common = pa.dictionary(widest, inner[0].value_type)
    else:
        values = [t.value_type if pa.types.is_dictionary(t) else t for t in inner]
        if all(pa.types.is_signed_integer(t) for t in values):
            common = max(values, key=lambda t: t.bit_width)
        else:
            common = next((t for t in inner if not pa.types.is_dictionary(t)), None) or inner[0].value_type
    return pa.list_(common) if listed else common


def take(rows: PinotColumns, indices: np.ndarray | slice) -> PinotColumns:
    if isinstance(indices, slice):
        start, stop, _ = indices.indices(rows.table.num_rows)
        return PinotColumns(rows.table.slice(start, stop - start),
                            {k: v[start:stop] for k, v in rows.null_masks.items()})
    return PinotColumns(_wide_dict_ids(rows.table).take(pa.array(indices)),
                        {k: v[indices] for k, v in rows.null_masks.items()})


def _wide_dict_ids(table: pa.Table) -> pa.Table:
    """Gathering rows from several segments' chunks unifies their dictionaries, and the union keeps the
    chunks' index type: int8 dictIds of small segments overflow past 127 values (Arrow: "requires a larger
    index type"). Such columns get int32 dictIds first (the builder takes any width)."""
    for position, field in enumerate(table.schema):
        column = table.column(position)
        listed = pa.types.is_list(field.type)
        inner = field.type.value_type if listed else field.type
        if column.num_chunks > 1 and pa.types.is_dictionary(inner) and inner.index_type != pa.int32():
            wide = pa.dictionary(pa.int32(), inner.value_type)
            table = table.set_column(position, field.name, column.cast(pa.list_(wide) if listed else wide))
    return table


# --- reducers ----------------------------------------------------------------------------------------------

_NULL = "__pinot_sink_null__"


def _with_masks(rows: PinotColumns) -> pa.Table:
    table = rows.table
    for name, mask in rows.null_masks.items():
        table = table.append_column(_NULL + name, pa.array(mask, type=pa.bool_()))
    return table


def _check_groupable(schema: PinotSchema, columns, mode: str) -> None:
    for name in columns:
        if not schema[name].single_value:
            raise CompactionError(f"--mode {mode}: column {name!r} is multi-value; rows with multi-value "
                                  f"columns cannot be grouped here (use --mode concat)")


def dedup(rows: PinotColumns, schema: PinotSchema) -> PinotColumns:
    """Exact duplicate rows (every column, and whether it is null) kept once, in first-seen order."""
    if rows.table.num_rows == 0:
        return rows
    _check_groupable(schema, rows.table.column_names, "dedup")
    table = _with_masks(decoded_rows(rows))
    table = table.append_column("__row", pa.array(np.arange(table.num_rows, dtype=np.int64)))
    keys = [c for c in table.column_names if c != "__row"]
    first = table.group_by(keys, use_threads=False).aggregate([("__row", "min")])
    order = np.sort(first.column("__row_min").to_numpy())
    return take(rows, order)


def rollup(rows: PinotColumns, schema: PinotSchema, aggregations: dict[str, str]) -> PinotColumns:
    """Rows grouped by every non-metric column (dimensions and time, and whether each is null), metrics
    aggregated (SUM unless ``aggregations`` names MIN or MAX): MergeRollupTask's rollup. A null metric is left
    out of its group's aggregate; a group whose values are all null stays null (its stored default)."""
    if rows.table.num_rows == 0:
        return rows
    rows = decoded_rows(rows)
    names = rows.table.column_names
    metrics = [n for n in names if schema[n].field_type == METRIC]
    dims = [n for n in names if n not in metrics]
    _check_groupable(schema, dims + metrics, "rollup")
    table = rows.table
    work = {n: table.column(n) for n in dims}
    for name in dims:
        if name in rows.null_masks:
            work[_NULL + name] = pa.array(rows.null_masks[name])
    specs = []
    for name in metrics:
        kind = aggregations.get(name, "SUM").upper()
        values = table.column(name)
        mask = rows.null_masks.get(name)
        if mask is not None:
            values = pc.if_else(pa.array(mask), pa.nulls(len(mask), values.type), values)
        work[name] = values
        specs.append((name, kind.lower()))
        if mask is not None:
            work[_NULL + name] = pa.array(mask)
            specs.append((_NULL + name, "min"))  # null only if every value of the group was
    keys = [k for k in work if k not in metrics and not (k.startswith(_NULL) and k[len(_NULL):] in metrics)]
    grouped = pa.table(work).group_by(keys, use_threads=False).aggregate(specs)
    out, masks = {}, {}
    for name in names:
        if name in dims:
            out[name] = grouped.column(name)
            if name in rows.null_masks:
                masks[name] = grouped.column(_NULL + name).to_numpy(zero_copy_only=False).astype(np.bool_)
            continue
        kind = aggregations.get(name, "SUM").lower()
        values = grouped.column(f"{name}_{kind}")
        target = table.schema.field(name).type
        default = pa.scalar(schema[name].default_null_value).cast(target)
        values = pc.fill_null(values, default)
        try:
            out[name] = values.cast(target)
        except pa.ArrowInvalid as exc:
            raise CompactionError(f"--mode rollup: the {kind.upper()} of metric {name!r} does not fit its type "
                                  f"{schema[name].data_type}: {exc}") from None
        if name in rows.null_masks:
            masks[name] = grouped.column(f"{_NULL}{name}_min").to_numpy(zero_copy_only=False).astype(np.bool_)
    return PinotColumns(pa.table(out), masks)


def check_columns(schema: PinotSchema, columns: Mapping, where: str, *, refuse_dropped: bool) -> None:
    """A merged segment's columns (``ColumnMetadata`` by name) against the schema its rows are read in.

    Stored values are kept, never converted: a column the segment stores otherwise (another stored type,
    single- against multi-value: a stale schema file, a forced schema change) is refused in one line naming
    it, the segment and both types. With ``refuse_dropped`` (the caller gave the schema: a folder's
    ``--schema``) a column the segment holds and the schema lacks is refused too: the new segments would lack
    its values, and servers serving them under the table's real schema would answer its default instead
    (derived ``$...`` columns are the indexes' own). The controller's own schema is the table's: a column it
    no longer has is one no query can name, and is left out as Pinot's MergeRollupTask leaves it."""
    for spec in schema:
        column = columns.get(spec.name)
        if column is None:
            continue
        if column.stored_type != spec.stored_type or column.single_value != spec.single_value:
            def kind(single: bool, data_type: str) -> str:
                return data_type if single == spec.single_value == column.single_value else \
                    f"{'single' if single else 'multi'}-value {data_type}"

            raise CompactionError(
                f"{where}: column {spec.name!r} is {kind(column.single_value, column.data_type)} in the segment but "
                f"{kind(spec.single_value, spec.data_type)} in the schema: a compaction keeps stored values and "
                f"converts none; give the schema the segments were written with")
    dropped = sorted(c for c in columns if c not in schema and not c.startswith("$")) if refuse_dropped else []
    if dropped:
        raise CompactionError(f"{where}: holds column(s) {dropped}, which the schema lacks: compacting would drop "
                              f"their values; give the table's current schema (--schema)")


def check_mode(schema: PinotSchema, mode: str) -> None:
    """Rollup and dedup group rows by their columns (every one of them, or every non-metric one, and metrics are
    single-value): a multi-value column of the schema is refused before anything is planned or read."""
    if mode in ("rollup", "dedup"):
        _check_groupable(schema, [spec.name for spec in schema], mode)


def check_aggregations(schema: PinotSchema, aggregations: dict[str, str]) -> dict[str, str]:
    checked = {}
    for column, kind in aggregations.items():
        if column not in schema:
            raise CompactionError(f"--aggregate {column}={kind}: the schema has no column {column!r}")
        if schema[column].field_type != METRIC:
            raise CompactionError(f"--aggregate {column}={kind}: {column!r} is not a metric column")
        if kind.upper() not in AGGREGATIONS:
            raise CompactionError(f"--aggregate {column}={kind}: supported aggregation types are "
                                  f"{', '.join(AGGREGATIONS)}")
        checked[column] = kind.upper()
    return checked


# --- keys: time bucket and partition ids -------------------------------------------------------------------


def row_keys(rows: PinotColumns, schema: PinotSchema, table_config, time_column: str | None,
             bucket_ms: int | None) -> np.ndarray:
    """One int64 row per row: its time bucket (0 without one) and its partition id of every partitioned
    column; rows with equal keys go to the same output segments."""
    parts = []
    if time_column is not None and bucket_ms is not None:
        parts.append(_time_buckets(rows.table.column(time_column), schema[time_column], bucket_ms))
    partitioned = partitioned_columns(table_config, schema)
    if partitioned:
        values = decoded_rows(PinotColumns(rows.table.select(list(partitioned)), {}))
        parts += partition_id_arrays(values, table_config, schema, partitioned)
    if not parts:
        return np.zeros((rows.table.num_rows, 1), dtype=np.int64)
    return np.stack([np.asarray(p, dtype=np.int64) for p in parts], axis=1)


def _time_buckets(column: pa.ChunkedArray, spec, bucket_ms: int) -> np.ndarray:
    """Each row's time bucket; of a dictionary-encoded column (a segment's dictIds) computed once per
    dictionary value and indexed by the dictIds, not decoded per row (a date string parsed once)."""
    if not pa.types.is_dictionary(column.type):
        return bucket_keys(time_values_ms(decoded(column), spec), bucket_ms)
    parts = [bucket_keys(time_values_ms(chunk.dictionary, spec), bucket_ms)[chunk.indices.to_numpy(
        zero_copy_only=False)] for chunk in column.chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def split_by_key(rows: PinotColumns, keys: np.ndarray) -> dict[tuple, PinotColumns]:
    if len(keys) == 0:
        return {}
    if (keys == keys[0]).all():  # the common case (a segment of one bucket and partition): no sort
        return {tuple(int(v) for v in keys[0]): rows}
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    if len(distinct) == 1:
        return {tuple(int(v) for v in distinct[0]): rows}
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(distinct) + 1))
    return {tuple(int(v) for v in distinct[i]): take(rows, order[bounds[i]:bounds[i + 1]])
            for i in range(len(distinct))}


# --- sized cutting -----------------------------------------------------------------------------------------

# What one distinct value of a dictionary column costs a segment besides its dictionary entry, by the indexes
# the column has: an inverted index's bitmap (its offset 4 B, the roaring bitmap's header 8 B, one container's
# key, cardinality and offset 8 B); a sorted column's forward index (the value's first and last docId, 8 B).
INVERTED_PER_VALUE, SORTED_PER_VALUE = 20, 8
# A segment's metadata files (metadata.properties, index_map) per column: ~660 B and ~150 B in Pinot's
# format; merged inputs keep one set. Tiny inputs (a few hundred rows) are mostly these.
METADATA_PER_COLUMN = 800


def merged_bytes_per_row(rows: PinotColumns, bytes_per_row: float, per_value: Mapping[str, int],
                         sorted_column: str | None = None, value_widths: Mapping[str, int] | None = None) -> float:
    """The untarred bytes per row of a segment built from ``rows``, estimated from the inputs' own
    ``bytes_per_row``: a value held by several inputs' dictionaries (each input's chunk of a dictionary
    column carries its segment's dictionary) is one entry of the merged segment's dictionary, and one bitmap
    of its inverted index (``per_value``: a distinct value's other bytes); the forward index's dictIds grow to
    the merged cardinality's bits; the inputs' metadata files become one segment's. Only aims the first
    segment (``Cutter.estimate``): what it builds is measured and kept only inside the band.
    ``value_widths``: a dictionary entry's bytes of each number column the segment encodes with a dictionary;
    one held as values (``_held_single_value``) counts each chunk's distinct values as its input's dictionary."""
    count = rows.table.num_rows
    if count == 0:
        return bytes_per_row
    saved, inputs = 0.0, 1  # inputs: as many as the most dictionaries a column's chunks carry
    for name in rows.table.column_names:
        column = rows.table.column(name)
        listed = is_encoded_list(column.type)
        if not (pa.types.is_dictionary(column.type) or listed):
            if name in (value_widths or {}) and column.num_chunks > 1 and column.null_count == 0 and (
                    pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
                values_saved, held = _values_saved(column, value_widths[name] + per_value.get(name, 0),
                                                   name != sorted_column)
                saved, inputs = saved + values_saved, max(inputs, held)
            continue
        chunks = [chunk.flatten() if listed else chunk for chunk in column.chunks if len(chunk)]
        # a dictionary once however many chunks carry it (the rest of a segment cut before)
        dictionaries = {(chunk.dictionary.buffers()[-1].address, len(chunk.dictionary)): chunk for chunk in chunks}
        inputs = max(inputs, len(dictionaries))
        if len(dictionaries) < 2:
            continue
        held = sum(len(chunk.dictionary) for chunk in dictionaries.values())
        merged = pa.concat_arrays([chunk.dictionary for chunk in dictionaries.values()])
        distinct = _distinct(merged)
        saved += (held - distinct) * (_value_width(merged) + per_value.get(name, 0))
        if name != sorted_column:  # the sorted column's forward index is per value (per_value)
            entries = sum(len(chunk) for chunk in chunks)
            bits = sum(len(chunk) * bits_per_value(len(chunk.dictionary)) for chunk in chunks)
            saved -= (entries * bits_per_value(distinct) - bits) / 8
    saved += (inputs - 1) * METADATA_PER_COLUMN * rows.table.num_columns
    return max(bytes_per_row - saved / count, 0.25 * bytes_per_row)


def _values_saved(column: pa.ChunkedArray, entry_bytes: float, forward: bool) -> tuple[float, int]:
    """``merged_bytes_per_row``'s saving for a dictionary column held as values: each input's values (the
    whole buffer its chunks slice, as an input's chunks carry its whole dictionary) its own dictionary of
    their distinct values, as the input's segment had. With how many inputs' values it holds."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    width = column.type.bit_width // 8
    inputs = {chunk.buffers()[1].address: chunk.buffers()[1] for chunk in chunks}
    counts = {address: _distinct(pa.Array.from_buffers(column.type, buffer.size // width, [None, buffer]))
              for address, buffer in inputs.items()}
    distinct = _distinct(pa.concat_arrays([pa.Array.from_buffers(column.type, buffer.size // width, [None, buffer])
                                           for buffer in inputs.values()]))
    saved = (sum(counts.values()) - distinct) * entry_bytes
    if forward:  # its forward index is of dictIds (not the sorted column's)
        entries = sum(len(chunk) for chunk in chunks)
        bits = sum(len(chunk) * bits_per_value(counts[chunk.buffers()[1].address]) for chunk in chunks)
        saved -= (entries * bits_per_value(distinct) - bits) / 8
    return saved, len(inputs)


_DICTIONARY_OF = {pa.int32(): "INT", pa.int64(): "LONG"}


def _distinct(values: pa.Array) -> int:
    """How many distinct values: of INTs and LONGs by the builder's own way to their dictionary (values that
    never fall, a time column's dictionaries one after the other, in one pass; ids over a small span by a
    presence table: 335 inputs' customer ids, 6.4M values, 4x faster than their sort), of other numbers sorted
    (a stable sort merges the segments' sorted dictionaries as runs: ~5x faster than hashing a mostly distinct
    column), else hashed."""
    if values.type in _DICTIONARY_OF and not values.null_count:
        return build_dictionary(values, _DICTIONARY_OF[values.type], "", ids=False).cardinality
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        ordered = np.sort(values.to_numpy(zero_copy_only=False), kind="stable")
        return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1 if len(ordered) else 0
    return pc.count_distinct(values).as_py()


def _value_width(values: pa.Array) -> float:
    """A dictionary entry's bytes: a fixed width, or a string's padded to the longest (Pinot's default)."""
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        return values.type.bit_width / 8
    longest = pc.max(pc.binary_length(values)).as_py()
    return float(longest or 0)



@dataclass
class Built:
    """A built segment: what the caller's ``build`` returns."""

    name: str
    rows: int
    size: int  # untarred (module doc)
    tar_path: str
    keep: Callable[[], None]  # stage it (accepted)
    drop: Callable[[], None]  # delete it (to be built again)


@dataclass
class _Piece:
    """Rows of one key held by the cutter: rows ``[start, start + count)`` of what ``origin`` (the caller's
    token for where the rows came from, or None) gave ``Cutter.add``. ``rows`` is None while a build holds
    them alone (``Cutter.reread``)."""

    rows: PinotColumns | None
    origin: object
    start: int
    count: int
    shared: bool = False  # its rows are a slice of buffers that also hold rows of a segment built before it

    def cut(self, at: int) -> tuple["_Piece", "_Piece"]:
        """Its first ``at`` rows and the rest, without copies (slices of the same buffers)."""
        return (_Piece(take(self.rows, slice(0, at)), self.origin, self.start, at),
                _Piece(take(self.rows, slice(at, self.count)), self.origin, self.start + at, self.count - at,
                       shared=True))

    def owned(self) -> "_Piece":
        """Once the segment of its input's first rows is built: its own rows copied out of the input's
        buffers (but for the dictionaries, shared), so that those (the built rows' too) go. Held as a slice,
        the whole input stayed through the next segment's build beside its rows (~half an input on average:
        16mb compactions of 100k-row inputs, -0.2-0.3x the target at the peak; docs/performance-log.md)."""
        if not self.shared or self.rows is None:
            return self
        return _Piece(take(self.rows, np.arange(self.count)), self.origin, self.start, self.count)


def _split(pieces: list[_Piece], count: int) -> tuple[list[_Piece], list[_Piece]]:
    """The pieces of the first ``count`` rows and those of the rest (a piece across the line cut in two)."""
    head: list[_Piece] = []
    for index, piece in enumerate(pieces):
        if count <= 0:
            return head, pieces[index:]
        if piece.count <= count:
            head.append(piece)
            count -= piece.count
            continue
        first, rest = piece.cut(count)
        return head + [first], [rest] + pieces[index + 1:]
    return head, []


@dataclass
class Cutter:
    """Cuts each key's rows into segments of about ``target`` bytes (module doc).

    With ``reread`` (given the ``origin`` of an ``add``, the same rows again: the caller re-reads its source),
    a segment's rows (of fewer than ``reread_below``) are handed to its build as their only reference, so that
    the builder, letting go of each column once built (``BuildOptions.release_input``), holds less than all the
    rows (~1.5x the target) beside its last, largest columns' working arrays (64mb: -0.25x the target at the
    peak; docs/performance-log.md, compaction memory, held rows). A build outside the size band, rare after the
    first, gets its rows back by ``reread`` for the next build.
    Without it (rollup and dedup, whose rows are reduced, not a source's) the cutter keeps them."""

    target: int
    build: Callable[[PinotColumns, tuple], Built]
    bytes_per_row: float
    reduce: Callable[[PinotColumns], PinotColumns] | None = None  # rollup / dedup: applied to all of a key's rows
    # bytes per row of a segment of these rows, from the inputs' (``merged_bytes_per_row``): taken once, before
    # the first build, when ``bytes_per_row`` is still the inputs'
    estimate: Callable[[PinotColumns, float], float] | None = None
    reread: Callable[[object], PinotColumns] | None = None
    # Segments of at least this many rows keep their rows held (None: no limit): where the builder gives freed
    # pages back (``builder.RELEASE_FREE_MIN_ROWS``), rows let go mid-build were given back too and faulted in
    # again by the next reads (256mb: +7% CPU-s for -0.15x the target; docs/performance-log.md)
    reread_below: int | None = None
    pending: dict[tuple, list[_Piece]] = field(default_factory=dict)
    rows: dict[tuple, int] = field(default_factory=dict)
    builds: int = 0  # every build, kept or not (the report says how many were rebuilt)
    rereads: int = 0  # rows of a segment read again for a build after one that missed the band

    def want(self) -> int:
        return max(1, int(AIM * self.target / max(self.bytes_per_row, 1e-9)))

    def add(self, key: tuple, rows: PinotColumns, origin: object = None) -> None:
        """``origin``: what ``reread`` takes to give these rows again (None: they cannot be re-read)."""
        self.pending.setdefault(key, []).append(_Piece(rows, origin, 0, rows.table.num_rows))
        self.rows[key] = self.rows.get(key, 0) + rows.table.num_rows
        del rows  # the pieces' alone (a build may let them go)
        if self.reduce is None:
            self._drain(key, final=False)
        elif self.rows[key] >= 2 * max(self.want(), 100_000):
            self._reduce(key)

    def finish(self) -> None:
        for key in sorted(self.pending):
            if self.reduce is not None and self.pending[key]:
                self._reduce(key)
            self._drain(key, final=True)
        self.pending.clear()
        self.rows.clear()

    def _reduce(self, key: tuple) -> None:
        reduced = self.reduce(concat([p.rows for p in self.pending[key]]))  # memory: the key's distinct rows
        self.pending[key] = [_Piece(reduced, None, 0, reduced.table.num_rows)]
        self.rows[key] = reduced.table.num_rows

    def _drain(self, key: tuple, *, final: bool) -> None:
        while self.rows.get(key, 0) > 0:
            have = self.rows[key]
            if have < self.want() and not final:
                return
            if self.estimate is not None:
                estimate, self.estimate = self.estimate, None
                rows = concat([p.rows for p in self.pending[key]])
                self.bytes_per_row = estimate(take(rows, slice(0, min(self.want(), have))), self.bytes_per_row)
                del rows
                if self.want() > have and not final:
                    return  # a right-sized segment needs more rows than the inputs' size said
            count = min(self.want(), have)
            for attempt in range(1, MAX_BUILDS + 1):
                head, rest = _split(self.pending[key], count)
                rows = take(concat([p.rows for p in head]), slice(0, count))  # the build's own object
                if self.reread is not None and (self.reread_below is None or count < self.reread_below) and all(
                        p.origin is not None for p in head):
                    self.pending[key] = [_Piece(None, p.origin, p.start, p.count) for p in head] + rest
                    del head  # the build holds the segment's rows alone
                built = self.build(rows, key)
                del rows
                self.builds += 1
                size = built.size
                if count == 1 and size > HIGH * self.target:  # no cut can meet it: a segment per row, refused
                    built.drop()
                    raise CompactionError(
                        f"--target-size is {self.target:,} bytes, smaller than a one-row segment of this table "
                        f"({size:,} bytes untarred: a segment's metadata and indexes take room whatever its "
                        f"rows); give a larger --target-size")
                last = final and count == have
                fits = (LOW * self.target <= size <= HIGH * self.target) or (last and size <= HIGH * self.target)
                self.bytes_per_row = size / max(count, 1)
                if fits or attempt == MAX_BUILDS:
                    if not fits:
                        log.warning("pinot_sink: compaction: segment %s is %.1f%% of the target after %d builds",
                                    built.name, 100 * size / self.target, attempt)
                    break
                built.drop()
                self._reread(key)
                if self.want() > have and not final:
                    return  # more rows are needed for a right-sized segment
                count = min(self.want(), have)
            built.keep()
            self.pending[key] = [rest[0].owned()] + rest[1:] if rest else rest
            self.rows[key] = have - count

    def _reread(self, key: tuple) -> None:
        """The rows a build held alone back in the key's pieces (``reread``), for the next build."""
        pieces = self.pending[key]
        for index, piece in enumerate(pieces):
            if piece.rows is None:
                self.rereads += 1
                again = self.reread(piece.origin)
                pieces[index] = _Piece(take(again, slice(piece.start, piece.start + piece.count)), piece.origin,
                                       piece.start, piece.count)


def remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
