"""build_segment behaviour: determinism, atomicity, options, errors and table-config parsing."""
from __future__ import annotations

import gzip
import os
import tarfile

import numpy as np
import pyarrow as pa
import pytest

from fixture_loader import read_tarball
from pinot_sink.segment import BuildOptions, build_segment
from pinot_sink.segment.builder import SegmentBuildError, validate_segment_name
from pinot_sink.segment.properties import parse_properties
from pinot_sink.segment.index_policy import plan_indexes
from pinot_sink.segment.index_writers import raw_codec_id
from pinot_sink.segment.table_config import TableConfig, TableConfigError, parse_table_config
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns

SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [
        {"name": "name", "dataType": "STRING"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
    ],
    "metricFieldSpecs": [{"name": "amount", "dataType": "DOUBLE"}],
    "dateTimeFieldSpecs": [{"name": "day", "dataType": "INT", "format": "1:DAYS:EPOCH", "granularity": "1:DAYS"}],
})
CONFIG = {"tableName": "t_OFFLINE", "segmentsConfig": {"timeColumnName": "day"},
          "tableIndexConfig": {"invertedIndexColumns": ["tags"]}}
T0 = 1_700_000_000_000


def _columns(names=("b", "a", "c", "a"), days=(18000, 18002, 18001, 18000), amounts=(1.5, 2.0, -1.0, 0.0)):
    table = pa.table({
        "name": pa.array(list(names)),
        "tags": pa.array([["x"], ["y", "x"], ["z"], ["x", "x"]][: len(names)], pa.list_(pa.string())),
        "amount": pa.array(list(amounts), pa.float64()),
        "day": pa.array(list(days), pa.int32()),
    })
    return PinotColumns(table, {})


def _entries(out_dir):
    return sorted(p for p in os.listdir(out_dir))


def test_same_input_same_bytes(tmp_path):
    first = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / "a", "seg_0", T0)
    second = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / "b", "seg_0", T0)
    assert first.tar_path.read_bytes() == second.tar_path.read_bytes()
    assert first.crc == second.crc and first.data_crc == second.data_crc
    # a later creation time changes only creation.meta (and the tar mtimes)
    third = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / "c", "seg_0", T0 + 5000)
    assert third.crc == first.crc
    assert read_tarball(third.tar_path)["v3/columns.psf"] == read_tarball(first.tar_path)["v3/columns.psf"]
    assert third.tar_path.read_bytes() != first.tar_path.read_bytes()


def test_tarball_members(tmp_path):
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert built.tar_bytes == built.tar_path.stat().st_size
    raw = built.tar_path.read_bytes()
    assert raw[:2] == b"\x1f\x8b" and raw[4:8] == b"\0\0\0\0"  # gzip, mtime 0
    with tarfile.open(built.tar_path) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == ["seg_0", "seg_0/v3", "seg_0/v3/columns.psf", "seg_0/v3/creation.meta",
                                         "seg_0/v3/index_map", "seg_0/v3/metadata.properties"]
    assert members[0].isdir() and members[1].isdir()
    assert gzip.decompress(raw)[:6] == b"seg_0/"  # the first header names the directory with its slash
    assert {(m.uid, m.gid, m.uname, m.gname, m.mtime) for m in members} == {(0, 0, "", "", T0 // 1000)}
    assert _entries(tmp_path) == ["seg_0.tar.gz"]


def test_built_segment_fields_and_metadata(tmp_path):
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert (built.name, built.rows, built.time_column, built.start_time, built.end_time, built.time_unit) == (
        "seg_0", 4, "day", 18000, 18002, "DAYS")
    assert built.creation_time_ms == T0 and built.dir_path is None and built.segment_version == "v3"
    props = parse_properties(read_tarball(built.tar_path)["v3/metadata.properties"])
    assert props["segment.table.name"] == "t"  # raw name, no _OFFLINE
    assert props["segment.dimension.column.names"] == ["name", "tags"]
    assert props["segment.metric.column.names"] == "amount"
    assert props["column.amount.defaultNullValue"] == "0.0"  # metric default
    assert props["column.tags.maxRowLengthInBytes"] == "2"
    assert props["column.name.isSorted"] == "false"
    with tarfile.open(built.tar_path) as tar:
        index_map = tar.extractfile("seg_0/v3/index_map").read().decode()
    assert "tags.inverted_index.startOffset" in index_map


def test_creation_time_defaults_to_now(tmp_path):
    import time

    before = int(time.time() * 1000)
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0")
    assert before <= built.creation_time_ms <= int(time.time() * 1000)


def test_keep_dir_and_v1(tmp_path):
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0,
                          BuildOptions(keep_dir=True, segment_version="v1"))
    assert built.dir_path == tmp_path / "seg_0"
    names = sorted(os.listdir(built.dir_path))
    assert "name.sv.unsorted.fwd" in names and "tags.bitmap.inv" in names and "creation.meta" in names
    assert read_tarball(built.tar_path) == {n: (built.dir_path / n).read_bytes() for n in names}
    # rebuilding replaces the earlier directory
    again = build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(keep_dir=True))
    assert sorted(os.listdir(again.dir_path)) == ["v3"]


