"""The ingestion steps of a table config, applied to Arrow batches before the type conversion.

Pinot's order (``RecordTransformerUtils.getTransformers``): complex types (flatten / unnest), then the
expression transforms (``transformConfigs`` and schema ``transformFunction``s, ordered so that a column is
computed after the columns it reads), then the filter (rows where ``filterFunction`` is TRUE are dropped),
then the data type conversion of each transform's result to its Pinot column (``DataTypeTransformer``:
``(long) d`` for a double into LONG, an empty array is null, a one-element array into a single-value
column is its element), then the time value check. A transform only fills a column the input lacks or has
null (``ExpressionTransformer``: an existing value is kept).

``IngestionPipeline`` is built once on the driver (``from_configs`` checks everything, so a bad config
fails before any task runs) and pickled to the executors.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_json import as_str
from type_mapping.pinot_schema import FieldSpec, PinotSchema
from type_mapping.stored import arrow_type_for
from type_mapping.table_config import ComplexTypeSettings, IngestionSettings, TableConfig

from . import java_objects
from .complex_types import MODES, ComplexTypeSpec, as_java_objects
from .evaluate import Expression, reads_the_clock
from .expression import ExpressionError, Literal, is_groovy
from .java_objects import is_object
from .time_spec import TimeSpecConversion
from . import lone_surrogates
from .values import (Context, IngestionError, RowFailure, arrow_java_type, deeper_recursion, null_mask, to_boolean,
                     to_double, to_float, to_int, to_long, to_string, with_nulls)
from type_mapping.errors import PinotSinkError

log = logging.getLogger(__name__)

UNSUPPORTED_MODES = ("error", "skip")
# ingestionConfig keys that do not change the rows of an OFFLINE segment build.
_NEUTRAL_INGESTION_KEYS = {
    "transformConfigs", "filterConfig", "complexTypeConfig", "continueOnError", "rowTimeValueCheck",
    "segmentTimeValueCheck", "batchIngestionConfig", "streamIngestionConfig", "aggregationConfigs",
    "retryOnSegmentBuildPrecheckFailure", "segmentIngestionType", "segmentIngestionFrequency",
    "enrichmentConfigs",  # generateColumn is applied; other enricher types are reported by unsupported_settings
}
# RecordEnricherRegistry's types: generateColumn (CustomFunctionEnricher) is applied; clpEnricher needs CLP's
# log encoder, which this package does not have.
GENERATE_COLUMN = "generateColumn"
# (a Java primitive array as a transform's value: the row fails, java_objects.primitive_array_reason)
_ENRICHER_TYPES = (GENERATE_COLUMN, "clpEnricher")


class UnsupportedIngestionConfig(PinotSinkError, ValueError):
    """A table config setting that changes ingested rows and that this package does not apply."""


@dataclass(frozen=True)
class IngestedBatch:
    table: pa.Table
    filtered_rows: int
    error_rows: int


@dataclass
class _Transform:
    column: str
    expression: Expression | TimeSpecConversion
    spec: FieldSpec | None  # None: not a schema column (computed only because another step reads it)


@dataclass
class _Enricher:
    """One ``generateColumn`` entry: ``putValue(column, evaluate(expression))``, overwriting the field."""

    column: str
    expression: Expression
    spec: FieldSpec | None
    pre_complex: bool  # preComplexTypeTransform: before the complex type transform, else right after it


@dataclass
class IngestionPipeline:
    enrichers: list[_Enricher] = field(default_factory=list)
    transforms: list[_Transform] = field(default_factory=list)
    filter: Expression | None = None
    complex_types: ComplexTypeSpec | None = None
    continue_on_error: bool = False
    time_check: tuple[str, Any] | None = None  # (time column, its DateTimeFormat) with rowTimeValueCheck
    dropped_inputs: tuple[str, ...] = ()
    output_schema: pa.Schema = field(default_factory=lambda: pa.schema([]))
    skipped: tuple[str, ...] = ()  # unsupported settings accepted with unsupported="skip"
    # schema columns that Java objects (a function's Map / List) give through the complex-type step
    object_columns: tuple[str, ...] = ()
    _schema_specs: dict[str, FieldSpec] = field(default_factory=dict)

    @property
    def is_identity(self) -> bool:
        return not (self.enrichers or self.transforms or self.filter or self.complex_types or self.time_check)

    # --- building (driver) -------------------------------------------------------------------------------

    @classmethod
    def from_configs(cls, schema: PinotSchema, table_config: TableConfig, input_schema: pa.Schema,
                     *, unsupported: str = "error") -> "IngestionPipeline":
        if unsupported not in UNSUPPORTED_MODES:
            raise ValueError(f"ingestion.unsupported must be one of {UNSUPPORTED_MODES}, got {unsupported!r}")
        ingestion = table_config.ingestion
        problems = unsupported_settings(schema, ingestion)
        if problems and unsupported == "error":
            raise UnsupportedIngestionConfig(
                "the table config changes ingested rows in ways this package does not apply: "
                + "; ".join(problems)
                + " (set the option ingestion.unsupported=skip to write the rows without them)"
            )
        for problem in problems:
            log.warning("ingestion.unsupported=skip: not applied: %s", problem)

        pipeline = cls(skipped=tuple(problems))
        pipeline.continue_on_error = ingestion.continue_on_error
        if ingestion.complex_type is not None:
            pipeline.complex_types = _complex_type_spec(ingestion.complex_type)

        pipeline.enrichers = _enrichers(ingestion, schema)
        definitions: dict[str, tuple[str, str]] = {}
        for tc in ingestion.transforms:
            column, text = tc.column_name, tc.transform_function
            if not column or not text:
                raise ValueError(f"{tc.key} needs columnName and transformFunction, got "
                                 f"{{'columnName': {column!r}, 'transformFunction': {text!r}}}")
            if column in definitions:
                raise ValueError(f"{tc.key}: more than one transform function on column {column!r}")
            definitions[column] = (text, f"{tc.key}.transformFunction")
        for spec in schema:
            if spec.transform_function and spec.name not in definitions:
                definitions[spec.name] = (spec.transform_function, f"schema column {spec.name!r} transformFunction")
        definitions = {c: d for c, d in definitions.items() if not is_groovy(d[0])}  # reported above

        expressions: dict[str, Expression] = {}
        for column, (text, where) in definitions.items():
            try:
                expressions[column] = Expression(text)
            except ExpressionError as exc:
                raise ValueError(f"{where}: {exc}") from None
        time_spec = schema.time_spec
        if time_spec is not None and time_spec.converts and time_spec.outgoing.name not in expressions:
            expressions[time_spec.outgoing.name] = TimeSpecConversion(time_spec)  # after any transform of it
        for column in _topological_order(expressions):
            pipeline.transforms.append(_Transform(column, expressions[column], schema.fields.get(column)))

        filter_text = ingestion.filter_function
        if filter_text and not is_groovy(filter_text):
            try:
                pipeline.filter = Expression(filter_text)
            except ExpressionError as exc:
                raise ValueError(f"ingestionConfig.filterConfig.filterFunction: {exc}") from None

        time_column = table_config.time_column
        if ingestion.row_time_check and time_column and time_column in schema:
            pipeline.time_check = (time_column, schema[time_column])

        pipeline._plan_columns(schema, input_schema)
        return pipeline

    def _plan_columns(self, schema: PinotSchema, input_schema: pa.Schema) -> None:
        consumed: set[str] = set()
        for t in [*self.enrichers, *self.transforms]:
            consumed.update(t.expression.arguments)
        pre = [e for e in self.enrichers if e.pre_complex]
        pre_columns = {e.column for e in pre}
        if pre:  # what the complex type step sees: the input plus the enriched fields (types from a dry run)
            empty = self._enrich({n: _array(c) for n, c in zip(input_schema.names, input_schema.empty_table()
                                                                .columns)}, pre, Context(0))
            for e in pre:  # a type no row tells (a function's Java object): planned as one
                if pa.types.is_null(empty[e.column].type):
                    empty[e.column] = java_objects.object_array([])
            input_schema = pa.table(empty).schema
        if self.filter is not None:
            consumed.update(self.filter.arguments)
        flattened = input_schema
        if self.complex_types is not None:
            # Map keys vary per row: flatten exactly the columns read after this step (schema, transforms, filter).
            self.complex_types = dataclasses.replace(
                self.complex_types, columns=frozenset(schema.column_names) | frozenset(consumed),
                json_columns=frozenset(s.name for s in schema if s.data_type == "JSON"))
            flattened = self.complex_types.apply(input_schema.empty_table()).schema
        # Every transform runs, a column the schema lacks too (then dropped): Pinot's ExpressionTransformer
        # evaluates each transformConfig on every row, so its failures fail the build (or count the row) there too.
        produced = {t.column for t in self.transforms} | {e.column for e in self.enrichers if not e.pre_complex}
        unknown = sorted(consumed - set(flattened.names) - produced)
        if unknown:  # Pinot reads a missing field as null; say so once, on the driver
            log.warning("ingestion: transforms/filter read columns the input does not have (null in every row): %s",
                        unknown)
        # an enricher's field the schema lacks is dropped as a transform's is (Pinot's record just holds it)
        dropped = [n for n in flattened.names if (n in consumed or n in pre_columns) and n not in schema
                   and n not in produced]
        self.dropped_inputs = tuple(dropped)
        fields = []
        self.object_columns = tuple(f.name for f in flattened if is_object(f.type) and f.name in schema
                                    and f.name not in produced)
        self._schema_specs = {name: schema[name] for name in self.object_columns}
        for f in flattened:
            if f.name in dropped:
                continue
            if (f.name in produced or f.name in pre_columns or f.name in self.object_columns) and f.name in schema:
                # converted to the column's type
                fields.append(_output_field(f.name, schema[f.name]))
            elif f.name not in produced:
                fields.append(f)
        present = {f.name for f in fields}
        for t in [*self.enrichers, *self.transforms]:
            if t.spec is not None and t.column not in present:
                fields.append(_output_field(t.column, t.spec))
                present.add(t.column)
        self.output_schema = pa.schema(fields)

    # --- applying (tasks) ------------------------------------------------------------------------------

    @functools.cached_property
    def reads_the_clock(self) -> bool:
        """Whether a transform or the filter calls ``now()`` / ``ago()`` / ``agoMV()``: then ``apply`` needs the
        write's instant (worked out once, on first use)."""
        expressions = [t.expression for t in [*self.enrichers, *self.transforms]] + [self.filter]
        return any(reads_the_clock(getattr(e, "root", None)) for e in expressions if e is not None)

    def apply(self, table: pa.Table | pa.RecordBatch, row_offset: int = 0, *,
              instant_ms: int | None = None) -> IngestedBatch:
        """``instant_ms``: the write's own instant (epoch millis), what ``now()`` and ``ago()`` give; chosen once
        per write on the driver, so every task and every retry of the write stores the same value."""
        # the batch's own markers for lone surrogates, none of them a character its text or the expressions hold
        taken = lambda: lone_surrogates.pool_characters(table.columns, self._literal_texts)  # noqa: E731
        with deeper_recursion(), lone_surrogates.scope(taken):  # JSON as deep as Jackson reads (functions/json_functions.py)
            return self._apply(table, row_offset, instant_ms)

    @functools.cached_property
    def _literal_texts(self) -> list[str]:
        """The text literals of every expression (a cut text's marker must be none of their characters)."""
        roots = [getattr(e, "root", None) for e in [*(x.expression for x in [*self.enrichers, *self.transforms]),
                                                       self.filter]]
        return [text for root in roots for text in _literal_texts(root)]

    def _apply(self, table: pa.Table | pa.RecordBatch, row_offset: int, instant_ms: int | None) -> IngestedBatch:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        if instant_ms is None and self.reads_the_clock:
            raise IngestionError("now() / ago() read the write's instant, and none was given (pass instant_ms to "
                                 "IngestionPipeline.apply: the data source's WriteRun or the CLI's build start)")
        if self.is_identity:
            return IngestedBatch(table, 0, 0)
        pre = [e for e in self.enrichers if e.pre_complex]
        if pre:
            ctx = Context(table.num_rows, row_offset, self.continue_on_error, instant_ms)
            table = pa.table(self._enrich({n: _array(table.column(n)) for n in table.column_names}, pre, ctx))
        if self.complex_types is not None:
            table = self.complex_types.apply(table)
        n = table.num_rows
        ctx = Context(n, row_offset, self.continue_on_error, instant_ms, defer_failures=True)
        columns: dict[str, pa.Array] = {name: _array(table.column(name)) for name in table.column_names}
        incomplete = np.zeros(n, dtype=np.bool_)
        for e in pre:  # DataTypeTransformer, later in Pinot's chain, on the enriched schema columns
            if e.spec is not None and e.column in columns and e.column not in self.object_columns:
                columns[e.column] = to_column_type(columns[e.column], e.spec, ctx)
        columns = self._enrich(columns, [e for e in self.enrichers if not e.pre_complex], ctx, incomplete)
        for t in self.transforms:
            ctx.where = f"transform of column {t.column!r} ({t.expression.text})"
            ctx.errors = None
            ctx.destination = None if t.spec is None else t.spec.data_type
            existing = columns.get(t.column)
            if existing is not None and existing.null_count < len(existing):
                # Pinot's ExpressionTransformer runs a transform only where the row has no value of its own (and
                # on a list or map it has, swallowing any failure): a row with a value cannot fail here either
                ctx.active = null_mask(existing)
            try:
                value = t.expression.evaluate_array(columns, ctx)
                ctx.destination = None
                if t.spec is not None:
                    if hasattr(t.expression, "primitive_array_value") and t.expression.primitive_array_value(value) \
                            and not _json_single(t.spec):  # (into JSON: Jackson's array, to_column_type)
                        ctx.fail(value.is_valid(), java_objects.primitive_array_reason(t.spec.data_type),
                                 value)  # a mirror of Pinot (ingestion.md)
                    value = to_column_type(value, t.spec, ctx)
            finally:
                ctx.destination = None
                ctx.active = None
            if ctx.errors is not None:
                value = with_nulls(value, ctx.errors)
                incomplete |= ctx.errors
            if existing is not None and existing.null_count < len(existing):
                if t.spec is not None:
                    existing = to_column_type(existing, t.spec, ctx)
                value = pc.if_else(existing.is_valid(), existing, value.cast(existing.type))
            columns[t.column] = value
        for name in (n for n in self.object_columns if n in columns):
            # DataTypeTransformer on the columns Java objects gave (after the transforms, which read them raw)
            ctx.where = f"ingestionConfig.complexTypeConfig column {name!r} (from a function's Map / List)"
            ctx.errors = None
            value = columns[name]
            if isinstance(value.type, (pa.ListType, pa.LargeListType, pa.MapType, pa.StructType)):
                value = as_java_objects(value)  # standardised as the Java Map / List it is
            value = to_column_type(value, self._schema_specs[name], ctx)
            if ctx.errors is not None:
                value = with_nulls(value, ctx.errors)
                incomplete |= ctx.errors
            columns[name] = value
        keep = None
        filtered = 0
        if self.filter is not None:
            ctx.where = f"ingestionConfig.filterConfig.filterFunction ({self.filter.text})"
            ctx.errors = None
            result = self.filter.evaluate_array(columns, ctx)
            if pa.types.is_boolean(result.type):
                drop = (pc.fill_null(result, False) if result.null_count else result).to_numpy(zero_copy_only=False)
            else:
                drop = np.zeros(n, dtype=np.bool_)  # Boolean.TRUE.equals(...) is false for a non-boolean
            if ctx.errors is not None:  # a failing row is kept (continueOnError) and counted
                drop &= ~ctx.errors
                incomplete |= ctx.errors
            filtered = int(drop.sum())
            keep = ~drop
        if self.time_check is not None:
            self._check_time(columns, ctx, incomplete)
        kept = n
        if keep is not None:
            incomplete &= keep  # Pinot counts incomplete rows among those the filter kept
            if filtered:
                kept = n - filtered
                keep_mask = pa.array(keep)
                # column by column: a third faster than Table.filter (pyarrow 26, bench/transforms.py)
                columns = {name: columns[name].filter(keep_mask) for name in self.output_schema.names
                           if name in columns}
        ctx.raise_first_failure()  # every step has run on every row: the row Pinot stops at, if one fails
        if lone_surrogates.current().made:  # after every row's record transformers: the statistics pass
            # of the rows the filter kept (a row it drops is never stored); reported by their input row
            self._fail_on_unpaired_surrogates(columns, ctx, None if kept == n else np.flatnonzero(keep))
        out = pa.Table.from_arrays([_column(columns, f.name, f.type, kept) for f in self.output_schema],
                                   schema=self.output_schema)
        return IngestedBatch(out, filtered, int(incomplete.sum()))

    def _fail_on_unpaired_surrogates(self, columns: dict[str, pa.Array], ctx: Context,
                                     input_rows: np.ndarray | None) -> None:
        """A mirror of Pinot (docs/ingestion.md): a text stored with half of a surrogate pair makes Pinot's
        statistics pass throw (``Utf8.encodedLength``: "Unpaired surrogate at index N"), and the build fails.
        With continueOnError that pass skips the row but the index pass does not: the build then fails there (a
        value of the row missing from a dictionary) or writes a segment whose row count leaves the row out while
        its forward index holds it. No segment Pinot writes is right, so this writer fails the build in both
        modes, at the first such row of any stored column (the pass goes row by row; two columns of one row
        are taken in the schema's order here, in its statistics map's hash order there), whichever step made
        it: a transform, an enricher or a function's Map / List. ``input_rows``: the input row of each kept row
        (None: the filter dropped none)."""
        found = [(cut, name) for name in self.output_schema.names if name in columns
                 for cut in [_first_unpaired_surrogate(columns[name])] if cut is not None]
        if not found:
            return
        (row, index), name = min(found, key=lambda f: f[0][0])
        made_by = {t.column: f"transform of column {t.column!r} ({t.expression.text})" for t in self.transforms}
        made_by = {**{e.column: f"ingestionConfig.enrichmentConfigs generateColumn {e.column!r} "
                                f"({e.expression.text})" for e in self.enrichers}, **made_by}
        where = made_by.get(name, f"column {name!r}")
        row = row if input_rows is None else int(input_rows[row])
        raise RowFailure(f"{where}: row {ctx.row_offset + row}: IllegalArgumentException: Unpaired surrogate at "
                         f"index {index}: a function cut an emoji (or another surrogate pair) in half, and Pinot's "
                         f"builder fails on such a text (with ingestionConfig.continueOnError too, or it writes a "
                         f"corrupt segment); cut the text where a character begins")

    @staticmethod
    def _enrich(columns: dict[str, pa.Array], enrichers: list[_Enricher], ctx: Context,
                incomplete: np.ndarray | None = None) -> dict[str, pa.Array]:
        """``CustomFunctionEnricher.enrich``: each field evaluated in order, replacing what the record held."""
        for e in enrichers:
            ctx.where = f"ingestionConfig.enrichmentConfigs generateColumn {e.column!r} ({e.expression.text})"
            ctx.errors = None
            value = e.expression.evaluate_array(columns, ctx)
            if e.spec is not None and not e.pre_complex:  # DataTypeTransformer, later in Pinot's chain
                value = to_column_type(value, e.spec, ctx)
            if ctx.errors is not None:
                value = with_nulls(value, ctx.errors)
                if incomplete is not None:
                    incomplete |= ctx.errors
            columns[e.column] = value
        return columns

    def _check_time(self, columns: dict[str, pa.Array], ctx: Context, incomplete: np.ndarray) -> None:
        """rowTimeValueCheck: a time value outside 1971..2071 fails the build, or with continueOnError is null."""
        from type_mapping import datetime_formats as dtf

        name, spec = self.time_check
        values = columns.get(name)
        if values is None or values.null_count == len(values):
            return
        ctx.where = f"ingestionConfig.rowTimeValueCheck on the time column {name!r}"
        ctx.errors = None
        millis = _time_millis(values, spec, ctx)
        outside = pc.or_(pc.less(millis, dtf.VALID_MIN_TIME_MS), pc.greater(millis, dtf.VALID_MAX_TIME_MS))
        ctx.fail(outside, "time value is not in the valid range 1971..2071", values)
        if ctx.errors is not None:
            columns[name] = with_nulls(values, ctx.errors)
            incomplete |= ctx.errors


