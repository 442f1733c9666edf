"""``pinot_sink.read`` / ``read_batches``: row for row what Pinot's own reader returned, on every segment Pinot
built in the shared fixtures and on the quickstart-like segments kept in tests/fixtures/pinot_read; tarballs
and folders, local and on an fsspec store, folders, globs, time-range pruning, the Arrow types."""
from __future__ import annotations

import gzip
import json
import shutil
import tarfile
from pathlib import Path

import fsspec
import pyarrow as pa
import pytest

import pinot_sink
from pinot_sink.reading import PinotReadError, list_segments
from pinot_sink.segment.read.segment_metadata import SegmentFormatError
from pinot_sink.segment.read.tar_source import extract_all
from type_mapping.errors import PinotSinkError
from type_mapping.table_config import TableConfig
from read_expected import compare, dump_rows, dump_types

SHARED_CASES = ["all_types_dict", "all_types_dict_v1", "all_types_nulls", "raw_codecs", "events_indexes",
                "events_partitioned", "ingestion_transforms", "startree", "startree_default", "timestamp_json"]
OWN = Path(__file__).resolve().parent / "fixtures" / "pinot_read"
OWN_CASES = sorted(p.name for p in OWN.iterdir() if p.is_dir()) if OWN.is_dir() else []


@pytest.mark.parametrize("name", SHARED_CASES)
def test_read_equals_pinots_reader_on_the_shared_fixtures(name, pinot_built):
    folder = pinot_built / name
    table = pinot_sink.read(folder / f"{name}_0.tar.gz")
    types = dump_types(folder / "dump-columns.jsonl")
    assert sorted(table.column_names) == sorted(types)
    assert compare(table, dump_rows(folder / "dump-rows.jsonl"), types) > 0


@pytest.mark.parametrize("name", OWN_CASES)
def test_read_equals_pinots_reader_on_quickstart_segments(name):
    """Segments Pinot's builder made for tables like its quickstarts (tests/fixtures/pinot_read/README.md)."""
    folder = OWN / name
    table = pinot_sink.read(next(folder.glob("*.tar.gz")))
    types = dump_types(folder / "dump-columns.jsonl")
    assert sorted(table.column_names) == sorted(types)
    assert compare(table, dump_rows(folder / "dump-rows.jsonl"), types) > 0


def test_arrow_types(pinot_built):
    schema = pinot_sink.read(pinot_built / "all_types_nulls" / "all_types_nulls_0.tar.gz").schema
    assert {f.name: f.type for f in schema} == {
        "b": pa.bool_(), "bd": pa.string(), "by": pa.binary(), "d": pa.float64(), "day": pa.int32(),
        "f": pa.float32(), "i": pa.int32(), "j": pa.string(), "l": pa.int64(), "s": pa.string(),
        "ts": pa.timestamp("ms", tz="UTC"), "md": pa.list_(pa.float64()), "mf": pa.list_(pa.float32()),
        "mi": pa.list_(pa.int32()), "ml": pa.list_(pa.int64()), "ms": pa.list_(pa.string())}


def _untar(tarball: Path, dest: Path) -> Path:
    with tarfile.open(tarball) as tar:
        extract_all(tar, dest)
    return next(p for p in dest.iterdir() if p.is_dir())


def test_a_folder_a_glob_and_untarred_segments_read_the_same(pinot_built, tmp_path):
    tarball = pinot_built / "all_types_nulls" / "all_types_nulls_0.tar.gz"
    expected = pinot_sink.read(tarball)
    untarred = _untar(tarball, tmp_path / "untarred")
    assert pinot_sink.read(untarred).equals(expected)
    assert pinot_sink.read(untarred / "v3").equals(expected)  # the v3 folder itself
    table_folder = tmp_path / "table"
    table_folder.mkdir()
    for i in range(3):
        shutil.copy(tarball, table_folder / f"seg_{i}.tar.gz")
    (table_folder / "_staging").mkdir()
    shutil.copy(tarball, table_folder / "_staging" / "never_published.tar.gz")
    (table_folder / "notes.txt").write_text("not a segment")
    assert pinot_sink.read(table_folder).num_rows == 3 * expected.num_rows
    assert pinot_sink.read(str(table_folder / "seg_[01].tar.gz")).num_rows == 2 * expected.num_rows
    assert pinot_sink.read([table_folder / "seg_0.tar.gz", untarred]).num_rows == 2 * expected.num_rows


def test_a_table_folder_reads_only_what_its_write_records_say_is_live(pinot_built, tmp_path):
    tarball = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    for name in ("live", "replaced", "failed"):
        shutil.copy(tarball, tmp_path / f"{name}.tar.gz")
    (tmp_path / "_manifests").mkdir()
    (tmp_path / "_manifests" / "w1_r1.json").write_text(json.dumps(
        {"status": "committed", "segments": [{"name": "live"}], "replaced": ["replaced"]}))
    (tmp_path / "_manifests" / "w2_r2.json").write_text(json.dumps({"status": "aborted", "pending": ["failed"]}))
    assert [Path(s.path).name for s in list_segments(tmp_path)] == ["live.tar.gz"]
    (tmp_path / "_manifests" / "w3_r3.json").write_text("{trunc")
    with pytest.raises(PinotReadError, match="cannot read the write record"):
        pinot_sink.read(tmp_path)


