"""What Pinot's ingestion does to rows before they are stored: the table config's complex-type handling,
expression transforms, filter and time check, vectorised over Arrow (see docs/ingestion.md).

    pipeline = IngestionPipeline.from_configs(schema, table_config, input_schema, unsupported="error")
    result = pipeline.apply(batch, row_offset)   # IngestedBatch(table, filtered_rows, error_rows)
"""
from .expression import ExpressionError, parse_expression
from .pipeline import IngestedBatch, IngestionPipeline, UnsupportedIngestionConfig, unsupported_settings
from .values import IngestionError

__all__ = ["IngestionPipeline", "IngestedBatch", "IngestionError", "ExpressionError", "UnsupportedIngestionConfig",
           "parse_expression", "unsupported_settings"]
