"""GeohashFunctions: ``encodeGeoHash(lat, lon, precision)`` (precision 1..12, else the row fails) and
``decodeGeoHash`` / ``decodeGeoHashLatitude`` / ``decodeGeoHashLongitude`` (the centre of the cell; a
character outside the geohash alphabet is read as all bits set, as Pinot's ``indexOf`` of -1 does, a character
beyond the BMP twice: its two UTF-16 units), once per
distinct value, checked against Pinot's own build (tests/fixtures/functions/geohash.jsonl)."""
from __future__ import annotations

import pyarrow as pa

from ..values import Context, Value, to_double, to_int, to_string
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def encode(latitude: float, longitude: float, length: int) -> str:
    if not 1 <= length <= 12:
        raise JavaThrows("IllegalArgumentException: length must be between 1 and 12")
    lat, lon = [-90.0, 90.0], [-180.0, 180.0]
    bits = []
    even = True
    for _ in range(5 * length):
        interval, value = (lon, longitude) if even else (lat, latitude)
        mid = (interval[0] + interval[1]) / 2
        if value >= mid:
            bits.append(1)
            interval[0] = mid
        else:
            bits.append(0)
            interval[1] = mid
        even = not even
    return "".join(_BASE32[int("".join(map(str, bits[i:i + 5])), 2)] for i in range(0, len(bits), 5))


def decode(geohash: str) -> tuple[float, float]:
    lat, lon = [-90.0, 90.0], [-180.0, 180.0]
    even = True
    # Java walks the String's UTF-16 units: a character beyond the BMP is two units outside the alphabet (its
    # surrogates), so two rounds of all bits set ('a😀' is three characters to Pinot); a lone surrogate's
    # marker is one unit, as the surrogate is
    for c in geohash:
        cd = _BASE32.find(c)
        for mask in (16, 8, 4, 2, 1) * (2 if ord(c) > 0xFFFF else 1):
            interval = lon if even else lat
            if cd & mask:
                interval[0] = (interval[0] + interval[1]) / 2
            else:
                interval[1] = (interval[0] + interval[1]) / 2
            even = not even
    return (lat[0] + lat[1]) / 2, (lon[0] + lon[1]) / 2


@scalar_function("encodeGeoHash", arity=3)
def _encode(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, encode, pa.string(), to_double(args[0], ctx), to_double(args[1], ctx), to_int(args[2], ctx))


@scalar_function("decodeGeoHash", arity=1, primitive_array=True)
def _decode(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda g: list(decode(g)), pa.list_(pa.float64()), to_string(args[0], ctx))


@scalar_function("decodeGeoHashLatitude", "decodeGeoHashLat", arity=1)
def _latitude(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda g: decode(g)[0], pa.float64(), to_string(args[0], ctx))


@scalar_function("decodeGeoHashLongitude", "decodeGeoHashLon", arity=1)
def _longitude(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda g: decode(g)[1], pa.float64(), to_string(args[0], ctx))
