"""Pinot's answers for the geospatial scalar functions (pinot-core's geospatial ScalarFunctions), kept as
tests/fixtures/functions/geo_*.jsonl in the format tools/pinot_functions/expectations.py writes (so
tests/ingestion/test_function_expectations.py replays them like every other family): geo_wkt (WKT in, every
writer, distances), geo_wkb, geo_geojson (the readers), geo_relate (predicates over valid, non-collection
inputs), geo_relate_corners (predicates over the rest, where JTS's old RelateOp and GEOS's RelateNG part) and
geo_relate_graph (random invalid areas and collections, graph_rows: what the port of the old RelateOp,
javalib/jts/relate_op.py, must answer as JTS does). Splitting the rows of
geo_relate and geo_relate_corners asks GEOS's validity test: this script needs shapely (not a dependency of the
package).

pinot-verify's builder has no pinot-core, so these tables are not made by Pinot's builder but by
GeoFunctionReference.java (this folder), which calls Pinot's own ScalarFunctions by reflection as Pinot's
ExpressionTransformer would (null argument: null; an exception: the row's value null, continueOnError), on the
classes Pinot runs: Pinot's ScalarFunctions (pinot-core) and GeometryUtils (pinot-segment-local) compiled from
the mirror's source, GeometrySerializer from pinot-verify's build, JTS core 1.20.0 (Pinot's pin, in pinot-verify's lib),
jts-io-common 1.19.0 and json-simple 1.1.1 (the versions Pinot's binary ships, LICENSE-binary), both compiled from
their own sources (JTS's tag 1.19.0, json-simple's tag_release_1_1_1): Debian's libjts-java 1.19.0 is patched
to json-simple 2.x, whose writer orders GeoJSON fields differently. JTS's GeoJSON reader and writer have the
same source at 1.19.0 and 1.20.0.
This script then turns the values into what Pinot's column conversion stores (a double NaN: null); rows with a
text or a bytes value past 512 characters (hex) are left out, so no value is cut.

    GEO_REFERENCE_CP=<class path holding the classes above> python tools/pinot_functions/geo_reference.py

A differential sweep, as expectations.py's: ``--seed S --repeat N --out DIR geo_relate_graph`` draws N batches of
new rows into DIR; replay them with ``PINOT_SINK_FUNCTION_FIXTURES=DIR pytest
tests/ingestion/test_function_expectations.py -k geo_relate_graph``.

To make that class path (outside the repository; nothing of it is committed): copy from the Pinot mirror
pinot-core's .../geospatial/transform/function/ScalarFunctions.java (its gridDistance body replaced by a throw:
pinot-verify's H3 stand-in lacks it; no H3 function is in these tables), pinot-segment-local's
.../utils/GeometryUtils.java, and StDistanceFunction's static sphericalDistance with the checks it calls into a
class of that name; compile json-simple 1.1.1, then JTS's modules/io/common .../io/geojson against it and
jts-core-1.20.0.jar, then those and GeoFunctionReference.java against
``<dir>:jts-core-1.20.0.jar:<geojson classes>:<json-simple classes>:~/pinot-verify/classes:~/pinot-verify/lib/*``.
"""
from __future__ import annotations

import json
import math
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expectations import COMMIT, main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "functions"
MAX_LENGTH = 512

# --- random geometries (a tree of tuples) and their texts -----------------------------------------------


def _number(rng: random.Random, nice: bool) -> float:
    kind = rng.random()
    if nice or kind < 0.45:
        return float(rng.randint(-20, 20))
    if kind < 0.65:
        return round(rng.uniform(-180, 180), rng.randint(1, 9))
    if kind < 0.8:
        return rng.uniform(-180, 180)
    return rng.choice([0.0, -0.0, 1e-9, -2.5e-7, 0.001, 0.0009999, 1e7, 9999999.5, 123456789.125, 1e20, -3.4e38,
                       1e300, 5e-324, 0.1, 1 / 3, 2 / 3, 90.0, -90.0, 180.0, -180.0, 180.0000001, 45.123456789012])


def _xy(rng, nice):
    return (_number(rng, nice), _number(rng, nice))


def _ring(rng, nice, hole_of=None):
    if hole_of is not None:  # a small square inside the box (x0, y0, size)
        x0, y0, size = hole_of
        a, b = size / 4, size / 2
        ring = [(x0 + a, y0 + a), (x0 + a, y0 + b), (x0 + b, y0 + b), (x0 + b, y0 + a)]
    elif rng.random() < 0.6:
        x0, y0 = float(rng.randint(-20, 10)), float(rng.randint(-20, 10))
        size = float(rng.choice([2, 4, 8, 10]))
        ring = [(x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size)]
    else:
        ring = [_xy(rng, nice) for _ in range(rng.randint(3, 5))]
    if rng.random() < 0.5:
        ring.reverse()
    return ring + [ring[0]]


