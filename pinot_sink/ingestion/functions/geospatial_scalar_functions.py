"""Geospatial scalar functions used at ingestion (pinot-core ``geospatial.transform.function.ScalarFunctions``).

Values are Pinot's ``GeometrySerializer`` bytes (geometry.py, the one home of that format); the text forms
are JTS's (javalib/jts/io.py). ``toSphericalGeography`` / ``toGeometry`` deserialize, set the outer geometry's
SRID only (``GeometryUtils.setGeography``) and serialize again, as Pinot does.
"""
from __future__ import annotations

import ctypes
import math
import struct
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from javalib.exceptions import JavaException
from javalib.fdlibm import fdlibm_atan2
from javalib.hotspot_math import hotspot_cos, hotspot_sin
from javalib.jts import predicates as relate
from javalib.jts.io import read_geojson, read_wkb, read_wkt, write_geojson, write_wkb, write_wkt

from ..values import (broadcast, Const, Context, IngestionError, null_mask, to_double, to_int, to_long, to_string,
                      Value, with_nulls)
from .geometry import deserialize, GEOGRAPHY_MASK, GEOGRAPHY_SRID, Geom, POINT, serialize
from .registry import scalar_function
from .rowwise import JavaThrows, per_row
from .string_functions_bytes import to_bytes

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
    if len(data) == _POINT_BYTES and data[0] & 0x7F == POINT:
        x, y = struct.unpack(">dd", data[1:])
        if x == x and y == y:  # a non-empty point: the round trip only changes the type byte
            return bytes([(POINT | GEOGRAPHY_MASK) if geography else POINT]) + data[1:]
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


_EARTH_RADIUS_M = 6371.01 * 1000.0  # GeometryUtils.EARTH_RADIUS_M


def _spherical_arguments(a: Geom, b: Geom) -> tuple[float, float, float]:
    """``StDistanceFunction.sphericalDistance``'s checks (points only, degrees in range) and its radians: the
    latitudes and the longitudes' difference."""
    for g, side in ((a, "left"), (b, "right")):
        if g.kind != "Point":
            raise JavaThrows(f"IllegalArgumentException: The {side} argument must be a point")
    for g in (a, b):
        if g.parts is None:
            raise JavaThrows("IllegalStateException: getX called on empty Point")
    (lon1, lat1), (lon2, lat2) = a.parts, b.parts
    for lat in (lat1, lat2):
        if not -90.0 <= lat <= 90.0:
            raise JavaThrows("IllegalArgumentException: Latitude must be between -90 and 90")
    for lon in (lon1, lon2):
        if not -180.0 <= lon <= 180.0:
            raise JavaThrows("IllegalArgumentException: Longitude must be between -180 and 180")
    return math.radians(lat1), math.radians(lat2), math.radians(lon1) - math.radians(lon2)


