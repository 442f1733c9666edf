"""Compaction of a folder of tarballs (embedded mode: the manifests are the record), the rival rules between
a compaction and a rerun of a write it merges, and rollup / dedup checked against a plain group-by / distinct
of the same rows (pyarrow)."""
from __future__ import annotations

import json
from pathlib import Path
import threading

import numpy as np
import pyarrow as pa
import pytest

import pinot_sink
from pinot_sink import commit as commit_module
from pinot_sink.commit import CommitError
from pinot_sink.options import OptionError
from pinot_sink.compaction import compact
from pinot_sink.compaction import run as run_module
from pinot_sink.compaction.merge import CompactionError
from pinot_sink.compaction.provenance import CompactedWriteError
from pinot_sink.segment import read_segment
from pinot_sink.storage.manifests import manifests_of_table
from pinot_sink.segment.read.tar_source import extract_all
from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, SCHEMA, folder_ids, rows, tiny_segments, write

OPTIONS = {"schema": json.dumps(SCHEMA), "table-config": json.dumps(CONFIG)}


def live_table(out) -> pa.Table:
    from pinot_sink.compaction.plan import list_facts
    from pinot_sink.storage.stores import DirectoryStore

    names = [f.name for f in list_facts(DirectoryStore("events", out.resolve().as_uri()))]
    return pa.concat_tables([read_segment(str(out / "events" / f"{n}.tar.gz")).table for n in names])


