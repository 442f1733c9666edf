"""Our concat compaction against Pinot's SegmentProcessorFramework (CONCAT, set up as MergeRollupTask does) on the
same input segments and table configs: ``tests/fixtures/compaction/spf`` keeps what Pinot made
(``tools/pinot_spf/make_fixture.py``; its README). Byte-equal where docs/compaction.md says so; the differences
it lists (the order of rows whose sorted-column values tie, splitting by size, the numbering of more than ten
partitions) asserted as such."""
from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from pinot_sink.segment import read_segment
from pinot_sink.segment.read.reader import open_segment
from pinot_sink.segment.read.tar_source import extract_all
from tests.compaction import spf_cases as sc

FIXTURE = sc.fixture_dir()
DAY_MS = 86_400_000


def pinot_made(case: str) -> list[dict]:
    return json.loads((FIXTURE / case / "segments.json").read_text())


def ours(tmp_path: Path, config: dict, inputs: list[tuple[str, str]] | None = None, schema: dict = sc.SCHEMA,
         **extra) -> tuple[list[str], Path]:
    """Our compaction of the four input tarballs (by default those of fixture folder ``inputs``) with ``config``
    and ``schema``: the new segments' names in the order they were made, and the folder where they are
    unpacked."""
    root = tmp_path / "table"
    (root / sc.TABLE).mkdir(parents=True)
    for folder, name in inputs or [("inputs", n) for n in sc.INPUTS]:
        shutil.copy(FIXTURE / folder / f"{name}.tar.gz", root / sc.TABLE)
    [group] = sc.compact_folder(root, config, schema, **extra).groups
    assert not group.error, group.error
    assert group.segments_before == len(sc.INPUTS) and group.rows_after == len(sc.INPUTS) * sc.ROWS_EACH
    unpacked = tmp_path / "unpacked"
    for name in group.new:
        with tarfile.open(root / sc.TABLE / f"{name}.tar.gz") as archive:
            extract_all(archive, unpacked)
    return list(group.new), unpacked


def name_parts(name: str) -> tuple[int, int, int]:
    """(min time, max time, sequence id) of a simple segment name ``flights_<min>_<max>[_<postfix>]_<seq>``."""
    parts = name.split("_")
    return int(parts[1]), int(parts[2]), int(parts[-1])


def rows_of(folder: Path) -> list[dict]:
    return read_segment(str(folder)).table.to_pylist()


@pytest.mark.parametrize("case", sc.BYTE_EQUAL)
def test_concat_writes_the_bytes_pinots_segment_processor_writes(tmp_path, case):
    """Same names (given the same postfix), same split into one segment per day (and partition id), and the
    same files with the same bytes: rows in the same order (input order; sorted by a unique sortedColumn), the
    same dictionaries, raw and multi-value forward indexes, inverted, range and bloom indexes, star-tree, null
    vectors, metadata and CRCs. A text time column ("2024-03-01 10:00:00") names segments by date in both;
    columns the schema gained since (some of) the inputs were written are default null values, null, in both."""
    names, unpacked = ours(tmp_path, sc.CASES[case], *sc.inputs_of(case))
    made = pinot_made(case)
    assert names == [m["segment"] for m in made]
    for name in names:
        files = sorted(p.name for p in (FIXTURE / case / name / "v3").iterdir())
        assert sorted(p.name for p in (unpacked / name / "v3").iterdir()) == files
        assert set(sc.FILES) <= set(files)
        for file in files:
            assert (unpacked / name / "v3" / file).read_bytes() == (FIXTURE / case / name / "v3" / file).read_bytes(), \
                (name, file)