def _spherical_distances(rad1: np.ndarray, rad2: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Vincenty's great-circle formula on a sphere of ``GeometryUtils.EARTH_RADIUS_M`` metres, in Pinot's order,
    over many point pairs at once: ``Math.sin`` / ``cos`` are HotSpot's stubs, ``Math.atan2`` fdlibm's."""
    sin1, sin2, sin_delta = hotspot_sin(rad1), hotspot_sin(rad2), hotspot_sin(delta)
    cos1, cos2, cos_delta = hotspot_cos(rad1), hotspot_cos(rad2), hotspot_cos(delta)
    t1 = cos2 * sin_delta
    t2 = cos1 * sin2 - sin1 * cos2 * cos_delta
    t3 = sin1 * sin2 + cos1 * cos2 * cos_delta
    return fdlibm_atan2(np.sqrt(t1 * t1 + t2 * t2), t3) * _EARTH_RADIUS_M


def _same_kind(a: Geom, b: Geom, message: str) -> None:
    if a.geography != b.geography:
        raise JavaThrows(f"RuntimeException: {message}")


def _distance(first: bytes, second: bytes, spherical: dict) -> float:
    """One row's distance; a geography pair's radians go into ``spherical`` (computed for all rows at once, its
    value here a placeholder)."""
    a, b = deserialize(first), deserialize(second)
    _same_kind(a, b, "The first and second arguments shall either all be geometry or all geography")
    if a.geography:
        spherical[(first, second)] = _spherical_arguments(a, b)
        return math.nan
    return math.nan if a.is_empty() or b.is_empty() else relate.distance(a, b)


_MAX_KEPT = 64  # geometries (and their relate work against points) kept by one batch's row-wise predicate


def _predicate(test, check: bool):
    """One row's predicate. Across the rows of one call (a batch) it keeps, for up to _MAX_KEPT geometry values,
    the deserialized geometry and its PointRelate (its relate work against any point, exceptions included): a
    polygon column of few values against points costs a point location a row, and a polygon whose relate throws
    throws at once."""
    kept: dict[bytes, list] = {}

    def geometry(data: bytes) -> list:
        found = kept.get(data)
        if found is None:
            if len(kept) >= _MAX_KEPT:
                kept.clear()
            found = kept[data] = [deserialize(data), {}]
        return found

    def run(first: bytes, second: bytes) -> int:
        one, two = geometry(first), geometry(second)
        a, b = one[0], two[0]
        if check:
            _same_kind(a, b, "The first and second arguments should either both be geometry or both be geography")

        def matrix(x: Geom, y: Geom) -> str:
            for other, point, point_first in ((x, y, False), (y, x, True)):
                if point.kind == "Point" and not point.is_empty():
                    relates = (one if other is a else two)[1]
                    if point_first not in relates:
                        relates[point_first] = relate.PointRelate(other, point_first)
                    return relates[point_first].matrix(point.parts)
            return relate.relate_matrix(x, y)
        return int(test(a, b, matrix))
    return run


_MAX_GEOMETRIES = 64  # distinct geometries of a batch taken against its points at once (the geofencing case)


def _point_rows(column: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``column`` holding a non-empty point's 17 bytes: (rows, x, y, geography)."""
    lengths = pc.binary_length(column).fill_null(0).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(lengths == _POINT_BYTES)
    if not len(rows):
        return rows, np.empty(0), np.empty(0), np.empty(0, np.bool_)
    offsets = np.frombuffer(column.buffers()[1], np.int32, len(column) + 1, column.offset * 4)
    data = np.frombuffer(column.buffers()[2], np.uint8)
    values = data[offsets[rows][:, None] + np.arange(_POINT_BYTES)]
    points = (values[:, 0] & 0x7F) == POINT
    x = values[:, 1:9].copy().view(">f8").ravel().astype(np.float64)
    y = values[:, 9:17].copy().view(">f8").ravel().astype(np.float64)
    keep = points & ~np.isnan(x) & ~np.isnan(y)  # a NaN coordinate reads as POINT EMPTY: the row-wise path
    return rows[keep], x[keep], y[keep], values[keep, 0] >= 0x80


def _with_points(first: pa.Array, second: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """ST_Contains / ST_Within / ST_Equals of few distinct geometries against a column of points (either side),
    over arrays (predicates.with_points): (values, answered), or None when the batch is not of that shape.
    A row not answered (an argument that does not read, geometry against geography, a relate that throws) goes
    the row-wise way."""
    if len(first) == 0 or isinstance(first, pa.ChunkedArray) or isinstance(second, pa.ChunkedArray):
        return None
    for geoms, points, point_first in ((first, second, False), (second, first, True)):
        rows, x, y, geography = _point_rows(points)
        if len(rows) < len(points) // 2:
            continue
        encoded = pc.dictionary_encode(geoms.take(pa.array(rows)))
        if len(encoded.dictionary) > _MAX_GEOMETRIES:
            continue
        values, answered = np.zeros(len(points), np.bool_), np.zeros(len(points), np.bool_)
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        for k, data in enumerate(encoded.dictionary.to_pylist()):
            if data is None:
                continue
            try:
                geom = deserialize(data)
            except JavaException:  # ours or JTS's construction checks
                continue
            mine = np.flatnonzero((indices == k) & (geography == geom.geography))  # else a mismatch: it throws
            try:
                got, ok = relate.with_points(name, geom, point_first, x[mine], y[mine])
            except JavaException:  # JTS throws on this geometry: its rows go the row-wise way, which fails them
                continue
            values[rows[mine]], answered[rows[mine]] = got, ok
        return values, answered
    return None


def _relate(ctx: Context, args: list[Value], name: str, check: bool) -> pa.Array:
    """A predicate's batch: the point rows against few geometries over arrays, the rest (and every row that
    throws) row by row, as before."""
    first, second = to_bytes(args[0], ctx), to_bytes(args[1], ctx)
    fn = _predicate(getattr(relate, name), check)
    fast = _with_points(first, second, name)
    if fast is None or not fast[1].any():
        return per_row(ctx, fn, pa.int32(), first, second)
    values, answered = fast
    out = pa.array(values.astype(np.int32), pa.int32())
    if answered.all():
        return out
    done = pa.array(answered)
    nulls = pa.nulls(len(first), pa.binary())
    rest = per_row(ctx, fn, pa.int32(), pc.if_else(done, nulls, first), pc.if_else(done, nulls, second))
    return pc.if_else(done, out, rest)


def _binary(ctx: Context, args: list[Value], fn, out_type: pa.DataType) -> pa.Array:
    return per_row(ctx, fn, out_type, to_bytes(args[0], ctx), to_bytes(args[1], ctx))


@scalar_function("stDistance", "ST_Distance", arity=2)
def _st_distance(ctx: Context, args: list[Value]) -> Value:
    first, second = to_bytes(args[0], ctx), to_bytes(args[1], ctx)
    spherical: dict[tuple[bytes, bytes], tuple[float, float, float]] = {}
    out = per_row(ctx, lambda a, b: _distance(a, b, spherical), pa.float64(), first, second)
    if not spherical:
        return out
    pairs = list(spherical)
    radians = np.array([spherical[p] for p in pairs], np.float64).reshape(-1, 3)
    distances = dict(zip(pairs, _spherical_distances(radians[:, 0], radians[:, 1], radians[:, 2]).tolist()))
    rows = zip(*((broadcast(v, ctx.num_rows) if isinstance(v, Const) else v).to_pylist() for v in (first, second)))
    values = out.to_pylist()
    return pa.array([distances.get(row, value) if value is not None else None for row, value in zip(rows, values)],
                    pa.float64())


@scalar_function("stContains", "ST_Contains", arity=2)
def _st_contains(ctx: Context, args: list[Value]) -> Value:
    return _relate(ctx, args, "contains", True)


@scalar_function("stWithin", "ST_Within", arity=2)
def _st_within(ctx: Context, args: list[Value]) -> Value:
    return _relate(ctx, args, "within", True)


@scalar_function("stEquals", "ST_Equals", arity=2)
def _st_equals(ctx: Context, args: list[Value]) -> Value:
    return _relate(ctx, args, "equals", False)


# ----------------------------------------------------------------------------------------------------
# Pinot's H3 scalar functions (pinot-core's geospatial ``ScalarFunctions``: ``geoToH3``, ``gridDisk``,
# ``gridDistance``), over Uber's H3 C library as h3-java's JNI calls it.
#
# Pinot calls h3-java 4.5.0 (``H3Utils.H3_CORE``), a thin JNI layer over the H3 C core. The same C core ships
# inside the PyPI ``h3`` package (pinned to 4.5.0, whose C core is 4.5.0: ``h3.versions()``); its Python API
# validates and reorders differently from h3-java (``grid_disk`` checks the cell first and compacts the result
# by swapping from the end), so the C functions are called here directly, with h3-java's own steps around
# them (``H3Core``):
#
# * ``latLngToCell(lat, lng, res)``: the resolution checked first (``IllegalArgumentException``: "resolution %d
#   is out of range (must be 0 <= res <= 15)"), degrees to radians as ``Math.toRadians`` (times
#   0.017453292519943295), a C error is an ``H3Exception``;
# * ``gridDisk(h, k)``: ``maxGridDiskSize(k)`` (a C error, or more than ``Integer.MAX_VALUE`` cells: thrown),
#   an array of that size, the C ``gridDisk`` into it, then the non-zero cells in array order (around a
#   pentagon the C library leaves holes); the index is passed as its 64 bits;
# * ``gridDistance(a, b)``: Pinot answers 0 for equal indexes (valid or not) before calling the C function.

_DEGREES_TO_RADIANS = 0.017453292519943295  # java.lang.Math.DEGREES_TO_RADIANS (PI / 180)
_UINT64 = (1 << 64) - 1
_INT_MAX = 2**31 - 1
# a long[] Java could allocate at all: beyond this the JVM's OutOfMemoryError (not a row failure in Pinot)
_MAX_CELLS = 1 << 27


class _LatLng(ctypes.Structure):
    _fields_ = [("lat", ctypes.c_double), ("lng", ctypes.c_double)]


@lru_cache(maxsize=1)
def _c():
    """The H3 C core inside the ``h3`` package's compiled module (its symbols are exported there)."""
    from h3._cy import cells

    lib = ctypes.CDLL(cells.__file__)
    lib.latLngToCell.argtypes = [ctypes.POINTER(_LatLng), ctypes.c_int, ctypes.POINTER(ctypes.c_uint64)]
    lib.latLngToCell.restype = ctypes.c_uint32
    lib.maxGridDiskSize.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
    lib.maxGridDiskSize.restype = ctypes.c_uint32
    lib.gridDisk.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(ctypes.c_uint64)]
    lib.gridDisk.restype = ctypes.c_uint32
    lib.gridDistance.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int64)]
    lib.gridDistance.restype = ctypes.c_uint32
    return lib


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _check(error: int) -> None:
    if error:
        raise JavaThrows(f"H3Exception: H3 C library error code {error}")