def _time_millis(values: pa.Array, spec: FieldSpec, ctx: Context) -> pa.Array:
    from type_mapping import datetime_formats as dtf

    fmt = dtf.parse_format(spec.datetime_format) if spec.datetime_format else None
    if fmt is None or fmt.kind == "TIMESTAMP" or spec.data_type == "TIMESTAMP":
        return to_long(values, ctx)
    if fmt.is_epoch:  # DateTimeFormatSpec.fromFormatToMillis: TimeUnit.toMillis(value * size)
        number = to_long(values, ctx)
        scaled = pc.fill_null(number, 0).to_numpy(zero_copy_only=False).astype(np.int64) * fmt.size
        mask = number.is_null().to_numpy(zero_copy_only=False) if number.null_count else None
        return pa.array(dtf.stored_to_millis(scaled, fmt.unit), pa.int64(), mask=mask)
    from .functions.date_time_functions import parse_date_time

    return parse_date_time(ctx, to_string(values, ctx), fmt.pattern, fmt.time_zone or "UTC")


def _array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def _first_unpaired_surrogate(value: pa.Array) -> tuple[int, int] | None:
    """(row, UTF-16 index) of the first text of ``value`` holding half of a surrogate pair, or None."""
    lone = lone_surrogates.current()
    rows = lone.rows_holding(value)
    if rows is None:
        return None
    first = int(np.argmax(rows))
    shown = value[first].as_py()
    return first, next(i for t in (shown if isinstance(shown, list) else [shown]) if t is not None
                       for i in [lone.first_index(t)] if i is not None)


