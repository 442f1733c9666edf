"""Java Maps / Lists between ingestion stages (pinot_sink/ingestion/java_objects.py), against Pinot's own build
(tests/fixtures/ingestion_objects, pinot-verify): the functions' values are in the function expectation tables
(json_objects*.jsonl); here the complex-type step and the columns they reach, byte for byte."""
from __future__ import annotations

import json
import pickle
import tarfile
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.cli import main
from pinot_sink.ingestion import IngestionError, IngestionPipeline
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ingestion_objects"


def _files(tarball: Path) -> dict[str, bytes]:
    with tarfile.open(tarball) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_unnested_and_flattened_objects_give_pinots_segment(tmp_path, capsys):
    rc = main(["build", "--schema", str(FIXTURE / "schema.json"), "--table-config", str(FIXTURE / "table_config.json"),
               "--input", str(FIXTURE / "rows.jsonl"), "--out", str(tmp_path), "--name", "unnest2_0",
               "--creation-time", "1700000000000"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    summary = json.loads(out.out)
    assert (summary["rows"], summary["errorRows"]) == (13, 1)  # the row whose tags [x, y] go to a single value
    ours, pinot = _files(tmp_path / "unnest2_0.tar.gz"), _files(FIXTURE / "unnest2_0.tar.gz")
    assert sorted(ours) == sorted(pinot)
    assert [name for name in pinot if ours[name] != pinot[name]] == []


def _table() -> pa.Table:
    rows = [json.loads(line) for line in (FIXTURE / "rows.jsonl").read_text().splitlines()]
    return pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()), "data": [r["data"] for r in rows],
                     "m": [r["m"] for r in rows]})


def _pipeline(continue_on_error: bool) -> IngestionPipeline:
    config = json.loads((FIXTURE / "table_config.json").read_text())
    config["ingestionConfig"]["continueOnError"] = continue_on_error
    schema = PinotSchema.from_json(json.loads((FIXTURE / "schema.json").read_text()))
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), _table().schema)


def test_without_continue_on_error_the_multi_value_row_fails_the_build():
    with pytest.raises(IngestionError, match=r"'rec__tags'.*row 0: Cannot read single-value from Collection"):
        _pipeline(False).apply(_table(), 0)


def test_the_pipeline_travels_to_executors_pickled():
    pipeline = pickle.loads(pickle.dumps(_pipeline(True)))
    assert pipeline.apply(_table(), 0).table.num_rows == 13


def _evaluate(expression: str, column: pa.Array, continue_on_error: bool = True):
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "out", "dataType": "STRING"}]})
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": continue_on_error, "transformConfigs": [
        {"columnName": "out", "transformFunction": expression}]}}
    table = pa.table({"b": column})
    result = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), table.schema).apply(table, 0)
    return result.table.column("out").to_pylist(), result.error_rows


def test_bytes_to_big_decimal_keeps_each_value_s_scale():
    one_scale = pa.array([bytes.fromhex("000200" + "96"), bytes.fromhex("0002ff38"), None])  # 1.50, -2.00
    assert _evaluate("bytesToBigDecimal(b)", one_scale) == (["1.50", "-2.00", None], 0)
    # several scales in one batch: each BigDecimal kept as the Java object it is (toPlainString into STRING)
    several = pa.array([bytes.fromhex("000200" + "96"), bytes.fromhex("00010096"), bytes.fromhex("fffd01")])
    assert _evaluate("bytesToBigDecimal(b)", several) == (["1.50", "15.0", "1000"], 0)
    assert _evaluate("upper(bytesToBigDecimal(b))", several) == (["1.50", "15.0", "1000"], 0)


def test_a_big_decimal_into_a_float_column_is_javas_float_value():
    # BigDecimal.floatValue: the nearest float of the exact value (Float.parseFloat of its text), not the float
    # of the nearest double, which is a float midpoint where the exact value lies just beside one
    import decimal

    from pinot_sink.ingestion.java_objects import _float_value

    with decimal.localcontext() as context:
        context.prec = 100
        one = decimal.Decimal(1)
        midpoint = one + decimal.Decimal(2) ** -24
        tiny = decimal.Decimal(10) ** -40
        assert _float_value(midpoint) == 1.0  # (ties to even)
        assert _float_value(midpoint + tiny) == 1.0000001192092896
        assert _float_value(midpoint - tiny) == 1.0
    assert _float_value(decimal.Decimal("1E+32768")) == float("inf")
    assert _float_value(decimal.Decimal("-1E+32768")) == float("-inf")
    assert _float_value(decimal.Decimal("1E-32767")) == 0.0
    assert _float_value(decimal.Decimal("3.4028235E38")) == 3.4028234663852886e38
