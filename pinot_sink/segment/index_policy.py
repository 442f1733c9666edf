"""One index policy, decided on the driver before any task runs: ``plan_indexes(table_config, schema, mode)``.

Every index the table config names is either **built** here, **deferred** to the server, or an **error**:

* built: what this package writes (dictionary, forward, inverted, sorted, range v2, bloom filter, null value
  vector, TIMESTAMP's derived columns, JSON, star-trees); a star-tree this writer cannot build (an unknown
  column, a sketch aggregation without Java-compatible bytes, ...) is an error naming the tree and the
  function pair (``startree.validate_star_tree_configs``), never deferred;
* deferred (``build.unsupported-indexes=defer``, the default): only what Pinot's ``SegmentPreProcessor``
  builds when a server loads a segment without it, through the handler named here (``TextIndexHandler``,
  ``FSTIndexHandler``, ``VectorIndexHandler``, ``H3IndexHandler``, ...). The log and the write result say
  which, per column, and what it costs the servers;
* error: ``build.unsupported-indexes=error`` turns every deferral into one; an index no server handler builds
  (the MAP index) is always one.

The builder asks this plan what to write; it never decides again per segment.
"""
from __future__ import annotations

from dataclasses import dataclass

from type_mapping.pinot_schema import FieldSpec, PinotSchema
from type_mapping.table_config import ColumnIndexSettings, TableConfig, TableConfigError

from .codecs import codec_id
from .startree import StarTreeConfigError, validate_star_tree_configs

MODES = ("defer", "error")
MODE_ALIASES = {"skip": "defer"}  # the option's former name for deferring

# The kinds beyond the basic indexes that this package writes.
BUILT_KINDS: frozenset[str] = frozenset({"timestamp", "json"})
# Star-trees are always built (pinot_sink/segment/startree/, byte-identical to MultipleTreesBuilder), never
# deferred: plan_indexes checks them with validate_star_tree_configs.

# Index kind -> (Pinot's load-time handler, what it costs each server that loads the segment).
_SERVER_BUILDS = {
    "text": ("TextIndexHandler", "reads every value of the column and writes a Lucene index on the server's "
             "local disk at each load of the segment (every replica, every reload)"),
    "fst": ("FSTIndexHandler", "builds a Lucene FST over the column's dictionary at each load (needs a "
            "dictionary-encoded STRING column)"),
    "ifst": ("IFSTIndexHandler", "builds a case-insensitive Lucene FST over the dictionary at each load"),
    "vector": ("VectorIndexHandler", "reads every vector and builds an HNSW graph at each load: CPU and heap "
               "grow with rows x dimensions"),
    "h3": ("H3IndexHandler", "reads every geometry and writes the H3 cell bitmaps at each load"),
    "json": ("JsonIndexHandler", "flattens every JSON value and writes the posting lists at each load"),
    "timestamp": ("DefaultColumnHandler", "computes the derived $column$GRANULARITY columns (dictionary, "
                  "forward, range) from the column at each load"),
    "range": ("RangeIndexHandler", "reads the column and writes the range index at each load"),
    "disabled forward index": ("ForwardIndexHandler", "removes the forward index at each load (the segment "
                               "in deep store keeps it: more bytes to download)"),
    "multi-column text": ("MultiColumnTextIndexHandler", "reads every value of the columns and writes one "
                          "Lucene index at each load"),
}
# Forward codecs are rewritten by ForwardIndexHandler when a raw column's codec differs from the config.
_CODEC_HANDLER = ("ForwardIndexHandler", "rewrites the column's raw forward index with the codec at each load")


class IndexPolicyError(TableConfigError):
    """An index the config names that is neither built here nor deferred; the message names the key."""


@dataclass(frozen=True)
class IndexDecision:
    column: str | None  # None: a table-level index (star-tree, multi-column text)
    kind: str
    key: str  # the table config key that names it
    action: str  # built | deferred | error
    why: str = ""  # deferred: the server's handler and its cost; error: the reason

    def describe(self) -> str:
        where = f"column {self.column!r}" if self.column else "table"
        if self.action == "deferred":
            return f"{where}: {self.kind} index ({self.key}) deferred to the server: {self.why}"
        if self.action == "error":
            return f"{where}: {self.kind} index ({self.key}): {self.why}"
        return f"{where}: {self.kind} index built"


