"""The DE-9IM matrix as JTS 1.20's old ``RelateOp`` computes it: the one Pinot's ``ST_Contains`` / ``ST_Within``
/ ``ST_Equals`` read (``Geometry.contains`` / ``within`` / ``equalsTopo`` take it after their short cuts, which
live in geometry_relate.py; JTS 1.20 uses ``RelateNG`` only when the JVM's ``jts.relate`` property is ``ng``, and
Pinot does not set it).

Why a port and not GEOS: on valid, non-collection inputs any correct relate gives one matrix, but ``RelateOp``
builds a planar graph without checking validity, so on an invalid area (a self-crossing ring, overlapping
polygons inside a MULTIPOLYGON) or a GEOMETRYCOLLECTION its answer is whatever its labelling makes of the graph,
or a ``TopologyException`` ("side location conflict", Pinot's row fails), where GEOS 3.14's RelateNG answers by
other rules. The steps are JTS's, in its order, as far as the answer can depend on it:

* each argument's ``GeometryGraph``: an edge per line string and per polygon ring (repeated points dropped; a
  ring's left / right sides labelled by its orientation, ``Orientation.isCCW``), nodes at points, line ends (the
  Mod-2 boundary rule) and ring starts; self-noding by the monotone-chain sweep of
  ``SimpleMCSweepLineIntersector``, which for a Polygon / MultiPolygon argument tests only segments of different
  rings (a ring that crosses itself is never noded: the cause of most differences), and for anything else every
  pair of segments;
* the intersections of the two graphs (``SegmentIntersector``: proper / interior flags, boundary points), each
  point computed by ``RobustLineIntersector`` with the sweep's argument order (``CGAlgorithmsDD``'s
  double-double intersection and orientation, its filter, nearest-endpoint fallback), kept per edge by
  (segment index, ``computeEdgeDistance``), the first one kept on a tie;
* ``RelateComputer``: nodes labelled from the intersections (boundary parity), the argument graphs' own node
  labels, isolated nodes and edges located with ``PointLocator`` (a GEOMETRYCOLLECTION's sub-collections visited
  twice, as JTS's ``GeometryCollectionIterator`` makes it), edge ends (``EdgeEndBuilder``) bundled by direction
  around each node (``EdgeEndBundleStar``, ordered by quadrant and orientation), their sides propagated
  (``propagateSideLabels``: the TopologyException) and the rest located with ``SimplePointInAreaLocator``;
* the matrix from the proper intersections, the nodes and the bundles' labels.

JTS's assertion failures (``AssertionFailedException``) and exceptions are raised as ``JavaException``: the row
fails in Pinot too (null under ``continueOnError``). Also the home of the primitives geometry_relate.py's
``DistanceOp`` shares: ``Coordinate.distance`` (fdlibm's hypot), ``Distance.pointToSegment``, ``PointLocator``.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from ..exceptions import JavaException
from .geometry import Geom

INTERIOR, BOUNDARY, EXTERIOR, NONE = 0, 1, 2, -1
ON, LEFT, RIGHT = 0, 1, 2
_SPLIT = 134217729.0  # DD's 2^27 + 1
_COLLECTIONS = ("MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection")


def _fail(message: str) -> JavaException:
    return JavaException(message)


def _assert(condition: bool, message: str) -> None:
    if not condition:
        raise _fail(f"AssertionFailedException: {message}")


def _div(a: float, b: float) -> float:
    """Java's ``a / b`` (Python raises on a zero divisor)."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


# --- DD (double-double) arithmetic, as org.locationtech.jts.math.DD does it ----------------------------


def _dd_add1(hi: float, lo: float, y: float) -> tuple[float, float]:
    """``selfAdd(double)``."""
    s_ = hi + y
    e = s_ - hi
    s = s_ - e
    s = (y - e) + (hi - s)
    f = s + lo
    h_ = s_ + f
    h = f + (s_ - h_)
    zhi = h_ + h
    return zhi, h + (h_ - zhi)


def _dd_add(hi: float, lo: float, yhi: float, ylo: float) -> tuple[float, float]:
    """``selfAdd(double, double)``."""
    s_ = hi + yhi
    t_ = lo + ylo
    e = s_ - hi
    f = t_ - lo
    s = s_ - e
    t = t_ - f
    s = (yhi - e) + (hi - s)
    t = (ylo - f) + (lo - t)
    e = s + t_
    h_ = s_ + e
    h = e + (s_ - h_)
    e = t + h
    zhi = h_ + e
    return zhi, e + (h_ - zhi)


def _dd_sub(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``selfSubtract(DD)`` (a NaN stays)."""
    if a[0] != a[0]:
        return a
    return _dd_add(a[0], a[1], -b[0], -b[1])


def _dd_mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``selfMultiply(double hi, double lo)``."""
    hi, lo = a
    yhi, ylo = b
    c_ = _SPLIT * hi
    hx = c_ - hi
    c = _SPLIT * yhi
    hx = c_ - hx
    tx = hi - hx
    hy = c - yhi
    c_ = hi * yhi
    hy = c - hy
    ty = yhi - hy
    c = ((((hx * hy - c_) + hx * ty) + tx * hy) + tx * ty) + (hi * ylo + lo * yhi)
    zhi = c_ + c
    hx = c_ - zhi
    return zhi, c + hx


def _dd_multiply(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``multiply(DD)``: a NaN argument gives NaN."""
    if b[0] != b[0]:
        return math.nan, math.nan
    return _dd_mul(a, b)


def _dd_div(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``selfDivide(double hi, double lo)``."""
    hi, lo = a
    yhi, ylo = b
    c_ = _div(hi, yhi)
    c = _SPLIT * c_
    hc = c - c_
    u = _SPLIT * yhi
    hc = c - hc
    tc = c_ - hc
    hy = u - yhi
    u_ = c_ * yhi
    hy = u - hy
    ty = yhi - hy
    u = (((hc * hy - u_) + hc * ty) + tc * hy) + tc * ty
    c = _div(((((hi - u_) - u) + lo) - c_ * ylo), yhi)
    u = c_ + c
    return u, (c_ - u) + c


def _dd_signum(a: tuple[float, float]) -> int:
    hi, lo = a
    if hi > 0:
        return 1
    if hi < 0:
        return -1
    if lo > 0:
        return 1
    if lo < 0:
        return -1
    return 0


def _signum(x: float) -> int:
    return 1 if x > 0 else -1 if x < 0 else 0


def orientation_index(p1, p2, q) -> int:
    """``Orientation.index`` = ``CGAlgorithmsDD.orientationIndex``: the double filter, then DD."""
    pax, pay, pbx, pby, pcx, pcy = p1[0], p1[1], p2[0], p2[1], q[0], q[1]
    detleft = (pax - pcx) * (pby - pcy)
    detright = (pay - pcy) * (pbx - pcx)
    det = detleft - detright
    if detleft > 0.0:
        if detright <= 0.0:
            return _signum(det)
        detsum = detleft + detright
    elif detleft < 0.0:
        if detright >= 0.0:
            return _signum(det)
        detsum = -detleft - detright
    else:
        return _signum(det)
    errbound = 1e-15 * detsum
    if det >= errbound or -det >= errbound:
        return _signum(det)
    dx1 = _dd_add1(p2[0], 0.0, -p1[0])
    dy1 = _dd_add1(p2[1], 0.0, -p1[1])
    dx2 = _dd_add1(q[0], 0.0, -p2[0])
    dy2 = _dd_add1(q[1], 0.0, -p2[1])
    return _dd_signum(_dd_sub(_dd_mul(dx1, dy2), _dd_mul(dy1, dx2)))


def _dd_of_diff(a: float, b: float) -> tuple[float, float]:
    """``new DD(a).selfSubtract(b)`` (selfAdd(-b, 0.0))."""
    if a != a:
        return a, 0.0
    return _dd_add(a, 0.0, -b, 0.0)


def _dd_intersection(p1, p2, q1, q2):
    """``CGAlgorithmsDD.intersection``: None when the lines are parallel (a NaN or infinite result)."""
    px = _dd_of_diff(p1[1], p2[1])
    py = _dd_of_diff(p2[0], p1[0])
    pw = _dd_sub(_dd_mul((p1[0], 0.0), (p2[1], 0.0)), _dd_mul((p2[0], 0.0), (p1[1], 0.0)))
    qx = _dd_of_diff(q1[1], q2[1])
    qy = _dd_of_diff(q2[0], q1[0])
    qw = _dd_sub(_dd_mul((q1[0], 0.0), (q2[1], 0.0)), _dd_mul((q2[0], 0.0), (q1[1], 0.0)))
    x = _dd_sub(_dd_multiply(py, qw), _dd_multiply(qy, pw))
    y = _dd_sub(_dd_multiply(qx, pw), _dd_multiply(px, qw))
    w = _dd_sub(_dd_multiply(px, qy), _dd_multiply(qx, py))
    xd = _dd_div(x, w)
    yd = _dd_div(y, w)
    x_int, y_int = xd[0] + xd[1], yd[0] + yd[1]
    if math.isnan(x_int) or math.isinf(x_int) or math.isnan(y_int) or math.isinf(y_int):
        return None
    return (x_int, y_int)


# --- envelopes and small geometry helpers ---------------------------------------------------------------


def _env_point(p1, p2, q) -> bool:
    """``Envelope.intersects(p1, p2, q)``."""
    return ((min(p1[0], p2[0]) <= q[0] <= max(p1[0], p2[0]))
            and (min(p1[1], p2[1]) <= q[1] <= max(p1[1], p2[1])))


def _env_segments(p1, p2, q1, q2) -> bool:
    """``Envelope.intersects(p1, p2, q1, q2)``."""
    if min(p1[0], p2[0]) > max(q1[0], q2[0]) or max(p1[0], p2[0]) < min(q1[0], q2[0]):
        return False
    return not (min(p1[1], p2[1]) > max(q1[1], q2[1]) or max(p1[1], p2[1]) < min(q1[1], q2[1]))


def _env_of(points) -> tuple[float, float, float, float] | None:
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), max(xs), min(ys), max(ys))


