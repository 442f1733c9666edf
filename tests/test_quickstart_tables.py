"""Pinot's batch quickstart tables, their schemas and table configs unmodified (tests/fixtures/quickstart), written
through the CLI and through a real Spark job: no error by default, and every deferred index named."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinot_sink.cli import main
from pinot_sink.segment import open_segment
from pinot_sink.segment.index_policy import STAR_TREE_BUILT
from pinot_sink.segment.json_index import read_json_index

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "quickstart"
# table -> (input sample, the indexes the servers are left to build, per "<column or table>: <kind>")
TABLES = {
    "starbucksStores": ("data.csv", {"column 'location_st_point': h3"}),
    "githubEvents": ("rows.jsonl", set()),
    "fineFoodReviews": ("rows.parquet", {"table: multi-column text", "column 'Text': text",
                                         "column 'embedding': vector"}),
    "airlineStats": ("rows.jsonl", set() if STAR_TREE_BUILT else {"table: star-tree"}),
}


def _config(name: str) -> tuple[Path, Path]:
    return FIXTURES / name / f"{name}_schema.json", FIXTURES / name / f"{name}_offline_table_config.json"


def _deferred(lines) -> set[str]:
    return {line.split(" index (")[0] for line in lines}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_quickstart_table_through_the_cli(name, tmp_path, capsys):
    data, deferred = TABLES[name]
    schema, config = _config(name)
    rc = main(["build", "--schema", str(schema), "--table-config", str(config), "--input",
               str(FIXTURES / name / data), "--out", str(tmp_path), "--name", f"{name}_0",
               "--creation-time", "1700000000000"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    summary = json.loads(out.out)
    assert _deferred(summary["deferredIndexes"]) == deferred
    for line in summary["deferredIndexes"]:
        assert f"pinot-sink build: {line}" in out.err  # the log names each one, with its cost
    with open_segment(tmp_path / f"{name}_0.tar.gz") as segment:
        if name == "airlineStats":  # the TIMESTAMP index's derived columns
            assert {"$ts$DAY", "$ts$WEEK", "$ts$MONTH"} <= set(segment.column_names)
        if name == "githubEvents":  # JSON indexes on the three raw JSON columns
            keys, _, mapping = read_json_index(segment.index_buffer("payload", "json_index"))
            assert ".push_id" in keys and len(mapping) >= 40
        if name == "starbucksStores":  # toSphericalGeography(stPoint(lon, lat)): geography points
            points = segment.stored_values("location_st_point").to_pylist()
            assert len(points) == 200 and all(len(p) == 17 and p[0] == 0x80 for p in points)


def test_test_unnest_names_the_function_this_package_lacks(tmp_path, capsys):
    # generateColumn is applied; jsonStringToListOrMap (a JSON-family function) is not registered yet, and a
    # function that would be silently skipped is an error naming it.
    schema, config = _config("testUnnest")
    rc = main(["build", "--schema", str(schema), "--table-config", str(config), "--input",
               str(FIXTURES / "testUnnest" / "output.parquet"), "--out", str(tmp_path)])
    assert rc == 1
    assert "jsonStringToListOrMap" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.parametrize("name", ["starbucksStores", "githubEvents", "airlineStats"])
def test_quickstart_table_through_spark(name, spark, tmp_path):
    import pinot_sink

    data, deferred = TABLES[name]
    schema, config = _config(name)
    path = str(FIXTURES / name / data)
    df = (spark.read.option("header", "true").option("inferSchema", "true").csv(path) if data.endswith(".csv")
          else spark.read.json(path))
    # prepare_job logs each deferred index (tests/test_table_config.py); on Spark 4 it runs in the data
    # source's Python worker, whose log is the executor's, so here the write result is what is checked.
    result = pinot_sink.write(df, name, mode="append", schema=schema.read_text(),
                              **{"table-config": config.read_text(), "output-uri": str(tmp_path),
                                 "schema.unknown-columns": "ignore"})
    assert result.rows == df.count()
    assert _deferred(result.deferred_indexes) == deferred
    assert all("deferred to the server: " in line for line in result.deferred_indexes)