def _literal_texts(node) -> list[str]:
    if isinstance(node, Literal):
        values = node.value if isinstance(node.value, (list, tuple)) else [node.value]
        return [v for v in values if isinstance(v, str)]
    return [text for arg in getattr(node, "args", ()) for text in _literal_texts(arg)]


def _column(columns: dict[str, pa.Array], name: str, arrow_type: pa.DataType, n: int) -> pa.Array:
    value = columns.get(name)
    if value is None:
        return pa.nulls(n, arrow_type)
    if value.type != arrow_type:
        value = value.cast(arrow_type)
    return value


def _enrichers(ingestion: IngestionSettings, schema: PinotSchema) -> list[_Enricher]:
    """The ``generateColumn`` entries of ``ingestionConfig.enrichmentConfigs``, in order (other types are
    reported by ``unsupported_settings``)."""
    enrichers = []
    for config in ingestion.enrichers:
        if config.enricher_type != GENERATE_COLUMN:
            continue
        pre = config.pre_complex_type_transform
        for column, text in config.field_to_function:
            where = f"{config.key}.properties.fieldToFunctionMap.{column}"
            try:
                expression = Expression(as_str(text, where))
            except ExpressionError as exc:
                raise ValueError(f"{where}: {exc}") from None
            enrichers.append(_Enricher(column, expression, schema.fields.get(column), pre))
    return enrichers