def _env_has(env, p) -> bool:
    """``Envelope.intersects(Coordinate)`` (a null envelope holds nothing)."""
    return env is not None and env[0] <= p[0] <= env[1] and env[2] <= p[1] <= env[3]


def geometry_envelope(geom: Geom) -> tuple[float, float, float, float] | None:
    """``getEnvelopeInternal`` as (min x, max x, min y, max y), None when empty: a polygon's is its shell's
    (holes are not looked at), a collection's the union of its members' (empties have none)."""
    if geom.kind == "Point":
        return None if geom.parts is None else (geom.parts[0], geom.parts[0], geom.parts[1], geom.parts[1])
    if geom.kind in ("LineString", "LinearRing"):
        return _env_of(geom.parts)
    if geom.kind == "Polygon":
        return _env_of(geom.parts[0]) if geom.parts else None
    env = None
    for m in geom.parts:
        e = geometry_envelope(m)
        if e is None:
            continue
        env = e if env is None else (min(env[0], e[0]), max(env[1], e[1]), min(env[2], e[2]), max(env[3], e[3]))
    return env


def dimension(geom: Geom) -> int:
    """``getDimension``: a collection's is its members' highest (-1 when it has none); an empty polygon's is 2."""
    if geom.kind in ("Point", "MultiPoint"):
        return 0
    if geom.kind in ("LineString", "LinearRing", "MultiLineString"):
        return 1
    if geom.kind in ("Polygon", "MultiPolygon"):
        return 2
    return max((dimension(m) for m in geom.parts), default=-1)


def _quadrant(dx: float, dy: float) -> int:
    if dx == 0.0 and dy == 0.0:
        raise _fail(f"IllegalArgumentException: Cannot compute the quadrant for point ( {dx}, {dy} )")
    if dx >= 0.0:
        return 0 if dy >= 0.0 else 3
    return 1 if dy >= 0.0 else 2


def _quadrant_of(p0, p1) -> int:
    if p1[0] == p0[0] and p1[1] == p0[1]:
        raise _fail(f"IllegalArgumentException: Cannot compute the quadrant for two identical points {p0}")
    if p1[0] >= p0[0]:
        return 0 if p1[1] >= p0[1] else 3
    return 1 if p1[1] >= p0[1] else 2


def _remove_repeated(coords: list) -> list:
    out = []
    for c in coords:
        if not out or not (out[-1][0] == c[0] and out[-1][1] == c[1]):
            out.append(c)
    return out


def _is_ccw(ring: list) -> bool:
    """``Orientation.isCCW`` (JTS 1.20: a flat or degenerate ring is not CCW)."""
    n = len(ring) - 1
    if n < 3:
        return False
    up_hi = ring[0]
    prev_y = up_hi[1]
    up_low = None
    i_up_hi = 0
    for i in range(1, n + 1):
        py = ring[i][1]
        if py > prev_y and py >= up_hi[1]:
            up_hi = ring[i]
            i_up_hi = i
            up_low = ring[i - 1]
        prev_y = py
    if i_up_hi == 0:
        return False
    i_down_low = i_up_hi
    while True:
        i_down_low = (i_down_low + 1) % n
        if not (i_down_low != i_up_hi and ring[i_down_low][1] == up_hi[1]):
            break
    down_low = ring[i_down_low]
    down_hi = ring[i_down_low - 1 if i_down_low > 0 else n - 1]
    if up_hi[0] == down_hi[0] and up_hi[1] == down_hi[1]:
        if _eq(up_low, up_hi) or _eq(down_low, up_hi) or _eq(up_low, down_low):
            return False
        return orientation_index(up_low, up_hi, down_low) == 1
    return down_hi[0] - up_hi[0] < 0


def _eq(a, b) -> bool:
    return a[0] == b[0] and a[1] == b[1]


# --- JTS's distance primitives (Coordinate.distance, Distance.pointToSegment), shared with DistanceOp's port


def _words(x: float) -> tuple[int, int]:
    bits = struct.unpack(">Q", struct.pack(">d", x))[0]
    return bits >> 32, bits & 0xFFFFFFFF


def _with_high(x: float, high: int) -> float:
    return struct.unpack(">d", struct.pack(">Q", ((high & 0xFFFFFFFF) << 32) | _words(x)[1]))[0]


