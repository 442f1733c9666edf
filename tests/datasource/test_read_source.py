"""spark.read.format("pinot").load(path) on Spark 4 (real local Spark): the rows Pinot's own reader returned,
a partition per segment (or group), columns, time-range pruning by option and by pushed filters."""
from __future__ import annotations

import shutil
import tarfile
from datetime import datetime, timezone

import pytest
from pyspark.sql import functions as F

import pinot_sink
from pinot_sink.segment.read.tar_source import extract_all
from read_expected import compare, dump_rows, dump_types

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    assert pinot_sink.register(spark) is True


@pytest.mark.parametrize("name", ["all_types_nulls", "timestamp_json"])
def test_spark_reads_what_pinots_reader_read(spark, pinot_built, name):
    folder = pinot_built / name
    df = spark.read.format("pinot").load(str(folder / f"{name}_0.tar.gz"))
    types = dump_types(folder / "dump-columns.jsonl")
    assert sorted(df.columns) == sorted(types)
    assert compare(df.toArrow(), dump_rows(folder / "dump-rows.jsonl"), types) > 0


def _untar(tarball, dest):
    with tarfile.open(tarball) as tar:
        extract_all(tar, dest)
    return next(p for p in dest.iterdir() if p.is_dir())


def test_partitions_columns_and_time_range(spark, pinot_built, tmp_path):
    tarball = pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"
    table = tmp_path / "table"
    table.mkdir()
    for i in range(3):
        shutil.copy(tarball, table / f"seg_{i}.tar.gz")
    df = spark.read.format("pinot").load(str(table))
    assert df.rdd.getNumPartitions() == 3 and df.count() == 4500
    df = spark.read.format("pinot").option("segments-per-partition", "2").option("columns", "id,ts").load(str(table))
    assert df.rdd.getNumPartitions() == 2 and df.columns == ["id", "ts"]
    assert dict(df.dtypes) == {"id": "bigint", "ts": "timestamp"}
    assert df.filter(F.col("ts") < datetime(2023, 11, 15, tzinfo=timezone.utc)).count() == 3 * 2
    pruned = spark.read.format("pinot").option("time-range", "2020-01-01/2021-01-01").load(str(table))
    assert pruned.count() == 0
    chosen = spark.read.format("pinot").schema("value DOUBLE, id LONG").load(str(table))
    assert chosen.columns == ["value", "id"] and chosen.count() == 4500
    two = spark.read.format("pinot").option("columns", "id").load([str(table / "seg_0.tar.gz"), str(tarball)])
    assert two.count() == 3000  # Spark hands a list of paths as the 'paths' option


