"""JTS's computational geometry as RelateOp and DistanceOp use it (org.locationtech.jts.algorithm and .math):
``DD`` double-double arithmetic and ``CGAlgorithmsDD``'s orientation and intersection, envelopes, quadrants,
``Orientation.isCCW``, the Mod-2 boundary rule, and the distance primitives (``Coordinate.distance`` with
fdlibm's hypot, ``Distance.pointToSegment``). Split from relate_op.py, whose docstring tells the whole relate.
"""
from __future__ import annotations

import math
import struct

from ..exceptions import JavaException
from .geometry import Geom

INTERIOR, BOUNDARY, EXTERIOR, NONE = 0, 1, 2, -1
ON, LEFT, RIGHT = 0, 1, 2
_SPLIT = 134217729.0  # DD's 2^27 + 1
COLLECTIONS = ("MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection")


def fail(message: str) -> JavaException:
    return JavaException(message)


def assert_true(condition: bool, message: str) -> None:
    if not condition:
        raise fail(f"AssertionFailedException: {message}")


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


def dd_intersection(p1, p2, q1, q2):
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


def env_point(p1, p2, q) -> bool:
    """``Envelope.intersects(p1, p2, q)``."""
    return ((min(p1[0], p2[0]) <= q[0] <= max(p1[0], p2[0]))
            and (min(p1[1], p2[1]) <= q[1] <= max(p1[1], p2[1])))


def env_segments(p1, p2, q1, q2) -> bool:
    """``Envelope.intersects(p1, p2, q1, q2)``."""
    if min(p1[0], p2[0]) > max(q1[0], q2[0]) or max(p1[0], p2[0]) < min(q1[0], q2[0]):
        return False
    return not (min(p1[1], p2[1]) > max(q1[1], q2[1]) or max(p1[1], p2[1]) < min(q1[1], q2[1]))


def env_of(points) -> tuple[float, float, float, float] | None:
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), max(xs), min(ys), max(ys))


def env_has(env, p) -> bool:
    """``Envelope.intersects(Coordinate)`` (a null envelope holds nothing)."""
    return env is not None and env[0] <= p[0] <= env[1] and env[2] <= p[1] <= env[3]


def geometry_envelope(geom: Geom) -> tuple[float, float, float, float] | None:
    """``getEnvelopeInternal`` as (min x, max x, min y, max y), None when empty: a polygon's is its shell's
    (holes are not looked at), a collection's the union of its members' (empties have none)."""
    if geom.kind == "Point":
        return None if geom.parts is None else (geom.parts[0], geom.parts[0], geom.parts[1], geom.parts[1])
    if geom.kind in ("LineString", "LinearRing"):
        return env_of(geom.parts)
    if geom.kind == "Polygon":
        return env_of(geom.parts[0]) if geom.parts else None
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


def quadrant(dx: float, dy: float) -> int:
    if dx == 0.0 and dy == 0.0:
        raise fail(f"IllegalArgumentException: Cannot compute the quadrant for point ( {dx}, {dy} )")
    if dx >= 0.0:
        return 0 if dy >= 0.0 else 3
    return 1 if dy >= 0.0 else 2


def quadrant_of(p0, p1) -> int:
    if p1[0] == p0[0] and p1[1] == p0[1]:
        raise fail(f"IllegalArgumentException: Cannot compute the quadrant for two identical points {p0}")
    if p1[0] >= p0[0]:
        return 0 if p1[1] >= p0[1] else 3
    return 1 if p1[1] >= p0[1] else 2


def remove_repeated(coords: list) -> list:
    out = []
    for c in coords:
        if not out or not (out[-1][0] == c[0] and out[-1][1] == c[1]):
            out.append(c)
    return out


def is_ccw(ring: list) -> bool:
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
        if equals2d(up_low, up_hi) or equals2d(down_low, up_hi) or equals2d(up_low, down_low):
            return False
        return orientation_index(up_low, up_hi, down_low) == 1
    return down_hi[0] - up_hi[0] < 0


def equals2d(a, b) -> bool:
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


def mod2(count: int) -> int:
    """``GeometryGraph.determineBoundary`` with the Mod-2 rule."""
    return BOUNDARY if count % 2 == 1 else INTERIOR
