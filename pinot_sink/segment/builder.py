"""Build a Pinot segment from rows in Pinot's stored form: ``build_segment``.

Per column: the rows in segment order, the dictionary (always computed: it gives the statistics; written
unless the column is raw) and the statistics, then each index from the writer that applies to it
(``index_writers``: dictionary, forward, inverted, range, bloom filter, null value vector), and the
partition metadata (``partition``). Then ``metadata.properties``, the v1 or v3 layout with its CRCs, and the tarball,
which appears at ``out_dir/<name>.tar.gz`` atomically or not at all.

A column may come dictionary-encoded (an Arrow ``dictionary`` column, or a multi-value one's
``list<dictionary>``; ``encoded``): its rows are then not decoded where its dictIds and dictionary are all
that is needed. The bytes are the same.
"""
from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.datetime_formats import (VALID_MAX_TIME_MS, VALID_MIN_TIME_MS, DateTimeFormatError, parse_format,
                                          parse_simple_date, range_to_millis, stored_to_millis)
from type_mapping.pinot_schema import FIXED_WIDTH_STORED, METRIC, FieldSpec, PinotSchema
from type_mapping.stored import ARROW_STORED_TYPE, PinotColumns, fill_defaults, offsets_view

from .bitpack import bits_per_value
from .dictionary import (NUMPY_NATIVE, ColumnValueError, Dictionary, build_dictionary, entry_width,
                         non_decreasing)
from .encoded import decoded_unless_encodable, dictionary_of_encoded, dictionary_of_encoded_lists, is_encoded_list
from .format import INVALID_NAME_CHARS, tarball_name
from .gather import gather
from .index_policy import IndexPlan, normalise_mode, plan_indexes
from .index_writers import INDEX_WRITERS, ColumnContext, has_dict_ids
from .layout import IndexEntry, segment_file_parts
from .row_order import rows_by_dict_id, rows_by_dict_id_narrow, rows_by_dict_id_runs
from .metadata import ColumnMetadata, PartitionInfo, SegmentMetadata, metadata_bytes
from .partition import canonical_function_name, partition_values
from .spill import Pieces, Spill
from .stats import ColumnStats, collect_stats, flatten
from . import startree
from .table_config import ColumnIndexSettings, TableConfig, TableConfigError, TableIndexSettings
from .tarball import directory_bytes, write_directory, write_tarball
from type_mapping.errors import PinotSinkError
from .timestamp_index import with_timestamp_columns

log = logging.getLogger(__name__)



class SegmentBuildError(PinotSinkError, ValueError):
    """The segment cannot be built; the message names the column (and row) where it applies."""


@dataclass
class BuildOptions:
    segment_version: str | None = None  # None: the table config's segmentFormatVersion, else v3
    keep_dir: bool = False  # also leave the untarred directory out_dir/<name>/
    sort_by_sorted_column: bool = True  # sort rows (stably) by the table's sortedColumn
    unsupported_indexes: str = "defer"  # "defer" | "error": indexes only the server builds (index_policy)
    # decided on the driver (prepare_job, which logs it); None: decided here
    index_plan: IndexPlan | None = field(default=None, repr=False)
    time_check: bool | None = None  # None: on unless ingestionConfig.segmentTimeValueCheck is false
    custom_properties: dict[str, str] = field(default_factory=dict)  # custom.* metadata keys
    # Threads building columns and compressing the tarball (numpy, pyarrow and zlib release the GIL);
    # None: default_threads() (usable CPUs, at most 4). The output bytes do not depend on it. Inside a
    # Spark task that already has one core per task, 1 avoids oversubscribing the executor.
    threads: int | None = None
    tar_codec: str = "gzip"  # gzip | lz4 | zstd: the tarball's compression (tar_codecs.py; Pinot 1.3.0+ reads all)
    # Let go of each column's rows once its indexes are built (the rows handed in are emptied): a segment
    # being built then holds its indexes in place of its rows instead of both. For callers that are done
    # with the rows (a Spark task); the memory comes back only if the caller holds no other reference.
    release_input: bool = False
    # Called before each column of at least the average size on one thread, in builds of at least
    # RELEASE_FREE_MIN_ROWS rows: hands the heap's free pages back to the system (``allocator.release_free``;
    # the compaction's until cpu20k3). The frees of one column leave holes the next, differently sized arrays
    # do not fit, and they stay resident: at a 256mb compaction ~0.4x the target of the peak when first
    # measured, <= 0.1x since the held rows shrank, for ~1 CPU-s of page faults (docs/performance-log.md).
    # None: nothing is called.
    release_free: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    # One thread: the columns largest first, not smallest first (the compaction's). Its large raw columns'
    # 15 MB arrays then come while the space the previous build's arrays left is still whole, before the small
    # columns' working arrays are cut from it: a 64mb compaction of 1 GB peaked at 2.99x the target against
    # 3.12x, 16mb 3.77-3.88x against 3.88-4.02x (docs/performance-log.md). A Spark task keeps smallest first.
    largest_first: bool = False
    # The segment's row order in int32 by a blockwise counting sort (the compaction's): 4 bytes a row less
    # through the build and no intp argsort buffers (~30 MB at a 64mb compaction's start, every row held),
    # but numpy's gathers copy int32 indices to intp a block at a time: ~5% of a Spark task's CPU-s
    # (bench/task_cpu.py), whose memory is within its goal; a task keeps the intp order.
    narrow_order: bool = False


@dataclass
class BuiltSegment:
    name: str
    tar_path: Path
    dir_path: Path | None
    rows: int
    tar_bytes: int
    crc: int
    data_crc: int
    creation_time_ms: int
    time_column: str | None
    start_time: int | None
    end_time: int | None
    time_unit: str | None
    time_min_value: Any = None  # the time column's raw min / max (stored values)
    time_max_value: Any = None
    segment_version: str = "v3"
    partitions: dict[str, list[int]] = field(default_factory=dict)
    skipped_indexes: list[str] = field(default_factory=list)
    dir_bytes: int = 0  # the untarred segment's size (its files' bytes)


