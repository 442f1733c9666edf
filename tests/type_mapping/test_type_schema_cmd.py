"""`pinot-sink schema`: the printed JSON is a schema the model (and so the controller) accepts."""
from __future__ import annotations

import json
import subprocess
import sys

from pinot_sink.cli import main
from type_mapping import PinotSchema


def test_flink_ddl_prints_a_postable_schema(capsys):
    code = main(["schema", "--from-flink-ddl",
                 "id BIGINT NOT NULL, amount DOUBLE, tags ARRAY<STRING>, ts TIMESTAMP(3), p ROW<a INT, b STRING>",
                 "--name", "orders", "--time-column", "ts", "--metric-columns", "amount"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {
        "schemaName": "orders",
        "dimensionFieldSpecs": [
            {"name": "id", "dataType": "LONG", "notNull": True},
            {"name": "tags", "dataType": "STRING", "singleValueField": False},
            {"name": "p", "dataType": "JSON"},
        ],
        "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                                "granularity": "1:MILLISECONDS"}],
    }
    assert PinotSchema.from_json(printed).to_json() == printed


def test_spark_ddl_from_file_and_compact(tmp_path, capsys):
    ddl = tmp_path / "cols.sql"
    ddl.write_text("d DATE, doc STRING, n INT")
    assert main(["schema", "--from-spark-ddl", f"@{ddl}", "--name", "x", "--time-column", "d",
                 "--json-columns", "doc", "--compact"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    printed = json.loads(out)
    assert printed["dateTimeFieldSpecs"] == [{"name": "d", "dataType": "INT", "format": "1:DAYS:EPOCH",
                                              "granularity": "1:DAYS"}]
    assert {"name": "doc", "dataType": "JSON"} in printed["dimensionFieldSpecs"]


def test_flink_watermark_is_the_default_time_column_from_stdin():
    ddl = "CREATE TABLE t (v INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) WITH ('connector'='x')"
    result = subprocess.run([sys.executable, "-m", "pinot_sink.cli", "schema", "--from-flink-ddl", "-",
                             "--name", "t"], input=ddl, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["dateTimeFieldSpecs"][0]["name"] == "ts"


def test_errors_are_one_line_and_exit_1(capsys):
    assert main(["schema", "--from-flink-ddl", "a ARRAY<ARRAY<INT>>", "--name", "x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pinot-sink schema: column 'a'") and "nested array" in err
    assert main(["schema", "--from-flink-ddl", "a INT,", "--name", "x"]) == 1
    assert "trailing ','" in capsys.readouterr().err


def test_errors_name_the_flags_typed_and_a_bad_name(capsys):
    """'json_columns: columns [...]' named a Python keyword, not the flag typed; a --name Pinot refuses ('a/b',
    'events_OFFLINE') printed a schema POST /schemas would refuse."""
    import pytest

    for flag in ("--json-columns", "--metric-columns", "--time-column"):
        assert main(["schema", "--from-spark-ddl", "a INT", "--name", "t", flag, "nope"]) == 1
        assert f"pinot-sink schema: {flag}: columns ['nope'] are not in the source schema" in capsys.readouterr().err
    for name, said in (("a/b", "may not contain '/'"), ("t_OFFLINE", "without the type suffix")):
        with pytest.raises(SystemExit, match=f"pinot-sink schema: --name: .*{said}"):
            main(["schema", "--from-spark-ddl", "a INT", "--name", name])


def test_spark_columns_equal_ignoring_case_are_refused_naming_both(capsys):
    """'a INT, A STRING' printed a schema the write then refused (source columns equal ignoring case): it is
    refused here, in one line naming both columns."""
    assert main(["schema", "--from-spark-ddl", "id INT, a INT, A STRING", "--name", "t"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("pinot-sink schema: --from-spark-ddl: columns 'a' and 'A' have the same name ignoring "
                            "case, which a Spark write refuses: rename one\n")
