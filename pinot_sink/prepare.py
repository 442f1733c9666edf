"""The table's side of a write, prepared once: ``parse_table`` -> ``prepare_table`` -> ``PreparedTable``.

The Pinot schema and table config, wherever they came from, parsed into their models once and checked (column
names a segment can hold, the table config's keys); what becomes of every index the config names; then, for
the rows' schema, the ingestion steps and the write plan; and the segment namer. A Spark write
(``pinot_sink.job.prepare_job``, with what the controller or the options give) and ``pinot-sink build`` (with
its local files) both prepare through here, then both drive ``pinot_sink.partition_writer``: a rule of
preparation lives here once, so the CLI honours what a write honours.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Mapping

import pyarrow as pa

from type_mapping.pinot_schema import PinotSchema, SchemaError, check_writable_column_names
from type_mapping.convert import refuse_missing_time_column
from type_mapping.reconcile import WritePlan, plan_write
from type_mapping.spark_types import spark_struct_to_arrow
from type_mapping.table_config import TableConfig, TableConfigError

from pinot_sink.segment.index_policy import IndexPlan, plan_indexes

from .ingestion import IngestionPipeline
from .naming import SegmentNamer, make_namer, validate_name_part
from .options import OptionError, WriteOptions

log = logging.getLogger("pinot_sink")


def parse_table(schema_json: Mapping[str, Any], table_config_json: Mapping[str, Any],
                table: str | None = None) -> tuple[PinotSchema, TableConfig]:
    """The schema and table config as given (JSON objects) -> their models: the one place either is
    parsed. Errors name ``table`` when the caller knows it."""
    where = f"table {table}: " if table else ""
    schema = PinotSchema.from_json(schema_json)
    try:
        check_writable_column_names(schema)
    except SchemaError as exc:
        raise SchemaError(f"{where}{exc}") from None
    try:
        config = TableConfig.from_json(table_config_json, schema)
    except (TableConfigError, ValueError) as exc:
        raise OptionError(f"{where}table config: {exc}") from None
    named = config.raw_table_name if table_config_json.get("tableName") else None
    if named and "." in named and "." not in (table or ""):
        named = named.rsplit(".", 1)[1]  # a database's table ('analytics.events'), written with option 'database'
    if table and named and named != table:  # another table's config: its indexes and time column, silently
        raise OptionError(f"{where}the table config names table {named!r} (tableName "
                          f"{table_config_json.get('tableName')!r}), not {table}: give table {table}'s config")
    return schema, config


@dataclass(frozen=True)
class PreparedTable:
    """What every writer of the table shares, decided before any row is read; picklable."""

    options: WriteOptions  # as parsed, with ``build.index_plan`` set
    schema: PinotSchema
    table_config: TableConfig
    index_plan: IndexPlan

    @property
    def table(self) -> str:
        return self.options.table_name

    def rules(self, source_schema: Any) -> tuple[IngestionPipeline | None, WritePlan]:
        """For rows of ``source_schema`` (Spark ``StructType`` or Arrow schema): the table config's ingestion
        steps (None when they change nothing), and the plan mapping their output onto the Pinot columns."""
        options = self.options
        arrow_schema = source_schema if isinstance(source_schema, pa.Schema) else spark_struct_to_arrow(source_schema)
        try:
            pipeline = IngestionPipeline.from_configs(self.schema, self.table_config, arrow_schema,
                                                      unsupported=options.ingestion_unsupported)
        except ValueError as exc:
            raise OptionError(f"table {self.table}: {exc} (option 'ingestion.unsupported'=skip writes the rows "
                              f"without it)") from None
        for skipped in pipeline.skipped:
            log.warning("pinot_sink: ingestion.unsupported=skip: not applied: %s", skipped)
        pipeline = None if pipeline.is_identity else pipeline
        # With ingestion steps, the rows the plan maps are the pipeline's output, not the input's.
        plan = plan_write(pipeline.output_schema if pipeline else source_schema, self.schema,
                          ignore_unknown_columns=options.schema.ignore_unknown_columns,
                          case_sensitive=options.schema.case_sensitive, table_config=self.table_config)
        refuse_missing_time_column(self.schema, plan, options.conversion)  # on the driver, not in every task
        return pipeline, plan

    def namer(self, *, postfix: str | None = None, name: str | None = None) -> SegmentNamer:
        return segment_namer(self.options, self.schema, self.table_config, postfix=postfix, name=name)


def segment_namer(options: WriteOptions, schema: PinotSchema, table_config: TableConfig, *,
                  postfix: str | None = None, name: str | None = None) -> SegmentNamer:
    """The generator the options choose (``segment-name.type``, as Pinot's ``IngestionUtils`` builds it), with
    the writer's ``postfix``; ``name`` (``pinot-sink build --name``): the simple generator with that name in
    the table's place and no time values (Pinot's ``exclude.time.in.segment.name``)."""
    if name is not None:
        return make_namer("simple", validate_name_part(name, "segment name"), schema, table_config,
                          exclude_time=True)
    naming = options.naming
    return make_namer(naming.kind, options.table_name, schema, table_config, postfix=postfix,
                      prefix=naming.prefix, fixed_name=naming.fixed_name)


def prepare_table(options: WriteOptions, schema: PinotSchema, table_config: TableConfig) -> PreparedTable:
    """The fate of every index the config names (built, left to the servers, or refused), decided here before
    any row is read: an index on a column the schema lacks, or one neither built nor deferred, fails now."""
    try:
        index_plan = plan_indexes(table_config, schema, options.build.unsupported_indexes)
    except (TableConfigError, ValueError) as exc:
        raise OptionError(f"table {options.table_name}: table config: {exc}") from None
    options = replace(options, build=replace(options.build, index_plan=index_plan))
    return PreparedTable(options, schema, table_config, index_plan)