# ``BuildOptions.release_free`` is called for builds of at least this many rows only: their int64-per-row
# working arrays (32 MiB and more) are over glibc's largest mmap threshold, mapped fresh and never placed in the
# heap's holes, so the holes given back are not faulted in again by them (a 256mb compaction, 7.6M rows a build:
# the same CPU-s, the peak -0.44x the target). Smaller builds reuse the holes: trimmed, the 64mb compaction's
# 1.9M-row builds took 10-15% more CPU-s in page faults for -0.47x (docs/performance-log.md, compaction memory).
RELEASE_FREE_MIN_ROWS = 4 << 20


def default_threads() -> int:
    """The CPUs this process may run on (its affinity, not the machine's count), at most 4."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, usable or 1))


def validate_segment_name(name: str, table_type: str = "OFFLINE") -> None:
    if not name or name.strip() != name:
        raise SegmentBuildError(f"segment name {name!r} is empty or has leading/trailing spaces")
    bad = sorted(set(name) & set(INVALID_NAME_CHARS))
    if bad:
        raise SegmentBuildError(f"segment name {name!r} contains characters Pinot rejects: {' '.join(bad)}")
    if name.count("__") == 4 and str(table_type).upper() == "REALTIME":
        pass  # UploadedRealtimeSegmentName: what a REALTIME table's uploaded segments are named
    elif name.count("__") in (3, 4):
        # Pinot parses names with 3 or 4 "__" separators as LLC / uploaded realtime segment names.
        raise SegmentBuildError(f"segment name {name!r} has {name.count('__')} '__' separators, which Pinot "
                                "would take for a realtime segment name")
    if name in (".", ".."):
        raise SegmentBuildError(f"segment name {name!r} is not allowed")


def build_segment(
    columns: PinotColumns,
    schema: PinotSchema,
    table_config: TableConfig,
    out_dir,
    segment_name: str,
    creation_time_ms: int | None = None,
    options: BuildOptions | None = None,
    spill: Spill | None = None,
) -> BuiltSegment:
    """``spill``: where each column's index payloads go as soon as they are built, to be tarred from there
    (spill.py; restarted here, so its earlier spans are done with): a segment in flight then holds no
    indexes in memory, only the rows still to build and one column's working arrays. The same bytes."""
    options = options or BuildOptions()
    normalise_mode(options.unsupported_indexes)
    validate_segment_name(segment_name, table_config.table_type)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if creation_time_ms is None:
        creation_time_ms = int(time.time() * 1000)
    try:
        columns.validate(schema)
    except ValueError as exc:
        raise SegmentBuildError(str(exc)) from None
    commas = [name for name in schema.column_names if "," in name]
    if commas:
        raise SegmentBuildError(f"columns {commas}: Pinot's metadata lists cannot hold a column name with a comma")
    total_docs = columns.num_rows
    if total_docs == 0:
        raise SegmentBuildError(f"segment {segment_name!r}: no rows (empty segments are never written)")

    config = table_config
    try:
        plan = options.index_plan or plan_indexes(config, schema, options.unsupported_indexes)
    except TableConfigError as exc:
        raise SegmentBuildError(str(exc)) from None
    settings = config.indexes
    star_columns = _star_columns(config, schema)
    given, columns = columns, decoded_unless_encodable(columns, schema, settings, star_columns)
    columns, schema, settings = with_timestamp_columns(columns, schema, settings)
    version = (options.segment_version or settings.segment_version).lower()
    version = "v1" if version == "v2" else version  # v2 has the v1 layout
    if version not in ("v1", "v3"):
        raise SegmentBuildError(f"segment version {version!r} is not supported (v1 or v3)")
    skipped = list(plan.deferred_lines())

    source = {spec.name: columns.table.column(spec.name) for spec in schema}
    masks = dict(columns.null_masks)
    defaults = dict(columns.defaults)  # columns whose null rows are not filled yet (type_mapping.stored)
    if options.release_input:
        for held in {id(given): given, id(columns): columns}.values():  # given: its encoded columns decoded
            held.table, held.null_masks, held.defaults = held.table.schema.empty_table(), {}, {}
    del given
    sorted_column = settings.sorted_columns[0] if options.sort_by_sorted_column and settings.sorted_columns \
        else None
    for name in list(defaults):
        # The dictId path (_column_context) fills a dictionary column's defaults as dictIds; the sortedColumn,
        # raw columns and star-tree dimensions read values from the start: they get them filled now.
        if name == sorted_column or name in star_columns or not has_dict_ids(settings.columns[name]):
            source[name] = pa.chunked_array([fill_defaults(_widened(source[name], schema[name]), masks[name],
                                                            defaults.pop(name))])
    order, sorted_dictionary = None, None  # order: the segment's, when not the input's
    if sorted_column in source and pa.types.is_dictionary(source[sorted_column].type):  # encoded (module doc)
        try:
            sorted_dictionary = dictionary_of_encoded(source[sorted_column], schema[sorted_column].stored_type,
                                                      sorted_column)
        except ColumnValueError as exc:
            raise SegmentBuildError(str(exc)) from None
        order = _order_of_ids(sorted_dictionary, options.narrow_order)
    elif sorted_column is not None:
        if sorted_column in source:  # joined once for its order and its own build (which would join it again)
            source[sorted_column] = _joined(source[sorted_column], _stored_arrow_type(schema[sorted_column]))
        order, sorted_dictionary = _sorted_order(source, schema, sorted_column, options.narrow_order)

    if spill is not None:
        spill.restart()
    threads = options.threads if options.threads is not None else default_threads()
    release_free = options.release_free if threads <= 1 and total_docs >= RELEASE_FREE_MIN_ROWS else None
    entries: list[IndexEntry] = []
    column_meta: dict[str, ColumnMetadata] = {}
    partitions: dict[str, list[int]] = {}
    star_inputs: dict[str, ColumnContext] = {}

    def build(spec: FieldSpec) -> tuple[ColumnMetadata, list[IndexEntry]]:
        nonlocal sorted_dictionary
        release = options.release_input
        column = source.pop(spec.name) if release else source[spec.name]
        try:
            prebuilt, lengths = sorted_dictionary if spec.name == sorted_column else None, None
            if pa.types.is_dictionary(column.type):  # encoded: its dictionary from the chunks' (module doc)
                if prebuilt is None:
                    prebuilt = dictionary_of_encoded(column, spec.stored_type, spec.name)
                column = pa.chunked_array([], ARROW_STORED_TYPE[spec.stored_type])  # its rows are never read
            elif is_encoded_list(column.type):
                prebuilt, lengths = dictionary_of_encoded_lists(column, spec.stored_type, spec.name)
                column = pa.chunked_array([], pa.list_(ARROW_STORED_TYPE[spec.stored_type]))
            else:  # joined here, where the chunks' one reference is rebound (with release_input): they go now,
                # not after the column is built (a raw LONG's 15 MB at 64mb)
                column = _joined(column, _stored_arrow_type(spec))
            handed, column = [column], None  # its one reference, taken by _column_context (release_input)
            ctx = _column_context(spec, handed, masks.pop(spec.name, None) if release else masks.get(spec.name),
                                  settings.columns[spec.name], settings, total_docs, plan.mode, order, prebuilt,
                                  keep_values=not release or spec.name in star_columns,
                                  default=defaults.get(spec.name), encoded_lengths=lengths)
            del column, handed, prebuilt, lengths
            if spec.name == sorted_column and release:
                sorted_dictionary = None
            meta, column_entries = _build_column(ctx)
            if spec.name in star_columns:  # the star-trees are built from these columns' dictIds afterwards
                star_inputs[spec.name] = ctx
            del ctx
        except ColumnValueError as exc:
            raise SegmentBuildError(str(exc)) from None
        except (ValueError, TypeError, OverflowError) as exc:  # from an index writer: say which column
            raise SegmentBuildError(f"column {spec.name!r}: {exc}") from exc
        for entry in column_entries:
            if isinstance(entry.payload, Pieces):  # made a block at a time: written so, or joined without a spill
                if spill is not None:
                    entry.payload, entry._adler = spill.hold_pieces(entry.payload)
                    continue
                entry.payload = entry.payload.joined()
            entry.adler  # the CRCs combine these; computing them here spreads them over the threads
            if spill is not None:
                entry.payload = spill.hold(entry.payload)
        return meta, column_entries

    specs = list(schema)
    if threads <= 1:
        # Smallest columns first: the largest one's working arrays (a multi-value column's dictionary and
        # reorder, the build's peak) then meet the fewest rows still held, and the space the others freed.
        # Measured with release_input on one thread: memory_probe 16mb 42-46 MB against 47-48 in schema
        # order, 32mb unchanged (docs/performance.md, "Task memory").
        built = [None] * len(specs)
        sizes = [_held_bytes(source[spec.name], options.largest_first) for spec in specs]
        for i in sorted(range(len(specs)), key=lambda i: -sizes[i] if options.largest_first else sizes[i]):
            # Before the larger columns only (at least the average): the peak is theirs, and what a small
            # column (or the sorted order, at the start) would reuse of the space trimmed is faulted in again
            # for nothing (~30k page faults more per 4M rows at 64mb, the same peak)
            if release_free is not None and sizes[i] * len(sizes) >= sum(sizes):
                release_free()
            try:
                built[i] = build(specs[i])
            except SegmentBuildError:
                for earlier in range(i):  # the first failing column in schema order is reported, as on threads
                    if built[earlier] is None:
                        build(specs[earlier])
                raise
    else:
        # Largest columns first, so that no big one starts last while the other threads idle.
        largest_first = sorted(range(len(specs)), key=lambda i: -source[specs[i].name].nbytes)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [None] * len(specs)
            for i in largest_first:
                futures[i] = pool.submit(build, specs[i])
            try:
                built = [future.result() for future in futures]  # schema order; the first failing column wins
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    for spec, (meta, column_entries) in zip(schema, built):
        entries.extend(column_entries)
        column_meta[spec.name] = meta
        if meta.partition is not None:
            partitions[spec.name] = list(meta.partition.partitions)
    del built

    time_column, start, end, unit, tmin, tmax = _time_range(
        settings, schema, column_meta,
        settings.segment_time_check if options.time_check is None else options.time_check,
    )
    meta = SegmentMetadata(
        segment_name=segment_name,
        table_name=settings.raw_table_name,
        schema=schema,
        total_docs=total_docs,
        columns=column_meta,
        time_column=time_column,
        start_time=start,
        end_time=end,
        time_unit=unit,
        custom={f"custom.{k}" if not k.startswith("custom.") else k: str(v)
                for k, v in options.custom_properties.items()},
    )
    metadata = metadata_bytes(meta, version)
    star_inputs = {spec.name: star_inputs[spec.name] for spec in schema if spec.name in star_inputs}
    star = _star_trees(config, schema, star_inputs, total_docs) if star_columns else None
    if star is not None:  # MultipleTreesBuilder re-saves metadata.properties with its keys appended
        metadata = metadata_bytes(meta, version, resaved=True) + star.metadata
    files = segment_file_parts(entries, metadata, version, creation_time_ms, star.files if star else None)
    tar_path = out_dir / tarball_name(segment_name)
    mtime = creation_time_ms // 1000
    tar_bytes = write_tarball(tar_path, segment_name, files.directories, files.files, mtime, threads,
                              options.tar_codec)
    dir_path = None
    if options.keep_dir:
        dir_path = out_dir / segment_name
        try:
            write_directory(dir_path, files.directories, files.files)
        except BaseException:
            tar_path.unlink(missing_ok=True)
            raise
    return BuiltSegment(
        name=segment_name,
        tar_path=tar_path,
        dir_path=dir_path,
        rows=total_docs,
        tar_bytes=tar_bytes,
        crc=files.crc,
        data_crc=files.data_crc,
        creation_time_ms=creation_time_ms,
        time_column=time_column,
        start_time=start,
        end_time=end,
        time_unit=unit,
        time_min_value=tmin,
        time_max_value=tmax,
        segment_version=version,
        partitions=partitions,
        skipped_indexes=skipped,
        dir_bytes=directory_bytes(files.files),
    )


