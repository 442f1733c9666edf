"""now() / ago(period) / agoMV(periods): the write's instant (Context.instant_ms), minus
``java.time.Duration.parse(period).toMillis()`` as JDK 17 computes it (tests/fixtures/java/java_duration.jsonl,
made by tools/pinot_functions/JavaDuration.java), the subtraction a wrapping Java long."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionError, IngestionPipeline
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "java" / "java_duration.jsonl"
INSTANT = 1_700_000_000_000


def _pipeline(transforms: dict[str, str], types: dict[str, tuple[str, bool]], continue_on_error=True):
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": c, "dataType": t, "singleValueField": single} for c, (t, single) in types.items()]})
    config = {"tableName": "t", "ingestionConfig": {"continueOnError": continue_on_error, "transformConfigs": [
        {"columnName": c, "transformFunction": e} for c, e in transforms.items()]}}
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), pa.schema([("p", pa.string())]))


def test_ago_is_the_instant_minus_javas_duration_millis():
    cases = [json.loads(line) for line in TABLE.read_text().splitlines()]
    assert len(cases) > 300 and sum("error" in c for c in cases) > 100
    table = pa.table({"p": [c["text"] for c in cases]})
    result = _pipeline({"a": "ago(p)", "n": "now()"}, {"a": ("LONG", True), "n": ("LONG", True)}).apply(
        table, 0, instant_ms=INSTANT)
    got = result.table.column("a").to_pylist()
    wrong = [(c, g) for c, g in zip(cases, got)
             if g != (None if "error" in c else (INSTANT - c["millis"] + 2**63) % 2**64 - 2**63)]
    assert not wrong, wrong[:5]
    assert result.error_rows == sum("error" in c for c in cases)
    assert set(result.table.column("n").to_pylist()) == {INSTANT}


def test_ago_of_a_literal_and_ago_mv():
    table = pa.table({"p": ["PT1S,P1D", "x", None]})
    result = _pipeline({"a": "ago('PT1M')", "m": "arrayToString(agoMV(split(p, ',')), ',')"},
                       {"a": ("LONG", True), "m": ("STRING", True)}).apply(table, 0, instant_ms=INSTANT)
    assert result.table.column("a").to_pylist() == [INSTANT - 60_000] * 3
    assert result.table.column("m").to_pylist() == [f"{INSTANT - 1000},{INSTANT - 86_400_000}", None, None]


def test_a_bad_period_fails_the_build_without_continue_on_error():
    pipeline = _pipeline({"a": "ago(p)"}, {"a": ("LONG", True)}, continue_on_error=False)
    with pytest.raises(IngestionError, match=r"row 1: DateTimeParseException"):
        pipeline.apply(pa.table({"p": ["PT1S", "P1"]}), 0, instant_ms=INSTANT)


def test_now_needs_the_writes_instant():
    pipeline = _pipeline({"n": "now()"}, {"n": ("LONG", True)})
    assert pipeline.reads_the_clock and not _pipeline({"n": "length(p)"}, {"n": ("INT", True)}).reads_the_clock
    with pytest.raises(IngestionError, match=r"now\(\) / ago\(\) read the write's instant"):
        pipeline.apply(pa.table({"p": ["x"]}), 0)
