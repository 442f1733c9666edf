"""``pinot-sink push`` and ``pinot-sink segments`` against the test controller."""
from __future__ import annotations

import json

import pytest

from pinot_sink.cli import main
from segment_factory import make_segment, segment_crc

FAST = ["--retries", "2", "--retry-time", "10"]


def test_push_a_directory_in_parallel_then_list(fake_controller, tmp_path, capsys):
    paths = [make_segment(tmp_path / "out", f"events_{i}", rows=i + 1) for i in range(3)]
    code = main(["push", str(tmp_path / "out"), "--url", fake_controller.url, "--table", "events", "--parallel", "2",
                 *FAST])
    assert code == 0
    assert sorted(fake_controller.segments()) == ["events_0", "events_1", "events_2"]
    assert "pushed 3 of 3 segments" in capsys.readouterr().err

    assert main(["segments", "--url", fake_controller.url, "--table", "events_OFFLINE", *FAST]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["segment", "rows", "crc", "start", "(UTC)", "end", "(UTC)"]
    assert out[1].split() == ["events_0", "1", str(segment_crc(paths[0])), "2023-11-14T22:13:20.000Z",
                              "2023-11-15T22:13:20.000Z"]
    assert out[-1] == "3 segments, 6 rows"


def test_segments_json(fake_controller, tmp_path, capsys):
    path = make_segment(tmp_path, "events_0", rows=4)
    assert main(["push", str(path), "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    capsys.readouterr()
    assert main(["segments", "--json", "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["segment"] == "events_0" and row["rows"] == 4 and row["crc"] == segment_crc(path)


def test_push_reports_each_failure_and_exits_1(fake_controller, tmp_path, capsys):
    for i in range(3):
        make_segment(tmp_path, f"events_{i}")
    make_segment(tmp_path, "events_bad", start_time=0, end_time=1)  # 403: outside 1971..2071
    code = main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events", *FAST])
    err = capsys.readouterr().err
    assert code == 1
    assert "FAILED events_bad" in err and "Invalid segment start/end time" in err
    assert "pushed 3 of 4 segments" in err
    assert sorted(fake_controller.segments()) == ["events_0", "events_1", "events_2"]


def test_consistent_push_replaces_the_table(fake_controller, tmp_path, capsys):
    for name in ("old_0", "old_1"):
        make_segment(tmp_path / "old", name)
    make_segment(tmp_path / "new", "new_0")
    args = ["--url", fake_controller.url, "--table", "events", *FAST]
    assert main(["push", str(tmp_path / "old"), *args]) == 0
    assert main(["push", str(tmp_path / "new"), "--consistent", *args]) == 0
    assert fake_controller.live_segments() == ["new_0"]
    assert "1 segments replaced 2" in capsys.readouterr().out


def test_metadata_mode_with_a_deep_store(fake_controller, tmp_path):
    make_segment(tmp_path / "out", "events_0")
    code = main(["push", str(tmp_path / "out"), "--push-mode", "metadata", "--deep-store", str(tmp_path / "deep"),
                 "--url", fake_controller.url, "--table", "events", *FAST])
    assert code == 0 and (tmp_path / "deep" / "events" / "events_0.tar.gz").is_file()


def test_token_from_environment_is_used_and_never_printed(fake_controller, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PINOT_TOKEN", "tok-123-secret")
    fake_controller.require_auth("Bearer tok-123-secret")
    make_segment(tmp_path, "events_0")
    assert main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events", *FAST]) == 0
    monkeypatch.setenv("PINOT_TOKEN", "wrong-secret")
    assert main(["segments", "--url", fake_controller.url, "--table", "events", *FAST]) == 1
    captured = capsys.readouterr()
    assert "401" in captured.err
    assert "secret" not in captured.out + captured.err


def test_bad_invocations_exit_clearly(fake_controller, tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit, match="needs --deep-store"):
        main(["push", str(tmp_path), "--push-mode", "uri", "--url", fake_controller.url, "--table", "events"])
    with pytest.raises(SystemExit, match="no segment tarballs"):
        main(["push", str(tmp_path), "--url", fake_controller.url, "--table", "events"])


def test_push_refuses_a_file_that_is_no_tarball_before_any_upload(tmp_path):
    """A non-tarball named .tar.gz went to the controller, whose HTTP 500 was retried (9 s by default) before
    it failed; its first bytes name it, and nothing is pushed (no controller is asked: the URL is closed)."""
    bad = tmp_path / "events_0.tar.gz"
    bad.write_bytes(b"hello")
    with pytest.raises(SystemExit, match=r"events_0.tar.gz: not a segment tarball .*it starts with 68656c6c; "
                                         r"nothing was pushed"):
        main(["push", str(bad), "--table", "events", "--url", "http://127.0.0.1:1"])