def _star_columns(table_config: TableConfig, schema: PinotSchema) -> set[str]:
    if not startree.has_star_trees(table_config):
        return set()
    try:
        return startree.needed_columns(table_config, schema)
    except startree.StarTreeConfigError as exc:
        raise SegmentBuildError(f"star-tree index: {exc}") from None


def _star_trees(table_config: TableConfig, schema: PinotSchema, contexts: dict[str, ColumnContext], total_docs: int):
    columns = {
        name: startree.StarTreeColumn(
            has_dictionary=ctx.has_dictionary, cardinality=ctx.stats.cardinality,
            dict_ids=ctx.dictionary.dict_ids,
            dictionary_values=ctx.dictionary.values, values=ctx.values, row_lengths=ctx.row_lengths,
            stored_type=ctx.spec.stored_type, single_value=ctx.spec.single_value)
        for name, ctx in contexts.items()
    }
    if not columns:
        return None
    try:
        return startree.build_star_trees(table_config, schema, columns, total_docs)
    except startree.StarTreeConfigError as exc:
        raise SegmentBuildError(f"star-tree index: {exc}") from None


# --- dictionary or raw ------------------------------------------------------------------------------


def _keeps_dictionary(c: ColumnIndexSettings, spec: FieldSpec, stats: ColumnStats,
                      settings: TableIndexSettings) -> bool:
    """``DictionaryIndexType.ignoreDictionaryOverride``: the ``optimizeDictionary*`` heuristics."""
    if c.inverted:
        return True
    if settings.optimize_dictionary and spec.single_value:
        return _single_value_keeps_dictionary(spec, stats, settings)
    if (settings.optimize_dictionary_for_metrics and not settings.optimize_dictionary and spec.single_value
            and spec.field_type == METRIC):
        return _single_value_keeps_dictionary(spec, stats, settings)
    return True


