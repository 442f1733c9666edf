"""JTS geometries (``org.locationtech.jts.geom``) as Pinot's geospatial functions see them: a ``Geom`` and
the construction checks of ``GeometryFactory``.

A geometry is a ``Geom``: its JTS type name, its SRID (4326: a geography) and its parts, 2-D only (Pinot's bytes
keep x and y, so a Z or M read from text never reaches a stored value):

* Point: ``(x, y)`` or None (empty); LineString / LinearRing: a list of ``(x, y)``; Polygon: a list of rings
  (shell first; empty: no rings); Multi* and GeometryCollection: a list of ``Geom``.

Construction checks are JTS's (``LineString``: 0 or >= 2 points; ``LinearRing``: closed, 0 or >= 3 points;
``Polygon``: no holes without a shell), raised as ``JavaException`` with Java's message. Moved verbatim from
pinot_sink/ingestion/functions/geometry.py, which keeps Pinot's ``GeometrySerializer`` bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import JavaException

GEOGRAPHY_SRID = 4326


@dataclass
class Geom:
    kind: str
    parts: object
    srid: int = 0

    def is_empty(self) -> bool:
        if self.kind == "Point":
            return self.parts is None
        if self.kind in ("LineString", "LinearRing", "Polygon"):
            return not self.parts
        return all(m.is_empty() for m in self.parts)

    def coordinates(self) -> list[tuple[float, float]]:
        """``Geometry.getCoordinates()``: every vertex in order (a polygon: shell, then holes)."""
        if self.kind == "Point":
            return [] if self.parts is None else [self.parts]
        if self.kind in ("LineString", "LinearRing"):
            return list(self.parts)
        if self.kind == "Polygon":
            return [c for ring in self.parts for c in ring]
        return [c for m in self.parts for c in m.coordinates()]

    def num_points(self) -> int:
        return len(self.coordinates())

    @property
    def geography(self) -> bool:
        return self.srid == GEOGRAPHY_SRID


# --- JTS construction checks --------------------------------------------------------------------


def line_string(coords: list, srid: int = 0) -> Geom:
    if 1 <= len(coords) < 2:
        raise JavaException(f"IllegalArgumentException: Invalid number of points in LineString (found {len(coords)} - "
                         "must be 0 or >= 2)")
    return Geom("LineString", list(coords), srid)


def _closed(coords: list) -> bool:
    return not coords or (coords[0][0] == coords[-1][0] and coords[0][1] == coords[-1][1])


def linear_ring(coords: list, srid: int = 0) -> Geom:
    if not _closed(coords):
        raise JavaException("IllegalArgumentException: Points of LinearRing do not form a closed linestring")
    if 1 <= len(coords) < 3:
        raise JavaException(f"IllegalArgumentException: Invalid number of points in LinearRing (found {len(coords)} - "
                         "must be 0 or >= 3)")
    return Geom("LinearRing", list(coords), srid)


def polygon(shell: list | None, holes: list, srid: int = 0) -> Geom:
    """``GeometryFactory.createPolygon(shell, holes)``: rings as coordinate lists (an empty shell: [] or None)."""
    if not shell and any(holes):
        raise JavaException("IllegalArgumentException: shell is empty but holes are not")
    if not shell:
        return Geom("Polygon", [], srid)
    return Geom("Polygon", [list(shell)] + [list(h) for h in holes], srid)
