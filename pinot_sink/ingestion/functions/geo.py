"""Geospatial scalar functions used at ingestion (pinot-core ``geospatial.transform.function.ScalarFunctions``).

Values are Pinot's ``GeometrySerializer`` bytes: a type byte (``GeometryType`` id: POINT 0, MULTI_POINT 1,
LINE_STRING 2, MULTI_LINE_STRING 3, POLYGON 4, MULTI_POLYGON 5, GEOMETRY_COLLECTION 6), its high bit set for a
geography (SRID 4326), then the shape; a point is two big-endian doubles x, y (NaN, NaN: the empty point).
``toSphericalGeography`` / ``toGeometry`` set or clear that bit on the outer geometry only, as
``GeometryUtils.setGeography`` changes the outer geometry's SRID only. ``ST_GeomFromText`` /
``ST_GeogFromText`` read POINT WKT; other shapes are an error naming the function (no JTS here).
"""
from __future__ import annotations

import re
import struct

import numpy as np
import pyarrow as pa

from ..values import Const, Context, IngestionError, Value, broadcast, null_mask, to_double, to_string, with_nulls
from .binary import to_bytes
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

POINT = 0
GEOGRAPHY_MASK = 0x80
_POINT_BYTES = 17


def serialize_points(x: np.ndarray, y: np.ndarray, geography: np.ndarray | bool) -> pa.Array:
    """``GeometrySerializer.serialize`` of points, vectorised: 17 bytes a row."""
    n = len(x)
    out = np.empty((n, _POINT_BYTES), dtype=np.uint8)
    out[:, 0] = np.where(geography, POINT | GEOGRAPHY_MASK, POINT)
    out[:, 1:9] = np.ascontiguousarray(x, dtype=">f8").view(np.uint8).reshape(n, 8)
    out[:, 9:17] = np.ascontiguousarray(y, dtype=">f8").view(np.uint8).reshape(n, 8)
    offsets = np.arange(0, (n + 1) * _POINT_BYTES, _POINT_BYTES, dtype=np.int32)
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(out.tobytes())])


def _doubles(ctx: Context, value: Value) -> tuple[np.ndarray, np.ndarray]:
    array = broadcast(to_double(value, ctx), ctx.num_rows, pa.float64())
    return array.fill_null(0.0).to_numpy(zero_copy_only=False), null_mask(array)


def _is_geography(value) -> bool:
    """``org.apache.pinot.spi.utils.BooleanUtils.toBoolean(Object)``."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return int(value) == 1
    if isinstance(value, str):
        return value.lower() == "true" or value == "1"
    raise JavaThrows(f"IllegalArgumentException: Illegal type for boolean conversion: {type(value).__name__}")


@scalar_function("stPoint", "ST_Point", arity=(2, 3), literal_args=(2,))
def _st_point(ctx: Context, args: list[Value]) -> Value:
    (x, x_null), (y, y_null) = _doubles(ctx, args[0]), _doubles(ctx, args[1])
    geography = False
    if len(args) == 3:
        flag = args[2]
        if not isinstance(flag, Const):
            raise IngestionError(f"{ctx.where}: stPoint's isGeography must be a literal")
        try:
            geography = _is_geography(flag.value)
        except JavaThrows as exc:
            raise IngestionError(f"{ctx.where}: {exc}") from None
    return with_nulls(serialize_points(x, y, geography), x_null | y_null)


def _set_geography(data: bytes, geography: bool) -> bytes:
    if not data:
        raise JavaThrows("BufferUnderflowException: no geometry bytes")
    first = (data[0] | GEOGRAPHY_MASK) if geography else (data[0] & ~GEOGRAPHY_MASK & 0xFF)
    return bytes([first]) + data[1:]


@scalar_function("toSphericalGeography", arity=1)
def _to_spherical_geography(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: _set_geography(b, True), pa.binary(), to_bytes(args[0], ctx))


@scalar_function("toGeometry", arity=1)
def _to_geometry(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: _set_geography(b, False), pa.binary(), to_bytes(args[0], ctx))


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_POINT_WKT = re.compile(rf"\s*POINT\s*(?:\(\s*({_NUMBER})\s+({_NUMBER})\s*\)|(EMPTY))\s*", re.IGNORECASE)


def _point_from_text(text: str, geography: bool, name: str) -> bytes:
    match = _POINT_WKT.fullmatch(text)
    if match is None:
        raise JavaThrows(f"{name}: only POINT WKT is read by this writer, got {text[:40]!r}")
    x, y = (float("nan"), float("nan")) if match.group(3) else (float(match.group(1)), float(match.group(2)))
    return bytes([POINT | (GEOGRAPHY_MASK if geography else 0)]) + struct.pack(">dd", x, y)


@scalar_function("stGeomFromText", "ST_GeomFromText", arity=1)
def _st_geom_from_text(ctx: Context, args: list[Value]) -> Value:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    return per_row(ctx, lambda t: _point_from_text(t, False, "ST_GeomFromText"), pa.binary(), text)


@scalar_function("stGeogFromText", "ST_GeogFromText", arity=1)
def _st_geog_from_text(ctx: Context, args: list[Value]) -> Value:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    return per_row(ctx, lambda t: _point_from_text(t, True, "ST_GeogFromText"), pa.binary(), text)