@dataclass(frozen=True)
class IndexPlan:
    mode: str
    decisions: tuple[IndexDecision, ...] = ()

    def _with(self, action: str) -> list[IndexDecision]:
        return [d for d in self.decisions if d.action == action]

    @property
    def deferred(self) -> list[IndexDecision]:
        return self._with("deferred")

    @property
    def built(self) -> list[IndexDecision]:
        return self._with("built")

    def is_deferred(self, column: str | None, kind: str) -> bool:
        return any(d.column == column and d.kind == kind for d in self.deferred)

    def deferred_lines(self) -> tuple[str, ...]:
        return tuple(d.describe() for d in self.deferred)


def normalise_mode(mode: str) -> str:
    mode = MODE_ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"build.unsupported-indexes must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def range_supported(c: ColumnIndexSettings, spec: FieldSpec) -> bool:
    """Version 2 (bit-sliced), single-value, over dictIds or raw numbers."""
    return c.range_version == 2 and spec.single_value and (has_dict_ids(c) or spec.is_fixed_width)


def has_dict_ids(c: ColumnIndexSettings) -> bool:
    return c.dictionary or c.inverted  # an inverted index needs dictIds (Pinot creates the dictionary anyway)


def plan_indexes(table_config: TableConfig, schema: PinotSchema, mode: str = "defer") -> IndexPlan:
    """Decide every index the config names; raises ``IndexPolicyError`` listing every error at once."""
    mode = normalise_mode(mode)
    settings = table_config.indexes
    decisions: list[IndexDecision] = []

    def server(column: str | None, kind: str, key: str, handler: tuple[str, str] | None, reason: str = "") -> None:
        if handler is None:
            decisions.append(IndexDecision(column, kind, key, "error", reason or "no Pinot server builds it"))
        elif mode == "error":
            decisions.append(IndexDecision(column, kind, key, "error", f"not built by this writer{reason} "
                                           f"(build.unsupported-indexes=defer leaves it to the server's "
                                           f"{handler[0]})"))
        else:
            decisions.append(IndexDecision(column, kind, key, "deferred", f"{handler[0]} {handler[1]}{reason}"))

    for kind, key in settings.others.items():
        if kind == "star-tree":
            # Built here whatever enableDynamicStarTreeCreation says: a server-built tree costs every load.
            try:
                validate_star_tree_configs(table_config, schema)
            except StarTreeConfigError as exc:
                decisions.append(IndexDecision(None, kind, key, "error", str(exc)))
            else:
                decisions.append(IndexDecision(None, kind, key, "built"))
        else:
            server(None, kind, key, _SERVER_BUILDS.get(kind))

    for name, c in settings.columns.items():
        spec = schema[name]
        for kind, key in c.others.items():
            if kind.startswith("forward index codec"):
                server(name, kind, key, _CODEC_HANDLER, "")
            else:
                server(name, kind, key, _SERVER_BUILDS.get(kind),
                       "" if kind in _SERVER_BUILDS else f"; no Pinot load-time handler builds a {kind} index")
        if c.compression_codec is not None:
            try:
                codec_id(c.compression_codec)
            except ValueError as exc:
                decisions.append(IndexDecision(name, "forward", "compressionCodec", "error", str(exc)))
        if c.forward_disabled:
            server(name, "disabled forward index", f"fieldConfigList {name!r}", _SERVER_BUILDS["disabled forward index"])
        if c.range and not range_supported(c, spec):
            reason = ("version 1" if c.range_version != 2 else "multi-value" if not spec.single_value
                      else f"raw {spec.data_type}")
            server(name, "range", reason, _SERVER_BUILDS["range"])
        if c.timestamp_granularities:
            key = f"fieldConfigList {name!r} timestampConfig"
            if "timestamp" in BUILT_KINDS:
                decisions.append(IndexDecision(name, "timestamp", key, "built"))
            else:
                server(name, "timestamp", key, _SERVER_BUILDS["timestamp"])
        if c.json is not None:
            key = "jsonIndexColumns / jsonIndexConfigs / fieldConfigList indexes.json"
            if not spec.single_value or spec.stored_type != "STRING":
                decisions.append(IndexDecision(name, "json", key, "error", f"Pinot builds a JSON index on a "
                                               f"single-value STRING or JSON column only, not {spec.data_type}"
                                               + ("" if spec.single_value else " multi-value")))
            elif "json" in BUILT_KINDS:
                decisions.append(IndexDecision(name, "json", key, "built"))
            else:
                server(name, "json", key, _SERVER_BUILDS["json"])
    errors = [d for d in decisions if d.action == "error"]
    if errors:
        raise IndexPolicyError("the table config names indexes this writer cannot honour: "
                               + "; ".join(d.describe() for d in errors))
    return IndexPlan(mode, tuple(decisions))
