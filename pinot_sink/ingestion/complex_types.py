"""``ingestionConfig.complexTypeConfig`` (ComplexTypeTransformer) over Arrow tables.

Pinot's readers hand a struct and a map alike to the transformer as a ``Map<String, Object>`` (map keys
stringified by ``BaseRecordExtractor.stringifyMapKey``: ``toString()``, bytes as base64, timestamps as
``Instant.toString()``; a null key is dropped, a repeated key keeps its last value), so both flatten the same:

* Each entry of a struct or map column ``m`` becomes the column ``m<delimiter>key`` (delimiter ``.`` by
  default), recursively for structs and maps inside; the column ``m`` itself is kept (Pinot >= 1.2 keeps the
  map in the record, so a schema column named ``m`` still gets it, e.g. as JSON). A null or empty map gives no
  entries (the columns are null). A key containing the delimiter can name the same column as a nested entry
  (``{"a.b": 1, "a": {"b": 2}}``): the one Pinot puts last wins (``_Flattener.resolve``).
* Each column of ``fieldsToUnnest`` (named after flattening, e.g. ``a.items``; parents before children, as
  Pinot sorts them) that is a list becomes one row per element, the other columns repeated; an element that
  is a struct or map is flattened under the field's name (``items.sku``) and a field that is an input column
  keeps the whole original list (Pinot restores those for the schema and the transforms; a field found inside
  another, ``a.b`` or ``m.list``, is not in its copy); a primitive element is the field's value. A null or
  empty list keeps its row once, the field null.
* Lists not unnested follow ``collectionNotUnnestedToJson``: ``NON_PRIMITIVE`` (default) turns lists whose
  elements are structs, lists or maps into JSON text, ``ALL`` every list, ``NONE`` none.
* ``prefixesToRename`` renames column prefixes last (the first matching prefix).

An Arrow schema is fixed per batch while map keys vary per row, so with ``columns`` (the columns read after
this step: the Pinot schema's and those the transforms and the filter read) a map gives exactly the columns
named there, found by key vectorised, and struct and map columns themselves are kept only when named there:
the other keys would give columns the schema lacks, which Pinot drops, so what reaches the segment is the
same. Without ``columns`` every key present in the batch gives a column (the output schema then depends on
the data).
"""
from __future__ import annotations

import base64
import datetime as _dt
import decimal
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.convert import json_text  # Jackson's compact JSON
from type_mapping.java_text import big_decimal_string, java_float_str

from .java_objects import JAVA_OBJECT, is_object, materialize, object_array, objects

MODES = ("NON_PRIMITIVE", "ALL", "NONE")


