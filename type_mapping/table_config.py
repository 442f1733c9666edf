"""A Pinot table config as a model: ``TableConfig.from_json(config, schema)``.

Parsed once, on the driver, while the job is prepared; the builder, the job, the commit and the CLI read this
model, never the dict. It holds the time column and its spec, the push type and frequency (refresh), the
ingestion settings, and the index settings, which a table config states in two generations of syntax, often
mixed in one table:

* the older ``tableIndexConfig`` lists (``noDictionaryColumns``, ``invertedIndexColumns``,
  ``rangeIndexColumns``, ``bloomFilterColumns`` / ``bloomFilterConfigs``, ``varLengthDictionaryColumns``,
  ``jsonIndexColumns`` / ``jsonIndexConfigs``, ``sortedColumn``, ``segmentPartitionConfig``,
  ``starTreeIndexConfigs``, ...);
* ``fieldConfigList`` entries with ``encodingType``, ``indexType(s)``, ``compressionCodec``,
  ``properties``, ``timestampConfig`` and the ``indexes`` map (``{"forward": {...}, "json": {...}, ...}``).

Both merge into one ``ColumnIndexSettings`` per schema column plus the table-level ``TableIndexSettings``.
An index named on a column the schema lacks is an error naming the key and the closest column (Pinot's
``TableConfigUtils`` rejects such configs too). ``tierOverwrites`` apply on the servers, not at build:
they are read and ignored, as Pinot's segment builder ignores them. Which of the named indexes this package
builds, which it leaves to the server and which it refuses is decided from this model by
``pinot_sink.segment.index_policy``.
"""
from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import PinotSinkError
from .pinot_json import as_bool, as_float, as_int, as_list, as_object, as_str
from .pinot_schema import METRIC, FieldSpec, PinotSchema, null_vector_columns

log = logging.getLogger(__name__)

# fieldConfig ``indexTypes`` / ``indexType`` names and ``indexes`` keys -> our index kind names.
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
DEFAULT_BLOOM_FPP = 0.05
DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD = 0.85  # IndexingConfig
# TimestampIndexUtils: the granularities a TIMESTAMP index derives a column for.
TIMESTAMP_GRANULARITIES = ("MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR")


# segmentsConfig's key naming the table's time column: read here alone (and written by table.create).
TIME_COLUMN_KEY = "timeColumnName"


class TableConfigError(PinotSinkError, ValueError):
    """A table config setting this package cannot honour; the message names the column and setting."""


def raw_table_name(table_name: str) -> str:
    """``TableNameBuilder.extractRawTableName``: ``events_OFFLINE`` / ``events_REALTIME`` -> ``events`` (the
    name segments carry in ``segment.table.name`` and deep-store paths use)."""
    for suffix in ("_OFFLINE", "_REALTIME"):
        if table_name.endswith(suffix):
            return table_name[: -len(suffix)]
    return table_name


@dataclass
class BloomSettings:
    fpp: float = DEFAULT_BLOOM_FPP
    max_size_in_bytes: int = 0


@dataclass(frozen=True)
class JsonIndexSettings:
    """``JsonIndexConfig``: what ``JsonUtils.flatten`` keeps of each value (defaults as Pinot's)."""

    max_levels: int = -1
    exclude_array: bool = False
    disable_cross_array_unnest: bool = False
    include_paths: frozenset[str] | None = None
    exclude_paths: frozenset[str] | None = None
    exclude_fields: frozenset[str] | None = None
    index_paths: frozenset[str] | None = None
    max_value_length: int = 0
    skip_invalid_json: bool = False


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
    json: JsonIndexSettings | None = None
    timestamp_granularities: tuple[str, ...] = ()  # a TIMESTAMP index: the derived $col$GRAN columns
    # Other index kinds the config names (text, fst, h3, vector, a forward codec this builder does not
    # write, ...) -> the config key that names them; index_policy decides what becomes of each.
    others: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PartitionSettings:
    """A ``segmentPartitionConfig.columnPartitionMap`` entry."""

    function_name: str
    num_partitions: int
    function_config: Mapping[str, str] | None = None


@dataclass(frozen=True)
class StarTreeAggregationSettings:
    """A star-tree's ``aggregationConfigs`` entry as written (names resolved by ``pinot_sink.segment.startree``)."""

    column_name: str | None
    aggregation_function: str | None
    compression_codec: str | None = None
    derive_num_docs_per_chunk: bool = False
    index_version: int | None = None
    target_max_chunk_size: str | None = None  # a data size as written ("1M")
    target_docs_per_chunk: int | None = None
    function_parameters: tuple[tuple[str, Any], ...] = ()  # in the config's order


