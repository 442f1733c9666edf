"""The CLI talks: --version, a push that stops before uploading when the controller cannot be reached or
lacks the table, and failures reported as failures."""
from __future__ import annotations

import socket
import time

import pytest

import pinot_sink
from pinot_sink.cli import main
from segment_factory import make_segment

FAST = ["--retries", "2", "--retry-time", "10"]


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"pinot-sink {pinot_sink.__version__}"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again on exit: nothing listens there


def test_push_to_an_unreachable_controller_stops_before_any_upload(tmp_path, capsys):
    for i in range(5):
        make_segment(tmp_path, f"events_{i}")
    url = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    with pytest.raises(SystemExit, match=rf"^cannot reach the controller at {url}: .*; nothing was pushed$"):
        main(["push", str(tmp_path), "--url", url, "--table", "events", *FAST])
    assert time.monotonic() - started < 30
    assert "FAILED" not in capsys.readouterr().err  # no segment was tried


def test_push_to_a_missing_table_stops_before_any_upload(fake_controller, tmp_path):
    make_segment(tmp_path, "nope_0")
    with pytest.raises(SystemExit, match="^table nope_OFFLINE does not exist on .*: nothing was pushed$"):
        main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "nope", *FAST])
    assert fake_controller.uploads() == []


def test_push_to_a_realtime_table_says_how_to_backfill_one(fake_controller, tmp_path):
    make_segment(tmp_path, "events_0")
    with pytest.raises(SystemExit, match=r"^--table events_REALTIME: push uploads to OFFLINE tables; .*"
                                         r"table-type=REALTIME"):
        main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events_REALTIME", *FAST])
    assert fake_controller.uploads() == []


def test_failures_are_counted_as_failures(fake_controller, tmp_path, capsys):
    for i in range(3):
        make_segment(tmp_path, f"events_{i}")
    make_segment(tmp_path, "events_bad", start_time=0, end_time=1)  # 403: outside 1971..2071
    assert main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events", *FAST]) == 1
    err = capsys.readouterr().err
    assert "FAILED events_bad: " in err
    assert "pushed 3 of 4 segments" in err and "; 1 FAILED" in err
    assert "1 of 4 segment(s) FAILED (listed above)" in err


class _Terminal:
    """A stderr that says it is a terminal, so tqdm draws its bar (it stays quiet in logs and pipes)."""

    def __init__(self) -> None:
        import io

        self.buffer = io.StringIO()

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return self.buffer.write(text)

    def flush(self) -> None:
        pass


def test_build_shows_rows_segments_and_bytes_as_it_goes(tmp_path, monkeypatch, capsys):
    import json as _json

    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = {"schemaName": "events", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}]}
    config = {"tableName": "events_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {}, "tableIndexConfig": {}}
    (tmp_path / "schema.json").write_text(_json.dumps(schema))
    (tmp_path / "table.json").write_text(_json.dumps(config))
    pq.write_table(pa.table({"id": pa.array(range(25_000), pa.int64())}), tmp_path / "rows.parquet")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "table.json"),
                 "--input", str(tmp_path / "rows.parquet"), "--out", str(tmp_path / "out"),
                 "--max-rows", "10000", "--name", "events"]) == 0
    drawn = terminal.buffer.getvalue()
    assert "build: 100%" in drawn and "25.0k/25.0k" in drawn and "3 segments" in drawn and " MB" in drawn
    assert drawn.count("pinot-sink build: segment") == 3  # each segment's line printed above the bar


def test_build_derives_the_table_and_push_creates_it(fake_controller, tmp_path, capsys, caplog):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import logging

    caplog.set_level(logging.INFO, logger="pinot_sink")  # the CLI's own log level (basicConfig INFO)
    millis = pa.array([1_700_000_000_000 + i * 1000 for i in range(100)], pa.timestamp("ms"))
    pq.write_table(pa.table({"id": pa.array(range(100), pa.int64()), "ts": millis}), tmp_path / "rows.parquet")
    out = tmp_path / "out"
    assert main(["build", "--table", "clicks", "--input", str(tmp_path / "rows.parquet"), "--out", str(out),
                 "--option", "table.create=if-missing", "--option", "table.time-column=ts"]) == 0
    assert (out / "schema.json").exists() and (out / "table_config.json").exists()
    assert main(["push", str(out), "--url", fake_controller.url, "--table", "clicks", *FAST,
                 "--create-table", str(out / "schema.json"), str(out / "table_config.json")]) == 0
    table = fake_controller.tables["clicks"]
    assert table.config["segmentsConfig"]["timeColumnName"] == "ts"
    assert sum(int(s.zk["segment.total.docs"]) for s in table.segments.values()) == 100
    said = capsys.readouterr().err + caplog.text
    assert said.count("created table") == 1 and "created table clicks_OFFLINE" in said  # once (issue 32 item 8)
    assert "(time column ts)" in said


# --- the pre-flight check gets the push's retry budget (issue 31, 4.) ----------------------------------------------


