"""Java Maps and Lists between ingestion stages: the values of ``jsonPath``, ``jsonStringToMap`` / ``ToArray`` /
``ToListOrMap``, ``jsonExtractObject``, ``jsonKeyValueArrayToMap`` (and ``jsonPathArray`` of containers).

In Pinot these functions return a ``LinkedHashMap`` / ``ArrayList`` / ``Object[]`` (or a scalar found by a
path) whose shape depends on each row's document, and the value flows as it is into the next stage: another
function (``jsonPath*``, ``jsonFormat``, ``toJsonMapStr``... read the object itself), the complex-type step
(``complexTypeConfig`` flattens the maps and unnests the lists of a pre-complex enricher's result), or a
schema column, whose type decides what is stored (``DataTypeTransformer``). No Arrow type fits every row, so
here such a result is a column of the extension type ``JAVA_OBJECT``: each value the object as a Python value
(dict = Map in its iteration order, list = List / Object[], str, int = Integer / Long / BigInteger, float =
Double, bool, ``decimal.Decimal`` = BigDecimal with its scale), stored as JSON text, kept until the stage that
consumes it:

* functions read it back with ``objects`` (a Java ``String`` inside is a String again: ``jsonPath`` parses it);
  other functions' parameters get it through ``as_argument`` (``FunctionInvoker.convertTypes``);
* ``materialize`` turns it into ordinary Arrow types for the complex-type step (maps, lists, and leaves of
  one type; leaves whose Java types differ between rows stay ``JAVA_OBJECT``);
* ``to_column`` stores it into a schema column as ``DataTypeTransformerUtils.transformValue`` does:
  ``standardize`` (an empty collection is null, one entry is that entry, map keys ignored, nested collections
  reduced the same way and null elements dropped; more than one value into a single-value column fails the
  row), then each value converted from its own Java type; a JSON column takes the object as JSON, a Map with
  its keys sorted (``MapUtils.toString``).
"""
from __future__ import annotations

import dataclasses
import decimal
import json
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from type_mapping.convert import json_text
from type_mapping.errors import PinotSinkError
from type_mapping.java_hash import hash_map_order, string_hash
from type_mapping.java_text import big_decimal_plain_string, java_sort_key


class JavaObjectType(pa.ExtensionType):
    """Java objects (Map / List / scalars) as JSON text; see the module doc."""

    def __init__(self) -> None:
        super().__init__(pa.string(), "pinot_sink.java_object")

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized) -> "JavaObjectType":
        return JAVA_OBJECT

    def __reduce__(self):
        return _java_object_type, ()

    def __hash__(self) -> int:
        return hash(self.extension_name)


def _java_object_type() -> "JavaObjectType":
    return JAVA_OBJECT


JAVA_OBJECT = JavaObjectType()
try:
    pa.register_extension_type(JAVA_OBJECT)
except pa.ArrowKeyError:  # registered by an earlier import of this module (a reload)
    pass


def is_object(t: pa.DataType) -> bool:
    return isinstance(t, JavaObjectType)


class JavaFloat(float):
    """A Java ``Float`` among Java objects (a FLOAT branch of a CASE / coalesce): its own conversions, a text
    ``Float.toString`` ('0.1', not the double's '0.10000000149011612'), are a float32's."""
    __slots__ = ()


def object_array(values: list[Any]) -> pa.Array:
    """A ``JAVA_OBJECT`` column of Python values (None: null)."""
    storage = pa.array([None if v is None else json.dumps(_floats_marked(v), ensure_ascii=False, default=_encode)
                        for v in values], pa.string())
    return pa.ExtensionArray.from_storage(JAVA_OBJECT, storage)


def _floats_marked(value: Any) -> Any:
    """A ``JavaFloat`` (alone or in a list) as its marker: JSON writes any float as a double."""
    if isinstance(value, JavaFloat):
        return {_FLOAT: repr(float(value))}
    if isinstance(value, list) and any(isinstance(v, JavaFloat) for v in value):
        return [_floats_marked(v) for v in value]
    return value


def as_objects(array: pa.Array) -> pa.Array:
    """Any column as Java objects (its values as Python values), e.g. to join the results of a function that
    gave objects for some rows and typed arrays for others."""
    return array if is_object(array.type) else object_array(array.to_pylist())


def objects(array: pa.Array) -> list[Any]:
    """The Python values of a ``JAVA_OBJECT`` column."""
    storage = array.storage if isinstance(array, pa.ExtensionArray) else array
    return [None if text is None else json.loads(text, object_hook=_decode) for text in storage.to_pylist()]


