"""Read Pinot segments back into Arrow: ``pinot_sink.read`` (a ``pyarrow.Table``) and ``pinot_sink.read_batches``
(record batches, one segment decoded at a time), and the sources the Spark reader splits into partitions.

What is read (docs/reading.md): segment tarballs (``.tar.gz``, ``.tar.zst``, ``.tar.lz4``, ``.tar``: the
content decides) and untarred segment folders (v1 or v3), local or in any store ``fsspec`` reaches with the
write's storage options; a folder of them (a table's folder: the tarballs its write records say are live,
as ``pinot-sink push`` takes them; ``_staging/`` and ``_manifests/`` are skipped), and globs. The decoding is
``pinot_sink.segment.read``'s; the Arrow types are its *logical* view (``reader.logical_arrow_type``).

Time-range pruning keeps the segments Pinot's own time selection keeps (``time_window.pinot_selects`` with
overlapping segments included): whole segments, by the start / end time in their metadata; rows of a
segment that straddles the range are all returned.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pyarrow as pa

from pinot_sink.segment.read.reader import SegmentReader, logical_arrow_type, open_segment
from pinot_sink.segment.read.segment_metadata import SegmentMetadata
from pinot_sink.segment.read.tar_source import TARBALL_SUFFIXES, is_tarball, load_tarball
from pinot_sink.storage.layout import MANIFEST_DIR, STAGING_DIR, uri_to_fs
from pinot_sink.storage.manifests import manifests_of_table, not_live, publishing, recorded_segments
from type_mapping.errors import PinotSinkError

from .options import _storage_options
from .time_window import (TimeWindow, TimeWindowError, parse_instant, parse_time_range, pinot_selects,
                          refuse_epoch_seconds)

log = logging.getLogger("pinot_sink")

DEFAULT_BATCH_ROWS = 131_072
_GLOB_CHARS = "*?["
_METADATA = ("metadata.properties", "v3/metadata.properties")


class PinotReadError(PinotSinkError, ValueError):
    """Nothing to read where one was named, a column no segment has, or a time range that does not parse."""


@dataclass(frozen=True)
class SegmentSource:
    """One segment to read: a tarball or an untarred folder, on the store ``protocol`` names (picklable:
    Spark ships these to its tasks)."""

    protocol: str
    path: str
    kind: str  # "tarball" | "folder"
    # [start, end] epoch millis (None: no time column) as the table folder's write record gives it, for a
    # tarball of that very size; None: no record (the plan cannot know without inflating it: the metadata
    # sits at the end of the stream)
    recorded_time: tuple[int | None, int | None] | None = None

    @property
    def local(self) -> bool:
        return self.protocol in ("file", "local")

    def __str__(self) -> str:
        return self.path if self.local else f"{self.protocol}://{self.path.split('://', 1)[-1]}"


# --- options -------------------------------------------------------------------------------------------


def fsspec_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The storage options as fsspec takes them: ``storage.``-prefixed keys (the write's option names,
    ``storage.client_kwargs.endpoint_url``) nested, any other key passed as it is."""
    options = dict(options or {})
    prefixed = {k: str(v) for k, v in options.items() if k.startswith("storage.")}
    plain = {k: v for k, v in options.items() if not k.startswith("storage.")}
    return {**plain, **_storage_options(prefixed)}


def time_window(time_range: Any, option: str = "time_range") -> TimeWindow | None:
    """``time_range`` as a window ``[start, end)`` in epoch millis: ``"START/END"`` (``overwrite.time-range``'s
    syntax), a ``TimeWindow``, or a pair of epoch millis / ``datetime`` / ``date`` / ISO text."""
    if time_range is None:
        return None
    try:
        if isinstance(time_range, TimeWindow):
            window = time_range
        elif isinstance(time_range, str):
            window = parse_time_range(time_range, dynamic=False)
            if not isinstance(window, TimeWindow):
                raise TimeWindowError(f"{time_range!r} is not START/END")
        elif isinstance(time_range, (tuple, list)) and len(time_range) == 2:
            window = TimeWindow(_instant(time_range[0]), _instant(time_range[1]))
            if window.start_ms >= window.end_ms:
                raise TimeWindowError(f"{time_range!r}: the start must be before the end (the end is exclusive)")
            refuse_epoch_seconds(window, time_range, time_range)
        else:
            raise TimeWindowError(f"{time_range!r} is neither 'START/END' nor a (start, end) pair")
    except TimeWindowError as exc:
        raise PinotReadError(f"{option}: {exc}") from None
    return window


def _instant(value: Any) -> int:
    if isinstance(value, bool):
        raise TimeWindowError(f"{value!r} is not an instant")
    if isinstance(value, int):
        return value
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return int(moment.timestamp() * 1000)
    if isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=timezone.utc).timestamp() * 1000)
    return parse_instant(str(value))


def selected(metadata: SegmentMetadata, window: TimeWindow | None) -> bool:
    """Whether a time range keeps the segment (Pinot's selection, overlapping segments included)."""
    return window is None or pinot_selects(metadata.start_time_ms, metadata.end_time_ms, window,
                                           exclude_overlapping=False)


