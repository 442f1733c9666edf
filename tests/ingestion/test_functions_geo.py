"""Geospatial ingestion functions: GeometrySerializer's bytes (a type byte, the geography bit 0x80, big-endian
doubles), as the starbucksStores quickstart table uses them (``toSphericalGeography(stPoint(lon, lat))``)."""
from __future__ import annotations

import math
import struct

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.values import Context, IngestionError


def evaluate(text: str, **columns):
    ctx = Context(len(next(iter(columns.values()))))
    ctx.where = text
    return Expression(text).evaluate_array(columns, ctx).to_pylist()


def point(x: float, y: float, geography: bool = False) -> bytes:
    return bytes([0x80 if geography else 0]) + struct.pack(">dd", x, y)


def test_st_point_and_spherical_geography():
    lon, lat = pa.array([-149.8935557, 2.5, None]), pa.array([61.21759217, -0.0, 1.0])
    assert evaluate("stPoint(lon, lat)", lon=lon, lat=lat) == [point(-149.8935557, 61.21759217), point(2.5, -0.0),
                                                               None]
    assert evaluate("toSphericalGeography(stPoint(lon,lat))", lon=lon, lat=lat) == [
        point(-149.8935557, 61.21759217, True), point(2.5, -0.0, True), None]
    assert evaluate("ST_Point(lon, lat, 1)", lon=lon, lat=lat)[0] == point(-149.8935557, 61.21759217, True)
    assert evaluate("stPoint(lon, lat, 'false')", lon=lon, lat=lat)[0] == point(-149.8935557, 61.21759217)
    assert evaluate("toGeometry(toSphericalGeography(stPoint(lon, lat)))", lon=lon, lat=lat)[:2] == [
        point(-149.8935557, 61.21759217), point(2.5, -0.0)]


def test_point_wkt():
    wkt = pa.array(["POINT (1 2)", "point(-1.5e2 .25)", "POINT EMPTY"])
    assert evaluate("ST_GeomFromText(w)", w=wkt)[:2] == [point(1, 2), point(-150, 0.25)]
    assert evaluate("ST_GeogFromText(w)", w=wkt)[0] == point(1, 2, True)
    assert evaluate("ST_GeomFromText(w)", w=wkt)[2][9:] == struct.pack(">d", float("nan"))  # the empty point
    with pytest.raises(IngestionError, match="Expected number"):
        evaluate("ST_GeomFromText(w)", w=pa.array(["POINT (1)"]))


def test_shapes_round_trip_through_pinots_bytes():
    """A polygon's rings are stored shell clockwise, holes counter-clockwise (GeometrySerializer), so its text
    comes back reoriented; the full tables are tests/fixtures/functions/geo_wkt.jsonl."""
    wkt = pa.array(["POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))", "MULTIPOINT (1 2, 3 4)"])
    assert evaluate("ST_AsText(ST_GeomFromText(w))", w=wkt) == [
        "POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))", "MULTIPOINT ((1 2), (3 4))"]
    assert evaluate("ST_GeometryType(ST_GeogFromText(w))", w=wkt) == ["Polygon", "MultiPoint"]
    assert evaluate("ST_AsGeoJSON(ST_GeogFromText(w))", w=pa.array(["POINT (0 1.5)"])) == [
        '{"type":"Point","coordinates":[0.0,1.5],"crs":{"type":"name","properties":{"name":"EPSG:4326"}}}']


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(allow_nan=False), st.floats(allow_nan=False)), min_size=1, max_size=20))
def test_st_point_bytes_are_the_coordinates(points):
    xs, ys = pa.array([p[0] for p in points], pa.float64()), pa.array([p[1] for p in points], pa.float64())
    assert evaluate("stPoint(x, y)", x=xs, y=ys) == [point(x, y) for x, y in points]


def test_predicates_follow_jts_short_cuts():
    """JTS's rectangle short cut (a point on the rectangle's boundary is not contained), empties (never equal),
    and the geography / geometry mix (Pinot throws); the full tables are geo_wkt.jsonl."""
    square, w = "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))", pa.array
    assert evaluate("ST_Contains(ST_GeomFromText(a), ST_GeomFromText(b))", a=w([square] * 3),
                    b=w(["POINT (4 2)", "POINT (2 2)", "POINT EMPTY"])) == [0, 1, 0]
    assert evaluate("ST_Within(ST_GeomFromText(b), ST_GeomFromText(a))", a=w([square]), b=w(["POINT (2 2)"])) == [1]
    assert evaluate("ST_Equals(ST_GeomFromText(a), ST_GeomFromText(b))", a=w(["POINT EMPTY", square]),
                    b=w(["POINT EMPTY", "POLYGON ((0 0, 0 4, 4 4, 4 0, 0 0))"])) == [0, 1]
    with pytest.raises(IngestionError, match="both be geometry or both be geography"):
        evaluate("ST_Contains(ST_GeogFromText(a), ST_GeomFromText(b))", a=w([square]), b=w(["POINT (2 2)"]))


def test_distance_is_jts_arithmetic():
    """Two points: Math.hypot (1e300 away is 1e300, no overflow); an empty geometry: NaN; a geography: the
    great-circle metres."""
    w = pa.array
    assert evaluate("ST_Distance(ST_GeomFromText(a), ST_GeomFromText(b))", a=w(["POINT (181 0)", "POINT (0 0)"]),
                    b=w(["POINT (6 1e300)", "POINT (3 4)"])) == [1e300, 5.0]
    assert math.isnan(evaluate("ST_Distance(ST_GeomFromText(a), ST_GeomFromText(b))", a=w(["POINT EMPTY"]),
                               b=w(["POINT (1 1)"]))[0])
    assert evaluate("ST_Distance(ST_GeogFromText(a), ST_GeogFromText(b))", a=w(["POINT (0 0)"]),
                    b=w(["POINT (0 90)"])) == [math.pi / 2 * 6371010.0]


def test_spherical_round_trip_of_a_nan_point_is_pinots():
    """toSphericalGeography deserializes and serializes as Pinot does: a point with one NaN coordinate reads
    back as the empty point, written NaN, NaN (only a non-empty point keeps its bytes, its type bit flipped)."""
    nan_x = bytes([0]) + struct.pack(">dd", float("nan"), 1.0)
    out = evaluate("toSphericalGeography(b)", b=pa.array([nan_x, point(1, 2)]))
    assert out[0][0] == 0x80 and struct.unpack(">dd", out[0][1:]) != struct.unpack(">dd", nan_x[1:])
    assert all(v != v for v in struct.unpack(">dd", out[0][1:]))
    assert out[1] == point(1, 2, True)
