"""Segment names: the expectations are those of Pinot's own generator tests (SimpleSegmentNameGeneratorTest,
NormalizedDateSegmentNameGeneratorTest), so a difference from Pinot's joins or date handling fails here."""
import pyarrow as pa
import pytest

from pinot_sink.naming import (
    SegmentNameError,
    column_min_max,
    inferred_kind,
    make_namer,
    run_tag,
    writer_postfix,
)
from type_mapping import PinotSchema
from type_mapping.table_config import TableConfig


def schema(fmt="1:DAYS:EPOCH", data_type="LONG"):
    return PinotSchema.from_json({
        "schemaName": "myTable",
        "dimensionFieldSpecs": [{"name": "d", "dataType": "STRING"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": data_type, "format": fmt, "granularity": "1:DAYS"}],
    })


def config(time_column="ts", push_type=None, frequency=None):
    cfg = {"tableName": "myTable_OFFLINE", "segmentsConfig": {}}
    if time_column:
        cfg["segmentsConfig"]["timeColumnName"] = time_column
    batch = {}
    if push_type:
        batch["segmentIngestionType"] = push_type
    if frequency:
        batch["segmentIngestionFrequency"] = frequency
    if batch:
        cfg["ingestionConfig"] = {"batchIngestionConfig": batch}
    return cfg


def test_simple_matches_pinot():
    no_time = make_namer("simple", "testTable", schema(), TableConfig.from_json(config(time_column=None), schema()))
    assert no_time.name(-1) == "testTable"
    assert no_time.name(0) == "testTable_0"
    with_time = make_namer("simple", "testTable", schema(), TableConfig.from_json(config(), schema()))
    assert with_time.name(0, 1234, 5678) == "testTable_1234_5678_0"
    assert with_time.name(-1, 1234, 5678) == "testTable_1234_5678"
    post = make_namer("simple", "testTable", schema(), TableConfig.from_json(config(), schema()), postfix="postfix")
    assert post.name(0, 1234, 5678) == "testTable_1234_5678_postfix_0"
    assert post.name(-1, None, None) == "testTable_postfix"


def test_flink_style_partition_postfix():
    # Pinot's Flink sink: postfix + "_" + subtask index, then the sequence: starbucksStores_1_0
    namer = make_namer("simple", "starbucksStores", schema(), TableConfig.from_json(config(time_column=None), schema()),
                       postfix=writer_postfix(None, write="w0123456789", run="rabc", partition_id=1))
    assert namer.name(0) == "starbucksStores_w0123456789_rabc_1_0"
    tagged = writer_postfix(" nightly ", write="w0123456789", run="rabc", partition_id=3)
    assert tagged == "nightly_w0123456789_rabc_3"
    assert writer_postfix(None, write="w0123456789", run="rabc", partition_id=None) == "w0123456789_rabc"


def test_run_tags_are_fresh_ordered_and_short():
    assert run_tag(0) == "r0" and run_tag(35) == "rz" and run_tag(36) == "r10"
    assert len(run_tag(1_700_000_000_000)) == 9 and run_tag(1_700_000_000_001) > run_tag(1_700_000_000_000)


@pytest.mark.parametrize("bad", ["test/Table", "a\\b", "x:y", "p*q", "w?", 'q"', "a<b", "a>b", "12|34"])
def test_invalid_characters_rejected(bad):
    with pytest.raises(SegmentNameError, match="may not contain"):
        make_namer("simple", bad, schema(), TableConfig.from_json(config(), schema()))
    with pytest.raises(SegmentNameError):
        make_namer("simple", "t", schema(), TableConfig.from_json(config(), schema()), postfix=bad)
    namer = make_namer("simple", "t", schema(), TableConfig.from_json(config(), schema()))
    with pytest.raises(SegmentNameError, match="time value"):
        namer.name(0, bad, "1")


def test_normalized_date_matches_pinot():
    refresh = make_namer("normalizedDate", "myTable", schema(), TableConfig.from_json(config(push_type="REFRESH"), schema()))
    assert refresh.name(-1) == "myTable" and refresh.name(1) == "myTable_1"
    daily = make_namer("normalizedDate", "myTable", schema("1:DAYS:EPOCH"), TableConfig.from_json(config(frequency="daily"), schema("1:DAYS:EPOCH")))
    assert daily.name(1, 1, 3) == "myTable_1970-01-02_1970-01-04_1"
    prefixed = make_namer("normalizedDate", "myTable", schema(), TableConfig.from_json(config(), schema()), prefix="myTable_daily  ",
                          postfix="myPostfix")
    assert prefixed.name(1, 1, 3) == "myTable_daily_1970-01-02_1970-01-04_myPostfix_1"
    hours = make_namer("normalizedDate", "myTable", schema("EPOCH|HOURS"), TableConfig.from_json(config(), schema("EPOCH|HOURS")))
    assert hours.name(1, 24, 72) == "myTable_1970-01-02_1970-01-04_1"
    sdf = make_namer("normalizedDate", "myTable", schema("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd", "INT"), TableConfig.from_json(config(), schema("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd", "INT")))
    assert sdf.name(1, 19700102, 19700104) == "myTable_1970-01-02_1970-01-04_1"
    dashed = make_namer("normalizedDate", "myTable", schema("SIMPLE_DATE_FORMAT|yyyy-MM-dd", "STRING"), TableConfig.from_json(config(), schema("SIMPLE_DATE_FORMAT|yyyy-MM-dd", "STRING")))
    assert dashed.name(1, "1970-01-02", "1970-01-04") == "myTable_1970-01-02_1970-01-04_1"


def test_normalized_date_reads_a_legacy_time_column_by_its_derived_format():
    """``getSpecForTimeColumn`` turns a timeFieldSpec into a dateTime spec (``7:DAYS:EPOCH`` here)."""
    legacy = PinotSchema.from_json({"schemaName": "t", "timeFieldSpec": {"incomingGranularitySpec": {
        "name": "ts", "dataType": "LONG", "timeType": "DAYS", "timeUnitSize": 7}}})
    namer = make_namer("normalizedDate", "myTable", legacy, TableConfig.from_json(config(), legacy))
    # NormalizedDateSegmentNameGenerator reads the unit and ignores the size, as for any dateTime column
    assert namer.name(1, 1, 3) == "myTable_1970-01-02_1970-01-04_1"


def test_normalized_date_hourly_and_size_ignored():
    hourly = make_namer("normalizedDate", "t", schema("1:MILLISECONDS:EPOCH"), TableConfig.from_json(config(frequency="HOURLY"), schema("1:MILLISECONDS:EPOCH")))
    assert hourly.name(0, 3_600_000 * 5, 3_600_000 * 30) == "t_1970-01-01-05_1970-01-02-06_0"
    # Pinot converts with the unit only: in 5:MINUTES:EPOCH the value 1440 is 1440 minutes, not 7200.
    sized = make_namer("normalizedDate", "t", schema("5:MINUTES:EPOCH"), TableConfig.from_json(config(), schema("5:MINUTES:EPOCH")))
    assert sized.name(0, 1440, 1440) == "t_1970-01-02_1970-01-02_0"
    timestamp = make_namer("normalizedDate", "t", schema("TIMESTAMP", "TIMESTAMP"), TableConfig.from_json(config(), schema("TIMESTAMP", "TIMESTAMP")))
    assert timestamp.name(0, 86_400_000, 86_400_000) == "t_1970-01-02_1970-01-02_0"


def test_normalized_date_needs_time_column_on_append():
    with pytest.raises(SegmentNameError, match="time column"):
        make_namer("normalizedDate", "t", schema(), TableConfig.from_json(config(time_column=None), schema()))
    # REFRESH tables need none
    assert make_namer("normalizedDate", "t", schema(), TableConfig.from_json(config(time_column=None, push_type="REFRESH"), schema())).name(0) == "t_0"


def test_fixed():
    namer = make_namer("fixed", "t", schema(), TableConfig.from_json(config(), schema()), fixed_name="my_segment")
    assert namer.name(0, 1, 2) == "my_segment" and namer.name(5) == "my_segment"
    with pytest.raises(SegmentNameError):
        make_namer("fixed", "t", schema(), TableConfig.from_json(config(), schema()), fixed_name="bad/name")


def test_push_type_falls_back_to_segments_config():
    plain = TableConfig.from_json({}, schema())
    assert (plain.push_type, plain.push_frequency) == ("APPEND", None)
    legacy = TableConfig.from_json({"segmentsConfig": {"segmentPushType": "REFRESH", "segmentPushFrequency": "HOURLY"}},
                                   schema())
    assert (legacy.push_type, legacy.push_frequency) == ("REFRESH", "HOURLY")


def test_time_format_parsing_uses_the_one_datetime_parser_and_pinots_zones():
    # Pinot parses the min/max in the format's zone: midnight in Tokyo is still the previous day in UTC.
    tokyo = make_namer("normalizedDate", "t", schema("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz(Asia/Tokyo)", "INT"),
                       TableConfig.from_json(config(), schema("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz(Asia/Tokyo)", "INT")))
    assert tokyo.name(0, 20240102, 20240102) == "t_2024-01-01_2024-01-01_0"
    # Joda's old three-letter ids: CST is America/Chicago (06:00 UTC in January), in both spellings.
    for fmt in ("1:HOURS:SIMPLE_DATE_FORMAT:yyyyMMddHH tz(CST)", "SIMPLE_DATE_FORMAT|yyyyMMddHH|CST"):
        chicago = make_namer("normalizedDate", "t", schema(fmt, "LONG"), TableConfig.from_json(config(frequency="HOURLY"), schema(fmt, "LONG")))
        assert chicago.name(0, 2024010100, 2024010100) == "t_2024-01-01-06_2024-01-01-06_0"
    with pytest.raises(SegmentNameError, match="time column 'ts'"):
        make_namer("normalizedDate", "t", schema("1:DAYS:NOPE"), TableConfig.from_json(config(), schema("1:DAYS:NOPE")))


def test_min_max_and_java_spelling():
    table = pa.table({"ts": pa.array([5, 3, 9], pa.int64()), "f": pa.array([1.0, 0.5, 2.0], pa.float64())})
    assert column_min_max(table, "ts") == (3, 9)
    namer = make_namer("simple", "t", None, TableConfig.from_json({"segmentsConfig": {"timeColumnName": "f"}}, PinotSchema("t")))
    assert namer.name(0, *column_min_max(table, "f")) == "t_0.5_2.0_0"  # Java Double.toString
    assert column_min_max(table.slice(0, 0), "ts") == (None, None)




def test_the_kind_pinots_generator_config_infers():
    """SegmentGeneratorConfig picks normalizedDate for a STRING time column in SIMPLE_DATE_FORMAT only (what
    Pinot's SegmentProcessorFramework, and so a compaction, names merged segments with)."""
    text = schema("1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm:ss", "STRING")
    def typed(schema_, **kw):
        return TableConfig.from_json(config(**kw), schema_)

    assert inferred_kind(text, typed(text)) == "normalizedDate"
    days = schema("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd", "INT")
    assert inferred_kind(days, typed(days)) == "simple"
    assert inferred_kind(schema(), typed(schema())) == "simple"
    assert inferred_kind(text, typed(text, time_column=None)) == "simple"
    namer = make_namer(inferred_kind(text, typed(text)), "myTable", text, typed(text), postfix="p")
    assert namer.name(0, "2024-03-01 10:00:00", "2024-03-02 23:59:59") == "myTable_2024-03-01_2024-03-02_p_0"
