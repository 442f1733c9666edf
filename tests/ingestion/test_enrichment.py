"""``ingestionConfig.enrichmentConfigs``: generateColumn applied where Pinot's pipeline applies it, checked
against the values of the segment Pinot built (tests/fixtures/enrichment)."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.segment import build_segment
from pinot_sink.segment.read.reader import open_segment
from type_mapping import PinotSchema, plan_write, to_pinot_columns
from type_mapping.table_config import TableConfig

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "enrichment"


def test_generate_column_as_pinot(tmp_path):
    schema = PinotSchema.from_json(json.loads((FOLDER / "schema.json").read_text()))
    config = json.loads((FOLDER / "table_config.json").read_text())
    rows = [json.loads(line) for line in (FOLDER / "rows.jsonl").read_text().splitlines()]
    source = pa.Table.from_pylist(rows, pa.schema([("a", pa.string()), ("b", pa.string()), ("x", pa.float64()),
                                                   ("c", pa.string())]))
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), source.schema)
    ingested = pipeline.apply(source)
    columns = to_pinot_columns(ingested.table, schema, plan_write(ingested.table.schema, schema, table_config=TableConfig.from_json(config, schema)))
    built = build_segment(columns, schema, TableConfig.from_json(config, schema), tmp_path, "enrich_0", 1_700_000_000_000)
    expected = [json.loads(line)["values"] for line in (FOLDER / "dump-rows.jsonl").read_text().splitlines()]
    with open_segment(built.tar_path) as segment:
        for name in ("a", "c", "d", "n", "e"):
            assert segment.stored_values(name).to_pylist() == [row[name] for row in expected], name


def test_other_enricher_types_are_never_silent():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [{"name": "m", "dataType": "STRING"}]})
    config = {"ingestionConfig": {"enrichmentConfigs": [{"enricherType": "clpEnricher",
                                                         "properties": {"fields": ["m"]}}]}}
    with pytest.raises(ValueError, match=r"enrichmentConfigs\[0\] enricherType 'clpEnricher'"):
        IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), pa.schema([("m", pa.string())]))
    skipped = IngestionPipeline.from_configs(schema, TableConfig.from_json(config, schema), pa.schema([("m", pa.string())]), unsupported="skip")
    assert skipped.skipped and "clpEnricher" in skipped.skipped[0]