def lat_lng_to_cell(lat: float, lng: float, res: int) -> int:
    """``H3Core.latLngToCell`` (degrees)."""
    if res < 0 or res > 15:
        raise JavaThrows(f"IllegalArgumentException: resolution {res} is out of range (must be 0 <= res <= 15)")
    out = ctypes.c_uint64()
    _check(_c().latLngToCell(ctypes.byref(_LatLng(lat * _DEGREES_TO_RADIANS, lng * _DEGREES_TO_RADIANS)), res,
                             ctypes.byref(out)))
    return _signed(out.value)


def grid_disk(origin: int, k: int) -> list[int]:
    """``H3Core.gridDisk``."""
    size = ctypes.c_int64()
    _check(_c().maxGridDiskSize(k, ctypes.byref(size)))
    if size.value < 0 or size.value > _INT_MAX:
        raise JavaThrows(f"IllegalArgumentException: size {size.value} is out of range")
    if size.value > _MAX_CELLS:
        raise JavaThrows(f"OutOfMemoryError: a long[{size.value}] for gridDisk(h, {k})")
    out = (ctypes.c_uint64 * size.value)()
    _check(_c().gridDisk(origin & _UINT64, k, out))
    return [_signed(h) for h in out if h != 0]


def grid_distance(a: int, b: int) -> int:
    """Pinot's ``gridDistance``: 0 for equal indexes, else ``H3Core.gridDistance``."""
    if a == b:
        return 0
    out = ctypes.c_int64()
    _check(_c().gridDistance(a & _UINT64, b & _UINT64, ctypes.byref(out)))
    return out.value


