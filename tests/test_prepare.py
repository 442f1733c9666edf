"""One preparation (``pinot_sink.prepare``) for a Spark write and `pinot-sink build`: both go through it, so
a rule the write honours, the CLI honours too, in the same words."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

import pinot_sink.prepare as prepare
from pinot_sink.cli import main
from pinot_sink.job import prepare_job
from pinot_sink.options import OptionError
from pinot_sink.segment import open_segment

SCHEMA = {"schemaName": "t", "dimensionFieldSpecs": [{"name": "u", "dataType": "STRING"}],
          "dateTimeFieldSpecs": [{"name": "day", "dataType": "LONG", "format": "1:DAYS:EPOCH",
                                  "granularity": "1:DAYS"}]}


def _config(transform: str = "upper(raw)") -> dict:
    return {"tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "day"},
            "tableIndexConfig": {}, "ingestionConfig": {
                "transformConfigs": [{"columnName": "u", "transformFunction": transform}]}}


def _files(tmp_path: Path, config: dict) -> list[str]:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(config))
    (tmp_path / "in.jsonl").write_text('{"raw": "hello", "day": 19000}\n{"raw": "x", "day": 19001}\n')
    return ["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
            "--input", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), "--creation-time", "1"]


def _job(config: dict, out: Path):
    return prepare_job({"table-name": "t", "schema": json.dumps(SCHEMA), "table-config": json.dumps(config),
                        "output-uri": str(out / "job")},
                       pa.schema([("raw", pa.string()), ("day", pa.int64())]), overwrite=False)


def test_the_cli_and_the_job_call_the_one_preparation(tmp_path, monkeypatch, capsys):
    calls = []
    for name in ("parse_table", "prepare_table", "segment_namer"):
        real = getattr(prepare, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(prepare, name, spy)
    real_rules = prepare.PreparedTable.rules
    monkeypatch.setattr(prepare.PreparedTable, "rules",
                        lambda self, schema: calls.append("rules") or real_rules(self, schema))
    assert main(_files(tmp_path, _config())) == 0
    assert calls == ["parse_table", "prepare_table", "segment_namer", "rules"]
    with open_segment(json.loads(capsys.readouterr().out)["tarball"]) as segment:
        assert segment.values("u").to_pylist() == ["HELLO", "X"]
    calls.clear()
    import pinot_sink.job as job_module  # the job imported the names at its import: patch them there too

    for name in ("parse_table", "prepare_table", "segment_namer"):
        monkeypatch.setattr(job_module, name, getattr(prepare, name))
    job = _job(_config(), tmp_path)
    assert calls[:3] == ["parse_table", "prepare_table", "rules"] and "segment_namer" in calls
    assert job.plan.time_column == "day"


def test_a_bad_transform_is_refused_in_the_same_words(tmp_path, capsys):
    """The job's message (table, key, and the option that writes without it) is the CLI's too."""
    config = _config("noSuchFunction(raw)")
    with pytest.raises(OptionError) as refused:
        _job(config, tmp_path)
    assert main(_files(tmp_path, config)) == 1
    said = capsys.readouterr().err
    assert str(refused.value) in said
    assert "transformConfigs[0]" in said and "option 'ingestion.unsupported'=skip" in said


def test_build_name_is_the_simple_generator_without_time(tmp_path, capsys):
    """--name goes through the namer the job uses (Pinot's exclude.time.in.segment.name), not a hand-made one:
    one segment gets the name, several get <name>_<sequence>, and a name Pinot refuses names the flag."""
    args = _files(tmp_path, _config())
    assert main(args + ["--name", "one"]) == 0
    assert json.loads(capsys.readouterr().out)["segment"] == "one"
    assert main(args + ["--name", "many", "--max-rows", "1"]) == 0
    assert [s["segment"] for s in json.loads(capsys.readouterr().out)["segments"]] == ["many_0", "many_1"]
    assert main(args) == 0  # without --name: the table's simple name with the time values
    assert json.loads(capsys.readouterr().out)["segment"] == "t_19000_19001_0"
    assert main(args + ["--name", "a:b"]) == 1
    assert "--name: invalid segment name 'a:b'" in capsys.readouterr().err


def test_a_missing_time_column_fails_the_plan_on_the_driver(tmp_path):
    """A DataFrame without the table's time column (default outside 1971..2071) failed in every Spark task, as a
    Python worker's traceback; the driver's plan refuses it before any task runs, naming the column and the
    option. With ``convert.on-null-time=pinot`` it is planned (Pinot writes the ingestion time)."""
    from type_mapping.compat import ConversionError

    config = {"tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "day"}}
    options = {"table-name": "t", "schema": json.dumps(SCHEMA), "table-config": json.dumps(config),
               "output-uri": str(tmp_path / "job")}
    no_time = pa.schema([("u", pa.string())])
    with pytest.raises(ConversionError, match=r"column 'day' is the table's time column and is missing from the "
                                              r"data.*'convert.on-null-time'=pinot"):
        prepare_job(options, no_time, overwrite=False)
    assert prepare_job({**options, "convert.on-null-time": "pinot"}, no_time, overwrite=False) is not None


def test_another_tables_config_is_refused(tmp_path):
    """``table-config`` of another table (its indexes, time column, partitions) was taken for this one without
    a word; a config without tableName is still this table's."""
    config = {"tableName": "other_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "day"}}
    options = {"table-name": "t", "schema": json.dumps(SCHEMA), "output-uri": str(tmp_path / "job")}
    with pytest.raises(OptionError, match=r"table t: the table config names table 'other' \(tableName "
                                          r"'other_OFFLINE'\), not t: give table t's config"):
        prepare_job({**options, "table-config": json.dumps(config)}, pa.schema([("u", pa.string()), ("day", pa.int64())]),
                    overwrite=False)
    unnamed = {k: v for k, v in config.items() if k != "tableName"}
    assert prepare_job({**options, "table-config": json.dumps(unnamed)},
                       pa.schema([("u", pa.string()), ("day", pa.int64())]), overwrite=False) is not None
