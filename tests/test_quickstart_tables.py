"""Pinot's batch quickstart tables, their schemas and table configs unmodified (tests/fixtures/quickstart), written
through the CLI and through a real Spark job: no error by default, and every deferred index named."""
from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pinot_sink.cli import main
from pinot_sink.segment import open_segment
from pinot_sink.segment.json_index import read_json_index
from pinot_sink.segment.read.startree import read_star_trees
from tests.datasource.helpers import read_rows
from tests.segment.startree_check import check_tree_against_rows

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "quickstart"
# table -> (input sample, the indexes the servers are left to build, per "<column or table>: <kind>")
TABLES = {
    "starbucksStores": ("data.csv", {"column 'location_st_point': h3"}),
    "githubEvents": ("rows.jsonl", set()),
    "fineFoodReviews": ("rows.parquet", {"table: multi-column text", "column 'Text': text",
                                         "column 'embedding': vector"}),
    "airlineStats": ("rows.jsonl", set()),  # its two star-trees are built (not deferred)
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
        if name == "airlineStats":  # the TIMESTAMP index's derived columns, and the star-trees
            assert {"$ts$DAY", "$ts$WEEK", "$ts$MONTH"} <= set(segment.column_names)
            _check_airline_star_trees(segment)
        if name == "githubEvents":  # JSON indexes on the three raw JSON columns
            keys, _, mapping = read_json_index(segment.index_buffer("payload", "json_index"))
            assert ".push_id" in keys and len(mapping) >= 40
        if name == "starbucksStores":  # toSphericalGeography(stPoint(lon, lat)): geography points
            points = segment.stored_values("location_st_point").to_pylist()
            assert len(points) == 200 and all(len(p) == 17 and p[0] == 0x80 for p in points)


def _check_airline_star_trees(segment) -> None:
    """airlineStats' two starTreeIndexConfigs (the hotTier's tierOverwrites tree is the servers' business)."""
    trees = read_star_trees(segment)
    assert [(t.dimensions, t.function_column_pairs, t.max_leaf_records) for t in trees] == [
        (["AirlineID", "Origin", "Dest"], ["count__*", "max__ArrDelay"], 10),
        (["AirlineID"], ["countMV__DivLongestGTimes", "sumMV__DivLongestGTimes", "avgMV__DivLongestGTimes"], 10)]
    for tree in trees:
        assert tree.num_nodes > 1 and check_tree_against_rows(segment, tree) > tree.num_nodes


def test_a_star_tree_this_writer_cannot_build_fails_the_cli_before_reading_rows(tmp_path, capsys):
    schema, config = _config("airlineStats")
    table_config = json.loads(config.read_text())
    table_config["tableIndexConfig"]["starTreeIndexConfigs"][0]["functionColumnPairs"].append("SUM__ArrDelayy")
    (tmp_path / "config.json").write_text(json.dumps(table_config))
    rc = main(["build", "--schema", str(schema), "--table-config", str(tmp_path / "config.json"), "--input",
               str(tmp_path / "absent.jsonl"), "--out", str(tmp_path / "out")])
    assert rc == 1
    err = capsys.readouterr().err
    assert ("starTreeIndexConfigs[0]: function pair sum__ArrDelayy: column 'ArrDelayy' is not in the schema "
            "(did you mean 'ArrDelay'?)") in err
    assert "absent.jsonl" not in err and not (tmp_path / "out").exists()


def _tarball_files(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _assert_same_as_pinots_test_unnest(tarball: Path) -> None:
    """Pinot's own build of the same row (pinot-verify, kept in testUnnest/pinot/): every file the same bytes."""
    ours, pinot = _tarball_files(tarball), _tarball_files(FIXTURES / "testUnnest" / "pinot" / "testUnnest_0.tar.gz")
    assert sorted(ours) == sorted(pinot)
    assert [name for name in pinot if ours[name] != pinot[name]] == []


def test_test_unnest_through_the_cli_is_pinots_segment(tmp_path, capsys):
    # generateColumn (before the complex types) makes a Java List of Maps with jsonStringToListOrMap; the
    # complex-type step unnests it (delimiter '||') into three rows whose 'recordArray||name' is each map's name
    schema, config = _config("testUnnest")
    rc = main(["build", "--schema", str(schema), "--table-config", str(config), "--input",
               str(FIXTURES / "testUnnest" / "output.parquet"), "--out", str(tmp_path), "--name", "testUnnest_0",
               "--creation-time", "1700000000000"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert json.loads(out.out)["rows"] == 3
    _assert_same_as_pinots_test_unnest(tmp_path / "testUnnest_0.tar.gz")


@pytest.mark.spark
def test_test_unnest_through_spark_is_pinots_segment(spark, tmp_path):
    import pinot_sink

    schema, config = _config("testUnnest")
    df = spark.read.parquet(str(FIXTURES / "testUnnest" / "output.parquet"))
    result = pinot_sink.write(df, "testUnnest", mode="append", schema=schema.read_text(),
                              **{"table-config": config.read_text(), "output-uri": str(tmp_path),
                                 "segment-name.type": "fixed", "segment.name": "testUnnest_0",
                                 "creation-time": "1700000000000"})
    assert result.rows == 3
    tarballs = sorted(tmp_path.rglob("*.tar.gz"))
    assert len(tarballs) == 1
    _assert_same_as_pinots_test_unnest(tarballs[0])


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(TABLES))
def test_quickstart_table_through_spark(name, spark, tmp_path):
    import pinot_sink

    data, deferred = TABLES[name]
    schema, config = _config(name)
    path = str(FIXTURES / name / data)
    df = (spark.read.option("header", "true").option("inferSchema", "true").csv(path) if data.endswith(".csv")
          else spark.read.parquet(path) if data.endswith(".parquet") else spark.read.json(path))
    # prepare_job logs each deferred index (tests/test_table_config.py); on Spark 4 it runs in the data
    # source's Python worker, whose log is the executor's, so here the write result is what is checked.
    result = pinot_sink.write(df, name, mode="append", schema=schema.read_text(),
                              **{"table-config": config.read_text(), "output-uri": str(tmp_path),
                                 "schema.unknown-columns": "ignore"})
    assert result.rows == df.count()
    assert _deferred(result.deferred_indexes) == deferred
    assert all("deferred to the server: " in line for line in result.deferred_indexes)
    if name == "airlineStats":
        tarballs = sorted(tmp_path.rglob("*.tar.gz"))
        assert tarballs
        for tarball in tarballs:
            with open_segment(tarball) as segment:
                _check_airline_star_trees(segment)
    if name == "fineFoodReviews":  # the 1536-float embeddings arrive whole, as the CLI stores them
        rows = read_rows(sorted(tmp_path.rglob("*.tar.gz")))
        expected = pq.read_table(path)
        assert sorted(rows.column("embedding").to_pylist()) == sorted(expected.column("embedding").to_pylist())
        assert sorted(rows.column("Text").to_pylist()) == sorted(expected.column("Text").to_pylist())


@pytest.mark.spark
def test_a_star_tree_this_writer_cannot_build_fails_before_any_task(spark, tmp_path):
    import pinot_sink

    schema, config = _config("airlineStats")
    table_config = json.loads(config.read_text())
    table_config["tableIndexConfig"]["starTreeIndexConfigs"][1]["functionColumnPairs"].append(
        "PERCENTILETDIGEST__ArrDelay")
    df = spark.read.json(str(FIXTURES / "airlineStats" / "rows.jsonl"))
    with pytest.raises(Exception, match=r"starTreeIndexConfigs\[1\]: function pair percentileTDigest__ArrDelay: "
                                        r"not built by this writer") as failure:
        pinot_sink.write(df, "airlineStats", mode="append", schema=schema.read_text(),
                         **{"table-config": json.dumps(table_config), "output-uri": str(tmp_path),
                            "schema.unknown-columns": "ignore"})
    assert "partition" not in str(failure.value)  # the driver's plan refused it, not a task building a segment
    assert list(tmp_path.rglob("*.tar.gz")) == []
