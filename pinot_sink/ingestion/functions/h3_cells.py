"""Pinot's H3 scalar functions (pinot-core's geospatial ``ScalarFunctions``: ``geoToH3``, ``gridDisk``,
``gridDistance``), over Uber's H3 C library as h3-java's JNI calls it.

Pinot calls h3-java 4.5.0 (``H3Utils.H3_CORE``), a thin JNI layer over the H3 C core. The same C core ships
inside the PyPI ``h3`` package (pinned to 4.5.0, whose C core is 4.5.0: ``h3.versions()``); its Python API
validates and reorders differently from h3-java (``grid_disk`` checks the cell first and compacts the result
by swapping from the end), so the C functions are called here directly, with h3-java's own steps around
them (``H3Core``):

* ``latLngToCell(lat, lng, res)``: the resolution checked first (``IllegalArgumentException``: "resolution %d
  is out of range (must be 0 <= res <= 15)"), degrees to radians as ``Math.toRadians`` (times
  0.017453292519943295), a C error is an ``H3Exception``;
* ``gridDisk(h, k)``: ``maxGridDiskSize(k)`` (a C error, or more than ``Integer.MAX_VALUE`` cells: thrown),
  an array of that size, the C ``gridDisk`` into it, then the non-zero cells in array order (around a
  pentagon the C library leaves holes); the index is passed as its 64 bits;
* ``gridDistance(a, b)``: Pinot answers 0 for equal indexes (valid or not) before calling the C function.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

import pyarrow as pa

from ..values import Context, Value, to_double, to_int, to_long
from .string_functions_bytes import to_bytes
from .geometry import deserialize
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

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