def _single_value_keeps_dictionary(spec: FieldSpec, stats: ColumnStats, settings: TableIndexSettings) -> bool:
    total, cardinality = stats.total_number_of_entries, stats.cardinality
    if spec.is_fixed_width:
        size = FIXED_WIDTH_STORED[spec.stored_type]
        with_dictionary = cardinality * size + (total * bits_per_value(cardinality) + 7) // 8
        return (total * size) / with_dictionary > settings.no_dictionary_size_ratio_threshold
    threshold = settings.no_dictionary_cardinality_ratio_threshold
    return threshold is None or threshold * total > cardinality


# --- rows ------------------------------------------------------------------------------------------


def _sorted_order(source: Mapping[str, pa.ChunkedArray], schema: PinotSchema, column: str,
                  narrow: bool = False) -> tuple[np.ndarray | None, Dictionary | None]:
    """The stable row order by the sortedColumn's values (None: keep the input's), and that column's
    dictionary (dictIds in input order), which its own build reuses. Columns are not reordered here: each
    column applies the order to its dictIds (or, raw, its values), which costs far less than reordering
    strings and lists."""
    if column not in schema:
        log.warning("sortedColumn %r is not in the schema; rows keep their order", column)
        return None, None
    spec = schema[column]
    if not spec.single_value:
        raise SegmentBuildError(f"column {column!r}: a multi-value column cannot be the sortedColumn")
    values, _ = flatten(source[column], True)
    try:
        dictionary = build_dictionary(values, spec.stored_type, column)
    except ColumnValueError as exc:
        raise SegmentBuildError(str(exc)) from None
    return _order_of_ids(dictionary, narrow), dictionary


def _order_of_ids(dictionary: Dictionary, narrow: bool = False) -> np.ndarray | None:
    """The stable row order by the sortedColumn's dictIds; None when the rows are in it already."""
    ids = dictionary.dict_ids
    # Rows already in the column's order keep theirs (the stable order would be the identity): told from the
    # dictIds, with no sort, at half the instructions of checking the order a sort gives (int32 against intp).
    if bool((ids[1:] >= ids[:-1]).all()):
        return None
    runs = rows_by_dict_id_runs(ids, np.int32 if narrow and len(ids) < 2**31 else np.intp)
    if runs is not None:  # a compaction's inputs, each in the column's order already
        return runs
    if narrow and len(ids) < 2**31:
        # int32, not intp: the order lives through the whole build (7.5 MB less at a 64mb compaction's 1.9M
        # rows), and its counting sort never holds an intp copy (the whole-column argsort held two beside the
        # keys: ~30 MB at the build's start, where every row is still held); gathers by it go a block at a time
        return rows_by_dict_id_narrow(ids, dictionary.cardinality, np.int32)
    return rows_by_dict_id(ids, dictionary.cardinality)


REORDER_BLOCK_ROWS = 65_536  # a multi-value column is reordered this many output rows at a time


