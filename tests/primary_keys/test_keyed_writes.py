"""Writes into primary-key tables through the test controller (Spark-free: tasks run by hand): every segment
holds one partition id; a REALTIME table's segments are named as UploadedRealtimeSegmentName and uploaded as
REALTIME; a rerun of a write id replaces that write's segments."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.commit import commit_job
from pinot_sink.segment import read_segment
from pinot_sink.segment.partition import partition_ids
from pinot_sink.task import write_partition
from tests.datasource.helpers import prepared_job
from tests.primary_keys.tables import ARROW, SCHEMA, table_config
from type_mapping.pinot_schema import FieldSpec

BASE_MS = 1_700_000_000_000


def rows(seed: int, count: int, keys: int = 300, size: int = 97):
    rnd = np.random.default_rng(seed)
    ids = rnd.integers(0, keys, count)
    for first in range(0, count, size):
        part = ids[first:first + size]
        yield pa.record_batch([pa.array([f"k{i}" for i in part]), pa.array(["Oslo"] * len(part)),
                               pa.array(np.arange(first, first + len(part)) + seed * 10_000, pa.int64()),
                               pa.array(BASE_MS + np.arange(first, first + len(part)), pa.int64())], schema=ARROW)


def write(controller, *, kind: str, seed: int, tasks: int = 3, **options):
    job = prepared_job(SCHEMA, None, ARROW, url=controller.url,
                       **{"table-name": "orders", "table-type": kind, "sink.buffer-flush.max-rows": 200, **options})
    reports = [write_partition(job, rows(seed * 10 + p, 400), partition_id=p, attempt=0, task_attempt_id=p)
               for p in range(tasks)]
    return commit_job(job, reports)


def live_tables(controller, tmp_path):
    out = {}
    for name in controller.live_segments("orders"):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(controller.segments("orders")[name].tar_bytes)
        out[name] = read_segment(str(path))
    return out


def murmur4(ids: list[str]) -> set[int]:
    return set(partition_ids(pa.array(ids), FieldSpec("id", "STRING"), "Murmur", 4).tolist())


@pytest.mark.parametrize("kind", ["OFFLINE", "REALTIME"])
def test_every_segment_holds_one_partition_and_reruns_replace(fake_controller, tmp_path, kind):
    fake_controller.add_table(SCHEMA, table_config(kind))
    write(fake_controller, kind=kind, seed=1, **{"write.id": "backfill-1"})
    first = live_tables(fake_controller, tmp_path)
    assert len(first) > 4  # several segments per partition id: max-rows cuts them, each one id
    for name, segment in first.items():
        (partition,) = murmur4(segment.table.column("id").to_pylist())
        stored = fake_controller.segments("orders")[name].metadata
        assert (stored["column.id.partitionFunction"], stored["column.id.partitionValues"]) == ("Murmur", str(partition))
        if kind == "REALTIME":  # {prefix}__{table}__{partitionId}__{creationTime}__{suffix}
            prefix, table, in_name, created, suffix = name.split("__")
            assert (prefix, table, int(in_name)) == ("pinot_sink", "orders", partition)
            assert int(created) > 0 and suffix.startswith("w")
        else:
            assert "__" not in name
    assert fake_controller.tables["orders"].load_errors == {}
    uploads = [r for r in fake_controller.received if r.method == "POST" and r.path == "/v2/segments"]
    assert uploads and all(r.query.get("tableType") == [kind] for r in uploads)

    write(fake_controller, kind=kind, seed=2, **{"write.id": "backfill-1"})  # a rerun of the write
    (tmp_path / "second").mkdir()
    second = live_tables(fake_controller, tmp_path / "second")
    assert not set(first) & set(second)
    amounts = sorted(v for s in second.values() for v in s.table.column("amount").to_pylist())
    assert amounts == sorted(v for p in range(3) for b in rows(20 + p, 400) for v in b.column(2).to_pylist())


def test_realtime_is_only_for_keyed_tables(fake_controller):
    from pinot_sink.options import OptionError

    fake_controller.add_table(SCHEMA, table_config("REALTIME", upsertConfig=None))
    with pytest.raises(OptionError, match="pinot_sink uploads to REALTIME tables for upsert and dedup backfills only"):
        prepared_job(SCHEMA, None, ARROW, url=fake_controller.url, **{"table-name": "orders", "table-type": "REALTIME"})


def test_the_cli_lists_undoes_and_recovers_a_realtime_table_named_with_its_suffix(fake_controller, tmp_path, capsys):
    """history, segments, undo and recover of a REALTIME table's backfills: ``--table orders_REALTIME`` (the raw
    name means the OFFLINE table, which a REALTIME-only table lacks; before, the suffix was refused)."""
    import json

    from pinot_sink.cli import main

    fake_controller.add_table(SCHEMA, table_config("REALTIME"))
    write(fake_controller, kind="REALTIME", seed=1, **{"write.id": "backfill-1"})
    first = set(fake_controller.live_segments("orders"))
    write(fake_controller, kind="REALTIME", seed=2, **{"write.id": "backfill-1"})
    url = ["--url", fake_controller.url, "--table", "orders_REALTIME"]
    capsys.readouterr()
    assert main(["history", *url, "--json"]) == 0
    runs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [run["status"] for run in runs][-1] == "live" and len(runs) == 2
    assert main(["segments", *url]) == 0
    assert f"{len(fake_controller.live_segments('orders'))} segments" in capsys.readouterr().out
    assert main(["undo", *url, "--write-id", "backfill-1"]) == 0
    assert set(fake_controller.live_segments("orders")) == first
    assert main(["recover", *url]) == 0
    assert "nothing left behind" in capsys.readouterr().out
    assert all(r.query.get("type", ["REALTIME"]) == ["REALTIME"] for r in fake_controller.received
               if r.path.startswith("/segments/orders"))


def test_recover_reverts_a_realtime_write_killed_after_its_uploads(fake_controller, monkeypatch, capsys, tmp_path):
    """A REALTIME backfill whose driver died before endReplaceSegments: ``recover --table orders_REALTIME --apply``
    reverts its entry (it failed: ConsistentPush took the typed name for an OFFLINE one) and deletes its private
    staging root (it was looked for under ``orders_REALTIME``)."""
    from pinot_sink.cli import main
    from pinot_sink.controller import ControllerClient
    from tests.datasource.test_recover import Crash, crash_at

    fake_controller.add_table(SCHEMA, table_config("REALTIME"))
    write(fake_controller, kind="REALTIME", seed=1, **{"write.id": "backfill-1"})
    first = set(fake_controller.live_segments("orders"))
    crash_at(monkeypatch, "uploaded")
    with pytest.raises(Crash):
        write(fake_controller, kind="REALTIME", seed=2, **{"write.id": "backfill-1"})
    monkeypatch.undo()
    import os
    import tempfile

    from pinot_sink.storage.staging import _root_prefix
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a killed driver's private staging root, as it left it
    root = tempfile.mkdtemp(prefix=_root_prefix("orders"))
    os.makedirs(os.path.join(root, "orders", "_staging", "w0123456789_rx"))
    lineage = ControllerClient(fake_controller.url, table_type="REALTIME").get_lineage("orders")
    assert sorted(entry["state"] for entry in lineage.values()) == ["COMPLETED", "IN_PROGRESS"]
    url = ["--url", fake_controller.url, "--table", "orders_REALTIME", "--min-age", "0"]
    capsys.readouterr()
    assert main(["recover", *url, "--apply"]) == 0
    out = capsys.readouterr().out
    assert "-> reverted" in out and "private staging folder" in out and "-> deleted" in out
    assert main(["recover", *url]) == 0 and "nothing left behind" in capsys.readouterr().out
    assert set(fake_controller.live_segments("orders")) == first


@pytest.mark.parametrize("kind", ["OFFLINE", "REALTIME"])
def test_a_replace_on_an_upsert_table_warns_that_older_rows_hide_their_keys(fake_controller, caplog, kind):
    """On a real cluster an overwrite of an upsert table with older stamps answered 0 of 100 rows: the replaced
    segments stay loaded (and win the upsert) until the controller's RetentionManager deletes them. A commit
    that replaced segments of an upsert table says so; one that replaced nothing does not."""
    fake_controller.add_table(SCHEMA, table_config(kind))
    caplog.set_level("WARNING")
    write(fake_controller, kind=kind, seed=1, **{"write.id": "backfill-1"})
    assert "upsert table: this write replaced" not in caplog.text
    write(fake_controller, kind=kind, seed=2, **{"write.id": "backfill-1"})
    assert "upsert table: this write replaced 12 segment(s)" in caplog.text
    assert "SMALLER comparison value" in caplog.text and "#rolling-keys-back" in caplog.text


def test_a_realtime_commit_of_unknown_outcome_names_the_recover_command_for_its_table(fake_controller):
    """The MAY HAVE BEEN COMMITTED message names `pinot-sink recover --table orders_REALTIME`: with the raw name
    the command would look at the OFFLINE table, which a REALTIME-only table has not."""
    from pinot_sink.commit import CommitError

    fake_controller.add_table(SCHEMA, table_config("REALTIME"))
    fake_controller.lose_response_next(1, method="POST", path="/segments/orders/endReplaceSegments",
                                       then_outage_s=3)
    with pytest.raises(CommitError, match=r"MAY HAVE BEEN COMMITTED.*`pinot-sink recover --table orders_REALTIME "
                                          rf"--url {fake_controller.url}` shows what is left"):
        write(fake_controller, kind="REALTIME", seed=1, **{"write.id": "backfill-1", "retry.max-attempts": 3,
                                                           "retry.max-elapsed": "1s"})