def test_push_rides_out_two_503s_in_its_pre_flight_check(fake_controller, tmp_path):
    """A controller answering 503 twice (busy, or restarting behind a proxy) is transient: the check retries
    within --retries / --retry-time, as uploads do, and the push succeeds (it stopped after 2 attempts in 0.5 s,
    "nothing was pushed")."""
    for i in range(2):
        make_segment(tmp_path, f"events_{i}")
    fake_controller.fail_next(2, 503, method="GET", path="/tables/events")
    assert main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events",
                 "--retries", "4", "--retry-time", "30"]) == 0
    checks = [r for r in fake_controller.received if r.method == "GET" and r.path.startswith("/tables/events")]
    assert [r.status for r in checks[:3]] == [503, 503, 200]
    assert len(fake_controller.uploads()) == 2 and sorted(fake_controller.live_segments("events")) == \
        ["events_0", "events_1"]


def test_push_stops_at_once_when_the_controllers_name_does_not_resolve(tmp_path, monkeypatch):
    """A failed name lookup is a wrong URL, not an outage: one attempt, then one line."""
    make_segment(tmp_path, "events_0")
    real = socket.getaddrinfo
    lookups = []

    def no_such_host(host, *args, **kwargs):
        if host == "controller.pinot-sink.invalid":
            lookups.append(host)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    url = "http://controller.pinot-sink.invalid:9000"
    with pytest.raises(SystemExit, match=rf"^cannot reach the controller at {url}: .*Name or service not known"):
        main(["push", str(tmp_path), "--url", url, "--table", "events", "--retries", "5", "--retry-time", "60"])
    assert len(lookups) == 1


def test_a_refused_connection_is_retried_only_for_a_moment(tmp_path, monkeypatch):
    """Refused: a controller restarting, or a wrong port. Quick retries within REFUSED_GRACE_S, then one line,
    whatever --retries and --retry-time allow."""
    from pinot_sink.controller import cli_args

    monkeypatch.setattr(cli_args, "REFUSED_GRACE_S", 0.3)
    make_segment(tmp_path, "events_0")
    url = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    with pytest.raises(SystemExit, match=rf"^cannot reach the controller at {url}: .*Connection refused"):
        main(["push", str(tmp_path), "--url", url, "--table", "events", "--retries", "1000", "--retry-time", "600"])
    assert time.monotonic() - started < 60  # not the 600 s --retry-time allows


@pytest.mark.parametrize("command", [["history"], ["segments"], ["recover"], ["compact", "--dry-run"],
                                     ["undo", "--write-id", "w1", "--dry-run"]])
def test_every_command_gives_a_refused_connection_the_push_budget(command, monkeypatch, caplog, capsys):
    """history, segments, recover, compact and undo spent their whole --retries (~12 s) on a refused
    connection, then said "gave up after 5 attempt(s)"; push stopped in ~5 s with one line. Now each probes
    the controller under the same REFUSED_GRACE_S and says the same line, naming the URL and --url. Attempts
    are counted in the retry log (not timed): the probe's clock reads the start and the first attempt inside the
    grace and every later reading past it, whatever the machine's speed (a real 0.3 s grace failed under load)."""
    import itertools
    import logging
    import types

    from pinot_sink.controller import cli_args

    clock = itertools.chain([0.0, 0.0], itertools.repeat(cli_args.REFUSED_GRACE_S + 1))
    monkeypatch.setattr(cli_args, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    url = f"http://127.0.0.1:{_closed_port()}"
    caplog.set_level(logging.WARNING, logger="pinot_sink.controller.retry")
    with pytest.raises(SystemExit, match=rf"^cannot reach the controller at {url}: "
                                         rf"ConnectionRefusedError: Connection refused \(check --url\)$"):
        main([*command, "--url", url, "--table", "events"])  # default --retries 5, --retry-time 300
    retried = [r for r in caplog.records if "failed (attempt" in r.getMessage()]
    assert len(retried) == 1, [r.getMessage() for r in retried]  # one retry, then the grace is over


def test_push_create_table_refuses_files_naming_another_table(fake_controller, tmp_path):
    """Files built for ``clicks`` pushed with ``--table clicks2``: the push created (or found) ``clicks``, then
    stopped on "clicks2_OFFLINE does not exist" after logging "schema clicks2 exists already". It now says
    which file names which table, and touches nothing."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    millis = pa.array([1_700_000_000_000 + i * 1000 for i in range(10)], pa.timestamp("ms"))
    pq.write_table(pa.table({"id": pa.array(range(10), pa.int64()), "ts": millis}), tmp_path / "rows.parquet")
    out = tmp_path / "out"
    assert main(["build", "--table", "clicks", "--input", str(tmp_path / "rows.parquet"), "--out", str(out),
                 "--option", "table.create=if-missing", "--option", "table.time-column=ts"]) == 0
    with pytest.raises(SystemExit, match=r"^--create-table: .*schema.json has schemaName 'clicks', not the --table "
                                         r"'clicks2': push with --table clicks, .*nothing was pushed$"):
        main(["push", str(out), "--url", fake_controller.url, "--table", "clicks2", *FAST,
              "--create-table", str(out / "schema.json"), str(out / "table_config.json")])
    assert "clicks" not in fake_controller.tables and "clicks2" not in fake_controller.tables
    assert main(["push", str(out), "--url", fake_controller.url, "--table", "clicks_OFFLINE", *FAST,
                 "--create-table", str(out / "schema.json"), str(out / "table_config.json")]) == 0