def _hypot(x: float, y: float) -> float:
    """``StrictMath.hypot`` (fdlibm's e_hypot, which Java's ``Math.hypot`` calls): its own rounding, which
    Python's ``math.hypot`` does not share in the last bit."""
    ha, hb = _words(x)[0] & 0x7FFFFFFF, _words(y)[0] & 0x7FFFFFFF
    if hb > ha:
        a, b, ha, hb = y, x, hb, ha
    else:
        a, b = x, y
    a, b = _with_high(a, ha), _with_high(b, hb)  # |a|, |b|
    if ha - hb > 0x3C00000:  # a / b > 2**60
        return a + b
    k = 0
    if ha > 0x5F300000:  # a > 2**500
        if ha >= 0x7FF00000:  # Inf or NaN
            w = a + b
            if ((ha & 0xFFFFF) | _words(a)[1]) == 0:
                w = a
            if (((hb ^ 0x7FF00000) & 0xFFFFFFFF) | _words(b)[1]) == 0:
                w = b
            return w
        ha, hb, k = ha - 0x25800000, hb - 0x25800000, k + 600  # scale by 2**-600
        a, b = _with_high(a, ha), _with_high(b, hb)
    if hb < 0x20B00000:  # b < 2**-500
        if hb <= 0x000FFFFF:  # subnormal b or 0
            if (hb | _words(b)[1]) == 0:
                return a
            t1 = _with_high(0.0, 0x7FD00000)  # 2**1022
            b, a, k = b * t1, a * t1, k - 1022
        else:  # scale by 2**600
            ha, hb, k = ha + 0x25800000, hb + 0x25800000, k - 600
            a, b = _with_high(a, ha), _with_high(b, hb)
    w = a - b
    if w > b:
        t1 = _with_high(0.0, ha)
        t2 = a - t1
        w = math.sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)))
    else:
        a = a + a
        y1 = _with_high(0.0, hb)
        y2 = b - y1
        t1 = _with_high(0.0, ha + 0x00100000)
        t2 = a - t1
        w = math.sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)))
    if k != 0:
        return _with_high(1.0, _words(1.0)[0] + (k << 20)) * w
    return w


def point_distance(p, q) -> float:
    """``Coordinate.distance``: ``Math.hypot`` (so 1e300 away is 1e300, not an overflow)."""
    return _hypot(p[0] - q[0], p[1] - q[1])


def point_to_segment(p, a, b) -> float:
    """``Distance.pointToSegment``."""
    if a[0] == b[0] and a[1] == b[1]:
        return point_distance(p, a)
    len2 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1])
    r = _div((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]), len2)
    if r <= 0.0:
        return point_distance(p, a)
    if r >= 1.0:
        return point_distance(p, b)
    s = _div((a[1] - p[1]) * (b[0] - a[0]) - (a[0] - p[0]) * (b[1] - a[1]), len2)
    return abs(s) * math.sqrt(len2)


# --- RobustLineIntersector ------------------------------------------------------------------------------

NO_INTERSECTION, POINT_INTERSECTION, COLLINEAR_INTERSECTION = 0, 1, 2


class _LineIntersector:
    def __init__(self):
        self.result = 0
        self.lines = [[None, None], [None, None]]
        self.pts = [(0.0, 0.0), (0.0, 0.0)]
        self.proper = False

    def compute(self, p1, p2, q1, q2) -> None:
        self.lines[0][0], self.lines[0][1], self.lines[1][0], self.lines[1][1] = p1, p2, q1, q2
        self.result = self._intersect(p1, p2, q1, q2)

    def _intersect(self, p1, p2, q1, q2) -> int:
        self.proper = False
        if not _env_segments(p1, p2, q1, q2):
            return NO_INTERSECTION
        pq1 = orientation_index(p1, p2, q1)
        pq2 = orientation_index(p1, p2, q2)
        if (pq1 > 0 and pq2 > 0) or (pq1 < 0 and pq2 < 0):
            return NO_INTERSECTION
        qp1 = orientation_index(q1, q2, p1)
        qp2 = orientation_index(q1, q2, p2)
        if (qp1 > 0 and qp2 > 0) or (qp1 < 0 and qp2 < 0):
            return NO_INTERSECTION
        if pq1 == 0 and pq2 == 0 and qp1 == 0 and qp2 == 0:
            return self._collinear(p1, p2, q1, q2)
        if pq1 == 0 or pq2 == 0 or qp1 == 0 or qp2 == 0:
            self.proper = False
            if _eq(p1, q1) or _eq(p1, q2):
                p = p1
            elif _eq(p2, q1) or _eq(p2, q2):
                p = p2
            elif pq1 == 0:
                p = q1
            elif pq2 == 0:
                p = q2
            elif qp1 == 0:
                p = p1
            else:
                p = p2
        else:
            self.proper = True
            p = self._intersection(p1, p2, q1, q2)
        self.pts[0] = p
        return POINT_INTERSECTION

    def _collinear(self, p1, p2, q1, q2) -> int:
        q1in_p, q2in_p = _env_point(p1, p2, q1), _env_point(p1, p2, q2)
        p1in_q, p2in_q = _env_point(q1, q2, p1), _env_point(q1, q2, p2)
        if q1in_p and q2in_p:
            self.pts[0], self.pts[1] = q1, q2
            return COLLINEAR_INTERSECTION
        if p1in_q and p2in_q:
            self.pts[0], self.pts[1] = p1, p2
            return COLLINEAR_INTERSECTION
        if q1in_p and p1in_q:
            self.pts[0], self.pts[1] = q1, p1
            return POINT_INTERSECTION if _eq(q1, p1) and not q2in_p and not p2in_q else COLLINEAR_INTERSECTION
        if q1in_p and p2in_q:
            self.pts[0], self.pts[1] = q1, p2
            return POINT_INTERSECTION if _eq(q1, p2) and not q2in_p and not p1in_q else COLLINEAR_INTERSECTION
        if q2in_p and p1in_q:
            self.pts[0], self.pts[1] = q2, p1
            return POINT_INTERSECTION if _eq(q2, p1) and not q1in_p and not p2in_q else COLLINEAR_INTERSECTION
        if q2in_p and p2in_q:
            self.pts[0], self.pts[1] = q2, p2
            return POINT_INTERSECTION if _eq(q2, p2) and not q1in_p and not p1in_q else COLLINEAR_INTERSECTION
        return NO_INTERSECTION

    def _intersection(self, p1, p2, q1, q2):
        pt = _dd_intersection(p1, p2, q1, q2)
        if pt is None:
            pt = _nearest_endpoint(p1, p2, q1, q2)
        (a0, a1), (b0, b1) = self.lines
        if not (_env_covers(a0, a1, pt) and _env_covers(b0, b1, pt)):
            pt = _nearest_endpoint(p1, p2, q1, q2)
        return pt

    def has_intersection(self) -> bool:
        return self.result != NO_INTERSECTION

    def is_proper(self) -> bool:
        return self.result != NO_INTERSECTION and self.proper

    def edge_distance(self, segment_index: int, int_index: int) -> float:
        return _edge_distance(self.pts[int_index], self.lines[segment_index][0], self.lines[segment_index][1])


def _env_covers(a, b, p) -> bool:
    """``new Envelope(a, b).contains(p)``."""
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def _nearest_endpoint(p1, p2, q1, q2):
    nearest, least = p1, point_to_segment(p1, q1, q2)
    for pt, a, b in ((p2, q1, q2), (q1, p1, p2), (q2, p1, p2)):
        d = point_to_segment(pt, a, b)
        if d < least:
            least, nearest = d, pt
    return nearest


