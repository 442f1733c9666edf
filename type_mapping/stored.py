"""The hand-off between the type mapping and the segment builder: rows in Pinot's stored form.

``PinotColumns`` is what ``type_mapping.convert`` produces and what ``pinot_sink.segment`` consumes:
one Arrow column per Pinot column, already in the stored type, with every null replaced by the
column's default null value, plus a boolean mask per column of the rows that were null (the source of
the null value vector). The values have been through Pinot's ingestion normalisation
(SEGMENT_FORMAT.md section 9): -0.0 -> 0.0, NaN -> null, BIG_DECIMAL trailing zeros stripped, STRING cut
at the first NUL and held to maxLength, empty or null MV arrays -> [default].
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .pinot_schema import FieldSpec, PinotSchema

# Stored Pinot type -> the Arrow type the builder accepts (large_* variants are accepted too).
# BIG_DECIMAL travels as the decimal's text (Java BigDecimal.toString of the normalised value), since
# Arrow decimals have one scale per column and Pinot keeps a scale per value.
ARROW_STORED_TYPE: dict[str, pa.DataType] = {
    "INT": pa.int32(),
    "LONG": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "BIG_DECIMAL": pa.string(),
    "STRING": pa.string(),
    "BYTES": pa.binary(),
}


def offsets_and_data(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """int64 offsets (from 0) and the data bytes of a (large) string / binary array, without copying data."""
    offset_type = np.int64 if (pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)) \
        else np.int32
    if len(array) == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    offsets_buf, data_buf = array.buffers()[1], array.buffers()[2]
    offsets = np.frombuffer(offsets_buf, dtype=offset_type)[array.offset : array.offset + len(array) + 1]
    offsets = offsets.astype(np.int64)  # always a copy: rebased in place (one array of the column's size, not two)
    first = int(offsets[0])
    data = np.zeros(0, dtype=np.uint8) if data_buf is None else \
        np.frombuffer(data_buf, dtype=np.uint8)[first : int(offsets[-1])]
    offsets -= first
    return offsets, data


def arrow_type_for(spec: FieldSpec) -> pa.DataType:
    value_type = ARROW_STORED_TYPE[spec.stored_type]
    return value_type if spec.single_value else pa.list_(value_type)


def _same_family(actual: pa.DataType, expected: pa.DataType) -> bool:
    if actual == expected:
        return True
    widen = {pa.string(): pa.large_string(), pa.binary(): pa.large_binary()}
    if expected in widen and actual == widen[expected]:
        return True
    if pa.types.is_list(expected) and (pa.types.is_list(actual) or pa.types.is_large_list(actual)):
        return _same_family(actual.value_type, expected.value_type)
    return False


@dataclass
class PinotColumns:
    """Rows ready for a segment: stored-type Arrow columns without nulls, and null masks."""

    table: pa.Table
    null_masks: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    @property
    def nbytes(self) -> int:
        return self.table.nbytes + sum(m.nbytes for m in self.null_masks.values())

    def validate(self, schema: PinotSchema) -> None:
        """Check the contract; raise ValueError naming the first column that breaks it."""
        missing = [name for name in schema.column_names if name not in self.table.column_names]
        if missing:
            raise ValueError(f"columns {missing} of the Pinot schema are missing from the rows")
        for spec in schema:
            column = self.table.column(spec.name)
            expected = arrow_type_for(spec)
            if not _same_family(column.type, expected):
                raise ValueError(
                    f"column {spec.name!r}: expected stored type {expected} for Pinot "
                    f"{spec.data_type}{'' if spec.single_value else ' (multi-value)'}, got {column.type}"
                )
            if column.null_count:
                raise ValueError(f"column {spec.name!r}: has nulls; the type mapping must fill defaults")
            mask = self.null_masks.get(spec.name)
            if mask is not None and (mask.dtype != np.bool_ or len(mask) != self.table.num_rows):
                raise ValueError(f"column {spec.name!r}: null mask must be bool with one entry per row")

    @staticmethod
    def concat(parts: list["PinotColumns"]) -> "PinotColumns":
        """Join buffered parts into one (the partition buffer calls this when it cuts a segment)."""
        if len(parts) == 1:
            return parts[0]
        table = pa.concat_tables([p.table for p in parts])
        names = {name for p in parts for name in p.null_masks}
        masks = {
            name: np.concatenate(
                [p.null_masks.get(name, np.zeros(p.num_rows, dtype=np.bool_)) for p in parts]
            )
            for name in names
        }
        return PinotColumns(table, masks)
