"""Star-tree configs as Pinot's builder sees them (``StarTreeV2BuilderConfig``), and the driver-side check.

``starTreeIndexConfigs`` entries (``dimensionsSplitOrder``, ``skipStarNodeCreationForDimensions``,
``functionColumnPairs`` and / or ``aggregationConfigs``, ``maxLeafRecords``) become one tree each, duplicates
dropped; ``enableDefaultStarTree`` adds Pinot's default tree (``generateDefaultConfig``), computed from the
segment's columns (cardinality, dictionary), so it differs between segments. Function names resolve as
``AggregationFunctionType.getAggregationFunctionType`` does (underscores and case ignored), to their stored type
(``distinctCountRawHLL`` is stored as ``distinctCountHLL``, ``sumLong`` as ``sum``, ...); the pairs are kept in
``AggregationFunctionColumnPair`` order (column, then the function's place in the enum).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import StarTreeAggregationSettings, StarTreeIndexSettings, TableConfig

from ..codecs import UnsupportedCodec, codec_id
from .aggregators import AGGREGATORS
from type_mapping.errors import PinotSinkError

DEFAULT_MAX_LEAF_RECORDS = 10_000  # StarTreeV2BuilderConfig.DEFAULT_MAX_LEAF_RECORDS
DEFAULT_DIMENSION_CARDINALITY_THRESHOLD = 10_000  # for the default tree's dimensions
DEFAULT_INDEX_VERSION = 4  # ForwardIndexConfig.getDefaultRawWriterVersion
DEFAULT_TARGET_MAX_CHUNK_SIZE = 1 << 20
DEFAULT_TARGET_DOCS_PER_CHUNK = 1000

# AggregationFunctionType in enum order: NAME javaName (the order sorts pairs on one column)
_ENUM = "COUNT count MIN min MAX max MINSTRING minString MAXSTRING maxString MINLONG minLong MAXLONG maxLong SUM sum SUM0 $sum0 SUMINT sumInt SUMLONG sumLong SUMPRECISION sumPrecision AVG avg MODE mode ANYVALUE anyValue FIRSTWITHTIME firstWithTime LASTWITHTIME lastWithTime MINMAXRANGE minMaxRange DISTINCTCOUNT distinctCount DISTINCTCOUNTOFFHEAP distinctCountOffHeap DISTINCTSUM distinctSum DISTINCTAVG distinctAvg DISTINCTCOUNTBITMAP distinctCountBitmap SEGMENTPARTITIONEDDISTINCTCOUNT segmentPartitionedDistinctCount DISTINCTCOUNTHLL distinctCountHLL DISTINCTCOUNTRAWHLL distinctCountRawHLL DISTINCTCOUNTSMARTHLL distinctCountSmartHLL DISTINCTCOUNTSMARTHLLPLUS distinctCountSmartHLLPlus DISTINCTCOUNTHLLPLUS distinctCountHLLPlus DISTINCTCOUNTRAWHLLPLUS distinctCountRawHLLPlus DISTINCTCOUNTULL distinctCountULL DISTINCTCOUNTRAWULL distinctCountRawULL DISTINCTCOUNTSMARTULL distinctCountSmartULL DISTINCTCOUNTTHETASKETCH distinctCountThetaSketch DISTINCTCOUNTRAWTHETASKETCH distinctCountRawThetaSketch DISTINCTCOUNTTUPLESKETCH distinctCountTupleSketch DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH distinctCountRawIntegerSumTupleSketch SUMVALUESINTEGERSUMTUPLESKETCH sumValuesIntegerSumTupleSketch AVGVALUEINTEGERSUMTUPLESKETCH avgValueIntegerSumTupleSketch DISTINCTCOUNTCPCSKETCH distinctCountCPCSketch DISTINCTCOUNTRAWCPCSKETCH distinctCountRawCPCSketch PERCENTILE percentile PERCENTILEEST percentileEst PERCENTILERAWEST percentileRawEst PERCENTILETDIGEST percentileTDigest PERCENTILERAWTDIGEST percentileRawTDigest PERCENTILESMARTTDIGEST percentileSmartTDigest PERCENTILEKLL percentileKLL PERCENTILERAWKLL percentileRawKLL IDSET idSet HISTOGRAM histogram COVARPOP covarPop COVARSAMP covarSamp VARPOP varPop VARSAMP varSamp STDDEVPOP stdDevPop STDDEVSAMP stdDevSamp SKEWNESS skewness KURTOSIS kurtosis FOURTHMOMENT fourthMoment FREQUENTSTRINGSSKETCH frequentStringsSketch FREQUENTLONGSSKETCH frequentLongsSketch STUNION STUnion BOOLAND boolAnd BOOLOR boolOr EXPRMIN exprMin EXPRMAX exprMax ARRAYAGG arrayAgg LISTAGG listAgg SUMARRAYLONG sumArrayLong SUMARRAYDOUBLE sumArrayDouble FUNNELMAXSTEP funnelMaxStep FUNNELCOMPLETECOUNT funnelCompleteCount FUNNELSTEPDURATIONSTATS funnelStepDurationStats FUNNELMATCHSTEP funnelMatchStep FUNNELEVENTSFUNCTIONEVAL funnelEventsFunctionEval FUNNELCOUNT funnelCount COUNTMV countMV MINMV minMV MAXMV maxMV SUMMV sumMV AVGMV avgMV MINMAXRANGEMV minMaxRangeMV DISTINCTCOUNTMV distinctCountMV DISTINCTSUMMV distinctSumMV DISTINCTAVGMV distinctAvgMV DISTINCTCOUNTBITMAPMV distinctCountBitmapMV DISTINCTCOUNTHLLMV distinctCountHLLMV DISTINCTCOUNTRAWHLLMV distinctCountRawHLLMV DISTINCTCOUNTHLLPLUSMV distinctCountHLLPlusMV DISTINCTCOUNTRAWHLLPLUSMV distinctCountRawHLLPlusMV PERCENTILEMV percentileMV PERCENTILEESTMV percentileEstMV PERCENTILERAWESTMV percentileRawEstMV PERCENTILETDIGESTMV percentileTDigestMV PERCENTILERAWTDIGESTMV percentileRawTDigestMV PERCENTILEKLLMV percentileKLLMV PERCENTILERAWKLLMV percentileRawKLLMV TIMESERIESAGGREGATE timeSeriesAggregate ".split()
FUNCTION_NAMES: dict[str, str] = dict(zip(_ENUM[0::2], _ENUM[1::2]))
_ORDINAL = {name: i for i, name in enumerate(FUNCTION_NAMES)}
_STORED_TYPE = {  # AggregationFunctionColumnPair.getStoredType
    "DISTINCTCOUNTRAWHLL": "DISTINCTCOUNTHLL",
    "PERCENTILERAWEST": "PERCENTILEEST",
    "PERCENTILERAWTDIGEST": "PERCENTILETDIGEST",
    "DISTINCTCOUNTRAWTHETASKETCH": "DISTINCTCOUNTTHETASKETCH",
    "DISTINCTCOUNTRAWHLLPLUS": "DISTINCTCOUNTHLLPLUS",
    "DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH": "DISTINCTCOUNTTUPLESKETCH",
    "AVGVALUEINTEGERSUMTUPLESKETCH": "DISTINCTCOUNTTUPLESKETCH",
    "SUMVALUESINTEGERSUMTUPLESKETCH": "DISTINCTCOUNTTUPLESKETCH",
    "DISTINCTCOUNTRAWCPCSKETCH": "DISTINCTCOUNTCPCSKETCH",
    "DISTINCTCOUNTRAWULL": "DISTINCTCOUNTULL",
    "MINLONG": "MIN",
    "MAXLONG": "MAX",
    "SUMLONG": "SUM",
    "SUMINT": "SUM",
}
# Functions Pinot can put in a star-tree (ValueAggregatorFactory) that need a sketch library this builder lacks.
SKETCH_FUNCTIONS = {
    "DISTINCTCOUNTULL": "UltraLogLog (hash4j), no Python implementation with Java's bytes",
    "DISTINCTCOUNTTHETASKETCH": "theta sketch (DataSketches): the datasketches PyPI package is not installed here",
    "DISTINCTCOUNTTUPLESKETCH": "integer tuple sketch (DataSketches), not in the datasketches Python API",
    "DISTINCTCOUNTCPCSKETCH": "CPC sketch (DataSketches): the datasketches PyPI package is not installed here",
    "PERCENTILEEST": "QuantileDigest (Pinot's own class), no Python implementation",
    "PERCENTILETDIGEST": "t-digest 3.3 MergingDigest, no Python implementation with Java's bytes",
}


class StarTreeConfigError(PinotSinkError, ValueError):
    """A star-tree config this builder cannot write; the message names the tree and the function pair."""


@dataclass(frozen=True)
class AggregationSpec:
    compression_codec: str = "PASS_THROUGH"
    derive_num_docs_per_chunk: bool = False
    index_version: int = DEFAULT_INDEX_VERSION
    target_max_chunk_size_bytes: int = DEFAULT_TARGET_MAX_CHUNK_SIZE
    target_docs_per_chunk: int = DEFAULT_TARGET_DOCS_PER_CHUNK
    function_parameters: tuple = ()  # (key, value) in the config's order


@dataclass(frozen=True)
class FunctionColumnPair:
    function: str  # the enum NAME, e.g. DISTINCTCOUNTHLL
    column: str  # "*" for COUNT

    @property
    def column_name(self) -> str:
        """``toColumnName``: e.g. ``distinctCountHLL__user_id``, ``count__*``."""
        return f"{FUNCTION_NAMES[self.function]}__{self.column}"

    def sort_key(self):
        return (self.column.encode("utf-16-be"), _ORDINAL[self.function])


@dataclass(frozen=True)
class StarTreeConfig:
    dimensions: tuple[str, ...]
    skip_star_node_creation: tuple[str, ...]  # sorted (a TreeSet in Pinot)
    aggregations: tuple[tuple[FunctionColumnPair, AggregationSpec], ...]  # in pair order
    max_leaf_records: int
    label: str = field(default="", compare=False)  # how errors name the tree

    @property
    def pairs(self) -> list[FunctionColumnPair]:
        return [pair for pair, _ in self.aggregations]


def resolve_function(name: str) -> str | None:
    """The enum NAME for a function name as Pinot resolves it, or None if there is none."""
    normalized = str(name).replace("_", "").upper().replace("$", "")
    if normalized.startswith("PERCENTILE"):
        rest = normalized[10:]
        for base in ("EST", "RAWEST", "TDIGEST", "RAWTDIGEST", "KLL", "RAWKLL"):
            if re.fullmatch(base + r"\d*", rest):
                return "PERCENTILE" + base
        if re.fullmatch(r"\d*", rest):
            return "PERCENTILE"
    return normalized if normalized in FUNCTION_NAMES else None


def _pair(function_name: Any, column: Any, where: str) -> FunctionColumnPair:
    function = resolve_function(function_name)
    if function is None:
        raise StarTreeConfigError(f"{where}: unknown aggregation function {function_name!r}")
    function = _STORED_TYPE.get(function, function)
    return FunctionColumnPair(function, "*" if function == "COUNT" else str(column))


def _data_size_bytes(text: Any, where: str) -> int:
    """``DataSizeUtils.toBytes``: a number with an optional B/K/KB/M/MB/G/GB/T/TB/P/PB unit."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGTP]?)B?\s*", str(text), re.IGNORECASE)
    if not match:
        raise StarTreeConfigError(f"{where}: targetMaxChunkSize {text!r} is not a data size (e.g. 1M)")
    power = " KMGTP".index(match.group(2).upper() or " ")
    return int(float(match.group(1)) * (1024 ** power))


