"""Pinot's H3 functions (geoToH3, gridDisk, gridDistance) over the H3 C core as h3-java calls it.

No Pinot table here: pinot-verify has no H3 library. The expectations are H3's own documented example (h3-java's
README: 37.775938728915946, -122.41795063018799 at resolution 9 is 8928308280fffff) and values read off the C
library (pinned h3 4.5.0) with h3-java's steps: the resolution check, longitude first in Pinot's geoToH3,
gridDisk's cells in the C array's order with its holes dropped, gridDistance's 0 for equal indexes."""
from __future__ import annotations

import h3
import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.values import Context, IngestionError

SF = 0x8928308280FFFFF  # h3-java README's example cell
PENTAGON = 0x8009FFFFFFFFFFF


def evaluate(text: str, **columns):
    ctx = Context(len(next(iter(columns.values()))))
    ctx.where = text
    return Expression(text).evaluate_array(columns, ctx).to_pylist()


def test_the_pinned_c_core():
    assert h3.versions()["c"] == "4.5.0"


def test_geo_to_h3_takes_longitude_first():
    lon, lat = pa.array([-122.41795063018799]), pa.array([37.775938728915946])
    assert evaluate("geoToH3(lon, lat, 9)", lon=lon, lat=lat) == [SF]
    assert evaluate("geoToH3(stPoint(lon, lat), 9)", lon=lon, lat=lat) == [SF]
    assert evaluate("geoToH3(lat, lon, 9)", lon=lon, lat=lat) != [SF]
    with pytest.raises(IngestionError, match=r"resolution 16 is out of range \(must be 0 <= res <= 15\)"):
        evaluate("geoToH3(lon, lat, 16)", lon=lon, lat=lat)
    with pytest.raises(IngestionError, match="NullPointerException"):  # an empty point has no coordinate
        evaluate("geoToH3(ST_GeomFromText(w), 5)", w=pa.array(["POINT EMPTY"]))


def test_grid_disk_keeps_the_c_array_order():
    cells = pa.array([SF, PENTAGON], pa.int64())
    hexagon, pentagon = evaluate("gridDisk(c, 1)", c=cells)
    assert hexagon == [SF, 0x8928308280BFFFF, 0x89283082873FFFF, 0x89283082877FFFF, 0x8928308283BFFFF,
                       0x89283082807FFFF, 0x89283082803FFFF]
    # around a pentagon the C library leaves a hole: h3-java drops it in place, h3-py compacts from the end
    assert pentagon == [0x8007FFFFFFFFFFF, PENTAGON, 0x8019FFFFFFFFFFF, 0x8001FFFFFFFFFFF, 0x801FFFFFFFFFFFF,
                        0x8011FFFFFFFFFFF]
    assert sorted(pentagon) == sorted(h3.api.basic_int.grid_disk(PENTAGON, 1))
    with pytest.raises(IngestionError, match="H3Exception"):
        evaluate("gridDisk(c, -1)", c=cells)


def test_grid_distance():
    a = pa.array([SF, SF, 5, SF], pa.int64())
    b = pa.array([SF, 0x8928308280BFFFF, 5, 0x8928308280FFFFF + (1 << 52)], pa.int64())
    assert evaluate("gridDistance(a, b)", a=a[:3], b=b[:3]) == [0, 1, 0]  # equal indexes: 0, valid or not
    with pytest.raises(IngestionError, match="H3Exception"):
        evaluate("gridDistance(a, b)", a=a[3:], b=b[3:])
