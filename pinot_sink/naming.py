"""Deterministic segment names, formed the way Pinot's own name generators form them.

Facts from Pinot (``pinot-segment-spi/.../creator/name/``):

* Every generator joins its parts with ``_`` and skips absent parts (Guava ``Joiner.on('_').skipNulls()``).
* ``SimpleSegmentNameGenerator``: ``table [min max] [postfix] [sequenceId]``. ``min``/``max`` are the time
  column's min and max *stored* values (``ColumnStatistics.getMinValue().toString()``), present only when the
  table config has a time column; a negative sequence id is left out.
* ``NormalizedDateSegmentNameGenerator``: ``prefix [minDate maxDate] [postfix] [sequenceId]``; the prefix
  defaults to the table name; dates appear only for APPEND push type (the default when the table config says
  nothing) and are formatted ``yyyy-MM-dd`` in UTC, or ``yyyy-MM-dd-HH`` when the push frequency is HOURLY.
  EPOCH input is converted with the format's *unit only* (``TimeUnit.toMillis(value)``: the size in
  ``5:MINUTES:EPOCH`` is ignored); SIMPLE_DATE_FORMAT input is parsed with its pattern.
* ``FixedSegmentNameGenerator``: the given name.
* ``SegmentNameUtils.validatePartialOrFullSegmentName``: no part may contain any of ``\\ / : * ? " < > |``.

Like Pinot's Flink sink, the writer's partition id is appended to the postfix and the sequence id is the
segment's ordinal inside its partition. Before the partition id every name carries the *write tag* and the
*run tag* (``write_tags``): the write tag identifies the write (a hash of ``write.id``, or of a fresh id when
none is given), so two different writes never produce the same name and a rerun of the same write can find
exactly its earlier segments (``is_segment_of_write``, a parse of the name's fixed tail, not a pattern over
the whole name); the run tag is fresh per run, so a rerun's new names never collide with the ones it
replaces. Nothing comes from attempt numbers: a retried task attempt produces the same names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pinot_sink.segment.format import INVALID_NAME_CHARS as INVALID_CHARS
from type_mapping.datetime_formats import (DateTimeFormat, DateTimeFormatError, parse_format, parse_simple_date,
                                          stored_to_millis)
from type_mapping.java_text import java_object_string
from type_mapping.errors import PinotSinkError
from type_mapping.table_config import TableConfig

_INVALID = re.compile("[" + re.escape(INVALID_CHARS) + "]")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class SegmentNameError(PinotSinkError, ValueError):
    """A segment name (or part of one) Pinot would reject, or a naming setup that cannot work."""


def validate_name_part(part: str, what: str) -> str:
    """Pinot's rule: no ``\\ / : * ? " < > |`` anywhere in a name or a part of one."""
    bad = _INVALID.search(part)
    if bad:
        raise SegmentNameError(
            f"invalid {what} {part!r}: Pinot segment names may not contain {bad.group()!r} "
            f"(forbidden: {INVALID_CHARS})"
        )
    return part


def join(*parts: Any) -> str:
    """Guava ``Joiner.on('_').skipNulls()``."""
    return "_".join(str(p) for p in parts if p is not None)


# ---------------------------------------------------------------------------------------------------------
# Time values, as Pinot prints them into names


def _time_format(text: str, column: str) -> DateTimeFormat:
    """The time column's ``DateTimeFormatSpec``, parsed by ``type_mapping.datetime_formats`` (Pinot's zones)."""
    try:
        return parse_format((text or "").strip())
    except DateTimeFormatError as exc:
        raise SegmentNameError(f"time column {column!r}: {exc}") from None


def java_value_str(value: Any) -> str:
    """``Object.toString()`` of a min/max stat as Pinot would print it in a name."""
    return java_object_string(value)


def column_min_max(table: pa.Table, column: str) -> tuple[Any, Any] | tuple[None, None]:
    """Min and max of a stored-type column (vectorised); ``(None, None)`` for no rows."""
    if table.num_rows == 0:
        return None, None
    result = pc.min_max(table.column(column))
    low, high = result["min"].as_py(), result["max"].as_py()
    if pa.types.is_float32(table.schema.field(column).type):
        low, high = np.float32(low), np.float32(high)
    return low, high