def _polygon(rng, nice):
    if rng.random() < 0.5:
        x0, y0 = float(rng.randint(-20, 10)), float(rng.randint(-20, 10))
        size = float(rng.choice([4, 8, 12]))
        shell = [(x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size), (x0, y0)]
        if rng.random() < 0.5:
            shell.reverse()
        rings = [shell]
        if rng.random() < 0.6:
            rings.append(_ring(rng, nice, (x0, y0, size)))
        return ("POLYGON", rings)
    return ("POLYGON", [_ring(rng, nice)])


def geometry(rng: random.Random, depth: int = 0):
    nice = rng.random() < 0.5
    kind = rng.choice(["POINT", "POINT", "LINESTRING", "POLYGON", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
                       "MULTIPOLYGON", "GEOMETRYCOLLECTION"] if depth == 0 else ["POINT", "LINESTRING", "POLYGON"])
    if rng.random() < 0.06:
        return (kind, None)  # EMPTY
    if kind == "POINT":
        return ("POINT", _xy(rng, nice))
    if kind == "LINESTRING":
        return ("LINESTRING", [_xy(rng, nice) for _ in range(rng.randint(2, 4))])
    if kind == "POLYGON":
        return _polygon(rng, nice)
    if kind == "MULTIPOINT":
        return ("MULTIPOINT", [_xy(rng, nice) for _ in range(rng.randint(1, 3))])
    if kind == "MULTILINESTRING":
        return ("MULTILINESTRING", [[_xy(rng, nice) for _ in range(rng.randint(2, 3))]
                                    for _ in range(rng.randint(1, 2))])
    if kind == "MULTIPOLYGON":
        return ("MULTIPOLYGON", [_polygon(rng, nice)[1] for _ in range(rng.randint(1, 2))])
    return ("GEOMETRYCOLLECTION", [geometry(rng, 1) for _ in range(rng.randint(1, 3))])


def _num_text(v: float) -> str:
    return repr(v) if not v.is_integer() or abs(v) >= 1e16 else str(int(v)) if v != 0 or math.copysign(1, v) > 0 \
        else "-0"


def _coords(points) -> str:
    return ", ".join(f"{_num_text(x)} {_num_text(y)}" for x, y in points)


def wkt(g) -> str:
    kind, body = g
    if body is None:
        return f"{kind} EMPTY"
    if kind == "POINT":
        return f"POINT ({_coords([body])})"
    if kind == "LINESTRING":
        return f"LINESTRING ({_coords(body)})"
    if kind == "POLYGON":
        return "POLYGON (" + ", ".join(f"({_coords(r)})" for r in body) + ")"
    if kind == "MULTIPOINT":
        return "MULTIPOINT (" + ", ".join(f"({_coords([p])})" for p in body) + ")"
    if kind == "MULTILINESTRING":
        return "MULTILINESTRING (" + ", ".join(f"({_coords(line)})" for line in body) + ")"
    if kind == "MULTIPOLYGON":
        return "MULTIPOLYGON (" + ", ".join("(" + ", ".join(f"({_coords(r)})" for r in p) + ")" for p in body) + ")"
    return "GEOMETRYCOLLECTION (" + ", ".join(wkt(c) for c in body) + ")"


_WKB_TYPES = {"POINT": 1, "LINESTRING": 2, "POLYGON": 3, "MULTIPOINT": 4, "MULTILINESTRING": 5, "MULTIPOLYGON": 6,
              "GEOMETRYCOLLECTION": 7}


def wkb(g, little: bool = False, srid: int | None = None, z: bool = False) -> bytes:
    e = "<" if little else ">"
    kind, body = g
    code = _WKB_TYPES[kind] | (0x20000000 if srid is not None else 0) | (0x80000000 if z else 0)
    out = bytes([1 if little else 0]) + struct.pack(e + "I", code) + (struct.pack(e + "i", srid) if srid else b"")

    def pts(points):
        return b"".join(struct.pack(e + ("ddd" if z else "dd"), x, y, *([1.5] if z else [])) for x, y in points)

    if kind == "POINT":
        return out + pts([body or (math.nan, math.nan)])
    if body is None:
        return out + struct.pack(e + "I", 0)
    if kind == "LINESTRING":
        return out + struct.pack(e + "I", len(body)) + pts(body)
    if kind == "POLYGON":
        return out + struct.pack(e + "I", len(body)) + b"".join(struct.pack(e + "I", len(r)) + pts(r) for r in body)
    children = {"MULTIPOINT": lambda c: ("POINT", c), "MULTILINESTRING": lambda c: ("LINESTRING", c),
                "MULTIPOLYGON": lambda c: ("POLYGON", c), "GEOMETRYCOLLECTION": lambda c: c}[kind]
    return out + struct.pack(e + "I", len(body)) + b"".join(wkb(children(c), little, None, z) for c in body)