def _edge_distance(p, p0, p1) -> float:
    """``LineIntersector.computeEdgeDistance``."""
    dx, dy = abs(p1[0] - p0[0]), abs(p1[1] - p0[1])
    if _eq(p, p0):
        dist = 0.0
    elif _eq(p, p1):
        dist = dx if dx > dy else dy
    else:
        pdx, pdy = abs(p[0] - p0[0]), abs(p[1] - p0[1])
        dist = pdx if dx > dy else pdy
        if dist == 0.0 and not _eq(p, p0):
            dist = max(pdx, pdy)
    _assert(not (dist == 0.0 and not _eq(p, p0)), "Bad distance calculation")
    return dist


# --- labels -----------------------------------------------------------------------------------------------


class _Label:
    __slots__ = ("elt",)

    def __init__(self, elt):
        self.elt = elt

    @staticmethod
    def on(geom_index: int, loc: int) -> "_Label":
        elt = [[NONE], [NONE]]
        elt[geom_index][0] = loc
        return _Label(elt)

    @staticmethod
    def area(geom_index: int, on: int, left: int, right: int) -> "_Label":
        elt = [[NONE, NONE, NONE], [NONE, NONE, NONE]]
        elt[geom_index] = [on, left, right]
        return _Label(elt)

    def copy(self) -> "_Label":
        return _Label([list(self.elt[0]), list(self.elt[1])])

    def flip(self) -> None:
        for t in self.elt:
            if len(t) > 1:
                t[LEFT], t[RIGHT] = t[RIGHT], t[LEFT]

    def get(self, geom_index: int, pos: int = ON) -> int:
        t = self.elt[geom_index]
        return t[pos] if pos < len(t) else NONE

    def set(self, geom_index: int, loc: int, pos: int = ON) -> None:
        self.elt[geom_index][pos] = loc

    def set_all(self, geom_index: int, loc: int) -> None:
        t = self.elt[geom_index]
        for i in range(len(t)):
            t[i] = loc

    def set_all_if_null(self, geom_index: int, loc: int) -> None:
        t = self.elt[geom_index]
        for i in range(len(t)):
            if t[i] == NONE:
                t[i] = loc

    def is_null(self, geom_index: int) -> bool:
        return all(v == NONE for v in self.elt[geom_index])

    def is_any_null(self, geom_index: int) -> bool:
        return any(v == NONE for v in self.elt[geom_index])

    def count(self) -> int:
        return (not self.is_null(0)) + (not self.is_null(1))

    def is_area(self, geom_index: int | None = None) -> bool:
        if geom_index is None:
            return len(self.elt[0]) > 1 or len(self.elt[1]) > 1
        return len(self.elt[geom_index]) > 1

    def is_line(self, geom_index: int) -> bool:
        return len(self.elt[geom_index]) == 1


# --- graph components -------------------------------------------------------------------------------------


class _EdgeIntersection:
    __slots__ = ("coord", "seg", "dist")

    def __init__(self, coord, seg, dist):
        self.coord, self.seg, self.dist = coord, seg, dist


class _Edge:
    def __init__(self, pts: list, label: _Label):
        self.pts = pts
        self.label = label
        self.ei: dict[tuple[int, float], _EdgeIntersection] = {}
        self.isolated = True
        self._starts = None

    def add_ei(self, coord, seg: int, dist: float) -> None:
        key = (seg, dist)
        if key not in self.ei:  # EdgeIntersectionList: the first one at a (segment, distance) stays
            self.ei[key] = _EdgeIntersection(coord, seg, dist)

    def sorted_ei(self) -> list[_EdgeIntersection]:
        return [self.ei[k] for k in sorted(self.ei)]

    def add_intersections(self, li: _LineIntersector, segment_index: int, geom_index: int) -> None:
        for i in range(li.result):
            pt = li.pts[i]
            seg = segment_index
            dist = li.edge_distance(geom_index, i)
            nxt = seg + 1
            if nxt < len(self.pts) and _eq(pt, self.pts[nxt]):
                seg, dist = nxt, 0.0
            self.add_ei(pt, seg, dist)

    def is_closed(self) -> bool:
        return _eq(self.pts[0], self.pts[-1])

    def chain_starts(self) -> list[int]:
        """``MonotoneChainIndexer.getChainStartIndices``: runs of segments in one quadrant."""
        if self._starts is None:
            pts = self.pts
            starts = [0]
            start = 0
            while True:
                quad = _quadrant_of(pts[start], pts[start + 1])
                last = start + 1
                while last < len(pts):
                    if _quadrant_of(pts[last - 1], pts[last]) != quad:
                        break
                    last += 1
                start = last - 1
                starts.append(start)
                if start >= len(pts) - 1:
                    break
            self._starts = starts
        return self._starts


class _Node:
    __slots__ = ("coord", "label", "star")

    def __init__(self, coord, with_star: bool):
        self.coord = coord
        self.label = _Label.on(0, NONE)
        self.star = _BundleStar() if with_star else None


class _NodeMap:
    def __init__(self, with_star: bool):
        self.nodes: dict[tuple[float, float], _Node] = {}
        self.with_star = with_star

    def add(self, coord) -> _Node:
        key = (coord[0], coord[1])
        node = self.nodes.get(key)
        if node is None:
            node = self.nodes[key] = _Node(coord, self.with_star)
        return node

    def find(self, coord):
        return self.nodes.get((coord[0], coord[1]))

    def values(self):
        # TreeMap order (x, then y): nothing here depends on it, but it keeps runs reproducible
        return [self.nodes[k] for k in sorted(self.nodes)]


def _mod2(count: int) -> int:
    """``GeometryGraph.determineBoundary`` with the Mod-2 rule."""
    return BOUNDARY if count % 2 == 1 else INTERIOR


class _GeometryGraph:
    def __init__(self, arg_index: int, geom: Geom):
        self.arg_index = arg_index
        self.geom = geom
        self.edges: list[_Edge] = []
        self.nodes = _NodeMap(False)
        self.use_boundary_rule = True
        self._boundary_nodes = None
        self._add(geom)

    def _add(self, g: Geom) -> None:
        if g.is_empty():
            return
        if g.kind == "MultiPolygon":
            self.use_boundary_rule = False
        if g.kind == "Polygon":
            self._add_polygon(g)
        elif g.kind in ("LineString", "LinearRing"):
            self._add_line(g.parts)
        elif g.kind == "Point":
            self._insert_point(g.parts, INTERIOR)
        else:
            for m in g.parts:
                self._add(m)

    def _add_ring(self, ring: list, cw_left: int, cw_right: int) -> None:
        if not ring:
            return
        coords = _remove_repeated(ring)
        if len(coords) < 4:
            return  # hasTooFewPoints: the ring is left out
        left, right = (cw_right, cw_left) if _is_ccw(coords) else (cw_left, cw_right)
        self.edges.append(_Edge(coords, _Label.area(self.arg_index, BOUNDARY, left, right)))
        self._insert_point(coords[0], BOUNDARY)

    def _add_polygon(self, g: Geom) -> None:
        self._add_ring(g.parts[0], EXTERIOR, INTERIOR)
        for hole in g.parts[1:]:
            self._add_ring(hole, INTERIOR, EXTERIOR)

    def _add_line(self, line: list) -> None:
        coords = _remove_repeated(line)
        if len(coords) < 2:
            return
        self.edges.append(_Edge(coords, _Label.on(self.arg_index, INTERIOR)))
        self._insert_boundary_point(coords[0])
        self._insert_boundary_point(coords[-1])

    def _insert_point(self, coord, loc: int) -> None:
        self.nodes.add(coord).label.set(self.arg_index, loc)

    def _insert_boundary_point(self, coord) -> None:
        label = self.nodes.add(coord).label
        count = 2 if label.get(self.arg_index) == BOUNDARY else 1
        label.set(self.arg_index, _mod2(count))

    def boundary_nodes(self) -> list[_Node]:
        if self._boundary_nodes is None:
            self._boundary_nodes = [n for n in self.nodes.values() if n.label.get(self.arg_index) == BOUNDARY]
        return self._boundary_nodes

    def compute_self_nodes(self, li: _LineIntersector) -> None:
        si = _SegmentIntersector(li, include_proper=True, record_isolated=False)
        is_rings = self.geom.kind in ("Polygon", "MultiPolygon", "LinearRing")
        # rings: only chains of different edges meet (a ring is not tested against itself)
        _sweep([(e, None if not is_rings else e) for e in self.edges], si)
        for e in self.edges:
            loc = e.label.get(self.arg_index)
            for ei in e.sorted_ei():
                self._add_self_node(ei.coord, loc)

    def _add_self_node(self, coord, loc: int) -> None:
        node = self.nodes.find(coord)
        if node is not None and node.label.get(self.arg_index) == BOUNDARY:
            return
        if loc == BOUNDARY and self.use_boundary_rule:
            self._insert_boundary_point(coord)
        else:
            self._insert_point(coord, loc)

    def compute_edge_intersections(self, other: "_GeometryGraph", li: _LineIntersector) -> "_SegmentIntersector":
        si = _SegmentIntersector(li, include_proper=False, record_isolated=True)
        si.set_boundary_nodes(self.boundary_nodes(), other.boundary_nodes())
        _sweep([(e, 0) for e in self.edges] + [(e, 1) for e in other.edges], si)
        return si