# ---------------------------------------------------------------------------------------------------------
# Generators


@dataclass(frozen=True)
class SegmentNamer:
    """Names for one writer (one Spark partition of one job or micro-batch).

    ``name(sequence_id, min_time, max_time)`` takes the time column's min and max stored values (``None``
    when the table has no time column) and returns the segment name.
    """

    kind: str
    prefix: str  # table name (simple), prefix (normalizedDate) or the fixed name
    postfix: str | None
    uses_time: bool
    date_pattern: str | None = None  # output strftime for normalizedDate with APPEND push type
    time_format: DateTimeFormat | None = None
    time_column: str | None = None
    table: str | None = None  # uploadedRealtime: the raw table name
    creation_ms: int | None = None  # uploadedRealtime: the write's creation time

    def name(self, sequence_id: int, min_time: Any = None, max_time: Any = None, *,
             partition: int | None = None) -> str:
        if self.kind == "fixed":
            return self.prefix
        if self.kind == UPLOADED_REALTIME:
            if partition is None:
                raise SegmentNameError("an uploaded real-time segment name needs the segment's partition id")
            return UPLOADED_SEPARATOR.join([self.prefix, self.table, str(partition), str(self.creation_ms),
                                            join(self.postfix, sequence_id)])
        sequence = sequence_id if sequence_id >= 0 else None
        if self.kind == "simple":
            if self.uses_time and min_time is not None:
                low = validate_name_part(java_value_str(min_time), "minimum time value")
                high = validate_name_part(java_value_str(max_time), "maximum time value")
                return join(self.prefix, low, high, self.postfix, sequence)
            return join(self.prefix, self.postfix, sequence)
        # normalizedDate
        if self.date_pattern is not None:
            if min_time is None or max_time is None:
                raise SegmentNameError(
                    f"normalizedDate names need the min and max of time column {self.time_column!r}"
                )
            return join(self.prefix, self.normalized_date(min_time), self.normalized_date(max_time),
                        self.postfix, sequence)
        return join(self.prefix, self.postfix, sequence)

    def longest_bytes(self) -> int:
        """An upper bound of this namer's names in UTF-8 bytes, known before any row: the time values as the
        longest a LONG prints (20 characters) or a date (13), the partition id and sequence up to 6 digits.
        A STRING time column's values can be longer; those names are checked as they are made."""
        widest = 999_999
        if self.kind == "fixed":
            return len(self.prefix.encode())
        if self.kind == UPLOADED_REALTIME:
            return len(self.name(widest, partition=widest).encode()) + len(str(widest)) + 7  # ms to 13 digits
        time_part = 0
        if self.uses_time:
            time_part = 2 * (1 + (13 if self.kind == "normalizedDate" else 20))
        postfix = self.postfix
        if postfix is not None and postfix.rsplit("_", 1)[-1].isdigit():  # the writer's partition id
            postfix = f"{postfix.rsplit('_', 1)[0]}_{widest}"
        return len(join(self.prefix, postfix, widest).encode()) + time_part

    def normalized_date(self, value: Any) -> str:
        fmt = self.time_format
        assert fmt is not None and self.date_pattern is not None
        if fmt.kind in ("EPOCH", "TIMESTAMP"):
            millis = stored_to_millis(value, fmt.unit)
            moment = _EPOCH + timedelta(milliseconds=millis)
        else:
            if not fmt.pattern:
                raise SegmentNameError(
                    f"time column {self.time_column!r}: SIMPLE_DATE_FORMAT without a pattern cannot be normalised"
                )
            try:
                moment = _EPOCH + timedelta(milliseconds=parse_simple_date(str(value), fmt))
            except DateTimeFormatError as exc:
                raise SegmentNameError(f"time column {self.time_column!r}: {exc}") from exc
        return moment.astimezone(timezone.utc).strftime(self.date_pattern)


# UploadedRealtimeSegmentName: {prefix}__{table}__{partitionId}__{creationTime}__{suffix}. Servers read an
# upsert/dedup segment's partition from it; UploadedRealtimeSegmentNameGenerator writes the creation time as
# epoch millis (the name's constructor takes yyyyMMdd'T'HHmm'Z'; both parse, the part is kept as text).
UPLOADED_REALTIME = "uploadedRealtime"
UPLOADED_SEPARATOR = "__"
DEFAULT_UPLOADED_PREFIX = "pinot_sink"


