"""ST_Contains / ST_Within / ST_Equals of one geometry against many points (the geofencing case): the geometry's
relate work done once (relate_op.PointRelate), the points located over arrays (locate_many), the
predicates over arrays (predicates.with_points, geo._relate). Every answer must be the one the full relate
gives (relate_matrix, JTS's own on the fixtures): checked here on the fixtures' shapes, valid and invalid, against
random points inside, outside, on vertices, on edges, in holes, at infinity."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from javalib.jts import predicates as relate
from pinot_sink.ingestion.functions.geometry import Geom, deserialize, serialize
from javalib.jts.point_locator import locate
from javalib.jts.relate_op import PointRelate, locate_many, relate_matrix
from javalib.jts.io import read_wkt
from javalib.exceptions import JavaException
from pinot_sink.ingestion.values import Context, IngestionError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "functions"


def _fixture_geometries() -> list[Geom]:
    out, seen = [], set()
    for family in ("geo_relate", "geo_relate_corners", "geo_relate_graph"):
        for line in (FIXTURES / f"{family}.jsonl").read_text().splitlines()[1:]:
            row = json.loads(line)["row"]
            for column in ("w", "w2"):
                try:  # through Pinot's bytes, as the predicates read them
                    data = serialize(read_wkt(row[column], False))
                    geom = deserialize(data)
                except Exception:  # noqa: BLE001 - texts Pinot refuses: no relate
                    continue
                if data not in seen:
                    seen.add(data)
                    out.append(geom)
    return out


GEOMETRIES = _fixture_geometries()


def _throws(geom: Geom) -> bool:
    relate_ = PointRelate(geom)
    return relate_.error is not None


def _sample() -> list[Geom]:
    """40 geometries whose graph throws, every one PointRelate leaves to relate_matrix, and 160 others."""
    rng = random.Random(11)
    throwing = [g for g in GEOMETRIES if _throws(g)]
    unusable = [g for g in GEOMETRIES if not PointRelate(g).usable]
    rest = [g for g in GEOMETRIES if g not in throwing and g not in unusable]
    # a ring left open (Pinot's reader refuses it; the port's Geom can hold it): an edge end on no node, which
    # PointRelate leaves to relate_matrix
    unclosed = Geom("Polygon", [[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]])
    return rng.sample(throwing, min(40, len(throwing))) + unusable + [unclosed] + rng.sample(rest, 160)


def _points(geom: Geom, rng: random.Random) -> list[tuple[float, float]]:
    coords = geom.coordinates()
    points = [(rng.uniform(-30, 30), rng.uniform(-30, 30)) for _ in range(6)]
    points += [(float(round(rng.uniform(-20, 20))), float(round(rng.uniform(-20, 20)))) for _ in range(6)]
    points += rng.sample(coords, min(6, len(coords)))  # on vertices (and nodes)
    for c, d in zip(coords, coords[1:8]):  # on edges (exactly, where the halves and thirds are representable)
        points += [(c[0] + (d[0] - c[0]) * 0.5, c[1] + (d[1] - c[1]) * 0.5), (c[0] + (d[0] - c[0]) / 3, c[1])]
    if geom.kind == "Polygon" and len(geom.parts) > 1:  # in the holes
        for hole in geom.parts[1:]:
            xs, ys = [c[0] for c in hole], [c[1] for c in hole]
            points += [(sum(xs[:-1]) / (len(xs) - 1), sum(ys[:-1]) / (len(ys) - 1))]
    points += [(math.inf, 0.0), (0.0, -math.inf), (math.inf, math.inf), (-math.inf, 5.0), (-0.0, 0.0)]
    return points


def _outcome(fn):
    try:
        return fn()
    except JavaException as exc:
        return f"throws {exc}"


SAMPLE = _sample()
UNUSABLE = [g for g in SAMPLE if not PointRelate(g).usable]


def test_the_sample_holds_what_it_must():
    """A property test that never meets a throwing graph, a hole or a multipolygon tests too little."""
    assert sum(_throws(g) for g in SAMPLE) >= 10
    assert UNUSABLE
    assert any(g.kind == "Polygon" and len(g.parts) > 1 for g in SAMPLE)
    assert {"MultiPolygon", "GeometryCollection", "LineString", "Point"} <= {g.kind for g in SAMPLE}


def test_point_relate_is_relate_matrix_both_ways_round():
    rng = random.Random(1)
    throwing = on_node = 0
    for geom in SAMPLE:
        for point_first in (False, True):
            prepared = PointRelate(geom, point_first)
            for p in _points(geom, rng):
                point = Geom("Point", p)
                want = _outcome(lambda: relate_matrix(point, geom) if point_first else relate_matrix(geom, point))
                assert _outcome(lambda: prepared.matrix(p)) == want, (geom, p, point_first)
                throwing += want.startswith("throws")
                on_node += (p[0], p[1]) in prepared.node_labels
    assert throwing > 100 and on_node > 500


def test_locate_many_is_locate():
    rng = random.Random(2)
    for geom in SAMPLE:
        points = _points(geom, rng)
        got = locate_many(np.array([p[0] for p in points]), np.array([p[1] for p in points]), geom)
        assert got.tolist() == [locate(p, geom) for p in points], geom


def test_predicates_over_arrays_are_the_row_by_row_ones():
    rng = random.Random(3)
    answered_true = unanswered = 0
    for geom in SAMPLE:
        points = _points(geom, rng)
        px, py = np.array([p[0] for p in points]), np.array([p[1] for p in points])
        for name in ("contains", "within", "equals"):
            test = getattr(relate, name)
            for point_first in (False, True):
                values, answered = relate.with_points(name, geom, point_first, px, py)
                for p, value, done in zip(points, values.tolist(), answered.tolist()):
                    point = Geom("Point", p)
                    want = _outcome(lambda: test(point, geom) if point_first else test(geom, point))
                    if done:
                        assert value == want, (name, point_first, geom, p)
                        answered_true += value
                    else:  # left to the row-wise path: a relate that throws (or one PointRelate does not model)
                        unanswered += 1
                        assert want.startswith("throws") or geom in UNUSABLE, (name, geom, p)
    assert answered_true > 200 and unanswered > 100


SQUARE_HOLED = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))"
OVERLAPPING = "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((5 5, 15 5, 15 15, 5 15, 5 5)))"


def _columns(n: int, seed: int):
    rng = random.Random(seed)
    lon = [float(rng.randint(-2, 16)) if rng.random() < 0.3 else rng.uniform(-2, 16) for _ in range(n)]
    lat = [float(rng.randint(-2, 16)) if rng.random() < 0.3 else rng.uniform(-2, 16) for _ in range(n)]
    lon[0], lat[0] = None, 1.0  # a null row stays null
    lon[1], lat[1] = math.nan, 1.0  # POINT EMPTY: the row-wise path
    return {"lon": pa.array(lon, pa.float64()), "lat": pa.array(lat, pa.float64())}


def _plain_predicate(test, check: bool):
    """The row function before this path: both values deserialized, the full relate (relate_matrix) every row."""
    import pinot_sink.ingestion.functions.geospatial_scalar_functions as geo

    def run(first: bytes, second: bytes) -> int:
        a, b = deserialize(first), deserialize(second)
        if check:
            geo._same_kind(a, b, "The first and second arguments should either both be geometry or both be geography")
        return int(test(a, b))
    return run


def _row_by_row(expression: str, columns: dict, continue_on_error: bool):
    """The code before: every row through per_row and the full relate."""
    import pinot_sink.ingestion.functions.geospatial_scalar_functions as geo

    saved = geo._with_points, geo._predicate
    geo._with_points, geo._predicate = (lambda *args: None), _plain_predicate
    try:
        return _evaluate(expression, columns, continue_on_error)
    finally:
        geo._with_points, geo._predicate = saved


def _evaluate(expression: str, columns: dict, continue_on_error: bool):
    ctx = Context(len(columns["lon"]), continue_on_error=continue_on_error)
    ctx.where = expression
    try:
        out = Expression(expression).evaluate_array(columns, ctx).to_pylist()
    except IngestionError as exc:
        return f"fails: {exc}"
    errors = None if ctx.errors is None else ctx.errors.tolist()
    return out, errors


@pytest.mark.parametrize("polygon", [SQUARE_HOLED, OVERLAPPING, "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))",
                                     "GEOMETRYCOLLECTION (POINT (3 3), POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0)))"])
@pytest.mark.parametrize("form", ["ST_Contains(ST_GeomFromText('{w}'), ST_Point(lon, lat))",
                                  "ST_Within(ST_Point(lon, lat), ST_GeomFromText('{w}'))",
                                  "ST_Contains(ST_Point(lon, lat), ST_GeomFromText('{w}'))",
                                  "ST_Within(ST_GeomFromText('{w}'), ST_Point(lon, lat))",
                                  "ST_Equals(ST_Point(lon, lat), ST_GeomFromText('{w}'))",
                                  "ST_Contains(toSphericalGeography(ST_GeomFromText('{w}')), ST_Point(lon, lat))"])
@pytest.mark.parametrize("continue_on_error", [False, True])
def test_a_literal_geometry_against_a_point_column_is_the_code_before(polygon, form, continue_on_error):
    """Values, nulls, the failing rows (the overlapping multipolygon's graph throws "side location conflict";
    geography against geometry throws) and the build's message, row and value: the row-by-row path's."""
    expression = form.format(w=polygon)
    columns = _columns(400, 5)
    want = _row_by_row(expression, columns, continue_on_error)
    assert _evaluate(expression, columns, continue_on_error) == want
    if polygon == OVERLAPPING and form.startswith("ST_Contains(ST_GeomFromText"):  # the failures are tested
        assert "side location conflict" in want if isinstance(want, str) else any(want[1])


def test_the_fast_path_answers_the_geofencing_rows():
    """The point rows are answered over arrays: the row-wise function is called only for the rest."""
    import pinot_sink.ingestion.functions.geospatial_scalar_functions as geo

    calls = []
    saved = geo._predicate

    def counting(test, check):
        fn = saved(test, check)
        return lambda a, b: (calls.append(1), fn(a, b))[1]
    geo._predicate = counting
    try:
        columns = _columns(400, 6)
        out, _ = _evaluate(f"ST_Contains(ST_GeomFromText('{SQUARE_HOLED}'), ST_Point(lon, lat))", columns, False)
    finally:
        geo._predicate = saved
    assert len(calls) == 1  # the NaN row (POINT EMPTY); the null row is not called
    assert sum(v for v in out if v) > 50


def test_a_geometry_whose_array_relate_throws_goes_row_by_row(monkeypatch):
    """A JTS exception from the over-arrays relate (its graph, the locator) is not the build's error: that
    geometry's rows go the row-wise way, with the answers and failures of the code before."""
    import pinot_sink.ingestion.functions.geospatial_scalar_functions as geo

    expression = f"ST_Contains(ST_GeomFromText('{SQUARE_HOLED}'), ST_Point(lon, lat))"
    columns = _columns(400, 7)
    want = _row_by_row(expression, columns, False)

    def throwing(*args):
        raise JavaException("org.locationtech.jts.geom.TopologyException: side location conflict")
    monkeypatch.setattr(geo.relate, "with_points", throwing)
    assert _evaluate(expression, columns, False) == want