def _reorder_multi_value(dict_ids: np.ndarray, row_lengths: np.ndarray, order: np.ndarray | None,
                         firsts: np.ndarray | None = None, marked_first: int | None = None):
    """A multi-value column's flattened dictIds and its row lengths in the segment's row order (``order``;
    None: the input's). ``firsts``: where each input row's values start in ``dict_ids`` (by default one row
    after the other; the rows of a [default] not written yet all point at it). ``marked_first`` (with
    ``order`` and ``firsts``): also return which output rows start there, from the gather that moves the
    starts anyway. (A stable radix sort of the
    values by their row's sortedColumn key took a third fewer instructions, but its int64 order of every
    value and the sort's buffers raised the 32mb task peak by ~12 MB: docs/performance.md.)"""
    if firsts is None and order is None:
        return dict_ids, row_lengths
    if firsts is None and (row_lengths == 0).any():  # not from the builder, which refuses empty rows
        lengths = gather(row_lengths, order)
        filled = row_lengths > 0
        values, _ = _reorder_multi_value(dict_ids, row_lengths[filled], _compact_order(order[lengths > 0], filled))
        return values, lengths
    # The starts in int32 (half of intp's bytes, the list column's largest array beside its values) while the
    # values fit; a block's are gathered and cast to intp below (the gathers would copy int32 indices to intp
    # anyway). Each block gathers its rows' starts by the order: no whole gathered copy of them beside the starts
    # (a packed start and length gathered whole was 15 MB of a 64mb compaction's build, and ~10% slower).
    if firsts is None:
        firsts = np.cumsum(row_lengths, dtype=np.int32 if len(dict_ids) < 2**31 else np.intp)
        firsts -= row_lengths  # where each input row's values start
    lengths = row_lengths if order is None else gather(row_lengths, order)
    marked = None if marked_first is None else np.empty(len(lengths), dtype=bool)
    # The source index of every output value, as a running sum of steps: +1 within a row, and at a row's
    # first value the jump from the previous row's last value. Made and used a block of output rows at a time,
    # written into the result: on list columns this is the build's largest working set, and a source index
    # per value (beside the dictIds and the result) was ~4.6 MB of the 32mb task's peak. A block's lengths are
    # taken in intp once (each int32 operand was cast again by every step that used it).
    out = np.empty(int(lengths.sum()), dtype=dict_ids.dtype)
    done = 0  # output values written
    for first in range(0, len(lengths), REORDER_BLOCK_ROWS):
        rows = slice(first, first + REORDER_BLOCK_ROWS)
        block = lengths[rows].astype(np.intp)
        sources = (firsts[rows] if order is None else gather(firsts, order[rows])).astype(np.intp, copy=False)
        if marked is not None:
            np.equal(sources, marked_first, out=marked[rows])
        jumps = np.empty(len(block), dtype=np.intp)
        jumps[:1] = sources[:1]
        np.subtract(sources[1:], sources[:-1], out=jumps[1:])
        jumps[1:] -= block[:-1]
        jumps[1:] += 1
        out_starts = np.cumsum(block)
        out_starts -= block
        steps = np.ones(int(out_starts[-1]) + int(block[-1]), dtype=np.intp)
        steps[out_starts] = jumps
        del out_starts, jumps, block, sources
        np.cumsum(steps, out=steps)
        np.take(dict_ids, steps, out=out[done:done + len(steps)], mode="clip")  # gather(), into the result
        done += len(steps)
    return (out, lengths) if marked is None else (out, lengths, marked)