@dataclass(frozen=True)
class ComplexTypeSpec:
    fields_to_unnest: tuple[str, ...] = ()
    delimiter: str = "."
    collection_to_json: str = "NON_PRIMITIVE"
    prefixes_to_rename: tuple[tuple[str, str], ...] = field(default=())
    columns: frozenset[str] | None = None  # names after prefixesToRename; None: every key of the batch
    json_columns: frozenset[str] = frozenset()  # the schema's JSON columns (names after prefixesToRename)

    def apply(self, table: pa.Table) -> pa.Table:
        read = self._source_names()
        flattener = _Flattener(self.delimiter, read, self.fields_to_unnest)
        inputs = set(table.column_names)
        from_objects = [f.name for f in table.schema if is_object(f.type)]
        for name in from_objects:  # Java Maps / Lists of a function (an enricher's): their Arrow form for this row set
            index = table.column_names.index(name)
            # a Map where a field to unnest holds Lists in other rows is flattened as it is, as one element would be
            materialized = materialize(_array(table.column(name)), maps_as_lists=name in self.fields_to_unnest)
            table = table.set_column(index, name, materialized)
        table = flattener.flatten(table, [f.name for f in table.schema if _is_complex(f.type)])
        for name in sorted(self.fields_to_unnest):  # Pinot sorts them: foo before foo.bar
            if name in table.column_names and _is_list(table.schema.field(name).type):
                table = flattener.unnest(table, name, restore=name in inputs)
        table = self._lists_to_json(table)
        if self.prefixes_to_rename:
            table = self._renamed(table, flattener.from_keys)
        return self._object_columns(table, from_objects)

    def _object_columns(self, table: pa.Table, from_objects: list[str]) -> pa.Table:
        """The Java object columns kept whole as Java objects again (their column converts them); and the columns
        read later that Java objects can give (their names start with an object column's name and the
        delimiter): present in every batch, null where these rows gave none, ``JAVA_OBJECT`` when planned
        on no rows, so that the planned schema does not depend on the data (the pipeline converts them to
        their schema columns' types, as Pinot's DataTypeTransformer does)."""
        for name in from_objects:  # a Map or List kept whole stays the Java object (its column converts it)
            if name in table.column_names:
                index = table.column_names.index(name)
                table = table.set_column(index, name, as_java_objects(_array(table.column(name))))
        if self.columns is None or not from_objects:
            return table
        prefixes = tuple(name + self.delimiter for name in from_objects)
        for name in sorted(self.columns):
            if name.startswith(prefixes) and name not in table.column_names:
                table = table.append_column(pa.field(name, JAVA_OBJECT), pa.nulls(table.num_rows, JAVA_OBJECT))
        return table

    def _renamed(self, table: pa.Table, from_keys: set[str]) -> pa.Table:
        """prefixesToRename. Pinot renames per record and fails on a name that is empty or already holds a
        value; here several columns can get one name (a read name is looked up under every prefix): they are
        one column, the one not made from map keys giving its type, and two values in a row are that error."""
        groups: dict[str, list[int]] = {}
        for i, name in enumerate(table.column_names):
            renamed = self._rename(name)
            groups.setdefault(name if renamed is None else renamed, []).append(i)
        if "" in groups:
            raise ValueError(f"complexTypeConfig.prefixesToRename: column {table.column_names[groups[''][0]]!r} "
                             f"would be renamed to an empty name")
        arrays = []
        for new, indices in groups.items():
            main = next((i for i in indices if table.column_names[i] not in from_keys), indices[0])
            values = _array(table.column(main))
            for i in indices:
                other = _array(table.column(i))
                if i == main or other.null_count == len(other):
                    continue
                both = pc.and_(other.is_valid(), values.is_valid()).to_numpy(zero_copy_only=False)
                if other.type != values.type or both.any():
                    row = int(np.flatnonzero(both)[0]) if both.any() else int(np.flatnonzero(
                        other.is_valid().to_numpy(zero_copy_only=False))[0])
                    raise ValueError(f"complexTypeConfig.prefixesToRename: row {row}: columns "
                                     f"{table.column_names[main]!r} and {table.column_names[i]!r} are both "
                                     f"renamed to {new!r} (Pinot: name conflict)")
                values = pc.if_else(other.is_valid(), other, values)
            arrays.append(values)
        return pa.table(dict(zip(groups, arrays))) if arrays else table

    def _rename(self, name: str) -> str | None:
        for prefix, replacement in self.prefixes_to_rename:
            if name.startswith(prefix):
                return replacement + name[len(prefix):]
        return None

    def _source_names(self) -> frozenset[str] | None:
        """``columns`` as named before prefixesToRename."""
        if self.columns is None:
            return None
        names = set()
        for name in self.columns:
            if self._rename(name) is None:
                names.add(name)
            for prefix, replacement in self.prefixes_to_rename:
                if name.startswith(replacement):
                    source = prefix + name[len(replacement):]
                    if self._rename(source) == name:
                        names.add(source)
        return frozenset(names)

    def _lists_to_json(self, table: pa.Table) -> pa.Table:
        if self.collection_to_json == "NONE":
            return table
        for i, f in enumerate(table.schema):
            if not _is_list(f.type):
                continue
            if self.collection_to_json == "ALL" or _is_complex(f.type.value_type) or _is_list(f.type.value_type):
                values = table.column(i).to_pylist()
                # NON_PRIMITIVE asks the first element (containPrimitives): an empty list has none, so it stays an
                # empty array, which a STRING column reads as null and a JSON column prints "[]" (seen in Pinot's
                # build); ALL prints it "[]"
                renamed = self._rename(f.name)
                keep_empty = self.collection_to_json != "ALL" and (
                    renamed if renamed is not None else f.name) not in self.json_columns
                text = pa.array([None if v is None or (keep_empty and not v) else json_text(_plain(v, f.type))
                                 for v in values], pa.string())
                table = table.set_column(i, pa.field(f.name, pa.string()), text)
        return table


# --- map keys as Pinot's readers stringify them ------------------------------------------------------------