@dataclass(frozen=True)
class StarTreeIndexSettings:
    """One ``starTreeIndexConfigs`` entry (``StarTreeIndexConfig``); ``key`` is how errors name it."""

    key: str
    dimensions_split_order: tuple[str, ...]
    skip_star_node_creation_for_dimensions: tuple[str, ...]
    function_column_pairs: tuple[str, ...]
    aggregation_configs: tuple[StarTreeAggregationSettings, ...]
    max_leaf_records: int  # 0: the builder's default


@dataclass(frozen=True)
class StarTreeSettings:
    """``tableIndexConfig``'s star-trees: the explicit ones, ``enableDefaultStarTree``,
    ``enableDynamicStarTreeCreation``."""

    configs: tuple[StarTreeIndexSettings, ...] = ()
    enable_default: bool = False
    enable_dynamic: bool = False

    @property
    def any(self) -> bool:
        return bool(self.configs) or self.enable_default


@dataclass(frozen=True)
class TransformSettings:
    """An ``ingestionConfig.transformConfigs`` entry; ``key`` names it in errors."""

    key: str
    column_name: str | None
    transform_function: str | None


@dataclass(frozen=True)
class EnricherSettings:
    """An ``ingestionConfig.enrichmentConfigs`` entry."""

    key: str
    enricher_type: str | None
    pre_complex_type_transform: bool
    field_to_function: tuple[tuple[str, Any], ...]  # properties.fieldToFunctionMap, in order


@dataclass(frozen=True)
class ComplexTypeSettings:
    """``ingestionConfig.complexTypeConfig`` (present, even empty: Pinot flattens with an empty one too)."""

    fields_to_unnest: tuple[str, ...] = ()
    delimiter: str = "."
    collection_not_unnested_to_json: str = "NON_PRIMITIVE"  # as written, upper-cased
    prefixes_to_rename: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IngestionSettings:
    """``ingestionConfig`` and the batch settings Pinot reads beside it (``IngestionConfigUtils``)."""

    transforms: tuple[TransformSettings, ...] = ()
    filter_function: str | None = None
    complex_type: ComplexTypeSettings | None = None
    enrichers: tuple[EnricherSettings, ...] = ()
    continue_on_error: bool = False
    row_time_check: bool = False
    segment_time_check: bool = True
    push_type: str = "APPEND"  # batchIngestionConfig first, then the deprecated segmentsConfig keys
    push_frequency: str | None = None
    consistent_data_push: bool = False
    set_keys: tuple[str, ...] = ()  # the ingestionConfig keys given a value (which of them change rows: ingestion)


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
    # Table-level index kinds (star-tree, multi-column text) -> the config key that names them.
    others: dict[str, str] = field(default_factory=dict)
    star_trees: StarTreeSettings = StarTreeSettings()


# --- the keys read by more than one room: here once ------------------------------------------------------


def _time_column_name(config: Mapping[str, Any]) -> str | None:
    """``segmentsConfig.timeColumnName`` (None when absent or empty)."""
    segments = as_object(config.get("segmentsConfig"), "segmentsConfig")
    return as_str(segments.get(TIME_COLUMN_KEY), "segmentsConfig.timeColumnName") or None


@dataclass(frozen=True)
class TableConfig:
    """The table config the write follows; picklable, made once on the driver."""

    raw: Mapping[str, Any]  # the JSON as given (for the ingestion pipeline and the manifest)
    table_name: str
    table_type: str
    time_column: str | None
    time_spec: FieldSpec | None  # the time column's spec in the schema
    push_type: str  # APPEND | REFRESH
    push_frequency: str | None  # HOURLY | DAILY | ...
    consistent_data_push: bool
    ingestion: IngestionSettings
    continue_on_error: bool
    row_time_check: bool
    indexes: TableIndexSettings
    primary_keys: "PrimaryKeySettings"  # upsertConfig / dedupConfig / isDimTable / quota as Pinot reads them

    @property
    def raw_table_name(self) -> str:
        return raw_table_name(self.table_name)

    @property
    def refreshes_whole_table(self) -> bool:
        """``segmentIngestionType: REFRESH`` with ``consistentDataPush``: every push replaces the table."""
        return self.push_type.upper() == "REFRESH" and self.consistent_data_push

    @classmethod
    def from_json(cls, config: Mapping[str, Any] | None, schema: PinotSchema) -> "TableConfig":
        config = dict(config or {})
        ingestion = ingestion_settings(config)
        time_column = _time_column_name(config)
        return cls(
            raw=config,
            table_name=str(config.get("tableName") or schema.name),
            table_type=str(config.get("tableType") or "OFFLINE"),
            time_column=time_column,
            time_spec=schema.fields.get(time_column) if time_column else None,
            push_type=ingestion.push_type,
            push_frequency=ingestion.push_frequency,
            consistent_data_push=ingestion.consistent_data_push,
            ingestion=ingestion,
            continue_on_error=ingestion.continue_on_error,
            row_time_check=ingestion.row_time_check,
            indexes=parse_table_config(config, schema),
            primary_keys=primary_key_settings(config),
        )


