"""JTS's ``PointLocator`` and ``SimplePointInAreaLocator``: where a point lies in a geometry (interior, boundary,
exterior), as RelateOp and the predicates' short cuts ask it (relate_op.py tells the whole relate)."""
from __future__ import annotations

from .algorithm import (BOUNDARY, COLLECTIONS, EXTERIOR, INTERIOR, env_has, env_of, env_point, equals2d,
                        geometry_envelope, mod2, orientation_index)
from .geometry import Geom

# --- point location -------------------------------------------------------------------------------------------


def _ring_location(p, ring: list) -> int:
    """``RayCrossingCounter.locatePointInRing``."""
    crossings = 0
    px, py = p
    for i in range(1, len(ring)):
        p1, p2 = ring[i], ring[i - 1]
        if p1[0] < px and p2[0] < px:
            continue
        if px == p2[0] and py == p2[1]:
            return BOUNDARY
        if p1[1] == py and p2[1] == py:
            lo, hi = (p1[0], p2[0]) if p1[0] <= p2[0] else (p2[0], p1[0])
            if lo <= px <= hi:
                return BOUNDARY
            continue
        if (p1[1] > py >= p2[1]) or (p2[1] > py >= p1[1]):
            orient = orientation_index(p1, p2, p)
            if orient == 0:
                return BOUNDARY
            if p2[1] < p1[1]:
                orient = -orient
            if orient == 1:
                crossings += 1
    return INTERIOR if crossings % 2 == 1 else EXTERIOR


def _locate_ring(p, ring: list) -> int:
    if not env_has(env_of(ring), p):
        return EXTERIOR
    return _ring_location(p, ring)


def _gc_iter(geom: Geom):
    """``GeometryCollectionIterator``: the collection, then its members, a member collection itself before its
    own members."""
    yield geom
    for m in geom.parts:
        if m.kind in COLLECTIONS:
            yield from _gc_iter(m)
        else:
            yield m


def locate_in_area(p, geom: Geom) -> int:
    """``SimplePointInAreaLocator.locate``: polygons only (lines and points are exterior)."""
    if geom.is_empty() or not env_has(geometry_envelope(geom), p):
        return EXTERIOR
    return _locate_in_geometry(p, geom)


def _locate_in_geometry(p, geom: Geom) -> int:
    if geom.kind == "Polygon":
        if geom.is_empty():
            return EXTERIOR
        shell = _locate_ring(p, geom.parts[0])
        if shell != INTERIOR:
            return shell
        for hole in geom.parts[1:]:
            loc = _locate_ring(p, hole)
            if loc == BOUNDARY:
                return BOUNDARY
            if loc == INTERIOR:
                return EXTERIOR
        return INTERIOR
    if geom.kind in COLLECTIONS:
        for g in _gc_iter(geom):
            if g is not geom:
                loc = _locate_in_geometry(p, g)
                if loc != EXTERIOR:
                    return loc
    return EXTERIOR


def _on_line(p, line: list) -> int:
    """``PointLocator.locateOnLineString``."""
    if not env_has(env_of(line), p):
        return EXTERIOR
    if equals2d(p, line[0]) or equals2d(p, line[-1]):
        return mod2(2 if equals2d(line[0], line[-1]) else 1)
    for a, b in zip(line, line[1:]):
        if env_point(a, b, p) and (equals2d(p, a) or orientation_index(a, b, p) == 0):
            return INTERIOR
    return EXTERIOR


def _in_polygon(p, geom: Geom) -> int:
    """``PointLocator.locateInPolygon``."""
    if geom.is_empty():
        return EXTERIOR
    shell = _locate_ring(p, geom.parts[0])
    if shell == EXTERIOR:
        return EXTERIOR
    if shell == BOUNDARY:
        return BOUNDARY
    for hole in geom.parts[1:]:
        loc = _locate_ring(p, hole)
        if loc == INTERIOR:
            return EXTERIOR
        if loc == BOUNDARY:
            return BOUNDARY
    return INTERIOR


def locate(p, geom: Geom) -> int:
    """``PointLocator.locate`` (Mod-2 rule): a collection counts the boundaries its parts put the point on."""
    if geom.is_empty():
        return EXTERIOR
    if geom.kind in ("LineString", "LinearRing"):
        return _on_line(p, geom.parts)
    if geom.kind == "Polygon":
        return _in_polygon(p, geom)
    state = [False, 0]  # isIn, numBoundaries

    def update(loc: int) -> None:
        if loc == INTERIOR:
            state[0] = True
        if loc == BOUNDARY:
            state[1] += 1

    def compute(g: Geom) -> None:
        if g.is_empty():
            return
        if g.kind == "Point":
            update(INTERIOR if equals2d(g.parts, p) else EXTERIOR)
        if g.kind in ("LineString", "LinearRing"):
            update(_on_line(p, g.parts))
        elif g.kind == "Polygon":
            update(_in_polygon(p, g))
        elif g.kind == "MultiLineString":
            for m in g.parts:
                update(_on_line(p, m.parts) if m.parts else EXTERIOR)
        elif g.kind == "MultiPolygon":
            for m in g.parts:
                update(_in_polygon(p, m))
        elif g.kind in ("MultiPoint", "GeometryCollection"):
            for m in _gc_iter(g):
                if m is not g:
                    compute(m)

    compute(geom)
    if state[1] % 2 == 1:
        return BOUNDARY
    if state[1] > 0 or state[0]:
        return INTERIOR
    return EXTERIOR