_BIG_DECIMAL = "\u0000BigDecimal"  # a BigDecimal (decimal.Decimal, its scale kept) in the JSON text
_BYTES = "\u0000bytes"  # a byte[] (Python bytes) in the JSON text, as hex
_FLOAT = "\u0000Float"  # a Float (JavaFloat) in the JSON text, as its double's repr


def _encode(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return {_BIG_DECIMAL: str(value)}
    if isinstance(value, (bytes, bytearray)):
        return {_BYTES: bytes(value).hex()}
    raise TypeError(f"a {type(value).__name__} is no Java value here")


def _decode(mapping: dict) -> Any:
    if len(mapping) == 1 and _BIG_DECIMAL in mapping:
        return decimal.Decimal(mapping[_BIG_DECIMAL])
    if len(mapping) == 1 and _BYTES in mapping:
        return bytes.fromhex(mapping[_BYTES])
    if len(mapping) == 1 and _FLOAT in mapping:
        return JavaFloat(mapping[_FLOAT])
    return mapping


def storage_of(array: pa.Array) -> pa.Array:
    return array.storage if isinstance(array, pa.ExtensionArray) else array


def rewrap(array: pa.Array, storage: pa.Array) -> pa.Array:
    """``storage`` (computed from ``array``'s) back in ``array``'s extension type."""
    return pa.ExtensionArray.from_storage(array.type, storage) if isinstance(array, pa.ExtensionArray) else storage


# --- Java's HashMap iteration order (jsonKeyValueArrayToMap returns a HashMap<String, String>) ------------


def hash_map(entries: list[tuple[Any, Any]]) -> dict:
    """``new HashMap<String, ...>()`` after ``put`` of each entry in order, in its iteration order
    (``type_mapping.java_hash.hash_map_order``; a key put again keeps its place and takes the new value, the
    null key hashes to 0)."""
    merged: dict = {}
    for key, value in entries:
        merged[key] = value
    keys = list(merged)
    order, _ = hash_map_order([0 if k is None else string_hash(k) for k in keys])
    return {keys[i]: merged[keys[i]] for i in order}


# --- DataTypeTransformer -------------------------------------------------------------------------------------


class CannotStandardize(PinotSinkError, ValueError):
    """Several values where a single-value column takes one (Pinot's message, kept): the row fails."""


def standardize(value: Any, single_value: bool) -> Any:
    """``DataTypeTransformerUtils.standardize``: None, a scalar, or (multi-value) a tuple of scalars."""
    if isinstance(value, dict):
        return _standardize_collection(list(value.values()), single_value)
    if isinstance(value, (list, tuple)):
        return _standardize_collection(list(value), single_value)
    return value


def _standardize_collection(items: list[Any], single_value: bool) -> Any:
    if not items:
        return None
    if len(items) == 1:
        return standardize(items[0], single_value)
    kept = [v for v in (standardize(item, True) for item in items) if v is not None]
    if not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    if single_value:
        raise CannotStandardize(f"Cannot read single-value from Collection: {_java_list(items)}")
    return tuple(kept)


# A Java primitive array (int[], long[], float[], double[], boolean[]) as a transform's value: Pinot's
# DataTypeTransformer converts it as an Object, a number column by a cast that fails, a STRING column by its
# Object.toString ('[I@1b6d3586', an identity hash no other JVM run repeats): the row fails here in both
_PRIMITIVE_ARRAY = ("ClassCastException: a primitive array (int[], long[], float[], double[], boolean[]) cannot be "
                    "stored into a column by Pinot's DataTypeTransformer")
_PRIMITIVE_ARRAY_TEXT = ("a primitive array (int[], long[], float[], double[], boolean[]) into a STRING column: "
                         "Pinot stores the array's identity text ('[I@1b6d3586'), not its values; refused here")


def primitive_array_reason(data_type: str | None) -> str:
    """Why a row whose value is a Java primitive array fails going into a column of ``data_type``."""
    return _PRIMITIVE_ARRAY_TEXT if data_type == "STRING" else _PRIMITIVE_ARRAY


def bytes_then_other(items: Any) -> bool:
    """An ``Object[]`` whose first element is a ``byte[]`` and which holds another kind of value
    (``array(b, s)``): ``PinotDataType.getMultiValueType`` of the first element is ``BYTES_ARRAY``, whose
    conversions cast every element to ``byte[]`` (ClassCastException), into a column or a parameter alike."""
    return (isinstance(items, (list, tuple)) and bool(items) and isinstance(items[0], bytes)
            and any(v is not None and not isinstance(v, bytes) for v in items))


BYTES_THEN_OTHER = ("ClassCastException: an Object[] whose first element is a byte[] converts every element as "
                    "a byte[] (array() of BYTES and other values)")


def _java_list(items: list[Any]) -> str:
    return json_text(items)[:200]


def sorted_json(value: Any) -> str:
    """Jackson with ``ORDER_MAP_ENTRIES_BY_KEYS`` (``MapUtils.toString``): every map's keys in ``String`` order."""
    return json_text(_sorted_maps(value))


def _sorted_maps(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_maps(value[k]) for k in sorted(value, key=java_sort_key)}
    if isinstance(value, (list, tuple)):
        return [_sorted_maps(v) for v in value]
    return value


def json_for_column(value: Any) -> str:
    """A Java object into a JSON column (``PinotDataType.JSON.convert``): a Map sorted by key, a List or a number
    as Jackson writes it, a String parsed as JSON when it is JSON, else quoted."""
    if isinstance(value, dict):
        return sorted_json(value)
    if isinstance(value, str):
        try:
            return json_text(json.loads(value, parse_float=_decimal_text))
        except ValueError:
            return json_text(value)
    return json_text(value)


def _decimal_text(text: str):  # stringToJsonNodeWithBigDecimal keeps a decimal's digits
    import decimal

    return decimal.Decimal(text)


_LEAF_TYPES = ((bool, pa.bool_()), (int, pa.int64()), (float, pa.float64()), (str, pa.string()))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if -(2**63) <= value < 2**63 else "big"
    if isinstance(value, JavaFloat):
        return "float32"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, decimal.Decimal):  # by scale: an Arrow decimal column holds one
        return f"decimal:{-value.as_tuple().exponent}"
    if isinstance(value, bytes):
        return "bytes"
    return "none" if value is None else "other"


