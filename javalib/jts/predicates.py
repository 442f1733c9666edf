"""JTS 1.20's spatial predicates and distance as Pinot's ``ST_Contains`` / ``ST_Within`` / ``ST_Equals`` /
``ST_Distance`` call them (``Geometry.contains`` / ``within`` / ``equals`` / ``distance``, the default, old
``RelateOp`` path: ``jts.relate`` unset).

JTS's own short cuts are ported here, as they decide many answers before any relate: a rectangle's
``contains`` (``RectangleContains``: inside the envelope and not wholly on its boundary), the dimension and
envelope checks (an empty geometry's envelope is null: nothing contains it or is contained, and two empties are
not equal; a polygon's envelope is its shell's); the DE-9IM matrix itself, for what is left, is JTS's old
``RelateOp``, ported in relate_op.py (its answers on invalid areas and collections, and its
TopologyExceptions, are JTS's own: GEOS's RelateNG would differ there).
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..exceptions import JavaException
from .geometry import Geom
from .algorithm import EXTERIOR, dimension, point_distance, point_to_segment
from .algorithm import geometry_envelope as envelope
from .point_locator import locate
from .relate_op import PointRelate, locate_many, relate_matrix


def _env_contains(a, b) -> bool:
    if a is None or b is None:
        return False
    return b[0] >= a[0] and b[1] <= a[1] and b[2] >= a[2] and b[3] <= a[3]


def _length(geom: Geom) -> float:
    if geom.kind in ("LineString", "LinearRing"):
        return sum(math.hypot(q[0] - p[0], q[1] - p[1]) for p, q in zip(geom.parts, geom.parts[1:]))
    if geom.kind in ("MultiLineString", "GeometryCollection"):
        return sum(_length(m) for m in geom.parts)
    if geom.kind == "Polygon":
        return sum(_length(Geom("LineString", ring)) for ring in geom.parts)
    if geom.kind == "MultiPolygon":
        return sum(_length(m) for m in geom.parts)
    return 0.0


def _is_rectangle(geom: Geom) -> bool:
    """``Polygon.isRectangle``: one ring of 5 points on its envelope, each edge axis-parallel."""
    if geom.kind != "Polygon" or len(geom.parts) != 1 or len(geom.parts[0]) != 5:
        return False
    ring = geom.parts[0]
    min_x, max_x, min_y, max_y = envelope(geom)
    if any(not (x == min_x or x == max_x) or not (y == min_y or y == max_y) for x, y in ring):
        return False
    return all((q[0] != p[0]) != (q[1] != p[1]) for p, q in zip(ring, ring[1:]))


def _rectangle_contains(rect: Geom, geom: Geom) -> bool:
    env = envelope(rect)
    if not _env_contains(env, envelope(geom)):
        return False
    return not _in_boundary(env, geom)


def _point_in_boundary(env, point) -> bool:
    if point is None:
        raise JavaException("NullPointerException: an empty point's coordinate")
    return point[0] == env[0] or point[0] == env[1] or point[1] == env[2] or point[1] == env[3]


def _in_boundary(env, geom: Geom) -> bool:
    if geom.kind == "Polygon":
        return False
    if geom.kind == "Point":
        return _point_in_boundary(env, geom.parts)
    if geom.kind in ("LineString", "LinearRing"):
        for p, q in zip(geom.parts, geom.parts[1:]):
            if p[0] == q[0] and p[1] == q[1]:
                if not _point_in_boundary(env, p):
                    return False
            elif p[0] == q[0]:
                if not (p[0] == env[0] or p[0] == env[1]):
                    return False
            elif p[1] == q[1]:
                if not (p[1] == env[2] or p[1] == env[3]):
                    return False
            else:
                return False
        return True
    return all(_in_boundary(env, m) for m in geom.parts)


def _matrix(a: Geom, b: Geom) -> str:
    """``RelateOp.relate(a, b)``: JTS's old relate, ported (relate_op.py). The predicates take another
    ``matrix`` function of the same answers (geospatial_scalar_functions.py's, with PointRelate's work kept across a batch's rows)."""
    return relate_matrix(a, b)


def _relate_contains(a: Geom, b: Geom, matrix=None) -> bool:
    """``GeometryRelate.contains`` (old path)."""
    if dimension(b) == 2 and dimension(a) < 2:
        return False
    if dimension(b) == 1 and dimension(a) < 1 and _length(b) > 0.0:
        return False
    if not _env_contains(envelope(a), envelope(b)):
        return False
    return _contains_im((matrix or _matrix)(a, b))


def _contains_im(im: str) -> bool:
    """``IntersectionMatrix.isContains``."""
    return im[0] != "F" and im[6] == "F" and im[7] == "F"


def _equals_im(im: str) -> bool:
    """``IntersectionMatrix.isEquals`` once the dimensions are equal."""
    return im[0] != "F" and im[2] == "F" and im[5] == "F" and im[6] == "F" and im[7] == "F"


def contains(a: Geom, b: Geom, matrix=None) -> bool:
    """``Geometry.contains``: a rectangle's short cut, else the relate."""
    if _is_rectangle(a):
        return _rectangle_contains(a, b)
    return _relate_contains(a, b, matrix)


def within(a: Geom, b: Geom, matrix=None) -> bool:
    """``Geometry.within``: ``GeometryRelate.contains(b, a)`` (no rectangle short cut on this path)."""
    return _relate_contains(b, a, matrix)


def equals(a: Geom, b: Geom, matrix=None) -> bool:
    """``Geometry.equals(Geometry)`` = ``equalsTopo``: envelopes equal (two empties' null ones are), then the
    matrix's T*F**FFF* with equal dimensions (never true for two empties). The matrix is computed before the
    dimensions are compared (``IntersectionMatrix.isEquals``), so a relate that throws fails the row even when
    the dimensions differ."""
    env_a, env_b = envelope(a), envelope(b)
    if env_a != env_b:
        return False
    if env_a is None:
        return False
    im = (matrix or _matrix)(a, b)
    if dimension(a) != dimension(b):
        return False
    return _equals_im(im)


def with_points(name: str, geom: Geom, point_first: bool, px: np.ndarray, py: np.ndarray):
    """``contains`` / ``within`` / ``equals`` of one geometry and many non-empty points (``point_first``: the
    points are the first argument), over arrays: the same short cuts as the functions above (a rectangle's, the
    dimensions, the envelopes), then the matrix from ``PointRelate`` (``geom``'s relate work done once, each point
    located by ``locate_many``). Returns (values, answered): a row not answered is one whose relate throws (or
    that ``PointRelate`` does not model): computed row by row by the functions above, which fail it as JTS does."""
    n = len(px)
    values, answered = np.zeros(n, np.bool_), np.ones(n, np.bool_)
    env = envelope(geom)
    if name == "contains" and not point_first and _is_rectangle(geom):
        # RectangleContains: inside the envelope and not on its boundary (a non-empty point)
        values[:] = ((px >= env[0]) & (px <= env[1]) & (py >= env[2]) & (py <= env[3])
                     & ~((px == env[0]) | (px == env[1]) | (py == env[2]) | (py == env[3])))
        return values, answered
    if env is None:
        return values, answered  # an empty geometry: no envelope, never related
    dim = dimension(geom)
    matrix_point_first = point_first  # equals: relate(a, b); contains / within: relate(container, contained)
    if name == "equals":
        need = (px == env[0]) & (px == env[1]) & (py == env[2]) & (py == env[3])

        def test(im: str) -> bool:
            return dim == 0 and _equals_im(im)  # the matrix first, then the dimensions (isEquals)
    else:
        test = _contains_im
        matrix_point_first = (name == "contains") == point_first
        if not matrix_point_first:  # _relate_contains(geom, point)
            need = (px >= env[0]) & (px <= env[1]) & (py >= env[2]) & (py <= env[3])
        else:  # _relate_contains(point, geom): a point contains no area nor a line of some length
            if dim == 2 or (dim == 1 and _length(geom) > 0.0):
                return values, answered
            need = (px <= env[0]) & (px >= env[1]) & (py <= env[2]) & (py >= env[3])
    rows = np.flatnonzero(need)
    if not len(rows):
        return values, answered
    relate = PointRelate(geom, matrix_point_first)
    if relate.error is not None or not relate.usable:
        answered[rows] = False
        return values, answered
    x, y = px[rows], py[rows]
    plain = ~((env[0] > x) | (env[1] < x) | (env[2] > y) | (env[3] < y))  # PointRelate.disjoint
    answered[rows[~plain]] = False  # the disjoint matrix: row by row (never here: the envelopes meet)
    node_xs = np.array([k[0] for k in relate.node_labels], np.float64)
    on_node = plain & np.isin(x, node_xs)
    for i in np.flatnonzero(on_node).tolist():
        label = relate.node_labels.get((float(x[i]), float(y[i])))
        if label is None:
            on_node[i] = False
        else:
            values[rows[i]] = test(relate.case(label, None))
    located = np.flatnonzero(plain & ~on_node)
    if len(located):
        table = np.array([test(relate.case(None, loc)) for loc in range(3)], np.bool_)
        values[rows[located]] = table[locate_many(x[located], y[located], geom)]
    return values, answered


def _envelopes_intersect(a, b, c, d) -> bool:
    """``Envelope.intersects(p1, p2, q1, q2)``."""
    min_q, max_q = min(c[0], d[0]), max(c[0], d[0])
    min_p, max_p = min(a[0], b[0]), max(a[0], b[0])
    if min_p > max_q or max_p < min_q:
        return False
    min_q, max_q = min(c[1], d[1]), max(c[1], d[1])
    min_p, max_p = min(a[1], b[1]), max(a[1], b[1])
    return not (min_p > max_q or max_p < min_q)


def _segment_to_segment(a, b, c, d) -> float:
    """``Distance.segmentToSegment``."""
    if a[0] == b[0] and a[1] == b[1]:
        return point_to_segment(a, c, d)
    if c[0] == d[0] and c[1] == d[1]:
        return point_to_segment(d, a, b)
    apart = False
    if not _envelopes_intersect(a, b, c, d):
        apart = True
    else:
        denom = (b[0] - a[0]) * (d[1] - c[1]) - (b[1] - a[1]) * (d[0] - c[0])
        if denom == 0:
            apart = True
        else:
            r_num = (a[1] - c[1]) * (d[0] - c[0]) - (a[0] - c[0]) * (d[1] - c[1])
            s_num = (a[1] - c[1]) * (b[0] - a[0]) - (a[0] - c[0]) * (b[1] - a[1])
            s, r = s_num / denom, r_num / denom
            if r < 0 or r > 1 or s < 0 or s > 1:
                apart = True
    if apart:
        found = point_to_segment(a, c, d)
        for v in (point_to_segment(b, c, d), point_to_segment(c, a, b), point_to_segment(d, a, b)):
            if v < found:  # MathUtil.min: a NaN first stays
                found = v
        return found
    return 0.0


def _components(geom: Geom):
    """Every component, collections opened (the order of JTS's ``apply``)."""
    if geom.kind in ("MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"):
        for m in geom.parts:
            yield from _components(m)
    else:
        yield geom


def _lines(geom: Geom) -> list[list]:
    """``LinearComponentExtracter``: line strings and every polygon's rings."""
    out = []
    for c in _components(geom):
        if c.kind in ("LineString", "LinearRing"):
            out.append(c.parts)
        elif c.kind == "Polygon":
            out.extend(c.parts)
    return out


def _contained(a: Geom, b: Geom) -> bool:
    """DistanceOp's containment: the first vertex of a non-empty point, line or polygon of one geometry not
    outside a polygon of the other (a polygonal one), located by ``PointLocator`` as JTS does."""
    for polys_of, locs_of in ((a, b), (b, a)):
        if dimension(polys_of) < 2:
            continue
        polys = [c for c in _components(polys_of) if c.kind == "Polygon"]
        locs = [c.coordinates()[0] for c in _components(locs_of) if not c.is_empty()]
        for pt in locs:
            if any(locate(pt, p) != EXTERIOR for p in polys):
                return True
    return False


def distance(a: Geom, b: Geom) -> float:
    """``Geometry.distance`` (``DistanceOp``, JTS 1.20) of two non-empty geometries: two points by
    ``Math.hypot``; else 0 when one holds a vertex of the other, else the least facet distance, starting from
    ``Double.MAX_VALUE`` (an infinite distance leaves that)."""
    if a.kind == "Point" and b.kind == "Point":
        return point_distance(a.parts, b.parts)
    if _contained(a, b):
        return 0.0
    found = sys.float_info.max
    lines_a, lines_b = _lines(a), _lines(b)
    points_a = [c.parts for c in _components(a) if c.kind == "Point" and c.parts is not None]
    points_b = [c.parts for c in _components(b) if c.kind == "Point" and c.parts is not None]
    for line_a in lines_a:
        for line_b in lines_b:
            for p, q in zip(line_a, line_a[1:]):
                for r, t in zip(line_b, line_b[1:]):
                    d = _segment_to_segment(p, q, r, t)
                    if d < found:
                        found = d
                    if found <= 0.0:
                        return found
    for lines, points in ((lines_a, points_b), (lines_b, points_a)):
        for line in lines:
            for pt in points:
                for p, q in zip(line, line[1:]):
                    d = point_to_segment(pt, p, q)
                    if d < found:
                        found = d
                    if found <= 0.0:
                        return found
    for p in points_a:
        for q in points_b:
            d = point_distance(p, q)
            if d < found:
                found = d
    return found