def _gj_coords(g):
    kind, body = g
    if kind == "POINT":
        return [] if body is None else list(body)
    if body is None:
        return []
    if kind in ("LINESTRING", "MULTIPOINT"):
        return [list(p) for p in body]
    if kind in ("POLYGON", "MULTILINESTRING"):
        return [[list(p) for p in r] for r in body]
    return [[[list(p) for p in r] for r in poly] for poly in body]


_GJ_TYPES = {"POINT": "Point", "LINESTRING": "LineString", "POLYGON": "Polygon", "MULTIPOINT": "MultiPoint",
             "MULTILINESTRING": "MultiLineString", "MULTIPOLYGON": "MultiPolygon",
             "GEOMETRYCOLLECTION": "GeometryCollection"}


def geojson(g, rng: random.Random) -> str:
    kind, body = g

    def obj(g):
        if g[0] == "GEOMETRYCOLLECTION":
            d = {"type": "GeometryCollection", "geometries": [obj(c) for c in (g[1] or [])]}
        else:
            d = {"type": _GJ_TYPES[g[0]], "coordinates": _gj_coords(g)}
        if rng.random() < 0.3:
            d = dict(reversed(list(d.items())))
        return d

    d = obj(g)
    r = rng.random()
    if r < 0.1:
        d["crs"] = {"type": "name", "properties": {"name": rng.choice(["EPSG:4326", "EPSG:3857", "urn:x"])}}
    elif r < 0.15:
        d = {"type": "Feature", "geometry": d, "properties": {"a": 1}}
    text = json.dumps(d)
    if rng.random() < 0.3:
        text = text.replace(".0,", ",").replace(".0]", "]")  # integral numbers as ints
    return text


EDGE_WKT = [
    "POINT (1 2)", "point(-1.5e2 .25)", "POINT EMPTY", "POINT(1 2 3)", "POINT Z (1 2 3)", "POINT M (1 2 3)",
    "POINT ZM (1 2 3 4)", "POINT (1)", "POINT (1 2", "POINT (1 2) x", "POINT (NaN 1)", "POINT (1e400 1)",
    "POINT (+1 2)", "POINT (1. 2.)", "POINT(0x10 2)", "POINT (-0 0)", "POINT (1 2),", "  POINT ( 1   2 )  ",
    "LINESTRING EMPTY", "LINESTRING (0 0)", "LINESTRING (0 0, 0 0)", "LINESTRING (0 0, 1 1, 2 2)",
    "LINEARRING (0 0, 1 0, 1 1, 0 0)", "LINEARRING (0 0, 1 0, 1 1)", "POLYGON EMPTY", "POLYGON ((0 0, 1 1, 0 0))",
    "POLYGON ((0 0, 1 0, 1 1, 0 1))", "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))",
    "POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))", "POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))",
    "POLYGON ((0 0, 1 0, 2 0, 0 0))", "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), EMPTY)",
    "MULTIPOINT (1 2, 3 4)", "MULTIPOINT ((1 2), (3 4))", "MULTIPOINT ((1 2), EMPTY)", "MULTIPOINT EMPTY",
    "MULTIPOINT (EMPTY)", "MULTILINESTRING ((0 0, 1 1), EMPTY)", "MULTILINESTRING EMPTY",
    "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))", "MULTIPOLYGON (EMPTY, ((0 0, 1 0, 1 1, 0 0)))",
    "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY)", "MULTIPOLYGON EMPTY",
    "MULTIPOLYGON (((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 1 1)), ((10 10, 10 12, 12 12, 10 10)))",
    "GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))",
    "GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY)", "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 1)))",
    "GEOMETRYCOLLECTION (MULTIPOINT (1 1, 2 2), POLYGON ((0 0, 1 0, 1 1, 0 0)))", "", "   ", "bad", "POINT",
    "CIRCLE (1 2)", "TRIANGLE ((0 0, 1 0, 0 1, 0 0))", "SRID=4326;POINT (1 2)", "POINT (1 2) POINT (3 4)",
    "POINT (1.0000000000000002 2.9999999999999996)", "POINT (123456789012345680 0.000001)", "POINT (1e-5 1e-4)",
    "POINT (100000000 12345678.9)", "LINESTRING (1e20 -1e20, 0.1 0.2)", "POINT (180 90)", "POINT (-180 -90)",
    "POINT (181 0)", "POINT (0 91)", "Point (1 2)", "POINT(1 2)", "POINT (1\t2)", "POINT (1\n2)",
    # JTS's coordinate syntax: a declared Z / M must be there, an undeclared third number is read, a fourth not
    "POINT M (1 23)", "POINT Z (1 2)", "POINTZ (1 2 3)", "POINT ZM (1 2 3)", "POINT (1 2 3 4)",
    "POLYGON ((1 -19, 1 -15 5 -15, 5 -19, 1 -19))", "POINT (1 2 NaN)", "POINT (1 2 abc)",
    # Double.parseDouble's forms; only NaN is JTS's own
    "POINT (1 Inf)", "POINT (1 Infinity)", "POINT (-Infinity 1)", "POINT (0x1p3 2)", "POINT (1d 2f)",
    "POINT (-83.e9 1)", "POINT (1e-400 2)", "POINT (+NaN 1)", "POINT (1 2.5e+3)",
    "# comment\nPOINT (1 2)", "POINT (1 2) # c", "POINT @ (1 2)", "POINTX (1 2)", "MULTIPOINTZ (1 2 3)",
    "MULTIPOINT (1 2, (3 4))", "MULTIPOINT ((1 2), 3 4)", "MULTIPOINT (EMPTY, (1 2))",
    "GEOMETRYCOLLECTION (POINT EMPTY)", "GEOMETRYCOLLECTION (MULTIPOINT EMPTY, LINESTRING EMPTY)",
    "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((20 20, 30 20, 30 30, 20 30, 20 20)))",
    "POINT (1e200 -1e200)", "POINT (0.12345678901234567 0.00000000000000012)", "POINT (-1e-20 5e-17)",
]