_ARROW = {"bool": pa.bool_(), "int": pa.int64(), "float": pa.float64(), "float32": pa.float32(), "str": pa.string(),
          "big": pa.string(), "bytes": pa.binary()}


Convert = Callable[..., pa.Array]  # pipeline._convert_values(array, spec, ctx)

# A BigDecimal no Arrow decimal holds (a 2-byte scale of bytesToBigDecimal: 1E+32768, 1E-32767) into a number
# column: PinotDataType's BIG_DECIMAL conversions, Java's doubleValue (correctly rounded, as Python's float of a
# Decimal; Infinity beyond a double) / longValue / intValue (the whole part's low 64 / 32 bits)
_JAVA_NUMBER = {"DOUBLE": pa.float64(), "FLOAT": pa.float32(), "LONG": pa.int64(), "INT": pa.int32()}


def _java_number(value: decimal.Decimal, data_type: str) -> float | int:
    if data_type == "DOUBLE":
        return float(value)
    if data_type == "FLOAT":
        return _float_value(value)
    bits = 64 if data_type == "LONG" else 32
    low = int(value) & ((1 << bits) - 1)  # (int() truncates toward zero, as toBigInteger does)
    return low - (1 << bits) if low >> (bits - 1) else low


def _float_value(value: decimal.Decimal) -> float:
    """``BigDecimal.floatValue``: the float nearest the exact value (``Float.parseFloat`` of its text), ties to
    even; through the nearest double, whose rounding to a float errs only where that double is a float midpoint,
    decided there by the exact value."""
    x = float(value)
    with np.errstate(over="ignore"):
        f = np.float32(x)
        other = np.nextafter(f, np.float32(np.inf) if x > float(f) else np.float32(-np.inf), dtype=np.float32)
    if np.isfinite(f) and float(f) != x:
        if np.isfinite(other) and (float(f) + float(other)) / 2 == x:  # a midpoint: the exact value decides
            exact = decimal.Decimal(x)
            if value != exact:
                f = max(f, other) if value > exact else min(f, other)
    return float(f)


