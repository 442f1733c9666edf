"""Read a Pinot segment (directory or tarball: gzip, LZ4 or Zstandard; v1 or v3 layout) back into Arrow.

``read_segment(path)`` returns everything at once; ``open_segment(path)`` gives a ``SegmentReader`` with lazy,
cached per-column access (what ``pinot-sink inspect`` uses). Two views of the rows are offered:

* **logical** (``SegmentContents.table``, ``SegmentReader.values``): BOOLEAN as ``bool``, TIMESTAMP as
  ``timestamp[ms, tz=UTC]``, BIG_DECIMAL as the decimal's text (Java ``BigDecimal.toString``; Arrow decimals
  have a single scale per column, Pinot keeps one per value), JSON as ``string``, BYTES as ``binary``; MV
  columns as ``list<...>``. Rows marked in a column's null value vector are null; elsewhere the stored
  default null value stays, as Pinot's reader returns it.
* **stored** (``SegmentContents.stored``, ``SegmentReader.stored_values``): exactly the ``PinotColumns``
  contract the builder consumes (BOOLEAN int32 0/1, TIMESTAMP int64 millis, no nulls) plus null masks.

``null_masks`` holds a mask for every column that has null handling in the segment: those with a null value
vector, and those whose metadata says ``isNonNull`` (null handling on, no null: an all-false mask).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pinot_sink.segment.fast_zlib import fast_zlib as isal_zlib

from type_mapping.java_text import java_sort_key
from type_mapping.stored import ARROW_STORED_TYPE, PinotColumns

from . import decoders
from .decoders import SegmentFormatError, V3IndexFile
from ..format import (COLUMNS_FILE, CREATION_META_FILE, DATA_FILE_SUFFIXES, DICTIONARY_EXTENSION, INDEX_MAP_FILE,
                     METADATA_FILE, STAR_TREE_INDEX_FILE, STAR_TREE_INDEX_MAP_FILE, V1_EXTENSIONS, V3_DIR,
                     forward_index_extension)
from .segment_metadata import ColumnMetadata, SegmentMetadata, parse_index_map, parse_segment_metadata
from .files import SegmentFiles
from .tar_source import is_tarball, load_tarball

__all__ = ["read_segment", "open_segment", "SegmentContents", "SegmentReader", "SegmentFormatError"]



def _forward_suffix(column: ColumnMetadata) -> str:
    """The forward index's v1 extension, chosen from metadata, never from which file exists."""
    return forward_index_extension(column.forward_index_encoding == "DICTIONARY", column.single_value, column.sorted)


def logical_arrow_type(column: ColumnMetadata) -> pa.DataType:
    value_type = {
        "BOOLEAN": pa.bool_(),
        "TIMESTAMP": pa.timestamp("ms", tz="UTC"),
    }.get(column.data_type) or ARROW_STORED_TYPE[column.stored_type]
    return value_type if column.single_value else pa.list_(value_type)


def stored_arrow_type(column: ColumnMetadata) -> pa.DataType:
    value_type = ARROW_STORED_TYPE[column.stored_type]
    return value_type if column.single_value else pa.list_(value_type)


@dataclass
class SegmentContents:
    """A whole segment: metadata, logical rows with nulls restored, null masks, and the stored view."""

    metadata: SegmentMetadata
    table: pa.Table
    null_masks: dict[str, np.ndarray]
    stored: PinotColumns

    @property
    def num_rows(self) -> int:
        return self.table.num_rows


def read_segment(path: str | os.PathLike, columns: Iterable[str] | None = None) -> SegmentContents:
    """Decode a segment directory or tarball completely (or only ``columns``)."""
    with open_segment(path) as reader:
        return reader.read(columns)


def open_segment(path: str | os.PathLike) -> "SegmentReader":
    """Open a segment for lazy reading; use as a context manager (a tarball's files are held in memory,
    ``tar_source.load_tarball``)."""
    return SegmentReader(path)


