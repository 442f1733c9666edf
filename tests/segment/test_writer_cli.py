"""`pinot-sink build` end to end: real files in, a segment tarball out."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fixture_loader import read_tarball
from pinot_sink.cli import main
from pinot_sink.segment.properties import parse_properties

pytest.importorskip("type_mapping.convert")
pytest.importorskip("type_mapping.reconcile")

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "qty", "dataType": "INT"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}
CONFIG = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
          "tableIndexConfig": {"invertedIndexColumns": ["city"]}}


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    (tmp_path / "a.csv").write_text("city,qty,ts\nParis,3,1700000000000\nLyon,1,1700000001000\n")
    (tmp_path / "b.jsonl").write_text('{"city": "Nice", "qty": 2, "ts": 1700000002000}\n')
    pq.write_table(pa.table({"city": ["Lyon"], "qty": pa.array([5], pa.int32()),
                             "ts": pa.array([1700000003000], pa.int64())}), tmp_path / "c.parquet")
    return tmp_path


def test_build_command(inputs, capsys):
    out = inputs / "out"
    code = main(["build", "--schema", str(inputs / "schema.json"), "--table-config", str(inputs / "table.json"),
                 "--input", str(inputs / "a.csv"), str(inputs / "b.jsonl"), str(inputs / "c.parquet"),
                 "--out", str(out), "--creation-time", "1700000000000", "--keep-dir"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    name = "events_1700000000000_1700000003000_0"
    assert summary["segment"] == name and summary["rows"] == 4
    assert (out / f"{name}.tar.gz").is_file() and (out / name / "v3" / "columns.psf").is_file()
    files = read_tarball(out / f"{name}.tar.gz")
    props = parse_properties(files["v3/metadata.properties"])
    assert props["segment.total.docs"] == "4"
    assert props["column.city.cardinality"] == "3"
    assert props["segment.start.time"] == "1700000000000"
    assert "city.inverted_index.size" in files["v3/index_map"].decode()


def test_build_command_reports_errors(inputs, capsys):
    (inputs / "bad.txt").write_text("x")
    code = main(["build", "--schema", str(inputs / "schema.json"), "--table-config", str(inputs / "table.json"),
                 "--input", str(inputs / "bad.txt"), "--out", str(inputs / "out"), "--name", "s"])
    assert code == 1
    assert "unknown input format" in capsys.readouterr().err
    assert not (inputs / "out" / "s.tar.gz").exists()