def _spec_from_aggregation_config(cfg: StarTreeAggregationSettings, where: str) -> AggregationSpec:
    codec = cfg.compression_codec or "PASS_THROUGH"
    try:
        codec_id(codec)
    except UnsupportedCodec as exc:
        raise StarTreeConfigError(f"{where}: compressionCodec: {exc}") from None
    size = cfg.target_max_chunk_size
    return AggregationSpec(
        compression_codec=codec.upper(),
        derive_num_docs_per_chunk=cfg.derive_num_docs_per_chunk,
        index_version=cfg.index_version if cfg.index_version is not None else DEFAULT_INDEX_VERSION,
        target_max_chunk_size_bytes=(_data_size_bytes(size, where) if size is not None
                                     else DEFAULT_TARGET_MAX_CHUNK_SIZE),
        target_docs_per_chunk=(cfg.target_docs_per_chunk if cfg.target_docs_per_chunk is not None
                               else DEFAULT_TARGET_DOCS_PER_CHUNK),
        function_parameters=cfg.function_parameters,
    )


def from_index_config(cfg: StarTreeIndexSettings, label: str) -> StarTreeConfig:
    """``StarTreeV2BuilderConfig.fromIndexConfig``."""
    dims = cfg.dimensions_split_order
    if not dims:
        raise StarTreeConfigError(f"{label}: dimensionsSplitOrder is empty")
    skip = sorted(cfg.skip_star_node_creation_for_dimensions, key=lambda s: s.encode("utf-16-be"))
    missing = [d for d in skip if d not in dims]
    if missing:
        raise StarTreeConfigError(f"{label}: skipStarNodeCreationForDimensions {missing} are not in "
                                  f"dimensionsSplitOrder {list(dims)}")
    specs: dict[FunctionColumnPair, AggregationSpec] = {}
    for text in cfg.function_column_pairs:
        where = f"{label}: functionColumnPairs {text!r}"
        if "__" not in text:
            raise StarTreeConfigError(f"{where}: expected FUNCTION__column (e.g. SUM__clicks)")
        function, column = text.split("__", 1)
        specs.setdefault(_pair(function, column, where), AggregationSpec())
    for agg in cfg.aggregation_configs:
        where = f"{label}: aggregationConfigs {agg.aggregation_function}({agg.column_name})"
        if not agg.column_name or not agg.aggregation_function:
            raise StarTreeConfigError(f"{where}: columnName and aggregationFunction are required")
        specs.setdefault(_pair(agg.aggregation_function, agg.column_name, where),
                         _spec_from_aggregation_config(agg, where))
    if not specs:
        raise StarTreeConfigError(f"{label}: neither functionColumnPairs nor aggregationConfigs is set")
    max_leaf = cfg.max_leaf_records
    if max_leaf <= 0:
        max_leaf = DEFAULT_MAX_LEAF_RECORDS
    ordered = tuple(sorted(specs.items(), key=lambda item: item[0].sort_key()))
    return StarTreeConfig(tuple(dims), tuple(skip), ordered, max_leaf, label)