def test_sorted_input_gets_sorted_forward_index(tmp_path):
    columns = _columns(names=("a", "a", "b", "c"))
    built = build_segment(columns, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(segment_version="v1",
                                                                                       keep_dir=True))
    assert (built.dir_path / "name.sv.sorted.fwd").read_bytes() == bytes.fromhex("00000000 00000001"
                                                                                  "00000002 00000002"
                                                                                  "00000003 00000003")


def test_sorted_column_is_never_inverted(tmp_path):
    config = {**CONFIG, "tableIndexConfig": {"invertedIndexColumns": ["name"], "sortedColumn": ["name"]}}
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0,
                          BuildOptions(segment_version="v1", keep_dir=True))
    names = os.listdir(built.dir_path)
    assert "name.sv.sorted.fwd" in names and "name.bitmap.inv" not in names
    # rows moved with the sort: the days follow their names (b, a, c, a) -> a, a, b, c
    props = parse_properties((built.dir_path / "metadata.properties").read_bytes())
    assert props["column.name.isSorted"] == "true"


def test_sort_can_be_disabled(tmp_path):
    config = {**CONFIG, "tableIndexConfig": {"sortedColumn": ["name"]}}
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0,
                          BuildOptions(sort_by_sorted_column=False))
    props = parse_properties(read_tarball(built.tar_path)["v3/metadata.properties"])
    assert props["column.name.isSorted"] == "false"


def test_null_vectors(tmp_path):
    columns = _columns()
    columns.null_masks["amount"] = np.array([False, True, False, False])
    config = {**CONFIG, "tableIndexConfig": {"nullHandlingEnabled": True}}
    built = build_segment(columns, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(segment_version="v1",
                                                                                       keep_dir=True))
    assert (built.dir_path / "amount.bitmap.nullvalue").exists()
    props = parse_properties((built.dir_path / "metadata.properties").read_bytes())
    assert props["column.name.isNonNull"] == "true" and "column.amount.isNonNull" not in props



@pytest.mark.parametrize("threads", [1, 3])
def test_release_input_gives_the_same_bytes_and_lets_go_of_the_rows(tmp_path, threads):
    # A sorted, null-masked, multi-value input: each column is taken out of the rows as it is built.
    config = {**CONFIG, "tableIndexConfig": {"sortedColumn": ["name"], "invertedIndexColumns": ["tags"],
                                             "nullHandlingEnabled": True}}

    def columns():
        rows = _columns()
        rows.null_masks["amount"] = np.array([False, True, False, True])
        return rows

    kept = build_segment(columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "kept", "seg_0", T0, BuildOptions(threads=threads))
    rows = columns()
    released = build_segment(rows, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "released", "seg_0", T0,
                             BuildOptions(threads=threads, release_input=True))
    assert released.tar_path.read_bytes() == kept.tar_path.read_bytes()
    assert rows.num_rows == 0 and rows.null_masks == {}  # the builder held the only references left



@pytest.mark.parametrize("largest_first", [False, True])
def test_release_input_raw_columns_gathered_by_their_writer_give_the_same_bytes(tmp_path, monkeypatch, largest_first):
    # With release_input, a raw number column that only its forward index reads is not reordered whole: its
    # values stay in input order and the writer gathers them by the segment's order, a block at a time (blocks
    # of 2 rows here: PASS_THROUGH amount, LZ4 day), and its isSorted is checked the same way. The columns
    # largest first or smallest first: the same bytes as a build that reorders the values first.
    from pinot_sink.segment import builder, index_writers, raw_forward
    monkeypatch.setattr(raw_forward, "_GATHER_BLOCK", 2)
    monkeypatch.setattr(builder, "_GATHER_BLOCK", 2)
    gathered = []
    original = index_writers.write_raw_forward
    monkeypatch.setattr(index_writers, "write_raw_forward",
                        lambda values, spec, *a, order=None, **k: gathered.append((spec.name, order is not None))
                        or original(values, spec, *a, order=order, **k))
    config = TableConfig.from_json({**CONFIG, "tableIndexConfig": {
        "sortedColumn": ["name"], "noDictionaryColumns": ["amount", "day"]}}, SCHEMA)
    names, days, amounts = ("b", "a", "c", "a"), (18000, 18002, 18001, 18003), (1.5, 2.0, -1.0, 7.25)
    kept = build_segment(_columns(names, days, amounts), SCHEMA, config, tmp_path / "kept", "seg_0", T0,
                         BuildOptions(threads=1))
    assert sorted(gathered) == [("amount", False), ("day", False)]
    gathered.clear()
    released = build_segment(_columns(names, days, amounts), SCHEMA, config, tmp_path / "released", "seg_0", T0,
                             BuildOptions(threads=1, release_input=True, largest_first=largest_first,
                                          narrow_order=largest_first))  # the compaction's: int32 order too
    assert sorted(gathered) == [("amount", True), ("day", True)]
    assert released.tar_path.read_bytes() == kept.tar_path.read_bytes()