def uploaded_realtime_namer(table: str, *, postfix: str | None, prefix: str | None,
                            creation_ms: int) -> SegmentNamer:
    """Names of a REALTIME upsert/dedup table's uploaded segments: prefix (``segment.name.prefix``, default
    ``pinot_sink``), raw table, the segment's partition id, creation millis, and as the suffix the writer's
    postfix (write tag, run tag, Spark partition) and sequence, so a rerun of the write finds its segments."""
    name_prefix = (prefix or DEFAULT_UPLOADED_PREFIX).strip()
    for part, what in ((name_prefix, "segment name prefix"), (table, "table name"), (postfix or "", "postfix")):
        validate_name_part(part, what)
        if UPLOADED_SEPARATOR in part or not part.strip() and what != "postfix":
            raise SegmentNameError(f"{what} {part!r}: an uploaded real-time segment name (UploadedRealtimeSegmentName)"
                                   f" joins its parts with '__', so no part may be blank or contain '__'")
    if creation_ms <= 0:
        raise SegmentNameError("Creation time must be greater than 0 (UploadedRealtimeSegmentNameGenerator)")
    return SegmentNamer(UPLOADED_REALTIME, name_prefix, postfix, uses_time=False, table=table,
                        creation_ms=int(creation_ms))


WRITE_TAG_PREFIX = "w"
RUN_TAG_PREFIX = "r"
# A run that replaces what is live (an overwrite: "o"; a window overwrite, overwrite.time-range: "t") is
# marked in its names: two such runs committing at once each replace what was live before the other, and
# only this mark lets one see the other afterwards.
TABLE_OVERWRITE_RUN_TAG_PREFIX = "o"
WINDOW_OVERWRITE_RUN_TAG_PREFIX = "t"
# A compaction's run ("c", pinot_sink.compaction): it replaces the segments it merged, and its names say so
# to every write that meets them (their rows are other writes' rows: pinot_sink.compaction.provenance).
COMPACTION_RUN_TAG_PREFIX = "c"
_RUN_TAG_PREFIXES = {None: RUN_TAG_PREFIX, "table": TABLE_OVERWRITE_RUN_TAG_PREFIX,
                     "window": WINDOW_OVERWRITE_RUN_TAG_PREFIX, "compact": COMPACTION_RUN_TAG_PREFIX}
_REPLACES = {prefix: kind for kind, prefix in _RUN_TAG_PREFIXES.items() if kind}
_WRITE_TAG_HEX = 10  # 40 bits: two write ids of one table colliding is a one-in-a-trillion event


def write_tag(write_id: str) -> str:
    """``w`` + 10 hex digits of the write id's SHA-256: short, valid in any name, equal for equal ids."""
    import hashlib

    return WRITE_TAG_PREFIX + hashlib.sha256(write_id.encode("utf-8")).hexdigest()[:_WRITE_TAG_HEX]


def run_tag(now_ms: int, *, replaces: str | None = None) -> str:
    """``r`` (``o`` for a run that replaces the whole table, ``t`` one that replaces a time window) + the run's
    start in base-36 epoch millis: fresh per run, ordered, 9 characters until 2059."""
    digits, value = [], int(now_ms)
    while True:
        value, rest = divmod(value, 36)
        digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[rest])
        if not value:
            break
    return _RUN_TAG_PREFIXES[replaces] + "".join(reversed(digits))


def run_replaces(run: str) -> str | None:
    """What the run tagged ``run`` replaced besides its own write: "table", "window", "compact" or None."""
    return _REPLACES.get(run[:1])


def segment_replaces(name: str) -> str | None:
    """``run_replaces`` of the run that wrote ``name`` (None for a name this writer did not make)."""
    tags = name_tags(name)
    return run_replaces(tags[1]) if tags is not None else None


def writer_postfix(user_postfix: str | None, *, write: str, run: str, partition_id: int | None) -> str:
    """The postfix a writer passes to the generator: user postfix, write tag, run tag, partition id
    (``partition_id=None``: the part every partition of the run shares)."""
    return join(user_postfix.strip() if user_postfix else None, write, run, partition_id)