def has_star_trees(table_config: TableConfig) -> bool:
    return table_config.indexes.star_trees.any


def explicit_configs(table_config: TableConfig) -> list[StarTreeConfig]:
    out: list[StarTreeConfig] = []
    for cfg in table_config.indexes.star_trees.configs:
        tree = from_index_config(cfg, cfg.key)
        if tree not in out:
            out.append(tree)
    return out


def default_config(schema: PinotSchema, columns: Mapping[str, tuple[bool, int]]) -> StarTreeConfig:
    """``generateDefaultConfig``: ``columns`` maps a column to (has dictionary, cardinality) in this segment.

    Split order: single-value DIMENSION columns with a dictionary and cardinality <= 10,000, then DATE_TIME /
    TIME columns with a dictionary, each group by cardinality descending (stable over column-name order);
    pairs: COUNT(*) and SUM of every numeric single-value METRIC; maxLeafRecords 10,000."""
    dims, times, metrics = [], [], []
    for spec in sorted(schema, key=lambda s: s.name.encode("utf-16-be")):
        if not spec.single_value:
            continue
        has_dict, cardinality = columns[spec.name]
        if spec.field_type == "DIMENSION":
            if has_dict and cardinality <= DEFAULT_DIMENSION_CARDINALITY_THRESHOLD:
                dims.append((spec.name, cardinality))
        elif spec.field_type in ("DATE_TIME", "TIME"):
            if has_dict:
                times.append((spec.name, cardinality))
        elif spec.field_type == "METRIC" and spec.data_type in ("INT", "LONG", "FLOAT", "DOUBLE", "BIG_DECIMAL"):
            metrics.append(spec.name)
    dims.sort(key=lambda item: -item[1])
    times.sort(key=lambda item: -item[1])
    order = [name for name, _ in dims] + [name for name, _ in times]
    if not order:
        raise StarTreeConfigError("enableDefaultStarTree: no qualified dimension for the default star-tree's split "
                                  "order (single-value dimensions with a dictionary and cardinality <= 10000)")
    pairs = [FunctionColumnPair("COUNT", "*")] + [FunctionColumnPair("SUM", m) for m in metrics]
    ordered = tuple(sorted(((p, AggregationSpec()) for p in pairs), key=lambda item: item[0].sort_key()))
    return StarTreeConfig(tuple(order), (), ordered, DEFAULT_MAX_LEAF_RECORDS, "the default star-tree")


