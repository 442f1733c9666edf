"""Index settings of a Pinot table config, as the segment builder needs them.

A table config states its indexes in two generations of syntax, often mixed in one table:

* the older ``tableIndexConfig`` lists (``noDictionaryColumns``, ``invertedIndexColumns``,
  ``rangeIndexColumns``, ``bloomFilterColumns`` / ``bloomFilterConfigs``, ``varLengthDictionaryColumns``,
  ``jsonIndexColumns``, ``sortedColumn``, ``segmentPartitionConfig``, ``starTreeIndexConfigs``, ...);
* ``fieldConfigList`` entries with ``encodingType``, ``indexType(s)``, ``compressionCodec``,
  ``properties`` and the ``indexes`` map (``{"forward": {...}, "inverted": {...}, "range": {...}, ...}``).

``parse_table_config`` merges both into one ``ColumnIndexSettings`` per schema column plus the
table-level ``TableIndexSettings``. Indexes that this package does not build (text, FST, JSON, H3,
vector, star-tree, timestamp, ...) are collected in ``unsupported`` so the builder can raise or skip.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Mapping

from type_mapping.pinot_json import as_bool, as_float, as_int, as_object
from type_mapping.pinot_schema import METRIC, PinotSchema, null_vector_columns

from .codecs import codec_id
from .format import raw_table_name

log = logging.getLogger(__name__)

# fieldConfig ``indexTypes`` / ``indexType`` names and ``indexes`` keys -> our index names.
_INDEX_ALIASES = {
    "INVERTED": "inverted",
    "SORTED": "sorted",
    "RANGE": "range",
    "BLOOM": "bloom",
    "BLOOM_FILTER": "bloom",
    "TEXT": "text",
    "FST": "fst",
    "IFST": "ifst",
    "JSON": "json",
    "H3": "h3",
    "VECTOR": "vector",
    "TIMESTAMP": "timestamp",
    "MAP": "map",
}
BUILT_INDEXES = {"forward", "dictionary", "inverted", "range", "bloom", "null_value_vector", "sorted"}
DEFAULT_BLOOM_FPP = 0.05
DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD = 0.85  # IndexingConfig


class TableConfigError(ValueError):
    """A table config setting this package cannot honour; the message names the column and setting."""


@dataclass
class BloomSettings:
    fpp: float = DEFAULT_BLOOM_FPP
    max_size_in_bytes: int = 0


@dataclass
class ColumnIndexSettings:
    """What to build for one column."""

    name: str
    dictionary: bool = True
    var_length_dictionary: bool = False
    compression_codec: str | None = None  # raw forward index codec name as configured (None = Pinot default)
    inverted: bool = False
    range: bool = False
    range_version: int = 2
    bloom: BloomSettings | None = None
    null_vector: bool = False
    forward_disabled: bool = False
    unsupported: list[str] = field(default_factory=list)  # index names we do not build

    def raw_codec_id(self, is_metric: bool) -> int:
        """Pinot's default: PASS_THROUGH for metrics, LZ4 for every other field type."""
        if self.compression_codec is None:
            return codec_id("PASS_THROUGH" if is_metric else "LZ4")
        try:
            return codec_id(self.compression_codec)
        except ValueError as exc:
            raise TableConfigError(f"column {self.name!r}: {exc}") from None


@dataclass
class PartitionSettings:
    function_name: str
    num_partitions: int
    function_config: dict[str, str] | None = None


@dataclass
class TableIndexSettings:
    raw_table_name: str
    columns: dict[str, ColumnIndexSettings]
    segment_version: str = "v3"
    time_column: str | None = None
    sorted_columns: list[str] = field(default_factory=list)
    partitions: dict[str, PartitionSettings] = field(default_factory=dict)
    segment_time_check: bool = True
    optimize_dictionary_type: bool = False
    optimize_dictionary: bool = False
    optimize_dictionary_for_metrics: bool = False
    no_dictionary_size_ratio_threshold: float = DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD
    no_dictionary_cardinality_ratio_threshold: float | None = None
    unsupported: list[str] = field(default_factory=list)  # table-level features we do not build


