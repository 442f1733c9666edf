"""A compaction killed at each phase (its own process, ``os._exit``: no clean-up runs; crash_compact.py),
then ``pinot-sink recover`` and the compaction run again: every row exactly once, nothing left behind."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

from pinot_sink.compaction import compact
from pinot_sink.compaction.merge import CompactionError
from pinot_sink.controller import ClientConfig, ControllerClient
from pinot_sink.recovery import find_leftovers
from tests.compaction.helpers import CONFIG, SCHEMA, controller_ids, folder_ids, tiny_segments

SCRIPT = Path(__file__).with_name("crash_compact.py")
COUNT, ROWS = 12, 40
TARGET = "8kb"


def crash(phase: str, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(SCRIPT.parents[2])}
    done = subprocess.run([sys.executable, str(SCRIPT), phase, "--target-size", TARGET, *args], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])


def recover(table="events", **kwargs) -> list[str]:
    outcomes = []
    for leftover in find_leftovers(table, **kwargs):
        outcomes.append(f"{leftover.kind}: {leftover.settle()}")
    return outcomes


@pytest.fixture(autouse=True)
def own_temp_folder(tmp_path, monkeypatch):
    """The killed compaction's private staging root (a controller compaction stages in the driver's temp
    folder) lands here, not among other processes' roots in the machine's temp folder, which recover would list
    too."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))


SLOW = pytest.mark.slow  # a process of its own each (~5 s): one phase per mode stays in the quick suite


@pytest.mark.parametrize("phase", [pytest.param("read", marks=SLOW), pytest.param("built", marks=SLOW),
                                   pytest.param("started", marks=SLOW), "uploaded", pytest.param("ended", marks=SLOW)])
def test_controller_crash_then_recover_and_rerun(fake_controller, tmp_path, phase):
    fake_controller.add_table(SCHEMA, CONFIG)
    with ControllerClient.from_config(ClientConfig(url=fake_controller.url)) as client:
        tiny_segments(COUNT, ROWS, kind="stream", client=client, url=fake_controller.url, spacing_ms=60_000)
        crash(phase, "--url", fake_controller.url)
        # Whatever it left, the table answers every row once, even before recovery.
        assert controller_ids(fake_controller, tmp_path / "a") == list(range(COUNT * ROWS))
        outcomes = recover(client=client)
        # the killed process's private staging root (once it staged) goes too; its owner is dead
        assert [o for o in outcomes if not o.startswith("staging folder")] == \
            (["lineage entry: reverted"] if phase in ("started", "uploaded") else [])
        assert all(o == "staging folder: deleted" for o in outcomes if o.startswith("staging folder"))
    report = compact("events", url=fake_controller.url, target_size=TARGET)
    assert not report.failed
    assert controller_ids(fake_controller, tmp_path / "b") == list(range(COUNT * ROWS))
    assert len(fake_controller.live_segments("events")) < COUNT
    assert compact("events", url=fake_controller.url, target_size=TARGET).groups == []  # nothing more to do
    with ControllerClient.from_config(ClientConfig(url=fake_controller.url)) as client:
        assert find_leftovers("events", client=client) == []


@pytest.mark.parametrize("phase", [pytest.param("read", marks=SLOW), pytest.param("built", marks=SLOW),
                                   pytest.param("half-published", marks=SLOW), "published",
                                   pytest.param("deleting", marks=SLOW)])
def test_embedded_crash_then_recover_and_rerun(tmp_path, phase):
    out = tmp_path / "segments"
    tiny_segments(COUNT, ROWS, kind="hourly", out=out, spacing_ms=60_000)
    options = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}
    crash(phase, "--output-uri", str(out), "--schema", options["schema"], "--table-config", options["table-config"])
    outcomes = recover(output_uri=out.resolve().as_uri())
    assert any(o.startswith("unfinished publish: ") for o in outcomes), outcomes  # its record, from the start
    assert folder_ids(out) == list(range(COUNT * ROWS))
    report = compact("events", output_uri=str(out), target_size=TARGET, options=options)
    assert not report.failed
    assert folder_ids(out) == list(range(COUNT * ROWS))
    # Only live tarballs are left in the folder: the merged ones are gone.
    on_disk = {p.name[:-len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")}
    assert len(on_disk) < COUNT and all("_c" in n for n in on_disk)
    assert find_leftovers("events", output_uri=out.resolve().as_uri()) == []


@pytest.mark.slow
def test_a_rerun_alone_after_a_controller_crash_finishes_the_job(fake_controller, tmp_path):
    """No recover: the next compaction reverts the killed one's IN_PROGRESS entry on its segments itself."""
    fake_controller.add_table(SCHEMA, CONFIG)
    with ControllerClient.from_config(ClientConfig(url=fake_controller.url)) as client:
        tiny_segments(COUNT, ROWS, kind="stream", client=client, url=fake_controller.url, spacing_ms=60_000)
    crash("uploaded", "--url", fake_controller.url)
    report = compact("events", url=fake_controller.url, target_size=TARGET)
    assert not report.failed
    assert controller_ids(fake_controller, tmp_path) == list(range(COUNT * ROWS))
    states = sorted(e.state for e in fake_controller.tables["events"].lineage.values() if e.segments_from)
    assert states == ["COMPLETED", "REVERTED"]


def test_an_unfinished_publish_in_a_folder_is_settled_before_a_compaction(tmp_path):
    """Killed mid-delete, a publish shows part of the folder: a compaction refuses until recover settles it."""
    out = tmp_path / "segments"
    tiny_segments(COUNT, ROWS, kind="hourly", out=out, spacing_ms=60_000)
    options = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}
    crash("deleting", "--output-uri", str(out), "--schema", options["schema"], "--table-config", options["table-config"])
    with pytest.raises(CompactionError, match="not compacted: unfinished publish .* `pinot-sink recover --table events"):
        compact("events", output_uri=str(out), target_size=TARGET, options=options)
    recover(output_uri=out.resolve().as_uri())
    assert not compact("events", output_uri=str(out), target_size=TARGET, options=options).failed
    assert folder_ids(out) == list(range(COUNT * ROWS))
