"""JTS geometries as Pinot's geospatial functions see them, and Pinot's ``GeometrySerializer`` bytes: the one home
of that format (geospatial_scalar_functions.py's functions read and write only through here). ``Geom`` and JTS's construction checks
live with the JTS port (javalib/jts/geometry.py); they are named here for geospatial_scalar_functions.py.

A geometry is a ``Geom``: its JTS type name, its SRID (4326: a geography) and its parts, 2-D only (Pinot's bytes
keep x and y, so a Z or M read from text never reaches a stored value):

* Point: ``(x, y)`` or None (empty); LineString / LinearRing: a list of ``(x, y)``; Polygon: a list of rings
  (shell first; empty: no rings); Multi* and GeometryCollection: a list of ``Geom``.

Construction checks are JTS's (``LineString``: 0 or >= 2 points; ``LinearRing``: closed, 0 or >= 3 points;
``Polygon``: no holes without a shell), raised as ``JavaThrows`` with Java's message.

Pinot's bytes (``GeometrySerializer``): a type byte (``GeometryType`` id: POINT 0, MULTI_POINT 1, LINE_STRING 2,
MULTI_LINE_STRING 3, POLYGON 4, MULTI_POLYGON 5, GEOMETRY_COLLECTION 6; high bit: SRID 4326), then big-endian:
a point's x, y (NaN, NaN: empty); a multipoint's count and coordinates; a (multi)line's or (multi)polygon's part
count, point count, part start indexes and coordinates, polygon rings written shell clockwise / holes
counter-clockwise (by the sign of the sum of (x2 - x1)(y2 + y1)) and read back by that orientation alone (a
clockwise ring starts a new polygon); a collection's members each with its own type byte, to the end.
"""
from __future__ import annotations

import math
import struct

from javalib.exceptions import JavaException
from javalib.jts.geometry import GEOGRAPHY_SRID, Geom, line_string, linear_ring, polygon

from .rowwise import JavaThrows

GEOGRAPHY_MASK = 0x80
POINT, MULTI_POINT, LINE_STRING, MULTI_LINE_STRING, POLYGON, MULTI_POLYGON, GEOMETRY_COLLECTION = range(7)
_TYPE_IDS = {"Point": POINT, "MultiPoint": MULTI_POINT, "LineString": LINE_STRING, "LinearRing": LINE_STRING,
             "MultiLineString": MULTI_LINE_STRING, "Polygon": POLYGON, "MultiPolygon": MULTI_POLYGON,
             "GeometryCollection": GEOMETRY_COLLECTION}
_MULTI = {"MultiPoint": "Point", "MultiLineString": "LineString", "MultiPolygon": "Polygon"}


# --- Pinot's GeometrySerializer -----------------------------------------------------------------


def _is_clockwise(coords: list, start: int, end: int) -> bool:
    if end - 1 < 0 or start >= len(coords) or end > len(coords):
        raise JavaThrows("ArrayIndexOutOfBoundsException: polygon part out of range")
    area = 0.0
    for i in range(start + 1, end):
        area += (coords[i][0] - coords[i - 1][0]) * (coords[i][1] + coords[i - 1][1])
    area += (coords[start][0] - coords[end - 1][0]) * (coords[start][1] + coords[end - 1][1])
    return area > 0


def _type_byte(type_id: int, srid: int) -> bytes:
    return bytes([type_id | (GEOGRAPHY_MASK if srid == GEOGRAPHY_SRID else 0)])


def _pack_coords(coords: list) -> bytes:
    return struct.pack(f">{2 * len(coords)}d", *[v for c in coords for v in c])


def serialize(geom: Geom) -> bytes:
    """``GeometrySerializer.serialize``."""
    kind, srid = geom.kind, geom.srid
    if kind == "Point":
        return _type_byte(POINT, srid) + struct.pack(">dd", *(geom.parts or (math.nan, math.nan)))
    if kind == "MultiPoint":
        coords = geom.coordinates()
        return _type_byte(MULTI_POINT, srid) + struct.pack(">i", len(coords)) + _pack_coords(coords)
    if kind in ("LineString", "LinearRing", "MultiLineString"):
        multi = kind == "MultiLineString"
        coords = geom.coordinates()
        lines = [m.parts for m in geom.parts] if multi else [geom.parts]
        num_parts = len(lines) if multi else (1 if coords else 0)
        out = _type_byte(MULTI_LINE_STRING if multi else LINE_STRING, srid) + struct.pack(">ii", num_parts, len(coords))
        start = 0
        for line in lines[:num_parts]:
            out += struct.pack(">i", start)
            start += len(line)
        return out + _pack_coords(coords)
    if kind in ("Polygon", "MultiPolygon"):
        multi = kind == "MultiPolygon"
        polygons = [m.parts for m in geom.parts] if multi else [geom.parts]
        coords = geom.coordinates()
        num_parts = sum(len(rings) for rings in polygons if rings)
        out = _type_byte(MULTI_POLYGON if multi else POLYGON, srid) + struct.pack(">ii", num_parts, len(coords))
        if num_parts == 0:
            return out
        starts, shells, point = [], [], 0
        for rings in polygons:
            # an empty polygon still takes a part slot here (its shell is the empty ring): Java overruns the
            # array sized by the non-empty polygons' rings
            for k, ring in enumerate(rings or [[]]):
                if len(starts) == num_parts:
                    raise JavaThrows(f"ArrayIndexOutOfBoundsException: Index {num_parts} out of bounds for length "
                                     f"{num_parts}")
                starts.append(point)
                shells.append(k == 0)
                point += len(ring)
        coords = list(coords)
        for part, start in enumerate(starts):
            end = starts[part + 1] if part + 1 < len(starts) else len(coords)
            if _is_clockwise(coords, start, end) != shells[part]:
                coords[start:end] = coords[start:end][::-1]
        return out + b"".join(struct.pack(">i", s) for s in starts) + _pack_coords(coords)
    if kind == "GeometryCollection":
        return _type_byte(GEOMETRY_COLLECTION, srid) + b"".join(serialize(m) for m in geom.parts)
    raise JavaThrows(f"IllegalArgumentException: Unsupported geometry type : {kind}")


