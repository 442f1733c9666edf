"""``pinot-sink compact``: the plan with --dry-run, the report per group, progress on stderr, one-line errors."""
from __future__ import annotations

import json

import pytest

from pinot_sink.cli import main
from pinot_sink.controller import ClientConfig, ControllerClient
from tests.compaction.helpers import CONFIG, SCHEMA, controller_ids, folder_ids, tiny_segments


def test_compact_against_a_controller(fake_controller, tmp_path, capsys, caplog):
    fake_controller.add_table(SCHEMA, CONFIG)
    with ControllerClient.from_config(ClientConfig(url=fake_controller.url)) as client:
        tiny_segments(20, 30, kind="stream", client=client, url=fake_controller.url, spacing_ms=60_000)
    argv = ["compact", "--table", "events", "--url", fake_controller.url, "--target-size", "8kb"]
    assert main(argv + ["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "20 live segment(s); 20 in 1 group(s) to merge" in out and "dry run: nothing was changed" in out
    assert len(fake_controller.live_segments("events")) == 20
    caplog.set_level("INFO", logger="pinot_sink")
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "bucket 2023-11-15T00:00:00Z" in captured.out and "total: 20 segment(s) ->" in captured.out
    # the report once, on stdout: not again as a log line
    assert not [r for r in caplog.records if r.levelname == "INFO" and "total: 20 segment(s)" in r.getMessage()]
    assert "pinot-sink compact: bucket 2023-11-15T00:00:00Z: segment events_" in captured.err  # progress
    assert controller_ids(fake_controller, tmp_path) == list(range(600))


def test_compact_a_folder(tmp_path, capsys):
    out = tmp_path / "segments"
    tiny_segments(10, 30, kind="hourly", out=out, spacing_ms=60_000)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    assert main(["compact", "--table", "events", "--output-uri", str(out), "--schema", str(tmp_path / "schema.json"),
                 "--table-config", str(tmp_path / "table.json"), "--target-size", "1mb"]) == 0
    assert "total: 10 segment(s) -> 1" in capsys.readouterr().out
    assert folder_ids(out) == list(range(300))


def test_bad_arguments_are_one_line(tmp_path, capsys):
    assert main(["compact", "--table", "events", "--output-uri", str(tmp_path), "--target-size", "big"]) == 1
    assert "option '--target-size': 'big' is not a size" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--aggregate 'x': give KEY=VALUE"):
        main(["compact", "--table", "events", "--output-uri", str(tmp_path), "--mode", "rollup", "--aggregate", "x"])
    assert main(["compact", "--table", "events", "--output-uri", str(tmp_path), "--time-range", "2024-03-01"]) == 1
    assert "--time-range '2024-03-01': give FROM..TO" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="give --url"):
        main(["compact", "--table", "events"])


def test_the_dry_run_counts_a_segment_per_bucket_of_a_group(tmp_path, capsys):
    """Segments that straddle days join their days into one group, and the compaction still writes one segment
    per day: the plan's "about N segment(s)" counts them, not the group's bytes over the target alone (two
    writes over three days, tiny: three segments, which the plan said was one)."""
    from tests.compaction.helpers import BASE_MS, DAY_MS, rows, write

    out = tmp_path / "segments"
    for first in (0, 30):  # each write's 30 rows spread over the same three days
        write(rows(first, 30, start_ms=BASE_MS + first, step_ms=DAY_MS // 10), out=out)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    argv = ["compact", "--table", "events", "--output-uri", str(out), "--schema", str(tmp_path / "schema.json"),
            "--table-config", str(tmp_path / "table.json")]
    assert main(argv + ["--dry-run"]) == 0
    assert "buckets 2023-11-15T00:00:00Z .. 2023-11-17T00:00:00Z: 2 segment(s), 60 rows" in (plan := capsys.readouterr().out)
    assert "-> about 3 segment(s)" in plan
    assert main(argv) == 0
    assert "total: 2 segment(s) -> 3" in capsys.readouterr().out
    assert folder_ids(out) == list(range(60))


def test_errors_speak_the_flags_a_user_types(tmp_path, capsys):
    """A folder without --schema is told the flag (it said "option 'schema'", the Python spelling); a --time-range
    that does not parse is not offered 'dynamic' (an overwrite's value, which compact refuses) and is quoted as
    typed, with '..'."""
    assert main(["compact", "--table", "events", "--output-uri", str(tmp_path)]) == 1
    assert "--output-uri needs --schema FILE (the table's Pinot schema)" in capsys.readouterr().err
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    folder = ["compact", "--table", "events", "--output-uri", str(tmp_path), "--schema", str(tmp_path / "schema.json")]
    assert main(folder + ["--time-range", "garbage"]) == 1
    err = capsys.readouterr().err
    assert "--time-range 'garbage': give FROM..TO" in err and "dynamic" not in err
    assert main(folder + ["--time-range", "2024-03-08..2024-03-01"]) == 1
    err = capsys.readouterr().err
    assert "'2024-03-08..2024-03-01': the start must be before the end" in err and "/" not in err.split(":", 1)[1]


def test_the_table_may_be_named_with_its_offline_suffix(tmp_path, capsys):
    """``--table`` is "raw or with _OFFLINE", as every controller command's help says: compact took only the raw
    name (it refused 'events_OFFLINE' as "option 'table-name'"); a REALTIME table is refused naming the flag."""
    out = tmp_path / "segments"
    tiny_segments(4, 30, kind="hourly", out=out, spacing_ms=60_000)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "table.json").write_text(json.dumps(CONFIG))
    files = ["--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json")]
    assert main(["compact", "--table", "events_OFFLINE", "--output-uri", str(out), *files]) == 0
    assert "total: 4 segment(s) -> 1" in capsys.readouterr().out
    assert folder_ids(out) == list(range(120))
    with pytest.raises(SystemExit, match="--table events_REALTIME: compaction merges OFFLINE tables only"):
        main(["compact", "--table", "events_REALTIME", "--output-uri", str(out), *files])


def test_a_table_the_controller_lacks_is_said_so(fake_controller):
    """It said "get schema, table 'nosuch': HTTP 404: Schema not found for table: nosuch"; a REALTIME-only table
    the same way, about its OFFLINE twin."""
    from tests.primary_keys.tables import SCHEMA as KEYED, table_config

    with pytest.raises(SystemExit, match=rf"^table nosuch_OFFLINE does not exist on {fake_controller.url} "
                                         r"\(compaction merges OFFLINE tables only\): nothing was compacted$"):
        main(["compact", "--table", "nosuch", "--url", fake_controller.url, "--dry-run"])
    fake_controller.add_table(KEYED, table_config("REALTIME"))
    with pytest.raises(SystemExit, match="^table orders_OFFLINE does not exist on "):
        main(["compact", "--table", "orders", "--url", fake_controller.url, "--dry-run"])