def _wkt_rows(rng: random.Random) -> list[dict]:
    texts = list(EDGE_WKT) + [wkt(geometry(rng)) for _ in range(260)]
    rows = []
    for i, w in enumerate(texts):
        w2 = rng.choice(texts) if rng.random() < 0.3 else wkt(geometry(rng))
        if rng.random() < 0.15:  # a point inside or on w's box: predicates that answer 1
            w2 = f"POINT ({rng.randint(-15, 15)} {rng.randint(-15, 15)})"
        if rng.random() < 0.05:
            w2 = w
        rows.append({"w": w if i % 97 else None, "w2": w2})
    return rows


def _relate_guaranteed(text: str | None) -> bool:
    """Inputs on which any correct relate gives JTS's answer: GEOS reads it, valid, and not a collection (JTS's
    old RelateOp labels invalid areas and collections its own way, or throws). Decided by GEOS's validity test,
    not by the predicates under test."""
    import shapely

    if text is None:
        return True
    try:
        geom = shapely.from_wkt(text)
    except Exception:  # noqa: BLE001 - text GEOS cannot read: a parse failure in both, left with the guaranteed
        return True
    return geom.geom_type != "GeometryCollection" and bool(shapely.is_valid(geom))


def _relate_rows(rng: random.Random, guaranteed: bool) -> list[dict]:
    rows = _wkt_rows(rng) + _wkt_rows(rng)
    chosen = [r for r in rows if (_relate_guaranteed(r["w"]) and _relate_guaranteed(r["w2"])) == guaranteed]
    if not guaranteed:
        chosen += [{"w": a, "w2": b} for a, b in RELATE_CORNERS]
    return chosen


# --- geo_relate_graph: random invalid areas and collections, for the port of JTS's old RelateOp -------------
# (javalib/jts/relate_op.py). Coordinates mostly on a small grid, so that edges
# cross, touch and overlap (the graph's nodes, collinear intersections, bundles of one direction), sometimes
# halves or long decimals (the double-double intersection points and orientation).


def _graph_xy(rng: random.Random) -> tuple[float, float]:
    r = rng.random()
    if r < 0.7:
        return (float(rng.randint(-2, 12)), float(rng.randint(-2, 12)))
    if r < 0.85:
        return (rng.randint(-4, 24) / 2, rng.randint(-4, 24) / 2)
    return (round(rng.uniform(-2, 12), rng.randint(1, 15)), round(rng.uniform(-2, 12), rng.randint(1, 15)))


def _graph_ring(rng: random.Random) -> list:
    r = rng.random()
    if r < 0.35:  # a square of the grid
        x0, y0 = float(rng.randint(-2, 9)), float(rng.randint(-2, 9))
        size = float(rng.choice([1, 2, 3, 4, 6, 8]))
        ring = [(x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size)]
    elif r < 0.5:  # a bow tie (crossing itself), uneven so its area is not zero
        x0, y0 = float(rng.randint(-2, 6)), float(rng.randint(-2, 6))
        a, b = float(rng.randint(2, 6)), float(rng.randint(2, 6))
        ring = [(x0, y0), (x0 + a, y0 + b), (x0 + a, y0), (x0, y0 + b + rng.randint(1, 3))]
    else:  # any 3 to 7 points: often crossing itself, sometimes touching itself at a vertex
        ring = [_graph_xy(rng) for _ in range(rng.randint(3, 7))]
        if rng.random() < 0.2 and len(ring) > 3:
            ring.insert(rng.randint(1, len(ring) - 1), ring[rng.randint(0, len(ring) - 1)])
    if rng.random() < 0.5:
        ring.reverse()
    return ring + [ring[0]]


