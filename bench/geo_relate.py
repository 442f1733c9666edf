"""The DE-9IM matrix of ST_Contains / ST_Within / ST_Equals: the port of JTS's old RelateOp
(``javalib.jts.relate_op.relate_matrix``) against the code before it (GEOS's relate through shapely, the
geometries written as WKB and read back per call), per pair, in the same run, over the pairs of the reference
tables (geo_relate: valid shapes; geo_relate_graph: invalid areas and collections) and of 2,000 points with one
polygon of 200 vertices (the common use), through Pinot's bytes as ST_Contains reads them. Pairs the port fails
on (a TopologyException: JTS's answer) are timed too. Best of --repeat, microseconds per pair, CPU beside wall,
load printed. Then the geofencing case through the ingestion pipeline: ``ST_Contains(ST_GeomFromText('<that
polygon>'), ST_Point(lon, lat))`` as a transform over --rows random points (an IngestionPipeline with the polygon
a literal), the batch's point rows answered over arrays (predicates.with_points) against, in the same run, the
row-wise path that keeps the polygon's PointRelate (the way of a column of many distinct polygons) and the code
before (every row deserialized and through the full relate; both run once, they are slow).

    python bench/geo_relate.py [--repeat 3] [--rows 100000]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
from pathlib import Path

from type_mapping.table_config import TableConfig

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pinot_sink.ingestion.functions.geometry import deserialize, serialize  # noqa: E402
from javalib.jts.relate_op import relate_matrix  # noqa: E402
from javalib.jts.io import read_wkt, write_wkb  # noqa: E402
from timing import best  # noqa: E402


def pairs(family: str) -> list:
    out = []
    lines = (ROOT / "tests" / "fixtures" / "functions" / f"{family}.jsonl").read_text().splitlines()[1:]
    for line in lines:
        row = json.loads(line)["row"]
        try:  # as ST_Contains sees them: through Pinot's bytes
            a, b = (deserialize(serialize(read_wkt(row[c], False))) for c in ("w", "w2"))
        except Exception:  # noqa: BLE001 - texts JTS or Pinot's serializer refuses: no relate in Pinot either
            continue
        if not a.is_empty() and not b.is_empty():
            out.append((a, b))
    return out


def points_in_polygon(vertices: int = 200, count: int = 2000) -> list:
    """The common use: one polygon (a wavy circle of ``vertices`` points) and many points, in and out."""
    text = polygon_text(vertices)
    polygon = deserialize(serialize(read_wkt(text, False)))
    rng = random.Random(1)
    return [(polygon, deserialize(serialize(read_wkt(f"POINT ({rng.uniform(-12, 12)!r} {rng.uniform(-12, 12)!r})",
                                                      False)))) for _ in range(count)]


def polygon_text(vertices: int = 200) -> str:
    ring = [(10 * math.cos(2 * math.pi * i / vertices) * (1 + 0.3 * math.sin(7 * i)),
             10 * math.sin(2 * math.pi * i / vertices) * (1 + 0.3 * math.sin(7 * i))) for i in range(vertices)]
    return "POLYGON ((" + ", ".join(f"{x!r} {y!r}" for x, y in ring + ring[:1]) + "))"


def geofencing(rows: int, repeat: int) -> None:
    """The pipeline with a literal polygon: CPU per row, the array path against the row-wise one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    import pinot_sink.ingestion.functions.geospatial_scalar_functions as geo
    from pinot_sink.ingestion import IngestionPipeline
    from type_mapping.pinot_schema import PinotSchema

    schema = PinotSchema.from_json({"schemaName": "fence", "dimensionFieldSpecs": [
        {"name": "lon", "dataType": "DOUBLE"}, {"name": "lat", "dataType": "DOUBLE"},
        {"name": "inside", "dataType": "INT"}]})
    config = {"tableName": "fence", "ingestionConfig": {"transformConfigs": [{"columnName": "inside",
              "transformFunction": f"ST_Contains(ST_GeomFromText('{polygon_text()}'), ST_Point(lon, lat))"}]}}
    rng = random.Random(2)
    table = pa.table({"lon": pa.array([rng.uniform(-12, 12) for _ in range(rows)], pa.float64()),
                      "lat": pa.array([rng.uniform(-12, 12) for _ in range(rows)], pa.float64())})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema)
    results = {}

    def run(key):
        results[key] = pipeline.apply(table, 0).table.column("inside")

    def plain(test, check):  # the row function before: both values deserialized, the full relate every row
        def row(first, second):
            a, b = deserialize(first), deserialize(second)
            if check:
                geo._same_kind(a, b, "geometry and geography")
            return int(test(a, b))
        return row

    wall, cpu = best(lambda: run("arrays"), repeat)
    saved = geo._with_points, geo._predicate
    geo._with_points = lambda *args: None  # row by row, the geometry's PointRelate kept across the rows
    try:
        kept, kept_cpu = best(lambda: run("kept"), 1)
        geo._predicate = plain  # the code before: every row through the full relate
        base, base_cpu = best(lambda: run("rows"), 1)
    finally:
        geo._with_points, geo._predicate = saved
    same = results["arrays"].equals(results["rows"]) and results["kept"].equals(results["rows"])
    inside = pc.sum(results["arrays"]).as_py()
    print(f"pipeline, {rows} points against one 200-vertex literal polygon ({inside} inside), same answers: {same}")
    print(f"  arrays: {wall / rows * 1e6:.2f} us wall, {cpu / rows * 1e6:.2f} us CPU per row (best of {repeat}); "
          f"row by row, PointRelate kept (once): {kept / rows * 1e6:.0f} us wall, {kept_cpu / rows * 1e6:.0f} CPU; "
          f"the code before (once): {base / rows * 1e6:.0f} us wall, {base_cpu / rows * 1e6:.0f} us CPU; "
          f"ratio CPU {base_cpu / cpu:.0f}x; load {os.getloadavg()[0]:.2f}")