def _recorded_outside(source: "SegmentSource", window: TimeWindow | None) -> bool:
    """Whether the time range drops the segment by its write record alone (``SegmentSource.recorded_time``),
    so it need not be opened (a tarball's metadata sits at the end of its stream: the whole of it inflated)."""
    return window is not None and source.recorded_time is not None and not pinot_selects(
        *source.recorded_time, window, exclude_overlapping=False)


def _to_open(sources: Iterable[SegmentSource], window: TimeWindow | None) -> list[SegmentSource]:
    """The segments ``read`` / ``read_batches`` open: all but those the time range drops by their write record;
    the first one listed always (the columns, should the time range drop every segment)."""
    return [s for i, s in enumerate(sources) if i == 0 or not _recorded_outside(s, window)]


# --- finding segments ----------------------------------------------------------------------------------


def list_segments(paths_or_uris: str | os.PathLike | Iterable[str | os.PathLike],
                  storage_options: Mapping[str, Any] | None = None) -> list[SegmentSource]:
    """The segments named by paths, URIs, folders and globs, in the order given (a folder's and a glob's
    sorted by name). A name found twice is read once."""
    if isinstance(paths_or_uris, (str, os.PathLike)):
        paths_or_uris = [paths_or_uris]
    if paths_or_uris is None or isinstance(paths_or_uris, (bytes, Mapping)):  # None: a TypeError inside
        raise PinotReadError(f"give the segments to read: a path, URI, folder or glob, or a list of them; got "
                             f"{paths_or_uris!r}")
    paths_or_uris = list(paths_or_uris)
    if not paths_or_uris:  # said 'no Pinot segment found in ' (nothing after 'in')
        raise PinotReadError("give the segments to read: the list of paths is empty")
    options = fsspec_options(storage_options)
    found: dict[tuple[str, str], SegmentSource] = {}
    for item in paths_or_uris:
        text = os.fspath(item)
        fs, path = uri_to_fs(text, options)
        protocol = _protocol(fs)
        if any(c in path for c in _GLOB_CHARS):
            matches = sorted(fs.glob(path))
            if not matches:
                raise PinotReadError(f"no file or folder matches {text}")
            sources = [s for match in matches for s in _sources_at(fs, protocol, match, text, named=False)]
            if not sources and all(fs.isfile(m) for m in matches):  # a glob over a deep store: T/T_*
                _refuse_a_deep_store(text, [m.rstrip("/").rsplit("/", 1)[-1] for m in matches])
        else:
            sources = _sources_at(fs, protocol, path, text, named=True)
        for source in sources:
            found.setdefault((source.protocol, source.path), source)
    if not found:
        raise PinotReadError(f"no Pinot segment (tarball or segment folder) found in {_names(paths_or_uris)}")
    return list(found.values())


def _names(items) -> str:
    return ", ".join(os.fspath(i) for i in list(items)[:3])


def _protocol(fs) -> str:
    protocol = fs.protocol
    return protocol[0] if isinstance(protocol, (tuple, list)) else protocol


def _sources_at(fs, protocol: str, path: str, text: str, *, named: bool) -> list[SegmentSource]:
    if fs.isdir(path):
        if _is_segment_folder(fs, path):
            return [SegmentSource(protocol, path, "folder")]
        return _folder_segments(fs, protocol, path, text)
    if fs.isfile(path):
        if named or path.endswith(TARBALL_SUFFIXES):
            return [SegmentSource(protocol, path, "tarball")]
        return []
    raise PinotReadError(f"no such file or folder: {text}")


def _is_segment_folder(fs, path: str) -> bool:
    return any(fs.isfile(f"{path.rstrip('/')}/{name}") for name in _METADATA)


def _folder_segments(fs, protocol: str, path: str, text: str) -> list[SegmentSource]:
    """A table's folder: its tarballs and segment folders, less what its write records say is not live; a
    tarball a committed write recorded, at the size it recorded, carries the recorded time range."""
    documents = _write_records(fs, protocol, path, text)
    recorded = recorded_segments(documents)
    sources = []
    unsuffixed = []
    for entry in sorted(fs.ls(path, detail=True), key=lambda e: e["name"]):
        name = entry["name"].rstrip("/")
        base = name.rsplit("/", 1)[-1]
        if base.startswith(".") or base in (STAGING_DIR, MANIFEST_DIR):
            continue
        if entry.get("type") == "directory":
            if _is_segment_folder(fs, name):
                sources.append(SegmentSource(protocol, name, "folder"))
        elif not base.endswith(TARBALL_SUFFIXES):
            unsuffixed.append(base)
        elif base.endswith(TARBALL_SUFFIXES):
            source = SegmentSource(protocol, name, "tarball")
            record = recorded.get(_segment_name(source))
            if record is not None and record.get("tar_bytes") == entry.get("size"):
                source = dataclasses.replace(source, recorded_time=(record.get("start_time_ms"),
                                                                    record.get("end_time_ms")))
            sources.append(source)
    if not sources and unsuffixed:
        _refuse_a_deep_store(text, unsuffixed)
    skipped = not_live(documents)
    if skipped:
        kept = [s for s in sources if _segment_name(s) not in skipped]
        if len(kept) < len(sources):
            log.info("pinot_sink.read: %s: skipping %d segment(s) its write records say are not live",
                     text, len(sources) - len(kept))
        sources = kept
    return sources