def java_map_key(value, arrow_type: pa.DataType) -> str:
    """``BaseRecordExtractor.stringifyMapKey`` of the Java value Pinot's reader makes of an Arrow key."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_float_str(value, pa.types.is_float32(arrow_type) or pa.types.is_float16(arrow_type))
    if isinstance(value, decimal.Decimal):
        return big_decimal_string(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, _dt.datetime):  # Instant.toString: seconds always, fraction in groups of three digits
        utc = value.astimezone(_dt.timezone.utc) if value.tzinfo else value
        micros = utc.microsecond
        fraction = "" if not micros else f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
        return utc.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"
    if isinstance(value, _dt.date):
        return value.isoformat()
    raise ValueError(f"complexTypeConfig: a map key of type {arrow_type} has no text form")


def _key_texts(keys: pa.Array) -> pa.Array:
    t = keys.type
    if not (pa.types.is_primitive(t) or pa.types.is_decimal(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t) or pa.types.is_string(t)
            or pa.types.is_large_string(t)):
        raise ValueError(f"complexTypeConfig: a map key of type {t} has no text form")
    if pa.types.is_string(keys.type) or pa.types.is_large_string(keys.type):
        return keys.cast(pa.string())
    if pa.types.is_integer(keys.type) or pa.types.is_boolean(keys.type):
        return keys.cast(pa.string())  # Integer/Long/Boolean.toString
    encoded = pc.dictionary_encode(keys)  # one Python call per distinct key
    texts = [java_map_key(v, keys.type) for v in encoded.dictionary.to_pylist()]
    return pa.array(texts, pa.string()).take(encoded.indices)


class _Entries:
    """A map column's entries, flattened once: row of each entry, key text, value."""

    def __init__(self, array: pa.Array):
        t = array.type
        lists = array.cast(pa.list_(pa.struct([t.key_field, t.item_field])))  # map kernels are few
        flat = pc.list_flatten(lists)
        self.length = len(array)
        self.rows = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
        self.keys = _key_texts(pc.struct_field(flat, [0]))
        self.values = pc.struct_field(flat, [1])
        self._picked: dict[str, tuple[pa.Array, np.ndarray, np.ndarray]] = {}

    def pick(self, key: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
        """The value of ``key`` in each row, where the key is present, and its place among the row's entries
        (a repeated key: the last value at the first place, as a ``LinkedHashMap`` keeps it)."""
        if key not in self._picked:
            self.prefetch([key])
        return self._picked[key]

    def prefetch(self, keys: list[str]) -> None:
        """Pick many keys in one pass over the entries (one hash lookup each, not one comparison per key)."""
        keys = [k for k in dict.fromkeys(keys) if k not in self._picked]
        if not keys:
            return
        which = pc.fill_null(pc.index_in(self.keys, value_set=pa.array(keys, pa.string())), -1)
        which = which.to_numpy(zero_copy_only=False)
        found = np.flatnonzero(which >= 0)  # entries of the keys, in entry order
        key_of = which[found].astype(np.int16 if len(keys) < 2 ** 15 else np.int64)  # int16: a radix sort
        by_key = np.argsort(key_of, kind="stable")  # grouped by key, entry order kept
        bounds = np.searchsorted(key_of[by_key], np.arange(len(keys) + 1))
        for j, key in enumerate(keys):
            entries = found[by_key[bounds[j]:bounds[j + 1]]]
            positions = np.full(self.length, -1, dtype=np.int64)
            places = np.full(self.length, -1, dtype=np.int64)
            if len(entries):
                rows = self.rows[entries]
                change = rows[1:] != rows[:-1]
                positions[rows[np.append(change, True)]] = entries[np.append(change, True)]
                places[rows[np.insert(change, 0, True)]] = entries[np.insert(change, 0, True)]
            present = positions >= 0
            self._picked[key] = (self.values.take(pa.array(positions, mask=~present)), present, places)

    def distinct_keys(self) -> list[str]:
        return pc.unique(self.keys).to_pylist()  # in order of first appearance


class _Flattener:
    def __init__(self, delimiter: str, read: frozenset[str] | None, unnested: tuple[str, ...]):
        self.delimiter = delimiter
        self.read = read  # columns read after this step: struct and map columns kept when named here
        self.wanted = None if read is None else read | set(unnested)  # columns taken from maps
        self.unnested = unnested
        self._entries: dict[int, tuple[pa.Array, _Entries]] = {}
        self.from_keys: set[str] = set()  # the columns made from map keys

    def keeps(self, name: str) -> bool:
        return self.read is None or name in self.read

    def flatten(self, table: pa.Table, names: list[str], keep_self: bool = True) -> pa.Table:
        if not names:
            return table
        out: list[tuple[str, pa.Array]] = []
        for name, column in zip(table.column_names, table.columns):
            if name in names:
                out.extend(self.column(name, _array(column), keep_self))
            else:
                out.append((name, column))
        seen = [n for n, _ in out]
        if len(set(seen)) != len(seen):
            twice = sorted({n for n in seen if seen.count(n) > 1})
            raise ValueError(f"complexTypeConfig: flattening gives the column names {twice} twice")
        return pa.table({n: a for n, a in out}) if out else table.select([])

    def column(self, name: str, array: pa.Array, keep_self: bool = True) -> list[tuple[str, pa.Array]]:
        out = [(name, array)] if keep_self and self.keeps(name) else []
        if pa.types.is_struct(array.type):
            for j in range(array.type.num_fields):
                child = pc.struct_field(array, [j])  # a null struct gives null children
                child_name = f"{name}{self.delimiter}{array.type.field(j).name}"
                if _is_complex(child.type):
                    out.extend(self.column(child_name, child))
                else:
                    out.append((child_name, child))
        elif pa.types.is_map(array.type):
            prefix = name + self.delimiter
            # a name under a field to unnest below this map comes from that field's elements, later
            below = [f + self.delimiter for f in self.unnested if f.startswith(prefix)]
            names = (self._names(array, name) if self.wanted is None else
                     sorted(n for n in self.wanted if n.startswith(prefix) and not any(map(n.startswith, below))))
            self.entries(array).prefetch([n[len(prefix):] for n in names])
            out.extend((n, self.resolve(array, n, n[len(prefix):])) for n in names)
            self.from_keys.update(names)
        return out

    def unnest(self, table: pa.Table, name: str, restore: bool) -> pa.Table:
        original = _array(table.column(name))
        table, rows = _unnest(table, name)
        if not _is_complex(table.schema.field(name).type):
            return table
        index = table.column_names.index(name)
        table = self.flatten(table, [name], keep_self=False)
        if restore and self.read is not None and name in self.read:  # Pinot puts the input's list back
            table = table.add_column(index, name, original.take(pa.array(rows)))
        return table

    # --- map entries by name -------------------------------------------------------------------------

    def entries(self, array: pa.Array) -> _Entries:
        cached = self._entries.get(id(array))
        if cached is None or cached[0] is not array:
            cached = (array, _Entries(array))
            self._entries[id(array)] = cached
        return cached[1]

    def resolve(self, array: pa.Array, name: str, rest: str) -> pa.Array:
        """The column ``name`` given by the entries under ``array``. Several entries can give it (keys holding
        the delimiter: ``a.b`` and ``a`` -> ``b``): Pinot puts them depth first, each map's entries in order
        (its Arrow reader's), so per row the entry reached last in that order wins."""
        found = list(self._paths(array, rest, []))
        if len(found) == 1:
            return found[0][1]
        depth = max(len(path) for path, _, _ in found)
        n = len(array)
        best = np.full((n, depth), -1, dtype=np.int64)
        winner = np.full(n, -1)
        for i, (path, _, present) in enumerate(found):
            place = np.full((n, depth), -1, dtype=np.int64)  # -1 after a path: a map is visited before its entries
            for level, places in enumerate(path):
                place[:, level] = places
            later = np.zeros(n, dtype=np.bool_)
            same = np.ones(n, dtype=np.bool_)
            for level in range(depth):
                later |= same & (place[:, level] > best[:, level])
                same &= place[:, level] == best[:, level]
            wins = present & ((winner < 0) | later)
            best[wins] = place[wins]
            winner[wins] = i
        # The column's type when entries of several types give it: a value's over a struct's or map's, then
        # the deepest's (the planned output schema cannot depend on the rows; without columns it does).
        winners = {found[i][1].type for i in np.unique(winner[winner >= 0])}
        order = sorted(range(len(found)), key=lambda i: (not _is_complex(found[i][1].type), len(found[i][0])))
        main = next((i for i in reversed(order) if found[i][1].type in winners), order[-1]) \
            if self.wanted is None and len(winners) == 1 else order[-1]
        values = found[main][1]
        for i, (_, other, _) in enumerate(found):
            rows = winner == i
            if i == main or not rows.any():
                continue
            if other.type != values.type:
                row = int(np.flatnonzero(rows)[0])
                raise ValueError(f"complexTypeConfig: column {name!r}, row {row}: Pinot puts a {other.type} entry "
                                 f"there, the column is {values.type} (map keys holding the delimiter "
                                 f"{self.delimiter!r})")
            values = pc.if_else(pa.array(rows), other, values)
        return values  # null where no entry gives the name

    def _paths(self, array: pa.Array, rest: str, path: list[np.ndarray]):
        """(path, values, present) for each entry under ``array`` that gives the name ``rest``; the path holds
        the place of each map visited on the way (Pinot's order of puts)."""
        d = self.delimiter
        if pa.types.is_struct(array.type):
            valid = array.is_valid().to_numpy(zero_copy_only=False)
            for j in range(array.type.num_fields):
                child_name = array.type.field(j).name
                if rest == child_name:
                    yield path, pc.struct_field(array, [j]), valid
                elif rest.startswith(child_name + d) and _is_complex(array.type.field(j).type):
                    place = np.full(len(array), j, dtype=np.int64)
                    yield from self._paths(pc.struct_field(array, [j]), rest[len(child_name) + len(d):], path + [place])
        elif pa.types.is_map(array.type):
            entries = self.entries(array)
            values, present, _ = entries.pick(rest)
            yield path, values, present
            if _is_complex(array.type.item_type) or is_object(array.type.item_type):
                at = rest.find(d)
                while at >= 0:
                    inner, _, places = entries.pick(rest[:at])
                    if is_object(inner.type):  # Java objects of several types: the rows holding a Map go deeper
                        inner = materialize(inner, maps_only=True)
                    if _is_complex(inner.type):
                        yield from self._paths(inner, rest[at + len(d):], path + [places])
                    at = rest.find(d, at + 1)

    def _names(self, array: pa.Array, name: str) -> list[str]:
        """Every column the entries under ``array`` give in this batch (no ``columns``)."""
        out: list[str] = []
        if pa.types.is_struct(array.type):
            children = [(array.type.field(j).name, pc.struct_field(array, [j])) for j in range(array.type.num_fields)]
        else:
            entries = self.entries(array)
            children = [(key, entries.pick(key)[0]) for key in entries.distinct_keys()]
        for key, values in children:
            child_name = f"{name}{self.delimiter}{key}"
            out.append(child_name)
            if _is_complex(values.type):
                out.extend(self._names(values, child_name))
        return list(dict.fromkeys(out))


# --- helpers ------------------------------------------------------------------------------------------------


def as_java_objects(array: pa.Array) -> pa.Array:
    """Any column as the Java objects Pinot's record holds for it (maps as Maps with their key texts)."""
    if is_object(array.type):
        return array
    return object_array([_plain(v, array.type) for v in array.to_pylist()])


def _plain(value, arrow_type: pa.DataType):
    """Arrow's Python form of a value as Pinot's reader has it: maps as dicts with Java key texts."""
    if value is None:
        return None
    if is_object(arrow_type):  # a Java object left as it is (its JSON text here)
        return objects(pa.array([value], pa.string()))[0]
    if pa.types.is_map(arrow_type):
        return {java_map_key(k, arrow_type.key_type): _plain(v, arrow_type.item_type) for k, v in value}
    if _is_list(arrow_type):
        return [_plain(v, arrow_type.value_type) for v in value]
    if pa.types.is_struct(arrow_type):
        return {f.name: _plain(value.get(f.name), f.type) for f in arrow_type}
    return value


def _is_list(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _is_complex(t: pa.DataType) -> bool:
    return pa.types.is_struct(t) or pa.types.is_map(t)


def _array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _unnest(table: pa.Table, name: str) -> tuple[pa.Table, np.ndarray]:
    """One row per element of the list column ``name`` (a null or empty list: its row once, the field null);
    also returns the source row of each output row."""
    column = _array(table.column(name))
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
    if not others.num_columns:  # a table of no columns has no rows to repeat
        return pa.table({name: elements}), rows
    index = table.column_names.index(name)
    return others.add_column(min(index, others.num_columns), pa.field(name, elements.type), elements), rows
