"""The hand-off between the type mapping and the segment builder: rows in Pinot's stored form.

``PinotColumns`` is what ``type_mapping.convert`` produces and what ``pinot_sink.segment`` consumes:
one Arrow column per Pinot column, already in the stored type, with every null replaced by the
column's default null value, plus a boolean mask per column of the rows that were null (the source of
the null value vector). The values have been through Pinot's ingestion normalisation
(SEGMENT_FORMAT.md section 9): -0.0 -> 0.0, NaN -> null, BIG_DECIMAL trailing zeros stripped, STRING cut
at the first NUL and held to maxLength, empty or null MV arrays -> [default].

The one exception, for the builder's sake: a column named in ``PinotColumns.defaults`` (asked for with
``to_pinot_columns(defer_defaults=True)``) still holds a null (single-value) or an empty list (multi-value)
at each row of its null mask, and ``defaults`` says what those rows stand for. Writing the default into every
such row is most of the conversion's work on sparse columns (Arrow's ``fill_null`` / ``take`` of strings), and
the builder only needs the default's dictId there. Whoever reads values takes them filled, as Pinot stores
them: ``PinotColumns.column`` / ``filled``, both through ``fill_defaults``, this rule's one home.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

import pyarrow.compute as pc

from .pinot_schema import INT_MAX, FieldSpec, PinotSchema

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


def offsets_view(array: pa.Array) -> np.ndarray:
    """The Arrow offsets of a (large) string, binary or list array as they are: a view of its buffer (int32, or
    int64 for the large types), ``len(array) + 1`` of them from the array's slice offset, not rebased."""
    wide = (pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
            or pa.types.is_large_list(array.type))
    return np.frombuffer(array.buffers()[1], dtype=np.int64 if wide else np.int32)[
        array.offset : array.offset + len(array) + 1]


def offsets_and_data(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """int64 offsets (from 0) and the data bytes of a (large) string / binary array, without copying data."""
    if len(array) == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    data_buf = array.buffers()[2]
    # always a copy: rebased in place (one array of the column's size, not two)
    offsets = offsets_view(array).astype(np.int64)
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
    if pa.types.is_dictionary(actual) and not pa.types.is_list(expected):  # dictionary-encoded (the builder's doc)
        return _same_family(actual.value_type, expected)
    widen = {pa.string(): pa.large_string(), pa.binary(): pa.large_binary()}
    if expected in widen and actual == widen[expected]:
        return True
    if pa.types.is_list(expected) and (pa.types.is_list(actual) or pa.types.is_large_list(actual)):
        return _same_family(actual.value_type, expected.value_type)
    # narrower integers (a compaction's held raw LONG values as int32): the builder widens them as it takes them
    return pa.types.is_signed_integer(actual) and pa.types.is_signed_integer(expected) and \
        actual.bit_width < expected.bit_width


def _list_offsets(array: pa.Array) -> np.ndarray:
    """A (large) list array's int64 offsets, from 0."""
    offsets = offsets_view(array).astype(np.int64)
    offsets -= offsets[0]
    return offsets


def fill_list_rows(offsets: np.ndarray, values: pa.Array, mask: np.ndarray, filler: pa.Scalar | None) -> pa.Array:
    """The multi-value column of ``offsets`` (int64, from 0) over ``values`` (no nulls) with ``[filler]`` in
    each row of ``mask`` (rows that have no value): a list array, with int32 offsets where they fit."""
    if mask.any():
        # take from [values..., filler]: kept values in order, the filler in each masked row's slot (the
        # slot where that row's values would start; each slot before it shifts the values by one)
        slots = offsets[:-1][mask] + np.arange(int(mask.sum()), dtype=np.int64)
        is_filler = np.zeros(len(values) + len(slots), dtype=np.bool_)
        is_filler[slots] = True
        source_index = np.cumsum(~is_filler, dtype=np.int64 if len(values) >= 2**31 else np.int32)
        source_index -= 1
        source_index[is_filler] = len(values)
        # built in range just above: no bounds check (a third of the take's instructions on short strings)
        values = pc.take(pa.concat_arrays([values, pa.array([filler], values.type)]), pa.array(source_index),
                         boundscheck=False)
        offsets = offsets + np.cumsum(np.concatenate([[0], mask]), dtype=np.int64)
    if offsets[-1] <= INT_MAX:
        return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)
    return pa.LargeListArray.from_arrays(pa.array(offsets), values)