def _complex_type_spec(config: ComplexTypeSettings) -> ComplexTypeSpec:
    key = "ingestionConfig.complexTypeConfig"
    mode = config.collection_not_unnested_to_json
    if mode not in MODES:
        raise ValueError(f"{key}.collectionNotUnnestedToJson: {mode!r} is not one of {MODES}")
    return ComplexTypeSpec(fields_to_unnest=config.fields_to_unnest, delimiter=config.delimiter,
                           collection_to_json=mode, prefixes_to_rename=config.prefixes_to_rename)


def _topological_order(expressions: dict[str, Expression | TimeSpecConversion]) -> list[str]:
    """Columns ordered so that each is computed after the transform columns it reads; a cycle is an error."""
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(column: str, path: list[str]) -> None:
        if state.get(column) == 2:
            return
        if state.get(column) == 1:
            raise ValueError(f"ingestionConfig.transformConfigs: expression cycle found for column {column!r} "
                             f"({' -> '.join(path + [column])})")
        state[column] = 1
        for arg in expressions[column].arguments:
            if arg in expressions and arg != column:
                visit(arg, path + [column])
        state[column] = 2
        order.append(column)

    for column in expressions:
        visit(column, [])
    return order


# --- DataTypeTransformer: a transform's result into its Pinot column --------------------------------------


