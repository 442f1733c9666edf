"""The driver process killed at each phase of its commit (SIGKILL, a real Spark driver in its own process:
kill_driver.py), then `pinot-sink recover --apply` and a rerun of the write id: every row exactly once, after
the recovery already and after the rerun (issue 18, 7.)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pinot_sink.cli import main

from .helpers import SCHEMA, TABLE_CONFIG, controller_values, events_df, read_rows
from .kill_driver import ROWS

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SCRIPT = Path(__file__).with_name("kill_driver.py")
# A driver process (a JVM) per phase costs 15-100 s on a shared 2-core machine: by default one phase per mode
# (the ones that leave most behind); PINOT_SINK_KILL_ALL_PHASES=1 runs every phase. test_recover.py crashes the
# commit at every phase of both modes in-process, in a second.
ALL_PHASES = os.environ.get("PINOT_SINK_KILL_ALL_PHASES") == "1"
CONTROLLER_PHASES = ["staged", "started", "uploaded", "ended"] if ALL_PHASES else ["uploaded"]
EMBEDDED_PHASES = ["staged", "publishing", "moved", "deleted"] if ALL_PHASES else ["publishing"]


def kill_at(phase: str, out: Path | str, controller=None, push_mode: str = "tar") -> None:
    command = [sys.executable, str(SCRIPT), phase, str(out), "day"] + ([controller.url, push_mode] if controller
                                                                       else [])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        stdout, stderr = driver.communicate(timeout=240)
    finally:
        try:  # the driver's JVM, if it outlived it: the process group this test started
            os.killpg(driver.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert driver.returncode == -signal.SIGKILL and "KILLED" in stdout, stderr[-3000:]


def recover(*args) -> None:
    assert main(["recover", "--table", "events", "--apply", "--min-age", "0", *args]) == 0  # the driver is dead


def values_in_folder(out: Path) -> list[int]:
    paths = sorted((out / "events").glob("*.tar.gz"))
    return sorted(read_rows(paths).column("value").to_pylist()) if paths else []


@pytest.mark.parametrize("phase", CONTROLLER_PHASES)
def test_a_driver_killed_during_a_controller_commit(spark, fake_controller, tmp_path, phase):
    out = tmp_path / "out"
    fake_controller.tables.clear()
    fake_controller.add_table(SCHEMA, TABLE_CONFIG)
    import pinot_sink

    options = {"url": fake_controller.url, "output-uri": str(out), "write.id": "day",
               "retry.initial-backoff": "10ms", "sink.buffer-flush.max-rows": 400}
    pinot_sink.write(events_df(spark, ROWS), "events", **options)
    kill_at(phase, out, fake_controller)
    recover("--url", fake_controller.url, "--output-uri", str(out))
    assert controller_values(fake_controller, tmp_path) == list(range(ROWS))
    assert not [e for e in fake_controller.tables["events"].lineage.values() if e.state == "IN_PROGRESS"]
    assert not (out / "events" / "_staging").exists() or not list((out / "events" / "_staging").iterdir())
    pinot_sink.write(events_df(spark, ROWS), "events", **options)
    assert controller_values(fake_controller, tmp_path) == list(range(ROWS))


@pytest.mark.parametrize("phase", EMBEDDED_PHASES)
def test_a_driver_killed_during_an_embedded_commit(spark, tmp_path, phase):
    import pinot_sink

    out = tmp_path / "out"
    options = {"output-uri": str(out), "write.id": "day", "sink.buffer-flush.max-rows": 400,
               "schema": json.dumps(SCHEMA), "table-config": json.dumps(TABLE_CONFIG)}
    pinot_sink.write(events_df(spark, ROWS), "events", **options)
    kill_at(phase, out)
    recover("--output-uri", str(out))
    assert values_in_folder(out) == list(range(ROWS))
    documents = [json.loads(p.read_text()) for p in (out / "events" / "_manifests").glob("*.json")]
    assert not [d for d in documents if d["status"] in ("publishing", "withdrawn", "unknown")]
    pinot_sink.write(events_df(spark, ROWS), "events", **options)
    assert values_in_folder(out) == list(range(ROWS))


@pytest.mark.parametrize("push_mode", ["tar", "metadata", "uri"])
def test_a_driver_killed_after_its_end_then_recover_then_push_of_the_folder(spark, fake_controller, tmp_path,
                                                                             push_mode):
    """Issue 31, 5.: the driver SIGKILLed once endReplaceSegments is applied, before its manifest: recover finishes
    the publish (it deleted the staging folder of a push-mode tar write, the only copies of its live rows), and a
    push of the output folder into an empty table gives the table's rows, names and all."""
    from fake_controller import FakeController

    import pinot_sink
    from pinot_sink.cli.push_cmd import find_tarballs

    local = tmp_path / "out"
    out = f"local://{local}" if push_mode == "uri" else str(local)  # the controller refuses file: URIs in uri mode
    fake_controller.tables.clear()
    fake_controller.add_table(SCHEMA, TABLE_CONFIG)
    pinot_sink.write(events_df(spark, 500, start=ROWS), "events", url=fake_controller.url, **{
        "output-uri": out, "push-mode": push_mode, "retry.initial-backoff": "10ms"})  # another write, live before
    kill_at("ended", out, fake_controller, push_mode)
    recover("--url", fake_controller.url, "--output-uri", out)
    expected = list(range(ROWS + 500))
    assert served_values(fake_controller, tmp_path / "table") == expected
    pushed = find_tarballs([str(local / "events")])
    assert {p.name[: -len(".tar.gz")] for p in pushed} == set(fake_controller.live_segments("events"))
    other = FakeController().start()
    try:
        other.add_table(SCHEMA, TABLE_CONFIG)
        assert main(["push", str(local / "events"), "--url", other.url, "--table", "events"]) == 0
        assert served_values(other, tmp_path / "other") == expected
    finally:
        other.stop()


def served_values(controller, folder: Path) -> list[int]:
    """The values a query sees (a metadata push's segments are served from their download URI)."""
    from fake_controller import _fetch

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in controller.live_segments("events"):
        stored = controller.segments("events")[name]
        paths.append(folder / f"{name}.tar.gz")
        paths[-1].write_bytes(stored.tar_bytes if stored.upload_type != "METADATA" else _fetch(stored.download_uri))
    return sorted(read_rows(paths).column("value").to_pylist()) if paths else []
