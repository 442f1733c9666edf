"""Typed segment metadata as Pinot's reader sees it: ``metadata.properties`` + ``creation.meta`` + ``index_map``.

Parsing follows ``SegmentMetadataImpl`` / ``ColumnMetadataImpl.fromPropertiesConfiguration`` (SEGMENT_FORMAT.md
sections 2.2, 2.3, 3.1 and 1.4), including the reader's canonicalisation:

* only columns named in one of the segment's column lists (dimension, metric, date-time, complex, time
  column) are columns of the segment; stray ``column.<c>.*`` keys are ignored, as Pinot does;
* fixed-width stored types get shortest/longest element length = type size; var-width columns without
  ``lengthOfLongestElement`` (pre-1.6 segments) fall back to ``lengthOfEachEntry`` when they have a dictionary;
* single-value columns get ``totalNumberOfEntries = totalDocs``, ``maxNumberOfMultiValues = 0`` and
  ``maxRowLengthInBytes = lengthOfLongestElement``; fixed-width MV columns get
  ``maxRowLengthInBytes = maxNumberOfMultiValues * size``;
* ``bitsPerElement`` is -1 for columns without a dictionary; ``forwardIndexEncoding`` defaults from
  ``hasDictionary``;
* STRING min/max/default values have Pinot's NUL pre-escaping undone; BYTES are hex.

Values (min, max, default) are in the *stored* form, like ``type_mapping.pinot_schema`` (BOOLEAN 0/1,
TIMESTAMP epoch millis, BIG_DECIMAL ``decimal.Decimal``, BYTES ``bytes``).
"""
from __future__ import annotations

import decimal
import logging
import re
import struct
from dataclasses import dataclass, field
from typing import Any, Mapping

from type_mapping.datetime_formats import UNIT_MILLIS, stored_to_millis
from type_mapping.pinot_schema import (
    DIMENSION,
    FIXED_WIDTH_STORED,
    METRIC,
    STORED_TYPE,
    FieldSpec,
    PinotSchema,
    SchemaError,
    parse_default_null_value,
    pinot_default_null_value,
)

from ..format import raw_table_name
from ..properties import Value, as_list, as_text, parse_properties, pinot_unescape_string
from type_mapping.errors import PinotSinkError

log = logging.getLogger(__name__)

UNAVAILABLE = -1
_JAVA_BIG_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
LONG_MIN = -(2**63)
# Pinot's UUID is stored as BYTES; complex types are not readable here but their metadata parses.
_EXTRA_STORED = {"UUID": "BYTES", "MAP": "MAP", "LIST": "LIST", "STRUCT": "STRUCT", "OPEN_STRUCT": "OPEN_STRUCT"}
_TIME_UNITS = UNIT_MILLIS
# TimeUtils.timeUnitFromString also accepts the "<UNIT>SINCEEPOCH" spellings (and MILLISSINCEEPOCH etc.).
_TIME_UNIT_ALIASES = {
    **{f"{unit}SINCEEPOCH": unit for unit in _TIME_UNITS},
    "MILLISSINCEEPOCH": "MILLISECONDS",
    "MICROSSINCEEPOCH": "MICROSECONDS",
    "NANOSSINCEEPOCH": "NANOSECONDS",
}


class SegmentFormatError(PinotSinkError, ValueError):
    """A segment (or one of its files) that is malformed; the message names the file and column."""


def stored_type_of(data_type: str) -> str:
    if data_type in STORED_TYPE:
        return STORED_TYPE[data_type]
    if data_type in _EXTRA_STORED:
        return _EXTRA_STORED[data_type]
    raise SegmentFormatError(f"unknown Pinot data type {data_type!r}")


def parse_stored_value(text: str, stored_type: str, column: str, key: str) -> Any:
    """A min/max value string as ``ColumnMetadataImpl.parseValue`` reads it, in the stored form."""
    try:
        if stored_type in ("INT", "LONG"):
            return int(text.strip())
        if stored_type in ("FLOAT", "DOUBLE"):
            return _java_float(text)
        if stored_type == "BIG_DECIMAL":
            if not _JAVA_BIG_DECIMAL.fullmatch(text.strip()):  # Python's Decimal also takes "Infinity", "1_0"
                raise ValueError(text)
            return decimal.Decimal(text.strip())
        if stored_type == "STRING":
            return pinot_unescape_string(text)
        if stored_type == "BYTES":
            return bytes.fromhex(text)
    except (ValueError, decimal.InvalidOperation) as exc:
        raise SegmentFormatError(f"column {column!r}: {key} {text!r} is not a valid {stored_type}") from exc
    return text


