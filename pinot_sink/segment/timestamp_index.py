"""The TIMESTAMP index: ``fieldConfigList[].timestampConfig.granularities``.

Pinot's ``TimestampIndexUtils.applyTimestampIndex`` adds, per granularity, a column ``$<col>$<GRANULARITY>`` to
the schema (DATE_TIME, TIMESTAMP, format ``TIMESTAMP``, granularity ``1:DAYS`` / ``7:DAYS`` / ...), an ingestion
transform ``dateTrunc('<GRANULARITY>', "<col>")`` (UTC, weeks from Monday) that fills it, and a range index on
it. The derived columns are then ordinary dictionary-encoded columns with forward and range indexes; here
they are computed from the column's stored epoch millis (a null row stays null: the transform of a null is
null, stored as the default 0).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.pinot_schema import DATE_TIME, TIME, FieldSpec, PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import ColumnIndexSettings, TableIndexSettings

# TimestampIndexUtils.FIELD_SPEC_GRANULARITY_MAP
GRANULARITY_SPECS = {"MILLISECOND": "1:MILLISECONDS", "SECOND": "1:SECONDS", "MINUTE": "1:MINUTES",
                     "HOUR": "1:HOURS", "DAY": "1:DAYS", "WEEK": "7:DAYS", "MONTH": "30:DAYS",
                     "QUARTER": "90:DAYS", "YEAR": "365:DAYS"}


def column_with_granularity(column: str, granularity: str) -> str:
    return f"${column}${granularity}"


def date_trunc_utc(millis: np.ndarray, granularity: str) -> np.ndarray:
    """``dateTrunc('<granularity>', millis)`` in UTC: Joda's roundFloor, weeks starting on Monday."""
    if granularity == "MILLISECOND":
        return millis
    unit = granularity.lower()
    options = {"week_starts_monday": True} if unit == "week" else {}
    floored = pc.floor_temporal(pa.array(millis, pa.timestamp("ms")), unit=unit, **options)
    return floored.cast(pa.int64()).to_numpy(zero_copy_only=False)


def with_timestamp_columns(columns: PinotColumns, schema: PinotSchema,
                           settings: TableIndexSettings) -> tuple[PinotColumns, PinotSchema, TableIndexSettings]:
    """The rows, schema and settings with every TIMESTAMP index's derived columns added (the inputs unchanged)."""
    indexed = [(name, c) for name, c in settings.columns.items() if c.timestamp_granularities]
    if not indexed:
        return columns, schema, settings
    table, masks = columns.table, dict(columns.null_masks)
    derived_specs: list[FieldSpec] = []
    column_settings = dict(settings.columns)
    for name, c in indexed:
        mask = masks.get(name)
        millis = table.column(name).combine_chunks().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        for granularity in c.timestamp_granularities:
            derived = column_with_granularity(name, granularity)
            if derived in schema:
                continue  # the schema already has it (a table whose schema Pinot had extended)
            values = date_trunc_utc(millis, granularity)
            if mask is not None and mask.any():
                values = np.where(mask, 0, values)
                masks[derived] = mask
            table = table.append_column(derived, pa.array(values, pa.int64()))
            derived_specs.append(FieldSpec.from_json({"name": derived, "dataType": "TIMESTAMP", "format": "TIMESTAMP",
                                                      "granularity": GRANULARITY_SPECS[granularity]}, DATE_TIME))
            column_settings[derived] = ColumnIndexSettings(
                derived, range=True, range_version=c.range_version,
                null_vector=schema.enable_column_based_null_handling or c.null_vector)
    # Where Pinot's schema lists them: after the dateTimeFieldSpecs, before a legacy timeFieldSpec's column.
    fields = {name: spec for name, spec in schema.fields.items() if spec.field_type != TIME}
    fields.update((spec.name, spec) for spec in derived_specs)
    fields.update((name, spec) for name, spec in schema.fields.items() if spec.field_type == TIME)
    return (replace(columns, table=table, null_masks=masks), replace(schema, fields=fields),
            replace(settings, columns=column_settings))
