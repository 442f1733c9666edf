"""JTS's ``RobustLineIntersector``: where two segments meet, as RelateOp's graphs note it (relate_op.py tells the
whole relate)."""
from __future__ import annotations

from .algorithm import (assert_true, dd_intersection, env_point, env_segments, equals2d, orientation_index,
                        point_to_segment)

# --- RobustLineIntersector ------------------------------------------------------------------------------

NO_INTERSECTION, POINT_INTERSECTION, COLLINEAR_INTERSECTION = 0, 1, 2


class LineIntersector:
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
        if not env_segments(p1, p2, q1, q2):
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
            if equals2d(p1, q1) or equals2d(p1, q2):
                p = p1
            elif equals2d(p2, q1) or equals2d(p2, q2):
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
        q1in_p, q2in_p = env_point(p1, p2, q1), env_point(p1, p2, q2)
        p1in_q, p2in_q = env_point(q1, q2, p1), env_point(q1, q2, p2)
        if q1in_p and q2in_p:
            self.pts[0], self.pts[1] = q1, q2
            return COLLINEAR_INTERSECTION
        if p1in_q and p2in_q:
            self.pts[0], self.pts[1] = p1, p2
            return COLLINEAR_INTERSECTION
        if q1in_p and p1in_q:
            self.pts[0], self.pts[1] = q1, p1
            return POINT_INTERSECTION if equals2d(q1, p1) and not q2in_p and not p2in_q else COLLINEAR_INTERSECTION
        if q1in_p and p2in_q:
            self.pts[0], self.pts[1] = q1, p2
            return POINT_INTERSECTION if equals2d(q1, p2) and not q2in_p and not p1in_q else COLLINEAR_INTERSECTION
        if q2in_p and p1in_q:
            self.pts[0], self.pts[1] = q2, p1
            return POINT_INTERSECTION if equals2d(q2, p1) and not q1in_p and not p2in_q else COLLINEAR_INTERSECTION
        if q2in_p and p2in_q:
            self.pts[0], self.pts[1] = q2, p2
            return POINT_INTERSECTION if equals2d(q2, p2) and not q1in_p and not p1in_q else COLLINEAR_INTERSECTION
        return NO_INTERSECTION

    def _intersection(self, p1, p2, q1, q2):
        pt = dd_intersection(p1, p2, q1, q2)
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
    if equals2d(p, p0):
        dist = 0.0
    elif equals2d(p, p1):
        dist = dx if dx > dy else dy
    else:
        pdx, pdy = abs(p[0] - p0[0]), abs(p[1] - p0[1])
        dist = pdx if dx > dy else pdy
        if dist == 0.0 and not equals2d(p, p0):
            dist = max(pdx, pdy)
    assert_true(not (dist == 0.0 and not equals2d(p, p0)), "Bad distance calculation")
    return dist