def validate_star_tree_configs(table_config: TableConfig, schema: PinotSchema) -> None:
    """Raise ``StarTreeConfigError`` (naming the tree and the function pair) for anything in the table config's
    star-trees this builder cannot write; the driver calls it before any task runs. The default tree is checked
    for what can be known without the data (a dimension must have a dictionary at build time)."""
    from .aggregators import UnsupportedAggregation, make_aggregator

    trees = explicit_configs(table_config)
    columns = table_config.indexes.columns
    # an inverted index makes Pinot create the dictionary anyway
    raw = {name for name, c in columns.items() if not (c.dictionary or c.inverted)}
    for tree in trees:
        for dim in tree.dimensions:
            if dim not in schema:
                raise StarTreeConfigError(f"{tree.label}: dimensionsSplitOrder names {dim!r}, which the schema "
                                          f"lacks{_closest(dim, schema)}")
            if not schema[dim].single_value:
                raise StarTreeConfigError(f"{tree.label}: dimension {dim!r} is multi-value; a star-tree splits on "
                                          f"single-value dimensions only")
            if dim in raw:
                raise StarTreeConfigError(f"{tree.label}: dimension {dim!r} has no dictionary (noDictionaryColumns "
                                          f"/ RAW encoding); Pinot's star-tree needs dictionary-encoded dimensions")
        for pair, spec in tree.aggregations:
            where = f"{tree.label}: function pair {pair.column_name}"
            if pair.function in SKETCH_FUNCTIONS:
                raise StarTreeConfigError(f"{where}: not built by this writer ({SKETCH_FUNCTIONS[pair.function]}); "
                                          f"remove the pair or build this table with Pinot's own segment builder")
            if pair.function not in AGGREGATORS:
                raise StarTreeConfigError(f"{where}: {FUNCTION_NAMES[pair.function]} is not a star-tree "
                                          f"aggregation Pinot supports")
            if pair.column == "*":
                continue
            if pair.column not in schema:
                raise StarTreeConfigError(f"{where}: column {pair.column!r} is not in the schema"
                                          f"{_closest(pair.column, schema)}")
            col = schema[pair.column]
            try:
                agg = make_aggregator(pair.function, col.stored_type, col.single_value, dict(spec.function_parameters))
                _probe(agg, col)
            except UnsupportedAggregation as exc:
                raise StarTreeConfigError(f"{where}: {exc}") from None
            if spec.index_version not in (2, 3, 4):
                raise StarTreeConfigError(f"{where}: indexVersion {spec.index_version} is not one this writer "
                                          f"writes for star-tree metrics (2, 3, 4)")


def _probe(agg, col) -> None:
    """Fail early for column types an aggregator cannot take (hashing, parsing)."""
    sample = {"INT": 1, "LONG": 1, "FLOAT": 1.0, "DOUBLE": 1.0, "STRING": "1", "BIG_DECIMAL": "1",
              "BYTES": None}.get(col.stored_type)
    if sample is None:
        if agg.value_type != "BYTES" or agg.name in ("distinctCountBitmap",):
            from .aggregators import UnsupportedAggregation

            raise UnsupportedAggregation(f"a BYTES column cannot be aggregated by {agg.name}")
        return
    agg.initial(sample if col.single_value else [sample])


def _closest(name: str, schema: PinotSchema) -> str:
    import difflib

    match = difflib.get_close_matches(name, [s.name for s in schema], n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""
