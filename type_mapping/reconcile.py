"""DataFrame schema + Pinot schema -> a write plan: which source column feeds which Pinot column.

Made once on the driver, before any task runs, so that every mismatch is reported up front:

* Names match exactly first. Unless ``case_sensitive``, a source column that matches no Pinot column
  exactly matches the one Pinot column equal to it ignoring case (``str.casefold``); two candidates
  either way are an error (Pinot column names are case-sensitive, so ``Price`` and ``price`` can both exist).
* Two source columns feeding the same Pinot column are an error.
* Source columns unknown to Pinot are an error unless ``ignore_unknown_columns``.
* Pinot columns missing from the source are filled with their default null value (and masked null).
* Every fed pair must be convertible (``compat.check_convertible``): all problems are reported together.

The plan is a frozen dataclass of strings, so it pickles to executors.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .compat import ConversionError, check_convertible, type_family
from .pinot_schema import PinotSchema, SchemaError
from .table_config import TableConfig


class PlanError(SchemaError):
    """The DataFrame and the Pinot schema do not fit together; the message lists every problem."""


@dataclass(frozen=True)
class ColumnFeed:
    """One Pinot column and where its values come from (``source_column`` None: the default null value)."""

    pinot_column: str
    source_column: str | None
    source_type: str | None = None
    conversion: str = "default null value (not in the data)"


@dataclass(frozen=True)
class WritePlan:
    feeds: tuple[ColumnFeed, ...]
    ignored_columns: tuple[str, ...] = ()
    case_sensitive: bool = False
    time_column: str | None = None  # the table's time column (segmentsConfig.timeColumnName), None: none
    # columns whose values change kind on the way, as Pinot's ingestion converts them (a double into a STRING,
    # numeric strings into an INT): "value (string -> LONG)"; the write's summary lists them
    coerced: tuple[str, ...] = ()

    def source_for(self, pinot_column: str) -> str | None:
        for feed in self.feeds:
            if feed.pinot_column == pinot_column:
                return feed.source_column
        raise KeyError(f"Pinot column {pinot_column!r} is not in the write plan")

    @property
    def source_columns(self) -> list[str]:
        """Source columns the writer needs (the rest can be dropped before conversion)."""
        return [f.source_column for f in self.feeds if f.source_column is not None]

    @property
    def missing_columns(self) -> list[str]:
        """Pinot columns filled with their default null value."""
        return [f.pinot_column for f in self.feeds if f.source_column is None]

    def describe(self) -> str:
        lines = []
        for feed in self.feeds:
            if feed.source_column is None:
                lines.append(f"{feed.pinot_column} <- (default null value)")
            else:
                lines.append(f"{feed.pinot_column} <- {feed.source_column}: {feed.conversion}")
        for name in self.ignored_columns:
            lines.append(f"(ignored) {name}")
        return "\n".join(lines)


def _source_fields(source_schema: Any) -> list[tuple[str, pa.DataType | None]]:
    """(name, Arrow type) per source column; None for a Spark type with no Arrow/Pinot mapping, which is
    an error only if the column is to be written (an ignored VARIANT column is fine)."""
    if isinstance(source_schema, pa.Schema):
        return [(f.name, f.type) for f in source_schema]
    from .spark_types import UnsupportedTypeError, spark_type_to_arrow

    fields: list[tuple[str, pa.DataType | None]] = []
    for f in source_schema.fields:
        try:
            fields.append((f.name, spark_type_to_arrow(f.dataType)))
        except UnsupportedTypeError:
            fields.append((f.name, None))
    return fields


def same_names(names: list[str], case_sensitive: bool = False) -> list[tuple[str, str]]:
    """Pairs of source column names a write cannot tell apart (equal, or equal ignoring case unless
    ``case_sensitive``), each with the earlier column of that name; ``pinot-sink schema`` asks it too."""
    pairs: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for name in names:
        key = name if case_sensitive else name.casefold()
        if key in seen:
            pairs.append((seen[key], name))
        seen[key] = name
    return pairs


def plan_write(source_schema: Any, pinot_schema: PinotSchema, *, ignore_unknown_columns: bool = False,
               case_sensitive: bool = False, table_config: TableConfig | None = None) -> WritePlan:
    """Match a DataFrame schema (Arrow schema or Spark ``StructType``) to a Pinot schema; raise ``PlanError``."""
    fields = _source_fields(source_schema)
    problems: list[str] = []
    for first, second in same_names([name for name, _ in fields], case_sensitive):
        problems.append(
            f"source columns {first!r} and {second!r} have the same name"
            + ("" if case_sensitive else " ignoring case (set option 'schema.case-sensitive'=true to tell them apart)")
        )

    pinot_names = pinot_schema.column_names
    folded: dict[str, list[str]] = {}
    for pinot_name in pinot_names:
        folded.setdefault(pinot_name.casefold(), []).append(pinot_name)

    fed_by: dict[str, str] = {}
    source_type: dict[str, pa.DataType] = {}
    unknown: list[str] = []
    for name, arrow_type in fields:
        if name in pinot_schema:
            target = name
        elif not case_sensitive and len(folded.get(name.casefold(), [])) == 1:
            target = folded[name.casefold()][0]
        elif not case_sensitive and len(folded.get(name.casefold(), [])) > 1:
            problems.append(
                f"source column {name!r} matches Pinot columns {folded[name.casefold()]} ignoring case; "
                f"rename it to one of them exactly or set option 'schema.case-sensitive'=true"
            )
            continue
        else:
            unknown.append(name)
            continue
        if target in fed_by:
            problems.append(f"Pinot column {target!r} is fed by both {fed_by[target]!r} and {name!r}")
            continue
        fed_by[target] = name
        source_type[target] = arrow_type

    if unknown and not ignore_unknown_columns:
        problems.append(
            f"source columns {unknown} are not in the Pinot schema {pinot_schema.name!r} "
            f"(Pinot columns: {pinot_names}); drop them, or set option 'schema.unknown-columns'=ignore"
            + ("" if case_sensitive else " (names are matched ignoring case)")
        )

    feeds: list[ColumnFeed] = []
    coerced: list[str] = []
    for spec in pinot_schema:
        source = fed_by.get(spec.name)
        if source is None:
            feeds.append(ColumnFeed(spec.name, None))
            continue
        if source_type[spec.name] is None:
            problems.append(f"column {spec.name!r} (from {source!r}): its Spark type has no Pinot mapping")
            continue
        try:
            conversion = check_convertible(source_type[spec.name], spec, source)
        except (ConversionError, SchemaError, ValueError) as exc:
            problems.append(str(exc))
            continue
        feeds.append(ColumnFeed(spec.name, source, str(source_type[spec.name]), conversion))
        if _coerced(source_type[spec.name], spec.data_type):
            coerced.append(f"{spec.name} ({conversion})")

    time_column = table_config.time_column if table_config is not None else None
    if time_column and time_column not in pinot_schema:
        problems.append(f"the table's time column {time_column!r} is not in the Pinot schema")

    if problems:
        raise PlanError("cannot write this DataFrame to Pinot table schema "
                        f"{pinot_schema.name!r}:\n  - " + "\n  - ".join(problems))
    ignored = tuple(unknown) if ignore_unknown_columns else ()
    return WritePlan(tuple(feeds), ignored, case_sensitive, time_column, tuple(coerced))


# The value kinds each Pinot type takes as they are; any other kind Pinot's ingestion converts (a coercion)
_NATURAL = {"INT": {"int"}, "LONG": {"int"}, "FLOAT": {"int", "float", "decimal"},
            "DOUBLE": {"int", "float", "decimal"}, "BIG_DECIMAL": {"int", "float", "decimal"},
            "BOOLEAN": {"bool"}, "TIMESTAMP": {"timestamp", "date", "int"}, "STRING": {"string"},
            "BYTES": {"binary"}}


def _coerced(source: pa.DataType, pinot_type: str) -> bool:
    family = type_family(source)
    if family == "list":
        family = type_family(source.value_type)
    natural = _NATURAL.get(pinot_type)
    return natural is not None and family not in natural | {"null"}