def _java_float(text: str) -> float:
    """``Double.valueOf``: accepts ``Infinity``/``NaN`` and a trailing ``d``/``f`` type suffix."""
    text = text.strip()
    if text[-1:] in ("d", "D", "f", "F") and not text.endswith("inity"):
        text = text[:-1]
    return float(text)


@dataclass(frozen=True)
class IndexEntry:
    """One index of one column inside ``v3/columns.psf`` (offset of the magic marker, size incl. marker)."""

    column: str
    index: str
    offset: int
    size: int


# A line as Pinot's writers (and ours) write the index map: ``<column>.<index>.startOffset|size = <digits>``.
_INDEX_MAP_LINE = re.compile(r"^([^\s=:#!\\][^\s=:\\]*)\.([^\s=:.\\]+)\.(startOffset|size) = (\d+)$", re.M)


def parse_index_map(data: bytes | str) -> dict[str, dict[str, IndexEntry]]:
    """``v3/index_map`` -> column -> index id -> entry. Keys split from the right, so names may hold dots.
    A map whose every line is as Pinot writes it, each key once, is read by one regular expression (a
    compaction opens thousands of segments); any other goes through the properties parser."""
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    starts: dict[tuple[str, str], int] = {}
    sizes: dict[tuple[str, str], int] = {}
    lines = _INDEX_MAP_LINE.findall(text)
    for column, index, what, number in lines:
        (starts if what == "startOffset" else sizes)[(column, index)] = int(number)
    if len(starts) + len(sizes) != len(lines) or len(lines) != len(text.splitlines()):
        starts, sizes = _parsed_index_map(text)
    result: dict[str, dict[str, IndexEntry]] = {}
    for pair in sorted(set(starts) | set(sizes)):
        if pair not in starts or pair not in sizes:
            raise SegmentFormatError(f"index_map: {pair[0]}.{pair[1]} has no "
                                     f"{'startOffset' if pair not in starts else 'size'}")
        column, index = pair
        result.setdefault(column, {})[index] = IndexEntry(column, index, starts[pair], sizes[pair])
    return result


def _parsed_index_map(text: str) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    """The index map's start offsets and sizes by (column, index) through the properties parser (escapes,
    comments, other separators; a repeated key is not a number)."""
    starts: dict[tuple[str, str], int] = {}
    sizes: dict[tuple[str, str], int] = {}
    for key, value in parse_properties(text).items():
        parts = key.rsplit(".", 2)
        if len(parts) != 3:
            raise SegmentFormatError(f"index_map: malformed key {key!r}")
        column, index, what = parts
        try:
            number = int(as_text(value) or "")
        except ValueError:
            raise SegmentFormatError(f"index_map: {key} = {value!r} is not a number") from None
        if what == "startOffset":
            starts[(column, index)] = number
        elif what == "size":
            sizes[(column, index)] = number
        else:
            raise SegmentFormatError(f"index_map: unknown key {key!r}")
    return starts, sizes


@dataclass(frozen=True)
class CreationMeta:
    crc: int
    creation_time_ms: int
    data_crc: int | None  # None: a 16-byte (older) file without the data CRC

    @classmethod
    def parse(cls, data: bytes) -> "CreationMeta":
        if len(data) < 16:
            raise SegmentFormatError(f"creation.meta: {len(data)} bytes, expected 16 or 24")
        crc, created = struct.unpack_from(">qq", data, 0)
        data_crc = struct.unpack_from(">q", data, 16)[0] if len(data) >= 24 else None
        return cls(crc, created, data_crc)