def to_column(array: pa.Array, spec, ctx, convert: Convert) -> pa.Array:
    """A ``JAVA_OBJECT`` column stored into the schema column ``spec`` (``DataTypeTransformer``); rows Java
    fails on go through ``ctx.fail`` (the row fails, or with continueOnError is null and counted)."""
    from type_mapping.stored import arrow_type_for

    values = objects(array)
    n = len(values)
    if spec.data_type == "JSON":
        return pa.array([None if v is None else json_for_column(v) for v in values], pa.string())
    standardized: list[Any] = [None] * n
    failed = np.zeros(n, np.bool_)
    reason = ""
    for i, value in enumerate(values):
        try:
            standardized[i] = standardize(value, spec.single_value)
        except CannotStandardize as exc:
            failed[i] = True
            reason = reason or f"{exc} (IllegalStateException)"
    single = dataclasses.replace(spec, single_value=True)
    if spec.single_value:
        converted, bad, why, out_type = _convert_scalars(standardized, single, ctx, convert)
        failed |= bad
        reason = reason or why
        if failed.any():
            ctx.fail(failed, reason or "cannot convert the value (DataTypeTransformer)", array)
        return pa.array([None if failed[i] else converted[i] for i in range(n)], out_type or arrow_type_for(spec))
    mixed = np.array([bytes_then_other(v) for v in standardized], np.bool_)
    if mixed.any():
        failed |= mixed
        reason = reason or BYTES_THEN_OTHER
    rows = [() if v is None or mixed[i] else (v if isinstance(v, tuple) else (v,))
            for i, v in enumerate(standardized)]
    elements = [e for r in rows for e in r]
    parents = np.repeat(np.arange(n), [len(r) for r in rows]) if n else np.zeros(0, np.int64)
    converted, bad, why, out_type = _convert_scalars(elements, single, ctx, convert)
    if bad.any():
        failed[np.unique(parents[bad])] = True
        reason = reason or why
    if failed.any():
        ctx.fail(failed, reason or "cannot convert the value (DataTypeTransformer)", array)
    out, at = [], 0
    for i, r in enumerate(rows):
        items = [c for c in converted[at:at + len(r)] if c is not None]
        at += len(r)
        out.append(None if failed[i] or not items else items)
    target = arrow_type_for(spec)
    return pa.array(out, pa.list_(out_type or target.value_type)).cast(target)


def _convert_scalars(values: list[Any], spec, ctx, convert: Convert
                     ) -> tuple[list[Any], np.ndarray, str, pa.DataType | None]:
    """Each value converted from its own Java type (rows grouped by type, each group converted column-wise);
    also the rows that fail, why, and the Arrow type of the converted values."""
    out: list[Any] = [None] * len(values)
    failed = np.zeros(len(values), np.bool_)
    reason = ""
    out_type = None
    kinds = [_kind(v) for v in values]
    for kind in dict.fromkeys(kinds):
        if kind == "none":
            continue
        index = [i for i, k in enumerate(kinds) if k == kind]
        if kind.startswith("decimal:"):
            if spec.data_type == "STRING":  # BigDecimal.toPlainString
                for i in index:
                    out[i] = big_decimal_plain_string(values[i])
                out_type = out_type or pa.string()
                continue
            scale = int(kind.split(":")[1])
            width = max([scale] + [len(values[i].as_tuple().digits) for i in index])
            if width > 76 and spec.data_type in _JAVA_NUMBER:
                for i in index:
                    out[i] = _java_number(values[i], spec.data_type)
                out_type = out_type or _JAVA_NUMBER[spec.data_type]
                continue
            if width > 76:
                failed[index] = True
                reason = reason or f"a BigDecimal of scale {scale} is beyond Arrow's decimals"
                continue
            arrow_type = pa.decimal128(38, scale) if width <= 38 else pa.decimal256(76, scale)
        elif kind not in _ARROW:
            failed[index] = True
            reason = reason or f"cannot convert a {kind} value to {spec.data_type}"
            continue
        else:
            arrow_type = _ARROW[kind]
        sub = ctx.detached(len(index))
        try:
            group = pa.array([values[i] if kind != "big" else str(values[i]) for i in index], arrow_type)
        except pa.ArrowInvalid as exc:  # a BigDecimal of an exponent no Arrow decimal holds (1E+3941)
            if kind.startswith("decimal:") and spec.data_type in _JAVA_NUMBER:
                for i in index:
                    out[i] = _java_number(values[i], spec.data_type)
                out_type = out_type or _JAVA_NUMBER[spec.data_type]
                continue
            failed[index] = True
            reason = reason or f"a BigDecimal beyond Arrow's decimals ({exc})"
            continue
        try:
            converted = convert(group, spec, sub)
            out_type = out_type or converted.type
            result = converted.to_pylist()
        except Exception as exc:  # noqa: BLE001 - the group's conversion throws in Java on every row
            failed[index] = True
            reason = reason or str(exc)
            continue
        bad = np.zeros(len(index), np.bool_) if sub.errors is None else sub.errors
        for j, i in enumerate(index):
            if bad[j]:
                failed[i] = True
            else:
                out[i] = result[j]
        if bad.any():
            reason = reason or f"cannot convert {values[index[int(np.argmax(bad))]]!r} to {spec.data_type}"
    return out, failed, reason, out_type