def _refuse_a_deep_store(text: str, unsuffixed: Sequence[str]) -> None:
    """What a Pinot cluster's deep store looks like (controller.data.dir/<table>/, or a glob over it): said
    with the way out, not as "no segment found" (a newcomer pointed read at one)."""
    raise PinotReadError(
        f"no tarball or segment folder in {text}, but {len(unsuffixed)} file(s) without a tarball suffix "
        f"({', '.join(unsuffixed[:2])}{', ...' if len(unsuffixed) > 2 else ''}): a Pinot deep store names "
        f"segment files so, and keeps a replaced segment's file too, so its folder is not read whole; name "
        f"the live segments' files one by one (`pinot-sink segments --table T --url URL` lists them; "
        f"docs/reading.md)")


def _segment_name(source: SegmentSource) -> str:
    base = source.path.rstrip("/").rsplit("/", 1)[-1]
    for suffix in TARBALL_SUFFIXES:
        if source.kind == "tarball" and base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def _write_records(fs, protocol: str, path: str, text: str) -> list[dict]:
    """The folder's ``_manifests/`` (which segments are not live, what committed writes recorded); a record
    that cannot be read, or a write still publishing, is an error rather than a guess (``pinot-sink push``
    holds the same line)."""
    manifests = f"{path.rstrip('/')}/{MANIFEST_DIR}"
    if not fs.isdir(manifests):
        return []
    folder_uri = path if protocol in ("file", "local") else fs.unstrip_protocol(path)
    unreadable: list[str] = []
    documents = manifests_of_table(folder_uri, getattr(fs, "storage_options", None), unreadable=unreadable)
    if unreadable:
        names = ", ".join(u.rsplit("/", 1)[-1] for u in unreadable)
        raise PinotReadError(f"{text}: cannot read the write record(s) {names} "
                             f"in {MANIFEST_DIR}/, so which segments are live is unknown; name the tarballs "
                             "to read, or settle the folder with `pinot-sink recover`")
    running = sorted(u.rsplit("/", 1)[-1] for u, d in documents.items() if publishing(d))
    if running:
        raise PinotReadError(f"{text}: a write into this folder is publishing or stopped while publishing "
                             f"({', '.join(running)} in {MANIFEST_DIR}/); wait for it, or settle it with "
                             "`pinot-sink recover`, then read")
    return list(documents.values())


# --- opening one segment -------------------------------------------------------------------------------


@contextmanager
def open_source(source: SegmentSource, storage_options: Mapping[str, Any] | None = None) -> Iterator[SegmentReader]:
    """The segment as a ``SegmentReader``: a local one read in place (a tarball's files loaded into memory), a
    remote tarball streamed once into memory (``tar_source.load_tarball``), a remote folder copied to a temp
    folder."""
    if source.local:
        if source.kind == "tarball":
            is_tarball(source.path, required=True)  # not the bare metadata file a SegmentReader also opens
        with open_segment(source.path) as reader:
            yield reader
        return
    import fsspec

    fs = fsspec.filesystem(source.protocol, **fsspec_options(storage_options))
    if source.kind == "tarball":
        with fs.open(source.path, "rb", block_size=8 << 20) as handle:
            files = load_tarball(handle, where=str(source))
        with SegmentReader(files) as reader:
            yield reader
        return
    temp = tempfile.mkdtemp(prefix="pinot-read-")
    try:
        target = os.path.join(temp, "segment")
        fs.get(source.path.rstrip("/") + "/", target + "/", recursive=True)
        with open_segment(target) as reader:
            yield reader
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def default_threads() -> int:
    """Columns decoded at a time by ``read``: the CPUs this process may run on, at most 4 (the builder's rule)."""
    from pinot_sink.segment.builder import default_threads as builder_threads

    return builder_threads()


def segment_table(reader: SegmentReader, columns: Sequence[str] | None, schema: pa.Schema | None = None,
                  threads: int = 1) -> pa.Table:
    """One segment's rows in the logical Arrow types; with ``schema``, exactly its fields (a column the
    segment lacks is all nulls: a segment written before the column was added)."""
    names = list(columns) if columns is not None else reader.column_names
    present = [n for n in names if n in reader.metadata.columns]
    table = _plain_decimals(reader.read(present, threads=threads).table, reader)
    if schema is None:
        return table
    arrays = []
    for field in schema:
        if field.name in table.column_names:
            column = table.column(field.name)
            arrays.append(column if column.type == field.type else column.cast(field.type))
        else:
            arrays.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def segment_batches(reader: SegmentReader, schema: pa.Schema, batch_rows: int) -> Iterator[pa.Table]:
    """One segment's rows in ``schema`` (as ``segment_table``), ``batch_rows`` at a time, each decoded on its own
    where the layout allows (``SegmentReader.values_slice``): memory is a batch's columns, the dictionaries and
    the columns that cannot be sliced (raw, multi-value), not the whole segment decoded."""
    docs = reader.metadata.total_docs
    for start in range(0, docs, batch_rows):
        count = min(batch_rows, docs - start)
        present = {f.name: reader.values_slice(f.name, start, start + count) for f in schema
                   if f.name in reader.metadata.columns}
        table = _plain_decimals(pa.table(present) if present else pa.table({}), reader)
        arrays = []
        for field in schema:
            if field.name in present:
                column = table.column(field.name)
                arrays.append(column if column.type == field.type else column.cast(field.type))
            else:
                arrays.append(pa.nulls(count, field.type))
        yield pa.Table.from_arrays(arrays, schema=schema)