def to_column_type(value: pa.Array, spec: FieldSpec, ctx: Context) -> pa.Array:
    """Convert a transform's result to the column's type as ``DataTypeTransformer`` does (Java rules)."""
    if is_object(value.type):  # Java Maps / Lists / objects: converted value by value
        return java_objects.to_column(value, spec, ctx, _convert_values)
    is_list = pa.types.is_list(value.type) or pa.types.is_large_list(value.type)
    if is_list and _json_single(spec):
        return _json_arrays(value)
    if spec.single_value:
        if is_list:
            value = _single_from_list(value, ctx)
        return _convert_values(value, spec, ctx)
    if not is_list:
        value = pa.ListArray.from_arrays(pa.array(np.arange(len(value) + 1, dtype=np.int32)), value,
                                         mask=value.is_null() if value.null_count else None)
    value = _drop_null_items(value)
    lengths = pc.fill_null(pc.list_value_length(value), 0)
    empty = pc.equal(lengths, 0)
    converted = _convert_values(pc.list_flatten(value), spec, ctx)
    offsets = np.concatenate([[0], np.cumsum(lengths.to_numpy(zero_copy_only=False))]).astype(np.int32)
    out = pa.ListArray.from_arrays(pa.array(offsets), converted, mask=empty)  # an empty array is null
    return out.cast(arrow_type_for(spec))