# --- ingestion settings ----------------------------------------------------------------------------------


def ingestion_settings(config: Mapping[str, Any]) -> IngestionSettings:
    """``ingestionConfig`` read into its settings; a value of the wrong kind is an error naming its key. What
    the steps mean (expressions, modes) is checked by ``pinot_sink.ingestion``, which applies them."""
    key = "ingestionConfig"
    ingestion = as_object(config.get(key), key)
    batch = as_object(ingestion.get("batchIngestionConfig"), f"{key}.batchIngestionConfig")
    segments = as_object(config.get("segmentsConfig"), "segmentsConfig")
    push_type = batch.get("segmentIngestionType") or segments.get("segmentPushType") or "APPEND"
    frequency = batch.get("segmentIngestionFrequency") or segments.get("segmentPushFrequency")
    transforms = []
    for i, tc in enumerate(as_list(ingestion.get("transformConfigs"), f"{key}.transformConfigs")):
        where = f"{key}.transformConfigs[{i}]"
        tc = as_object(tc, where)
        transforms.append(TransformSettings(where, as_str(tc.get("columnName"), f"{where}.columnName"),
                                            as_str(tc.get("transformFunction"), f"{where}.transformFunction")))
    enrichers = []
    for i, ec in enumerate(as_list(ingestion.get("enrichmentConfigs"), f"{key}.enrichmentConfigs")):
        where = f"{key}.enrichmentConfigs[{i}]"
        ec = as_object(ec, where)
        functions = as_object(as_object(ec.get("properties"), f"{where}.properties").get("fieldToFunctionMap"),
                              f"{where}.properties.fieldToFunctionMap")
        enrichers.append(EnricherSettings(
            where, as_str(ec.get("enricherType"), f"{where}.enricherType"),
            as_bool(ec.get("preComplexTypeTransform"), f"{where}.preComplexTypeTransform"),
            tuple((str(column), text) for column, text in functions.items())))
    complex_type = None
    if ingestion.get("complexTypeConfig") is not None:  # Pinot flattens with an empty complexTypeConfig too
        where = f"{key}.complexTypeConfig"
        cc = as_object(ingestion.get("complexTypeConfig"), where)
        renames = as_object(cc.get("prefixesToRename"), f"{where}.prefixesToRename")
        complex_type = ComplexTypeSettings(
            fields_to_unnest=tuple(as_str(f, f"{where}.fieldsToUnnest")
                                   for f in as_list(cc.get("fieldsToUnnest"), f"{where}.fieldsToUnnest")),
            delimiter=as_str(cc.get("delimiter"), f"{where}.delimiter", "."),
            collection_not_unnested_to_json=as_str(cc.get("collectionNotUnnestedToJson"),
                                                   f"{where}.collectionNotUnnestedToJson", "NON_PRIMITIVE").upper(),
            prefixes_to_rename=tuple((str(k), str(v)) for k, v in renames.items()))
    filter_config = as_object(ingestion.get("filterConfig"), f"{key}.filterConfig")
    return IngestionSettings(
        transforms=tuple(transforms),
        filter_function=as_str(filter_config.get("filterFunction"), f"{key}.filterConfig.filterFunction") or None,
        complex_type=complex_type,
        enrichers=tuple(enrichers),
        continue_on_error=as_bool(ingestion.get("continueOnError"), f"{key}.continueOnError"),
        row_time_check=as_bool(ingestion.get("rowTimeValueCheck"), f"{key}.rowTimeValueCheck"),
        segment_time_check=as_bool(ingestion.get("segmentTimeValueCheck"), f"{key}.segmentTimeValueCheck", True),
        push_type=str(push_type),
        push_frequency=str(frequency) if frequency else None,
        consistent_data_push=as_bool(batch.get("consistentDataPush"), f"{key}.batchIngestionConfig.consistentDataPush"),
        set_keys=tuple(k for k, v in ingestion.items() if v not in (None, [], {}, False, "")),
    )


