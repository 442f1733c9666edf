"""The DE-9IM matrix as JTS 1.20's old ``RelateOp`` computes it: the one Pinot's ``ST_Contains`` / ``ST_Within``
/ ``ST_Equals`` read (``Geometry.contains`` / ``within`` / ``equalsTopo`` take it after their short cuts, which
live in predicates.py; JTS 1.20 uses ``RelateNG`` only when the JVM's ``jts.relate`` property is ``ng``, and
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
fails in Pinot too (null under ``continueOnError``). The steps live in this package by JTS class: algorithm.py
(DD, CGAlgorithmsDD, the distance primitives predicates.py's ``DistanceOp`` shares), line_intersector.py,
geometry_graph.py, point_locator.py; here the ``RelateComputer`` and its form for one geometry against many
points.
"""
from __future__ import annotations

import numpy as np

from ..exceptions import JavaException
from .algorithm import (BOUNDARY, EXTERIOR, INTERIOR, LEFT, ON, RIGHT, assert_true, dimension, env_of, fail,
                        geometry_envelope, orientation_index)
from .geometry import Geom
from .geometry_graph import GeometryGraph, Label, NodeMap, edge_ends
from .line_intersector import LineIntersector
from .point_locator import locate

# --- RelateComputer -------------------------------------------------------------------------------------------


def _set_at_least(im: list, row: int, col: int, dim: int) -> None:
    if row >= 0 and col >= 0 and im[row][col] < dim:
        im[row][col] = dim


def _update_im(label: Label, im: list) -> None:
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
        raise fail("IllegalArgumentException: This method does not support GeometryCollection arguments")
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
    li = LineIntersector()
    graphs = [GeometryGraph(0, a), GeometryGraph(1, b)]
    graphs[0].compute_self_nodes(li)
    graphs[1].compute_self_nodes(li)
    si = graphs[0].compute_edge_intersections(graphs[1], li)
    nodes = NodeMap(True)
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
        assert_true(n.label.count() > 0, "node with empty label found")
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
            for end in edge_ends(e):
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
        assert_true(e.label.count() >= 2, "found partial label")
        _update_im(e.label, im)
    for n in nodes.values():
        assert_true(n.label.count() >= 2, "found partial label")
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
        li = LineIntersector()
        graph = GeometryGraph(0, self.geom)
        graph.compute_self_nodes(li)
        nodes = NodeMap(True)
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
            for end in edge_ends(e):
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
            assert_true(e.label.count() >= 2, "found partial label")
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
    env = env_of(ring)
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