class SegmentReader:
    """Lazy, cached access to one segment's metadata, dictionaries, forward and secondary indexes."""

    def __init__(self, path: str | os.PathLike | SegmentFiles):
        """``path``: a segment folder, a tarball, a bare ``metadata.properties``, or ``SegmentFiles`` already
        loaded (``tar_source.load_tarball`` of a stream)."""
        self._files: SegmentFiles | None = path if isinstance(path, SegmentFiles) else None
        self.path = self._files.where if self._files is not None else os.fspath(path)
        self._index_file: V3IndexFile | None = None
        self._cache: dict[tuple[str, str], object] = {}
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # --- opening ---------------------------------------------------------------------------------

    def _open(self) -> None:
        if self._files is None:
            if not os.path.exists(self.path):
                raise FileNotFoundError(f"no segment at {self.path}")
            if os.path.isdir(self.path):
                self._files = SegmentFiles.of_folder(self.path)
            elif os.path.isfile(self.path) and is_tarball(self.path):
                self._files = load_tarball(self.path)
            elif os.path.isfile(self.path):
                # A bare metadata.properties (metadata-only view, no index files).
                try:
                    self._init_metadata_only(self.path)
                except (SegmentFormatError, ValueError):  # ValueError: not text (UnicodeDecodeError)
                    if os.path.basename(self.path) == METADATA_FILE:
                        raise
                    # Any other file (a Parquet file, a truncated download) is not a segment: saying that its
                    # 'segment.name is missing' sent the user looking inside a file that is no segment at all.
                    with open(self.path, "rb") as handle:
                        head = handle.read(4)
                    raise SegmentFormatError(
                        f"{self.path}: not a segment (neither a segment tarball: gzip, zstd, LZ4 or plain tar, nor a "
                        f"folder, nor a metadata.properties); it starts with {head.hex() or 'nothing'}") from None
                return
            else:
                raise FileNotFoundError(f"no segment at {self.path}")
        self.segment_dir = self.path
        # ``files_prefix``: where the index files are among the segment's files ("" or "v3/").
        if self._files.isdir(V3_DIR):
            self.layout, self.files_prefix = "v3", V3_DIR + "/"
        elif self._files.isfile(INDEX_MAP_FILE):
            # The contents of a v3 directory given directly.
            self.layout, self.files_prefix = "v3", ""
        else:
            self.layout, self.files_prefix = "v1", ""
        self.files_dir = os.path.join(self.path, self.files_prefix.rstrip("/")) if self.files_prefix else self.path
        properties = self._read_file(METADATA_FILE, required=True)
        creation_meta = self._read_file(CREATION_META_FILE)
        entries = None
        if self.layout == "v3":
            entries = parse_index_map(self._read_file(INDEX_MAP_FILE, required=True))
            columns_file = self.files_prefix + COLUMNS_FILE
            if self._files.isfile(columns_file):
                self._index_file = V3IndexFile(self._files.view(columns_file), entries,
                                               self._files.path(columns_file))
        self.metadata = parse_segment_metadata(properties, creation_meta, entries)
        if self.layout == "v1":
            self.metadata = _with_v1_sizes(self.metadata, self._files)

    def _init_metadata_only(self, properties_path: str) -> None:
        self.segment_dir = self.files_dir = os.path.dirname(properties_path)
        self.layout, self.files_prefix = "metadata-only", ""
        near = {name: os.path.join(self.files_dir, name)
                for name in (INDEX_MAP_FILE, STAR_TREE_INDEX_FILE, STAR_TREE_INDEX_MAP_FILE)}
        self._files = SegmentFiles(self.files_dir, {METADATA_FILE: properties_path,
                                                    **{n: p for n, p in near.items() if os.path.isfile(p)}})
        index_map = self._read_file(INDEX_MAP_FILE)
        entries = parse_index_map(index_map) if index_map is not None else None
        self.metadata = parse_segment_metadata(self._read_file(METADATA_FILE), None, entries)

    def _read_file(self, name: str, required: bool = False) -> bytes | None:
        """A file of the segment's index folder (``v3/`` for v3), whole; None (or an error) if it is missing."""
        relative = self.files_prefix + name
        if self._files is None or not self._files.isfile(relative):
            if required:
                raise SegmentFormatError(f"{self.path}: {relative} is missing")
            return None
        return self._files.read(relative)

    def close(self) -> None:
        if self._index_file is not None:
            self._index_file.close()
            self._index_file = None
        if self._files is not None:
            self._files.close()
            self._files = None

    def __enter__(self) -> "SegmentReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- raw index buffers -----------------------------------------------------------------------

    @property
    def column_names(self) -> list[str]:
        return list(self.metadata.columns)

    def column(self, name: str) -> ColumnMetadata:
        try:
            return self.metadata.columns[name]
        except KeyError:
            raise KeyError(f"segment {self.metadata.name} has no column {name!r}") from None

    def index_sizes(self, name: str) -> dict[str, int]:
        """Index id -> bytes (v3: the index_map size, marker included, like Pinot's indexSizeMap; v1: file size)."""
        return dict(self.column(name).index_sizes)

    def _where(self, column: str, index: str) -> str:
        if self.layout == "v1":
            name = self._v1_name(column, index)
            if name is None:  # name the file Pinot would look for
                suffixes = V1_EXTENSIONS.get(index, ("",)) if index != "forward_index" else (
                    _forward_suffix(self.column(column)),)
                name = column + suffixes[0]
            return f"column {column!r} {index} ({name})"
        return f"column {column!r} {index} (v3/{COLUMNS_FILE})"

    def _v1_name(self, column: str, index: str) -> str | None:
        suffixes = (_forward_suffix(self.column(column)),) if index == "forward_index" else V1_EXTENSIONS.get(index, ())
        for suffix in suffixes:
            if self._files is not None and self._files.isfile(column + suffix):
                return column + suffix
        return None

    def index_buffer(self, column: str, index: str) -> bytes | memoryview | None:
        """The bytes of one index of a column (a zero-copy view, valid until ``close``), or None when the
        segment does not have it."""
        self.column(column)
        if self.layout == "v1":
            name = self._v1_name(column, index)
            return None if name is None else self._files.view(name)
        if self._index_file is None:
            if self.layout == "v3" and index not in self.column(column).index_sizes:
                return None
            missing = f"no {V3_DIR}/{COLUMNS_FILE}" if self.layout == "v3" else "a bare metadata file"
            raise SegmentFormatError(
                f"{self.path}: only metadata is available ({missing}); cannot read {index} of column {column!r}"
            )
        return self._index_file.buffer(column, index)

    def _required_buffer(self, column: str, index: str) -> bytes:
        buf = self.index_buffer(column, index)
        if buf is None:
            raise SegmentFormatError(f"{self._where(column, index)}: the index is missing from the segment")
        return buf

    def _cached(self, column: str, what: str, compute):
        key = (column, what)
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # --- decoded indexes -------------------------------------------------------------------------

    def dictionary(self, name: str) -> pa.Array | None:
        """Dictionary values in dictId order (stored Arrow type), or None for a raw column."""
        column = self.column(name)
        if not column.has_dictionary:
            return None

        def compute():
            width = column.dictionary_element_size
            if width < 0:
                width = column.length_of_longest_element
            return decoders.decode_dictionary(
                self._required_buffer(name, "dictionary"), column.stored_type, column.cardinality, width,
                self._where(name, "dictionary"),
            )

        return self._cached(name, "dictionary", compute)

    def dict_ids(self, name: str) -> pa.Array | None:
        """dictIds per doc (int32; MV: list<int32>) or None for a raw column."""
        column = self.column(name)
        if column.forward_index_encoding != "DICTIONARY":
            return None
        return self._cached(name, "dict_ids", lambda: self._decode_dict_ids(column))

    def _decode_dict_ids(self, column: ColumnMetadata) -> pa.Array:
        name, docs = column.name, self.metadata.total_docs
        buf = self._required_buffer(name, "forward_index")
        where = self._where(name, "forward_index")
        if not column.single_value:
            offsets, ids = decoders.decode_mv_forward(
                buf, column.bits_per_element, docs, column.total_number_of_entries, column.cardinality, where
            )
            return pa.ListArray.from_arrays(pa.array(offsets), pa.array(ids))
        if column.sorted:
            return pa.array(decoders.sorted_dict_ids(self.sorted_doc_ranges(name)))
        return pa.array(decoders.decode_unsorted_sv_forward(buf, column.bits_per_element, docs, column.cardinality, where))

    def sorted_doc_ranges(self, name: str) -> np.ndarray | None:
        """For a sorted column: ``(cardinality, 2)`` inclusive [first, last] docIds per dictId."""
        column = self.column(name)
        if not (column.sorted and column.single_value and column.forward_index_encoding == "DICTIONARY"):
            return None
        return self._cached(name, "sorted_ranges", lambda: decoders.decode_sorted_ranges(
            self._required_buffer(name, "forward_index"), column.cardinality, self.metadata.total_docs,
            self._where(name, "forward_index")))

    def stored_values(self, name: str) -> pa.Array:
        """The column's values in the stored Arrow type (``PinotColumns`` contract), defaults in place."""
        column = self.column(name)
        return self._cached(name, "stored", lambda: self._decode_stored(column))

    def _decode_stored(self, column: ColumnMetadata) -> pa.Array:
        if column.stored_type not in ARROW_STORED_TYPE:
            raise SegmentFormatError(f"column {column.name!r}: reading {column.data_type} values is not supported")
        if self.metadata.total_docs == 0:
            return pa.array([], type=stored_arrow_type(column))
        ranges = self.sorted_doc_ranges(column.name)
        if ranges is not None:  # a sorted column: each value repeated over its run, no per-doc dictIds
            return _expand_runs(self.dictionary(column.name), ranges)
        ids = self.dict_ids(column.name)
        if ids is None:
            values = self._decode_raw(column)
        elif column.single_value:
            values = _take(self.dictionary(column.name), ids)
        else:
            flat = self.dictionary(column.name).take(ids.values)
            values = pa.ListArray.from_arrays(ids.offsets, flat)
        return values

    def _decode_raw(self, column: ColumnMetadata) -> pa.Array:
        try:
            from .raw_forward import read_raw_forward
        except ImportError:
            raise SegmentFormatError(
                f"column {column.name!r}: raw forward indexes need pinot_sink.segment.read.raw_forward, which is missing"
            ) from None
        buf = self._required_buffer(column.name, "forward_index")
        try:
            values = read_raw_forward(buf, column.stored_type, column.single_value, self.metadata.total_docs)
        except SegmentFormatError:
            raise
        except Exception as exc:
            raise SegmentFormatError(f"{self._where(column.name, 'forward_index')}: {exc}") from exc
        values = _normalise_raw(values, column, self._where(column.name, "forward_index"))
        if len(values) != self.metadata.total_docs:
            raise SegmentFormatError(
                f"{self._where(column.name, 'forward_index')}: {len(values)} values for "
                f"{self.metadata.total_docs} docs"
            )
        return values

    def null_mask(self, name: str) -> np.ndarray | None:
        """Bool mask of the docs in the null value vector; all-false for ``isNonNull``; None without null handling."""
        column = self.column(name)

        def compute():
            buf = self.index_buffer(name, "nullvalue_vector")
            if buf is not None:
                return decoders.decode_null_vector(buf, self.metadata.total_docs, self._where(name, "nullvalue_vector"))
            if column.non_null:
                return np.zeros(self.metadata.total_docs, dtype=np.bool_)
            return None

        return self._cached(name, "nulls", compute)

    def inverted_index(self, name: str) -> list[np.ndarray] | None:
        """docIds per dictId from the bitmap inverted index (or a sorted column's ranges); None if neither."""
        column = self.column(name)
        ranges = self.sorted_doc_ranges(name)
        if ranges is not None:
            return [np.arange(first, last + 1, dtype=np.int32) for first, last in ranges]
        if not column.has_dictionary:
            return None  # a legacy raw-value inverted index (Pinot drops and rebuilds those)

        def compute():
            buf = self.index_buffer(name, "inverted_index")
            if buf is None:
                return None
            where = self._where(name, "inverted_index")
            return decoders.decode_bitmap_inverted(buf, column.cardinality, self.metadata.total_docs, where)

        return self._cached(name, "inverted", compute)

    def legacy_raw_inverted_index(self, name: str) -> tuple[pa.Array, list[np.ndarray]] | None:
        """A raw column's legacy raw-value inverted index: (values, docIds per value), or None."""
        column = self.column(name)
        if column.has_dictionary:
            return None

        def compute():
            buf = self.index_buffer(name, "inverted_index")
            if buf is None:
                return None
            where = self._where(name, "inverted_index")
            return decoders.decode_legacy_raw_inverted(buf, column.stored_type, self.metadata.total_docs, where)

        return self._cached(name, "legacy_inverted", compute)

    def values_slice(self, name: str, start: int, stop: int) -> pa.Array:
        """Logical values of docs [start, stop), decoding only those where the layout allows: a dictionary
        column's bit-packed dictIds of those docs, a sorted column's runs that meet them. Other columns (raw,
        multi-value) are decoded whole once and sliced."""
        column = self.column(name)
        count = max(0, min(stop, self.metadata.total_docs) - start)
        stored = None
        if (count and column.single_value and column.forward_index_encoding == "DICTIONARY"
                and column.stored_type in ARROW_STORED_TYPE and (name, "stored") not in self._cache):
            ranges = self.sorted_doc_ranges(name)
            if ranges is not None:
                first, runs = _clip_runs(ranges, start, start + count)
                stored = _expand_runs(self.dictionary(name).slice(first, len(runs)), runs)
            else:
                stored = _take(self.dictionary(name), pa.array(self._dict_ids_slice(column, start, count)))
        if stored is None:
            stored = self.stored_values(name).slice(start, count)
        mask = self.null_mask(name)
        return to_logical(stored, column, mask[start:start + count] if mask is not None else None)

    def _dict_ids_slice(self, column: ColumnMetadata, start: int, count: int) -> np.ndarray:
        buf = self._required_buffer(column.name, "forward_index")
        where, bits, docs = self._where(column.name, "forward_index"), column.bits_per_element, self.metadata.total_docs
        if len(buf) != (docs * bits + 7) // 8:
            decoders.decode_unsorted_sv_forward(buf, bits, docs, column.cardinality, where)  # raises, saying why
        skip = start % 8  # unpacked from the doc before start that begins a whole byte
        # numpy's arrays: glibc reuses a batch's for the next; from Arrow's pool read_batches' peak grew ~15 MiB
        ids = decoders.unpack_bits(memoryview(buf)[(start - skip) * bits // 8:], bits, count + skip, where,
                                   allocate=np.empty)[skip:]
        decoders.check_dict_ids(ids, column.cardinality, where, first_doc=start)
        return ids

    def values(self, name: str) -> pa.Array:
        """Logical values (see the module docstring) with the null value vector applied."""
        column = self.column(name)
        return to_logical(self.stored_values(name), column, self.null_mask(name))

    # --- integrity -------------------------------------------------------------------------------

    def compute_crcs(self) -> tuple[int, int] | None:
        """(segment CRC, data CRC) recomputed from the files as Pinot does (SEGMENT_FORMAT.md 3.2).

        Segment CRC: Adler-32 over every file under the segment directory but ``creation.meta`` and ``*.crc``,
        sorted by path. Data CRC: over the ``.dict`` / ``.fwd`` files in v1 terms (v3 payloads named as their
        v1 files). None when only metadata is available. A server-converted v3 segment keeps its v1 CRC, so a
        difference there is expected.
        """
        if self.layout == "metadata-only" or (self.layout == "v3" and self._index_file is None):
            return None
        paths = [p for p in self._files.names()
                 if p.rsplit("/", 1)[-1] != CREATION_META_FILE and not p.endswith(".crc")]
        crc = _adler32_files(self._files, sorted(paths, key=java_sort_key))
        if self.layout == "v1":
            data = sorted((p for p in paths if "/" not in p and p.endswith(DATA_FILE_SUFFIXES)), key=java_sort_key)
            return crc, _adler32_files(self._files, data)
        named = {}
        for column, entries in self._index_file.entries.items():
            for index in ("dictionary", "forward_index"):
                if index in entries and column in self.metadata.columns:
                    suffix = DICTIONARY_EXTENSION if index == "dictionary" else _forward_suffix(self.column(column))
                    named[column + suffix] = (column, index)
        value = 1
        for name in sorted(named, key=java_sort_key):
            value = isal_zlib.adler32(self._index_file.buffer(*named[name]), value)
        return crc, value

    # --- whole segment ---------------------------------------------------------------------------

    def _decode_cost(self, name: str) -> int:
        """A column's decoding cost, roughly, for ordering the work: the bytes of its forward index and
        dictionary read, and for text a gather of variable-length values per doc (~4x a number's)."""
        column = self.column(name)
        sizes = column.index_sizes
        per_doc = 4 if column.stored_type in ("STRING", "BYTES", "BIG_DECIMAL") else 0
        return sizes.get("forward_index", 0) + sizes.get("dictionary", 0) + per_doc * self.metadata.total_docs

    def read(self, columns: Iterable[str] | None = None, threads: int = 1) -> SegmentContents:
        """The whole segment (or ``columns``). ``threads`` > 1 decodes that many columns at a time (numpy and
        pyarrow let go of the GIL): less wall time on idle cores, the same CPU and the same result."""
        names = list(columns) if columns is not None else self.column_names
        for name in names:
            self.column(name)
        if threads > 1 and len(names) > 1:
            from concurrent.futures import ThreadPoolExecutor

            # The costliest columns first, so that no large one is left running alone at the end
            longest_first = sorted(names, key=self._decode_cost, reverse=True)
            with ThreadPoolExecutor(min(threads, len(names))) as pool:  # each column has its own cache keys
                list(pool.map(lambda n: (self.stored_values(n), self.null_mask(n)), longest_first))
        stored = {name: self.stored_values(name) for name in names}
        masks = {name: mask for name in names if (mask := self.null_mask(name)) is not None}
        logical = {name: to_logical(stored[name], self.column(name), masks.get(name)) for name in names}
        return SegmentContents(
            metadata=self.metadata,
            table=pa.table(logical) if names else pa.table({}),
            null_masks=masks,
            stored=PinotColumns(pa.table(stored) if names else pa.table({}), dict(masks)),
        )


def _clip_runs(ranges: np.ndarray, start: int, stop: int) -> tuple[int, np.ndarray]:
    """The runs of a sorted column that meet docs [start, stop): (the first one's dictId, their doc ranges cut
    to those docs), as ``_expand_runs`` takes them with the dictionary sliced from that dictId."""
    first = int(np.searchsorted(ranges[:, 1], start))  # the first run that ends at or after start
    last = int(np.searchsorted(ranges[:, 0], stop - 1, side="right"))  # past the last run that starts by stop-1
    clipped = ranges[first:last].copy()
    clipped[0, 0] = max(clipped[0, 0], start)
    clipped[-1, 1] = min(clipped[-1, 1], stop - 1)
    return first, clipped


def _expand_runs(dictionary: pa.Array, ranges: np.ndarray) -> pa.Array:
    """A sorted column's values from its dictionary and doc ranges: the dictionary itself when every value
    holds one doc (ids, timestamps), else each doc's dictId (``decoders.sorted_dict_ids``) taken."""
    if len(ranges) == 0 or len(ranges) == int(ranges[-1, 1] - ranges[0, 0]) + 1:  # every run one doc
        return dictionary
    ids = pa.array(decoders.sorted_dict_ids(ranges))
    if pa.types.is_integer(dictionary.type) or pa.types.is_floating(dictionary.type):
        return dictionary.take(ids)
    return _take(dictionary, ids)


def _take(dictionary: pa.Array, ids: pa.Array) -> pa.Array:
    """``dictionary.take(ids)``; values of one length (ids, hashes, codes) gathered as rows of a byte matrix,
    which is several times cheaper than Arrow's take of variable-length values."""
    if (dictionary.type not in (pa.string(), pa.binary()) or len(dictionary) == 0 or dictionary.null_count
            or ids.null_count):  # the rows below carry no validity: a null id would read the bytes of none
        return dictionary.take(ids)
    offsets = np.frombuffer(dictionary.buffers()[1], dtype=np.int32, count=len(dictionary) + 1,
                            offset=dictionary.offset * 4)
    width = int(offsets[1] - offsets[0])
    if width == 0 or int(offsets[-1] - offsets[0]) != width * len(dictionary) or (np.diff(offsets) != width).any():
        return dictionary.take(ids)
    count = len(ids)
    if count * width > np.iinfo(np.int32).max:
        return dictionary.take(ids)
    # Arrow's take of fixed-size binary rows: ~2x numpy's (whose fresh output pages fault in every time, where
    # Arrow's memory pool reuses its own)
    values = dictionary.buffers()[2].slice(int(offsets[0]), width * len(dictionary))
    rows = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), len(dictionary), [None, values]).take(ids)
    new_offsets = np.arange(0, (count + 1) * width, width, dtype=np.int32)
    return pa.Array.from_buffers(dictionary.type, count, [None, pa.py_buffer(new_offsets), rows.buffers()[1]])