# --- index settings --------------------------------------------------------------------------------------


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


class _Columns:
    """The schema's columns; naming one the schema lacks is an error naming the key and the closest column."""

    def __init__(self, schema: PinotSchema):
        self.settings = {name: ColumnIndexSettings(name) for name in schema.column_names}

    def __call__(self, name: Any, key: str) -> ColumnIndexSettings:
        found = self.settings.get(name)
        if found is None:
            raise TableConfigError(f"{key} names column {name!r}, which is not in the schema"
                                   + _closest(str(name), self.settings))
        return found


def _closest(name: str, columns) -> str:
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.5)
    if not close:
        lowered = {c.lower(): c for c in columns}
        close = [lowered[name.lower()]] if name.lower() in lowered else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_table_config(table_config: Mapping[str, Any] | None, schema: PinotSchema) -> TableIndexSettings:
    table_config = table_config or {}
    index_config = as_object(table_config.get("tableIndexConfig"), "tableIndexConfig")
    column = _Columns(schema)
    columns = column.settings

    version = str(index_config.get("segmentFormatVersion") or "v3").lower()
    if version == "v2":
        version = "v1"  # same layout
    if version not in ("v1", "v3"):
        raise TableConfigError(f"segmentFormatVersion {version!r} is not supported (v1, v2 or v3)")

    key = "tableIndexConfig.{}".format
    for name in _names(index_config.get("noDictionaryColumns")):
        column(name, key("noDictionaryColumns")).dictionary = False
    for name, codec in as_object(index_config.get("noDictionaryConfig"), key("noDictionaryConfig")).items():
        c = column(name, key("noDictionaryConfig"))
        c.dictionary = False
        _set_codec(c, codec, key(f"noDictionaryConfig.{name}"))
    for name in _names(index_config.get("invertedIndexColumns")):
        column(name, key("invertedIndexColumns")).inverted = True
    for name in _names(index_config.get("rangeIndexColumns")):
        column(name, key("rangeIndexColumns")).range = True
    range_version = as_int(index_config.get("rangeIndexVersion"), key("rangeIndexVersion"), 2) or 2
    for c in columns.values():
        c.range_version = range_version
    for name in _names(index_config.get("bloomFilterColumns")):
        c = column(name, key("bloomFilterColumns"))
        c.bloom = c.bloom or BloomSettings()
    for name, cfg in as_object(index_config.get("bloomFilterConfigs"), key("bloomFilterConfigs")).items():
        column(name, key("bloomFilterConfigs")).bloom = _bloom(cfg)
    for name in _names(index_config.get("varLengthDictionaryColumns")):
        column(name, key("varLengthDictionaryColumns")).var_length_dictionary = True
    json_configs = as_object(index_config.get("jsonIndexConfigs"), key("jsonIndexConfigs"))
    for name in _names(index_config.get("jsonIndexColumns")):
        column(name, key("jsonIndexColumns")).json = JsonIndexSettings()
    for name, cfg in json_configs.items():
        column(name, key("jsonIndexConfigs")).json = json_index_settings(cfg, key(f"jsonIndexConfigs.{name}"))
    for name in _names(index_config.get("fstIndexColumns")):
        column(name, key("fstIndexColumns")).others.setdefault("fst", key("fstIndexColumns"))
    for name in as_object(index_config.get("h3IndexConfigs"), key("h3IndexConfigs")):
        column(name, key("h3IndexConfigs")).others.setdefault("h3", key("h3IndexConfigs"))
    sorted_columns = _names(index_config.get("sortedColumn"))
    for name in sorted_columns:
        column(name, key("sortedColumn"))

    others: dict[str, str] = {}
    star_trees = star_tree_settings(index_config)
    if star_trees.any:
        others["star-tree"] = key("starTreeIndexConfigs" if star_trees.configs else "enableDefaultStarTree")
    if index_config.get("multiColumnTextIndexConfig"):
        others["multi-column text"] = key("multiColumnTextIndexConfig")
    if index_config.get("tierOverwrites"):
        log.debug("tableIndexConfig.tierOverwrites apply on the servers' tiers, not at build: ignored")

    for i, fc in enumerate(as_list(table_config.get("fieldConfigList"), "fieldConfigList")):
        fc = as_object(fc, f"fieldConfigList[{i}]")
        _apply_field_config(fc, column(fc.get("name"), f"fieldConfigList[{i}].name"))

    for name in null_vector_columns(schema, table_config):
        columns[name].null_vector = True

    partitions: dict[str, PartitionSettings] = {}
    partition_key = key("segmentPartitionConfig.columnPartitionMap")
    partition_map = as_object(as_object(index_config.get("segmentPartitionConfig"), key("segmentPartitionConfig"))
                              .get("columnPartitionMap"), partition_key)
    for name, cfg in partition_map.items():
        column(name, partition_key)
        where = f"{partition_key}.{name}"
        cfg = as_object(cfg, where)
        function_name = as_str(cfg.get("functionName"), f"{where}.functionName")
        if not function_name:
            raise TableConfigError(f"{where}.functionName is missing (e.g. Murmur, Modulo, HashCode)")
        function_config = as_object(cfg.get("functionConfig"), f"{where}.functionConfig")
        partitions[name] = PartitionSettings(
            function_name=function_name,
            num_partitions=as_int(cfg.get("numPartitions"), f"{where}.numPartitions"),
            function_config={str(k): str(v) for k, v in function_config.items()} if function_config else None,
        )

    ingestion = as_object(table_config.get("ingestionConfig"), "ingestionConfig")
    return TableIndexSettings(
        raw_table_name=raw_table_name(str(table_config.get("tableName") or schema.name)),
        columns=columns,
        segment_version=version,
        time_column=_time_column_name(table_config),
        sorted_columns=sorted_columns,
        partitions=partitions,
        segment_time_check=as_bool(ingestion.get("segmentTimeValueCheck"), "ingestionConfig.segmentTimeValueCheck",
                                   True),
        optimize_dictionary_type=_true(index_config.get("optimizeDictionaryType"), key("optimizeDictionaryType")),
        optimize_dictionary=_true(index_config.get("optimizeDictionary"), key("optimizeDictionary")),
        optimize_dictionary_for_metrics=_true(index_config.get("optimizeDictionaryForMetrics"),
                                              key("optimizeDictionaryForMetrics")),
        no_dictionary_size_ratio_threshold=as_float(
            index_config.get("noDictionarySizeRatioThreshold"), key("noDictionarySizeRatioThreshold"),
            None) or DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD,
        no_dictionary_cardinality_ratio_threshold=as_float(
            index_config.get("noDictionaryCardinalityRatioThreshold"), key("noDictionaryCardinalityRatioThreshold")),
        others=others,
        star_trees=star_trees,
    )