@pytest.mark.parametrize("codec", ["zstd", "lz4", "tar"])
def test_tarballs_of_every_codec_are_read_by_their_magic_number(codec, pinot_built, tmp_path):
    import cramjam

    tarball = pinot_built / "raw_codecs" / "raw_codecs_0.tar.gz"
    plain = gzip.decompress(tarball.read_bytes())
    packed = {"zstd": lambda b: bytes(cramjam.zstd.compress(b)), "lz4": lambda b: bytes(cramjam.lz4.compress(b)),
              "tar": lambda b: b}[codec](plain)
    target = tmp_path / "raw_codecs_0.tar.gz"  # the wrong suffix on purpose: the content decides
    target.write_bytes(packed)
    assert pinot_sink.read(target).equals(pinot_sink.read(tarball))


@pytest.mark.parametrize("codec", ["zstd", "lz4", "gzip"])
def test_a_cut_or_corrupt_tarball_of_any_codec_is_one_clear_error(codec, pinot_built, tmp_path):
    """The streaming decoders (Arrow's for LZ4 / zstd, ISA-L's for gzip) fail as one line naming the file."""
    import cramjam

    plain = gzip.decompress((pinot_built / "raw_codecs" / "raw_codecs_0.tar.gz").read_bytes())
    packed = {"zstd": lambda b: bytes(cramjam.zstd.compress(b)), "lz4": lambda b: bytes(cramjam.lz4.compress(b)),
              "gzip": gzip.compress}[codec](plain)
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(packed[: len(packed) * 2 // 3])
    with pytest.raises(SegmentFormatError, match="cut.tar.gz: unsafe or unreadable tarball"):
        pinot_sink.read(cut)
    corrupt = tmp_path / "corrupt.tar.gz"
    corrupt.write_bytes(packed[:8] + bytes(len(packed) - 8))
    with pytest.raises(SegmentFormatError, match="corrupt.tar.gz: unsafe or unreadable tarball"):
        pinot_sink.read(corrupt)


def test_not_a_tarball_is_one_clear_error(tmp_path):
    bad = tmp_path / "x.tar.gz"
    bad.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(SegmentFormatError, match="not a segment tarball"):
        pinot_sink.read(bad)
    corrupt = tmp_path / "corrupt.tar.gz"
    corrupt.write_bytes(b"\x1f\x8b\x08\x00 not deflate at all, not at all")
    with pytest.raises(SegmentFormatError, match="corrupt.tar.gz: unsafe or unreadable tarball"):
        pinot_sink.read(corrupt)
    with pytest.raises(PinotReadError, match="no such file or folder"):
        pinot_sink.read(tmp_path / "absent.tar.gz")
    with pytest.raises(PinotReadError, match="no Pinot segment"):
        pinot_sink.read(tmp_path / "empty_folder" if (tmp_path / "empty_folder").mkdir() is None else None)


def test_a_deep_store_folder_says_to_name_the_live_segments(pinot_built, tmp_path):
    """A Pinot deep store (controller.data.dir/<table>/) names segment files without a suffix and keeps the
    replaced ones: its folder is not read whole, and the error says how to read it (it said "no Pinot segment
    found", about a folder of segments). Each file, named, reads."""
    deep = tmp_path / "events_partitioned"
    deep.mkdir()
    tarball = pinot_built / "events_partitioned" / "events_partitioned_0.tar.gz"
    shutil.copy(tarball, deep / "events_partitioned_0")
    with pytest.raises(PinotReadError, match=r"1 file\(s\) without a tarball suffix \(events_partitioned_0\): a Pinot "
                                             r"deep store .* name the live segments' files one by one"):
        pinot_sink.read(deep)
    # a glob over it (deep/events_*, what a user types next) said "no Pinot segment found" though it matched
    with pytest.raises(PinotReadError, match=r"1 file\(s\) without a tarball suffix \(events_partitioned_0\): a Pinot "
                                             r"deep store .* name the live segments' files one by one"):
        pinot_sink.read(deep / "events_*")
    assert pinot_sink.read(deep / "events_partitioned_0").num_rows == pinot_sink.read(tarball).num_rows


def test_a_remote_store_with_storage_options(pinot_built, tmp_path):
    """An fsspec store (memory://) given the options a write takes; a tarball and an untarred folder."""
    fs = fsspec.filesystem("memory")
    tarball = pinot_built / "events_partitioned" / "events_partitioned_0.tar.gz"
    fs.pipe("/bucket/t/events_partitioned_0.tar.gz", tarball.read_bytes())
    untarred = _untar(tarball, tmp_path)
    fs.put(str(untarred) + "/", "/bucket/f/seg/", recursive=True)
    try:
        expected = pinot_sink.read(tarball)
        assert pinot_sink.read("memory://bucket/t/events_partitioned_0.tar.gz").equals(expected)
        assert pinot_sink.read("memory://bucket/t").equals(expected)
        assert pinot_sink.read("memory://bucket/f/seg", **{"storage.skip_instance_cache": "true"}).equals(expected)
    finally:
        fs.rm("/bucket", recursive=True)


def test_columns_and_time_range(pinot_built, tmp_path):
    """Pruning keeps what Pinot's time selection keeps: segments whose [start, end] meet [from, to)."""
    tarball = pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"  # ts from 2023-11-14T22:13:20.819Z
    table = pinot_sink.read(tarball, columns=["ts", "id"])
    assert table.column_names == ["ts", "id"] and table.num_rows == 1500
    assert pinot_sink.read(tarball, time_range="2023-11-01/2023-11-14T22:13:20.819Z").num_rows == 0
    assert pinot_sink.read(tarball, time_range="2023-11-01/2023-11-14T22:13:20.820Z").num_rows == 1500
    assert pinot_sink.read(tarball, time_range=(1705394901671, 1705394901672)).num_rows == 1500
    empty = pinot_sink.read(tarball, columns=["id"], time_range=(31_536_000_000, 31_536_001_000))  # 1971: no segment
    assert empty.num_rows == 0 and empty.schema == pa.schema([("id", pa.int64())])
    with pytest.raises(PinotReadError, match="time_range"):
        pinot_sink.read(tarball, time_range="yesterday")
    with pytest.raises(PinotReadError, match=r"columns \['nope'\]"):
        pinot_sink.read(tarball, columns=["id", "nope"])


def test_segments_with_other_columns_are_joined_with_nulls(pinot_built):
    a = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    b = pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"
    table = pinot_sink.read([a, b], columns=["ts", "i"])
    assert table.num_rows == 300 + 1500
    assert table.column("i").null_count >= 1500  # timestamp_json has no column i


def test_read_batches_is_bounded_and_equal(pinot_built):
    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    batches = list(pinot_sink.read_batches([tarball, tarball], batch_rows=3000))  # named twice, read once
    assert max(b.num_rows for b in batches) == 3000 and len(batches) == 7
    assert pa.Table.from_batches(batches).equals(pinot_sink.read(tarball))


def test_big_decimals_read_as_pinots_query_results_print_them(tmp_path):
    """toPlainString (``1000``, ``0.000000000123``), not the exponent form the stored text may hold (``1E+3``)."""
    from pinot_sink.segment.builder import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    schema = PinotSchema.from_json({"schemaName": "d", "dimensionFieldSpecs": [
        {"name": "bd", "dataType": "BIG_DECIMAL"}, {"name": "i", "dataType": "INT"}]})
    texts = ["1E+3", "1.23E-10", "-4.5", "0", "12345678901234567890.5"]
    columns = PinotColumns(pa.table({"bd": pa.array(texts), "i": pa.array(range(5), pa.int32())}), {})
    built = build_segment(columns, schema, TableConfig.from_json({"tableName": "d", "tableType": "OFFLINE"}, schema), tmp_path, "d_0", 1)
    assert pinot_sink.read(built.tar_path).column("bd").to_pylist() == [
        "1000", "0.000000000123", "-4.5", "0", "12345678901234567890.5"]
    assert pinot_sink.read(built.tar_path, columns=["i"]).column_names == ["i"]


def test_read_batches_holds_one_segment_at_a_time(pinot_built, tmp_path, monkeypatch):
    """Each tarball is loaded, decoded and let go before the next is opened: at any batch, one segment's
    files (with no in-memory budget, every member spills to a temp folder, which shows them)."""
    import tempfile

    from pinot_sink.segment.read import tar_source

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(tar_source, "MEMORY_BUDGET", 0)
    tarball = pinot_built / "all_types_nulls" / "all_types_nulls_0.tar.gz"
    for i in range(3):
        shutil.copy(tarball, tmp_path / f"seg_{i}.tar.gz")
    seen = []
    for batch in pinot_sink.read_batches(str(tmp_path / "seg_*.tar.gz"), batch_rows=100):
        seen.append(len(list(scratch.iterdir())))
        assert batch.num_rows <= 100
    assert seen == [1] * 9 and not list(scratch.iterdir())


def test_sorted_columns_read_from_their_runs(tmp_path):
    """A sorted column's values come from its doc ranges: every value once (the dictionary itself), runs of
    numbers (repeated) and of strings (taken); all equal to the rows written."""
    from pinot_sink.segment.builder import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    schema = PinotSchema.from_json({"schemaName": "s", "dimensionFieldSpecs": [
        {"name": "unique", "dataType": "LONG"}, {"name": "runs", "dataType": "INT"},
        {"name": "text_runs", "dataType": "STRING"}, {"name": "text_unique", "dataType": "STRING"}]})
    rows = 5000
    data = pa.table({"unique": pa.array([i * 3 for i in range(rows)], pa.int64()),
                     "runs": pa.array([i // 7 for i in range(rows)], pa.int32()),
                     "text_runs": pa.array([f"k{i // 100:03d}" for i in range(rows)]),
                     "text_unique": pa.array([f"u{i:05d}" for i in range(rows)])})
    built = build_segment(PinotColumns(data, {}), schema, TableConfig.from_json({"tableName": "s", "tableType": "OFFLINE"}, schema), tmp_path,
                          "s_0", 1)
    from pinot_sink.segment.read.reader import open_segment

    with open_segment(built.tar_path) as reader:
        assert all(reader.column(n).sorted for n in data.column_names)
        assert reader.dict_ids("runs").to_pylist() == [i // 7 for i in range(rows)]
    assert pinot_sink.read(built.tar_path).select(data.column_names).equals(data)
    # batches that cut runs (each batch from the runs that meet it)
    batches = pa.Table.from_batches(list(pinot_sink.read_batches(built.tar_path, batch_rows=333)))
    assert batches.select(data.column_names).equals(data)


def _one_column_segment(folder, name, data_type, values, arrow_type):
    from pinot_sink.segment.builder import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "x", "dataType": data_type}, {"name": f"only_{name}", "dataType": "INT"}]})
    data = pa.table({"x": pa.array(values, arrow_type), f"only_{name}": pa.array([1] * len(values), pa.int32())})
    built = build_segment(PinotColumns(data, {}), schema, TableConfig.from_json({"tableName": "t", "tableType": "OFFLINE"}, schema),
                          folder, name, 1)
    return Path(built.tar_path)


def test_segments_typing_a_column_differently_are_one_clear_error(tmp_path):
    """The union of the segments' columns is checked: ``x`` INT in one, STRING in another names both segments,
    in read, read_batches and the Spark reader's plan (folders on the driver, tarballs in its tasks)."""
    from pinot_sink.reading import plan_read, read_group

    ints = _one_column_segment(tmp_path / "a", "seg_a", "INT", [1, 2], pa.int32())
    texts = _one_column_segment(tmp_path / "b", "seg_b", "STRING", ["u", "v"], pa.string())
    union = pinot_sink.read([ints, _one_column_segment(tmp_path / "c", "seg_c", "INT", [3], pa.int32())])
    assert set(union.column_names) == {"x", "only_seg_a", "only_seg_c"} and union.num_rows == 3
    message = "column 'x' is int32 in segment seg_a but string in segment seg_b"
    with pytest.raises(PinotReadError, match=message):
        pinot_sink.read([ints, texts])
    with pytest.raises(PinotReadError, match=message):
        list(pinot_sink.read_batches([ints, texts]))
    assert pinot_sink.read([ints, texts], columns=["only_seg_a"]).num_rows == 2  # x left out: no conflict
    plan = plan_read({"paths": json.dumps([str(ints), str(texts)])})  # a tarball's metadata: in its task
    assert set(plan.schema.names) == {"x", "only_seg_a"} and plan.origins == {"x": "seg_a", "only_seg_a": "seg_a"}
    with pytest.raises(PinotReadError, match=message):
        list(read_group(plan, plan.sources))
    folders = []
    for tarball in (ints, texts):
        with tarfile.open(tarball) as tar:
            extract_all(tar, tarball.parent / "untarred")
        folders.append(str(next((tarball.parent / "untarred").iterdir())))
    with pytest.raises(PinotReadError, match=message):  # folders: on the driver
        plan_read({"paths": json.dumps(folders)})
    plan = plan_read({"paths": json.dumps(folders), "columns": "only_seg_a,only_seg_b"})
    assert plan.schema.names == ["only_seg_a", "only_seg_b"]


def test_a_column_widened_int_to_long_reads_in_either_order(tmp_path):
    """A column retyped INT -> LONG: ``read`` and the Spark plan settle the schema before reading a row, so the
    wider type wins whichever segment comes first; read_batches streams in the first segment's type, so it
    reads a LONG segment first, and names both segments the other way round."""
    from pinot_sink.reading import plan_read

    ints = _one_column_segment(tmp_path / "a", "seg_a", "INT", [1, 2], pa.int32())
    longs = _one_column_segment(tmp_path / "b", "seg_b", "LONG", [2**40], pa.int64())
    for order in ([ints, longs], [longs, ints]):
        table = pinot_sink.read(order)
        assert table.schema.field("x").type == pa.int64()
        assert sorted(table.column("x").to_pylist()) == [1, 2, 2**40]
    folders = []
    for tarball in (ints, longs):
        with tarfile.open(tarball) as tar:
            extract_all(tar, tarball.parent / "untarred")
        folders.append(str(next((tarball.parent / "untarred").iterdir())))
    assert plan_read({"paths": json.dumps(folders)}).schema.field("x").type == pa.int64()
    assert sum(b.num_rows for b in pinot_sink.read_batches([longs, ints])) == 3
    with pytest.raises(PinotReadError, match="column 'x' is int32 in segment seg_a but int64 in segment seg_b"):
        list(pinot_sink.read_batches([ints, longs]))


@pytest.mark.parametrize("name", SHARED_CASES)
def test_read_batches_decodes_each_batch_alone_and_equals_read(name, pinot_built):
    """Batches of odd sizes (not whole bytes of dictIds, runs of a sorted column cut) give read's rows; a
    single-value dictionary column is never decoded whole for them."""
    from pinot_sink.segment.read.reader import open_segment

    tarball = pinot_built / name / f"{name}_0.tar.gz"
    whole = pinot_sink.read(tarball)
    for rows in (997, 5):
        assert pa.Table.from_batches(list(pinot_sink.read_batches(tarball, batch_rows=rows))).equals(whole)
    with open_segment(tarball) as reader:
        docs = reader.metadata.total_docs
        for column in reader.column_names:
            pieces = [reader.values_slice(column, start, start + 333) for start in range(0, docs, 333)]
            assert pa.concat_arrays(pieces).equals(reader.values(column)) if pieces else docs == 0
            meta = reader.column(column)
            if meta.single_value and meta.forward_index_encoding == "DICTIONARY" and pieces:
                reader._cache.pop((column, "stored"), None)
                reader.values_slice(column, docs // 2, docs)
                assert (column, "stored") not in reader._cache


def test_the_spark_plan_gives_no_partition_to_folders_outside_the_time_range(pinot_built, tmp_path):
    """Segment folders' metadata is read on the driver: those the time range excludes get no partition; a
    tarball's time range is checked in its task (it is listed)."""
    from pinot_sink.reading import plan_read, read_group

    folders = []
    for name in ("timestamp_json", "events_indexes"):  # 2023-11-14 .. 2024-01-16; 2023-11-14 .. 11-15
        with tarfile.open(pinot_built / name / f"{name}_0.tar.gz") as tar:
            extract_all(tar, tmp_path / name)
        folders.append(str(tmp_path / name / f"{name}_0"))
    tarball = str(pinot_built / "events_indexes" / "events_indexes_0.tar.gz")
    options = {"paths": json.dumps(folders + [tarball]), "columns": "ts", "time-range": "2023-12-01/2024-01-01"}
    plan = plan_read(options)
    assert [s.path for s in plan.sources] == [folders[0], tarball]
    rows = sum(t.num_rows for t in read_group(plan, plan.sources))
    assert rows == pinot_sink.read(folders[0]).num_rows == 1500  # the tarball is skipped in its task
    assert len(plan_read({**options, "time-range": "2020-01-01/2020-02-01"}).sources) == 1  # the tarball only


def test_several_segments_are_read_at_once_in_the_order_given(pinot_built, tmp_path, monkeypatch):
    """``read`` of many segments reads them on a pool (two threads here, whatever the machine), yet the rows
    come in the order the segments are listed, even when the first one finishes last; time-range pruning,
    the columns' union and their types are as when read one at a time."""
    import threading
    import time

    from pinot_sink import reading

    names = ["timestamp_json", "events_indexes", "all_types_dict", "timestamp_json"]
    for i, name in enumerate(names):
        shutil.copy(pinot_built / name / f"{name}_0.tar.gz", tmp_path / f"seg_{i}.tar.gz")
    monkeypatch.setattr(reading, "default_threads", lambda: 1)
    expected = {key: pinot_sink.read(tmp_path, **kwargs) for key, kwargs in (
        ("all", {}), ("ts", {"columns": ["ts"]}), ("pruned", {"time_range": "2023-12-01/2024-02-01"}))}
    # timestamp_json reaches 2024-01-16; the other two end in 2023-11
    assert expected["pruned"].num_rows == 2 * 1500 and expected["all"].num_rows > 3000
    threads, original = [], reading._read_segment

    def slow_first(source, *args):
        threads.append(threading.current_thread().name)
        if source.path.endswith("seg_0.tar.gz"):
            time.sleep(0.3)
        return original(source, *args)

    monkeypatch.setattr(reading, "default_threads", lambda: 2)
    monkeypatch.setattr(reading, "SIDE_BY_SIDE_BYTES", 1)  # the fixtures are small
    monkeypatch.setattr(reading, "_read_segment", slow_first)
    assert pinot_sink.read(tmp_path).equals(expected["all"])
    assert len(threads) == 4 and all(t.startswith("pinot-read") for t in threads)
    assert pinot_sink.read(tmp_path, columns=["ts"]).equals(expected["ts"])
    assert pinot_sink.read(tmp_path, time_range="2023-12-01/2024-02-01").equals(expected["pruned"])


def test_among_many_segments_the_first_bad_one_is_the_error(pinot_built, tmp_path, monkeypatch):
    from pinot_sink import reading

    monkeypatch.setattr(reading, "default_threads", lambda: 2)
    monkeypatch.setattr(reading, "SIDE_BY_SIDE_BYTES", 1)
    tarball = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    for i in range(4):
        shutil.copy(tarball, tmp_path / f"seg_{i}.tar.gz")
    data = tarball.read_bytes()
    (tmp_path / "seg_1.tar.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "seg_3.tar.gz").write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(SegmentFormatError, match="seg_1.tar.gz: unsafe or unreadable tarball"):
        pinot_sink.read(tmp_path)


def test_small_segments_start_no_thread_pool(pinot_built, tmp_path, monkeypatch):
    """A lone segment below ``THREADED_DECODE_ROWS`` is decoded on the calling thread, and segments below
    ``SIDE_BY_SIDE_BYTES`` are read one after the other: a pool costs more than they take; large ones get
    one (this machine's CPUs aside: two threads here)."""
    import concurrent.futures

    from pinot_sink import reading

    monkeypatch.setattr(reading, "default_threads", lambda: 2)
    pools = []
    real = concurrent.futures.ThreadPoolExecutor
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", lambda *a, **k: pools.append(a) or real(*a, **k))
    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    expected = pinot_sink.read(tarball)
    assert pools == []
    monkeypatch.setattr(reading, "THREADED_DECODE_ROWS", 1)
    assert pinot_sink.read(tarball).equals(expected)
    assert len(pools) == 1
    pools.clear()  # small segments are read one after the other; large ones side by side
    monkeypatch.setattr(reading, "THREADED_DECODE_ROWS", 1 << 40)
    assert pinot_sink.read([tarball, untarred := _untar(tarball, tmp_path / "u")]).num_rows == 2 * expected.num_rows
    assert pools == [] and untarred.is_dir()
    monkeypatch.setattr(reading, "SIDE_BY_SIDE_BYTES", 1)
    assert pinot_sink.read([tarball, untarred]).num_rows == 2 * expected.num_rows
    assert len(pools) == 1


def test_the_spark_plan_prunes_tarballs_by_their_write_records(pinot_built, tmp_path, monkeypatch):
    """A table folder's committed write records give each tarball's time range: the plan drops those outside
    ``time-range`` without opening them; a tarball without a record, or whose size is not the recorded one
    (not the bytes the record describes), gets a partition and is checked in its task."""
    from pinot_sink import reading
    from pinot_sink.reading import plan_read, read_group

    events = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"  # 2023-11-14 .. 11-15
    stamps = pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"  # 2023-11-14 .. 2024-01-16
    table = tmp_path / "table"
    table.mkdir()
    for name, tarball in (("a", events), ("b", stamps), ("c", events), ("d", events), ("e", events)):
        shutil.copy(tarball, table / f"{name}.tar.gz")
    ranges = {}
    for tarball in (events, stamps):
        with reading.open_source(reading.SegmentSource("file", str(tarball), "tarball")) as reader:
            ranges[tarball] = (reader.metadata.start_time_ms, reader.metadata.end_time_ms, reader.metadata.total_docs)

    def entry(name, tarball, size=None):
        start, end, rows = ranges[tarball]
        return {"name": name, "rows": rows, "tar_bytes": size or tarball.stat().st_size,
                "start_time_ms": start, "end_time_ms": end}

    (table / "_manifests").mkdir()
    (table / "_manifests" / "w1_r1.json").write_text(json.dumps({"status": "committed", "segments": [
        entry("a", events), entry("b", stamps), entry("c", events), entry("d", events, size=123)]}))
    opened, real_open = [], reading.open_source
    monkeypatch.setattr(reading, "open_source", lambda source, *a, **k: opened.append(source.path) or real_open(
        source, *a, **k))
    plan = plan_read({"path": str(table), "time-range": "2023-12-01/2024-01-01"})
    # a: opened for the schema, out by its metadata; b: kept by its record; c: out by its record, unopened;
    # d: its record is for other bytes, e: has none: both listed, checked in their tasks
    assert [Path(s.path).name for s in plan.sources] == ["b.tar.gz", "d.tar.gz", "e.tar.gz"]
    assert opened == [str(table / "a.tar.gz")]
    assert sum(t.num_rows for t in read_group(plan, plan.sources)) == 1500
    whole = plan_read({"path": str(table)})
    assert len(whole.sources) == 5


def test_read_skips_tarballs_its_time_range_drops_by_their_write_records(pinot_built, tmp_path, monkeypatch):
    """``read`` and ``read_batches`` of a table folder with a time range open no tarball its write record puts
    outside the range (but the first, for the columns); the rows are those of a read that opens them all."""
    from pinot_sink import reading

    events = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"  # 2023-11-14 .. 11-15
    stamps = pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"  # 2023-11-14 .. 2024-01-16
    table = tmp_path / "table"
    table.mkdir()
    for name, tarball in (("a", stamps), ("b", events), ("c", stamps), ("d", events)):
        shutil.copy(tarball, table / f"{name}.tar.gz")
    window = "2023-12-01/2024-01-01"
    expected = pinot_sink.read(table, columns=["ts"], time_range=window)  # no records yet: every tarball opened
    assert expected.num_rows == 2 * 1500
    meta = {}
    for tarball in (events, stamps):
        with reading.open_source(reading.SegmentSource("file", str(tarball), "tarball")) as reader:
            meta[tarball] = reader.metadata
    (table / "_manifests").mkdir()
    (table / "_manifests" / "w1_r1.json").write_text(json.dumps({"status": "committed", "segments": [
        {"name": name, "rows": meta[t].total_docs, "tar_bytes": t.stat().st_size,
         "start_time_ms": meta[t].start_time_ms, "end_time_ms": meta[t].end_time_ms}
        for name, t in (("a", stamps), ("b", events), ("c", stamps), ("d", events))]}))
    opened, real_open = [], reading.open_source
    monkeypatch.setattr(reading, "open_source", lambda source, *a, **k: opened.append(Path(source.path).name)
                        or real_open(source, *a, **k))
    assert pinot_sink.read(table, columns=["ts"], time_range=window).equals(expected)
    assert sorted(opened) == ["a.tar.gz", "c.tar.gz"]
    opened.clear()
    batches = list(pinot_sink.read_batches(table, columns=["ts"], time_range=window))
    assert pa.Table.from_batches(batches).equals(expected) and opened == ["a.tar.gz", "c.tar.gz"]
    opened.clear()
    assert pinot_sink.read(table, columns=["ts"], time_range="2020-01-01/2020-02-01").num_rows == 0
    assert opened == ["a.tar.gz"]  # the first, for the columns


def test_a_fixed_name_written_again_is_not_pruned_by_its_earlier_write_record(tmp_path):
    """``segment-name.type=fixed`` writes replace the tarball under one name, and each committed write record
    keeps its own entry for that name. Their manifests' names carry no order: an earlier write's entry whose
    tarball happened to have the same size (creation time fixed here, as gzip sizes often coincide) must not
    give the tarball now in the folder its time range, else a time-range read drops its rows."""
    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition
    from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, DAY_MS, SCHEMA, rows
    from tests.datasource.helpers import prepared_job

    def write(out: Path, day: int, name: str = "events_fixed") -> int:
        job = prepared_job(SCHEMA, CONFIG, ARROW, out=out, **{
            "segment-name.type": "fixed", "segment.name": name, "creation-time": "2024-01-01"})
        commit_job(job, [write_partition(job, [rows(0, 50, start_ms=BASE_MS + day * DAY_MS)], partition_id=0,
                                         task_attempt_id=1)])
        return (out / "events" / "events_fixed.tar.gz").stat().st_size

    sizes: dict[int, int] = {}
    for day in range(40):  # two days whose tarballs have one size
        size = write(tmp_path / f"probe{day}", day)
        if size in sizes:
            first, second = sizes[size], day
            break
        sizes[size] = day
    else:
        pytest.skip("no two days' tarballs of one size")
    out = tmp_path / "out"
    write(out, first)
    (earlier,) = (out / "events" / "_manifests").glob("*.json")
    write(out, second)
    earlier.rename(earlier.with_name("zzzzzzzzzz.json"))  # listed last, whatever the random write tags
    write(out, 100, name="another")  # listed first: read opens the first tarball for the columns
    day = (BASE_MS + second * DAY_MS, BASE_MS + (second + 1) * DAY_MS)
    assert pinot_sink.read(out / "events", columns=["id"], time_range=day).num_rows == 50
    back = (second - first) * DAY_MS
    assert pinot_sink.read(out / "events", columns=["id"], time_range=(day[0] - back, day[1] - back)).num_rows == 0


def test_a_named_column_only_segments_outside_the_time_range_have_reads_as_nulls(tmp_path):
    """``read(columns=[...], time_range=...)`` of a table folder does not open the tarballs its write records put
    outside the range; a named column that only those have (added to the table later) is still a column of the
    table: nulls in the rows read, as without the time range, not an error saying no segment has it."""
    from pinot_sink.commit import commit_job
    from pinot_sink.task import write_partition
    from tests.compaction.helpers import ARROW, BASE_MS, CONFIG, DAY_MS, SCHEMA, rows
    from tests.datasource.helpers import prepared_job

    out = tmp_path / "out"
    job = prepared_job(SCHEMA, CONFIG, ARROW, out=out)
    commit_job(job, [write_partition(job, [rows(0, 20)], partition_id=0, task_attempt_id=1)])
    wider = {**SCHEMA, "dimensionFieldSpecs": SCHEMA["dimensionFieldSpecs"] + [{"name": "added", "dataType": "STRING"}]}
    later = rows(100, 10, start_ms=BASE_MS + 5 * DAY_MS)
    later = pa.record_batch(later.columns + [pa.array(["x"] * 10)], schema=ARROW.append(pa.field("added", pa.string())))
    job = prepared_job(wider, CONFIG, later.schema, out=out)
    commit_job(job, [write_partition(job, [later], partition_id=0, task_attempt_id=1)])

    everything = pinot_sink.read(out / "events", columns=["id", "added"])
    assert everything.num_rows == 30 and everything.column("added").null_count == 20
    first_day = (BASE_MS, BASE_MS + DAY_MS)
    table = pinot_sink.read(out / "events", columns=["id", "added"], time_range=first_day)
    assert table.num_rows == 20 and table.schema == everything.schema and table.column("added").null_count == 20
    with pytest.raises(PinotReadError, match=r"columns \['nope'\]: in no segment"):
        pinot_sink.read(out / "events", columns=["id", "nope"], time_range=first_day)


def test_a_misspelt_argument_is_an_error_not_a_storage_option(pinot_built):
    """Keywords ``read`` does not know are fsspec storage options, which a local path ignores: ``colums=`` (or
    Spark's ``time-range``) read every column of every segment, silently. A keyword that is close to one of
    ``read``'s own is refused naming it; storage options (``key=``, ``storage.key``) still pass."""
    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    with pytest.raises(PinotReadError, match=r"read: unknown argument 'colums' \(did you mean 'columns'\?\)"):
        pinot_sink.read(tarball, colums=["ts"])
    with pytest.raises(PinotReadError, match=r"unknown argument 'time-range' \(did you mean 'time_range'\?\)"):
        list(pinot_sink.read_batches(tarball, **{"time-range": "2024-01-01/2024-01-02"}))
    with pytest.raises(PinotReadError, match=r"unknown argument 'batch_row' \(did you mean 'batch_rows'\?\)"):
        list(pinot_sink.read_batches(tarball, batch_row=10))
    assert pinot_sink.read(tarball, columns=["ts"], key="k", **{"storage.secret": "s"}).column_names == ["ts"]


def test_a_misspelt_storage_option_is_an_error_not_passed_to_fsspec(pinot_built):
    """``storage.auto_mkdirs`` / ``skip_instance_cach`` reached fsspec, which takes unknown keys silently: a key
    close to one the path's file system takes is refused naming both, by the write's rule (storage.layout)."""
    from pinot_sink.reading import plan_read

    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    said = r"storage option 'auto_mkdirs' is not one LocalFileSystem \(file://\) takes: did you mean 'auto_mkdir'\?"
    with pytest.raises(PinotSinkError, match=said):
        pinot_sink.read(tarball, **{"storage.auto_mkdirs": "true"})
    with pytest.raises(PinotSinkError, match=said):
        list(pinot_sink.read_batches(tarball, auto_mkdirs=True))
    with pytest.raises(PinotSinkError, match=said):
        plan_read({"path": str(tarball), "storage.auto_mkdirs": "true"})  # spark.read.format("pinot")
    with pytest.raises(PinotSinkError, match=r"'skip_instance_cach' is not one MemoryFileSystem \(memory://\) takes"):
        pinot_sink.read("memory://bucket/f/seg", **{"storage.skip_instance_cach": "true"})
    assert pinot_sink.read(tarball, columns=["ts"], **{"storage.auto_mkdir": "true"}).column_names == ["ts"]


def test_a_bad_batch_rows_is_an_error_naming_it(pinot_built):
    """``batch_rows=-1`` yielded no batch (every row dropped, silently) and ``0`` failed inside ``range()``."""
    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    for bad in (0, -1, "10", 2.5, True):
        with pytest.raises(PinotReadError, match=r"read_batches: batch_rows must be a whole number of at least 1"):
            list(pinot_sink.read_batches(tarball, batch_rows=bad))
    assert sum(b.num_rows for b in pinot_sink.read_batches(tarball, batch_rows=1)) == pinot_sink.read(tarball).num_rows


def test_a_time_range_in_epoch_seconds_is_an_error_not_an_empty_read(pinot_built):
    """Epoch seconds given where millis are asked landed in January 1970 and matched no segment: an empty
    table, silently. Before 1971 Pinot keeps no segment time, so numbers there are refused, naming the unit."""
    from pinot_sink.reading import plan_read

    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    for seconds in ("1700000000/1800000000", (1700000000, 1800000000)):
        with pytest.raises(PinotReadError, match=r"time_range: .* is epoch millis before 1971 .* epoch seconds\?"):
            pinot_sink.read(tarball, time_range=seconds)
        with pytest.raises(PinotReadError, match=r"time_range: .* epoch seconds\?"):
            list(pinot_sink.read_batches(tarball, time_range=seconds))
    with pytest.raises(PinotReadError, match=r"option 'time-range': .* epoch seconds\?"):
        plan_read({"path": str(tarball), "time-range": "1700000000/1800000000"})
    assert pinot_sink.read(tarball, time_range="1970-01-01/1970-01-02").num_rows == 0  # dates say what they mean


def test_a_bad_time_range_is_not_offered_dynamic(pinot_built):
    """'dynamic' is an overwrite's time range, not a read's: the error does not offer it, and refuses it."""
    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    for text in ("bad", "dynamic"):
        with pytest.raises(PinotReadError, match="is not START/END") as error:
            pinot_sink.read(tarball, time_range=text)
        assert "nor 'dynamic'" not in str(error.value)


def test_read_batches_says_why_a_column_of_later_segments_is_refused(tmp_path):
    """``read_batches`` takes its columns from the first segment it opens: a named column only later segments
    have (one the table gained) is refused saying so and what to do, not as if no segment had it."""
    old = _one_column_segment(tmp_path / "a", "seg_a", "INT", [1, 2], pa.int32())
    new = _one_column_segment(tmp_path / "b", "seg_b", "INT", [3], pa.int32())
    with pytest.raises(PinotReadError, match=r"columns \['only_seg_b'\]: not in segment seg_a, the first read_batches "
                                             r"opened .*list a segment that has them first, or use read"):
        list(pinot_sink.read_batches([old, new], columns=["x", "only_seg_b"]))
    assert sum(b.num_rows for b in pinot_sink.read_batches([new, old], columns=["x", "only_seg_b"])) == 3


def test_the_spark_plan_says_how_to_read_a_column_only_later_tarballs_have(tmp_path):
    """The Spark reader's driver opens only the first tarball (the others' metadata sits at their end): a
    ``columns`` option naming a column only later tarballs have is refused saying so and the way out, a schema
    of your own, which reads it (nulls where a segment lacks it)."""
    from pinot_sink.reading import plan_read

    old = _one_column_segment(tmp_path / "a", "seg_a", "INT", [1, 2], pa.int32())
    new = _one_column_segment(tmp_path / "b", "seg_b", "INT", [3], pa.int32())
    with pytest.raises(PinotReadError, match=r"columns \['only_seg_b'\]: not in segment seg_a .*the driver opens only "
                                             r"the first tarball.*\.schema\('only_seg_b <type>, \.\.\.'\)"):
        plan_read({"paths": json.dumps([str(old), str(new)]), "columns": "x,only_seg_b"})


def test_two_builds_of_one_segment_name_are_refused(tmp_path):
    """A table holds one segment of a name. Two files of one name with different contents (another table's or
    an older build's segment mixed in) were read side by side, both counted: one error naming both files.
    Copies of one segment (the same CRC) are still read as named."""
    first = _one_column_segment(tmp_path / "a", "seg", "INT", [1, 2], pa.int32())
    copy = tmp_path / "copy" / first.name
    copy.parent.mkdir()
    shutil.copy(first, copy)
    other = _one_column_segment(tmp_path / "b", "seg", "INT", [3, 4, 5], pa.int32())
    assert pinot_sink.read([first, copy]).num_rows == 4
    assert sum(b.num_rows for b in pinot_sink.read_batches([first, copy])) == 4
    pattern = r"segment 'seg' is read twice with different contents .*a[/\\]seg.*b[/\\]seg.*read them apart"
    with pytest.raises(PinotReadError, match=pattern):
        pinot_sink.read([first, other])
    with pytest.raises(PinotReadError, match=pattern):
        list(pinot_sink.read_batches([first, other]))


def test_no_paths_is_an_error_saying_what_to_give():
    """``read(None)`` was a TypeError from inside the listing, ``read([])`` 'no Pinot segment found in ' with
    nothing after 'in'."""
    for nothing, said in ((None, "got None"), ([], "the list of paths is empty")):
        with pytest.raises(PinotReadError, match=rf"give the segments to read: .*{said}"):
            pinot_sink.read(nothing)
        with pytest.raises(PinotReadError, match=rf"give the segments to read: .*{said}"):
            list(pinot_sink.read_batches(nothing))


def test_no_column_named_is_an_error_and_a_blank_option_reads_all(pinot_built):
    """``columns=[]`` read a table of no column and 0 rows (every row gone, silently); Spark's
    ``.option("columns", "")`` planned no column. A blank option is an option not given: every column."""
    from pinot_sink.reading import plan_read

    tarball = pinot_built / "events_indexes" / "events_indexes_0.tar.gz"
    with pytest.raises(PinotReadError, match=r"columns: none named; leave columns out \(None\)"):
        pinot_sink.read(tarball, columns=[])
    everything = pinot_sink.read(tarball)
    assert pinot_sink.read(tarball, columns=" ").column_names == everything.column_names
    assert plan_read({"path": str(tarball), "columns": ""}).schema.names == everything.column_names