def name_tags(name: str) -> tuple[str, str] | None:
    """``(write tag, run tag)`` of a name this writer made (``..._<w>_<r>_<partition>_<sequence>``), else None.

    Read from the fixed tail of the name, so a user postfix or time values before it cannot shift it."""
    parts = name.rsplit("_", 4)
    if len(parts) < 5:
        return None
    _, write, run, partition, sequence = parts
    if not (partition.isdigit() and sequence.isdigit()):
        return None
    if not (write.startswith(WRITE_TAG_PREFIX) and len(write) == 1 + _WRITE_TAG_HEX
            and all(c in "0123456789abcdef" for c in write[1:])):
        return None
    if not (run[:1] in _RUN_TAG_PREFIXES.values() and len(run) > 1 and run[1:].isalnum()):
        return None
    return write, run


def is_segment_of_write(name: str, write: str) -> bool:
    """Whether ``name`` was written by (any run of) the write tagged ``write``."""
    tags = name_tags(name)
    return tags is not None and tags[0] == write


def inferred_kind(schema: Any, table_config: TableConfig | None) -> str:
    """The generator Pinot's ``SegmentGeneratorConfig`` infers when none is configured (the one its
    SegmentProcessorFramework names merged segments with): ``normalizedDate`` for a STRING time column in
    SIMPLE_DATE_FORMAT (whose values, e.g. ``2024-03-01 10:00:00``, may not fit in a name), else ``simple``."""
    time_column = table_config.time_column if table_config is not None else None
    if time_column is None or schema is None or time_column not in schema:
        return "simple"
    spec = schema[time_column]
    try:
        string_date = spec.data_type == "STRING" and parse_format(spec.datetime_format or "").is_string
    except DateTimeFormatError:
        return "simple"
    return "normalizedDate" if string_date else "simple"


def make_namer(
    kind: str,
    table_name: str,
    schema: Any,
    table_config: TableConfig,
    *,
    postfix: str | None = None,
    prefix: str | None = None,
    fixed_name: str | None = None,
    exclude_time: bool = False,
) -> SegmentNamer:
    """Build the generator Pinot's ``IngestionUtils.getSegmentNameGenerator`` would build, and validate it.
    ``exclude_time``: simple names without the time values (``exclude.time.in.segment.name``)."""
    if kind == "fixed":
        if not fixed_name:
            raise SegmentNameError("segment-name.type=fixed needs segment.name")
        return SegmentNamer("fixed", validate_name_part(fixed_name, "segment name"), None, False)
    if postfix is not None:
        validate_name_part(postfix, "segment name postfix")
    time_column = table_config.time_column
    if time_column is not None and schema is not None and time_column not in schema:
        raise SegmentNameError(f"the table's time column {time_column!r} is not in the Pinot schema")
    if kind == "simple":
        validate_name_part(table_name, "table name")
        return SegmentNamer("simple", table_name, postfix, uses_time=time_column is not None and not exclude_time,
                            time_column=time_column)
    if kind != "normalizedDate":
        raise SegmentNameError(f"unknown segment-name.type {kind!r} (simple, normalizedDate, fixed)")
    name_prefix = prefix.strip() if prefix else table_name
    validate_name_part(name_prefix, "segment name prefix")
    push_type, frequency = table_config.push_type, table_config.push_frequency
    if push_type.upper() != "APPEND":
        return SegmentNamer("normalizedDate", name_prefix, postfix, uses_time=False, time_column=time_column)
    if time_column is None:
        raise SegmentNameError(
            "segment-name.type=normalizedDate on an APPEND table needs a time column: set "
            "segmentsConfig.timeColumnName in the table config"
        )
    spec = schema[time_column]  # a legacy timeFieldSpec column has the format its outgoing granularity gives
    time_format = _time_format(spec.datetime_format or "", time_column)
    date_pattern = "%Y-%m-%d-%H" if (frequency or "").lower() == "hourly" else "%Y-%m-%d"
    return SegmentNamer("normalizedDate", name_prefix, postfix, uses_time=True, date_pattern=date_pattern,
                        time_format=time_format, time_column=time_column)
