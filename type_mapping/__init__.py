"""Spark SQL and Flink SQL types -> Pinot field specs and stored values.

See docs/type-mapping.md for the full table.
"""
from .compat import ConversionError
from .convert import ConversionOptions, to_pinot_columns
from .pinot_schema import FieldSpec, PinotSchema, SchemaError, null_vector_columns
from .reconcile import ColumnFeed, PlanError, WritePlan, plan_write
from .stored import PinotColumns, arrow_type_for
from .table_config import TableConfig, TableConfigError

__all__ = [
    "FieldSpec", "PinotSchema", "SchemaError", "PinotColumns", "arrow_type_for", "null_vector_columns",
    "ConversionError", "ConversionOptions", "to_pinot_columns", "ColumnFeed", "PlanError", "WritePlan",
    "plan_write", "TableConfig", "TableConfigError",
]