def _plain_decimals(table: pa.Table, reader: SegmentReader) -> pa.Table:
    """BIG_DECIMAL text as Pinot's query results print it (``BigDecimal.toPlainString``: ``1000``, not the
    reader's ``1E+3``); only values with an exponent are rewritten."""
    import decimal

    import pyarrow.compute as pc

    for index, name in enumerate(table.column_names):
        if reader.metadata.columns[name].data_type != "BIG_DECIMAL":
            continue
        column = table.column(name)
        flat = pc.list_flatten(column) if pa.types.is_list(column.type) else column
        if not pc.any(pc.match_substring(flat, "E")).as_py():
            continue

        def plain(array: pa.Array) -> pa.Array:
            return pa.array([None if v is None else format(decimal.Decimal(v), "f") for v in array.to_pylist()],
                            type=pa.string())

        chunks = []
        for chunk in column.chunks:
            if pa.types.is_list(chunk.type):
                chunks.append(pa.ListArray.from_arrays(chunk.offsets, plain(chunk.values), mask=chunk.is_null()))
            else:
                chunks.append(plain(chunk))
        table = table.set_column(index, name, pa.chunked_array(chunks, column.type))
    return table


def arrow_schema(metadata: SegmentMetadata, columns: Sequence[str] | None = None) -> pa.Schema:
    """The logical Arrow schema of a segment's columns (all, in metadata order, or ``columns``)."""
    names = list(columns) if columns is not None else list(metadata.columns)
    missing = [n for n in names if n not in metadata.columns]
    if missing:
        raise PinotReadError(f"columns {missing}: not in segment {metadata.name} (its columns: "
                             f"{', '.join(metadata.columns)})")
    return pa.schema([pa.field(n, logical_arrow_type(metadata.columns[n])) for n in names])


def add_columns(fields: dict[str, tuple[pa.DataType, str]], metadata: SegmentMetadata,
                columns: Sequence[str] | None = None, *, widen: bool = False) -> None:
    """Add a segment's columns (or those of ``columns`` it has) to ``fields`` (name -> (Arrow type, the first
    segment that had it)); a column whose type differs from the first segment's is a one-line error naming both,
    unless its values convert exactly (``_converts``). With ``widen`` (the schema is settled before any row is
    read: ``read``, the Spark plan), a later segment's wider type takes the column's place when the earlier
    values convert exactly into it (a column widened INT -> LONG reads whatever order the segments come in)."""
    for name, column in metadata.columns.items():
        if columns is not None and name not in columns:
            continue
        arrow_type = logical_arrow_type(column)
        seen = fields.setdefault(name, (arrow_type, metadata.name))
        if widen and seen[0] != arrow_type and _converts(seen[0], arrow_type) and not _converts(arrow_type, seen[0]):
            fields[name] = (arrow_type, metadata.name)
        elif seen[0] != arrow_type and not _converts(arrow_type, seen[0]):
            raise PinotReadError(
                f"column {name!r} is {seen[0]} in segment {seen[1]} but {arrow_type} in segment {metadata.name}; "
                "read those segments apart, or leave the column out with `columns`")


_EXACT = {(pa.int32(), pa.int64()), (pa.float32(), pa.float64()),
          # epoch millis both ways: Pinot stores a TIMESTAMP as LONG millis (a time column retyped LONG -> TIMESTAMP)
          (pa.int64(), pa.timestamp("ms", tz="UTC")), (pa.timestamp("ms", tz="UTC"), pa.int64())}