def star_tree_settings(index_config: Mapping[str, Any]) -> StarTreeSettings:
    """``tableIndexConfig``'s star-tree keys, read with Jackson's coercions; what the names mean (functions,
    codecs) is resolved by ``pinot_sink.segment.startree``, which builds the trees."""
    key = "tableIndexConfig.{}".format
    configs = []
    for i, cfg in enumerate(as_list(index_config.get("starTreeIndexConfigs"), key("starTreeIndexConfigs"))):
        where = f"starTreeIndexConfigs[{i}]"
        cfg = as_object(cfg, where)
        aggregations = []
        for j, agg in enumerate(as_list(cfg.get("aggregationConfigs"), f"{where}.aggregationConfigs")):
            at = f"{where}.aggregationConfigs[{j}]"
            agg = as_object(agg, at)
            size = agg.get("targetMaxChunkSize")
            aggregations.append(StarTreeAggregationSettings(
                column_name=as_str(agg.get("columnName"), f"{at}.columnName") or None,
                aggregation_function=as_str(agg.get("aggregationFunction"), f"{at}.aggregationFunction") or None,
                compression_codec=as_str(agg.get("compressionCodec"), f"{at}.compressionCodec") or None,
                derive_num_docs_per_chunk=as_bool(agg.get("deriveNumDocsPerChunk"), f"{at}.deriveNumDocsPerChunk"),
                index_version=as_int(agg.get("indexVersion"), f"{at}.indexVersion"),
                target_max_chunk_size=None if size is None else str(size),
                target_docs_per_chunk=as_int(agg.get("targetDocsPerChunk"), f"{at}.targetDocsPerChunk"),
                function_parameters=tuple((str(k), v) for k, v in as_object(
                    agg.get("functionParameters"), f"{at}.functionParameters").items())))
        configs.append(StarTreeIndexSettings(
            key=where,
            dimensions_split_order=tuple(str(d) for d in as_list(cfg.get("dimensionsSplitOrder"),
                                                                 f"{where}.dimensionsSplitOrder")),
            skip_star_node_creation_for_dimensions=tuple(str(d) for d in as_list(
                cfg.get("skipStarNodeCreationForDimensions"), f"{where}.skipStarNodeCreationForDimensions")),
            function_column_pairs=tuple(str(p) for p in as_list(cfg.get("functionColumnPairs"),
                                                                f"{where}.functionColumnPairs")),
            aggregation_configs=tuple(aggregations),
            max_leaf_records=as_int(cfg.get("maxLeafRecords"), f"{where}.maxLeafRecords", 0) or 0))
    return StarTreeSettings(
        configs=tuple(configs),
        enable_default=_true(index_config.get("enableDefaultStarTree"), key("enableDefaultStarTree")),
        enable_dynamic=_true(index_config.get("enableDynamicStarTreeCreation"), key("enableDynamicStarTreeCreation")),
    )


