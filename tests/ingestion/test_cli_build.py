"""`pinot-sink build` applies the table config's ingestion steps, takes convert.* policies and cuts segments."""
from __future__ import annotations

import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "segment"))
from fixture_loader import read_tarball  # noqa: E402

from pinot_sink.cli import main  # noqa: E402
from pinot_sink.segment import open_segment  # noqa: E402

CASE = "ingestion_transforms"


def _args(folder: Path, out: Path, *extra: str) -> list[str]:
    return ["build", "--schema", str(folder / "schema.json"), "--table-config", str(folder / "table_config.json"),
            "--input", str(folder / "rows.jsonl"), "--out", str(out), "--creation-time", "1700000000000",
            "--no-sort", "--max-rows", "1000000", *extra]


def test_raw_rows_through_the_cli_give_pinots_segment(pinot_built, tmp_path, capsys):
    folder = pinot_built / CASE
    assert main(_args(folder, tmp_path, "--name", f"{CASE}_0")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["rows"], summary["filteredRows"], summary["rowsRead"]) == (1549, 451, 2000)
    ours = read_tarball(tmp_path / f"{CASE}_0.tar.gz")
    theirs = read_tarball(folder / f"{CASE}_0.tar.gz")
    assert ours["v3/columns.psf"] == theirs["v3/columns.psf"]
    assert ours["v3/metadata.properties"] == theirs["v3/metadata.properties"]


def test_large_inputs_are_cut_into_segments_with_progress(pinot_built, tmp_path, capsys):
    folder = pinot_built / CASE
    assert main(_args(folder, tmp_path, "--max-rows", "600", "--name", "part")) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    names = [s["segment"] for s in summary["segments"]]
    assert names == ["part_0", "part_1", "part_2"]
    assert [s["rows"] for s in summary["segments"]] == [600, 600, 349]
    assert captured.err.count("pinot-sink build: segment") == 3
    ids = []
    for name in names:
        with open_segment(tmp_path / f"{name}.tar.gz") as segment:
            ids += segment.values("order_id").to_pylist()
    assert len(ids) == len(set(ids)) == 1549


def test_the_help_says_name_numbers_several_segments(capsys):
    """``--help`` said '--name: segment name' while several segments are written NAME_0, NAME_1, ... ."""
    try:
        main(["build", "--help"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert "NAME_0, NAME_1, ..." in " ".join(capsys.readouterr().out.split())


def _small_table(tmp_path: Path, max_length: int = 3) -> tuple[Path, Path]:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING", "maxLength": str(max_length)},
        {"name": "u", "dataType": "STRING"}]}))
    config = tmp_path / "table.json"
    config.write_text(json.dumps({"tableName": "t", "ingestionConfig": {
        "transformConfigs": [{"columnName": "u", "transformFunction": "upper(raw)"}],
        "filterConfig": {"filterFunction": "startsWith(raw, 'skip')"}}}))
    (tmp_path / "in.jsonl").write_text('{"s": "abcdef", "raw": "hello"}\n{"s": "ab", "raw": "skip me"}\n')
    return schema, config