class _SegmentIntersector:
    def __init__(self, li: _LineIntersector, include_proper: bool, record_isolated: bool):
        self.li = li
        self.include_proper = include_proper
        self.record_isolated = record_isolated
        self.boundary_nodes = None
        self.has_proper = False
        self.has_proper_interior = False

    def add(self, e0: _Edge, seg0: int, e1: _Edge, seg1: int) -> None:
        if e0 is e1 and seg0 == seg1:
            return
        li = self.li
        li.compute(e0.pts[seg0], e0.pts[seg0 + 1], e1.pts[seg1], e1.pts[seg1 + 1])
        if not li.has_intersection():
            return
        if self.record_isolated:
            e0.isolated = False
            e1.isolated = False
        if e0 is e1 and li.result == 1:  # isTrivialIntersection
            if abs(seg0 - seg1) == 1:
                return
            if e0.is_closed():
                last = len(e0.pts) - 1
                if (seg0 == 0 and seg1 == last) or (seg1 == 0 and seg0 == last):
                    return
        is_boundary = self._is_boundary_point()
        if self.include_proper or not li.is_proper() or is_boundary:
            e0.add_intersections(li, seg0, 0)
            e1.add_intersections(li, seg1, 1)
        if li.is_proper():
            self.has_proper = True
            if not is_boundary:
                self.has_proper_interior = True

    def set_boundary_nodes(self, *node_lists) -> None:
        # a set of the boundary nodes' points (none holds a NaN: equals2D never matches one)
        self.boundary_nodes = {(n.coord[0], n.coord[1]) for nodes in node_lists for n in nodes
                               if n.coord[0] == n.coord[0] and n.coord[1] == n.coord[1]}

    def _is_boundary_point(self) -> bool:
        """``isBoundaryPoint``: an intersection point is a boundary node of either argument."""
        if self.boundary_nodes is None:
            return False
        li = self.li
        return any((li.pts[i][0], li.pts[i][1]) in self.boundary_nodes for i in range(li.result))


def _sweep(items: list, si: _SegmentIntersector) -> None:
    """``SimpleMCSweepLineIntersector``: monotone chains as insert / delete events by x (stable: inserts before
    deletes at one x), each chain tested against the chains inserted before its delete whose label differs (a
    None label differs from every label, its own included)."""
    if not items or (items[0][1] is not None and all(label == items[0][1] for _, label in items)):
        return  # one label (a polygon's single ring, an argument against one without edges): no pair is tested
    events = []  # [x, type, label, edge, chain, delete index]
    for edge, label in items:
        starts = edge.chain_starts()
        for i in range(len(starts) - 1):
            x1, x2 = edge.pts[starts[i]][0], edge.pts[starts[i + 1]][0]
            insert = [x1 if x1 < x2 else x2, 1, label, edge, i, 0]
            events.append(insert)
            events.append([x1 if x1 > x2 else x2, 2, insert])
    events.sort(key=lambda ev: (ev[0], ev[1]))
    for i, ev in enumerate(events):
        if ev[1] == 2:
            ev[2][5] = i
    for i, ev in enumerate(events):
        if ev[1] != 1:
            continue
        for j in range(i, ev[5]):
            other = events[j]
            if other[1] != 1:
                continue
            if ev[2] is not None and ev[2] == other[2]:  # isSameLabel (an edge: itself; else its argument)
                continue
            e0, e1 = ev[3], other[3]
            s0, s1 = e0.chain_starts(), e1.chain_starts()
            _chain_pair(e0, s0[ev[4]], s0[ev[4] + 1], e1, s1[other[4]], s1[other[4] + 1], si)


def _chain_pair(e0: _Edge, start0: int, end0: int, e1: _Edge, start1: int, end1: int, si) -> None:
    """``MonotoneChainEdge.computeIntersectsForChain``: halves while the end points' envelopes meet."""
    if end0 - start0 == 1 and end1 - start1 == 1:
        si.add(e0, start0, e1, start1)
        return
    if not _env_segments(e0.pts[start0], e0.pts[end0], e1.pts[start1], e1.pts[end1]):
        return
    mid0, mid1 = (start0 + end0) // 2, (start1 + end1) // 2
    if start0 < mid0:
        if start1 < mid1:
            _chain_pair(e0, start0, mid0, e1, start1, mid1, si)
        if mid1 < end1:
            _chain_pair(e0, start0, mid0, e1, mid1, end1, si)
    if mid0 < end0:
        if start1 < mid1:
            _chain_pair(e0, mid0, end0, e1, start1, mid1, si)
        if mid1 < end1:
            _chain_pair(e0, mid0, end0, e1, mid1, end1, si)


# --- edge ends and their bundles ----------------------------------------------------------------------------


class _EdgeEnd:
    __slots__ = ("edge", "p0", "p1", "dx", "dy", "quadrant", "label")

    def __init__(self, edge: _Edge, p0, p1, label: _Label):
        self.edge, self.p0, self.p1, self.label = edge, p0, p1, label
        self.dx, self.dy = p1[0] - p0[0], p1[1] - p0[1]
        self.quadrant = _quadrant(self.dx, self.dy)
        _assert(not (self.dx == 0 and self.dy == 0), "EdgeEnd with identical endpoints found")

    def compare(self, other: "_EdgeEnd") -> int:
        """``compareDirection``: by quadrant, then by orientation (counter-clockwise from the x axis)."""
        if self.dx == other.dx and self.dy == other.dy:
            return 0
        if self.quadrant != other.quadrant:
            return 1 if self.quadrant > other.quadrant else -1
        return orientation_index(other.p0, other.p1, self.p1)