@pytest.mark.parametrize("distinct", [2, 100])  # over arrays; row by row (over _MAX_GEOMETRIES), PointRelate kept
@pytest.mark.parametrize("continue_on_error", [False, True])
def test_a_column_of_polygons(distinct, continue_on_error):
    rng = random.Random(distinct)
    shapes = [SQUARE_HOLED, OVERLAPPING] + [
        f"POLYGON ((0 0, {rng.randint(3, 15)} 0, 10 {rng.randint(3, 15)}, 0 10, 0 0))" for _ in range(distinct - 2)]
    polygons = pa.array([shapes[rng.randrange(distinct)] if i > 20 else SQUARE_HOLED for i in range(400)])
    columns = dict(_columns(400, 7), w=polygons)
    for expression in ("ST_Contains(ST_GeomFromText(w), ST_Point(lon, lat))",
                       "ST_Within(ST_Point(lon, lat), ST_GeomFromText(w))",
                       "ST_Equals(ST_GeomFromText(w), ST_Point(lon, lat))"):
        want = _row_by_row(expression, columns, continue_on_error)
        assert _evaluate(expression, columns, continue_on_error) == want
        if "Equals" not in expression:  # the overlapping multipolygon's rows fail: the failure is compared
            assert "side location conflict" in want if isinstance(want, str) else any(want[1])