def _graph_polygon(rng: random.Random) -> list:
    rings = [_graph_ring(rng)]
    while rng.random() < 0.3:
        rings.append(_graph_ring(rng))  # a hole: inside, crossing the shell or outside it
    return rings


def _graph_line(rng: random.Random) -> list:
    line = [_graph_xy(rng) for _ in range(rng.randint(2, 5))]
    r = rng.random()
    if r < 0.2:
        line.append(line[0])  # closed
    elif r < 0.3:
        line.insert(1, line[0])  # a repeated point
    return line


def graph_geometry(rng: random.Random, depth: int = 0):
    kind = rng.choice(["POINT", "LINESTRING", "POLYGON", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
                       "MULTIPOLYGON", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "GEOMETRYCOLLECTION"]
                      if depth < 2 else ["POINT", "LINESTRING", "POLYGON"])
    if kind == "POINT":
        return ("POINT", _graph_xy(rng))
    if kind == "LINESTRING":
        return ("LINESTRING", _graph_line(rng))
    if kind == "POLYGON":
        return ("POLYGON", _graph_polygon(rng))
    if kind == "MULTIPOINT":
        return ("MULTIPOINT", [_graph_xy(rng) for _ in range(rng.randint(1, 4))])
    if kind == "MULTILINESTRING":
        return ("MULTILINESTRING", [_graph_line(rng) for _ in range(rng.randint(1, 3))])
    if kind == "MULTIPOLYGON":
        return ("MULTIPOLYGON", [_graph_polygon(rng) for _ in range(rng.randint(1, 3))])
    return ("GEOMETRYCOLLECTION", [graph_geometry(rng, depth + 1) for _ in range(rng.randint(1, 4))])


def _graph_partner(rng: random.Random, g) -> tuple:
    """A second argument related to the first (itself, one of its members, a point or square inside its box),
    so that contains / within / equals also answer 1."""
    kind, body = g
    coords = []

    def collect(h):
        k, b = h
        if k == "POINT":
            coords.append(b)
        elif k in ("LINESTRING", "MULTIPOINT"):
            coords.extend(b)
        elif k == "POLYGON":
            coords.extend(b[0])
        elif k == "MULTILINESTRING":
            coords.extend(c for line in b for c in line)
        elif k == "MULTIPOLYGON":
            coords.extend(c for poly in b for c in poly[0])
        else:
            for m in b:
                collect(m)
    collect(g)
    r = rng.random()
    if r < 0.2:
        return g
    if r < 0.4 and kind in ("MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"):
        member = rng.choice(body)
        if kind == "GEOMETRYCOLLECTION":
            return member
        return ({"MULTIPOINT": "POINT", "MULTILINESTRING": "LINESTRING", "MULTIPOLYGON": "POLYGON"}[kind], member)
    x0, x1 = min(c[0] for c in coords), max(c[0] for c in coords)
    y0, y1 = min(c[1] for c in coords), max(c[1] for c in coords)
    if r < 0.7:
        return ("POINT", (rng.choice([x0, x1, (x0 + x1) / 2, float(rng.randint(int(x0), int(x1)))]),
                          rng.choice([y0, y1, (y0 + y1) / 2, float(rng.randint(int(y0), int(y1)))])))
    if r < 0.85 and x1 - x0 >= 2 and y1 - y0 >= 2:
        a, b = x0 + (x1 - x0) / 4, y0 + (y1 - y0) / 4
        c, d = x0 + 3 * (x1 - x0) / 4, y0 + 3 * (y1 - y0) / 4
        return ("POLYGON", [[(a, b), (c, b), (c, d), (a, d), (a, b)]])
    return ("LINESTRING", [(x0, y0), ((x0 + x1) / 2, (y0 + y1) / 2)]) if (x0, y0) != (x1, y1) else ("POINT", (x0, y0))


def _graph_mapped(g, f):
    """``g`` with every coordinate through ``f``."""
    kind, body = g
    if kind == "POINT":
        return (kind, f(body))
    if kind in ("LINESTRING", "MULTIPOINT"):
        return (kind, [f(c) for c in body])
    if kind == "POLYGON":
        return (kind, [[f(c) for c in ring] for ring in body])
    if kind == "MULTILINESTRING":
        return (kind, [[f(c) for c in line] for line in body])
    if kind == "MULTIPOLYGON":
        return (kind, [[[f(c) for c in ring] for ring in poly] for poly in body])
    return (kind, [_graph_mapped(m, f) for m in body])