class _Buffer:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise JavaThrows("BufferUnderflowException")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def remaining(self) -> bool:
        return self.pos < len(self.data)


def deserialize(data: bytes) -> Geom:
    """``GeometrySerializer.deserialize``."""
    return _read(_Buffer(bytes(data)))


def _read(buf: _Buffer) -> Geom:
    (type_byte,) = buf.take(">b")
    type_id = type_byte & 0x7F
    if type_id > 7:
        raise JavaThrows(f"IllegalArgumentException: Invalid type id: {type_id}")
    if type_id == 7:
        raise JavaThrows("ArrayIndexOutOfBoundsException: Index 7 out of bounds for length 7")
    return _read_body(buf, type_id, GEOGRAPHY_SRID if type_byte < 0 else 0)


def _read_point(buf: _Buffer, srid: int) -> Geom:
    x, y = buf.take(">dd")
    return Geom("Point", None if math.isnan(x) or math.isnan(y) else (x, y), srid)


def _read_parts(buf: _Buffer) -> list[list]:
    (part_count,) = buf.take(">i")
    if part_count == 0:
        return []
    (point_count,) = buf.take(">i")
    if part_count < 0:
        raise JavaThrows(f"NegativeArraySizeException: {part_count}")
    starts = list(buf.take(f">{part_count}i"))
    lengths = [starts[i + 1] - starts[i] for i in range(part_count - 1)] + [point_count - starts[-1]]
    if part_count > 1:
        lengths[0] = starts[1]
    parts = []
    for n in lengths:
        if n <= 0:
            raise JavaThrows("IllegalArgumentException: Count shall be positive")
        values = buf.take(f">{2 * n}d")
        parts.append([(values[2 * i], values[2 * i + 1]) for i in range(n)])
    return parts


def _read_body(buf: _Buffer, type_id: int, srid: int) -> Geom:
    if type_id == POINT:
        return _read_point(buf, srid)
    if type_id == MULTI_POINT:
        (count,) = buf.take(">i")
        if count < 0:
            raise JavaThrows(f"NegativeArraySizeException: {count}")
        return Geom("MultiPoint", [_read_point(buf, srid) for _ in range(count)], srid)
    if type_id in (LINE_STRING, MULTI_LINE_STRING):
        parts = _read_parts(buf)
        if type_id == MULTI_LINE_STRING:
            return Geom("MultiLineString", [line_string(p, srid) for p in parts], srid)
        lines = [line_string(p, srid) for p in parts]
        if not lines:
            return Geom("LineString", [], srid)
        if len(lines) != 1:
            raise JavaThrows("IllegalArgumentException: The remaining line string must have only one node")
        return lines[0]
    if type_id in (POLYGON, MULTI_POLYGON):
        parts = _read_parts(buf)
        polygons: list[Geom] = []
        if parts:
            shell, holes = None, []
            try:
                for coords in parts:
                    if _is_clockwise(coords, 0, len(coords)):
                        if shell is not None:
                            polygons.append(polygon(shell, holes, srid))
                            holes = []
                        shell = linear_ring(coords).parts
                    else:
                        holes.append(linear_ring(coords).parts)
                polygons.append(polygon(shell, holes, srid))
            except JavaException as exc:  # JTS's construction checks (javalib), or ours
                if "IllegalArgumentException" not in str(exc):
                    raise
                raise JavaThrows("TopologyException: Error constructing Polygon: "
                                 + str(exc).split(": ", 1)[1]) from None
        if type_id == MULTI_POLYGON:
            return Geom("MultiPolygon", polygons, srid)
        if not polygons:
            return Geom("Polygon", [], srid)
        if len(polygons) != 1:
            raise JavaThrows("IllegalArgumentException: expected one element but was: <" + ", ".join(
                "POLYGON" for _ in polygons) + ">")
        return polygons[0]
    members = []
    while buf.remaining():
        members.append(_read(buf))
    return Geom("GeometryCollection", members, srid)
