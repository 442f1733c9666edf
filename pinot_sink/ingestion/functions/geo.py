"""Geospatial scalar functions used at ingestion (pinot-core ``geospatial.transform.function.ScalarFunctions``).

Values are Pinot's ``GeometrySerializer`` bytes (geometry.py, the one home of that format); the text forms
are JTS's (geometry_text.py). ``toSphericalGeography`` / ``toGeometry`` deserialize, set the outer geometry's
SRID only (``GeometryUtils.setGeography``) and serialize again, as Pinot does.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..values import Const, Context, IngestionError, Value, broadcast, null_mask, to_double, to_string, with_nulls
from .binary import to_bytes
from .geometry import GEOGRAPHY_MASK, GEOGRAPHY_SRID, POINT, deserialize, serialize
from .geometry_text import read_geojson, read_wkb, read_wkt, write_geojson, write_wkb, write_wkt
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

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


def _set_srid(data: bytes, geography: bool) -> bytes:
    """``GeometryUtils.setGeography`` / ``setGeometry`` between a deserialize and a serialize: the outer geometry's
    SRID only (a collection's members keep theirs)."""
    geom = deserialize(data)
    geom.srid = GEOGRAPHY_SRID if geography else 0
    return serialize(geom)


@scalar_function("toSphericalGeography", arity=1)
def _to_spherical_geography(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: _set_srid(b, True), pa.binary(), to_bytes(args[0], ctx))


@scalar_function("toGeometry", arity=1)
def _to_geometry(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: _set_srid(b, False), pa.binary(), to_bytes(args[0], ctx))


def _from_text(ctx: Context, args: list[Value], geography: bool) -> pa.Array:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    return per_row(ctx, lambda t: serialize(read_wkt(t, geography)), pa.binary(), text)


@scalar_function("stGeomFromText", "ST_GeomFromText", arity=1)
def _st_geom_from_text(ctx: Context, args: list[Value]) -> Value:
    return _from_text(ctx, args, False)


@scalar_function("stGeogFromText", "ST_GeogFromText", arity=1)
def _st_geog_from_text(ctx: Context, args: list[Value]) -> Value:
    return _from_text(ctx, args, True)


def _from_geojson(ctx: Context, args: list[Value], geography: bool) -> pa.Array:
    text = broadcast(to_string(args[0], ctx), ctx.num_rows, pa.string())
    return per_row(ctx, lambda t: serialize(read_geojson(t, geography)), pa.binary(), text)


@scalar_function("stGeomFromGeoJson", "ST_GeomFromGeoJSON", arity=1)
def _st_geom_from_geojson(ctx: Context, args: list[Value]) -> Value:
    return _from_geojson(ctx, args, False)


@scalar_function("stGeogFromGeoJson", "ST_GeogFromGeoJSON", arity=1)
def _st_geog_from_geojson(ctx: Context, args: list[Value]) -> Value:
    return _from_geojson(ctx, args, True)


@scalar_function("stGeomFromWKB", "ST_GeomFromWKB", arity=1)
def _st_geom_from_wkb(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: serialize(read_wkb(b, False)), pa.binary(), to_bytes(args[0], ctx))


@scalar_function("stGeogFromWKB", "ST_GeogFromWKB", arity=1)
def _st_geog_from_wkb(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: serialize(read_wkb(b, True)), pa.binary(), to_bytes(args[0], ctx))


def _of_bytes(ctx: Context, args: list[Value], write, out_type: pa.DataType) -> pa.Array:
    return per_row(ctx, lambda b: write(deserialize(b)), out_type, to_bytes(args[0], ctx))


@scalar_function("stAsText", "ST_AsText", arity=1)
def _st_as_text(ctx: Context, args: list[Value]) -> Value:
    return _of_bytes(ctx, args, write_wkt, pa.string())


@scalar_function("stAsBinary", "ST_AsBinary", arity=1)
def _st_as_binary(ctx: Context, args: list[Value]) -> Value:
    return _of_bytes(ctx, args, write_wkb, pa.binary())


@scalar_function("stAsGeoJson", "ST_AsGeoJSON", arity=1)
def _st_as_geojson(ctx: Context, args: list[Value]) -> Value:
    return _of_bytes(ctx, args, write_geojson, pa.string())


@scalar_function("stGeometryType", "ST_GeometryType", arity=1)
def _st_geometry_type(ctx: Context, args: list[Value]) -> Value:
    return _of_bytes(ctx, args, lambda g: g.kind, pa.string())