def _names(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _enabled(config: Any, key: str = "indexes") -> bool:
    """An ``indexes`` entry: present and neither ``disabled: true`` nor ``enabled: false``."""
    if config is None:
        return False
    if isinstance(config, Mapping):
        if as_bool(config.get("disabled"), f"{key}.disabled", False):
            return False
        if not as_bool(config.get("enabled"), f"{key}.enabled", True):
            return False
    return True


def _true(value: Any, key: str = "table config") -> bool:
    """A boolean key read with Pinot's (Jackson's) coercions: "true"/"false" text, 0/1."""
    return as_bool(value, key, False)


def parse_table_config(table_config: Mapping[str, Any] | None, schema: PinotSchema) -> TableIndexSettings:
    table_config = table_config or {}
    index_config = as_object(table_config.get("tableIndexConfig"), "tableIndexConfig")
    columns = {name: ColumnIndexSettings(name) for name in schema.column_names}

    def column(name: str, setting: str) -> ColumnIndexSettings | None:
        # Pinot ignores index settings for columns that are not in the schema; so do we.
        if name not in columns:
            log.debug("table config %s names %r, which is not in the schema", setting, name)
        return columns.get(name)

    version = str(index_config.get("segmentFormatVersion") or "v3").lower()
    if version == "v2":
        version = "v1"  # same layout
    if version not in ("v1", "v3"):
        raise TableConfigError(f"segmentFormatVersion {version!r} is not supported (v1, v2 or v3)")

    for name in _names(index_config.get("noDictionaryColumns")):
        if (c := column(name, "noDictionaryColumns")) is not None:
            c.dictionary = False
    for name, codec in (index_config.get("noDictionaryConfig") or {}).items():
        if (c := column(name, "noDictionaryConfig")) is not None:
            c.dictionary = False
            c.compression_codec = str(codec)
    for name in _names(index_config.get("invertedIndexColumns")):
        if (c := column(name, "invertedIndexColumns")) is not None:
            c.inverted = True
    for name in _names(index_config.get("rangeIndexColumns")):
        if (c := column(name, "rangeIndexColumns")) is not None:
            c.range = True
    range_version = as_int(index_config.get("rangeIndexVersion"), "tableIndexConfig.rangeIndexVersion", 2) or 2
    for c in columns.values():
        c.range_version = range_version
    for name in _names(index_config.get("bloomFilterColumns")):
        if (c := column(name, "bloomFilterColumns")) is not None:
            c.bloom = c.bloom or BloomSettings()
    for name, cfg in (index_config.get("bloomFilterConfigs") or {}).items():
        if (c := column(name, "bloomFilterConfigs")) is not None:
            c.bloom = _bloom(cfg)
    for name in _names(index_config.get("varLengthDictionaryColumns")):
        if (c := column(name, "varLengthDictionaryColumns")) is not None:
            c.var_length_dictionary = True
    for key, index in (("jsonIndexColumns", "json"), ("fstIndexColumns", "fst")):
        for name in _names(index_config.get(key)):
            if (c := column(name, key)) is not None:
                c.unsupported.append(index)
    for name in (index_config.get("jsonIndexConfigs") or {}):
        if (c := column(name, "jsonIndexConfigs")) is not None and "json" not in c.unsupported:
            c.unsupported.append("json")
    for name in (index_config.get("h3IndexConfigs") or {}):
        if (c := column(name, "h3IndexConfigs")) is not None:
            c.unsupported.append("h3")

    unsupported_table: list[str] = []
    # star-trees (starTreeIndexConfigs, enableDefaultStarTree) are built by segment.startree
    if index_config.get("multiColumnTextIndexConfig"):
        unsupported_table.append("multi-column text index")

    for fc in table_config.get("fieldConfigList") or []:
        _apply_field_config(fc, columns)

    for name in null_vector_columns(schema, table_config):
        columns[name].null_vector = True

    partitions: dict[str, PartitionSettings] = {}
    partition_map = ((index_config.get("segmentPartitionConfig") or {}).get("columnPartitionMap")) or {}
    for name, cfg in partition_map.items():
        if name not in columns:
            continue
        function_config = cfg.get("functionConfig")
        key = f"tableIndexConfig.segmentPartitionConfig.columnPartitionMap.{name}"
        partitions[name] = PartitionSettings(
            function_name=str(cfg["functionName"]),
            num_partitions=as_int(cfg.get("numPartitions"), f"{key}.numPartitions"),
            function_config={str(k): str(v) for k, v in function_config.items()} if function_config else None,
        )

    ingestion = as_object(table_config.get("ingestionConfig"), "ingestionConfig")
    segments_config = as_object(table_config.get("segmentsConfig"), "segmentsConfig")
    time_column = segments_config.get("timeColumnName") or None
    return TableIndexSettings(
        raw_table_name=raw_table_name(str(table_config.get("tableName") or schema.name)),
        columns=columns,
        segment_version=version,
        time_column=time_column,
        sorted_columns=_names(index_config.get("sortedColumn")),
        partitions=partitions,
        segment_time_check=as_bool(ingestion.get("segmentTimeValueCheck"), "ingestionConfig.segmentTimeValueCheck",
                                   True),
        optimize_dictionary_type=_true(index_config.get("optimizeDictionaryType"),
                                       "tableIndexConfig.optimizeDictionaryType"),
        optimize_dictionary=_true(index_config.get("optimizeDictionary"), "tableIndexConfig.optimizeDictionary"),
        optimize_dictionary_for_metrics=_true(index_config.get("optimizeDictionaryForMetrics"),
                                              "tableIndexConfig.optimizeDictionaryForMetrics"),
        no_dictionary_size_ratio_threshold=as_float(
            index_config.get("noDictionarySizeRatioThreshold"), "tableIndexConfig.noDictionarySizeRatioThreshold",
            None) or DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD,
        no_dictionary_cardinality_ratio_threshold=as_float(
            index_config.get("noDictionaryCardinalityRatioThreshold"),
            "tableIndexConfig.noDictionaryCardinalityRatioThreshold"),
        unsupported=unsupported_table,
    )


def _bloom(cfg: Mapping[str, Any] | None) -> BloomSettings:
    cfg = cfg or {}
    return BloomSettings(
        fpp=as_float(cfg.get("fpp"), "bloom filter fpp", None) or DEFAULT_BLOOM_FPP,
        max_size_in_bytes=as_int(cfg.get("maxSizeInBytes"), "bloom filter maxSizeInBytes", 0) or 0,
    )


def _apply_field_config(fc: Mapping[str, Any], columns: dict[str, ColumnIndexSettings]) -> None:
    c = columns.get(fc.get("name"))
    if c is None:
        return
    encoding = str(fc.get("encodingType") or "").upper()
    if encoding == "RAW":
        c.dictionary = False
    elif encoding == "DICTIONARY":
        c.dictionary = True
    if fc.get("compressionCodec"):
        _set_codec(c, fc["compressionCodec"])
    index_types = _names(fc.get("indexTypes")) + _names(fc.get("indexType"))
    for index_type in index_types:
        _enable(c, _INDEX_ALIASES.get(index_type.upper(), index_type.lower()), None)
    properties = fc.get("properties") or {}
    if _true(properties.get("forwardIndexDisabled"), f"fieldConfigList {c.name!r} properties.forwardIndexDisabled"):
        c.forward_disabled = True
    if fc.get("timestampConfig"):
        c.unsupported.append("timestamp")
    for key, cfg in (fc.get("indexes") or {}).items():
        name = _INDEX_ALIASES.get(key.upper(), key)
        if name == "null":
            continue  # Pinot decides null vectors from the schema / nullHandlingEnabled, not from this entry
        where = f"fieldConfigList {c.name!r} indexes.{key}"
        if name == "forward":
            if not _enabled(cfg, where):
                c.forward_disabled = True
            elif isinstance(cfg, Mapping):
                if cfg.get("compressionCodec"):
                    _set_codec(c, cfg["compressionCodec"])
                if cfg.get("chunkCompressionType"):
                    c.compression_codec = str(cfg["chunkCompressionType"]).upper()
        elif name == "dictionary":
            if not _enabled(cfg, where):
                c.dictionary = False
            elif isinstance(cfg, Mapping) and _true(cfg.get("useVarLengthDictionary"), f"{where}.useVarLengthDictionary"):
                c.var_length_dictionary = True
        elif _enabled(cfg, where):
            _enable(c, name, cfg)
        elif name == "inverted":
            c.inverted = False
        elif name == "range":
            c.range = False
        elif name == "bloom":
            c.bloom = None


# Forward index codecs this builder does not write (dictionary-per-entry MV and the CLP log codecs).
_UNSUPPORTED_CODECS = ("MV_ENTRY_DICT", "CLP", "CLPV2", "CLPV2_ZSTD", "CLPV2_LZ4")


def _set_codec(c: ColumnIndexSettings, codec: Any) -> None:
    """A field config's ``compressionCodec`` (old top-level key or ``indexes.forward``)."""
    codec = str(codec).upper()
    if codec in _UNSUPPORTED_CODECS:
        c.unsupported.append(f"forward index codec {codec}")
    else:
        c.compression_codec = codec


def _enable(c: ColumnIndexSettings, name: str, cfg: Any) -> None:
    if name == "inverted":
        c.inverted = True
    elif name == "sorted":
        pass  # a sorted index is the sorted forward index, chosen from the data
    elif name == "range":
        c.range = True
        if isinstance(cfg, Mapping) and cfg.get("version"):
            c.range_version = as_int(cfg["version"], f"fieldConfigList {c.name!r} indexes.range.version")
    elif name == "bloom":
        c.bloom = _bloom(cfg if isinstance(cfg, Mapping) else None)
    elif name not in c.unsupported:
        c.unsupported.append(name)


def is_metric(schema: PinotSchema, column: str) -> bool:
    return schema[column].field_type == METRIC