def graph_rows(rng: random.Random, count: int = 600) -> list[dict]:
    rows = []
    for _ in range(count):
        first = graph_geometry(rng)
        second = _graph_partner(rng, first) if rng.random() < 0.5 else graph_geometry(rng)
        if rng.random() < 0.5:
            first, second = second, first
        if rng.random() < 0.25:  # off the grid: shared points stay shared, collinear ones nearly so
            k, dx, dy = rng.choice([1 / 3, 0.1, 1e-7, 12345.678]), rng.choice([0, 100.5, -73.98, 1e6]), \
                rng.choice([0, 40.7, -0.001])
            first, second = (_graph_mapped(g, lambda c: (c[0] * k + dx, c[1] * k + dy)) for g in (first, second))
        rows.append({"w": wkt(first), "w2": wkt(second)})
    return rows


def _wkb_rows(rng: random.Random) -> list[dict]:
    rows = []
    for i in range(260):
        g = geometry(rng)
        data = wkb(g, little=rng.random() < 0.4, srid=rng.choice([None] * 6 + [4326, 3857]), z=rng.random() < 0.1)
        r = rng.random()
        if r < 0.05:
            data = data[:rng.randint(0, len(data) - 1)]
        elif r < 0.08:
            data = data + b"\x00\x01"
        elif r < 0.1:
            data = bytes([data[0]]) + struct.pack(">I", rng.choice([0, 8, 15, 17, 1001, 3003, 2002])) + data[5:]
        # (no byte-order byte other than 0 / 1: JTS then keeps the order its shared reader last read, another
        # row's in Pinot, which this package does not mirror: docs/ingestion.md)
        rows.append({"b": data.hex() if i % 97 else None})
    rows += [{"b": h} for h in [
        # a member's byte-order byte neither 0 nor 1: JTS keeps the enclosing geometry's order
        "000000000500000001930000000200000003c0180000000000004000000000000000402e000000000000c0340000000000004010"
        "000000000000c02a000000000000",
        "010400000002000000010100000000000000000024400000000000001c4026010000000000000000001c40000000000000f03f",
        "00000000070000000100000000017ff80000000000007ff8000000000000",  # a collection of an empty point
        "0020000001000010e63ff00000000000004000000000000000",  # EWKB SRID 4326: a geography
        "", "00", "0000000001", "01010000000000000000000000000000000000f03f",
                                "0101000020e6100000000000000000f03f0000000000000040",
                                "00000003e9" + "3ff0000000000000" * 3, "010700000000000000",
                                "000000000200000001" + "3ff0000000000000" * 2]]
    return rows


def _geojson_rows(rng: random.Random) -> list[dict]:
    rows = [{"j": geojson(geometry(rng), rng) if i % 97 else None} for i in range(260)]
    rows += [{"j": t} for t in [
        "", "{}", "null", "[]", "bad", '{"type": "Point"}', '{"type": "Point", "coordinates": []}',
        '{"type": "Point", "coordinates": [1]}', '{"type": "Point", "coordinates": [1, 2, 3]}',
        '{"type": "Point", "coordinates": ["1", 2]}', '{"type": "point", "coordinates": [1, 2]}',
        '{"coordinates": [1, 2], "type": "Point"}', '{"type": "Circle", "coordinates": [1, 2]}',
        '{"type": "LineString", "coordinates": [[1, 2]]}', '{"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]}',
        '{"type": "Polygon", "coordinates": []}', '{"type": "MultiPoint", "coordinates": []}',
        '{"type": "GeometryCollection", "geometries": []}', '{"type": "Feature", "geometry": null}',
        '{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
        '{"type": "Point", "coordinates": [1, 2]}, "properties": {}}]}',
        '{"type": "Point", "coordinates": [1, 2], "crs": {"type": "name", "properties": {"name": "EPSG:4326"}}}',
        '{"type": "Point", "coordinates": [1e400, 2]}', '{"type": "Point", "coordinates": [1.5, 2.25]} x',
        '{"type": "Point", "coordinates": [0.1, -0.0]}', '{"type": "Point", "coordinates": [123456789, 1e-5]}',
        # json-simple's leniency: commas skipped anywhere, a key's colon optional, leading zeros, its escapes
        '{"type" "Point", "coordinates": [-5, 7]}', '{"coordinates": [[1, 2] [3, 4]], "type": "LineString"}',
        '{"type": "Point", "coordinates": [1, 2,],}', '{,"type": "Point",, "coordinates": [,1, 2]}',
        '{"type": "Point", "coordinates": [01, -0]}', '{"type": "Poi\\u006et", "coordinates": [1, 2]}',
        '{"type": "Point\\q", "coordinates": [1, 2]}', '{"type": "Point", "coordinates": [1, 2]} "x',
        '{"type": "Point", "coordinates": [1, 2]} x', '{"type": True, "coordinates": [1, 2]}',
        '{"type": "Point",\f"coordinates": [1, 2]}', '{"type": "Point", "coordinates": [99999999999999999999, 2]}',
        '{"type": "Point", "coordinates": [.5, 2]}', '{"type": "Point", "coordinates": [1., 2]}',
        '{"type": "Point", "coordinates": [-176.06E217502746, 5e-324]}', '{"type": "Point" : "x"}',
        '{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinate": [1, 2]}]}',
        '{"type": "Point", "coordinates": [1, 2, "z"]}', '{"type": "Point", "coordinates": [1, 2, 3, "m"]}',
        '{"type": "MultiPolygon", "coordinates": [[], [[[0, 0], [1, 0], [1, 1], [0, 0]]]]}',
        '{"type": "Polygon", "coordinates": [[], [[0, 0], [1, 0], [1, 1], [0, 0]]]}']]
    return rows