class _Bundle:
    """``EdgeEndBundle``: the edge ends of one direction at a node."""

    __slots__ = ("key", "ends", "label")

    def __init__(self, end: _EdgeEnd):
        self.key = end
        self.ends = [end]
        self.label = end.label.copy()

    def compute_label(self) -> None:
        is_area = any(e.label.is_area() for e in self.ends)
        self.label = _Label([[NONE, NONE, NONE], [NONE, NONE, NONE]]) if is_area else _Label([[NONE], [NONE]])
        for i in range(2):
            self._label_on(i)
            if is_area:
                self._label_side(i, LEFT)
                self._label_side(i, RIGHT)

    def _label_on(self, geom_index: int) -> None:
        boundary_count, interior = 0, False
        for e in self.ends:
            loc = e.label.get(geom_index)
            if loc == BOUNDARY:
                boundary_count += 1
            if loc == INTERIOR:
                interior = True
        loc = INTERIOR if interior else NONE
        if boundary_count > 0:
            loc = _mod2(boundary_count)
        self.label.set(geom_index, loc)

    def _label_side(self, geom_index: int, side: int) -> None:
        for e in self.ends:
            if e.label.is_area():
                loc = e.label.get(geom_index, side)
                if loc == INTERIOR:
                    self.label.set(geom_index, INTERIOR, side)
                    return
                if loc == EXTERIOR:
                    self.label.set(geom_index, EXTERIOR, side)


class _BundleStar:
    """``EdgeEndBundleStar``: a node's bundles sorted by direction (a TreeMap keyed by the first edge end)."""

    def __init__(self):
        self.bundles: list[_Bundle] = []
        self.pt_in_area = [NONE, NONE]

    def insert(self, end: _EdgeEnd) -> None:
        lo, hi = 0, len(self.bundles)
        while lo < hi:
            mid = (lo + hi) // 2
            c = end.compare(self.bundles[mid].key)
            if c == 0:
                self.bundles[mid].ends.append(end)
                return
            if c < 0:
                hi = mid
            else:
                lo = mid + 1
        self.bundles.insert(lo, _Bundle(end))

    def compute_labelling(self, graphs: list[_GeometryGraph]) -> None:
        for b in self.bundles:
            b.compute_label()
        self._propagate_sides(0)
        self._propagate_sides(1)
        collapsed = [False, False]
        for b in self.bundles:
            for i in range(2):
                if b.label.is_line(i) and b.label.get(i) == BOUNDARY:
                    collapsed[i] = True
        for b in self.bundles:
            for i in range(2):
                if b.label.is_any_null(i):
                    if collapsed[i]:
                        loc = EXTERIOR
                    else:
                        if self.pt_in_area[i] == NONE:
                            self.pt_in_area[i] = _locate_in_area(b.key.p0, graphs[i].geom)
                        loc = self.pt_in_area[i]
                    b.label.set_all_if_null(i, loc)

    def _propagate_sides(self, geom_index: int) -> None:
        start = NONE
        for b in self.bundles:
            if b.label.is_area(geom_index) and b.label.get(geom_index, LEFT) != NONE:
                start = b.label.get(geom_index, LEFT)
        if start == NONE:
            return
        current = start
        for b in self.bundles:
            label = b.label
            if label.get(geom_index, ON) == NONE:
                label.set(geom_index, current, ON)
            if label.is_area(geom_index):
                left, right = label.get(geom_index, LEFT), label.get(geom_index, RIGHT)
                if right != NONE:
                    if right != current:
                        x, y = b.key.p0
                        raise _fail(f"TopologyException: side location conflict [ ({x!r}, {y!r}, NaN) ]")
                    _assert(left != NONE, f"found single null side (at {b.key.p0})")
                    current = left
                else:
                    _assert(label.get(geom_index, LEFT) == NONE, "found single null side")
                    label.set(geom_index, current, RIGHT)
                    label.set(geom_index, current, LEFT)


def _edge_ends(edge: _Edge) -> list[_EdgeEnd]:
    """``EdgeEndBuilder.computeEdgeEnds``: at each intersection (the edge's ends added), one end backwards and
    one forwards."""
    edge.add_ei(edge.pts[0], 0, 0.0)
    edge.add_ei(edge.pts[-1], len(edge.pts) - 1, 0.0)
    eis = edge.sorted_ei()
    out = []
    for k, cur in enumerate(eis):
        prev = eis[k - 1] if k > 0 else None
        nxt = eis[k + 1] if k + 1 < len(eis) else None
        i_prev = cur.seg
        if not (cur.dist == 0.0 and i_prev == 0):
            if cur.dist == 0.0:
                i_prev -= 1
            p_prev = edge.pts[i_prev]
            if prev is not None and prev.seg >= i_prev:
                p_prev = prev.coord
            label = edge.label.copy()
            label.flip()
            out.append(_EdgeEnd(edge, cur.coord, p_prev, label))
        i_next = cur.seg + 1
        if i_next >= len(edge.pts) and nxt is None:
            continue
        if i_next >= len(edge.pts):
            raise _fail(f"ArrayIndexOutOfBoundsException: Index {i_next} out of bounds for length {len(edge.pts)}")
        p_next = edge.pts[i_next]
        if nxt is not None and nxt.seg == cur.seg:
            p_next = nxt.coord
        out.append(_EdgeEnd(edge, cur.coord, p_next, edge.label.copy()))
    return out


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
    if not _env_has(_env_of(ring), p):
        return EXTERIOR
    return _ring_location(p, ring)


def _gc_iter(geom: Geom):
    """``GeometryCollectionIterator``: the collection, then its members, a member collection itself before its
    own members."""
    yield geom
    for m in geom.parts:
        if m.kind in _COLLECTIONS:
            yield from _gc_iter(m)
        else:
            yield m


def _locate_in_area(p, geom: Geom) -> int:
    """``SimplePointInAreaLocator.locate``: polygons only (lines and points are exterior)."""
    if geom.is_empty() or not _env_has(geometry_envelope(geom), p):
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
    if geom.kind in _COLLECTIONS:
        for g in _gc_iter(geom):
            if g is not geom:
                loc = _locate_in_geometry(p, g)
                if loc != EXTERIOR:
                    return loc
    return EXTERIOR


def _on_line(p, line: list) -> int:
    """``PointLocator.locateOnLineString``."""
    if not _env_has(_env_of(line), p):
        return EXTERIOR
    if _eq(p, line[0]) or _eq(p, line[-1]):
        return _mod2(2 if _eq(line[0], line[-1]) else 1)
    for a, b in zip(line, line[1:]):
        if _env_point(a, b, p) and (_eq(p, a) or orientation_index(a, b, p) == 0):
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
            update(INTERIOR if _eq(g.parts, p) else EXTERIOR)
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


# --- RelateComputer -------------------------------------------------------------------------------------------


def _set_at_least(im: list, row: int, col: int, dim: int) -> None:
    if row >= 0 and col >= 0 and im[row][col] < dim:
        im[row][col] = dim


def _update_im(label: _Label, im: list) -> None:
    """``Edge.updateIM``."""
    _set_at_least(im, label.get(0, ON), label.get(1, ON), 1)
    if label.is_area():
        _set_at_least(im, label.get(0, LEFT), label.get(1, LEFT), 2)
        _set_at_least(im, label.get(0, RIGHT), label.get(1, RIGHT), 2)