_JAVA_TRIMMED = "".join(chr(c) for c in range(33))  # String.trim: every char up to U+0020


def _text_to_boolean_column(value: pa.Array) -> pa.Array:
    """A text into a BOOLEAN column: PinotDataType.STRING.toBoolean, Pinot's own BooleanUtils (``true`` in any
    case or ``1``, trimmed; ``y`` / ``yes`` are false), a null kept (seed 403-1, round8_text_to_boolean)."""
    text = pc.utf8_lower(pc.utf8_trim(value.cast(pa.string()), characters=_JAVA_TRIMMED))
    return pc.is_in(text, value_set=pa.array(["true", "1"])) if not value.null_count else pc.if_else(
        value.is_null(), pa.scalar(None, pa.bool_()), pc.is_in(text, value_set=pa.array(["true", "1"])))


def _output_field(name: str, spec: FieldSpec) -> pa.Field:
    """A column the pipeline converts to its schema type; a JSON one is marked as holding Pinot's stored text
    (type_mapping.convert.JSON_STORED: the writer does not read it again)."""
    from type_mapping.convert import JSON_STORED
    return pa.field(name, arrow_type_for(spec), metadata={JSON_STORED: b"1"} if spec.data_type == "JSON" else None)


def _json_single(spec: FieldSpec) -> bool:
    return spec.single_value and spec.data_type == "JSON"