def _bloom(cfg: Mapping[str, Any] | None) -> BloomSettings:
    cfg = cfg if isinstance(cfg, Mapping) else {}
    return BloomSettings(
        fpp=as_float(cfg.get("fpp"), "bloom filter fpp", None) or DEFAULT_BLOOM_FPP,
        max_size_in_bytes=as_int(cfg.get("maxSizeInBytes"), "bloom filter maxSizeInBytes", 0) or 0,
    )


def _paths(cfg: Mapping[str, Any], name: str, where: str) -> frozenset[str] | None:
    value = cfg.get(name)
    return None if value is None else frozenset(str(v) for v in as_list(value, f"{where}.{name}"))


def json_index_settings(cfg: Any, where: str) -> JsonIndexSettings:
    """A ``JsonIndexConfig`` (``jsonIndexConfigs.<col>`` or ``fieldConfigList`` ``indexes.json``)."""
    cfg = as_object(cfg if isinstance(cfg, Mapping) else None, where)
    return JsonIndexSettings(
        max_levels=as_int(cfg.get("maxLevels"), f"{where}.maxLevels", -1),
        exclude_array=as_bool(cfg.get("excludeArray"), f"{where}.excludeArray"),
        disable_cross_array_unnest=as_bool(cfg.get("disableCrossArrayUnnest"), f"{where}.disableCrossArrayUnnest"),
        include_paths=_paths(cfg, "includePaths", where),
        exclude_paths=_paths(cfg, "excludePaths", where),
        exclude_fields=_paths(cfg, "excludeFields", where),
        index_paths=_paths(cfg, "indexPaths", where),
        max_value_length=as_int(cfg.get("maxValueLength"), f"{where}.maxValueLength", 0),
        skip_invalid_json=as_bool(cfg.get("skipInvalidJson"), f"{where}.skipInvalidJson"),
    )


def _timestamp_granularities(fc: Mapping[str, Any], where: str) -> tuple[str, ...]:
    config = as_object(fc.get("timestampConfig"), f"{where}.timestampConfig")
    granularities = []
    for g in as_list(config.get("granularities"), f"{where}.timestampConfig.granularities"):
        g = str(g).upper()
        if g not in TIMESTAMP_GRANULARITIES:
            raise TableConfigError(f"{where}.timestampConfig.granularities: {g!r} is not one of "
                                   f"{', '.join(TIMESTAMP_GRANULARITIES)}")
        if g not in granularities:
            granularities.append(g)
    return tuple(granularities)


