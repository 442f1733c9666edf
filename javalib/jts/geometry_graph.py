"""JTS's ``geomgraph`` as RelateOp builds it: labels, edges with their intersections, nodes, each argument's
``GeometryGraph``, the ``SimpleMCSweepLineIntersector``'s self-noding and ``SegmentIntersector``, and the edge ends
bundled around a node (``EdgeEndBundleStar``: the side-location conflict). relate_op.py tells the whole relate.
"""
from __future__ import annotations

from .algorithm import (BOUNDARY, EXTERIOR, INTERIOR, LEFT, NONE, ON, RIGHT, assert_true, env_segments, equals2d, fail,
                        is_ccw, mod2, orientation_index, quadrant, quadrant_of, remove_repeated)
from .geometry import Geom
from .line_intersector import LineIntersector
from .point_locator import locate_in_area

# --- labels -----------------------------------------------------------------------------------------------


class Label:
    __slots__ = ("elt",)

    def __init__(self, elt):
        self.elt = elt

    @staticmethod
    def on(geom_index: int, loc: int) -> "Label":
        elt = [[NONE], [NONE]]
        elt[geom_index][0] = loc
        return Label(elt)

    @staticmethod
    def area(geom_index: int, on: int, left: int, right: int) -> "Label":
        elt = [[NONE, NONE, NONE], [NONE, NONE, NONE]]
        elt[geom_index] = [on, left, right]
        return Label(elt)

    def copy(self) -> "Label":
        return Label([list(self.elt[0]), list(self.elt[1])])

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
    def __init__(self, pts: list, label: Label):
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

    def add_intersections(self, li: LineIntersector, segment_index: int, geom_index: int) -> None:
        for i in range(li.result):
            pt = li.pts[i]
            seg = segment_index
            dist = li.edge_distance(geom_index, i)
            nxt = seg + 1
            if nxt < len(self.pts) and equals2d(pt, self.pts[nxt]):
                seg, dist = nxt, 0.0
            self.add_ei(pt, seg, dist)

    def is_closed(self) -> bool:
        return equals2d(self.pts[0], self.pts[-1])

    def chain_starts(self) -> list[int]:
        """``MonotoneChainIndexer.getChainStartIndices``: runs of segments in one quadrant."""
        if self._starts is None:
            pts = self.pts
            starts = [0]
            start = 0
            while True:
                quad = quadrant_of(pts[start], pts[start + 1])
                last = start + 1
                while last < len(pts):
                    if quadrant_of(pts[last - 1], pts[last]) != quad:
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
        self.label = Label.on(0, NONE)
        self.star = _BundleStar() if with_star else None


class NodeMap:
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


class GeometryGraph:
    def __init__(self, arg_index: int, geom: Geom):
        self.arg_index = arg_index
        self.geom = geom
        self.edges: list[_Edge] = []
        self.nodes = NodeMap(False)
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
        coords = remove_repeated(ring)
        if len(coords) < 4:
            return  # hasTooFewPoints: the ring is left out
        left, right = (cw_right, cw_left) if is_ccw(coords) else (cw_left, cw_right)
        self.edges.append(_Edge(coords, Label.area(self.arg_index, BOUNDARY, left, right)))
        self._insert_point(coords[0], BOUNDARY)

    def _add_polygon(self, g: Geom) -> None:
        self._add_ring(g.parts[0], EXTERIOR, INTERIOR)
        for hole in g.parts[1:]:
            self._add_ring(hole, INTERIOR, EXTERIOR)

    def _add_line(self, line: list) -> None:
        coords = remove_repeated(line)
        if len(coords) < 2:
            return
        self.edges.append(_Edge(coords, Label.on(self.arg_index, INTERIOR)))
        self._insert_boundary_point(coords[0])
        self._insert_boundary_point(coords[-1])

    def _insert_point(self, coord, loc: int) -> None:
        self.nodes.add(coord).label.set(self.arg_index, loc)

    def _insert_boundary_point(self, coord) -> None:
        label = self.nodes.add(coord).label
        count = 2 if label.get(self.arg_index) == BOUNDARY else 1
        label.set(self.arg_index, mod2(count))

    def boundary_nodes(self) -> list[_Node]:
        if self._boundary_nodes is None:
            self._boundary_nodes = [n for n in self.nodes.values() if n.label.get(self.arg_index) == BOUNDARY]
        return self._boundary_nodes

    def compute_self_nodes(self, li: LineIntersector) -> None:
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

    def compute_edge_intersections(self, other: "GeometryGraph", li: LineIntersector) -> "_SegmentIntersector":
        si = _SegmentIntersector(li, include_proper=False, record_isolated=True)
        si.set_boundary_nodes(self.boundary_nodes(), other.boundary_nodes())
        _sweep([(e, 0) for e in self.edges] + [(e, 1) for e in other.edges], si)
        return si


class _SegmentIntersector:
    def __init__(self, li: LineIntersector, include_proper: bool, record_isolated: bool):
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
    if not env_segments(e0.pts[start0], e0.pts[end0], e1.pts[start1], e1.pts[end1]):
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

    def __init__(self, edge: _Edge, p0, p1, label: Label):
        self.edge, self.p0, self.p1, self.label = edge, p0, p1, label
        self.dx, self.dy = p1[0] - p0[0], p1[1] - p0[1]
        self.quadrant = quadrant(self.dx, self.dy)
        assert_true(not (self.dx == 0 and self.dy == 0), "EdgeEnd with identical endpoints found")

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
        self.label = Label([[NONE, NONE, NONE], [NONE, NONE, NONE]]) if is_area else Label([[NONE], [NONE]])
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
            loc = mod2(boundary_count)
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

    def compute_labelling(self, graphs: list[GeometryGraph]) -> None:
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
                            self.pt_in_area[i] = locate_in_area(b.key.p0, graphs[i].geom)
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
                        raise fail(f"TopologyException: side location conflict [ ({x!r}, {y!r}, NaN) ]")
                    assert_true(left != NONE, f"found single null side (at {b.key.p0})")
                    current = left
                else:
                    assert_true(label.get(geom_index, LEFT) == NONE, "found single null side")
                    label.set(geom_index, current, RIGHT)
                    label.set(geom_index, current, LEFT)


def edge_ends(edge: _Edge) -> list[_EdgeEnd]:
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
            raise fail(f"ArrayIndexOutOfBoundsException: Index {i_next} out of bounds for length {len(edge.pts)}")
        p_next = edge.pts[i_next]
        if nxt is not None and nxt.seg == cur.seg:
            p_next = nxt.coord
        out.append(_EdgeEnd(edge, cur.coord, p_next, edge.label.copy()))
    return out