def test_release_input_lets_go_of_a_dictionary_columns_rows_before_its_indexes(tmp_path, monkeypatch):
    # Writers of a dictionary column read its dictionary: its rows go before the reorder and the indexes. A
    # partitioned column keeps them (its partitions are computed from the values), a raw column too.
    from pinot_sink.segment import builder
    seen = {}
    original = builder._build_column
    monkeypatch.setattr(builder, "_build_column",
                        lambda ctx: seen.__setitem__(ctx.spec.name, len(ctx.values)) or original(ctx))
    config = {**CONFIG, "tableIndexConfig": {
        "sortedColumn": ["name"], "invertedIndexColumns": ["tags"], "noDictionaryColumns": ["amount"],
        "segmentPartitionConfig": {"columnPartitionMap": {"day": {"functionName": "Modulo", "numPartitions": 3}}}}}
    kept = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "kept", "seg_0", T0, BuildOptions())
    assert set(seen.values()) == {4}
    released = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "released", "seg_0", T0,
                             BuildOptions(release_input=True))
    assert seen == {"name": 0, "tags": 0, "day": 4, "amount": 4}
    assert released.tar_path.read_bytes() == kept.tar_path.read_bytes()
    assert released.partitions == kept.partitions == {"day": [0, 1, 2]}


def test_raw_number_column_sorted_in_input_but_not_in_the_segment(tmp_path):
    # amount is raw and ascending in the input; sorting the rows by name unsorts it. Its distinct values
    # come from the input order (cheap), its isSorted from the segment's: the same segment as from rows
    # handed over already in the segment's order.
    config = {**CONFIG, "tableIndexConfig": {"sortedColumn": ["name"], "noDictionaryColumns": ["amount"]}}
    unsorted_rows = _columns(amounts=(-1.0, 0.0, 1.5, 2.0))
    in_segment_order = PinotColumns(unsorted_rows.table.take([1, 3, 0, 2]), {})
    built = build_segment(unsorted_rows, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "a", "seg_0", T0,
                          BuildOptions(segment_version="v1", keep_dir=True))
    again = build_segment(in_segment_order, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "b", "seg_0", T0,
                          BuildOptions(segment_version="v1", keep_dir=True))
    props = parse_properties((built.dir_path / "metadata.properties").read_bytes())
    assert props["column.amount.isSorted"] == "false" and props["column.amount.cardinality"] == "4"
    assert props["column.amount.minValue"] == "-1.0" and props["column.amount.maxValue"] == "2.0"
    assert built.tar_path.read_bytes() == again.tar_path.read_bytes()


# --- failures leave nothing behind ----------------------------------------------------------------------


def test_bad_column_leaves_no_file(tmp_path):
    columns = _columns(amounts=(1.0, float("nan"), 2.0, 3.0))
    with pytest.raises(SegmentBuildError, match="column 'amount'.*NaN"):
        build_segment(columns, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(keep_dir=True))
    assert _entries(tmp_path) == []


@pytest.mark.parametrize("encoding", ["dictionary", "raw"])
def test_empty_multi_value_row_names_column_and_row(tmp_path, encoding):
    # Rows sorted by name (b, a, c, a -> rows 1, 3, 0, 2): the error still names the input's row.
    config = {**CONFIG, "tableIndexConfig": {"sortedColumn": ["name"]} if encoding == "dictionary" else
              {"sortedColumn": ["name"], "noDictionaryColumns": ["tags"]}}
    columns = _columns()
    table = columns.table.set_column(1, "tags", pa.array([["x"], ["y"], [], ["x"]], pa.list_(pa.string())))
    with pytest.raises(SegmentBuildError, match="column 'tags': row 2 "):
        build_segment(PinotColumns(table, {}), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)
    assert _entries(tmp_path) == []



