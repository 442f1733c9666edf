"""A legacy ``timeFieldSpec``: read as Pinot reads it, converted incoming -> outgoing as
``TimeSpecFunctionEvaluator`` does, and usable as the table's time column (segment time range, names)."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.cli import main
from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.values import IngestionError
from pinot_sink.segment import open_segment
from type_mapping.pinot_schema import PinotSchema, SchemaError
from type_mapping.table_config import TableConfig

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
NANOS = {"NANOSECONDS": 1, "MICROSECONDS": 10**3, "MILLISECONDS": 10**6, "SECONDS": 10**9, "MINUTES": 60 * 10**9,
         "HOURS": 3_600 * 10**9, "DAYS": 86_400 * 10**9}
DAY_MS = 86_400_000


def legacy(incoming: dict, outgoing: dict | None = None, **extra) -> PinotSchema:
    spec = {"incomingGranularitySpec": incoming, **extra}
    if outgoing is not None:
        spec["outgoingGranularitySpec"] = outgoing
    return PinotSchema.from_json({"schemaName": "t", "timeFieldSpec": spec,
                                  "dimensionFieldSpecs": [{"name": "k", "dataType": "STRING"}]})


def test_the_column_is_named_and_typed_by_the_outgoing_spec_with_pinots_derived_format():
    s = legacy({"name": "secs", "dataType": "LONG", "timeType": "SECONDS"},
               {"name": "days", "dataType": "INT", "timeType": "DAYS", "timeUnitSize": "7"})
    assert "secs" not in s and s["days"].field_type == "TIME" and s["days"].data_type == "INT"
    assert (s["days"].datetime_format, s["days"].datetime_granularity) == ("7:DAYS:EPOCH", "7:DAYS")
    text = legacy({"name": "d", "dataType": "STRING", "timeType": "DAYS",
                   "timeFormat": "SIMPLE_DATE_FORMAT:yyyyMMdd"})["d"]
    assert text.datetime_format == "1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd"
    assert legacy({"name": "d", "dataType": "LONG", "timeType": "DAYS"}).time_spec.converts is False
    again = PinotSchema.from_json(s.to_json())  # what the data source would send the controller
    assert again.time_spec == s.time_spec and again["days"] == s["days"]


@pytest.mark.parametrize("incoming, outgoing, message", [
    ({"name": "t", "dataType": "LONG", "timeType": "SECONDS"}, {"name": "t", "dataType": "LONG", "timeType": "DAYS"},
     "both name the column 't'"),
    ({"name": "a", "dataType": "STRING", "timeType": "DAYS", "timeFormat": "SIMPLE_DATE_FORMAT:yyyyMMdd"},
     {"name": "b", "dataType": "LONG", "timeType": "DAYS"}, "only between EPOCH formats"),
    ({"name": "a", "dataType": "LONG", "timeType": "WEEKS"}, None, "timeType: WEEKS is not one of"),
    ({"name": "a", "dataType": "LONG", "timeType": "DAYS", "timeFormat": "SIMPLE_DATE_FORMAT"}, None,
     "neither EPOCH nor SIMPLE_DATE_FORMAT:<pattern>"),
    ({"name": "a", "dataType": "LONG", "timeType": "DAYS", "timeUnitSize": "0"}, None, "must be positive"),
])
def test_specs_pinot_refuses_are_errors_naming_the_key(incoming, outgoing, message):
    with pytest.raises(SchemaError, match=message):
        legacy(incoming, outgoing)


def reference(value: int, in_unit: str, in_size: int, out_unit: str, out_size: int) -> int:
    """TimeConverter in Python integers: Java long products wrap, TimeUnit saturates, divisions truncate."""
    def wrap(v):
        return ((v - LONG_MIN) % 2**64) + LONG_MIN

    def saturate(v):
        return max(LONG_MIN, min(LONG_MAX, v))

    def div(a, b):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q

    duration = wrap(value * in_size)
    ms = saturate(duration * (NANOS[in_unit] // 10**6)) if NANOS[in_unit] >= 10**6 else div(duration, 10**6 // NANOS[in_unit])
    out = div(ms, NANOS[out_unit] // 10**6) if NANOS[out_unit] >= 10**6 else saturate(ms * (10**6 // NANOS[out_unit]))
    return div(out, out_size)


@given(st.sampled_from(list(NANOS)), st.integers(1, 60), st.sampled_from(list(NANOS)), st.integers(1, 60),
       st.lists(st.integers(LONG_MIN, LONG_MAX), max_size=20), st.sampled_from(["LONG", "INT", "DOUBLE", "STRING"]))
@settings(max_examples=150, deadline=None)  # timings vary with the machine's load; never a timed test
def test_conversion_follows_time_converter(in_unit, in_size, out_unit, out_size, values, out_type):
    s = legacy({"name": "src", "dataType": "LONG", "timeType": in_unit, "timeUnitSize": in_size},
               {"name": "dst", "dataType": out_type, "timeType": out_unit, "timeUnitSize": out_size})
    first = 1_700_000_000_000 * 10**6 // NANOS[in_unit] // in_size  # a valid first value: no row is refused
    rows = [first] + values
    table = pa.table({"src": pa.array(rows, pa.int64()), "k": pa.array(["x"] * len(rows))})
    out = IngestionPipeline.from_configs(s, TableConfig.from_json({}, s), table.schema).apply(table).table
    assert "src" not in out.column_names  # an input only the conversion reads is dropped, as in Pinot
    expected = [reference(v, in_unit, in_size, out_unit, out_size) for v in rows]
    if out_type == "INT":
        expected = [((v + 2**31) % 2**32) - 2**31 for v in expected]
    elif out_type == "DOUBLE":
        expected = [float(v) for v in expected]
    elif out_type == "STRING":
        expected = [str(v) for v in expected]
    assert out.column("dst").to_pylist() == expected


SECS_TO_DAYS = ({"name": "secs", "dataType": "LONG", "timeType": "SECONDS"},
                {"name": "days", "dataType": "INT", "timeType": "DAYS"})


def test_rows_before_the_first_valid_time_and_null_rows_fail_like_pinot():
    s = legacy(*SECS_TO_DAYS)
    table = pa.table({"secs": pa.array([5, 1_700_000_000, 7, None, 1_700_086_400], pa.int64())})
    with pytest.raises(IngestionError, match=r"row 0: No valid time value found in incoming time column 'secs'"):
        IngestionPipeline.from_configs(s, TableConfig.from_json({}, s), table.schema).apply(table)
    lenient = {"ingestionConfig": {"continueOnError": True}}
    result = IngestionPipeline.from_configs(s, TableConfig.from_json(lenient, s), table.schema).apply(table)
    # row 0 is before the first valid value; row 2 is after it (not checked); row 3 has no value
    assert result.table.column("days").to_pylist() == [None, 19675, 0, None, 19676]
    assert result.error_rows == 2
    with pytest.raises(IngestionError, match=r"row 2: no value in the incoming time column 'secs'"):
        IngestionPipeline.from_configs(s, TableConfig.from_json({}, s), table.schema).apply(table.slice(1, 3))


def test_a_transform_of_the_column_wins_over_the_conversion():
    s = legacy(*SECS_TO_DAYS)
    config = {"ingestionConfig": {"transformConfigs": [{"columnName": "days", "transformFunction": "plus(secs, 1)"}]}}
    table = pa.table({"secs": pa.array([1_700_000_000], pa.int64())})
    assert IngestionPipeline.from_configs(s, TableConfig.from_json(config, s), table.schema).apply(table).table.column("days").to_pylist() \
        == [1_700_000_001]


def test_a_legacy_time_column_is_the_segments_time_column(tmp_path, capsys):
    """Through the CLI: seconds in, days out; the segment's time range is in the outgoing unit, as Pinot's
    ``getSpecForTimeColumn`` derives it, and normalizedDate names read it too."""
    schema = {"schemaName": "t", "dimensionFieldSpecs": [{"name": "k", "dataType": "STRING"}],
              "timeFieldSpec": {"incomingGranularitySpec": SECS_TO_DAYS[0], "outgoingGranularitySpec": SECS_TO_DAYS[1]}}
    config = {"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "days"}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "config.json").write_text(json.dumps(config))
    rows = [{"k": "a", "secs": 1_700_000_000}, {"k": "b", "secs": 1_700_200_000}]
    (tmp_path / "in.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    args = ["build", "--schema", str(tmp_path / "schema.json"), "--table-config", str(tmp_path / "config.json"),
            "--input", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), "--name", "t_0"]
    assert main(args) == 0
    capsys.readouterr()
    with open_segment(tmp_path / "out" / "t_0.tar.gz") as segment:
        meta = segment.metadata
        assert (meta.start_time, meta.end_time, meta.time_unit) == (19675, 19678, "DAYS")
        assert meta.properties["segment.time.column.name"] == "days"
        assert meta.properties["column.days.columnType"] == "TIME"
        assert "days" not in str(meta.properties.get("segment.datetime.column.names", ""))  # as Pinot lists it
        assert sorted(segment.values("days").to_pylist()) == [19675, 19678]