def test_a_folder_is_compacted_and_its_manifest_records_it(tmp_path):
    out = tmp_path / "segments"
    names = tiny_segments(30, 40, kind="stream", out=out, spacing_ms=60_000)
    report = pinot_sink.compact("events", output_uri=str(out), target_size="16kb", options=OPTIONS)
    assert not report.failed and report.groups[0].segments_before == 30
    assert folder_ids(out) == list(range(1200))
    on_disk = {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")}
    assert on_disk == set(report.groups[0].new)  # the merged tarballs are deleted
    documents = manifests_of_table(str((out / "events").resolve().as_uri()))
    [record] = [d for d in documents.values() if d.get("replaced")]
    assert record["status"] == "committed" and sorted(record["replaced"]) == sorted(names)


def test_a_rerun_of_a_compacted_write_is_refused_in_a_folder(tmp_path):
    out = tmp_path / "segments"
    for hour in range(3):
        write(rows(hour * 10, 10, start_ms=BASE_MS + hour * 3_600_000), out=out, write_id=f"h{hour}")
    compact("events", output_uri=str(out), target_size="1mb", min_segment_size="1mb", options=OPTIONS)
    before = sorted(p.name for p in (out / "events").glob("*.tar.gz"))
    with pytest.raises(CompactedWriteError, match="write h1 was compacted into"):
        write(rows(10, 10, start_ms=BASE_MS + 3_600_000), out=out, write_id="h1")
    assert sorted(p.name for p in (out / "events").glob("*.tar.gz")) == before
    assert folder_ids(out) == list(range(30))


def three_hourly_writes(tmp_path):
    out = tmp_path / "segments"
    for hour in range(3):
        write(rows(hour * 10, 10, start_ms=BASE_MS + hour * 3_600_000), out=out, write_id=f"h{hour}")
    return out


def after_publish(monkeypatch, marker: str, action) -> None:
    """Run ``action`` once, right after the first embedded publish of segments whose names hold ``marker``."""
    original, done = commit_module.publish_into_directory, []

    def publish(root, table, staged, options=None):
        original(root, table, staged, options)
        if not done and any(marker in name for name in staged):
            done.append(True)
            action()

    monkeypatch.setattr(commit_module, "publish_into_directory", publish)


def test_a_rerun_that_publishes_first_makes_the_compaction_withdraw(tmp_path, monkeypatch):
    """The compaction planned; then the rerun of h1 moved its new tarball in and has not yet looked for rivals
    when the compaction commits: the compaction sees the rerun's segment and withdraws; the rerun finishes."""
    out = three_hourly_writes(tmp_path)
    published, go, errors = threading.Event(), threading.Event(), []

    def pause():
        published.set()
        go.wait(30)

    after_publish(monkeypatch, "_r", pause)  # the rerun's publish (a write's run tag)
    real_commit = run_module.commit_job

    def commit_after_the_rerun_published(job, reports):
        rerun = threading.Thread(target=lambda: _capture(errors, lambda: write(
            rows(10, 10, start_ms=BASE_MS + 3_600_000), out=out, write_id="h1")))
        rerun.start()
        assert published.wait(30)
        try:
            return real_commit(job, reports)
        finally:
            go.set()
            rerun.join(30)

    monkeypatch.setattr(run_module, "commit_job", commit_after_the_rerun_published)
    report = compact("events", output_uri=str(out), target_size="1mb", min_segment_size="1mb", options=OPTIONS)
    [group] = report.groups
    assert "a write replacing rows this compaction merged committed at the same time" in group.error
    assert errors == []  # the rerun committed
    assert folder_ids(out) == list(range(30))


def _capture(errors: list, action) -> None:
    try:
        action()
    except Exception as exc:  # noqa: BLE001
        errors.append(exc)


def test_a_compaction_refuses_a_folder_while_a_publish_is_unfinished(tmp_path, monkeypatch):
    out = three_hourly_writes(tmp_path)
    errors = []
    after_publish(monkeypatch, "_r", lambda: _capture(errors, lambda: compact(  # mid-publish of the rerun of h1
        "events", output_uri=str(out), target_size="1mb", min_segment_size="1mb", options=OPTIONS)))
    write(rows(10, 10, start_ms=BASE_MS + 3_600_000), out=out, write_id="h1")
    [error] = errors
    assert isinstance(error, CompactionError) and "not compacted: unfinished publish" in str(error)
    assert folder_ids(out) == list(range(30))


def test_a_compaction_that_publishes_first_makes_the_rerun_withdraw(tmp_path, monkeypatch):
    out = three_hourly_writes(tmp_path)
    errors = []

    def rerun():
        try:
            write(rows(10, 10, start_ms=BASE_MS + 3_600_000), out=out, write_id="h1")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    after_publish(monkeypatch, "_c", rerun)  # the compaction's publish
    report = compact("events", output_uri=str(out), target_size="1mb", min_segment_size="1mb", options=OPTIONS)
    assert not report.failed
    assert isinstance(errors[0], CompactedWriteError)  # it saw the compacted segment before publishing
    assert folder_ids(out) == list(range(30))


# --- rollup and dedup ----------------------------------------------------------------------------------


def _repeating(first: int, count: int, seed: int) -> pa.RecordBatch:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 6, count).astype(np.int64)
    return pa.record_batch({
        "id": ids, "country": np.array(["US", "DE", "FR"])[rng.integers(0, 3, count)],
        "amount": rng.integers(0, 1000, count) / 4.0, "clicks": rng.integers(0, 50, count).astype(np.int64),
        "ts": pa.array(BASE_MS + rng.integers(0, 4, count) * 60_000, type=pa.timestamp("ms", tz="UTC")),
    }, schema=ARROW)


def _sorted(table: pa.Table) -> list[tuple]:
    return sorted(zip(*(table.column(c).to_pylist() for c in ("id", "country", "ts", "amount", "clicks"))))


def test_rollup_equals_a_group_by_of_the_same_rows(tmp_path):
    out = tmp_path / "segments"
    batches = [_repeating(0, 200, seed) for seed in range(8)]
    for number, batch in enumerate(batches):
        write(batch, out=out, write_id=f"b{number}")
    report = compact("events", output_uri=str(out), mode="rollup", aggregations={"clicks": "MAX"}, options=OPTIONS)
    assert not report.failed
    expected = pa.Table.from_batches(batches).group_by(["id", "country", "ts"]).aggregate(
        [("amount", "sum"), ("clicks", "max")]).rename_columns(["id", "country", "ts", "amount", "clicks"])
    assert _sorted(live_table(out)) == _sorted(expected)
    assert report.groups[0].rows_after == expected.num_rows < 1600


