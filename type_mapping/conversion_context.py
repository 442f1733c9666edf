"""What a conversion does with values that do not fit (``ConversionOptions``), and the per-column context
every conversion stage (``type_mapping.convert``, ``type_mapping.sanitise``) raises its errors through: the
column, the first bad row, the source column it came from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .compat import ConversionError
from .pinot_schema import FieldSpec

ON_OVERFLOW = ("error", "null")
ON_FRACTION = ("error", "truncate", "null")
ON_OVERSIZE = ("error", "pinot")
ON_SUB_MILLISECOND = ("floor", "error")
ON_NULL_TIME = ("error", "pinot")


@dataclass(frozen=True)
class ConversionOptions:
    """What to do with values that do not fit; every default is an error naming column and row.

    ``on_overflow``: a number outside the Pinot type's range (LONG into INT, 1e40 into FLOAT, ...):
        ``"error"`` or ``"null"`` (the value becomes null, i.e. the default null value, and is masked).
    ``on_fraction``: a FLOAT/DOUBLE/DECIMAL with a fraction into an INT/LONG column: ``"error"``,
        ``"truncate"`` (toward zero, like Java's narrowing cast that Pinot applies) or ``"null"``.
    ``on_oversize_string``: a STRING longer than ``maxLength`` when the Pinot schema does not set
        ``maxLengthExceedStrategy`` (Pinot's implicit TRIM_LENGTH): ``"error"`` or ``"pinot"`` (apply the
        column's effective strategy). A strategy written in the schema is always honoured.
    ``on_sub_millisecond``: a timestamp with microseconds into a millisecond column: ``"floor"``
        (what ``java.sql.Timestamp.getTime`` gives Pinot) or ``"error"``.
    ``on_null_time``: a null in the table's time column whose default is outside 1971..2071 (where
        Pinot substitutes the ingestion time): ``"error"`` or ``"pinot"`` (the current time).
    """

    on_overflow: str = "error"
    on_fraction: str = "error"
    on_oversize_string: str = "error"
    on_sub_millisecond: str = "floor"
    on_null_time: str = "error"

    def __post_init__(self) -> None:
        for name, allowed in (
            ("on_overflow", ON_OVERFLOW),
            ("on_fraction", ON_FRACTION),
            ("on_oversize_string", ON_OVERSIZE),
            ("on_sub_millisecond", ON_SUB_MILLISECOND),
            ("on_null_time", ON_NULL_TIME),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")


# --- errors and masks ------------------------------------------------------------------------------


@dataclass
class ConversionContext:
    spec: FieldSpec
    options: ConversionOptions
    row_offset: int
    source_name: str
    element_offsets: np.ndarray | None = None  # for MV: where each row's elements start (num_rows + 1)
    json_stored: bool = False  # a JSON column's text already as Pinot stores it (JSON_STORED: not read again)

    def row(self, index: int) -> int:
        if self.element_offsets is not None:  # the last row starting at or before the element
            index = int(np.searchsorted(self.element_offsets, index, side="right")) - 1
        return self.row_offset + index

    def fail(self, bad: np.ndarray | pa.Array, problem: str, values: pa.Array | None = None,
             hint: str = "") -> None:
        """Raise for the first ``True`` in ``bad`` (a bool mask over the converted values)."""
        index = first_true(bad)
        if index is None:
            return
        shown = ""
        if values is not None:
            value = values[index].as_py()
            shown = f" {short_repr(value)}"
        source = f" (from {self.source_name!r})" if self.source_name != self.spec.name else ""
        raise ConversionError(
            f"column {self.spec.name!r}{source}, row {self.row(index)}: value{shown} {problem}"
            + (f"; {hint}" if hint else "")
        )


def short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def first_true(mask: np.ndarray | pa.Array | pa.ChunkedArray) -> int | None:
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    if not mask.any():
        return None
    return int(np.argmax(mask))


def np_mask(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(np.bool_, copy=False)


def null_rows(values: pa.Array) -> np.ndarray:
    """The rows of ``values`` that are null, as numpy bools: its validity bitmap unpacked (Arrow's boolean ->
    numpy conversion goes value by value, ~15 instructions each)."""
    validity = values.buffers()[0]
    if validity is None:  # no bitmap: no null, or (the null type) all null
        return np.full(len(values), values.null_count > 0, dtype=np.bool_)
    valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), count=values.offset + len(values),
                          bitorder="little")[values.offset:]
    return valid == 0


def null_where(values: pa.Array, mask: np.ndarray | pa.Array) -> pa.Array:
    mask = pa.array(mask, pa.bool_()) if isinstance(mask, np.ndarray) else pc.fill_null(mask, False)
    return pc.if_else(mask, pa.scalar(None, values.type), values)


def as_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_string_view(values.type):
        values = values.cast(pa.string())
    if pa.types.is_binary_view(values.type):
        values = values.cast(pa.binary())
    return values