def _apply_field_config(fc: Mapping[str, Any], c: ColumnIndexSettings) -> None:
    where = f"fieldConfigList {c.name!r}"
    encoding = str(fc.get("encodingType") or "").upper()
    if encoding == "RAW":
        c.dictionary = False
    elif encoding == "DICTIONARY":
        c.dictionary = True
    if fc.get("compressionCodec"):
        _set_codec(c, fc["compressionCodec"], f"{where} compressionCodec")
    index_types = _names(fc.get("indexTypes")) + _names(fc.get("indexType"))
    for index_type in index_types:
        _enable(c, _INDEX_ALIASES.get(index_type.upper(), index_type.lower()), None, f"{where} indexTypes")
    properties = as_object(fc.get("properties"), f"{where} properties")
    if _true(properties.get("forwardIndexDisabled"), f"{where} properties.forwardIndexDisabled"):
        c.forward_disabled = True
    if fc.get("timestampConfig"):
        c.timestamp_granularities = _timestamp_granularities(fc, where)
    for key, cfg in as_object(fc.get("indexes"), f"{where} indexes").items():
        name = _INDEX_ALIASES.get(key.upper(), key)
        if name == "null":
            continue  # Pinot decides null vectors from the schema / nullHandlingEnabled, not from this entry
        entry = f"{where} indexes.{key}"
        if name == "forward":
            if not _enabled(cfg, entry):
                c.forward_disabled = True
            elif isinstance(cfg, Mapping):
                if cfg.get("compressionCodec"):
                    _set_codec(c, cfg["compressionCodec"], f"{entry}.compressionCodec")
                if cfg.get("chunkCompressionType"):
                    c.compression_codec = str(cfg["chunkCompressionType"]).upper()
        elif name == "dictionary":
            if not _enabled(cfg, entry):
                c.dictionary = False
            elif isinstance(cfg, Mapping) and _true(cfg.get("useVarLengthDictionary"), f"{entry}.useVarLengthDictionary"):
                c.var_length_dictionary = True
        elif _enabled(cfg, entry):
            _enable(c, name, cfg, entry)
        elif name == "inverted":
            c.inverted = False
        elif name == "range":
            c.range = False
        elif name == "bloom":
            c.bloom = None
        elif name == "json":
            c.json = None
        else:
            c.others.pop(name, None)
    if fc.get("tierOverwrites"):
        log.debug("%s tierOverwrites apply on the servers' tiers, not at build: ignored", where)


# Forward index codecs this builder does not write (dictionary-per-entry MV and the CLP log codecs).
UNWRITTEN_CODECS = ("MV_ENTRY_DICT", "CLP", "CLPV2", "CLPV2_ZSTD", "CLPV2_LZ4")


def _set_codec(c: ColumnIndexSettings, codec: Any, where: str) -> None:
    """A ``compressionCodec`` (noDictionaryConfig, a field config's old top-level key or ``indexes.forward``)."""
    codec = str(codec).upper()
    if codec in UNWRITTEN_CODECS:
        c.others[f"forward index codec {codec}"] = where
    else:
        c.compression_codec = codec


def _enable(c: ColumnIndexSettings, name: str, cfg: Any, where: str) -> None:
    if name == "inverted":
        c.inverted = True
    elif name == "sorted":
        pass  # a sorted index is the sorted forward index, chosen from the data
    elif name == "range":
        c.range = True
        if isinstance(cfg, Mapping) and cfg.get("version"):
            c.range_version = as_int(cfg["version"], f"{where}.version")
    elif name == "bloom":
        c.bloom = _bloom(cfg if isinstance(cfg, Mapping) else None)
    elif name == "json":
        c.json = json_index_settings(cfg, where) if isinstance(cfg, Mapping) else (c.json or JsonIndexSettings())
    elif name == "timestamp":
        if isinstance(cfg, Mapping) and cfg.get("granularities"):
            c.timestamp_granularities = _timestamp_granularities({"timestampConfig": cfg}, where)
    else:
        c.others.setdefault(name, where)


def is_metric(schema: PinotSchema, column: str) -> bool:
    return schema[column].field_type == METRIC


# --- primary-key tables: upsert, dedup, dimension ---------------------------------------------------------

DEFAULT_DIM_TABLE_MAX_SIZE = "200M"  # ControllerConf controller.dimTable.maxSize's default


@dataclass(frozen=True)
class PrimaryKeySettings:
    """What makes a table a primary-key table, read as Pinot's ``TableConfig`` reads it: upsert is on when
    ``upsertConfig`` is there with a mode other than NONE (FULL by default), dedup when ``dedupConfig`` is there
    with ``dedupEnabled`` (true by default), a dimension table by ``isDimTable``."""

    table_type: str
    upsert_mode: str | None  # FULL / PARTIAL; None: no upsert
    comparison_columns: tuple[str, ...]  # upsertConfig.comparisonColumn(s); empty: the time column
    dedup: bool
    dim_table: bool
    error_on_duplicate_primary_key: bool  # dimensionTableConfig.errorOnDuplicatePrimaryKey
    storage_quota: str | None  # quota.storage as written
    partition_column: str | None  # SegmentValidationUtils.getPartitionColumn
    partition_column_count: int  # columns of segmentPartitionConfig.columnPartitionMap

    @property
    def upsert(self) -> bool:
        return self.upsert_mode is not None

    @property
    def keyed(self) -> bool:
        """Rows of one primary key must resolve to one partition (upsert or dedup)."""
        return self.upsert or self.dedup