@dataclass(frozen=True)
class ColumnMetadata:
    name: str
    field_type: str
    data_type: str
    stored_type: str
    single_value: bool
    total_docs: int
    cardinality: int
    has_dictionary: bool
    forward_index_encoding: str
    sorted: bool
    non_null: bool
    length_of_shortest_element: int
    length_of_longest_element: int
    dictionary_element_size: int  # lengthOfEachEntry
    ascii: bool
    total_number_of_entries: int
    max_number_of_multi_values: int
    max_row_length_in_bytes: int
    bits_per_element: int
    auto_generated: bool
    default_null_value: Any
    min_value: Any = None
    max_value: Any = None
    min_max_value_invalid: bool = False
    max_length: int | None = None
    max_length_exceed_strategy: str | None = None
    datetime_format: str | None = None
    datetime_granularity: str | None = None
    partition_function: str | None = None
    num_partitions: int | None = None
    partitions: tuple[int, ...] | None = None
    partition_function_config: dict[str, str] | None = None
    index_sizes: dict[str, int] = field(default_factory=dict)

    @property
    def is_fixed_width(self) -> bool:
        return self.stored_type in FIXED_WIDTH_STORED

    def field_spec(self) -> FieldSpec:
        """The column as a ``type_mapping`` field spec (raises SchemaError for types that model lacks)."""
        kwargs: dict[str, Any] = {}
        if self.max_length is not None:
            kwargs["max_length"] = self.max_length
        return FieldSpec(
            name=self.name,
            data_type=self.data_type,
            field_type=self.field_type,
            single_value=self.single_value,
            default_null_value=self.default_null_value,
            default_null_value_in_schema=self.default_null_value != pinot_default_null_value(
                self.data_type, METRIC if self.field_type == METRIC else DIMENSION
            ),
            max_length_exceed_strategy=self.max_length_exceed_strategy,
            datetime_format=self.datetime_format,
            datetime_granularity=self.datetime_granularity,
            **kwargs,
        )


@dataclass(frozen=True)
class SegmentMetadata:
    name: str
    table_name: str | None
    total_docs: int
    version: str  # "v1" / "v2" / "v3" as in segment.index.version (default v1)
    columns: dict[str, ColumnMetadata]
    undescribed_columns: tuple[str, ...] = ()  # listed in a column list but without column keys
    dimension_columns: tuple[str, ...] = ()
    metric_columns: tuple[str, ...] = ()
    datetime_columns: tuple[str, ...] = ()
    complex_columns: tuple[str, ...] = ()
    time_column: str | None = None
    time_unit: str | None = None
    start_time: int | None = None
    end_time: int | None = None
    creator_version: str | None = None
    crc: int | None = None
    creation_time_ms: int | None = None
    data_crc: int | None = None
    custom: dict[str, str] = field(default_factory=dict)
    start_offset: str | None = None
    end_offset: str | None = None
    star_tree_count: int = 0
    properties: Mapping[str, Value] = field(default_factory=dict, repr=False)

    @property
    def start_time_ms(self) -> int | None:
        if self.start_time is None or self.time_unit is None:
            return None
        return stored_to_millis(self.start_time, self.time_unit)

    @property
    def end_time_ms(self) -> int | None:
        if self.end_time is None or self.time_unit is None:
            return None
        return stored_to_millis(self.end_time, self.time_unit)

    def schema(self) -> PinotSchema:
        """The segment's columns as a Pinot schema (like ``SegmentMetadataImpl.getSchema``)."""
        fields = {name: column.field_spec() for name, column in self.columns.items()}
        return PinotSchema(name=self.table_name or "", fields=fields)


def _described(props: Mapping[str, Value]) -> set[str]:
    """Every name ``c`` with some ``column.c.*`` key (a name may hold dots: each prefix up to a dot counts),
    in one pass over the keys instead of one pass per column."""
    names = set()
    for key in props:
        if key.startswith("column."):
            at = 7
            while (at := key.find(".", at + 1)) != -1:
                names.add(key[7:at])
    return names