# --- FunctionInvoker.convertTypes: an object passed to another function's parameter ------------------------


def java_to_string(value: Any) -> str:
    """``Object.toString`` of a Java value: a Map ``{k=v, ...}``, a List ``[a, b]`` (AbstractMap / AbstractCollection)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_to_string(v) for v in value) + "]"
    return "null" if value is None else json_text(value) if not isinstance(value, str) else value


class _Parameter:
    data_type = "the function's parameter type"


def as_argument(array: pa.Array, ctx, convert: Callable[..., pa.Array], text: bool) -> pa.Array:
    """A ``JAVA_OBJECT`` column passed to a parameter of another function, converted as ``FunctionInvoker``
    converts it (``PinotDataType.convert`` from the argument's type): a String, a number, a Boolean as
    themselves; a Map into a String parameter as ``MapUtils.toString`` (JSON, keys sorted), into any other a
    failure; a List as its first element (``toString()`` of it, or a Number for a number parameter; an empty
    List, a null or non-number first element fails the row). ``convert`` is the values' conversion
    (``to_long``...), ``text`` whether the parameter is a String."""
    values: list[Any] = []
    failed = []
    for value in objects(array):
        bad = False
        if isinstance(value, list):
            first = value[0] if value else None
            if text and value and first is not None:
                value = java_to_string(first)
            elif not text and isinstance(first, (int, float)) and not isinstance(first, bool):
                value = first
            else:
                value, bad = None, True
        elif isinstance(value, dict):
            value, bad = (sorted_json(value), False) if text else (None, True)
        elif text and isinstance(value, decimal.Decimal):
            value = big_decimal_plain_string(value)  # BIG_DECIMAL.toString
        values.append(value)
        failed.append(bad)
    out, wrong, why, out_type = _convert_scalars(values, _Parameter, ctx, lambda a, _spec, sub: convert(a, sub))
    failures = np.array(failed, np.bool_) | wrong
    if failures.any():
        ctx.fail(failures, why or "a Map or List that Pinot cannot convert to the function's parameter "
                 "(ClassCastException / IndexOutOfBoundsException)", array)
    return pa.array([None if failures[i] else v for i, v in enumerate(out)], out_type or pa.null())


# --- the complex-type step ---------------------------------------------------------------------------------


def materialize(array: pa.Array, maps_as_lists: bool = False, maps_only: bool = False) -> pa.Array:
    """A ``JAVA_OBJECT`` column as ordinary Arrow, for the complex-type step: Maps as ``map<string, ...>``
    (a null key dropped, as Pinot's flattening drops it), Lists as ``list<...>``, leaves of one Java type as
    that type; leaves whose types differ between rows (or that are null everywhere) stay ``JAVA_OBJECT``.
    ``maps_as_lists`` (a field to unnest): a Map among Lists becomes a one-element List (Pinot flattens a Map
    there as it is, which is what unnesting one element gives)."""
    values = objects(array)
    if maps_only:  # (flattening a name below this one: only the rows holding a Map have it)
        values = [v if isinstance(v, dict) else None for v in values]
    if maps_as_lists and any(isinstance(v, list) for v in values):
        values = [[v] if isinstance(v, dict) else v for v in values]
    return _build(values)


def _build(values: list[Any]) -> pa.Array:
    kinds = {_kind(v) for v in values} - {"none"}
    mask = np.array([v is None for v in values], np.bool_)
    if kinds == {"map"}:
        offsets, keys, items = [0], [], []
        for v in values:
            for k, item in (v or {}).items():
                if k is not None:
                    keys.append(str(k))
                    items.append(item)
            offsets.append(len(keys))
        child = _build(items)
        return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(keys, pa.string()), child,
                                       mask=pa.array(mask) if mask.any() else None)
    if kinds == {"list"}:
        offsets, items = [0], []
        for v in values:
            items.extend(v or [])
            offsets.append(len(items))
        child = _build(items)
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), child,
                                        mask=pa.array(mask) if mask.any() else None)
    if len(kinds) == 1 and next(iter(kinds)) in ("bool", "int", "float", "str"):
        return pa.array(values, _ARROW[next(iter(kinds))])
    return object_array(values)