def _converts(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether every value of ``source`` reads as the same value of ``target`` (lists: their values)."""
    if pa.types.is_list(source) and pa.types.is_list(target):
        return source.value_type == target.value_type or (source.value_type, target.value_type) in _EXACT
    return (source, target) in _EXACT


def check_columns(schema: pa.Schema, metadata: SegmentMetadata, origins: Mapping[str, str] | str) -> None:
    """A segment read into ``schema`` (whose columns' types come from the segments ``origins`` names, per
    column or one for all): each of its columns there has that type."""
    fields = {f.name: (f.type, origins if isinstance(origins, str) else origins.get(f.name, "the schema"))
              for f in schema}
    add_columns(fields, metadata, schema.names)


# --- the public calls ----------------------------------------------------------------------------------


def read_batches(paths_or_uris, columns: Sequence[str] | None = None, time_range: Any = None, *,
                 batch_rows: int = DEFAULT_BATCH_ROWS, **storage_options) -> Iterator[pa.RecordBatch]:
    """Record batches of at most ``batch_rows`` rows, segment after segment, each decoded on its own where the
    segment's layout allows (docs/reading.md#memory): memory is bounded by a batch plus one segment's files and
    dictionaries, not by the table. Every batch has the first segment's schema (``columns``, or all its
    columns); see ``read`` for the arguments."""
    _refuse_misspelt(storage_options, "read_batches")
    # batch_rows=0 failed inside range(), a negative one yielded no batch at all: every row silently dropped.
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise PinotReadError(f"read_batches: batch_rows must be a whole number of at least 1, got {batch_rows!r}")
    window = time_window(time_range)
    columns = _column_list(columns)
    schema, first, seen = None, None, {}
    for source in _to_open(list_segments(paths_or_uris, storage_options), window):
        with open_source(source, storage_options) as reader:
            if schema is None:
                missing = [n for n in columns or () if n not in reader.metadata.columns]
                if missing:  # it streams in its first segment's columns: say so, and the way out
                    raise PinotReadError(
                        f"columns {missing}: not in segment {reader.metadata.name}, the first read_batches opened "
                        f"(its columns: {', '.join(reader.metadata.columns)}); it streams in the first segment's "
                        "columns: list a segment that has them first, or use read")
                schema, first = arrow_schema(reader.metadata, columns), reader.metadata.name
            check_columns(schema, reader.metadata, first)
            _refuse_a_second_build(seen, reader.metadata, source)
            if not selected(reader.metadata, window):
                continue
            for table in segment_batches(reader, schema, batch_rows):
                yield from table.to_batches(max_chunksize=batch_rows)


def read(paths_or_uris, columns: Sequence[str] | None = None, time_range: Any = None,
         **storage_options) -> pa.Table:
    """Pinot segments as one ``pyarrow.Table`` (docs/reading.md).

    ``paths_or_uris``: a path, URI, folder or glob, or a list of them (tarballs or untarred segment folders).
    ``columns``: the columns to read (default: all). ``time_range``: keep only the segments whose time range
    (metadata start / end time) meets ``[start, end)``, given as ``"2024-03-01/2024-03-08"`` or a pair of
    epoch millis / datetimes. ``storage_options``: fsspec's, as the write takes them (``key=``, ``secret=``,
    ``client_kwargs=``, or the option names ``**{"storage.key": ...}``).

    Columns are the union over the segments opened (a column a segment lacks reads as nulls there); a column
    named in ``columns`` that no segment has is an error (the segments left unopened are looked in first). A segment of a table folder that the time range
    drops by its write record (a committed write's manifest: its time range) is not opened (the first one
    listed always is).
    """
    _refuse_misspelt(storage_options, "read")
    window = time_window(time_range)
    columns = _column_list(columns)
    tables, fields, first_metadata = [], {}, None
    sources = list_segments(paths_or_uris, storage_options)
    seen: dict[str, tuple[SegmentMetadata, SegmentSource]] = {}
    opened = _to_open(sources, window)
    for source, (metadata, table) in zip(opened, _read_segments(opened, storage_options, columns, window)):
        _refuse_a_second_build(seen, metadata, source)
        first_metadata = first_metadata or metadata
        add_columns(fields, metadata, columns, widen=True)
        if table is not None:
            tables.append(table)
    if columns is not None:
        missing = [n for n in columns if n not in fields]
        if missing:
            _add_unopened_columns(fields, missing, sources, window, storage_options)
            missing = [n for n in columns if n not in fields]
        if missing:
            raise PinotReadError(f"columns {missing}: in no segment read (segment {first_metadata.name} has "
                                 f"{', '.join(first_metadata.columns)})")
        order = list(columns)
    else:
        order = list(fields)
    schema = pa.schema([pa.field(n, fields[n][0]) for n in order])
    if not tables:
        return schema.empty_table()
    return pa.concat_tables([_conform(t, schema) for t in tables])


def _refuse_a_second_build(seen: dict, metadata: SegmentMetadata, source: SegmentSource) -> None:
    """A table holds one segment of a name: two files of a name with different CRCs are two tables' or two
    builds' segments (another table's folder, an older build beside the table's), whose rows read together
    would count both: an error naming both files. Copies of one segment (the same CRC) are read as named."""
    earlier = seen.setdefault(metadata.name, (metadata, source))
    if earlier[1] is not source and None not in (metadata.crc, earlier[0].crc) and metadata.crc != earlier[0].crc:
        raise PinotReadError(
            f"segment {metadata.name!r} is read twice with different contents (CRC {earlier[0].crc} in "
            f"{earlier[1].path}, CRC {metadata.crc} in {source.path}): a table holds one segment of a name, so "
            "these are two tables' or two builds' segments; read them apart")


def _add_unopened_columns(fields: dict, missing: Sequence[str], sources: Sequence[SegmentSource],
                          window: TimeWindow | None, storage_options) -> None:
    """Named columns no opened segment has, looked for in the segments the time range dropped by their write
    record unopened (a column the table gained after the segments read): found, it is a column of nulls in the
    rows read, as a read without the time range gives; only then are those tarballs inflated, the last listed
    first (a table folder lists by name, and names begin with the time: the newest segments, a column added
    later, first; a column no segment has is looked for in every one, and logged so)."""
    opened = set(_to_open(sources, window))
    unopened = [s for s in reversed(sources) if s not in opened]
    if unopened:
        log.info("pinot_sink.read: columns %s: in no segment read; looking in the %d segment(s) the time range "
                 "left unopened", list(missing), len(unopened))
    for source in unopened:
        with open_source(source, storage_options) as reader:
            add_columns(fields, reader.metadata, missing, widen=True)
        if all(n in fields for n in missing):
            return


# A segment below this many rows is decoded on the reading thread alone: its columns take well under a
# millisecond each, less than handing them to a pool costs.
THREADED_DECODE_ROWS = 500_000
# Local segments are read side by side when they average this many bytes on disk: smaller ones spend most of
# their time in Python (opening, metadata, per-column calls) under the GIL, and a pool only adds its hand-offs
# (40 x 25k rows, ~1 MB each: 3% more CPU-s, no less wall; bench/read.py's 4 x 250k rows, 10 MB: less wall).
SIDE_BY_SIDE_BYTES = 4 << 20


def _read_segments(sources: Sequence[SegmentSource], storage_options, columns: Sequence[str] | None,
                   window: TimeWindow | None) -> Iterator[tuple[SegmentMetadata, pa.Table | None]]:
    """Each segment's metadata and its rows (``None`` where the time range drops it), in the order given: the
    segments ``_to_open`` chose. Several segments are read at once, one per thread up to ``default_threads()``, when they
    are large enough (``_large_enough``; inflating and decoding let go of the GIL): with two CPUs two segments
    are inflated and decoded side by side, rather than one segment's columns handed to a pool while the
    inflate, the larger part, runs alone. A lone segment gets the threads itself, for its columns, where it is
    large enough to use them (``THREADED_DECODE_ROWS``)."""
    threads = default_threads()
    if len(sources) == 1 or threads == 1 or not _large_enough(sources):
        for source in sources:
            yield _read_segment(source, storage_options, columns, window, threads)
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(min(threads, len(sources)), thread_name_prefix="pinot-read")
    try:
        yield from pool.map(lambda s: _read_segment(s, storage_options, columns, window, 1), sources)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # an error: the segments not yet started are not read


def _large_enough(sources: Sequence[SegmentSource], sample: int = 8) -> bool:
    """Whether segments are worth reading side by side: remote ones always (their fetches overlap), local ones
    when the first few average ``SIDE_BY_SIDE_BYTES`` on disk."""
    if not all(s.local for s in sources):
        return True
    sizes = []
    for source in sources[:sample]:
        try:
            if source.kind == "tarball":
                sizes.append(os.path.getsize(source.path))
            else:
                sizes.append(sum(os.path.getsize(os.path.join(root, name))
                                 for root, _, names in os.walk(source.path) for name in names))
        except OSError:  # gone meanwhile: its reading says so
            sizes.append(0)
    return sum(sizes) >= SIDE_BY_SIDE_BYTES * len(sizes)


def _read_segment(source: SegmentSource, storage_options, columns: Sequence[str] | None, window: TimeWindow | None,
                  threads: int) -> tuple[SegmentMetadata, pa.Table | None]:
    with open_source(source, storage_options) as reader:
        if not selected(reader.metadata, window):
            return reader.metadata, None
        small = reader.metadata.total_docs < THREADED_DECODE_ROWS
        return reader.metadata, segment_table(reader, columns, threads=1 if small else threads)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    if table.schema.equals(schema):
        return table
    arrays = [table.column(f.name) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


_ARGUMENTS = ("columns", "time_range", "batch_rows")


def _refuse_misspelt(storage_options: Mapping[str, Any], call: str) -> None:
    """A keyword ``read`` / ``read_batches`` does not know is a storage option, which fsspec's local file system
    ignores: one close to their own arguments (``colums``, Spark's ``time-range``) is a typo, refused naming it."""
    import difflib

    for key in storage_options:
        if key.startswith("storage."):
            continue
        close = difflib.get_close_matches(key.replace("-", "_").lower(), _ARGUMENTS, n=1, cutoff=0.8)
        if close:
            raise PinotReadError(f"{call}: unknown argument {key!r} (did you mean {close[0]!r}?)")


def _column_list(columns) -> list[str] | None:
    if columns is None:
        return None
    if isinstance(columns, str):
        if not columns.strip():  # a blank option is an option not given, as the write's options take it
            return None
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    columns = list(columns)
    if not columns:  # read no column: a table of 0 rows, every row dropped without a word
        raise PinotReadError("columns: none named; leave columns out (None) to read every column")
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise PinotReadError(f"columns: {duplicates} named twice")
    return columns


# --- the Spark reader's plan (pinot_sink.datasource drives it; nothing here imports Spark) ---------------

# The read options of ``spark.read.format("pinot")`` (docs/reading.md, docs/options.md); ``storage.*`` as the write's.
READ_OPTIONS: dict[str, tuple[str | None, str]] = {
    "path": (None, "segment tarball(s) or folder(s), a table's folder, a glob; local or any fsspec URI"),
    "paths": (None, "set by Spark for load([path, ...]): a JSON list of paths"),
    "columns": (None, "comma-separated columns to read (default: all); Spark pushes no column pruning to Python"),
    "time-range": (None, "START/END: only segments whose metadata time range meets [START, END)"),
    "segments-per-partition": ("1", "segments each Spark partition reads"),
    "batch-rows": (str(DEFAULT_BATCH_ROWS), "rows per Arrow batch handed to Spark"),
    "filter-pushdown": ("false", "true: pushed time filters skip whole segments (needs a Spark whose pushdown "
                                 "read is scoped to its scan, and spark.sql.python.filterPushdown.enabled)"),
}


@dataclass
class ReadPlan:
    """What a read will do, made once on the driver: the segments, the Arrow schema of the rows, the window."""

    sources: list[SegmentSource]
    schema: pa.Schema  # the logical Arrow types of the columns read
    window: TimeWindow | None
    storage_options: dict
    batch_rows: int
    segments_per_partition: int
    origins: dict[str, str] = dataclasses.field(default_factory=dict)  # column -> the segment its type is from
    time_column: str | None = None  # the first segment's time column, its values' unit
    time_unit: str | None = None
    bounds: tuple[int | None, int | None] = (None, None)  # pushed filters' [low, high] millis, both inclusive
    filter_pushdown: bool = False
    # segment name a file's name gives (_segment_name) -> its index in sources: a task finding a segment
    # whose file is named otherwise looks here for another build of its name (_refuse_a_renamed_build)
    file_names: dict[str, int] = dataclasses.field(default_factory=dict)

    def with_bounds(self, low_ms: int | None, high_ms: int | None) -> "ReadPlan":
        """Also skip the segments whose time range lies wholly outside [low_ms, high_ms] (pushed filters)."""
        return dataclasses.replace(self, bounds=(low_ms, high_ms))

    def keeps(self, metadata: SegmentMetadata) -> bool:
        """Whether a segment may hold rows the read wants: inside the ``time-range`` option and the pushed
        bounds (a segment without a time range is kept)."""
        if not selected(metadata, self.window):
            return False
        low, high = self.bounds
        start, end = metadata.start_time_ms, metadata.end_time_ms
        if start is None or end is None or metadata.time_column != self.time_column:
            return True
        return (low is None or end >= low) and (high is None or start <= high)

    def groups(self) -> list[list[SegmentSource]]:
        step = self.segments_per_partition
        return [self.sources[i:i + step] for i in range(0, len(self.sources), step)]

    def with_columns(self, names: Sequence[str], given: pa.Schema | None = None) -> "ReadPlan":
        """The plan reading ``names``; ``given``: the user's own schema (``.schema(...)``), whose types stand for
        a column the driver did not see (only later tarballs have it: their metadata is read in their tasks, which
        check it against that type; a segment without it reads nulls)."""
        missing = [n for n in names if n not in self.schema.names and (given is None or n not in given.names)]
        if missing:
            raise PinotReadError(f"columns {missing}: not in the segments "
                                 f"(their columns: {', '.join(self.schema.names)})")
        fields = [self.schema.field(n) if n in self.schema.names else _logical(given.field(n)) for n in names]
        return dataclasses.replace(self, schema=pa.schema(fields))


def _logical(field: pa.Field) -> pa.Field:
    """A user's Arrow field (from a Spark schema) in the reader's logical types: Spark's timestamps are
    microseconds, a segment's TIMESTAMP reads as milliseconds (the reader casts to the user's type last)."""
    def unit(t: pa.DataType) -> pa.DataType:
        if pa.types.is_timestamp(t):
            return pa.timestamp("ms", tz="UTC")
        return pa.list_(unit(t.value_type)) if pa.types.is_list(t) else t

    return pa.field(field.name, unit(field.type))


def plan_read(options: Mapping[str, str]) -> ReadPlan:
    """Parse the read options (unknown ones are an error naming the closest), list the segments and take the
    schema (its columns, or ``columns``) from the metadata of the first segment and of every segment folder:
    their union, a column two of them type differently an error. Other tarballs are not opened on the driver
    (their metadata sits at the end of each): the tasks check them against the schema; ``time-range`` prunes
    them by their table folder's write records where those describe them (``SegmentSource.recorded_time``),
    else in their tasks."""
    known = {k.lower(): k for k in READ_OPTIONS}
    given = {}
    for key, value in options.items():
        lowered = key.lower()
        if lowered in known:
            given[known[lowered]] = value
        elif not lowered.startswith("storage."):
            import difflib

            close = difflib.get_close_matches(lowered, list(READ_OPTIONS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise PinotReadError(f"unknown read option {key!r}{hint}; see docs/reading.md")
    paths = [given["path"]] if given.get("path") else []
    if given.get("paths"):
        import json

        try:
            paths += list(json.loads(given["paths"]))
        except (ValueError, TypeError):
            raise PinotReadError(f"option 'paths': {given['paths']!r} is not a JSON list of paths") from None
    if not paths:
        raise PinotReadError("option 'path': give the segments to read: spark.read.format('pinot').load(path)")
    storage = fsspec_options({k: v for k, v in options.items() if k.lower().startswith("storage.")})
    sources = list_segments(paths, storage)
    columns = _column_list(given.get("columns"))
    window = time_window(given.get("time-range"), "option 'time-range'")
    with open_source(sources[0], storage) as reader:
        metadata = reader.metadata
    fields: dict[str, tuple[pa.DataType, str]] = {}
    add_columns(fields, metadata, columns, widen=True)
    outside = set() if selected(metadata, window) else {0}
    for index, source in enumerate(sources[1:], start=1):
        if source.kind == "folder":
            folder = folder_metadata(source, storage)
            add_columns(fields, folder, columns, widen=True)
            if not selected(folder, window):
                outside.add(index)
        elif _recorded_outside(source, window):
            outside.add(index)
    # The schema stays every segment's; the ones whose time range the driver knows (a folder's metadata, a
    # tarball's write record) and the time range excludes get no partition (any other tarball's is checked
    # in its task).
    sources = [s for i, s in enumerate(sources) if i not in outside]
    file_names = _refuse_second_builds_by_file_name(sources, storage)
    missing = [n for n in columns or () if n not in fields]
    if missing:
        raise PinotReadError(
            f"columns {missing}: not in segment {metadata.name} (its columns: {', '.join(metadata.columns)}) nor in "
            f"any segment folder; the driver opens only the first tarball (the others' metadata sits at their end): "
            f"a column only later tarballs have is read with a schema of your own, "
            f"spark.read.format('pinot').schema('{missing[0]} <type>, ...')")
    names = list(columns) if columns is not None else list(fields)
    return ReadPlan(
        sources=sources, schema=pa.schema([pa.field(n, fields[n][0]) for n in names]), window=window,
        storage_options=storage, batch_rows=_positive(given, "batch-rows"),
        segments_per_partition=_positive(given, "segments-per-partition"),
        origins={n: fields[n][1] for n in names}, time_column=metadata.time_column, time_unit=metadata.time_unit,
        filter_pushdown=_flag(given, "filter-pushdown"), file_names=file_names)


def _refuse_second_builds_by_file_name(sources: Sequence[SegmentSource], storage_options) -> dict[str, int]:
    """The Spark reader reads each segment in its own task, where two builds of one name (``read`` refuses
    them) were both counted. Files named as one segment (a deep store's ``T/seg`` beside an older
    ``seg.tar.gz``) are opened here on the driver, only they, and compared as ``read`` compares them; a file
    named otherwise is checked in its task against ``file_names`` (``_refuse_a_renamed_build``)."""
    file_names: dict[str, int] = {}
    twice: set[str] = set()
    for index, source in enumerate(sources):
        name = _segment_name(source)
        if file_names.setdefault(name, index) != index:
            twice.add(name)
    seen: dict[str, tuple[SegmentMetadata, SegmentSource]] = {}
    for source in sources:
        if _segment_name(source) in twice:
            with open_source(source, storage_options) as reader:
                _refuse_a_second_build(seen, reader.metadata, source)
    return file_names


def _refuse_a_renamed_build(plan: "ReadPlan", metadata: SegmentMetadata, source: SegmentSource) -> None:
    """In a task: a segment whose file is not named as it is, while another file of the read is (a copy
    renamed, ``seg_1.tar.gz``): that file is opened and compared. Two files both named otherwise than their
    segment are not seen (docs/reading.md)."""
    index = plan.file_names.get(metadata.name)
    if index is None or _segment_name(source) == metadata.name or plan.sources[index] == source:
        return
    other = plan.sources[index]
    with open_source(other, plan.storage_options) as reader:
        _refuse_a_second_build({reader.metadata.name: (reader.metadata, other)}, metadata, source)


def _flag(given: Mapping[str, str], name: str) -> bool:
    text = str(given.get(name) or READ_OPTIONS[name][0]).strip().lower()
    if text not in ("true", "false"):
        raise PinotReadError(f"option {name!r}: {given.get(name)!r} is neither true nor false")
    return text == "true"


def folder_metadata(source: SegmentSource, storage_options: Mapping[str, Any] | None) -> SegmentMetadata:
    """An untarred segment's metadata from its ``metadata.properties`` alone (no other file is read)."""
    import fsspec

    from pinot_sink.segment.read.segment_metadata import parse_segment_metadata

    fs = fsspec.filesystem(source.protocol, **fsspec_options(storage_options))
    for name in reversed(_METADATA):  # v3's first, as the reader
        path = f"{source.path.rstrip('/')}/{name}"
        if fs.isfile(path):
            return parse_segment_metadata(fs.cat_file(path))
    raise PinotReadError(f"{source}: no metadata.properties")


def _positive(given: Mapping[str, str], name: str) -> int:
    text = given.get(name) or READ_OPTIONS[name][0]
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if value < 1:
        raise PinotReadError(f"option {name!r}: {text!r} is not a whole number of at least 1")
    return value


def read_group(plan: ReadPlan, sources: Sequence[SegmentSource]) -> Iterator[pa.Table]:
    """The selected segments of a partition in the plan's schema, ``batch_rows`` rows at a time (``segment_batches``)."""
    for source in sources:
        with open_source(source, plan.storage_options) as reader:
            check_columns(plan.schema, reader.metadata, plan.origins)
            _refuse_a_renamed_build(plan, reader.metadata, source)
            if plan.keeps(reader.metadata):
                yield from segment_batches(reader, plan.schema, plan.batch_rows)