def run_all(relate, items) -> None:
    for a, b in items:
        try:
            relate(a, b)
        except Exception:  # noqa: BLE001 - a TopologyException is an answer
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=100_000, help="points through the pipeline")
    parser.add_argument("--only-pipeline", action="store_true", help="skip the per-pair comparison with GEOS")
    args = parser.parse_args()
    if args.only_pipeline:
        geofencing(args.rows, args.repeat)
        return
    try:
        import shapely  # the code before (no longer a dependency of the package)
    except ImportError:
        sys.exit("bench/geo_relate.py compares with GEOS: pip install shapely")
    import warnings

    warnings.simplefilter("ignore")  # GEOS's overflow warnings on the far coordinates

    def geos(a, b):
        return shapely.relate(shapely.from_wkb(write_wkb(a)), shapely.from_wkb(write_wkb(b)))

    print(f"best of {args.repeat}; load {os.getloadavg()[0]:.2f}")
    print(f"{'pairs':28} {'port us':>8} {'cpu':>7} {'GEOS us':>8} {'cpu':>6} {'ratio cpu':>9}")
    for family in ("geo_relate", "geo_relate_graph", "point in a 200-gon"):
        items = points_in_polygon() if family.startswith("point") else pairs(family)
        wall, cpu = best(lambda: run_all(relate_matrix, items), args.repeat)
        base, base_cpu = best(lambda: run_all(geos, items), args.repeat)
        n = len(items)
        print(f"{family + f' ({n})':28} {wall / n * 1e6:8.0f} {cpu / n * 1e6:7.0f} {base / n * 1e6:8.0f} "
              f"{base_cpu / n * 1e6:6.0f} {cpu / base_cpu:8.1f}x")
    geofencing(args.rows, args.repeat)


if __name__ == "__main__":
    main()