def primary_key_settings(config: Mapping[str, Any] | None) -> PrimaryKeySettings:
    config = config or {}
    upsert = config.get("upsertConfig")
    mode = None
    comparison: tuple[str, ...] = ()
    if isinstance(upsert, Mapping):
        mode = str(upsert.get("mode") or "FULL").upper()
        mode = None if mode == "NONE" else mode
        names = upsert.get("comparisonColumns")
        if not names and upsert.get("comparisonColumn"):  # the older single-column key
            names = [upsert.get("comparisonColumn")]
        comparison = tuple(str(n) for n in (names or []))
    dedup = config.get("dedupConfig")
    dedup_on = isinstance(dedup, Mapping) and as_bool(dedup.get("dedupEnabled"), "dedupConfig.dedupEnabled", True)
    dimension = as_object(config.get("dimensionTableConfig"), "dimensionTableConfig")
    quota = as_object(config.get("quota"), "quota")
    return PrimaryKeySettings(
        table_type=str(config.get("tableType") or "OFFLINE").upper(),
        upsert_mode=mode, comparison_columns=comparison, dedup=dedup_on,
        dim_table=as_bool(config.get("isDimTable"), "isDimTable", False),
        error_on_duplicate_primary_key=as_bool(dimension.get("errorOnDuplicatePrimaryKey"),
                                               "dimensionTableConfig.errorOnDuplicatePrimaryKey", False),
        storage_quota=as_str(quota.get("storage"), "quota.storage") or None,
        partition_column=upsert_partition_column(config),
        partition_column_count=len(_column_partition_map(config)),
    )


def _column_partition_map(config: Mapping[str, Any]) -> Mapping[str, Any]:
    indexing = as_object(config.get("tableIndexConfig"), "tableIndexConfig")
    partition = as_object(indexing.get("segmentPartitionConfig"), "tableIndexConfig.segmentPartitionConfig")
    return as_object(partition.get("columnPartitionMap"), "segmentPartitionConfig.columnPartitionMap")


def upsert_partition_column(config: Mapping[str, Any]) -> str | None:
    """The column whose partition id an OFFLINE upsert segment must hold exactly one of
    (``SegmentValidationUtils.getPartitionColumn``): the OFFLINE instance assignment's replica-group partition
    column, else the deprecated ``segmentsConfig.replicaGroupStrategyConfig.partitionColumn``, else the one
    column of ``segmentPartitionConfig`` when it names exactly one."""
    assignment = as_object(config.get("instanceAssignmentConfigMap"), "instanceAssignmentConfigMap")
    offline = as_object(assignment.get("OFFLINE"), "instanceAssignmentConfigMap.OFFLINE")
    group = as_object(offline.get("replicaGroupPartitionConfig"), "replicaGroupPartitionConfig")
    if group.get("partitionColumn"):
        return str(group["partitionColumn"])
    segments = as_object(config.get("segmentsConfig"), "segmentsConfig")
    strategy = as_object(segments.get("replicaGroupStrategyConfig"), "segmentsConfig.replicaGroupStrategyConfig")
    if strategy.get("partitionColumn"):
        return str(strategy["partitionColumn"])
    columns = _column_partition_map(config)
    return next(iter(columns)) if len(columns) == 1 else None


def data_size_bytes(text: str, key: str) -> int:
    """``DataSizeUtils.toBytes``: ``200M``, ``1.5G``, ``300KB``, ``1024`` (binary units, truncated)."""
    found = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGTP])?B?", str(text).strip(), re.IGNORECASE)
    if found is None:
        raise TableConfigError(f"{key}: Illegal data size: {text}")
    power = "KMGTP".index(found.group(2).upper()) + 1 if found.group(2) else 0
    return int(float(found.group(1)) * 1024 ** power)


def data_size_text(size: int) -> str:
    """``DataSizeUtils.fromBytes``: ``512B``, ``1.5K``, ``200M`` (two decimals at most, half-even)."""
    if size < 1024:
        return f"{size}B"
    for power, unit in enumerate("KMGTP", start=1):
        if size < 1024 ** (power + 1) or unit == "P":
            text = f"{size / 1024 ** power:.2f}".rstrip("0").rstrip(".")
            return text + unit
    raise AssertionError("unreachable")