def _compact_order(order: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """``order`` (input row numbers of the filled rows) renumbered among the filled rows only."""
    renumber = np.cumsum(filled) - 1
    return renumber[order]


# --- one column --------------------------------------------------------------------------------------


def _non_decreasing(column: pa.ChunkedArray) -> bool:
    """Whether a single-value number column (one chunk, no nulls) never decreases."""
    numbers = column.chunk(0).to_numpy(zero_copy_only=False) if column.num_chunks else np.zeros(0)
    return non_decreasing(numbers)


def _joined(column: pa.ChunkedArray, stored: pa.DataType | None = None) -> pa.ChunkedArray:
    """The column in one chunk. One copy now, in place of the buffered chunks (the caller holds no other
    reference with release_input): later steps would combine them anyway, and the chunks would stay alive
    beside the copy until the column is done, the whole column twice at the build's peak. Integers narrower
    than ``stored`` (a compaction's raw LONG values held as int32: ``merge.narrowable_columns``) are widened in
    the same copy."""
    if _narrower_integers(column, stored):
        wide = np.empty(len(column), dtype=stored.to_pandas_dtype())
        at = 0
        for chunk in column.chunks:
            wide[at:at + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
            at += len(chunk)
        return pa.chunked_array([pa.array(wide)], stored)
    return pa.chunked_array([column.combine_chunks()], column.type) if column.num_chunks > 1 else column


def _stored_arrow_type(spec: FieldSpec) -> pa.DataType | None:
    """A single-value column's Arrow type as stored (what ``_joined`` widens narrower integers to)."""
    return ARROW_STORED_TYPE[spec.stored_type] if spec.single_value else None


def _narrower_integers(column: pa.ChunkedArray, stored: pa.DataType | None) -> bool:
    """Whether the column holds integers narrower than the stored integer type (to be widened)."""
    return stored is not None and column.type != stored and pa.types.is_integer(column.type) and \
        pa.types.is_integer(stored)


def _widened(column: pa.ChunkedArray, spec: FieldSpec) -> pa.ChunkedArray:
    """The column as given, or joined and widened where it holds integers narrower than stored."""
    stored = _stored_arrow_type(spec)
    return _joined(column, stored) if _narrower_integers(column, stored) else column


def _held_bytes(column: pa.ChunkedArray, buffers: bool) -> int:
    """A column's bytes, to order the build's columns by. ``buffers`` (a compaction's): the buffers its chunks
    reference, whole (a slice of an input counts all of it), not Arrow's ``nbytes``: pyarrow's first
    ``nbytes`` of a process maps a region of its own and touches 4 MB of it (pyarrow 26), 0.25x a 16mb
    compaction's target for nothing; a write's task has paid it already (its buffer's sizes)."""
    return column.get_total_buffer_size() if buffers else column.nbytes


def _build_column(ctx: ColumnContext) -> tuple[ColumnMetadata, list[IndexEntry]]:
    """One column's indexes, each from the index writer that applies (``index_writers.INDEX_WRITERS``)."""
    spec = ctx.spec
    entries: list[IndexEntry] = []
    for writer in INDEX_WRITERS:
        if writer.applies_to(ctx):
            payload = writer.write(ctx)
            if payload is not None:
                entries.append(IndexEntry(spec.name, writer.index_id, writer.file_extension(ctx), payload))
    element_size = entry_width(ctx.dictionary) if ctx.has_dictionary else 0
    is_non_null = ctx.settings.null_vector and not any(e.index_id == "nullvalue_vector" for e in entries)
    partition = _partition_info(ctx.values, spec, ctx.table)
    return ColumnMetadata(spec, ctx.stats, ctx.has_dictionary, element_size, partition, is_non_null), entries


def _column_context(
    spec: FieldSpec,
    column: pa.ChunkedArray | list[pa.ChunkedArray],
    mask: np.ndarray | None,
    c: ColumnIndexSettings,
    settings: TableIndexSettings,
    total_docs: int,
    unsupported_mode: str,
    order: np.ndarray | None,
    prebuilt: Dictionary | None,
    keep_values: bool = True,
    default: pa.Scalar | None = None,
    encoded_lengths: np.ndarray | None = None,
) -> ColumnContext:
    """The column in segment order, its dictionary and statistics; ``order``: the segment's row order when
    it is not the input's; ``prebuilt``: this column's dictionary over the input rows, when already built
    (the sortedColumn's); ``default``: what the rows of ``mask`` stand for when the column does not hold it
    there yet (``PinotColumns.defaults``; a dictionary column's, not the sortedColumn's). ``column`` in a
    one-item list: handed over, taken out here, so that the reorder below lets go of the input (the caller's
    reference would keep it through the whole column)."""
    name = spec.name
    ids = has_dict_ids(c)
    column = _joined(column.pop() if isinstance(column, list) else column)
    if default is not None:
        return _context_filling_ids(spec, column, mask, c, settings, total_docs, unsupported_mode, order,
                                    keep_values, default)
    distinct = None  # a raw number column's distinct values, from its input order
    raw_order = None  # set: ``column`` stays in input order, its forward index writer gathers it by this
    if order is not None:
        if mask is not None:
            mask = gather(mask, order)
        if not ids and _reordered_by_writer(spec, c, settings, keep_values):
            # Only its forward index reads the values: that writer gathers them a block at a time, and the
            # reordered copy (8 bytes a row of a LONG / DOUBLE, made while the input was still held) is never
            # made: the step that grew a 64mb compaction's heap most (raw order_id and price)
            distinct = build_dictionary(flatten(column, True)[0], spec.stored_type, name, ids=False)
            raw_order = order
        elif not ids:  # a raw column writes its values: reorder them (numbers are cheap to take)
            if spec.single_value and spec.stored_type in NUMPY_NATIVE and _non_decreasing(column):
                # Its distinct values do not depend on the order, and an input already sorted (ids, times)
                # gives them without the sort that the reordered values would need: found before the take.
                # Not otherwise: the input, its sorted copy and the distinct values kept would all meet the
                # reordered copy (from the reordered values, the input is gone by then: a 64mb compaction's
                # raw order_id, 45 -> 32 MB at the step's peak; docs/performance-log.md)
                distinct = build_dictionary(flatten(column, True)[0], spec.stored_type, name, ids=False)
            column = pc.take(column, pa.array(order), boundscheck=False)  # a permutation: no bounds check
    if encoded_lengths is not None:  # a dictionary-encoded multi-value column: ``prebuilt`` has its dictIds
        values, row_lengths = None, encoded_lengths
    else:
        values, row_lengths = flatten(column, spec.single_value)
    if row_lengths is not None and (row_lengths == 0).any():
        row = int(np.argmax(row_lengths == 0))
        row = int(order[row]) if order is not None and not ids else row  # the input's row number
        raise ColumnValueError(
            f"column {name!r}: row {row} has an empty multi-value array; Pinot stores [defaultNullValue] "
            f"(the type mapping must fill it)"
        )
    if prebuilt is not None and ids:
        dictionary = prebuilt
    elif distinct is not None:
        dictionary, distinct = distinct, None
        numbers = values.to_numpy(zero_copy_only=False)
        # Only the distinct values come from the input order; sortedness and count are the segment's.
        dictionary.dict_ids, dictionary.input_count = None, len(numbers)
        dictionary.input_sorted = non_decreasing(numbers) if raw_order is None else \
            _gathered_non_decreasing(numbers, raw_order)
    else:
        dictionary = build_dictionary(values, spec.stored_type, name, ids=ids)
    reorder_ids = order is not None and ids  # a dictionary column reorders its dictIds, not its values
    if reorder_ids and spec.single_value:
        dictionary.dict_ids = gather(dictionary.dict_ids, order)
    # MV: no figure depends on order; the rows' bounds in ``values`` are the list's offsets (flatten's one chunk)
    row_starts = offsets_view(column.chunk(0)) if row_lengths is not None and column.num_chunks == 1 else None
    stats = collect_stats(spec, dictionary, row_lengths, total_docs, values, row_starts=row_starts)
    del row_starts
    del values
    has_dictionary = ids and _keeps_dictionary(c, spec, stats, settings)
    if has_dictionary and not keep_values and name not in settings.partitions:
        # Its index writers read the dictionary only: let go of the rows (with release_input nothing else
        # holds them) before the reorder and the indexes, the build's peak on list columns.
        column = pa.chunked_array([], column.type)  # empty (a slice would keep the buffers)
    if reorder_ids and not spec.single_value:
        dictionary.dict_ids, row_lengths = _reorder_multi_value(dictionary.dict_ids, row_lengths, order)
    return ColumnContext(spec, column, mask, c, settings, dictionary, row_lengths, stats, has_dictionary,
                         unsupported_mode, raw_order=raw_order)


def _reordered_by_writer(spec: FieldSpec, c: ColumnIndexSettings, settings: TableIndexSettings,
                         keep_values: bool) -> bool:
    """A raw single-value number column whose values only its forward index reads (no range or JSON index, no
    partition, no star-tree, nothing kept after the build): that writer can take them in input order and the
    segment's order (``ColumnContext.raw_order``)."""
    return (spec.single_value and spec.stored_type in NUMPY_NATIVE and not keep_values and not c.range
            and c.json is None and not c.others and spec.name not in settings.partitions)


_GATHER_BLOCK = 1 << 18  # values gathered at a time by _gathered_non_decreasing


def _gathered_non_decreasing(numbers: np.ndarray, order: np.ndarray) -> bool:
    """Whether ``numbers[order]`` never decreases, a block at a time (no reordered copy)."""
    last = None
    for start in range(0, len(order), _GATHER_BLOCK):
        block = np.take(numbers, order[start:start + _GATHER_BLOCK], mode="clip")  # gather()
        if (last is not None and not last <= block[0]) or not non_decreasing(block):
            return False
        last = block[-1]
    return True


def _context_filling_ids(spec: FieldSpec, column: pa.ChunkedArray, mask: np.ndarray, c: ColumnIndexSettings,
                         settings: TableIndexSettings, total_docs: int, unsupported_mode: str,
                         order: np.ndarray | None, keep_values: bool, default: pa.Scalar) -> ColumnContext:
    """``_column_context`` of a dictionary column whose ``mask`` rows do not hold their default yet: the
    dictionary of the values there are and the default, the default's dictId written into those rows. The
    dictionary, dictIds, row lengths and statistics are those of the filled column; ``values`` is filled
    only if an index writer may read it."""
    name = spec.name
    values, row_lengths = flatten(column, spec.single_value)
    if spec.single_value:
        nulls = int(np.count_nonzero(mask))
        rows = None  # the rows that hold a value, when found before the dictionary
        if 2 * nulls > len(values):  # mostly nulls: the values by position (Arrow's take costs per row taken,
            rows = np.flatnonzero(~mask)  # its drop_null per row of the column; the positions cost 8 bytes each)
            present = pc.take(values, pa.array(rows), boundscheck=False)
        else:  # a null outside the mask stays in (and is refused below), as with take
            present = values.filter(pa.array(~mask)) if nulls or values.null_count else values
        if present.null_count or values.null_count != nulls:
            raise ColumnValueError(f"column {name!r}: its nulls are not the rows of its null mask")
    else:
        present = values
        # the list's own offsets (int32, or int64 for a large list; a view, of the one chunk _joined left)
        starts = offsets_view(column.chunk(0))
        empty = row_lengths == 0
        if not np.array_equal(empty, mask):
            row = int(np.argmax(empty != mask))
            raise ColumnValueError(f"column {name!r}: row {row} is {'' if empty[row] else 'not '}empty, but its "
                                   f"null mask says otherwise (the type mapping leaves exactly the null rows empty)")
    # a list column's: the default's dictId after the values' (where its empty rows will point)
    dictionary, default_id = _dictionary_with(present, default, spec.stored_type, name,
                                              append_default=not spec.single_value)
    del present
    stored_ids = dictionary.dict_ids
    segment_mask = mask
    if spec.single_value:
        # The null rows get the default's dictId with the sign bit set (no dictId has it), so that the gather
        # by the segment's order that the dictIds take anyway also tells where they went (a second gather, of
        # the mask, cost as much as the first), and one `and` clears it (a putmask of the default by the
        # gathered mask cost ~1.5 M instructions more per 200k rows, 180k of them null).
        marker = default_id if order is None else default_id | _SIGN_BIT
        dictionary.dict_ids = np.full(len(values), marker, dtype=stored_ids.dtype)
        # (numpy sets by positions ~3x faster than through a boolean mask)
        dictionary.dict_ids[np.flatnonzero(~mask) if rows is None else rows] = stored_ids
        del rows
        if order is not None:
            dictionary.dict_ids = gather(dictionary.dict_ids, order)
            segment_mask = dictionary.dict_ids < 0
            np.bitwise_and(dictionary.dict_ids, ~_SIGN_BIT, out=dictionary.dict_ids)
        stats = collect_stats(spec, dictionary, None, total_docs)
    else:
        # the [default] rows: no value in ``values`` (row length 0), one in the statistics
        stats = collect_stats(spec, dictionary, row_lengths, total_docs, values, default_id, row_starts=starts)
    del values
    has_dictionary = _keeps_dictionary(c, spec, stats, settings)
    if has_dictionary and not keep_values and name not in settings.partitions:
        column = pa.chunked_array([], column.type)  # as _column_context: the writers read the dictionary only
    else:  # the filled values, in input order as _column_context keeps a dictionary column's
        column = pa.chunked_array([fill_defaults(column, mask, default)])
    if not spec.single_value:
        # [default]'s dictId in each empty row: appended after the values' dictIds, the rows' first values
        # pointing at it, then gathered in the segment's order (the reorder's own gather) or in place
        firsts = np.subtract(starts[:-1], starts[:1])  # where each row's values start (none: no row)
        del starts
        default_first = len(stored_ids) - 1  # where [default]'s dictId is, after the values' dictIds
        np.putmask(firsts, mask, default_first)  # (half the instructions of a scatter by np.flatnonzero(mask))
        # 1 in the empty rows, which are the masked ones (checked above): a new array, as flatten's row lengths
        # can be a read-only view of the list's Arrow buffer (an or with the mask: a third of np.maximum's cost)
        row_lengths = np.bitwise_or(row_lengths, mask.view(np.uint8), dtype=row_lengths.dtype, casting="unsafe")
        with_default = stored_ids
        dictionary.dict_ids = stored_ids = None  # dictIds in the segment's order are made from it
        if order is None:
            dictionary.dict_ids, row_lengths = _reorder_multi_value(with_default, row_lengths, order, firsts)
        else:  # the rows of [default] in the segment's order: those that start at it (the gather tells)
            dictionary.dict_ids, row_lengths, segment_mask = _reorder_multi_value(
                with_default, row_lengths, order, firsts, marked_first=default_first)
    return ColumnContext(spec, column, segment_mask, c, settings, dictionary, row_lengths, stats, has_dictionary,
                         unsupported_mode)


_SIGN_BIT = np.int32(-2**31)  # of an int32 dictId (dictIds are never negative)


def _dictionary_with(values: pa.Array, default: pa.Scalar, stored_type: str, column: str,
                     append_default: bool = False) -> tuple[Dictionary, int]:
    """The dictionary of ``values`` and ``default`` together, with the dictIds of ``values`` only (and then
    the default's, with ``append_default``), and the default's dictId. The values' dictionary first, then the
    default merged in through the dictionary of its distinct values and the default (a handful of values):
    no copy of the values with the default appended. A new default takes its place in the order, and the
    dictIds from there on move up one (written into the new array when one is made anyway)."""
    extra = pa.array([default.as_py()], values.type)
    if len(values) == 0:
        merged = build_dictionary(extra, stored_type, column)
        merged.dict_ids = merged.dict_ids[:1 if append_default else 0]
        return merged, 0
    dictionary = build_dictionary(values, stored_type, column)
    merged = build_dictionary(pa.concat_arrays([dictionary.values.cast(values.type), extra]), stored_type, column)
    default_id = int(merged.dict_ids[-1])
    ids = dictionary.dict_ids  # the values' own (this function's)
    if append_default:
        out = np.empty(len(ids) + 1, dtype=ids.dtype)
        out[-1] = default_id
    else:
        out = ids  # renumbered in place
    if merged.cardinality == dictionary.cardinality:  # the default is among the values: same dictIds
        if append_default:
            out[:-1] = ids
        merged = dictionary
    else:
        renumber = merged.dict_ids[:-1]
        if np.array_equal(renumber, np.arange(len(renumber)) + (np.arange(len(renumber)) >= default_id)):
            np.add(ids, ids >= default_id, out=out[:len(ids)], casting="unsafe")  # two vector passes, no gather
        else:  # not expected (a dictionary's order is the values'), but exact either way
            np.take(renumber, ids, out=out[:len(ids)], mode="clip")  # gather()
    merged.dict_ids = out
    return merged, default_id


def _partition_info(column: pa.ChunkedArray, spec: FieldSpec, settings: TableIndexSettings) -> PartitionInfo | None:
    p = settings.partitions.get(spec.name)
    if p is None:
        return None
    partitions = partition_values(column, spec, p.function_name, p.num_partitions, p.function_config)
    return PartitionInfo(
        function_name=canonical_function_name(p.function_name),
        num_partitions=p.num_partitions,
        partitions=[int(i) for i in partitions],
        function_config=p.function_config,
    )


# --- time column -------------------------------------------------------------------------------------


def _time_range(settings: TableIndexSettings, schema: PinotSchema, columns: dict[str, ColumnMetadata],
                check: bool):
    """``segment.start.time`` / ``end.time`` / ``time.unit`` as ``BaseSegmentCreator.writeMetadata`` sets them."""
    name = settings.time_column
    if not name or name not in columns:
        return name if name in schema else None, None, None, None, None, None
    spec = schema[name]
    stats: ColumnStats = columns[name].stats
    low, high = stats.min_value, stats.max_value
    if not spec.datetime_format:  # a DATE_TIME spec, or a legacy TIME spec's outgoing granularity, gives one
        raise SegmentBuildError(f"time column {name!r}: a {spec.field_type} column without a format cannot be the "
                                f"time column")
    try:
        fmt = parse_format(spec.datetime_format)
        if fmt.is_string:  # Pinot parses the min/max text in the format's zone: millis
            start, end, unit = parse_simple_date(low, fmt), parse_simple_date(high, fmt), "MILLISECONDS"
    except DateTimeFormatError as exc:
        raise SegmentBuildError(f"time column {name!r}: {exc}") from None
    if not fmt.is_string:
        unit = fmt.unit
        try:
            start, end = int(low), int(high)
        except (TypeError, ValueError):
            raise SegmentBuildError(f"time column {name!r}: values {low!r}..{high!r} are not epoch numbers") from None
    if check:
        start_ms, end_ms = range_to_millis(start, end, unit)
        if not (start_ms >= VALID_MIN_TIME_MS and end_ms <= VALID_MAX_TIME_MS):
            raise SegmentBuildError(
                f"time column {name!r}: segment time range {start}..{end} {unit} (millis {start_ms}..{end_ms}) is "
                f"outside 1971-01-01..2071-01-01, which Pinot rejects (segmentTimeValueCheck)"
                + _unit_hint(start, end, unit, spec.datetime_format)
            )
    return name, start, end, unit, low, high


def _unit_hint(start: int, end: int, unit: str, datetime_format: str) -> str:
    """Values a factor of 1000 off (epoch seconds into a millis column, or the reverse) are the common
    cause: say so, in the schema's words, rather than leave a user to work out why 2023 is out of range."""
    for looks, unit_ms in (("seconds", 1000), ("milliseconds", 1), ("microseconds", 1e-3), ("nanoseconds", 1e-6)):
        if looks.upper() != unit and VALID_MIN_TIME_MS <= start * unit_ms and end * unit_ms <= VALID_MAX_TIME_MS:
            return (f"; the values look like epoch {looks}, but the schema's format is {datetime_format!r}: convert "
                    f"them, or fix the column's format")
    return ""


def time_values_ms(values: pa.Array | pa.ChunkedArray, spec: FieldSpec) -> np.ndarray:
    """The stored values of a time column as epoch millis (int64), by the rule ``_time_range`` applies to
    the segment's min and max: epoch values times their unit, date strings parsed (once per distinct value)."""
    fmt = parse_format(spec.datetime_format)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if fmt.is_string:
        distinct, inverse = np.unique(np.asarray(values.to_pylist(), dtype=object), return_inverse=True)
        parsed = np.array([parse_simple_date(v, fmt) for v in distinct], dtype=np.int64)
        return parsed[inverse]
    return stored_to_millis(values.to_numpy(zero_copy_only=False).astype(np.int64), fmt.unit)