def test_dedup_equals_distinct_rows(tmp_path):
    out = tmp_path / "segments"
    batches = [_repeating(0, 150, seed % 3) for seed in range(6)]  # each batch written twice
    for number, batch in enumerate(batches):
        write(batch, out=out, write_id=f"b{number}")
    report = compact("events", output_uri=str(out), mode="dedup", options=OPTIONS)
    assert not report.failed
    expected = pa.Table.from_batches(batches).group_by(["id", "country", "ts", "amount", "clicks"]).aggregate([])
    assert _sorted(live_table(out)) == _sorted(expected)


def test_bad_rollup_settings_are_one_line_errors(tmp_path):
    out = tmp_path / "segments"
    write(rows(0, 10), out=out, write_id="x")
    with pytest.raises(CompactionError, match="--aggregate country=SUM: 'country' is not a metric column"):
        compact("events", output_uri=str(out), mode="rollup", aggregations={"country": "SUM"}, options=OPTIONS)
    with pytest.raises(CompactionError, match="supported aggregation types are SUM, MIN, MAX"):
        compact("events", output_uri=str(out), mode="rollup", aggregations={"clicks": "DISTINCTCOUNTHLL"},
                options=OPTIONS)
    for mode in ("concat", "dedup"):  # they aggregate nothing: --aggregate was ignored without a word
        with pytest.raises(OptionError, match=rf"--aggregate only applies with --mode rollup \(this compaction's "
                                              rf"mode is {mode}\)"):
            compact("events", output_uri=str(out), mode=mode, aggregations={"clicks": "MAX"}, options=OPTIONS)


def test_a_partitioned_table_with_a_star_tree_gets_one_partition_per_segment_and_its_tree(tmp_path):
    """The table config as it is now (a star-tree, a partition function) is what the new segments are built
    with, whatever the merged segments had: one partition id per new segment, a star-tree in each."""
    out = tmp_path / "segments"
    tiny_segments(8, 50, kind="hourly", out=out, spacing_ms=60_000)  # written without either
    config = json.loads(json.dumps(CONFIG))
    config["tableIndexConfig"]["segmentPartitionConfig"] = {
        "columnPartitionMap": {"id": {"functionName": "Modulo", "numPartitions": 3}}}
    config["tableIndexConfig"]["starTreeIndexConfigs"] = [{
        "dimensionsSplitOrder": ["country"], "functionColumnPairs": ["SUM__clicks", "COUNT__*"],
        "maxLeafRecords": 10}]
    report = compact("events", output_uri=str(out), target_size="1mb", min_segment_size="1mb",
                     options={**OPTIONS, "table-config": json.dumps(config)})
    assert not report.failed and report.groups[0].segments_after == 3
    from pinot_sink.segment.read.reader import open_segment

    seen = set()
    for name in report.groups[0].new:
        with open_segment(out / "events" / f"{name}.tar.gz") as reader:
            partitions = reader.column("id").partitions
            assert len(partitions) == 1 and reader.metadata.star_tree_count == 1
            seen.add(partitions[0])
            assert set(np.asarray(reader.values("id")) % 3) == {partitions[0]}
    assert seen == {0, 1, 2} and folder_ids(out) == list(range(400))


def test_a_compacted_segment_is_what_pinots_builder_makes_of_its_rows(tmp_path):
    """Pinot's own builder, given the compacted segment's rows (tests/fixtures/compaction/README.md), writes
    the same index files; metadata differs only by the name and the provenance line."""
    import tarfile

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "compaction"
    out = tmp_path / "segments"
    tiny_segments(12, 40, kind="hourly", out=out, spacing_ms=60_000)
    [name] = compact("events", output_uri=str(out), target_size="1mb", options=OPTIONS).groups[0].new
    with tarfile.open(out / "events" / f"{name}.tar.gz") as archive:
        extract_all(archive, tmp_path / "ours")
    ours = tmp_path / "ours" / name / "v3"
    for file in ("columns.psf", "index_map"):
        assert (ours / file).read_bytes() == (fixture / file).read_bytes(), file

    def comparable(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith(("segment.name", "custom."))]

    assert comparable((ours / "metadata.properties").read_text()) == comparable(
        (fixture / "metadata.properties").read_text())