@pytest.mark.parametrize("tags, row", [
    (pa.array([["x"], ["y"], ["z", None], ["x"]], pa.list_(pa.string())), 2),
    (pa.array([["x"]] * 20 + [[None]] + [["y"]] * 3, pa.list_(pa.string())).slice(18, 4), 2),  # sliced lists
    (pa.chunked_array([pa.array([["x"], ["y"]]), pa.array([["q"], [None, "x"]])]), 3),  # second chunk
])
def test_null_element_in_a_list_names_column_and_row(tmp_path, tags, row):
    # The type mapping drops null elements; rows that still hold one are refused, not stored as "" or a crash
    # (however many distinct values the list holds).
    columns = _columns()
    table = columns.table.set_column(1, "tags", tags)
    with pytest.raises(SegmentBuildError, match=f"column 'tags': row {row} holds a null element"):
        build_segment(PinotColumns(table, {}), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert _entries(tmp_path) == []


def test_failure_while_writing_tarball_cleans_temp_file(tmp_path, monkeypatch):
    import pinot_sink.segment.tarball as tarball

    def broken_info(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(tarball, "_info", broken_info)
    with pytest.raises(OSError, match="disk full"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert _entries(tmp_path) == []


def test_empty_input_is_an_error(tmp_path):
    empty = PinotColumns(_columns().table.slice(0, 0), {})
    with pytest.raises(SegmentBuildError, match="no rows"):
        build_segment(empty, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert _entries(tmp_path) == []


def test_wrong_stored_type_is_an_error(tmp_path):
    table = _columns().table.set_column(3, "day", pa.array([1, 2, 3, 4], pa.int64()))
    with pytest.raises(SegmentBuildError, match="column 'day'"):
        build_segment(PinotColumns(table, {}), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)


@pytest.mark.parametrize("name", ["a/b", "a:b", 'a"b', "a*b", "x__y__z__w", "x__y__z__w__v", ""])
def test_segment_names_pinot_rejects(name):
    with pytest.raises(SegmentBuildError):
        validate_segment_name(name)


def test_segment_name_with_two_separators_is_fine():
    validate_segment_name("events__2024-01-01__0")


def test_time_range_check(tmp_path):
    columns = _columns(days=(0, 1, 2, 3))  # 1970: before Pinot's valid range
    with pytest.raises(SegmentBuildError, match="time column 'day'.*1971"):
        build_segment(columns, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert _entries(tmp_path) == []
    built = build_segment(columns, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(time_check=False))
    assert (built.start_time, built.end_time) == (0, 3)
    config = {**CONFIG, "ingestionConfig": {"segmentTimeValueCheck": False}}
    assert build_segment(columns, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_1", T0).start_time == 0


def test_simple_date_time_column(tmp_path):
    schema = PinotSchema.from_json({"schemaName": "t", "dateTimeFieldSpecs": [
        {"name": "d", "dataType": "STRING", "format": "1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd", "granularity": "1:DAYS"}]})
    columns = PinotColumns(pa.table({"d": pa.array(["20240102", "20240101"])}), {})
    built = build_segment(columns, schema, TableConfig.from_json({"tableName": "t", "segmentsConfig": {"timeColumnName": "d"}}, schema), tmp_path,
                          "s", T0)
    assert (built.start_time, built.end_time, built.time_unit) == (1704067200000, 1704153600000, "MILLISECONDS")


@pytest.mark.parametrize("fmt", ["1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz(America/New_York)",
                                 "SIMPLE_DATE_FORMAT|yyyyMMdd|America/New_York", "SIMPLE_DATE_FORMAT|yyyyMMdd|EST"])
def test_simple_date_time_column_in_a_zone(tmp_path, fmt):
    # BaseSegmentCreator parses the min/max with the format's formatter, zone included (EST: Joda's New York).
    schema = PinotSchema.from_json({"schemaName": "t", "dateTimeFieldSpecs": [
        {"name": "d", "dataType": "STRING", "format": fmt, "granularity": "1:DAYS"}]})
    columns = PinotColumns(pa.table({"d": pa.array(["20240102", "20240701"])}), {})
    built = build_segment(columns, schema, TableConfig.from_json({"tableName": "t", "segmentsConfig": {"timeColumnName": "d"}}, schema), tmp_path,
                          "s", T0)
    assert (built.start_time, built.end_time) == (1704085200000 + 86_400_000, 1719806400000)  # -05:00, -04:00


def test_server_built_indexes_deferred_by_default_or_an_error(tmp_path):
    config = {**CONFIG, "fieldConfigList": [{"name": "name", "indexTypes": ["TEXT"]}],
              "tableIndexConfig": {"fstIndexColumns": ["tags"]}}
    with pytest.raises(SegmentBuildError, match="column 'name': text index.*column 'tags': fst index"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(unsupported_indexes="error"))
    assert _entries(tmp_path) == []
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)
    assert len(built.skipped_indexes) == 2
    assert "TextIndexHandler" in built.skipped_indexes[0] and "FSTIndexHandler" in built.skipped_indexes[1]
    assert built.skipped_indexes == build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_1", T0, BuildOptions(
        unsupported_indexes="skip")).skipped_indexes  # the option's former name for defer


def test_star_tree_without_function_pairs_is_an_error(tmp_path):
    config = {**CONFIG, "tableIndexConfig": {"starTreeIndexConfigs": [{"dimensionsSplitOrder": ["name"]}]}}
    with pytest.raises(SegmentBuildError, match=r"star-tree index \(tableIndexConfig.starTreeIndexConfigs\): "
                                                r"starTreeIndexConfigs\[0\]: neither functionColumnPairs"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)


def test_index_no_server_builds_is_an_error_even_deferred(tmp_path):
    config = {**CONFIG, "fieldConfigList": [{"name": "name", "indexes": {"map": {}}}]}
    with pytest.raises(SegmentBuildError, match="column 'name': map index.*no Pinot"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)


def test_star_tree_built_never_deferred(tmp_path):
    # enableDynamicStarTreeCreation lets servers build a missing tree; this writer builds it, or fails
    index = {"starTreeIndexConfigs": [{"dimensionsSplitOrder": ["name"]}], "enableDynamicStarTreeCreation": "true"}
    with pytest.raises(SegmentBuildError, match=r"starTreeIndexConfigs\[0\]: neither functionColumnPairs"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json({**CONFIG, "tableIndexConfig": index}, SCHEMA), tmp_path, "seg_0", T0)
    index["starTreeIndexConfigs"][0]["functionColumnPairs"] = ["COUNT__*"]
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json({**CONFIG, "tableIndexConfig": index}, SCHEMA), tmp_path, "seg_0", T0,
                          BuildOptions(keep_dir=True))
    assert built.skipped_indexes == []
    assert (built.dir_path / "v3" / "star_tree_index").stat().st_size > 0


@pytest.mark.parametrize("index_config, key, closest", [
    ({"tableIndexConfig": {"invertedIndexColumns": ["nmae"]}}, "tableIndexConfig.invertedIndexColumns", "name"),
    ({"tableIndexConfig": {"bloomFilterConfigs": {"Tags": {}}}}, "tableIndexConfig.bloomFilterConfigs", "tags"),
    ({"tableIndexConfig": {"sortedColumn": ["amount_"]}}, "tableIndexConfig.sortedColumn", "amount"),
    ({"fieldConfigList": [{"name": "dya", "encodingType": "RAW"}]}, r"fieldConfigList\[0\].name", "day"),
])
def test_index_on_a_column_the_schema_lacks_names_key_and_closest_column(tmp_path, index_config, key, closest):
    with pytest.raises(TableConfigError, match=f"{key} names column .*did you mean '{closest}'"):
        TableConfig.from_json({**CONFIG, **index_config}, SCHEMA)  # parsed once, before any build


def test_tier_overwrites_are_read_and_ignored(tmp_path):
    config = {**CONFIG, "tableIndexConfig": {"tierOverwrites": {"cold": {"invertedIndexColumns": ["name"]}}},
              "fieldConfigList": [{"name": "name", "tierOverwrites": {"cold": {"encodingType": "RAW"}}}]}
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)
    plain = build_segment(_columns(), SCHEMA, TableConfig.from_json({**CONFIG, "tableIndexConfig": {}}, SCHEMA), tmp_path / "plain", "seg_0", T0)
    assert built.crc == plain.crc and built.skipped_indexes == []


# --- table config parsing ---------------------------------------------------------------------------


def test_table_config_both_syntaxes():
    config = {
        "tableName": "t_OFFLINE",
        "segmentsConfig": {"timeColumnName": "day"},
        "tableIndexConfig": {
            "noDictionaryColumns": ["amount"],
            "invertedIndexColumns": ["name"],
            "bloomFilterConfigs": {"tags": {"fpp": 0.01, "maxSizeInBytes": 1000}},
            "segmentFormatVersion": "v1",
            "sortedColumn": ["name"],
            "varLengthDictionaryColumns": ["name"],
            "segmentPartitionConfig": {"columnPartitionMap": {"day": {"functionName": "Modulo",
                                                                      "numPartitions": 4}}},
        },
        "fieldConfigList": [
            {"name": "amount", "encodingType": "RAW", "compressionCodec": "ZSTANDARD"},
            {"name": "tags", "indexes": {"inverted": {}, "range": {"disabled": True}}},
            {"name": "day", "indexes": {"range": {}, "bloom": {"fpp": 0.2}}},
            {"name": "name", "indexes": {"inverted": {"disabled": True}, "fst": {}, "null": {}}},
        ],
    }
    s = parse_table_config(config, SCHEMA)
    assert s.raw_table_name == "t" and s.segment_version == "v1" and s.sorted_columns == ["name"]
    assert not s.columns["amount"].dictionary and s.columns["amount"].compression_codec == "ZSTANDARD"
    assert s.columns["tags"].inverted and not s.columns["tags"].range
    assert (s.columns["tags"].bloom.fpp, s.columns["tags"].bloom.max_size_in_bytes) == (0.01, 1000)
    assert s.columns["day"].range and s.columns["day"].bloom.fpp == 0.2
    assert not s.columns["name"].inverted and list(s.columns["name"].others) == ["fst"]
    assert s.columns["name"].var_length_dictionary
    assert s.partitions["day"].num_partitions == 4
    assert raw_codec_id(s.columns["amount"], True) == 2


def test_default_raw_codec_and_bad_codec():
    config = {"tableIndexConfig": {"noDictionaryColumns": ["name", "amount"]},
              "fieldConfigList": [{"name": "tags", "compressionCodec": "BROTLI"}]}
    s = parse_table_config(config, SCHEMA)
    assert raw_codec_id(s.columns["name"], False) == 3  # LZ4 for dimensions
    assert raw_codec_id(s.columns["amount"], True) == 0  # PASS_THROUGH for metrics
    with pytest.raises(TableConfigError, match="column 'tags'.*BROTLI"):
        plan_indexes(TableConfig.from_json(config, SCHEMA), SCHEMA)


def test_optimize_dictionary_turns_high_cardinality_metric_raw(tmp_path):
    # 5000 distinct doubles in 5000 rows: raw 40000 B vs 40000 + 8125 B with a dictionary (ratio 0.83 <= 0.85)
    n = 5000
    columns = PinotColumns(pa.table({
        "name": pa.array(["a"] * n), "tags": pa.array([["x"]] * n, pa.list_(pa.string())),
        "amount": pa.array(np.arange(n, dtype=np.float64)), "day": pa.array([18000] * n, pa.int32()),
    }), {})
    config = {**CONFIG, "tableIndexConfig": {"optimizeDictionaryForMetrics": True}}
    built = build_segment(columns, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0, BuildOptions(segment_version="v1",
                                                                                       keep_dir=True))
    names = os.listdir(built.dir_path)
    assert "amount.sv.raw.fwd" in names and "amount.dict" not in names
    assert "name.dict" in names  # dimensions are left alone by optimizeDictionaryForMetrics
    props = parse_properties((built.dir_path / "metadata.properties").read_bytes())
    assert props["column.amount.forwardIndexEncoding"] == "RAW"
    assert props["column.amount.lengthOfEachEntry"] == "0"


def test_chunked_and_large_arrow_types_read_back(tmp_path):
    from pinot_sink.segment import read_segment

    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "m", "dataType": "STRING", "singleValueField": False},
        {"name": "b", "dataType": "BYTES"}]})
    table = pa.table({
        "s": pa.chunked_array([pa.array(["b", "a"], pa.large_string()), pa.array(["c"], pa.large_string())]),
        "m": pa.array([["x", "y"], ["z"], ["x"]], pa.large_list(pa.large_string())),
        "b": pa.array([b"\x01", b"", b"\x02\x03"], pa.large_binary()),
    })
    config = {"tableName": "t", "tableIndexConfig": {"invertedIndexColumns": ["m"], "noDictionaryColumns": ["b"]}}
    built = build_segment(PinotColumns(table, {}), schema, TableConfig.from_json(config, schema), tmp_path, "s_0", T0)
    assert read_segment(built.tar_path).table.to_pylist() == [
        {"b": b"\x01", "m": ["x", "y"], "s": "b"}, {"b": b"", "m": ["z"], "s": "a"},
        {"b": b"\x02\x03", "m": ["x"], "s": "c"}]