def parse_segment_metadata(
    properties: bytes | str | Mapping[str, Value],
    creation_meta: bytes | None = None,
    index_map: Mapping[str, Mapping[str, IndexEntry]] | None = None,
) -> SegmentMetadata:
    props = parse_properties(properties) if isinstance(properties, (bytes, str)) else dict(properties)
    name = as_text(props.get("segment.name"))
    if not name:
        raise SegmentFormatError("metadata.properties: segment.name is missing")
    total_docs = _int(props, "segment.total.docs", None, "segment")
    version = (as_text(props.get("segment.index.version")) or "v1").strip()
    table = as_text(props.get("segment.table.name"))
    if table:
        table = raw_table_name(table)

    def names(key: str) -> tuple[str, ...]:
        return tuple(n.strip() for n in as_list(props.get(key)) if n.strip())

    dimensions = names("segment.dimension.column.names")
    metrics = names("segment.metric.column.names")
    datetimes = names("segment.datetime.column.names")
    complexes = names("segment.complex.column.names")
    time_column = (as_text(props.get("segment.time.column.name")) or "").strip() or None
    physical = set(dimensions) | set(metrics) | set(datetimes) | set(complexes)
    if time_column:
        physical.add(time_column)

    columns = {}
    undescribed = []
    # Nearly every column has its columnType key; only when one lacks it are all the keys looked through.
    described = physical if all(f"column.{c}.columnType" in props for c in physical) else _described(props)
    for column in sorted(physical):
        if column not in described:
            # Listed but without any column keys (seen in real files for the time column). Pinot would fail
            # to load such a segment; a reader for inspection reports it instead.
            undescribed.append(column)
            log.warning("metadata.properties: column %r is listed but has no column.%s.* keys", column, column)
            continue
        sizes = {k: v.size for k, v in (index_map or {}).get(column, {}).items()}
        columns[column] = parse_column_metadata(props, column, total_docs, sizes)

    time_unit, start, end = _time_info(props)
    meta = CreationMeta.parse(creation_meta) if creation_meta is not None else None
    custom = {k[len("custom."):]: as_text(v) or "" for k, v in props.items() if k.startswith("custom.")}
    return SegmentMetadata(
        name=name,
        table_name=table,
        total_docs=total_docs,
        version=version,
        columns=columns,
        undescribed_columns=tuple(undescribed),
        dimension_columns=dimensions,
        metric_columns=metrics,
        datetime_columns=datetimes,
        complex_columns=complexes,
        time_column=time_column,
        time_unit=time_unit,
        start_time=start,
        end_time=end,
        creator_version=as_text(props.get("creator.version")),
        crc=meta.crc if meta else None,
        creation_time_ms=meta.creation_time_ms if meta else None,
        data_crc=meta.data_crc if meta else None,
        custom=custom,
        start_offset=as_text(props.get("segment.realtime.startOffset")),
        end_offset=as_text(props.get("segment.realtime.endOffset")),
        star_tree_count=_int(props, "startree.v2.count", 0, "segment"),
        properties=props,
    )


def _time_info(props: Mapping[str, Value]) -> tuple[str | None, int | None, int | None]:
    keys = ("segment.time.unit", "segment.start.time", "segment.end.time")
    if not all(k in props for k in keys):
        return None, None, None
    unit = (as_text(props["segment.time.unit"]) or "").strip().upper()
    unit = _TIME_UNIT_ALIASES.get(unit, unit)
    try:
        if unit not in _TIME_UNITS:
            raise ValueError(unit)
        return unit, int(as_text(props["segment.start.time"]) or ""), int(as_text(props["segment.end.time"]) or "")
    except ValueError:
        # SegmentMetadataImpl.setTimeInfo logs and leaves the interval unset.
        log.warning("metadata.properties: unusable time info %s", {k: props[k] for k in keys})
        return None, None, None


def _int(props: Mapping[str, Value], key: str, default: int | None, column: str) -> int:
    value = as_text(props.get(key))
    if value is None:
        if default is None:
            raise SegmentFormatError(f"metadata.properties: {key} is missing ({column})")
        return default
    try:
        return int(value.strip())
    except ValueError:
        raise SegmentFormatError(f"metadata.properties: {key} = {value!r} is not an integer") from None


def _bool(props: Mapping[str, Value], key: str, default: bool) -> bool:
    value = as_text(props.get(key))
    if value is None:
        return default
    text = value.strip().lower()
    if text in ("true", "yes", "on"):
        return True
    if text in ("false", "no", "off"):
        return False
    raise SegmentFormatError(f"metadata.properties: {key} = {value!r} is not a boolean")