def test_rows_tied_on_the_sorted_column_keep_their_input_order_in_ours_only(tmp_path):
    """sortedColumn carrier (six values, many rows each): Pinot's framework sorts the sort fields with an
    unstable quicksort, so rows of one carrier come out in an order of its own; ours keep the order they were
    read in (a stable sort). The same rows in each segment, the same carrier column, the same metadata."""
    names, unpacked = ours(tmp_path, sc.CASES["sorted_carrier"])
    assert names == [m["segment"] for m in pinot_made("sorted_carrier")]
    inputs = pa.concat_tables(read_segment(str(FIXTURE / "inputs" / f"{n}.tar.gz")).table for n in sc.INPUTS)
    days = pc.divide(inputs.column("ts"), DAY_MS)
    for name, day in zip(names, sorted(set(days.to_pylist()))):
        pinot_dir = FIXTURE / "sorted_carrier" / name
        assert (unpacked / name / "v3" / "metadata.properties").read_bytes() == \
            (pinot_dir / "v3" / "metadata.properties").read_bytes()
        mine, theirs = rows_of(unpacked / name), rows_of(pinot_dir)
        assert [r["carrier"] for r in mine] == [r["carrier"] for r in theirs]
        key = lambda r: r["id"]  # noqa: E731 - ids are unique
        assert sorted(mine, key=key) == sorted(theirs, key=key)
        read_order = inputs.filter(pc.equal(days, day)).to_pylist()
        assert mine == sorted(read_order, key=lambda r: r["carrier"])  # Python's sort is stable
        assert theirs != mine