def test_conversion_policies_as_options(tmp_path, capsys):
    schema, config = _small_table(tmp_path)
    base = ["build", "--schema", str(schema), "--table-config", str(config), "--input", str(tmp_path / "in.jsonl"),
            "--out", str(tmp_path / "out"), "--name", "t_0"]
    assert main(base) == 1
    assert "maxLength" in capsys.readouterr().err
    assert main(base + ["--option", "convert.on-oversize-string=pinot"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["filteredRows"] == 1
    with open_segment(tmp_path / "out" / "t_0.tar.gz") as segment:
        assert segment.values("s").to_pylist() == ["abc"]
        assert segment.values("u").to_pylist() == ["HELLO"]


def test_unknown_options_and_unsupported_settings_are_named(tmp_path, capsys):
    schema, config = _small_table(tmp_path)
    base = ["build", "--schema", str(schema), "--table-config", str(config), "--input", str(tmp_path / "in.jsonl"),
            "--out", str(tmp_path / "out")]
    assert main(base + ["--option", "convert.on-everything=pinot"]) == 1
    assert "convert.on-everything" in capsys.readouterr().err
    data = json.loads(config.read_text())
    data["ingestionConfig"]["transformConfigs"][0]["transformFunction"] = "Groovy({raw.toUpperCase()}, raw)"
    config.write_text(json.dumps(data))
    assert main(base + ["--option", "convert.on-oversize-string=pinot"]) == 1
    assert "transformConfigs[0]" in capsys.readouterr().err
    assert main(base + ["--option", "convert.on-oversize-string=pinot", "--option", "ingestion.unsupported=skip"]) == 0


def test_a_data_source_option_the_cli_does_not_take_is_not_suggested_as_itself(tmp_path, capsys):
    """``segment-name.type`` is a write option pinot-sink build does not take: the message says so, and does not
    offer the very key the user typed ("did you mean 'segment-name.type'?")."""
    schema, config = _small_table(tmp_path)
    assert main(["build", "--schema", str(schema), "--table-config", str(config), "--input",
                 str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"),
                 "--option", "segment-name.type=fixed"]) == 1
    err = capsys.readouterr().err
    assert "'segment-name.type' does not apply to pinot-sink build" in err
    assert "did you mean 'segment-name.type'" not in err


def test_the_schema_policy_options_apply_to_a_file_with_extra_columns(tmp_path, capsys):
    """A file with columns the schema lacks: refused naming the option, then taken with that option (as
    Pinot's own job skips fields it does not read); the data source's schema.* options, the same words."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"schemaName": "t", "dimensionFieldSpecs": [{"name": "S", "dataType": "STRING"}]}))
    config = tmp_path / "table.json"
    config.write_text(json.dumps({"tableName": "t_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {},
                                  "tableIndexConfig": {}, "metadata": {}}))
    (tmp_path / "in.jsonl").write_text('{"s": "a", "extra": 1}\n{"s": "b", "extra": 2}\n')
    base = ["build", "--schema", str(schema), "--table-config", str(config), "--input", str(tmp_path / "in.jsonl"),
            "--out", str(tmp_path / "out"), "--name", "t_0"]
    assert main(base) == 1
    err = capsys.readouterr().err
    assert "extra" in err and "'schema.unknown-columns'=ignore" in err
    assert main(base + ["--option", "schema.unknown-columns=ignore"]) == 0  # "s" feeds "S": case-insensitive
    capsys.readouterr()
    with open_segment(tmp_path / "out" / "t_0.tar.gz") as segment:
        assert segment.values("S").to_pylist() == ["a", "b"]
    assert main(base + ["--option", "schema.unknown-columns=ignore", "--option", "schema.case-sensitive=true"]) == 0
    capsys.readouterr()
    with open_segment(tmp_path / "out" / "t_0.tar.gz") as segment:
        assert segment.values("S").to_pylist() == ["null", "null"]  # "s" is unknown now, "S" gets its default


def test_a_partitioned_tables_segments_hold_one_partition_id_each(tmp_path, capsys):
    """An OFFLINE upsert table (``segmentPartitionConfig`` on its key): the CLI cut one segment with ids of both
    partitions (``partitionValues = 0,1``), which Pinot refuses at upload ("must contain exactly one partition
    id for column: id, got: {0, 1}"); it now cuts one segment per id, as a Spark task does. Found on a real
    cluster."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = {"schemaName": "keyed", "primaryKeyColumns": ["id"],
              "dimensionFieldSpecs": [{"name": "id", "dataType": "INT"}],
              "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                      "granularity": "1:MILLISECONDS"}]}
    config = {"tableName": "keyed", "tableType": "OFFLINE", "upsertConfig": {"mode": "FULL"},
              "segmentsConfig": {"timeColumnName": "ts"}, "metadata": {},
              "tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": {
                  "id": {"functionName": "Murmur", "numPartitions": 2}}}}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "table.json").write_text(json.dumps(config))
    pq.write_table(pa.table({"id": pa.array(range(100), pa.int32()),
                             "ts": pa.array([1_700_000_000_000 + i for i in range(100)], pa.int64())}),
                   tmp_path / "rows.parquet")
    out = tmp_path / "out"
    assert main(["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
                 "--input", str(tmp_path / "rows.parquet"), "--out", str(out)]) == 0
    capsys.readouterr()
    tarballs = sorted(out.glob("*.tar.gz"))
    values = []
    for tarball in tarballs:
        segment = open_segment(tarball)
        values.append(segment.metadata.properties["column.id.partitionValues"])
        assert segment.metadata.total_docs > 0
    assert sorted(values) == ["0", "1"]


def test_a_bad_schema_or_table_config_file_is_named(pinot_built, tmp_path, capsys):
    """A missing or broken ``--schema`` / ``--table-config`` printed only Python's words ('Expecting property
    name enclosed in double quotes: line 1 column 2'), naming neither the flag nor the file."""
    folder = pinot_built / CASE
    broken = tmp_path / "broken.json"
    broken.write_text("{bad")
    for flag, value, said in (("--schema", broken, "option '--schema': invalid JSON"),
                              ("--table-config", broken, "option '--table-config': invalid JSON"),
                              ("--schema", tmp_path / "nope.json", "option '--schema': neither inline JSON nor an "
                                                                   "existing file")):
        args = _args(folder, tmp_path / "out")
        args[args.index(flag) + 1] = str(value)
        assert main(args) == 1
        assert said in capsys.readouterr().err


def test_creation_time_takes_iso_as_the_option_does(pinot_built, tmp_path, capsys):
    """``--creation-time 2024-01-01T00:00:00Z`` was an argparse 'invalid int value', though the data source's
    creation-time option takes ISO-8601; a bad value names the flag."""
    folder = pinot_built / CASE
    args = _args(folder, tmp_path, "--name", f"{CASE}_0")
    args[args.index("--creation-time") + 1] = "2024-01-01T00:00:00Z"
    assert main(args) == 0
    with open_segment(tmp_path / f"{CASE}_0.tar.gz") as segment:
        assert segment.metadata.creation_time_ms == 1704067200000
    capsys.readouterr()
    args[args.index("--creation-time") + 1] = "yesterday"
    try:
        main(args)
    except SystemExit as exit_:
        assert exit_.code == 2
    assert "argument --creation-time: 'yesterday' is neither epoch millis nor ISO-8601" in capsys.readouterr().err
    args[args.index("--creation-time") + 1] = "1700000000"  # epoch seconds: was written as 1970-01-20
    try:
        main(args)
    except SystemExit as exit_:
        assert exit_.code == 2
    assert ("argument --creation-time: 1700000000 looks like epoch seconds (taken as millis it is not in 1971..2100): "
            "give milliseconds (x1000)") in capsys.readouterr().err


def test_a_name_too_long_for_a_file_is_refused_before_the_build(pinot_built, tmp_path, capsys):
    """``--name`` of 300 characters failed inside the build as '[Errno 36] File name too long', after reading
    the input; it is refused first, naming the flag and the limits, and nothing is made."""
    args = _args(pinot_built / CASE, tmp_path / "out", "--name", "x" * 300)
    assert main(args) == 1
    assert "--name: segment names would be up to 307 bytes, but a file name holds 255" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