def parse_column_metadata(
    props: Mapping[str, Value], column: str, total_docs: int, index_sizes: Mapping[str, int] | None = None
) -> ColumnMetadata:
    prefix = f"column.{column}."

    def text(key: str) -> str | None:
        return as_text(props.get(prefix + key))

    def number(key: str, default: int | None = UNAVAILABLE) -> int:
        return _int(props, prefix + key, default, column)

    def flag(key: str, default: bool) -> bool:
        return _bool(props, prefix + key, default)

    field_type = (text("columnType") or "").strip().upper()
    data_type = (text("dataType") or "").strip().upper()
    if not field_type or not data_type:
        raise SegmentFormatError(f"metadata.properties: column {column!r} has no columnType/dataType")
    try:
        stored_type = stored_type_of(data_type)
    except SegmentFormatError as exc:
        raise SegmentFormatError(f"column {column!r}: {exc}") from None
    single_value = flag("isSingleValues", True)
    has_dictionary = flag("hasDictionary", True)
    encoding = (text("forwardIndexEncoding") or ("DICTIONARY" if has_dictionary else "RAW")).strip().upper()

    shortest = number("lengthOfShortestElement")
    longest = number("lengthOfLongestElement")
    element_size = number("lengthOfEachEntry")
    if stored_type in FIXED_WIDTH_STORED:
        shortest = longest = FIXED_WIDTH_STORED[stored_type]
    elif longest < 0 and has_dictionary:
        longest = element_size
    total_entries = number("totalNumberOfEntries")
    max_mv = number("maxNumberOfMultiValues")
    max_row = number("maxRowLengthInBytes")
    if single_value:
        total_entries, max_mv, max_row = total_docs, 0, longest
    elif stored_type in FIXED_WIDTH_STORED:
        max_row = max_mv * FIXED_WIDTH_STORED[stored_type]
    bits = number("bitsPerElement") if has_dictionary else UNAVAILABLE

    default = _default_null_value(text("defaultNullValue"), data_type, stored_type, field_type, column)
    min_text, max_text = text("minValue"), text("maxValue")
    min_value = parse_stored_value(min_text, stored_type, column, "minValue") if min_text is not None else None
    max_value = parse_stored_value(max_text, stored_type, column, "maxValue") if max_text is not None else None
    invalid = stored_type in ("MAP", "LIST", "STRUCT", "OPEN_STRUCT") or (
        min_text is None and max_text is None and flag("minMaxValueInvalid", False)
    )

    partition_function = text("partitionFunction")
    num_partitions = partitions = config = None
    if partition_function is not None:
        num_partitions = number("numPartitions", None)
        partitions = _partitions(as_list(props.get(prefix + "partitionValues")), column)
        config_prefix = prefix + "partitionFunctionConfig."
        config = {k[len(config_prefix):]: as_text(v) or "" for k, v in props.items() if k.startswith(config_prefix)}
        config = config or None

    max_length = text("schemaMaxLength")
    if total_docs == 0:
        # EmptyColumnMetadata: only the field spec and partition info are read; no dictionary, no indexes.
        has_dictionary, encoding, bits, invalid = False, "RAW", UNAVAILABLE, True
        min_value = max_value = None
        total_entries = max_mv = 0
    return ColumnMetadata(
        name=column,
        field_type=field_type,
        data_type=data_type,
        stored_type=stored_type,
        single_value=single_value,
        total_docs=total_docs,
        cardinality=number("cardinality", None) if total_docs else 0,
        has_dictionary=has_dictionary,
        forward_index_encoding=encoding,
        sorted=flag("isSorted", False),
        non_null=flag("isNonNull", False),
        length_of_shortest_element=shortest,
        length_of_longest_element=longest,
        dictionary_element_size=element_size,
        ascii=flag("isAscii", False),
        total_number_of_entries=total_entries,
        max_number_of_multi_values=max_mv,
        max_row_length_in_bytes=max_row,
        bits_per_element=bits,
        auto_generated=flag("isAutoGenerated", False),
        default_null_value=default,
        min_value=min_value,
        max_value=max_value,
        min_max_value_invalid=invalid,
        max_length=int(max_length) if max_length is not None else None,
        max_length_exceed_strategy=text("schemaMaxLengthExceedStrategy"),
        datetime_format=text("datetimeFormat"),
        datetime_granularity=text("datetimeGranularity"),
        partition_function=partition_function,
        num_partitions=num_partitions,
        partitions=partitions,
        partition_function_config=config,
        index_sizes=dict(index_sizes or {}),
    )


def _default_null_value(raw: str | None, data_type: str, stored_type: str, field_type: str, column: str) -> Any:
    if data_type not in STORED_TYPE:  # UUID, complex: keep Pinot's text
        return raw
    try:
        if raw is None:
            return pinot_default_null_value(data_type, METRIC if field_type == METRIC else DIMENSION)
        if stored_type == "STRING":
            return pinot_unescape_string(raw)
        if stored_type in ("FLOAT", "DOUBLE"):
            return _java_float(raw)
        return parse_default_null_value(raw, data_type, column)
    except (SchemaError, ValueError) as exc:
        raise SegmentFormatError(f"column {column!r}: defaultNullValue {raw!r}: {exc}") from None


def _partitions(values: list[str], column: str) -> tuple[int, ...]:
    """``ColumnPartitionMetadata.extractPartitions``: ints, or ``[start end]`` ranges."""
    result: set[int] = set()
    try:
        for value in values:
            value = value.strip()
            if value.startswith("["):
                start, end = value[1:-1].split(" ", 1)
                result.update(range(int(start), int(end) + 1))
            elif value:
                result.add(int(value))
    except ValueError:
        raise SegmentFormatError(f"column {column!r}: partitionValues {values!r} are not partition ids") from None
    return tuple(sorted(result))