def test_an_upsert_table_is_not_compacted(tmp_path):
    out = tmp_path / "segments"
    write(rows(0, 10), out=out, write_id="x")
    config = {**CONFIG, "upsertConfig": {"mode": "FULL"}}
    with pytest.raises(Exception, match="only OFFLINE tables without upsert or dedup are compacted"):
        compact("events", output_uri=str(out), options={**OPTIONS, "table-config": json.dumps(config)})


@pytest.mark.parametrize("codec", ["zstd", "lz4"])
def test_segments_of_any_tarball_codec_are_compacted(tmp_path, codec):
    """A table written with build.tar-codec=zstd / lz4: the compaction reads its segments by their magic
    number as the reader does (it unpacked gzip only), and writes the merged one with the same codec."""
    out = tmp_path / "segments"
    for i in range(5):
        write(rows(i * 40, 40, start_ms=BASE_MS + i * 60_000), out=out, write_id=f"w{i}",
              **{"build.tar-codec": codec})
    report = pinot_sink.compact("events", output_uri=str(out), target_size="1mb", min_segment_size="1mb",
                                options={**OPTIONS, "build.tar-codec": codec})
    assert not report.failed and report.groups[0].segments_before == 5
    assert folder_ids(out) == list(range(200))
    [merged] = list((out / "events").glob("*.tar.gz"))
    assert merged.read_bytes()[:4] == {"zstd": b"\x28\xb5\x2f\xfd", "lz4": b"\x04\x22\x4d\x18"}[codec]


def test_target_size_is_the_untarred_size_and_listed_sizes_are_estimated_from_the_tarballs(tmp_path):
    """``--target-size`` measures a segment untarred (Pinot's 100-500 MB guidance); the plan estimates the
    listed segments' untarred sizes from their tarballs with a ratio measured on one of them."""
    import tarfile

    from pinot_sink.compaction.plan import list_facts
    from pinot_sink.storage.stores import DirectoryStore

    out = tmp_path / "segments"
    tiny_segments(30, 40, kind="stream", out=out, spacing_ms=60_000)
    facts = list_facts(DirectoryStore("events", out.resolve().as_uri()))
    for fact in facts:
        with tarfile.open(out / "events" / f"{fact.name}.tar.gz") as archive:
            untarred = sum(m.size for m in archive if m.isfile())
        assert fact.size > 2 * fact.nbytes  # tiny segments: their metadata files compress well
        assert abs(fact.size - untarred) <= 0.1 * untarred
    report = pinot_sink.compact("events", output_uri=str(out), target_size="24kb", options=OPTIONS)
    sizes = []
    for name in report.groups[0].new:
        with tarfile.open(out / "events" / f"{name}.tar.gz") as archive:
            sizes.append(sum(m.size for m in archive if m.isfile()))
    sizes.sort(reverse=True)
    assert len(sizes) > 1 and all(0.8 * 24 * 1024 <= s <= 24 * 1024 for s in sizes[:-1]), sizes
    again = pinot_sink.compact("events", output_uri=str(out), target_size="24kb", options=OPTIONS)
    assert again.groups == []  # the right-sized ones are left alone (their estimates are not read as small)