def _set_pattern(im: list, pattern: str) -> None:
    for i, ch in enumerate(pattern):
        _set_at_least(im, i // 3, i % 3, -1 if ch == "F" else int(ch))


def _boundarydimension(geom: Geom) -> int:
    """``RelateComputer.getBoundaryDim`` (Mod-2 rule), for the disjoint matrix."""
    if geom.is_empty():
        return -1
    dim = dimension(geom)
    if dim == 0:
        return -1
    if dim == 2:
        return 1
    if geom.kind == "GeometryCollection":
        raise _fail("IllegalArgumentException: This method does not support GeometryCollection arguments")
    lines = [geom.parts] if geom.kind in ("LineString", "LinearRing") else [m.parts for m in geom.parts if m.parts]
    ends: dict = {}
    for line in lines:
        for c in (line[0], line[-1]):
            ends[c] = ends.get(c, 0) + 1
    return 0 if any(n % 2 == 1 for n in ends.values()) else -1


def relate_matrix(a: Geom, b: Geom) -> str:
    """``RelateOp.relate(a, b)`` (JTS 1.20's old path) as the nine DE-9IM symbols, row-major."""
    im = [[-1] * 3 for _ in range(3)]
    im[EXTERIOR][EXTERIOR] = 2
    env_a, env_b = geometry_envelope(a), geometry_envelope(b)
    if env_a is None or env_b is None or env_a[0] > env_b[1] or env_a[1] < env_b[0] or env_a[2] > env_b[3] \
            or env_a[3] < env_b[2]:
        if not a.is_empty():
            im[INTERIOR][EXTERIOR] = dimension(a)
            im[BOUNDARY][EXTERIOR] = _boundarydimension(a)
        if not b.is_empty():
            im[EXTERIOR][INTERIOR] = dimension(b)
            im[EXTERIOR][BOUNDARY] = _boundarydimension(b)
        return _symbols(im)
    li = _LineIntersector()
    graphs = [_GeometryGraph(0, a), _GeometryGraph(1, b)]
    graphs[0].compute_self_nodes(li)
    graphs[1].compute_self_nodes(li)
    si = graphs[0].compute_edge_intersections(graphs[1], li)
    nodes = _NodeMap(True)
    for index in (0, 1):  # computeIntersectionNodes
        for e in graphs[index].edges:
            loc = e.label.get(index)
            for ei in e.sorted_ei():
                label = nodes.add(ei.coord).label
                if loc == BOUNDARY:
                    current = label.get(index)
                    label.set(index, INTERIOR if current == BOUNDARY else BOUNDARY)
                elif label.is_null(index):
                    label.set(index, INTERIOR)
    for index in (0, 1):  # copyNodesAndLabels
        for n in graphs[index].nodes.values():
            nodes.add(n.coord).label.set(index, n.label.get(index))
    for n in nodes.values():  # labelIsolatedNodes
        _assert(n.label.count() > 0, "node with empty label found")
        if n.label.count() == 1:
            target = 0 if n.label.is_null(0) else 1
            n.label.set_all(target, locate(n.coord, graphs[target].geom))
    dim_a, dim_b = dimension(a), dimension(b)  # computeProperIntersectionIM
    if dim_a == 2 and dim_b == 2:
        if si.has_proper:
            _set_pattern(im, "212101212")
    elif dim_a == 2 and dim_b == 1:
        if si.has_proper:
            _set_pattern(im, "FFF0FFFF2")
        if si.has_proper_interior:
            _set_pattern(im, "1FFFFF1FF")
    elif dim_a == 1 and dim_b == 2:
        if si.has_proper:
            _set_pattern(im, "F0FFFFFF2")
        if si.has_proper_interior:
            _set_pattern(im, "1F1FFFFFF")
    elif dim_a == 1 and dim_b == 1:
        if si.has_proper_interior:
            _set_pattern(im, "0FFFFFFFF")
    for index in (0, 1):
        for e in graphs[index].edges:
            for end in _edge_ends(e):
                node = nodes.add(end.p0)
                node.star.insert(end)
    for n in nodes.values():  # labelNodeEdges
        n.star.compute_labelling(graphs)
    isolated = []
    for this, target in ((0, 1), (1, 0)):  # labelIsolatedEdges
        for e in graphs[this].edges:
            if e.isolated:
                geom = graphs[target].geom
                loc = locate(e.pts[0], geom) if dimension(geom) > 0 else EXTERIOR
                e.label.set_all(target, loc)
                isolated.append(e)
    for e in isolated:  # updateIM
        _assert(e.label.count() >= 2, "found partial label")
        _update_im(e.label, im)
    for n in nodes.values():
        _assert(n.label.count() >= 2, "found partial label")
        _set_at_least(im, n.label.get(0), n.label.get(1), 0)
        for b in n.star.bundles:
            _update_im(b.label, im)
    return _symbols(im)


def _symbols(im: list) -> str:
    return "".join("F" if v == -1 else str(v) for row in im for v in row)


# --- one geometry against many points -------------------------------------------------------------------------


class _NoGeometry:
    """Stands for the point argument where the labelling asks only ``SimplePointInAreaLocator``, which finds every
    coordinate EXTERIOR to a point (not an area)."""

    geom = Geom("Point", None)


class PointRelate:
    """``relate_matrix(geom, point)`` for many non-empty points, ``geom``'s own work done once.

    Against a point (a node, no edges) every step of ``relate_matrix`` depends on ``geom`` alone but one: the
    sweep between the graphs has only ``geom``'s chains (one label: nothing is tested, so no intersection and
    every edge is isolated); the point's label on ``geom``'s nodes, edges and edge-end bundles is EXTERIOR (a node
    other than the point is not on it; an area locator finds nothing in a point); the point's own node is
    labelled by ``locate(point, geom)`` unless it falls on a node of ``geom``, which then keeps its label. So the
    matrix is ``geom``'s part (its edges and bundles, its nodes against the point's exterior) and the point's
    node: column I holds only that node's cell, column B nothing. An exception of ``geom``'s graph (self-noding,
    edge ends, a side location conflict) is thrown for every point whose envelope meets ``geom``'s, as
    ``relate_matrix`` throws it (``locate`` throws nothing, so no row's message comes first); an envelope that
    misses ``geom``'s gets the disjoint matrix, the same for every point. With the point first
    (``point_first``) the matrix is the transpose: the steps are the same with the two indexes swapped."""

    def __init__(self, geom: Geom, point_first: bool = False):
        self.geom = geom
        self.point_first = point_first
        self.env = geometry_envelope(geom)
        self.error: str | None = None
        self.usable = True
        self._disjoint = None
        self.node_labels: dict[tuple[float, float], int] = {}
        self.label_counts = [0, 0, 0]
        self.base = [[-1] * 3 for _ in range(3)]
        self.base[EXTERIOR][EXTERIOR] = 2
        self._by_case: dict = {}
        if self.env is None:
            return  # every point is disjoint (relate_matrix's first branch)
        try:
            self._prepare()
        except JavaException as exc:
            self.error = str(exc)

    def _prepare(self) -> None:
        li = _LineIntersector()
        graph = _GeometryGraph(0, self.geom)
        graph.compute_self_nodes(li)
        nodes = _NodeMap(True)
        for e in graph.edges:  # computeIntersectionNodes, the geometry's own self-nodes
            loc = e.label.get(0)
            for ei in e.sorted_ei():
                label = nodes.add(ei.coord).label
                if loc == BOUNDARY:
                    label.set(0, INTERIOR if label.get(0) == BOUNDARY else BOUNDARY)
                elif label.is_null(0):
                    label.set(0, INTERIOR)
        for n in graph.nodes.values():  # copyNodesAndLabels
            nodes.add(n.coord).label.set(0, n.label.get(0))
        for n in nodes.values():  # labelIsolatedNodes: on the point's exterior (unless it is the point)
            if n.label.is_null(0):
                self.usable = False  # relate_matrix asserts, or labels this node by the point: not modelled
                return
            self.node_labels[(n.coord[0], n.coord[1])] = n.label.get(0)
            self.label_counts[n.label.get(0)] += 1
            n.label.set_all(1, EXTERIOR)
        for e in graph.edges:
            for end in _edge_ends(e):
                nodes.add(end.p0).star.insert(end)
        if any(n.label.is_null(0) for n in nodes.values()):
            self.usable = False  # an edge end off every node (an unclosed ring): relate_matrix's own path
            return
        graphs = [graph, _NoGeometry]
        for n in nodes.values():  # labelNodeEdges
            n.star.compute_labelling(graphs)
        for e in graph.edges:  # labelIsolatedEdges: all of them, against a point of dimension 0
            e.label.set_all(1, EXTERIOR)
        for e in graph.edges:
            _assert(e.label.count() >= 2, "found partial label")
            _update_im(e.label, self.base)
        for n in nodes.values():
            for b in n.star.bundles:
                _update_im(b.label, self.base)

    def disjoint(self, point) -> bool:
        """``relate_matrix``'s first test: the envelopes do not meet."""
        env = self.env
        return env is None or env[0] > point[0] or env[1] < point[0] or env[2] > point[1] or env[3] < point[1]

    def matrix(self, point, loc: int | None = None) -> str:
        """The matrix with a non-empty point (``loc``: ``locate(point, geom)`` when known)."""
        if self.disjoint(point):
            if self._disjoint is None:
                try:
                    self._disjoint = self._relate(point)
                except JavaException as exc:
                    self._disjoint = exc
            if isinstance(self._disjoint, JavaException):
                raise JavaException(str(self._disjoint))
            return self._disjoint
        if self.error is not None:
            raise JavaException(self.error)
        if not self.usable:
            return self._relate(point)
        node = self.node_labels.get((point[0], point[1]))
        if node is None and loc is None:
            loc = locate(point, self.geom)
        return self.case(node, loc)

    def case(self, node: int | None, loc: int | None) -> str:
        """The matrix of a point on a node labelled ``node`` (None: on no node, located ``loc``)."""
        key = (node, loc if node is None else None)
        found = self._by_case.get(key)
        if found is None:
            im = [list(row) for row in self.base]
            counts = list(self.label_counts)
            if node is not None:
                counts[node] -= 1
            for label, count in enumerate(counts):
                if count > 0:
                    _set_at_least(im, label, EXTERIOR, 0)
            _set_at_least(im, node if node is not None else loc, INTERIOR, 0)
            if self.point_first:
                im = [list(col) for col in zip(*im)]
            found = self._by_case[key] = _symbols(im)
        return found

    def _relate(self, point) -> str:
        p = Geom("Point", (point[0], point[1]))
        return relate_matrix(p, self.geom) if self.point_first else relate_matrix(self.geom, p)


def _orientations(p1, p2, qx: np.ndarray, qy: np.ndarray) -> np.ndarray:
    """``orientation_index(p1, p2, q)`` for many ``q``: the same double filter over arrays, the points it leaves
    undecided through the scalar double-double one."""
    pax, pay, pbx, pby = p1[0], p1[1], p2[0], p2[1]
    with np.errstate(invalid="ignore", over="ignore"):
        detleft = (pax - qx) * (pby - qy)
        detright = (pay - qy) * (pbx - qx)
        det = detleft - detright
        out = np.where(det > 0, 1, np.where(det < 0, -1, 0)).astype(np.int8)  # _signum: a NaN is 0
        pos, neg = detleft > 0.0, detleft < 0.0
        filtered = (pos & ~(detright <= 0.0)) | (neg & ~(detright >= 0.0))
        if filtered.any():
            detsum = np.where(pos, detleft + detright, -detleft - detright)
            errbound = 1e-15 * detsum
            undecided = filtered & ~((det >= errbound) | (-det >= errbound))
            for i in np.flatnonzero(undecided).tolist():
                out[i] = orientation_index(p1, p2, (float(qx[i]), float(qy[i])))
    return out


def _ring_locations(ring: list, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """``_locate_ring`` (envelope, then ``RayCrossingCounter``) for many points: a segment that puts a point on the
    ring returns BOUNDARY at once in the scalar loop, so BOUNDARY is any segment's verdict, else the parity."""
    out = np.full(len(px), EXTERIOR, np.int8)
    env = _env_of(ring)
    if env is None:
        return out
    rows = np.flatnonzero((env[0] <= px) & (px <= env[1]) & (env[2] <= py) & (py <= env[3]))
    x, y = px[rows], py[rows]
    on = np.zeros(len(rows), np.bool_)
    crossings = np.zeros(len(rows), np.int64)
    for i in range(1, len(ring)):
        p1, p2 = ring[i], ring[i - 1]
        active = ~((p1[0] < x) & (p2[0] < x))
        on |= active & (x == p2[0]) & (y == p2[1])
        if p1[1] == p2[1]:  # horizontal: on it or skipped
            lo, hi = (p1[0], p2[0]) if p1[0] <= p2[0] else (p2[0], p1[0])
            on |= active & (y == p1[1]) & (lo <= x) & (x <= hi)
            continue
        across = np.flatnonzero(active & (((p1[1] > y) & (y >= p2[1])) | ((p2[1] > y) & (y >= p1[1]))))
        if not len(across):
            continue
        orient = _orientations(p1, p2, x[across], y[across])
        on[across] |= orient == 0
        if p2[1] < p1[1]:
            orient = -orient
        crossings[across] += orient == 1
    out[rows] = np.where(on, BOUNDARY, np.where(crossings % 2 == 1, INTERIOR, EXTERIOR))
    return out


def _polygon_locations(geom: Geom, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """``_in_polygon`` for many points."""
    if geom.is_empty():
        return np.full(len(px), EXTERIOR, np.int8)
    out = _ring_locations(geom.parts[0], px, py)
    for hole in geom.parts[1:]:
        rows = np.flatnonzero(out == INTERIOR)
        if not len(rows):
            break
        loc = _ring_locations(hole, px[rows], py[rows])
        out[rows] = np.where(loc == INTERIOR, EXTERIOR, np.where(loc == BOUNDARY, BOUNDARY, INTERIOR))
    return out


def locate_many(px: np.ndarray, py: np.ndarray, geom: Geom) -> np.ndarray:
    """``locate`` (``PointLocator``, Mod-2 rule) of many points: polygons and multipolygons over arrays, any other
    geometry point by point."""
    if geom.is_empty():
        return np.full(len(px), EXTERIOR, np.int8)
    if geom.kind == "Polygon":
        return _polygon_locations(geom, px, py)
    if geom.kind == "MultiPolygon":
        inside = np.zeros(len(px), np.bool_)
        boundaries = np.zeros(len(px), np.int64)
        for m in geom.parts:
            loc = _polygon_locations(m, px, py)
            inside |= loc == INTERIOR
            boundaries += loc == BOUNDARY
        return np.where(boundaries % 2 == 1, BOUNDARY,
                        np.where((boundaries > 0) | inside, INTERIOR, EXTERIOR)).astype(np.int8)
    return np.array([locate((x, y), geom) for x, y in zip(px.tolist(), py.tolist())], np.int8)
