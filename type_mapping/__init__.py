"""Spark SQL and Flink SQL types -> Pinot field specs and stored values.

See docs/type-mapping.md for the full table.

The names below load on first use (PEP 562): ``type_mapping.errors`` is the root of every error and is
imported by everything, ``pinot-sink --version`` included, so this package must not pull Arrow and the
converters in with it.
"""
from __future__ import annotations

import importlib

_HOMES = {
    "ConversionError": "compat",
    "ConversionOptions": "conversion_context", "to_pinot_columns": "convert",
    "FieldSpec": "pinot_schema", "PinotSchema": "pinot_schema", "SchemaError": "pinot_schema",
    "null_vector_columns": "pinot_schema",
    "ColumnFeed": "reconcile", "PlanError": "reconcile", "WritePlan": "reconcile", "plan_write": "reconcile",
    "PinotColumns": "stored", "arrow_type_for": "stored",
    "TableConfig": "table_config", "TableConfigError": "table_config",
}

__all__ = [
    "FieldSpec", "PinotSchema", "SchemaError", "PinotColumns", "arrow_type_for", "null_vector_columns",
    "ConversionError", "ConversionOptions", "to_pinot_columns", "ColumnFeed", "PlanError", "WritePlan",
    "plan_write", "TableConfig", "TableConfigError",
]


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'type_mapping' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