def fill_defaults(column: pa.Array | pa.ChunkedArray, mask: np.ndarray, default: pa.Scalar) -> pa.Array:
    """A column of ``PinotColumns.defaults`` as Pinot stores it: ``default`` in each null single-value row,
    ``[default]`` in each multi-value row of ``mask`` (which are empty)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        return pc.fill_null(column, default)
    return fill_list_rows(_list_offsets(column), column.flatten(), mask, default)


def _bitmap_bytes(count: int) -> int:
    return (count + 7) // 8


def filled_nbytes(column: pa.Array, mask: np.ndarray, default: pa.Scalar) -> int:
    """``nbytes`` of ``fill_defaults(column, mask, default)`` for a column as ``to_pinot_columns`` makes it,
    without filling it: Arrow counts an array's validity bitmap (``fill_null`` writes none, ``take`` of
    strings always, of numbers when its input has one), its offsets (``length`` of them) and its data
    (tests/segment/test_deferred_defaults.py holds it to Arrow's figure)."""
    rows, fills = len(column), int(np.count_nonzero(mask))
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        values = column.flatten()
        count = len(values) + fills
        list_offsets = 4 if count <= INT_MAX else 8
        return rows * list_offsets + _values_nbytes(values, count, fills, default, bitmap=True)
    return _values_nbytes(column, rows, fills, default, bitmap=False, nulls=mask)


def _values_nbytes(values: pa.Array, count: int, fills: int, default: pa.Scalar, bitmap: bool,
                   nulls: np.ndarray | None = None) -> int:
    """Flat values (``count`` of them once filled) with ``fills`` defaults among them; ``nulls``: the null
    ones, when there are (their slots may span bytes, which the filled values do not keep)."""
    if not (pa.types.is_string(values.type) or pa.types.is_binary(values.type) or pa.types.is_large_string(values.type)
            or pa.types.is_large_binary(values.type)):
        # take of numbers writes a bitmap when its input has one (values filtered of their nulls do)
        bitmap = bitmap and values.buffers()[0] is not None
        return (_bitmap_bytes(count) if bitmap else 0) + count * (values.type.bit_width // 8)
    offsets = offsets_view(values)
    wide = offsets.dtype == np.int64
    data = int(offsets[-1] - offsets[0])
    if nulls is not None and fills:  # the bytes of the valid slots: counted over the fewer of the two kinds
        few_valid = fills * 2 > len(values)
        rows = np.flatnonzero(~nulls if few_valid else nulls)
        spans = int((offsets[rows + 1] - offsets[rows]).sum())
        data = spans if few_valid else data - spans
    return ((_bitmap_bytes(count) if bitmap else 0) + count * (8 if wide else 4) + data
            + fills * len(default.as_buffer()))


def _refuse_null_elements(name: str, column: pa.ChunkedArray) -> None:
    """A list's elements hold no null: the type mapping drops them, as Pinot's ingestion does. (A list's child
    array may hold nulls outside its rows, in a slice: only a screen; the rows' own elements decide.)"""
    at = 0
    for chunk in column.chunks:
        if chunk.values.null_count and (flat := chunk.flatten()).null_count:
            value = int(np.argmax(flat.is_null().to_numpy(zero_copy_only=False)))
            row = at + pc.list_parent_indices(chunk)[value].as_py()
            raise ValueError(f"column {name!r}: row {row} holds a null element in its list; the type mapping "
                             f"drops null elements (as Pinot's ingestion does)")
        at += len(chunk)


@dataclass
class PinotColumns:
    """Rows ready for a segment: stored-type Arrow columns without nulls, and null masks; the columns named
    in ``defaults`` hold their null rows unfilled (the module's docstring)."""

    table: pa.Table
    null_masks: dict[str, np.ndarray] = field(default_factory=dict)
    defaults: dict[str, pa.Scalar] = field(default_factory=dict)
    # What filling the ``defaults`` columns would add to ``table.nbytes``: exact for a part as converted (the
    # buffer cuts segments by a part's bytes, which must not depend on whether its defaults are written),
    # the rows' share of it for a slice or a selection of rows.
    fill_nbytes: int = 0

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    @property
    def nbytes(self) -> int:
        return self.table.nbytes + sum(m.nbytes for m in self.null_masks.values()) + self.fill_nbytes

    def column(self, name: str) -> pa.ChunkedArray:
        """One column's values as Pinot stores them (its defaults filled)."""
        column = self.table.column(name)
        default = self.defaults.get(name)
        if default is None:
            return column
        return pa.chunked_array([fill_defaults(column, self.null_masks[name], default)])

    def filled(self) -> "PinotColumns":
        """These rows with every default written (no ``defaults`` left)."""
        if not self.defaults:
            return self
        arrays = [self.column(name) if name in self.defaults else self.table.column(name)
                  for name in self.table.column_names]
        return PinotColumns(pa.Table.from_arrays(arrays, names=self.table.column_names), dict(self.null_masks))

    def share(self, table: pa.Table, null_masks: dict[str, np.ndarray]) -> "PinotColumns":
        """Some of these rows (``table`` and ``null_masks`` already cut from these), keeping the defaults."""
        fill = round(self.fill_nbytes * table.num_rows / self.num_rows) if self.num_rows else 0
        return PinotColumns(table, null_masks, dict(self.defaults), fill)

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
            mask = self.null_masks.get(spec.name)
            if mask is not None and (mask.dtype != np.bool_ or len(mask) != self.table.num_rows):
                raise ValueError(f"column {spec.name!r}: null mask must be bool with one entry per row")
            default = self.defaults.get(spec.name)
            if default is None:
                if column.null_count:
                    raise ValueError(f"column {spec.name!r}: has nulls; the type mapping must fill defaults")
            elif mask is None:
                raise ValueError(f"column {spec.name!r}: has a default to fill but no null mask saying where")
            if not spec.single_value:
                _refuse_null_elements(spec.name, column)

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
        defaults: dict[str, pa.Scalar] = {}
        for part in parts:  # a part without a column's nulls has nothing to fill in it
            for name, default in part.defaults.items():
                if defaults.setdefault(name, default) != default:
                    raise ValueError(f"column {name!r}: parts to join fill their null rows with different "
                                     f"defaults ({defaults[name]} and {default})")
        return PinotColumns(table, masks, defaults, sum(p.fill_nbytes for p in parts))