# Where JTS's old RelateOp meets inconsistent area topology (overlapping polygons in a multipolygon or a
# collection, a self-crossing ring) it throws a TopologyException ("side location conflict"), Pinot's row fails;
# GEOS answers instead (the package follows JTS: javalib/jts/relate_op.py)
_OVERLAPPING = "MULTIPOLYGON (((4 -14, 14 -14, 14 -4, 4 -4, 4 -14)), ((0 -12, 10 -12, 10 -2, 0 -2, 0 -12)))"
_OVERLAPPING_GC = "GEOMETRYCOLLECTION (POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0)), POLYGON ((5 5, 15 5, 15 15, 5 15, 5 5)))"
RELATE_CORNERS = [
    (_OVERLAPPING, "POLYGON ((9 -10, 13 -10, 13 -6, 9 -6, 9 -10))"),
    ("POLYGON ((9 -10, 13 -10, 13 -6, 9 -6, 9 -10))", _OVERLAPPING),
    (_OVERLAPPING, _OVERLAPPING), (_OVERLAPPING_GC, _OVERLAPPING_GC),
    (_OVERLAPPING_GC, "POINT (7 7)"), ("POINT (7 7)", _OVERLAPPING_GC),
    (_OVERLAPPING_GC, "LINESTRING (1 1, 12 12)"), ("LINESTRING (1 1, 12 12)", _OVERLAPPING_GC),
    ("POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))", "POINT (5 2)"), ("POINT (5 2)", "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))"),
    ("POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))", "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))"),
    (_OVERLAPPING, "POINT (5 -8)"), ("POINT (5 -8)", _OVERLAPPING),
]


def _checked(cases: dict[str, tuple[str, str]]) -> tuple[dict, dict]:
    outputs, transforms = {}, {}
    for k, (expression, pinot_type) in enumerate(cases.values()):
        outputs[f"c{k}"], outputs[f"ok{k}"] = (pinot_type, True), ("BOOLEAN", True)
        transforms[f"c{k}"], transforms[f"ok{k}"] = expression, f"isNotNull({expression})"
    return outputs, transforms


