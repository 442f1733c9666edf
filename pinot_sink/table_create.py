"""``table.create=if-missing``: a first write to a new table is one call.

The Pinot schema is derived from the DataFrame by the type mapping (``type_mapping.spark_types``: the same
rules as ``pinot-sink schema``), named as the table; the time column, metrics and indexes come from the
``table.*`` options. On the driver, before the write: when the controller has no such table, the schema
(``POST /schemas``, unless one of that name exists) and then the OFFLINE table (``POST /tables``) are
created. Another writer creating them at the same moment is no error (409: it exists now). Without a
controller (embedded mode) the derived schema and table config are simply what the segments are built
with.
"""
from __future__ import annotations

import logging
from typing import Any

from type_mapping.pinot_schema import SchemaError  # UnsupportedTypeError is one too
from type_mapping.spark_types import spark_schema_to_pinot
from type_mapping.table_config import TIME_COLUMN_KEY

from pinot_sink.controller import ControllerClient
from pinot_sink.controller.errors import ControllerNotFoundError, ControllerRequestError

from .options import OptionError, TableCreateOptions

log = logging.getLogger("pinot_sink")


def derived_schema(table: str, source_schema: Any, create: TableCreateOptions) -> dict:
    """The Pinot schema JSON for the DataFrame's columns (Spark ``StructType`` or Arrow schema)."""
    try:
        schema = spark_schema_to_pinot(source_schema, table, time_column=create.time_column,
                                       metric_columns=create.metric_columns)
    except SchemaError as exc:
        raise OptionError(f"table.create=if-missing for table {table}: {_option_words(str(exc))}") from None
    # A nullable DataFrame column keeps its nulls: Pinot's column-based null handling gives every column not
    # marked notNull (the DataFrame's NOT NULL ones are) a null value vector, in our segments and Pinot's.
    schema.enable_column_based_null_handling = True
    return schema.to_json()


def _option_words(message: str) -> str:
    """The type mapping names its parameters; a user typed options."""
    return message.replace("time_column:", "option 'table.time-column':").replace(
        "metric_columns:", "option 'table.metric-columns':")


def derived_table_config(table: str, schema_json: dict, create: TableCreateOptions) -> dict:
    """An OFFLINE table config: the time column and indexes the options name, everything else Pinot's default."""
    columns = {spec["name"] for key in ("dimensionFieldSpecs", "metricFieldSpecs", "dateTimeFieldSpecs")
               for spec in schema_json.get(key, [])}
    for option, names in (("table.sorted-column", (create.sorted_column,) if create.sorted_column else ()),
                          ("table.inverted-index-columns", create.inverted_index_columns),
                          ("table.range-index-columns", create.range_index_columns),
                          ("table.bloom-filter-columns", create.bloom_filter_columns)):
        unknown = sorted(set(names) - columns)
        if unknown:
            raise OptionError(f"option {option!r}: columns {unknown} are not in the DataFrame "
                              f"(columns: {sorted(columns)})")
    segments_config: dict[str, Any] = {"replication": "1", "segmentPushType": "APPEND"}
    if create.time_column:
        segments_config[TIME_COLUMN_KEY] = create.time_column
    # nullHandlingEnabled: what Pinot before column-based null handling (1.1) reads for the null vectors, and
    # what the table's queries default to; with the schema's flag, Pinot's builder reads notNull per column
    index_config: dict[str, Any] = {"loadMode": "MMAP", "nullHandlingEnabled": True}
    if create.sorted_column:
        index_config["sortedColumn"] = [create.sorted_column]
    for key, names in (("invertedIndexColumns", create.inverted_index_columns),
                       ("rangeIndexColumns", create.range_index_columns),
                       ("bloomFilterColumns", create.bloom_filter_columns)):
        if names:
            index_config[key] = list(names)
    return {"tableName": f"{table}_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": segments_config,
            "tenants": {}, "tableIndexConfig": index_config, "metadata": {}}


def create_if_missing(client: ControllerClient, table: str, source_schema: Any, create: TableCreateOptions) -> bool:
    """Create the schema and OFFLINE table when the controller has no such table; True when this call
    created the table."""
    try:
        client.get_table_config(table)
        return False  # it exists: the write uses the controller's schema and config, as always
    except ControllerNotFoundError:
        pass
    schema_json = derived_schema(table, source_schema, create)
    return create_table(client, table, schema_json, derived_table_config(table, schema_json, create))


def create_table(client: ControllerClient, table: str, schema_json: dict, table_config: dict) -> bool:
    """Create the schema (unless one of that name exists) and the OFFLINE table; True when this call created
    the table, False when another writer did a moment ago. Logged once, with the config's time column."""
    try:
        client.add_schema(schema_json)
        log.info("pinot_sink: table.create=if-missing: created schema %s", table)
    except ControllerRequestError as exc:
        if exc.status != 409:
            raise
        log.info("pinot_sink: table.create=if-missing: schema %s exists already; creating the table over it", table)
    try:
        client.add_table(table_config)
    except ControllerRequestError as exc:
        if exc.status != 409:
            raise
        return False  # another writer created it a moment ago
    segments_config = table_config.get("segmentsConfig") if isinstance(table_config, dict) else None
    time_column = (segments_config or {}).get(TIME_COLUMN_KEY) if isinstance(segments_config, dict) else None
    log.info("pinot_sink: created table %s_OFFLINE on %s (time column %s)", table, client.url,
             time_column or "none")
    return True