def test_pinot_cuts_a_day_by_record_count_and_ours_by_size_from_the_same_row_order(tmp_path):
    """Pinot's maxNumRecordsPerSegment=200 cuts each day's rows (in the order both sides give them) every 200
    rows, numbering on across days; ours cuts the same order where the target size is reached."""
    whole_names, whole = ours(tmp_path / "whole", sc.CASES["unsorted"])
    order = {name_parts(n)[0] // DAY_MS: rows_of(whole / n) for n in whole_names}
    made = pinot_made("split_200")
    assert [name_parts(m["segment"])[2] for m in made] == list(range(len(made)))
    at = {day: 0 for day in order}
    for m in made:
        low, high, _ = name_parts(m["segment"])
        day = low // DAY_MS
        assert high // DAY_MS == day
        piece = order[day][at[day]:at[day] + m["rows"]]
        assert (low, high) == (min(r["ts"] for r in piece), max(r["ts"] for r in piece))
        at[day] += m["rows"]
        assert m["rows"] == sc.SPLIT_RECORDS or at[day] == len(order[day])
    assert at == {day: len(rows) for day, rows in order.items()}

    names, cut = ours(tmp_path / "cut", sc.CASES["unsorted"], target_size="16kb")
    counts = {}
    for name in names:
        day = name_parts(name)[0] // DAY_MS
        counts.setdefault(day, []).append(len(rows_of(cut / name)))
        start = sum(counts[day][:-1])
        assert rows_of(cut / name) == order[day][start:start + counts[day][-1]]
    assert sorted(counts) == sorted(order) and all(sum(counts[d]) == len(order[d]) for d in order)
    assert any(c != sc.SPLIT_RECORDS for c in sum(counts.values(), [])[:-1])


def test_pinot_numbers_more_than_ten_partitions_in_text_order_and_ours_in_number_order(tmp_path):
    """12 Modulo partitions of id: the same 24 segments (a day and a partition id each, the same rows and time
    range), but Pinot's framework keys its partitions by text ("<bucket>_10" before "<bucket>_2"), so its
    sequence ids follow that order; ours follow (day, partition id)."""
    names, unpacked = ours(tmp_path, sc.PARTITIONS_12)
    mine = {}
    for name in names:
        low, high, seq = name_parts(name)
        with open_segment(unpacked / name) as reader:
            [partition] = reader.column("id").partitions
            rows = reader.metadata.total_docs
        mine[(low // DAY_MS, partition)] = (seq, low, high, rows)
    theirs = {}
    for m in pinot_made("partitioned_12"):
        low, high, seq = name_parts(m["segment"])
        [partition] = m["partitions"]["id"]
        theirs[(low // DAY_MS, partition)] = (seq, low, high, m["rows"])
    assert {k: v[1:] for k, v in mine.items()} == {k: v[1:] for k, v in theirs.items()}
    assert [k for k, _ in sorted(mine.items(), key=lambda kv: kv[1][0])] == sorted(mine)
    assert [k for k, _ in sorted(theirs.items(), key=lambda kv: kv[1][0])] == sorted(theirs,
                                                                                    key=lambda k: (k[0], str(k[1])))


def test_pinot_filters_stored_rows_again_and_ours_keeps_every_row(tmp_path):
    """A filterConfig added to the table config after the rows were ingested: Pinot's framework runs the
    ingestion transformers, the filter included, over the stored rows and drops those it matches (carriers
    starting with A); a concat compaction of ours never changes rows."""
    names, unpacked = ours(tmp_path, sc.FILTERED)
    inputs = pa.concat_tables(read_segment(str(FIXTURE / "inputs" / f"{n}.tar.gz")).table for n in sc.INPUTS)
    kept = pc.invert(pc.starts_with(inputs.column("carrier"), "A"))
    made = pinot_made("filtered")
    assert sum(m["rows"] for m in made) == pc.sum(kept.cast(pa.int64())).as_py() < inputs.num_rows
    assert sum(len(rows_of(unpacked / n)) for n in names) == inputs.num_rows


def test_segments_written_by_pinot_sink_add_only_the_provenance_line(tmp_path):
    """The same rows as four pinot-sink writes (not Pinot-built segments): the compaction writes what Pinot's
    framework wrote for the unsorted case, except the custom.pinotSinkSourceWrites line in
    metadata.properties, which lists the four writes, and so the segment CRC in creation.meta (the creation
    time and the data CRC are Pinot's)."""
    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition
    from tests.datasource.helpers import prepared_job

    arrow = pa.schema([("id", pa.int64()), ("carrier", pa.string()), ("origin", pa.string()),
                       ("tags", pa.list_(pa.string())), ("legs", pa.list_(pa.int32())), ("note", pa.string()),
                       ("arrDelay", pa.int32()), ("distance", pa.float64()), ("ts", pa.int64())])
    root = tmp_path / "table"
    for index in range(len(sc.INPUTS)):
        batch = pa.RecordBatch.from_pylist(sc.input_rows(index), schema=arrow)
        job = prepared_job(sc.SCHEMA, sc.INPUT_CONFIG, arrow, out=root, **{"table-name": sc.TABLE,
                                                                            "write.id": f"hour-{index}"})
        commit_job(job, [write_partition(job, [batch], partition_id=0, task_attempt_id=1)])
    [group] = sc.compact_folder(root, sc.CASES["unsorted"]).groups
    assert not group.error and group.new == [m["segment"] for m in pinot_made("unsorted")]
    for name in group.new:
        with tarfile.open(root / sc.TABLE / f"{name}.tar.gz") as archive:
            extract_all(archive, tmp_path / "unpacked")
        mine, theirs = tmp_path / "unpacked" / name / "v3", FIXTURE / "unsorted" / name / "v3"
        for file in ("columns.psf", "index_map"):
            assert (mine / file).read_bytes() == (theirs / file).read_bytes(), file
        lines = (mine / "metadata.properties").read_text().splitlines()
        [provenance] = [line for line in lines if line.startswith("custom.pinotSinkSourceWrites")]
        assert len(provenance.split("=", 1)[1].split()) == len(sc.INPUTS)
        assert [line for line in lines if line != provenance] == \
            (theirs / "metadata.properties").read_text().splitlines()
        ours_meta, pinot_meta = (mine / "creation.meta").read_bytes(), (theirs / "creation.meta").read_bytes()
        assert ours_meta[8:] == pinot_meta[8:] and ours_meta[:8] != pinot_meta[:8]


def test_a_time_column_the_segments_lack_is_refused(tmp_path):
    """Other columns the schema gained are filled with defaults (gained_columns above); a time column the
    segments lack is not made up: the group fails, naming it, and the table keeps its segments."""
    schema = {**sc.SCHEMA, "dateTimeFieldSpecs": sc.SCHEMA["dateTimeFieldSpecs"] + [
        {"name": "ts2", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]}
    config = sc.table_config(None)
    config["segmentsConfig"]["timeColumnName"] = "ts2"
    root = tmp_path / "table"
    (root / sc.TABLE).mkdir(parents=True)
    for name in sc.INPUTS:
        shutil.copy(FIXTURE / "inputs" / f"{name}.tar.gz", root / sc.TABLE)
    [group] = sc.compact_folder(root, config, schema).groups
    assert "has no column 'ts2', the table's time column" in group.error
    assert sorted(p.name for p in (root / sc.TABLE).glob("*.tar.gz")) == [f"{n}.tar.gz" for n in sc.INPUTS]