def test_range_index_on_raw_number_and_unsupported_on_raw_string(tmp_path):
    from pinot_sink.segment.range_index import read_range_index

    config = {**CONFIG, "tableIndexConfig": {"noDictionaryColumns": ["day", "name"], "rangeIndexColumns": ["day"]}}
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0,
                          BuildOptions(segment_version="v1", keep_dir=True))
    minimum, values = read_range_index((built.dir_path / "day.bitmap.range").read_bytes())
    assert minimum == 18000 and values.tolist() == [0, 2, 1, 0]  # value - min, per doc
    config["tableIndexConfig"]["rangeIndexColumns"] = ["name"]
    with pytest.raises(SegmentBuildError, match="column 'name': range index \\(raw STRING\\)"):
        build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_1", T0, BuildOptions(unsupported_indexes="error"))
    deferred = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_1", T0).skipped_indexes
    assert deferred == [f"column 'name': range index (raw STRING) deferred to the server: RangeIndexHandler "
                        f"reads the column and writes the range index at each load"]


@pytest.mark.parametrize("configured, written", [("murmur2", "Murmur"), ("MURMUR", "Murmur"), ("fnv", "FNV"),
                                                 ("hashcode", "HashCode")])
def test_partition_function_is_written_under_pinots_canonical_name(tmp_path, configured, written):
    config = {**CONFIG, "tableIndexConfig": {"segmentPartitionConfig": {"columnPartitionMap": {
        "name": {"functionName": configured, "numPartitions": 4}}}}}
    built = build_segment(_columns(), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0)
    props = parse_properties(read_tarball(built.tar_path)["v3/metadata.properties"])
    assert props["column.name.partitionFunction"] == written
    assert props["column.name.numPartitions"] == "4"


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("version", ["v1", "v3"])
@pytest.mark.parametrize("raw_amount", [False, True])  # raw: its PASS_THROUGH forward index made in pieces
def test_spilled_indexes_give_the_same_bytes_and_leave_no_file(tmp_path, monkeypatch, threads, version, raw_amount):
    # Payloads written to the spill file as their column is built and tarred from there, read back in pieces
    # smaller than a payload and cut across the tarball's deflate pieces: the same tarball and directory.
    from pinot_sink.segment import builder, raw_forward, spill, tarball
    from pinot_sink.segment.spill import FileSpan, Spill
    monkeypatch.setattr(spill, "READ_PIECE", 7)
    monkeypatch.setattr(tarball, "GZIP_CHUNK", 1000)
    monkeypatch.setattr(raw_forward, "_GATHER_BLOCK", 700)
    laid_out = []
    original = builder.segment_file_parts
    monkeypatch.setattr(builder, "segment_file_parts",
                        lambda entries, *a: laid_out.append([e.payload for e in entries]) or original(entries, *a))
    config = {**CONFIG, "tableIndexConfig": {"sortedColumn": ["name"], "invertedIndexColumns": ["tags"],
                                             "nullHandlingEnabled": True,
                                             "noDictionaryColumns": ["amount"] if raw_amount else []}}
    count = 3000
    rows = PinotColumns(pa.table({
        "name": pa.array([f"n{i % 97}" for i in range(count)]),
        "tags": pa.array([["x", "y"][: 1 + i % 2] for i in range(count)], pa.list_(pa.string())),
        "amount": pa.array(np.arange(count) * 0.25),
        "day": pa.array(18000 + np.arange(count, dtype=np.int32) % 50),
    }), {"amount": np.arange(count) % 7 == 0})
    options = dict(threads=threads, segment_version=version, keep_dir=True)
    kept = build_segment(rows, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "kept", "seg_0", T0, BuildOptions(**options))
    with Spill(tmp_path / "spilled") as held:
        # the second build with the same spill writes over the first one's bytes
        build_segment(rows, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "first", "seg_0", T0, BuildOptions(**options), held)
        spilled = build_segment(rows, SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path / "spilled", "seg_0", T0, BuildOptions(**options),
                                held)
    assert not any(isinstance(p, FileSpan) for p in laid_out[0])
    assert laid_out[2] and all(isinstance(p, FileSpan) for p in laid_out[2])
    assert min(p.offset for p in laid_out[2]) == 0  # restarted: over the first build's bytes
    assert max(len(p) for p in laid_out[2]) > 1000  # a payload over several pieces and deflate pieces
    assert spilled.tar_path.read_bytes() == kept.tar_path.read_bytes()
    assert (spilled.crc, spilled.data_crc) == (kept.crc, kept.data_crc)
    files = lambda root: {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert files(spilled.dir_path) == files(kept.dir_path)
    assert _entries(tmp_path / "spilled") == ["seg_0", "seg_0.tar.gz"]  # the spill file is gone


def test_a_failed_build_with_spilled_indexes_leaves_no_file(tmp_path):
    from pinot_sink.segment.spill import Spill
    config = {**CONFIG, "tableIndexConfig": {"noDictionaryColumns": ["tags"]}}
    table = _columns().table.set_column(1, "tags", pa.array([["x"], ["y"], [], ["x"]], pa.list_(pa.string())))
    with Spill(tmp_path) as spill, pytest.raises(SegmentBuildError, match="column 'tags': row 2 "):
        build_segment(PinotColumns(table, {}), SCHEMA, TableConfig.from_json(config, SCHEMA), tmp_path, "seg_0", T0, spill=spill)
    assert _entries(tmp_path) == []


def test_a_spilled_span_reads_back_in_pieces_and_a_short_file_is_an_error(tmp_path):
    from pinot_sink.segment.spill import Spill
    with Spill(tmp_path) as spill:
        first = spill.hold(b"abcdefghij")
        second = spill.hold(memoryview(np.arange(3, dtype=">i4")))  # any bytes-like, cast to bytes
        assert (len(first), len(second)) == (10, 12)
        assert list(first.pieces(4)) == [b"abcd", b"efgh", b"ij"]
        assert b"".join(second.pieces()) == np.arange(3, dtype=">i4").tobytes()
        spill.restart()
        again = spill.hold(b"XYZ")
        assert again.offset == 0 and b"".join(again.pieces()) == b"XYZ"
        assert b"".join(first.pieces()) == b"XYZdefghij"  # a span from before the restart is overwritten
        os.ftruncate(second.fd, 15)
        with pytest.raises(OSError, match="ended at byte 15, 7 bytes early"):
            list(second.pieces())
    assert os.listdir(tmp_path) == []


def test_a_spill_reads_and_writes_by_seeking_where_pread_is_missing(tmp_path, monkeypatch):
    from pinot_sink.segment.spill import Spill
    monkeypatch.delattr(os, "pread")
    monkeypatch.delattr(os, "pwrite")
    with Spill(tmp_path) as spill:
        first, second = spill.hold(b"abcdefghij"), spill.hold(b"0123")
        assert list(second.pieces()) == [b"0123"] and list(first.pieces(6)) == [b"abcdef", b"ghij"]


def test_a_compaction_build_orders_its_columns_by_the_buffers_they_hold(tmp_path, monkeypatch):
    # Largest first (a compaction's builds) by the bytes of the buffers each column references, whole: a column
    # sliced out of a larger input counts all of it (its buffers go with it), and Arrow's nbytes is not asked
    # (pyarrow's first nbytes touches 4 MB of a region of its own). Smallest first (a task's) by nbytes. The
    # same bytes either way.
    from pinot_sink.segment import builder
    order = []
    original = builder._build_column
    monkeypatch.setattr(builder, "_build_column", lambda ctx: order.append(ctx.spec.name) or original(ctx))

    def columns():  # "day" a slice of 4 of 2,000 rows (8 kB of buffer, 16 B of nbytes); the names long
        rows = _columns(names=("b" * 500, "a" * 500, "c" * 500, "a" * 500))
        days = pa.array(np.arange(18000, 20000), pa.int32()).slice(0, 4)
        return PinotColumns(rows.table.set_column(rows.table.schema.get_field_index("day"), "day", days), {})

    config = TableConfig.from_json(CONFIG, SCHEMA)
    kept = build_segment(columns(), SCHEMA, config, tmp_path / "kept", "seg_0", T0, BuildOptions(threads=1))
    assert order == ["day", "amount", "tags", "name"]  # smallest first, by nbytes
    order.clear()
    largest = build_segment(columns(), SCHEMA, config, tmp_path / "largest", "seg_0", T0,
                            BuildOptions(threads=1, release_input=True, largest_first=True))
    assert order == ["day", "name", "tags", "amount"]  # by nbytes: name, tags, amount, day
    assert largest.tar_path.read_bytes() == kept.tar_path.read_bytes()


@pytest.mark.parametrize("fmt, values, looks", [
    ("1:MILLISECONDS:EPOCH", [1_700_006_400, 1_700_092_800], "epoch seconds"),  # seconds into a millis column
    ("1:SECONDS:EPOCH", [1_700_006_400_000, 1_700_092_800_000], "epoch milliseconds"),
    ("1:MILLISECONDS:EPOCH", [1_700_006_400_000_000, 1_700_006_400_000_001], "epoch microseconds"),
])
def test_a_time_column_off_by_a_unit_is_named_as_such(tmp_path, fmt, values, looks):
    schema = PinotSchema.from_json({"schemaName": "t", "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "LONG", "format": fmt, "granularity": "1:MILLISECONDS"}]})
    config = TableConfig.from_json({"tableName": "t", "segmentsConfig": {"timeColumnName": "ts"}}, schema)
    columns = PinotColumns(pa.table({"ts": pa.array(values, pa.int64())}), {})
    with pytest.raises(SegmentBuildError, match=f"outside 1971.*the values look like {looks}, but the schema's format "
                                                f"is '{fmt}'"):
        build_segment(columns, schema, config, tmp_path, "s", T0)


def test_a_time_column_far_out_of_range_gets_no_unit_hint(tmp_path):
    columns = _columns(days=(0, 1, 2, 3))
    with pytest.raises(SegmentBuildError) as raised:
        build_segment(columns, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path, "seg_0", T0)
    assert "look like" not in str(raised.value)
