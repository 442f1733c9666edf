"""``ingestionConfig.complexTypeConfig`` (ComplexTypeTransformer) over Arrow tables.

* Struct columns are flattened recursively into ``parent<delimiter>child`` columns (delimiter ``.`` by
  default) and the struct column itself is dropped.
* Each column of ``fieldsToUnnest`` (named after flattening, e.g. ``a.items``) that is a list becomes one row
  per element, the other columns repeated; an element that is a struct is flattened under the field's name
  (``items.sku``). A null or empty list keeps its row once, the field null (Pinot keeps the record with the
  empty collection, which the data type step turns into null).
* Lists not unnested follow ``collectionNotUnnestedToJson``: ``NON_PRIMITIVE`` (default) turns lists whose
  elements are structs, lists or maps into JSON text, ``ALL`` every list, ``NONE`` none.

Arrow map columns have data-dependent keys and no fixed flattened schema: they are left as they are (the
type mapping writes them as JSON); ``prefixesToRename`` renames flattened column prefixes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.convert import json_text  # Jackson's compact JSON

MODES = ("NON_PRIMITIVE", "ALL", "NONE")


@dataclass(frozen=True)
class ComplexTypeSpec:
    fields_to_unnest: tuple[str, ...] = ()
    delimiter: str = "."
    collection_to_json: str = "NON_PRIMITIVE"
    prefixes_to_rename: tuple[tuple[str, str], ...] = field(default=())

    def apply(self, table: pa.Table) -> pa.Table:
        table = _flatten(table, self.delimiter)
        for name in self.fields_to_unnest:
            if name in table.column_names and _is_list(table.schema.field(name).type):
                table = _flatten(_unnest(table, name), self.delimiter)
        table = self._lists_to_json(table)
        if self.prefixes_to_rename:
            table = table.rename_columns([self._rename(n) for n in table.column_names])
        return table

    def _rename(self, name: str) -> str:
        for prefix, replacement in self.prefixes_to_rename:
            if name.startswith(prefix):
                return replacement + name[len(prefix):]
        return name

    def _lists_to_json(self, table: pa.Table) -> pa.Table:
        if self.collection_to_json == "NONE":
            return table
        for i, f in enumerate(table.schema):
            if not _is_list(f.type):
                continue
            element = f.type.value_type
            non_primitive = pa.types.is_struct(element) or pa.types.is_map(element) or _is_list(element)
            if self.collection_to_json == "ALL" or non_primitive:
                values = table.column(i).to_pylist()
                text = pa.array([None if v is None else json_text(_plain(v)) for v in values], pa.string())
                table = table.set_column(i, pa.field(f.name, pa.string()), text)
        return table


def _plain(value):
    """Arrow's Python form of maps (lists of pairs) as dicts, recursively."""
    if isinstance(value, list):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return {k: _plain(v) for k, v in value}
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _flatten(table: pa.Table, delimiter: str) -> pa.Table:
    while any(pa.types.is_struct(f.type) for f in table.schema):
        names, arrays = [], []
        for name, column in zip(table.column_names, table.columns):
            if pa.types.is_struct(column.type):
                column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
                for j in range(column.type.num_fields):
                    child = column.type.field(j)
                    names.append(f"{name}{delimiter}{child.name}")
                    arrays.append(pc.struct_field(column, [j]))  # a null struct gives null children
            else:
                names.append(name)
                arrays.append(column)
        table = pa.table(dict(zip(names, arrays))) if len(set(names)) == len(names) else _duplicate(names)
    return table


def _duplicate(names: list[str]) -> pa.Table:
    seen = {n for n in names if names.count(n) > 1}
    raise ValueError(f"complexTypeConfig: flattening gives the column names {sorted(seen)} twice")


def _unnest(table: pa.Table, name: str) -> pa.Table:
    column = table.column(name).combine_chunks()
    lengths = pc.fill_null(pc.list_value_length(column), 0).to_numpy(zero_copy_only=False)
    repeats = np.maximum(lengths, 1)  # a null or empty list keeps its row once
    rows = np.repeat(np.arange(len(column)), repeats)
    others = table.drop_columns([name]).take(pa.array(rows))
    flat = pc.list_flatten(column)
    positions = np.full(len(rows), -1, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(lengths) else np.array([], np.int64)
    out_starts = np.concatenate([[0], np.cumsum(repeats)[:-1]]) if len(repeats) else np.array([], np.int64)
    has = lengths > 0
    if has.any():
        within = np.arange(len(rows)) - np.repeat(out_starts, repeats)
        source = np.repeat(starts, repeats) + within
        positions = np.where(np.repeat(has, repeats), source, -1)
    indices = pa.array(positions, pa.int64(), mask=positions < 0)
    elements = flat.take(indices)
    index = table.column_names.index(name)
    return others.add_column(min(index, others.num_columns), pa.field(name, elements.type), elements)
