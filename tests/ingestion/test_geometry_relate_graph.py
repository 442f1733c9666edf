"""The port of JTS 1.20's old RelateOp (javalib/jts/relate_op.py): the matrices and
exceptions below are JTS's own (RelateOp.relate on the same WKT, jts-core-1.20.0), picked where the old
algorithm's rules show; the random tables are tests/fixtures/functions/geo_relate_graph.jsonl and
geo_relate_corners.jsonl (replayed by test_function_expectations.py)."""
from __future__ import annotations

import random
from fractions import Fraction

import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from javalib.jts.algorithm import BOUNDARY, INTERIOR, geometry_envelope, orientation_index
from javalib.jts.point_locator import locate
from javalib.jts.relate_op import relate_matrix
from javalib.jts.io import read_wkt
from javalib.exceptions import JavaException
from pinot_sink.ingestion.values import Context, IngestionError

SQUARE = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))"
BOW_TIE = "POLYGON ((0 0, 10 10, 10 0, 0 12, 0 0))"


def matrix(a: str, b: str) -> str:
    return relate_matrix(read_wkt(a, False), read_wkt(b, False))


@pytest.mark.parametrize("a,b,expected", [
    (SQUARE, "POINT (1 1)", "0F2FF1FF2"),
    ("LINESTRING (0 0, 10 10)", "LINESTRING (0 10, 10 0)", "0F1FF0102"),
    # a ring that crosses itself is not noded in a polygonal argument: the bow tie's two lobes are one area
    # whose sides disagree only where nothing looks
    ("POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))", "POINT (5 2)", "FF2FF10F2"),
    ("POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))", "POINT (2 5)", "0F2FF1FF2"),
    (BOW_TIE, BOW_TIE, "212111212"),
    # a collection's polygon counts for its area: JTS contains the square (GEOS 3.14 does not)
    (f"GEOMETRYCOLLECTION (POINT (-1 -19), {SQUARE})", "POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))", "212FF1FF2"),
    # PointLocator visits a collection's multipolygon and then its polygon: a point on the edge is counted on
    # the boundary twice, so (Mod-2) in the interior
    (f"GEOMETRYCOLLECTION (MULTIPOLYGON (({SQUARE[9:-1]})))", "POINT (0 5)", "0F2FF1FF2"),
    (f"MULTIPOLYGON (({SQUARE[9:-1]}))", "POINT (0 5)", "FF20F1FF2"),
    ("GEOMETRYCOLLECTION (MULTILINESTRING ((0 0, 10 0)), POINT (20 20))", "POINT (5 0)", "0F1FF0FF2"),
    (f"GEOMETRYCOLLECTION ({SQUARE}, LINESTRING (0 0, 20 0))", "LINESTRING (2 0, 4 0)", "FF2101FF2"),
])
def test_matrices_are_jts_old_relate(a, b, expected):
    assert matrix(a, b) == expected


@pytest.mark.parametrize("a,b,at", [
    # overlapping members of a multipolygon: the sides around a crossing disagree
    ("MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((5 5, 15 5, 15 15, 5 15, 5 5)))", "POINT (7 7)", "5.0, 10.0"),
    # a bow tie inside a collection is self-noded (every segment pair is tested), its lobes' sides then clash
    ("GEOMETRYCOLLECTION (POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0)))", "POINT (2 5)", "5.0, 5.0"),
    (f"GEOMETRYCOLLECTION ({BOW_TIE})", f"GEOMETRYCOLLECTION ({BOW_TIE})", "5.454545454545454, 5.454545454545454"),
])
def test_side_location_conflicts_throw_where_jts_throws(a, b, at):
    with pytest.raises(JavaException, match=rf"TopologyException: side location conflict \[ \({at}, NaN\) \]"):
        matrix(a, b)


def test_point_location_counts_boundaries_mod_2():
    multi = read_wkt("MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)))", False)
    in_collection = read_wkt("GEOMETRYCOLLECTION (MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0))))", False)
    assert locate((0.0, 5.0), multi) == BOUNDARY
    assert locate((0.0, 5.0), in_collection) == INTERIOR
    # two line ends at one point: not a boundary point
    assert locate((1.0, 0.0), read_wkt("MULTILINESTRING ((0 0, 1 0), (1 0, 2 2))", False)) == INTERIOR


def test_a_polygons_envelope_is_its_shells():
    holed = read_wkt("POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (20 20, 21 20, 21 21, 20 21, 20 20))", False)
    assert geometry_envelope(holed) == (0.0, 4.0, 0.0, 4.0)


def test_orientation_is_exact_near_a_line():
    """CGAlgorithmsDD: where the double filter cannot decide, the double-double determinant gives the exact sign
    (checked against rational arithmetic on points a rounding away from a line)."""
    rng = random.Random(7)
    undecided = 0
    for _ in range(3000):
        p1 = (rng.uniform(-100, 100), rng.uniform(-100, 100))
        p2 = (rng.uniform(-100, 100), rng.uniform(-100, 100))
        t = rng.uniform(-2, 3)
        q = (p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1]))
        exact = ((Fraction(p2[0]) - Fraction(p1[0])) * (Fraction(q[1]) - Fraction(p2[1]))
                 - (Fraction(p2[1]) - Fraction(p1[1])) * (Fraction(q[0]) - Fraction(p2[0])))
        undecided += exact == 0
        assert orientation_index(p1, p2, q) == (exact > 0) - (exact < 0)
    assert undecided < 3000


def evaluate(text: str, **columns):
    ctx = Context(len(next(iter(columns.values()))))
    ctx.where = text
    return Expression(text).evaluate_array(columns, ctx).to_pylist()


def test_predicates_take_the_ported_matrix():
    w = pa.array
    collection = f"GEOMETRYCOLLECTION (POINT (-1 -19), {SQUARE})"
    overlapping = "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((5 5, 15 5, 15 15, 5 15, 5 5)))"
    assert evaluate("ST_Contains(ST_GeomFromText(a), ST_GeomFromText(b))",
                    a=w([collection, f"GEOMETRYCOLLECTION (MULTIPOLYGON (({SQUARE[9:-1]})))"]),
                    b=w(["POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))", "POINT (0 5)"])) == [1, 1]
    assert evaluate("ST_Within(ST_GeomFromText(b), ST_GeomFromText(a))", a=w([collection]),
                    b=w(["POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))"])) == [1]
    # the collection's envelope is its line's (a polygon's envelope is its shell's, the hole reaching out is not
    # looked at), so equalsTopo relates them, and computes the matrix before it compares dimensions: a relate
    # that throws fails the row though a line never equals an area
    line = "LINESTRING (0 7, -1.4039 1.823607, -0.05876 8.933802, 12 3, 0 7)"
    holed = "POLYGON ((9 3, 10 4, 10 7, 9 3), (8 7, 3.85996589919131 -1.81877061, 5 11, 10.5 3, 8 7))"
    with pytest.raises(IngestionError, match="side location conflict"):
        evaluate("ST_Equals(ST_GeomFromText(a), ST_GeomFromText(b))", a=w([line]),
                 b=w([f"GEOMETRYCOLLECTION ({holed}, {line})"]))