def to_logical(stored: pa.Array, column: ColumnMetadata, null_mask: np.ndarray | None) -> pa.Array:
    """Stored values -> logical Arrow type, nulls where ``null_mask`` is set."""
    if isinstance(stored, pa.ChunkedArray):
        stored = stored.combine_chunks()
    if column.single_value:
        values = _logical_scalar_values(stored, column.data_type)
        if null_mask is not None and null_mask.any():
            values = pc.if_else(pa.array(null_mask), pa.scalar(None, values.type), values)
        return values
    offsets = stored.offsets
    if stored.offset:  # a slice (read_batches): offsets from 0 over its own values, as from_arrays wants them
        offsets = pc.subtract(offsets, offsets[0])
    inner = _logical_scalar_values(stored.flatten() if stored.offset else stored.values, column.data_type)
    mask = pa.array(null_mask) if null_mask is not None and null_mask.any() else None
    return pa.ListArray.from_arrays(offsets, inner, mask=mask)


def _logical_scalar_values(values: pa.Array, data_type: str) -> pa.Array:
    if data_type == "BOOLEAN":
        return pc.not_equal(values, 0)
    if data_type == "TIMESTAMP":
        return values.cast(pa.timestamp("ms", tz="UTC"))
    return values


def _normalise_raw(values: pa.Array, column: ColumnMetadata, where: str) -> pa.Array:
    """Bring the raw decoder's output to the stored Arrow type (BIG_DECIMAL text, STRING ``string``)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    flat = values if column.single_value else values.values
    if column.stored_type == "BIG_DECIMAL" and (pa.types.is_binary(flat.type) or pa.types.is_large_binary(flat.type)):
        flat = pa.array([decoders.big_decimal_text(v) for v in flat.to_pylist()], type=pa.string())
    elif column.stored_type == "STRING" and (pa.types.is_binary(flat.type) or pa.types.is_large_binary(flat.type)):
        flat = decoders.binary_to_utf8(flat, where)
    target = ARROW_STORED_TYPE[column.stored_type]
    if flat.type != target:
        flat = flat.cast(target)
    if column.single_value:
        return flat
    return pa.ListArray.from_arrays(values.offsets, flat)


def _with_v1_sizes(metadata: SegmentMetadata, files: SegmentFiles) -> SegmentMetadata:
    """Fill each column's index sizes from the v1 file sizes."""
    columns = {}
    for name, column in metadata.columns.items():
        sizes = {}
        suffixes = dict(V1_EXTENSIONS, forward_index=(_forward_suffix(column),))
        for index, candidates in suffixes.items():
            for suffix in candidates:
                if files.isfile(name + suffix):
                    sizes[index] = files.size(name + suffix)
                    break
        columns[name] = dataclasses.replace(column, index_sizes=sizes)
    return dataclasses.replace(metadata, columns=columns)


def _adler32_files(files: SegmentFiles, names: Iterable[str]) -> int:
    value = 1
    for name in names:
        for chunk in files.chunks(name):
            value = isal_zlib.adler32(chunk, value)
    return value