def test_a_fixed_name_written_again_is_planned_by_its_tarball_not_an_earlier_record(tmp_path):
    """Each committed write of a ``fixed`` name records it; manifests' names carry no order, so the plan takes
    the tarball's own time range (its bucket) rather than whichever record is listed last."""
    from pinot_sink.compaction.plan import list_facts
    from pinot_sink.storage.stores import DirectoryStore

    out = tmp_path / "segments"
    fixed = {"segment-name.type": "fixed", "segment.name": "events_fixed"}
    write(rows(0, 10, start_ms=BASE_MS), out=out, **fixed)
    (earlier,) = (out / "events" / "_manifests").glob("*.json")
    write(rows(0, 10, start_ms=BASE_MS + 5 * 86_400_000), out=out, **fixed)
    earlier.rename(earlier.with_name("zzzzzzzzzz.json"))  # listed last, whatever the random write tags
    [facts] = list_facts(DirectoryStore("events", out.resolve().as_uri()))
    assert (facts.name, facts.start_ms) == ("events_fixed", BASE_MS + 5 * 86_400_000)


def test_a_target_smaller_than_a_one_row_segment_is_refused_not_a_segment_per_row(tmp_path):
    """A ``--target-size`` that even a one-row segment exceeds cannot be met: the group fails in one line naming
    the option and the smallest segment's size, and the folder keeps its segments (before: a segment per row,
    3 tiny segments of 40 rows became 120)."""
    out = tmp_path / "segments"
    names = tiny_segments(3, 40, kind="hourly", out=out, spacing_ms=60_000)
    report = pinot_sink.compact("events", output_uri=str(out), target_size=1, min_segment_size="1mb", options=OPTIONS)
    assert len(report.failed) == 1
    assert "--target-size is 1 bytes, smaller than a one-row segment of this table (" in report.failed[0].error
    on_disk = {p.name[: -len(".tar.gz")] for p in (out / "events").glob("*.tar.gz")}
    assert on_disk == set(names) and folder_ids(out) == list(range(120))


@pytest.mark.parametrize("mode", ["rollup", "dedup"])
def test_rollup_and_dedup_of_a_multi_value_table_are_refused_before_the_plan(tmp_path, mode):
    """A multi-value column cannot be grouped: refused at once in one line naming it, the dry run too (before:
    the dry run showed a plan, and the run then read every group's segments to fail each group alike)."""
    out = tmp_path / "segments"
    write(rows(0, 10), out=out)
    schema = {**SCHEMA, "dimensionFieldSpecs": SCHEMA["dimensionFieldSpecs"] + [
        {"name": "tags", "dataType": "STRING", "singleValueField": False}]}
    options = {"schema": json.dumps(schema), "table-config": json.dumps(CONFIG)}
    for dry_run in (True, False):
        with pytest.raises(CompactionError, match=f"--mode {mode}: column 'tags' is multi-value"):
            compact("events", output_uri=str(out), mode=mode, dry_run=dry_run, options=options)


def test_history_lists_a_compaction_as_a_compaction(tmp_path):
    """``pinot-sink history`` after a compaction: its runs say ``compaction`` (they said ``append``), and the
    writes it merged say by which run they were replaced."""
    from pinot_sink.history import LIVE, REPLACED, folder_history

    out = tmp_path / "segments"
    for hour in range(3):
        write(rows(hour * 40, 40, start_ms=BASE_MS + hour * 3_600_000), out=out, write_id=f"hourly-{hour}")
    report = pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=OPTIONS)
    assert not report.failed
    history = folder_history(str(out), "events")
    compactions = [r for r in history if r.status == LIVE]
    assert [r.mode for r in compactions] == ["compaction"]
    assert {r.mode for r in history if r.status == REPLACED} == {"append"}


