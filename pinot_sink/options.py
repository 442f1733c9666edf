"""The data source's options: parsed once on the driver from Spark's string options into small typed groups.

Spark hands a Python data source its options as a case-insensitive dict of strings. ``WriteOptions.parse``
turns them into typed groups, each used by one layer (buffer limits by the partition writer's buffer, build
options by the segment builder, conversion policies by type mapping, the client config by the controller
client, naming and delivery by the job; ``pinot-sink build`` parses its ``--option`` values with it too),
rejects unknown or misspelled keys (suggesting the closest valid one),
and keeps secrets out of ``repr``. Every option is documented in docs/options.md; the ``OPTIONS`` table below
is the single source of names, defaults and one-line descriptions. Controller timeouts and retries have no
default here: the client config (``pinot_sink.controller``) is their one home, and only what a user sets
is passed on.
"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Mapping

from type_mapping.convert import ConversionOptions

from pinot_sink.controller import Auth, ClientConfig, ControllerClient, RetryPolicy
from pinot_sink.controller import validate_controller_url as controller_url_rule
from pinot_sink.controller.auth import REDACTED, SECRET_NAME, redact_url, split_url_credentials
from pinot_sink.controller.errors import ControllerConfigError
from pinot_sink.controller.push import PUSH_MODES
from pinot_sink.naming import SegmentNameError, validate_name_part
from pinot_sink.segment import BuildOptions
from pinot_sink.segment.index_policy import normalise_mode
from pinot_sink.storage.layout import misspelt_storage_option
from pinot_sink.time_window import BUCKET_MS, TimeWindow, TimeWindowError, parse_time_range
from type_mapping.errors import PinotSinkError



class OptionError(PinotSinkError, ValueError):
    """An option that is missing, unknown or malformed; the message names the option."""


# name -> (default as the user would write it, description). None = no default (or: the client's own).
OPTIONS: dict[str, tuple[str | None, str]] = {
    "table-name": (None, "Pinot table (raw name, without _OFFLINE); required"),
    "url": (None, "controller base URL (http or https); without it segments only go to output-uri (embedded)"),
    "write.id": (None, "identity of this write: a rerun with the same id replaces that write's segments "
                       "(default: a fresh id per job, so reruns append)"),
    "table-type": ("OFFLINE", "OFFLINE, or REALTIME for an upsert/dedup table's uploaded segments"),
    "upsert.dedup-batch": (None, "latest: of the rows sharing a primary key, keep the one Pinot's upsert keeps "
                                 "(largest comparison value; on a tie the later row)"),
    "push-mode": ("tar", "tar (upload the tarball) | uri (controller fetches from output-uri) | metadata"),
    "output-uri": (None, "where tarballs go: a local directory or a deep-store URI (fsspec); with a "
                         "controller, also where tasks stage segments for the driver's commit"),
    "push-parallelism": ("4", "concurrent uploads in the driver's commit"),
    "push.segment-uri-prefix": (None, "uri/metadata push: prepended to each segment's deep-store path, as Pinot's "
                                      "job spec segmentUriPrefix (e.g. s3:// for an s3a:// output-uri)"),
    "push.segment-uri-suffix": (None, "uri/metadata push: appended to each segment's deep-store path"),
    "push.batch-size": ("1000", "metadata push: segments announced per /segments/batchUpload request (1: one "
                                "request per segment; controllers without the endpoint get one per segment)"),
    "commit.zk-record-limit": ("1024000", "bytes: the cluster's ZooKeeper record limit (Helix's "
                                          "zk.serializer.znrecord.write.size.limit.bytes); a commit whose lineage "
                                          "record or ideal state would outgrow it is refused before any upload"),
    "commit.note": (None, "a note kept with the write (its manifest and lineage request), shown by "
                          "`pinot-sink history`"),
    "manifest.path": (None, "also write the job manifest (JSON) to this path or URI"),
    "sink.buffer-flush.max-size": ("128mb", "cut a segment when the buffered rows reach this size (a task's peak "
                                            "memory is about 7x this)"),
    "sink.buffer-flush.max-rows": ("1000000", "cut a segment when this many rows are buffered"),
    "sink.parallelism": (None, "repartition to N before writing (pinot_sink.write applies it)"),
    "segment-name.type": ("simple", "simple | normalizedDate | fixed"),
    "segment.name": (None, "the segment name for segment-name.type=fixed"),
    "segment.name.prefix": (None, "name prefix for normalizedDate (default: the table name)"),
    "segment.name.postfix": (None, "name postfix, before the write tag, partition id and sequence"),
    "segment-version": ("v3", "segment format version: v3 (single columns.psf) or v1"),
    "creation-time": (None, "segment creation time (epoch millis or ISO-8601); default: job start"),
    "schema": (None, "Pinot schema as JSON or a path to a JSON file (instead of the controller's)"),
    "table-config": (None, "table config as JSON or a path to a JSON file (instead of the controller's)"),
    "schema.unknown-columns": ("fail", "fail | ignore: DataFrame columns that the Pinot schema lacks"),
    "schema.case-sensitive": ("false", "match DataFrame columns to Pinot columns case-sensitively"),
    "convert.on-overflow": ("error", "number outside the Pinot type's range: error | null"),
    "convert.on-fraction": ("error", "fraction into an INT/LONG column: error | truncate | null"),
    "convert.on-oversize-string": ("error", "STRING over maxLength (no strategy in the schema): error | pinot"),
    "convert.on-sub-millisecond": ("floor", "microseconds into a millisecond column: floor | error"),
    "convert.on-null-time": ("error", "null in the time column with an out-of-range default: error | pinot"),
    "ingestion.unsupported": ("error", "table-config ingestion settings this writer cannot apply: error | skip "
                                       "(named in the error; skip writes the rows without them)"),
    "build.unsupported-indexes": ("defer", "indexes this writer does not build: defer (to the server's load-time "
                                  "handler, where Pinot has one) | error"),
    "build.sort": ("true", "sort each segment by the table's sortedColumn"),
    "build.tar-codec": ("gzip", "the segment tarball's compression: gzip | lz4 | zstd (lz4 and zstd load on Pinot "
                                "1.3.0 and later; the file keeps its .tar.gz name)"),
    "auth.username": (None, "basic auth user (with auth.password)"),
    "auth.password": (None, "basic auth password"),
    "auth.token": (None, "bearer token"),
    "auth.header-token": (None, "the whole Authorization header value, e.g. 'Basic dXNlcjpwYXNz'"),
    "database": (None, "Pinot database (sent as the 'database' header)"),
    "tls.verify": ("true", "verify the controller's TLS certificate: true | false | path to a CA bundle"),
    "tls.client-cert": (None, "client certificate (PEM) for mTLS with the controller"),
    "tls.client-key": (None, "the client certificate's private key (PEM), unless it is in tls.client-cert"),
    "timeout.connect": (None, "controller connect timeout (default: the client's, 10s)"),
    "timeout.read": (None, "controller read timeout (default: the client's, 300s)"),
    "retry.max-attempts": (None, "attempts per controller call (default: the client's, 5)"),
    "retry.max-elapsed": (None, "deadline per controller call, retries included (default: the client's, 300s)"),
    "retry.initial-backoff": (None, "first backoff; doubles per attempt (default: the client's, 1s)"),
    "retry.max-backoff": (None, "largest backoff (default: the client's, 30s)"),
    "overwrite.time-range": (None, "with mode overwrite: replace only the segments in START/END (end exclusive; "
                                   "ISO dates, datetimes or epoch millis) or in each day/hour of the data (dynamic)"),
    "overwrite.straddling": ("error", "segments straddling the window's edge: error | include (replace them whole)"),
    "sink.time-bucket": (None, "cut segments on UTC day or hour boundaries of the time column: day | hour"),
    "compaction.every-batches": (None, "streaming: every N committed micro-batches, compact the table's small "
                                       "segments on the driver (docs/compaction.md)"),
    "compaction.closed-buckets": ("false", "streaming: after each micro-batch, compact the time buckets that ended "
                                           "at least compaction.delay ago"),
    "compaction.delay": ("1h", "streaming, compaction.closed-buckets: a bucket counts as closed this long after "
                               "its end"),
    "compaction.target-size": ("256mb", "streaming compaction: the untarred size of each new segment"),
    "compaction.mode": ("concat", "streaming compaction: concat | rollup (metrics summed) | dedup"),
    "table.create": ("never", "never | if-missing: create the Pinot schema (derived from the DataFrame) and the "
                              "OFFLINE table on the controller before the write, when the table does not exist"),
    "table.time-column": (None, "table.create: the DataFrame column that becomes the table's time column"),
    "table.sorted-column": (None, "table.create: the table's sortedColumn"),
    "table.inverted-index-columns": (None, "table.create: columns with an inverted index (comma-separated)"),
    "table.range-index-columns": (None, "table.create: columns with a range index (comma-separated)"),
    "table.bloom-filter-columns": (None, "table.create: columns with a bloom filter (comma-separated)"),
    "table.metric-columns": (None, "table.create: numeric columns declared as metrics (comma-separated)"),
}
# Prefixes whose keys pass through: extra HTTP headers for the controller, fsspec storage options.
PREFIX_OPTIONS = {"header.": "extra HTTP header sent to the controller, e.g. header.X-Team=ads",
                  "storage.": "passed to fsspec for output-uri, e.g. storage.key / storage.secret / "
                              "storage.client_kwargs.endpoint_url (s3fs)"}

# Option names of Pinot's Spark connector and batch-ingestion job spec that mean what one of ours means:
# accepted as documented aliases (docs/migrating.md). The value may need translating.
_JOB_TYPES = {"segmentcreationandtarpush": "tar", "segmenttarpush": "tar", "segmentcreationandimageuripush": "uri",
              "segmentcreationanduripush": "uri", "segmenturipush": "uri",
              "segmentcreationandmetadatapush": "metadata", "segmentmetadatapush": "metadata"}
ALIASES: dict[str, tuple[str, Any]] = {
    "table": ("table-name", None),
    "tablename": ("table-name", None),
    "tabletype": ("table-type", None),
    "outputdiruri": ("output-uri", None),
    "controlleruri": ("url", None),
    "push.controlleruri": ("url", None),
    "pushattempts": ("retry.max-attempts", None),
    "pushparallelism": ("push-parallelism", None),
    "pushretryintervalmillis": ("retry.initial-backoff", lambda v: f"{v}ms"),
    "segmenturiprefix": ("push.segment-uri-prefix", None),
    "segmenturisuffix": ("push.segment-uri-suffix", None),
    "authtoken": ("auth.header-token", None),
    "jobtype": ("push-mode", lambda v: _JOB_TYPES.get(v.strip().lower(), v)),
    "segmentnamegeneratorspec.type": ("segment-name.type", None),
    "segmentnamegeneratorspec.configs.segment.name": ("segment.name", None),
    "segmentnamegeneratorspec.configs.segment.name.prefix": ("segment.name.prefix", None),
    "segmentnamegeneratorspec.configs.segment.name.postfix": ("segment.name.postfix", None),
}
# Names of Pinot's tools that have no counterpart here, with what to do instead.
NO_COUNTERPART = {
    **{name: "indexes come from the table config (tableIndexConfig / fieldConfigList); this writer builds "
             "what the table config says" for name in ("invertedindexcolumns", "nodictionarycolumns",
                                                       "bloomfiltercolumns", "rangeindexcolumns")},
    **{name: "the time column comes from the table config (segmentsConfig.timeColumnName) and its format from "
             "the schema" for name in ("timecolumnname", "timeformat", "timegranularity")},
    "segmentnameformat": "names follow Pinot's generators: use 'segment-name.type', 'segment.name.prefix' and "
                         "'segment.name.postfix'",
    **{name: "the DataFrame is the input" for name in ("inputdiruri", "includefilenamepattern",
                                                       "excludefilenamepattern", "recordreaderspec")},
}
# Keys Spark itself sets (save(path), streaming) that are not ours to reject.
SPARK_OWNED = {"path", "checkpointlocation", "queryname"}

# Options that configure the controller client: given without 'url' they would be ignored.
CONTROLLER_ONLY_PREFIXES = ("auth.", "tls.", "timeout.", "retry.", "header.", "database",
                            "push.", "push-parallelism", "commit.zk-record-limit")  # the commit's upload
SECRET_OPTIONS = {"auth.password", "auth.token", "auth.header-token"}
SEGMENT_NAME_TYPES = {"simple": "simple", "normalizeddate": "normalizedDate", "fixed": "fixed"}
# Pinot's table names end up in URL paths and file paths: no separators, no control characters.
_TABLE_NAME_FORBIDDEN = re.compile(r"[/\\\x00-\x1f\x7f]|^\.\.?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2,
               "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "t": 1024**4, "tb": 1024**4, "tib": 1024**4}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$", re.IGNORECASE)
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_size(text: str, option: str = "size") -> int:
    """``5mb`` -> 5242880. Units b, kb, mb, gb, tb (1024-based, like Flink's MemorySize); bare numbers are bytes."""
    match = _SIZE.match(str(text))
    unit = (match.group(2) or "").lower() if match else None
    if not match or unit not in _SIZE_UNITS:
        raise OptionError(f"option {option!r}: {text!r} is not a size (examples: 5mb, 512kb, 1gb, 1048576)")
    value = int(float(match.group(1)) * _SIZE_UNITS[unit])
    if value <= 0:
        raise OptionError(f"option {option!r}: must be positive, got {text!r}")
    return value


def parse_duration(text: str, option: str) -> float:
    """``10s``, ``500ms``, ``2m``, ``1h`` or bare seconds -> seconds."""
    match = _DURATION.match(str(text))
    if not match:
        raise OptionError(f"option {option!r}: {text!r} is not a duration (examples: 500ms, 10s, 2m)")
    return float(match.group(1)) * _DURATION_UNITS[(match.group(2) or "").lower()]


def parse_int(text: str, option: str, minimum: int = 1) -> int:
    try:
        value = int(str(text).replace("_", "").strip())
    except ValueError:
        raise OptionError(f"option {option!r}: {text!r} is not an integer") from None
    if value < minimum:
        raise OptionError(f"option {option!r}: must be at least {minimum}, got {value}")
    return value


def parse_bool(text: str, option: str) -> bool:
    lowered = str(text).strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise OptionError(f"option {option!r}: {text!r} is not true or false")


def parse_creation_time(text: str) -> int:
    """Epoch millis, or an ISO-8601 timestamp (UTC when it has no offset)."""
    stripped = str(text).strip()
    if stripped.lstrip("-").isdigit():
        _refuse_other_epoch_units(int(stripped))
        return int(stripped)
    try:
        parsed = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise OptionError(
            f"option 'creation-time': {text!r} is neither epoch millis nor ISO-8601 (2024-01-31T00:00:00Z)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return int(parsed.timestamp() * 1000)


# Epoch seconds of 1971..2100 (31_536_000..4_102_444_800), and the micros and nanos of those years, taken as
# millis land in January 1970 or after the year 2900: refused as the read's time range refuses seconds
# (reading.time_window). Smaller numbers (0, 1, ...) stay: tests fix them for byte-identical segments.
_EPOCH_UNITS = (("seconds", "x1000", 1), ("microseconds", "/1000", 10**6), ("nanoseconds", "/1000000", 10**9))
_YEARS_1971_2100_S = (31_536_000, 4_102_444_800)


def _refuse_other_epoch_units(number: int) -> None:
    for unit, fix, per_second in _EPOCH_UNITS:
        low, high = (bound * per_second for bound in _YEARS_1971_2100_S)
        if low <= number < high:
            raise OptionError(
                f"option 'creation-time': {number} looks like epoch {unit} (taken as millis it is not in "
                f"1971..2100): give milliseconds ({fix}) or ISO-8601 (2024-01-31T00:00:00Z)")


def load_json_option(text: str, option: str) -> dict:
    """A JSON object given inline or as a path to a file holding it."""
    stripped = str(text).strip()
    if not stripped.startswith("{"):
        path = os.path.expanduser(stripped)
        if not os.path.isfile(path):
            raise OptionError(f"option {option!r}: neither inline JSON nor an existing file: {text!r}")
        with open(path, encoding="utf-8") as handle:
            stripped = handle.read()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise OptionError(f"option {option!r}: invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise OptionError(f"option {option!r}: expected a JSON object")
    return value


def validate_table_name(name: str) -> str:
    """A raw Pinot table name that is safe in URL and file paths (Pinot rejects the rest anyway)."""
    if _TABLE_NAME_FORBIDDEN.search(name):
        raise OptionError(f"option 'table-name': {name!r} may not contain '/', '\\' or control characters, "
                          f"nor be '.' or '..'")
    if name.upper().endswith(("_OFFLINE", "_REALTIME")):
        raise OptionError(f"option 'table-name': give the raw table name, without the type suffix: {name!r}")
    return name


def validate_controller_url(url: str) -> tuple[str, Auth | None]:
    """``http(s)://host[:port][/path]`` (the controller package's rule, errors naming 'url'); credentials in
    the URL become basic auth and leave the URL."""
    try:
        return split_url_credentials(controller_url_rule(url))
    except ControllerConfigError as exc:
        raise OptionError(str(exc)) from None


def suggest(name: str) -> str:
    """' (did you mean 'x'?)' for the closest valid option name, or ''."""
    candidates = list(OPTIONS) + [p + "<name>" for p in PREFIX_OPTIONS]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not close:
        # Separators are the usual slip: compare with dots/dashes/underscores removed.
        squash = {re.sub(r"[-._]", "", c): c for c in OPTIONS}
        hit = squash.get(re.sub(r"[-._]", "", name))
        close = [hit] if hit else []
    if not close and ("controller" in name or name.endswith(("url", "uri", "host", "address"))):
        close = ["url"]  # controller-url, controller, pinot-url ...: the controller's address is 'url'
    return f" (did you mean {close[0]!r}?)" if close else ""


# -----------------------------------------------------------------------------------------------------
# The groups


def pop_option(options: dict, name: str) -> Any:
    """Remove every spelling of option ``name`` from ``options`` (option names are case-insensitive, as
    Spark's); the value given, or None."""
    value = None
    for key in [k for k in options if str(k).lower() == name]:
        value = options.pop(key)
    return value


@dataclass(frozen=True)
class BufferLimits:
    """When a task cuts a segment (``sink.buffer-flush.*``)."""

    # Production-sized segments in bounded memory (docs/options.md says why not the design's 1000 / 5mb):
    # 1M rows is twice Pinot's Flink sink's 500,000, and 128mb of converted rows keeps a task near 1 GB.
    max_rows: int = 1_000_000
    max_bytes: int = 128 * 1024**2


@dataclass(frozen=True)
class NamingOptions:
    """``segment-name.type`` and its parts."""

    kind: str = "simple"
    fixed_name: str | None = None
    prefix: str | None = None
    postfix: str | None = None


@dataclass(frozen=True)
class DeliveryOptions:
    """Where tarballs go and how the driver's commit pushes them."""

    push_mode: str = "tar"
    output_uri: str | None = None
    push_parallelism: int = 4
    storage_options: dict[str, Any] = field(default_factory=dict, repr=False)  # fsspec kwargs (secrets)
    segment_uri_prefix: str = ""
    segment_uri_suffix: str = ""


@dataclass(frozen=True)
class CommitOptions:
    """What the driver's commit checks and records (``commit.*``, ``push.batch-size``)."""

    zk_record_limit: int = 1_024_000  # ZNRecord.SIZE_LIMIT
    note: str = ""
    batch_size: int = 1000


@dataclass(frozen=True)
class SchemaOptions:
    """Where the schema and table config come from, and how DataFrame columns are matched."""

    schema_json: dict | None = None
    table_config_json: dict | None = None
    ignore_unknown_columns: bool = False
    case_sensitive: bool = False


@dataclass(frozen=True)
class CompactionOptions:
    """A streaming query's compaction after its micro-batches (``compaction.*``; ``pinot_sink.compaction``)."""

    every_batches: int | None = None
    closed_buckets: bool = False
    delay_s: float = 3600.0
    target_bytes: int = 256 * 1024**2
    mode: str = "concat"

    @property
    def enabled(self) -> bool:
        return self.every_batches is not None or self.closed_buckets


@dataclass(frozen=True)
class WindowOptions:
    """Time-window backfills (``overwrite.*``, ``sink.time-bucket``); their meaning is in ``time_window``."""

    time_range: TimeWindow | str | None = None  # a window, or time_window.DYNAMIC
    include_straddling: bool = False
    time_bucket: str | None = None  # day | hour


@dataclass(frozen=True)
class TableCreateOptions:
    """``table.*``: what ``table.create=if-missing`` creates; its meaning is in ``table_create``."""

    mode: str = "never"  # never | if-missing
    time_column: str | None = None
    sorted_column: str | None = None
    inverted_index_columns: tuple[str, ...] = ()
    range_index_columns: tuple[str, ...] = ()
    bloom_filter_columns: tuple[str, ...] = ()
    metric_columns: tuple[str, ...] = ()


def _commit(get, chosen) -> CommitOptions:
    limit = parse_int(chosen("commit.zk-record-limit"), "commit.zk-record-limit")
    if limit < 1024:
        raise OptionError(f"option 'commit.zk-record-limit': {limit} bytes is below any ZooKeeper record; the "
                          "default is Helix's 1024000")
    batch = parse_int(chosen("push.batch-size"), "push.batch-size")
    if batch < 1:
        raise OptionError(f"option 'push.batch-size' must be at least 1, got {batch}")
    note = get("commit.note") or ""
    if _CONTROL.search(note):
        raise OptionError(f"option 'commit.note': {note!r} contains a control character")
    return CommitOptions(zk_record_limit=limit, note=note, batch_size=batch)


def _column_list(text: str | None) -> tuple[str, ...]:
    return tuple(name.strip() for name in (text or "").split(",") if name.strip())


_TABLE_CREATE_DETAILS = ("table.time-column", "table.sorted-column", "table.inverted-index-columns",
                         "table.range-index-columns", "table.bloom-filter-columns", "table.metric-columns")


def _table_create(get, chosen) -> TableCreateOptions:
    mode = _one_of(chosen("table.create"), "table.create", ("never", "if-missing"))
    unused = [name for name in _TABLE_CREATE_DETAILS if get(name)]
    if unused and mode != "if-missing":  # they shape a table this write creates; without it they did nothing
        raise OptionError(f"option {unused[0]!r} only applies with 'table.create'=if-missing (it shapes the table "
                          "the write creates); an existing table's config sets it")
    return TableCreateOptions(
        mode=mode,
        time_column=get("table.time-column") or None, sorted_column=get("table.sorted-column") or None,
        inverted_index_columns=_column_list(get("table.inverted-index-columns")),
        range_index_columns=_column_list(get("table.range-index-columns")),
        bloom_filter_columns=_column_list(get("table.bloom-filter-columns")),
        metric_columns=_column_list(get("table.metric-columns")))


@dataclass(frozen=True)
class WriteOptions:
    """Typed write options. Build with ``WriteOptions.parse(spark_options)``."""

    table_name: str
    write_id: str | None = None
    client: ClientConfig | None = field(default=None, repr=False)  # None: embedded mode (no controller)
    buffer: BufferLimits = field(default_factory=BufferLimits)
    naming: NamingOptions = field(default_factory=NamingOptions)
    delivery: DeliveryOptions = field(default_factory=DeliveryOptions)
    schema: SchemaOptions = field(default_factory=SchemaOptions)
    build: BuildOptions = field(default_factory=BuildOptions)
    conversion: ConversionOptions = field(default_factory=ConversionOptions)
    parallelism: int | None = None
    creation_time_ms: int | None = None
    manifest_path: str | None = None
    ingestion_unsupported: str = "error"
    compaction: CompactionOptions = field(default_factory=CompactionOptions)
    window: WindowOptions = field(default_factory=WindowOptions)
    table_create: TableCreateOptions = field(default_factory=TableCreateOptions)
    table_type: str = "OFFLINE"  # OFFLINE, or REALTIME (an upsert/dedup table's uploaded segments)
    dedup_batch: str | None = None  # upsert.dedup-batch: "latest" keeps one row per primary key
    commit: CommitOptions = field(default_factory=CommitOptions)

    @property
    def embedded(self) -> bool:
        """No controller: segments are only written to output-uri."""
        return self.client is None

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "WriteOptions":
        spelt: dict[str, str] = {}
        for key, value in options.items():  # 'Table-Name' and 'table-name' are one option: keep neither silently
            first = spelt.setdefault(str(key).lower(), str(key))
            if first != str(key) and str(options[first]) != str(value):
                raise OptionError(f"option {first.lower()!r} is given twice with different values (as {first!r} and "
                                  f"{str(key)!r}; option names ignore case): give one")
        raw = _resolve_aliases({str(k).lower(): ("" if v is None else str(v)) for k, v in options.items()})
        known = {k.lower(): k for k in OPTIONS}
        for key in raw:
            if key in known or key in SPARK_OWNED:
                continue
            if any(key.startswith(prefix) and len(key) > len(prefix) for prefix in PREFIX_OPTIONS):
                continue
            raise OptionError(f"unknown option {key!r}{suggest(key)}; see docs/options.md")

        def get(name: str) -> str | None:
            value = raw.get(name)
            if value is None or value.strip() == "":
                return None
            return value.strip()

        def chosen(name: str) -> str:
            """The value given, else the one default in OPTIONS."""
            return get(name) or OPTIONS[name][0]

        table_name = get("table-name")
        if not table_name:
            raise OptionError("option 'table-name' is required (the Pinot table to write)")
        validate_table_name(table_name)

        table_type = chosen("table-type").upper()
        if table_type not in ("OFFLINE", "REALTIME"):
            raise OptionError(f"option 'table-type': OFFLINE or REALTIME (upsert and dedup tables), got {table_type!r}")
        push_mode = chosen("push-mode").lower()
        if push_mode not in PUSH_MODES:
            raise OptionError(f"option 'push-mode': {push_mode!r} is not one of {', '.join(PUSH_MODES)}")

        url = get("url")
        output_uri = get("output-uri") or get("path")
        if get("output-uri") and get("path") and get("output-uri") != get("path"):
            # .save(path) beside .option("output-uri", ...): one of them would be dropped without a word.
            raise OptionError(f"option 'output-uri' {get('output-uri')!r} and the save path {get('path')!r} differ: "
                              "give the segments' folder once, as .save(path) or as 'output-uri'")
        storage_options = _storage_options(raw)
        # fsspec takes a misspelt storage.* key silently: refused here, on the driver, before any file is written
        misspelt = misspelt_storage_option(output_uri, storage_options, named="option ", prefix="storage.") \
            if output_uri else None
        if misspelt:
            raise OptionError(misspelt)
        if url and push_mode in ("uri", "metadata") and not output_uri:
            raise OptionError(
                f"option 'push-mode'={push_mode} needs 'output-uri' (a deep-store location the controller can read)"
            )

        if not url:
            unused = sorted(k for k in raw if get(k) is not None and k.startswith(CONTROLLER_ONLY_PREFIXES))
            if push_mode != "tar":  # embedded mode uploads nothing: uri/metadata would be dropped silently
                unused.insert(0, "push-mode")
            if unused:
                raise OptionError(f"option {unused[0]!r} only applies with a controller: set 'url', or drop it")

        write_id = get("write.id")
        if write_id is not None and _CONTROL.search(write_id):
            raise OptionError(f"option 'write.id': {write_id!r} contains a control character")
        naming = _naming(get)
        if write_id is not None and naming.kind == "fixed":
            # A fixed name carries no write tag: a later run of the write (with other naming) could not find
            # that segment, and both runs' rows would stay.
            raise OptionError("option 'write.id' cannot be combined with segment-name.type=fixed: a fixed-name "
                              "segment is replaced by writing the same segment.name again")

        return cls(
            table_name=table_name,
            write_id=write_id,
            client=_client_config(get, raw, url, table_type) if url else None,
            table_type=table_type,
            dedup_batch=_one_of(get("upsert.dedup-batch"), "upsert.dedup-batch", DEDUP_BATCH),
            buffer=BufferLimits(max_rows=parse_int(chosen("sink.buffer-flush.max-rows"), "sink.buffer-flush.max-rows"),
                                max_bytes=parse_size(chosen("sink.buffer-flush.max-size"),
                                                     "sink.buffer-flush.max-size")),
            naming=naming,
            delivery=DeliveryOptions(push_mode=push_mode, output_uri=output_uri,
                                     push_parallelism=parse_int(chosen("push-parallelism"), "push-parallelism"),
                                     storage_options=storage_options,
                                     segment_uri_prefix=get("push.segment-uri-prefix") or "",
                                     segment_uri_suffix=get("push.segment-uri-suffix") or ""),
            manifest_path=get("manifest.path"),
            commit=_commit(get, chosen),
            ingestion_unsupported=_one_of(chosen("ingestion.unsupported"), "ingestion.unsupported", ("error", "skip")),
            schema=SchemaOptions(
                schema_json=load_json_option(get("schema"), "schema") if get("schema") else None,
                table_config_json=(load_json_option(get("table-config"), "table-config")
                                   if get("table-config") else None),
                ignore_unknown_columns=_one_of(chosen("schema.unknown-columns"), "schema.unknown-columns",
                                               ("fail", "ignore")) == "ignore",
                case_sensitive=parse_bool(chosen("schema.case-sensitive"), "schema.case-sensitive"),
            ),
            build=_build_options(chosen),
            conversion=_conversion(chosen),
            parallelism=parse_int(get("sink.parallelism"), "sink.parallelism") if get("sink.parallelism") else None,
            creation_time_ms=parse_creation_time(get("creation-time")) if get("creation-time") else None,
            window=_window(get, chosen),
            table_create=_table_create(get, chosen),
            compaction=_compaction(get, chosen),
        )

    def __repr__(self) -> str:
        parts = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is None or spec.name == "schema":
                continue
            if spec.name == "client":
                value = f"controller {value.url}"  # the url is credential-free (userinfo became auth)
            parts.append(f"{spec.name}={value!r}")
        return f"WriteOptions({', '.join(parts)})"

    __str__ = __repr__


def _resolve_aliases(raw: dict[str, str]) -> dict[str, str]:
    """Pinot's own option names -> ours (values translated where needed); names with no counterpart fail
    with what to do instead."""
    out: dict[str, str] = {}
    for key, value in raw.items():
        if key in NO_COUNTERPART:
            raise OptionError(f"option {key!r} (from Pinot's Spark connector or job spec) has no counterpart "
                              f"here: {NO_COUNTERPART[key]}; see docs/migrating.md")
        name, translate = ALIASES.get(key, (key, None))
        if name in out:
            raise OptionError(f"option {name!r} is given twice (once under a Pinot alias, {key!r}): give one")
        out[name] = translate(value) if translate else value
    return out


def _prefixed(raw: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {key[len(prefix):]: value for key, value in raw.items() if key.startswith(prefix)}


def _storage_options(raw: Mapping[str, str]) -> dict[str, Any]:
    """``storage.client_kwargs.endpoint_url=...`` -> ``{"client_kwargs": {"endpoint_url": ...}}`` for fsspec;
    ``true`` / ``false`` become booleans (``storage.anon=true``)."""
    nested: dict[str, Any] = {}
    for key, value in _prefixed(raw, "storage.").items():
        *path, leaf = key.split(".")
        target = nested
        for part in path:
            target = target.setdefault(part, {})
        lowered = value.strip().lower()
        target[leaf] = True if lowered == "true" else False if lowered == "false" else value
    return nested


def _one_of(value: str, option: str, allowed: tuple[str, ...]) -> str:
    lowered = value.lower()
    if lowered not in allowed:
        raise OptionError(f"option {option!r}: {value!r} is not one of {', '.join(allowed)}")
    return lowered


def _compaction(get, chosen) -> CompactionOptions:
    every = get("compaction.every-batches")
    return CompactionOptions(
        every_batches=parse_int(every, "compaction.every-batches") if every else None,
        closed_buckets=parse_bool(chosen("compaction.closed-buckets"), "compaction.closed-buckets"),
        delay_s=parse_duration(chosen("compaction.delay"), "compaction.delay"),
        target_bytes=parse_size(chosen("compaction.target-size"), "compaction.target-size"),
        mode=_one_of(chosen("compaction.mode"), "compaction.mode", ("concat", "rollup", "dedup")))


def _window(get, chosen) -> WindowOptions:
    time_range = None
    if get("overwrite.time-range"):
        try:
            time_range = parse_time_range(get("overwrite.time-range"))
        except TimeWindowError as exc:
            raise OptionError(f"option 'overwrite.time-range': {exc}") from None
    bucket = get("sink.time-bucket")
    include_straddling = _one_of(chosen("overwrite.straddling"), "overwrite.straddling", ("error", "include"))
    if get("overwrite.straddling") and time_range is None:  # it did nothing, without a word
        raise OptionError("option 'overwrite.straddling' only applies with 'overwrite.time-range'")
    return WindowOptions(
        time_range=time_range,
        include_straddling=include_straddling == "include",
        time_bucket=_one_of(bucket, "sink.time-bucket", tuple(BUCKET_MS)) if bucket else None,
    )


def _naming(get) -> NamingOptions:
    kind_raw = get("segment-name.type") or OPTIONS["segment-name.type"][0]
    kind = SEGMENT_NAME_TYPES.get(kind_raw.lower())
    if kind is None:
        raise OptionError(f"option 'segment-name.type': {kind_raw!r} is not one of simple, normalizedDate, fixed")
    fixed_name = get("segment.name")
    if kind == "fixed" and not fixed_name:
        raise OptionError("option 'segment-name.type'=fixed needs 'segment.name'")
    if fixed_name and kind != "fixed":
        raise OptionError("option 'segment.name' is only used with 'segment-name.type'=fixed")
    parts = {"segment.name": fixed_name, "segment.name.prefix": get("segment.name.prefix"),
             "segment.name.postfix": get("segment.name.postfix")}
    for option, value in parts.items():
        if value is None:
            continue
        if _CONTROL.search(value):
            raise OptionError(f"option {option!r}: {value!r} contains a control character")
        try:
            validate_name_part(value, option)
        except SegmentNameError as exc:
            raise OptionError(f"option {option!r}: {exc}") from None
    return NamingOptions(kind=kind, fixed_name=fixed_name, prefix=parts["segment.name.prefix"],
                         postfix=parts["segment.name.postfix"])


def _build_options(chosen) -> BuildOptions:
    version = chosen("segment-version").lower()
    if version not in ("v1", "v3"):
        raise OptionError(f"option 'segment-version': {version!r} is not v1 or v3")
    return BuildOptions(
        segment_version=version,
        sort_by_sorted_column=parse_bool(chosen("build.sort"), "build.sort"),
        tar_codec=_one_of(chosen("build.tar-codec"), "build.tar-codec", ("gzip", "lz4", "zstd")),
        unsupported_indexes=normalise_mode(_one_of(chosen("build.unsupported-indexes"), "build.unsupported-indexes",
                                                   ("defer", "error", "skip"))),
    )


def _conversion(chosen) -> ConversionOptions:
    values = {}
    for name in OPTIONS:
        if name.startswith("convert."):
            values[name] = chosen(name).lower()
    try:
        return ConversionOptions(**{name[len("convert."):].replace("-", "_"): v for name, v in values.items()})
    except ValueError:
        # Say it with the option's name, not the Python field's.
        for name, value in values.items():
            try:
                ConversionOptions(**{name[len("convert."):].replace("-", "_"): value})
            except ValueError:
                allowed = OPTIONS[name][1].split(": ", 1)[-1]
                raise OptionError(f"option {name!r}: {value!r} is not one of {allowed}") from None
        raise


DEDUP_BATCH = ("latest",)


def _one_of(value: str | None, name: str, allowed: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if value.lower() not in allowed:
        raise OptionError(f"option {name!r}: {value!r} is not one of {', '.join(allowed)}")
    return value.lower()


def _client_config(get, raw: Mapping[str, str], url: str, table_type: str = "OFFLINE") -> ClientConfig:
    """The controller client's config; timeouts and retries only where the user set them (the client
    config holds their defaults)."""
    url, url_auth = validate_controller_url(url)
    username, password = get("auth.username"), get("auth.password")
    token, header = get("auth.token"), get("auth.header-token")
    if (username is None) != (password is None):
        raise OptionError("options 'auth.username' and 'auth.password' go together")
    if sum(x is not None for x in (username, token, header, url_auth)) > 1:
        raise OptionError("give only one of 'auth.username'/'auth.password', 'auth.token', 'auth.header-token' "
                          "or credentials in 'url'")
    auth = url_auth
    if username is not None:
        auth = Auth.basic(username, password)
    elif token:
        auth = Auth.bearer(token)
    elif header:
        auth = Auth.header(header)

    verify_raw = get("tls.verify") or OPTIONS["tls.verify"][0]
    try:
        verify: bool | str = parse_bool(verify_raw, "tls.verify")
    except OptionError:
        if not os.path.exists(os.path.expanduser(verify_raw)):
            raise OptionError(
                f"option 'tls.verify': {verify_raw!r} is neither true/false nor an existing CA bundle path"
            ) from None
        verify = os.path.expanduser(verify_raw)

    def seconds(name: str) -> float | None:
        if get(name) is None:
            return None
        value = parse_duration(get(name), name)
        if value <= 0 and name != "retry.initial-backoff":
            raise OptionError(f"option {name!r}: must be positive")
        return value

    retry_overrides = {key: value for key, value in (
        ("max_attempts", parse_int(get("retry.max-attempts"), "retry.max-attempts") if get("retry.max-attempts")
         else None),
        ("max_elapsed_s", seconds("retry.max-elapsed")),
        ("initial_backoff_s", seconds("retry.initial-backoff")),
        ("max_backoff_s", seconds("retry.max-backoff")),
    ) if value is not None}
    client_overrides = {key: value for key, value in (
        ("connect_timeout", seconds("timeout.connect")), ("read_timeout", seconds("timeout.read")),
    ) if value is not None}
    cert, key = get("tls.client-cert"), get("tls.client-key")
    for option, path in (("tls.client-cert", cert), ("tls.client-key", key)):
        if path is not None and not os.path.isfile(os.path.expanduser(path)):
            raise OptionError(f"option {option!r}: no such file: {path!r}")
    if key is not None and cert is None:
        raise OptionError("option 'tls.client-key' needs 'tls.client-cert'")
    if cert is not None:
        client_overrides["cert"] = (os.path.expanduser(cert), os.path.expanduser(key)) if key else \
            os.path.expanduser(cert)
    client = ControllerClient(url, auth=auth, headers=_prefixed(raw, "header."), database=get("database"),
                              verify=verify, retry=RetryPolicy(**retry_overrides), table_type=table_type,
                              **client_overrides)
    config = client.config
    client.close()
    return config


def redact_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Spark options with secret values replaced, for log lines and error messages: the secret options, every
    ``header.`` / ``storage.`` option, and any key whose name looks secret (a typo of a secret option included)."""
    out = {}
    for key, value in options.items():
        lowered = str(key).lower()
        secret = (lowered in SECRET_OPTIONS or lowered.startswith(("header.", "storage."))
                  or SECRET_NAME.search(lowered) is not None)
        if secret:
            out[key] = REDACTED
        elif isinstance(value, str) and "://" in value and "@" in value:
            out[key] = redact_url(value)
        else:
            out[key] = value
    return out