def _json_arrays(value: pa.Array) -> pa.Array:
    """A Java array (a multi-value result, primitive or not) into a JSON column: ``DataTypeTransformerUtils``
    does not reduce a value for JSON (no ``standardize``), so Jackson writes the whole array (``[0]``,
    ``["a",""]``, ``[]``; a ``float[]``'s elements by ``Float.toString``), where another single-value column
    takes its one element or fails (round8_json_arrays)."""
    from type_mapping.convert import json_text
    from type_mapping.java_text import java_float_str

    floats = pa.types.is_float32(value.type.value_type)

    def item(v) -> str:
        return java_float_str(v, True) if floats and v is not None and math.isfinite(v) else json_text(v)
    return pa.array([None if v is None else "[" + ",".join(item(x) for x in v) + "]" for v in value.to_pylist()],
                    pa.string())


def _single_from_list(value: pa.Array, ctx: Context) -> pa.Array:
    value = _drop_null_items(value)
    lengths = pc.fill_null(pc.list_value_length(value), 0).to_numpy(zero_copy_only=False)
    ctx.fail(lengths > 1, "cannot read a single value from a multi-value result", value)
    firsts = pc.list_element(pc.if_else(pa.array(lengths == 1), value, pa.nulls(len(value), value.type)), 0) \
        if (lengths == 1).any() else pa.nulls(len(value), value.type.value_type)
    return firsts


def _drop_null_items(value: pa.Array) -> pa.Array:
    flat = pc.list_flatten(value)
    if flat.null_count == 0:
        return value
    keep = flat.is_valid()
    parents = pc.list_parent_indices(value).filter(keep).to_numpy(zero_copy_only=False)
    counts = np.bincount(parents, minlength=len(value))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), flat.filter(keep),
                                    mask=value.is_null() if value.null_count else None)