def test_a_given_schema_without_a_column_the_segments_hold_is_refused_not_dropped(tmp_path):
    """``--schema`` (a folder's compaction takes the schema it is given) without a column that merged segments
    hold, a stale schema file say: the compaction would drop that column's values, and servers given the
    segments under the table's real schema would answer its default instead. Refused in one line naming the
    column and the segment; the folder keeps its segments (before: the values were dropped silently)."""
    from tests.datasource.helpers import prepared_job
    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition

    out = tmp_path / "segments"
    wider = {**SCHEMA, "dimensionFieldSpecs": SCHEMA["dimensionFieldSpecs"] + [{"name": "added", "dataType": "STRING"}]}
    for hour in range(2):
        batch = rows(hour * 10, 10, start_ms=BASE_MS + hour * 60_000)
        batch = pa.record_batch(batch.columns + [pa.array(["x"] * 10)], schema=ARROW.append(pa.field("added", pa.string())))
        job = prepared_job(wider, CONFIG, batch.schema, out=out)
        commit_job(job, [write_partition(job, [batch], partition_id=0, task_attempt_id=1)])
    before = sorted(p.name for p in (out / "events").glob("*.tar.gz"))
    report = pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=OPTIONS)
    assert len(report.failed) == 1
    assert "holds column(s) ['added'], which the schema lacks" in report.failed[0].error
    assert sorted(p.name for p in (out / "events").glob("*.tar.gz")) == before
    wide = {"schema": json.dumps(wider), "table-config": json.dumps(CONFIG)}
    assert not pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=wide).failed
    assert pinot_sink.read(out / "events", columns=["added"]).column("added").to_pylist() == ["x"] * 20


@pytest.mark.parametrize("change, said", [
    ({"name": "clicks", "dataType": "INT"}, "column 'clicks' is LONG in the segment but INT in the schema"),
    ({"name": "country", "dataType": "STRING", "singleValueField": False},
     "column 'country' is single-value STRING in the segment but multi-value STRING in the schema")])
def test_a_schema_that_types_a_column_otherwise_is_one_line_naming_it(tmp_path, change, said):
    """A schema (a stale file, a forced change) whose column is stored otherwise than in the merged segments: the
    compaction keeps stored values and converts nothing, so it is refused in one line naming the column, the
    segment and both types (it failed with numpy's "setting an array element with a sequence", or an Arrow
    dictionary type)."""
    out = tmp_path / "segments"
    for hour in range(2):
        write(rows(hour * 10, 10, start_ms=BASE_MS + hour * 60_000), out=out)
    schema = json.loads(json.dumps(SCHEMA))
    for key in ("dimensionFieldSpecs", "metricFieldSpecs"):
        schema[key] = [dict(spec, **change) if spec["name"] == change["name"] else spec for spec in schema[key]]
    options = {"schema": json.dumps(schema), "table-config": json.dumps(CONFIG)}
    report = pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=options)
    assert len(report.failed) == 1 and said in report.failed[0].error and "segment events_" in report.failed[0].error
    assert folder_ids(out) == list(range(20))


def test_a_folder_reads_while_its_compaction_builds(tmp_path, monkeypatch):
    """A folder's compaction records its run before it builds (so a kill then is settled by recover), a
    publishing record that names nothing to publish and nothing to replace: the folder shows exactly its
    committed segments all along, so reading it goes on while the compaction builds, minutes for big buckets
    (it was refused as "a write into this folder is publishing" for the whole compaction)."""
    out = tmp_path / "segments"
    for hour in range(3):
        write(rows(hour * 10, 10, start_ms=BASE_MS + hour * 60_000), out=out)
    seen = []
    real_read_rows = run_module.merge.read_rows

    def reading_meanwhile(*args, **kwargs):
        seen.append(pinot_sink.read(out / "events", columns=["id"]).num_rows)
        return real_read_rows(*args, **kwargs)

    monkeypatch.setattr(run_module.merge, "read_rows", reading_meanwhile)
    report = pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=OPTIONS)
    assert not report.failed and seen == [30, 30, 30]


def test_a_compactions_commit_log_says_compaction_not_append(tmp_path, caplog):
    """The commit's summary of a compaction's group (logged; the CLI shows it) said "(append, ...)", as if the
    merged rows had been added again."""
    out = tmp_path / "segments"
    for hour in range(2):
        write(rows(hour * 10, 10, start_ms=BASE_MS + hour * 60_000), out=out)
    caplog.set_level("INFO", logger="pinot_sink")
    assert not pinot_sink.compact("events", output_uri=str(out), target_size="1mb", options=OPTIONS).failed
    [line] = [r.getMessage() for r in caplog.records if "segment(s) into events (" in r.getMessage()]
    assert "wrote 1 segment(s) into events (compaction, embedded" in line and "append" not in line
