"""``metadata.properties``: the keys Pinot writes, in Pinot's order (SEGMENT_FORMAT.md 2.2, 2.3).

Segment keys first (``BaseSegmentCreator.writeMetadata``), then per column in ``String.compareTo``
order (``addColumnMetadataInfo`` / ``addFieldSpec``), each value escaped as commons-configuration2
does (``properties.PropertiesWriter``), STRING min/max/default pre-escaped by
``pinot_escape_string``. The v3 copy is the same file re-saved (empty values lose the space after
``=``) with ``segment.index.version = v3`` appended.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import decimal
from typing import Iterable

from type_mapping.java_text import big_decimal_plain_string, from_decimal, java_float_str, java_sort_key
from type_mapping.pinot_schema import DATE_TIME, DEFAULT_MAX_LENGTH, DIMENSION, METRIC, FieldSpec, PinotSchema

from .bitpack import bits_per_value
from .properties import PropertiesWriter, pinot_escape_string
from .stats import ColumnStats, min_max_property


def java_hash_set_order(values: Iterable[int]) -> list[int]:
    """Iteration order of a ``java.util.HashSet<Integer>`` holding small non-negative ints.

    Pinot writes ``partitionValues`` straight from such a set. Integers hash to themselves, so the
    order is by bucket (``value & (capacity - 1)``); the table starts at 16 buckets and doubles while
    the set holds more than 3/4 of that. Values sharing a bucket keep insertion order in Java; we order
    them ascending, which is the insertion order whenever partitions first appear in ascending order.
    """
    distinct = sorted(set(values))
    capacity = 16
    while len(distinct) > capacity * 3 // 4:
        capacity *= 2
    return sorted(distinct, key=lambda v: (v & (capacity - 1), v))


@dataclass
class PartitionInfo:
    function_name: str  # Pinot's canonical name (PartitionFunction.getName())
    num_partitions: int
    partitions: list[int]
    function_config: dict[str, str] | None = None


@dataclass
class ColumnMetadata:
    spec: FieldSpec
    stats: ColumnStats
    has_dictionary: bool
    dictionary_element_size: int
    partition: PartitionInfo | None = None
    is_non_null: bool = False


@dataclass
class SegmentMetadata:
    segment_name: str
    table_name: str
    schema: PinotSchema
    total_docs: int
    columns: dict[str, ColumnMetadata]
    time_column: str | None = None
    start_time: int | None = None
    end_time: int | None = None
    time_unit: str | None = None
    custom: dict[str, str] = field(default_factory=dict)


def default_null_value_string(spec: FieldSpec) -> str | None:
    """``FieldSpec.getDefaultNullValueString`` (+ Pinot's STRING pre-escaping; None = key left out)."""
    value = spec.default_null_value
    stored = spec.stored_type
    if stored == "BIG_DECIMAL":
        return big_decimal_plain_string(from_decimal(decimal.Decimal(str(value))))
    if stored == "BYTES":
        return bytes(value).hex()
    if stored == "FLOAT":
        return java_float_str(value, float32=True)
    if stored == "DOUBLE":
        return java_float_str(value)
    if stored in ("INT", "LONG"):
        return str(int(value))
    return pinot_escape_string(str(value))


def _column_lists(schema: PinotSchema) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {DIMENSION: [], METRIC: [], DATE_TIME: []}
    for spec in schema:
        if spec.field_type in lists:
            lists[spec.field_type].append(spec.name)
    return {k: sorted(v, key=java_sort_key) for k, v in lists.items()}


def render_metadata(meta: SegmentMetadata) -> PropertiesWriter:
    out = PropertiesWriter()
    out.put("segment.padding.character", "\0")
    out.put("segment.name", meta.segment_name)
    out.put("segment.table.name", meta.table_name)
    lists = _column_lists(meta.schema)
    out.put_list("segment.dimension.column.names", lists[DIMENSION])
    out.put_list("segment.metric.column.names", lists[METRIC])
    out.put_list("segment.datetime.column.names", lists[DATE_TIME])
    out.put("segment.time.column.name", meta.time_column)
    out.put("segment.total.docs", meta.total_docs)
    if meta.time_unit is not None:
        out.put("segment.start.time", meta.start_time)
        out.put("segment.end.time", meta.end_time)
        out.put("segment.time.unit", meta.time_unit)
    for key, value in meta.custom.items():
        out.put(key, value)
    for name in sorted(meta.columns, key=java_sort_key):
        _column(out, meta.columns[name], meta.total_docs)
    return out


def _column(out: PropertiesWriter, col: ColumnMetadata, total_docs: int) -> None:
    spec, stats = col.spec, col.stats
    key = f"column.{spec.name}."
    stored = spec.stored_type
    out.put(key + "columnType", spec.field_type)
    out.put(key + "dataType", spec.data_type)
    out.put(key + "isSingleValues", spec.single_value)
    out.put(key + "defaultNullValue", default_null_value_string(spec))
    if stored in ("STRING", "BYTES"):
        if spec.max_length != DEFAULT_MAX_LENGTH:
            out.put(key + "schemaMaxLength", spec.max_length)
        if spec.max_length_exceed_strategy and spec.max_length_exceed_strategy != _default_strategy(spec):
            out.put(key + "schemaMaxLengthExceedStrategy", spec.max_length_exceed_strategy)
    if spec.field_type == DATE_TIME:
        # DateTimeFieldSpec: a TIMESTAMP column's format is implicit, whatever the schema says
        out.put(key + "datetimeFormat", "TIMESTAMP" if spec.data_type == "TIMESTAMP" else spec.datetime_format)
        out.put(key + "datetimeGranularity", spec.datetime_granularity)
    out.put(key + "totalDocs", total_docs)
    out.put(key + "cardinality", stats.cardinality)
    out.put(key + "hasDictionary", col.has_dictionary)
    out.put(key + "forwardIndexEncoding", "DICTIONARY" if col.has_dictionary else "RAW")
    out.put(key + "isSorted", stats.is_sorted)
    if not spec.is_fixed_width:
        out.put(key + "lengthOfShortestElement", stats.length_of_shortest_element)
        out.put(key + "lengthOfLongestElement", stats.length_of_longest_element)
        if stored == "STRING":
            out.put(key + "isAscii", stats.is_ascii)
        if not spec.single_value:
            out.put(key + "maxRowLengthInBytes", stats.max_row_length_in_bytes)
    out.put(key + "lengthOfEachEntry", col.dictionary_element_size)
    out.put(key + "bitsPerElement", bits_per_value(stats.cardinality))
    out.put(key + "maxNumberOfMultiValues", stats.max_number_of_multi_values)
    out.put(key + "totalNumberOfEntries", stats.total_number_of_entries)
    low = min_max_property(stats.min_value, stored)
    high = min_max_property(stats.max_value, stored)
    out.put(key + "minValue", low)
    out.put(key + "maxValue", high)
    if low is None and high is None:
        out.put(key + "minMaxValueInvalid", True)
    if col.partition is not None:
        p = col.partition
        out.put(key + "partitionFunction", p.function_name)
        out.put(key + "numPartitions", p.num_partitions)
        out.put_list(key + "partitionValues", [str(v) for v in java_hash_set_order(p.partitions)])
        for k, v in (p.function_config or {}).items():
            out.put(f"{key}partitionFunctionConfig.{k}", v)
    if col.is_non_null:
        out.put(key + "isNonNull", True)


def _default_strategy(spec: FieldSpec) -> str:
    return "TRIM_LENGTH" if spec.data_type == "STRING" else "NO_ACTION"


def metadata_bytes(meta: SegmentMetadata, version: str, resaved: bool = False) -> bytes:
    """The file as Pinot leaves it: v1 as written; v3 re-saved with the version key appended.
    ``resaved``: re-saved again after creation (the star-tree builder's keys follow)."""
    writer = render_metadata(meta)
    if version == "v3":
        writer.put("segment.index.version", "v3")
        return writer.render(resaved=True)
    return writer.render(resaved=resaved)