def test_a_filtered_query_never_prunes_the_next_query_of_the_same_dataframe(spark, pinot_built, tmp_path):
    """With Spark's Python filter pushdown on, a reader that pruned segments by a pushed time filter would be kept
    for the DataFrame's next query (Spark 4.3 does so): ``df.count()`` after a filtered count must still count
    every segment. Two segments of different time ranges; the filter keeps rows of one only."""
    table = tmp_path / "table"
    _untar(pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz", table)  # 2023-11-14 .. 2024-01-16
    events = _untar(pinot_built / "events_indexes" / "events_indexes_0.tar.gz", tmp_path / "x")  # 11-14 .. 11-15
    shutil.move(str(events), str(table / "zz_events"))  # listed second: the first one's ts (TIMESTAMP) is the schema's
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        df = spark.read.format("pinot").option("columns", "ts").load(str(table))
        since = datetime(2023, 11, 16, tzinfo=timezone.utc)
        expected = pinot_sink.read(table / "timestamp_json_0", columns=["ts"]).column("ts").to_pylist()
        assert df.filter(F.col("ts") >= since).count() == sum(t >= since for t in expected) > 1000
        assert df.count() == 1500 + 20000
    finally:
        spark.conf.unset("spark.sql.python.filterPushdown.enabled")


@pytest.mark.slow
def test_time_range_prunes_a_written_table_folder_by_its_write_records(spark, tmp_path):
    """A table folder an embedded write made: its manifest records each segment's time range, so the plan
    gives a partition only to the tarballs ``time-range`` keeps (the first is opened for the schema; no other
    is inflated on the driver); a tarball copied in by hand has no record and is checked in its task."""
    from tests.datasource.helpers import BASE_MS, embedded_writer, events_df

    embedded_writer(events_df(spark, rows=3000, partitions=2), tmp_path, **{"sink.buffer-flush.max-rows": 1000}) \
        .mode("append").save()
    table = tmp_path / "events"
    names = sorted(p.name for p in table.glob("*.tar.gz"))
    assert len(names) == 4  # ts ranges (seconds after BASE_MS): [0, 999] [1000, 1499] [1500, 2499] [2500, 2999]
    window = f"{BASE_MS + 1_500_000}/{BASE_MS + 2_500_000}"  # the third segment's, end exclusive
    df = spark.read.format("pinot").option("time-range", window).load(str(table))
    assert df.rdd.getNumPartitions() == 1 and df.count() == 1000
    shutil.copy(table / names[1], table / "zz_copied_by_hand.tar.gz")  # no record: listed, skipped in its task
    df = spark.read.format("pinot").option("time-range", window).load(str(table))
    assert df.rdd.getNumPartitions() == 2 and df.count() == 1000
    assert spark.read.format("pinot").load(str(table)).count() == 3000 + 500


def test_read_option_errors_are_one_line(spark, pinot_built, tmp_path):
    tarball = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    with pytest.raises(Exception, match="unknown read option 'colums'.*did you mean 'columns'"):
        spark.read.format("pinot").option("colums", "i").load(str(tarball)).schema
    with pytest.raises(Exception, match="no such file or folder"):
        spark.read.format("pinot").load(str(tmp_path / "absent")).schema


def test_pushed_time_filters_skip_whole_segments_and_spark_filters_the_rows(spark, pinot_built, tmp_path,
                                                                            monkeypatch):
    """With the option ``filter-pushdown`` where the pushdown's read is scoped to its scan (not pyspark 4.3,
    which refuses the option: PUSHDOWN_SCOPED_TO_SCAN is then forced here, on the reader Spark's pushdown worker
    would make), ``ts >= x`` skips the segment whose metadata time range
    ends before x: one of two segments decoded, every filter handed back to Spark, and the rows kept by
    Spark's own filter equal to those of the unpruned read."""
    from pyspark.sql.datasource import GreaterThanOrEqual, IsNotNull, LessThan

    from pinot_sink import datasource, reading

    table = tmp_path / "table"
    _untar(pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz", table)  # 2023-11-14 .. 2024-01-16
    events = _untar(pinot_built / "events_indexes" / "events_indexes_0.tar.gz", tmp_path / "x")  # 11-14 .. 11-15
    shutil.move(str(events), str(table / "zz_events"))
    since = datetime(2023, 11, 16, tzinfo=timezone.utc)
    expected = (spark.read.format("pinot").option("columns", "ts").load(str(table))
                .filter(F.col("ts") >= since).toArrow().column("ts").to_pylist())

    source = datasource.PinotDataSource({"path": str(table), "columns": "ts", "filter-pushdown": "true"})
    if not datasource.PUSHDOWN_SCOPED_TO_SCAN:  # pyspark 4.3: refused in one line, rows are never lost
        with pytest.raises(ValueError, match="option 'filter-pushdown': pyspark .* keeps the read a pushdown"):
            source.reader(source.schema())
    monkeypatch.setattr(datasource, "PUSHDOWN_SCOPED_TO_SCAN", True)
    reader = source.reader(source.schema())
    assert isinstance(reader, datasource.PinotPushdownReader)
    filters = [GreaterThanOrEqual(("ts",), since), IsNotNull(("ts",)), LessThan(("other",), 1)]
    assert list(reader.pushFilters(filters)) == filters  # all handed back: Spark filters the rows
    decoded = []
    real = reading.segment_batches
    monkeypatch.setattr(reading, "segment_batches",
                        lambda r, *a, **k: decoded.append(r.metadata.name) or real(r, *a, **k))
    partitions = reader.partitions()
    batches = [batch for partition in partitions for batch in reader.read(partition)]
    assert len(partitions) == 2 and decoded == ["timestamp_json_0"]
    rows = [t for batch in batches for t in batch.column("ts").to_pylist() if t >= since]
    assert rows == expected and len(expected) > 1000

    fresh = datasource.PinotDataSource({"path": str(table), "columns": "ts"})  # an unpushed reader reads all
    decoded.clear()
    unpruned = fresh.reader(fresh.schema())
    assert sum(b.num_rows for p in unpruned.partitions() for b in unpruned.read(p)) == 1500 + 20000
    assert decoded == ["timestamp_json_0", "events_indexes_0"]


def test_time_bounds_of_pushed_filters():
    from pyspark.sql.datasource import EqualTo, GreaterThan, In, LessThanOrEqual

    from pinot_sink.datasource import PUSHDOWN_SCOPED_TO_SCAN, time_bounds
    from pyspark.sql.datasource import DataSourceReader

    assert PUSHDOWN_SCOPED_TO_SCAN == hasattr(DataSourceReader, "pushLimit")
    day = datetime(2024, 3, 1, 0, 0, 0, 500, tzinfo=timezone.utc)  # half a millisecond past: rounded outward
    ms = 1709251200000
    assert time_bounds([GreaterThan(("ts",), day), LessThanOrEqual(("ts",), day)], "ts", "MILLISECONDS") == (ms, ms + 1)
    assert time_bounds([In(("d",), (19000, 19002)), EqualTo(("x",), 5)], "d", "DAYS") == (
        19000 * 86_400_000, 19002 * 86_400_000)
    assert time_bounds([EqualTo(("d",), "2024-03-01")], "d", "DAYS") == (None, None)  # not an instant or number
    assert time_bounds([GreaterThan(("ts",), day)], None, None) == (None, None)


def test_a_time_range_that_keeps_no_segment_reads_no_rows(spark, pinot_built, tmp_path):
    """Every segment outside ``time-range`` by what the driver knows (a folder's metadata, here untarred
    segments): the plan has no partition, and pyspark then hands the reader one bare ``InputPartition(None)`` of
    its own; it reads nothing (it failed: 'InputPartition' object has no attribute 'sources')."""
    folder = _untar(pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz", tmp_path / "untarred")
    df = spark.read.format("pinot").option("time-range", "2020-01-01/2021-01-01").load(str(folder))
    assert df.count() == 0 and df.collect() == []


def test_a_schema_of_your_own_reads_a_column_only_later_tarballs_have(spark, tmp_path):
    """docs/reading.md: the driver opens only the first tarball, so a column only later tarballs have is not in
    the inferred schema: "name it in a schema of your own". That schema was refused ("not in the segments");
    it reads the column, nulls where a segment lacks it."""
    import pyarrow as pa

    from pinot_sink.segment.builder import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns
    from type_mapping.table_config import TableConfig

    def segment(name: str, ids: list[int], added: list[str] | None) -> None:
        specs = [{"name": "id", "dataType": "LONG"}] + ([{"name": "added", "dataType": "STRING"}] if added else [])
        schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": specs})
        data = {"id": pa.array(ids, pa.int64()), **({"added": pa.array(added)} if added else {})}
        build_segment(PinotColumns(pa.table(data), {}), schema,
                      TableConfig.from_json({"tableName": "t", "tableType": "OFFLINE"}, schema), tmp_path, name, 1)

    segment("t_0", [1, 2], None)
    segment("t_1", [3], ["x"])
    df = spark.read.format("pinot").schema("id LONG, added STRING").load(str(tmp_path / "*.tar.gz"))
    assert sorted(tuple(r) for r in df.collect()) == [(1, None), (2, None), (3, "x")]
    wrong = spark.read.format("pinot").schema("id LONG, added INT").load(str(tmp_path / "*.tar.gz"))
    with pytest.raises(Exception, match="column 'added' is int32 in .* but string in segment t_1"):
        wrong.collect()


@pytest.mark.slow
def test_spark_reads_many_pooled_segments_row_for_row(spark, tmp_path):
    """Segments whose dictIds, dictionaries, doc ranges and tar members come from Arrow's pool in the Python
    workers (segment/read/pooled.py; every layout: tests/read_stress_segments.py), read twice over reused
    workers, row for row what ``pinot_sink.read`` returns."""
    from read_stress_segments import build_stress_segment

    for seed in range(4):
        build_stress_segment(tmp_path, seed, 30_000)
    expected = pinot_sink.read(str(tmp_path / "*.tar.gz"))
    keys = [("one_run", "ascending"), ("unique", "ascending")]  # one_run: the segment's seed
    expected = expected.sort_by(keys)
    for _ in range(2):
        got = spark.read.format("pinot").load(str(tmp_path)).toArrow()
        got = got.select(expected.column_names).sort_by(keys)
        assert got.num_rows == 120_000
        for name in expected.column_names:
            assert got.column(name).to_pylist() == expected.column(name).to_pylist(), name


def test_two_builds_of_one_segment_name_in_different_tasks_are_refused(spark, tmp_path):
    """``pinot_sink.read`` refuses two files of one segment name with different CRCs (an older build or another
    table's segment beside the table's); the Spark reader read each in its own task and counted both. Refused
    too: files named by the segment (found on the driver) and a file renamed (found in its task); copies of one
    segment (the same CRC) are read as named, as ``read`` reads them."""
    import pyarrow as pa

    from pinot_sink.segment.builder import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns
    from type_mapping.table_config import TableConfig

    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}]})

    def build(folder, ids):
        built = build_segment(PinotColumns(pa.table({"id": pa.array(ids, pa.int64())}), {}), schema,
                              TableConfig.from_json({"tableName": "t", "tableType": "OFFLINE"}, schema),
                              tmp_path / folder, "t_0", 1)
        return built.tar_path

    first, older = build("a", [1, 2]), build("b", [1, 2, 3])
    renamed = tmp_path / "c" / "renamed.tar.gz"
    renamed.parent.mkdir()
    shutil.copy(older, renamed)
    copy = tmp_path / "d" / "t_0.tar.gz"
    copy.parent.mkdir()
    shutil.copy(first, copy)
    assert spark.read.format("pinot").load([str(first), str(copy)]).count() == 4
    pattern = r"segment 't_0' is read twice with different contents .*read them apart"
    for second in (older, renamed):
        with pytest.raises(Exception, match=pattern):
            spark.read.format("pinot").load([str(first), str(second)]).collect()