def _cell_of_geometry(data: bytes, res: int) -> int:
    """``geoToH3(byte[], int)``: the geometry's first coordinate (``Geometry.getCoordinate``; an empty
    geometry has none: a NullPointerException)."""
    coordinates = deserialize(data).coordinates()
    if not coordinates:
        raise JavaThrows("NullPointerException: the geometry has no coordinate")
    x, y = coordinates[0]
    return lat_lng_to_cell(y, x, res)


@scalar_function("geoToH3", arity=(2, 3))
def _geo_to_h3(ctx: Context, args: list[Value]) -> Value:
    if len(args) == 2:  # geoToH3(byte[] geometry, int resolution)
        return per_row(ctx, _cell_of_geometry, pa.int64(), to_bytes(args[0], ctx), to_int(args[1], ctx))
    # geoToH3(double longitude, double latitude, int resolution): longitude first
    return per_row(ctx, lambda lng, lat, res: lat_lng_to_cell(lat, lng, res), pa.int64(), to_double(args[0], ctx),
                   to_double(args[1], ctx), to_int(args[2], ctx))


@scalar_function("gridDisk", arity=2, primitive_array=True)
def _grid_disk(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, grid_disk, pa.list_(pa.int64()), to_long(args[0], ctx), to_int(args[1], ctx))


@scalar_function("gridDistance", arity=2)
def _grid_distance(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, grid_distance, pa.int64(), to_long(args[0], ctx), to_long(args[1], ctx))