def _stored_by_type_mapping(value: pa.Array, source: str, spec: FieldSpec, ctx: Context) -> pa.Array:
    """TIMESTAMP, BIG_DECIMAL and BYTES results in their stored form (epoch millis, decimal text, bytes), parsed
    by the type mapping's own rules from what Pinot's conversion would hand it (a long, Java's text of a
    double, hex text), nulls kept."""
    import dataclasses

    from type_mapping.convert import convert_column

    if spec.data_type == "TIMESTAMP" and source in ("INT", "LONG", "FLOAT", "DOUBLE", "BOOLEAN"):
        value = to_long(value, ctx)
    elif spec.data_type == "BIG_DECIMAL" and source in ("FLOAT", "DOUBLE", "BOOLEAN"):
        value = to_string(value, ctx)  # new BigDecimal(Double.toString(d))
    stored, nulls = convert_column(value, dataclasses.replace(spec, single_value=True), source_name=ctx.where)
    return with_nulls(stored, nulls)


def _convert_values(value: pa.Array, spec: FieldSpec, ctx: Context) -> pa.Array:
    data_type = spec.data_type
    if pa.types.is_null(value.type):
        return pa.nulls(len(value), arrow_type_for(spec) if spec.single_value else arrow_type_for(spec).value_type)
    source = arrow_java_type(value.type)
    if data_type == "INT":
        return to_int(value, ctx)
    if data_type == "LONG":
        return to_long(value, ctx)
    if data_type in ("TIMESTAMP", "BIG_DECIMAL", "BYTES"):
        return _stored_by_type_mapping(value, source, spec, ctx)
    if data_type == "FLOAT":
        return to_float(value, ctx)
    if data_type == "DOUBLE":
        return to_double(value, ctx)
    if data_type == "BOOLEAN":
        return _text_to_boolean_column(value) if source == "STRING" else to_boolean(value, ctx)
    if data_type == "JSON":  # (PinotDataType's toJson: a String read as JSON by Jackson, the rest written)
        from type_mapping.convert import json_text
        from type_mapping.json_text import normalise_json_text

        write = normalise_json_text if source == "STRING" else json_text
        return pa.array([None if v is None else write(v) for v in value.to_pylist()], pa.string())
    if data_type == "STRING":
        return to_string(value, ctx)
    raise IngestionError(f"{ctx.where}: no conversion to {data_type}")


# --- never silent: what changes rows and is not applied -----------------------------------------------


def unsupported_settings(schema: PinotSchema, ingestion: IngestionSettings) -> list[str]:
    """Settings of the table config (and schema) that change ingested rows and that this package does not
    apply, each naming its key; empty when everything that matters is applied."""
    problems = [f"ingestionConfig.{key}" for key in ingestion.set_keys if key not in _NEUTRAL_INGESTION_KEYS]
    for config in ingestion.enrichers:
        kind = config.enricher_type
        if kind != GENERATE_COLUMN:
            known = "CLP's log encoder is not in this package" if kind in _ENRICHER_TYPES else \
                f"Pinot registers no such enricher ({', '.join(_ENRICHER_TYPES)})"
            problems.append(f"{config.key} enricherType {kind!r}: {known}")
    for tc in ingestion.transforms:
        if is_groovy(tc.transform_function or ""):
            problems.append(f"{tc.key}.transformFunction (column {tc.column_name!r}): Groovy scripts (disabled in "
                            f"Pinot by default)")
    filter_text = ingestion.filter_function or ""
    if is_groovy(filter_text):
        problems.append("ingestionConfig.filterConfig.filterFunction: Groovy scripts (disabled in Pinot by default)")
    for spec in schema:
        if spec.transform_function and is_groovy(spec.transform_function):
            problems.append(f"schema column {spec.name!r} transformFunction: Groovy scripts")
        if not spec.transform_function and (spec.name.endswith("__KEYS") or spec.name.endswith("__VALUES")):
            problems.append(f"schema column {spec.name!r}: Pinot fills __KEYS/__VALUES columns from an Avro map "
                            f"with a Groovy script")
    return problems