_G1, _G2 = "ST_GeomFromText(w)", "ST_GeomFromText(w2)"
_Y1, _Y2 = "ST_GeogFromText(w)", "ST_GeogFromText(w2)"
_RELATE_CASES = {
    "contains": (f"ST_Contains({_G1}, {_G2})", "INT"), "within": (f"ST_Within({_G1}, {_G2})", "INT"),
    "equals": (f"ST_Equals({_G1}, {_G2})", "INT"), "geog_contains": (f"ST_Contains({_Y1}, {_Y2})", "INT"),
    "mixed_within": (f"ST_Within({_Y1}, {_G2})", "INT"), "mixed_equals": (f"ST_Equals({_Y1}, {_G2})", "INT"),
}
GEO_FAMILIES = {
    "geo_wkt": ({"w": "string", "w2": "string"}, _wkt_rows, {
        "geom": (_G1, "BYTES"), "geog": (_Y1, "BYTES"), "text": (f"ST_AsText({_G1})", "STRING"),
        "geog_text": (f"ST_AsText({_Y1})", "STRING"), "wkb": (f"ST_AsBinary({_G1})", "BYTES"),
        "geojson": (f"ST_AsGeoJSON({_G1})", "STRING"), "geog_geojson": (f"ST_AsGeoJSON({_Y1})", "STRING"),
        "type": (f"ST_GeometryType({_Y1})", "STRING"),
        "spherical": (f"ST_AsText(toGeometry(toSphericalGeography({_G1})))", "STRING"),
        # a geometry distance into a STRING column (Double.toString): a DOUBLE column stores an empty geometry's
        # NaN as null, which the replay would count as a failure (a geography's empties throw: DOUBLE)
        "distance": (f"ST_Distance({_G1}, {_G2})", "STRING"), "geog_distance": (f"ST_Distance({_Y1}, {_Y2})", "DOUBLE"),
    }),
    # the predicates: over inputs that are valid and not collections (geo_relate), and over the rest, where JTS's
    # old RelateOp and GEOS's RelateNG part (geo_relate_corners; the package ports the old RelateOp)
    "geo_relate": ({"w": "string", "w2": "string"}, lambda rng: _relate_rows(rng, True), _RELATE_CASES),
    "geo_relate_corners": ({"w": "string", "w2": "string"}, lambda rng: _relate_rows(rng, False), _RELATE_CASES),
    # random invalid areas and collections (graph_rows): what the port of JTS's old RelateOp must answer as JTS
    "geo_relate_graph": ({"w": "string", "w2": "string"}, graph_rows, _RELATE_CASES),
    "geo_wkb": ({"b": "binary"}, _wkb_rows, {
        "geom": ("ST_GeomFromWKB(b)", "BYTES"), "geog": ("ST_GeogFromWKB(b)", "BYTES"),
        "text": ("ST_AsText(ST_GeomFromWKB(b))", "STRING"), "wkb": ("ST_AsBinary(ST_GeogFromWKB(b))", "BYTES"),
        "type": ("ST_GeometryType(ST_GeomFromWKB(b))", "STRING"),
    }),
    "geo_geojson": ({"j": "string"}, _geojson_rows, {
        "geom": ("ST_GeomFromGeoJSON(j)", "BYTES"), "geog": ("ST_GeogFromGeoJSON(j)", "BYTES"),
        "text": ("ST_AsText(ST_GeomFromGeoJSON(j))", "STRING"),
        "geojson": ("ST_AsGeoJSON(ST_GeogFromGeoJSON(j))", "STRING"),
        "geom_geojson": ("ST_AsGeoJSON(ST_GeomFromGeoJSON(j))", "STRING"),
    }),
}


def _stored(value, pinot_type: str):
    """What Pinot's conversion stores for a function's value (GeoFunctionReference's JSON form)."""
    if value is None:
        return None
    if pinot_type == "DOUBLE":
        number = float(value)
        return None if math.isnan(number) else number
    if pinot_type == "INT":
        return int(value)
    return value


def build(family: str, seed: str | None = None, repeat: int = 1, out_dir: Path | None = None) -> Path:
    inputs, make_rows, cases = GEO_FAMILIES[family]
    rng = random.Random(f"pinot-functions-{family}" if seed is None else f"pinot-functions-{family}-{seed}")
    rows = [row for _ in range(repeat) for row in make_rows(rng)]
    outputs, transforms = _checked(cases)
    schema = {"schemaName": f"fn_{family}", "dimensionFieldSpecs": [
        {"name": c, "dataType": t} for c, (t, _) in outputs.items()]}
    table_config = {
        "tableName": f"fn_{family}", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
        "tableIndexConfig": {"loadMode": "MMAP", "nullHandlingEnabled": True}, "tenants": {}, "metadata": {},
        "ingestionConfig": {"continueOnError": True, "transformConfigs": [
            {"columnName": c, "transformFunction": e} for c, e in transforms.items()]}}
    classpath = os.environ["GEO_REFERENCE_CP"]
    spec = {"transforms": transforms, "input_types": inputs, "rows": rows}
    done = subprocess.run(["java", "-cp", classpath, "GeoFunctionReference"], input=json.dumps(spec),
                          capture_output=True, text=True, check=True).stdout
    header = {"pinot_commit": COMMIT, "made_by": "tools/pinot_functions/geo_reference.py (Pinot's geospatial "
              "ScalarFunctions run by GeoFunctionReference.java on JTS 1.20.0: not Pinot's builder)",
              "schema": schema, "table_config": table_config, "input_types": inputs, "json_columns": []}
    lines = [json.dumps(header)]
    for row, result in zip(rows, (json.loads(line) for line in done.splitlines())):
        values = {c: _stored(result["values"][c], outputs[c][0]) for c in outputs}
        # (bytes too: the replay compares their hex, and cuts any text at 512)
        if any(isinstance(v, str) and len(v) > MAX_LENGTH for v in values.values()):
            continue
        nulls = sorted(c for c, v in values.items() if v is None)
        lines.append(json.dumps({"row": row, "values": values, "nulls": nulls}, ensure_ascii=False))
    out = (out_dir or OUT) / f"{family}.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    main(build, GEO_FAMILIES, __doc__.split("\n\n")[0])
