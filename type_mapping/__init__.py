"""Spark SQL and Flink SQL types -> Pinot field specs and stored values.

See docs/type-mapping.md for the full table.
"""
from .pinot_schema import FieldSpec, PinotSchema, SchemaError, null_vector_columns
from .stored import PinotColumns, arrow_type_for

__all__ = ["FieldSpec", "PinotSchema", "SchemaError", "PinotColumns", "arrow_type_for", "null_vector_columns"]
