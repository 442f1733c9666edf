"""complexTypeConfig on lists of maps holding lists of maps: unnested at two levels, at the top only, and with
a sibling list, against what Pinot's own builder stored (tests/fixtures/complex_types/unnest_nested.json, made
by tools/pinot_functions/complex_cases.py with pinot-verify)."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from pinot_sink.ingestion import IngestionPipeline
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "complex_types" / "unnest_nested.json")
                     .read_text())


@pytest.mark.parametrize("case", sorted(FIXTURE["cases"]))
def test_nested_lists_of_maps_unnest_as_pinots_do(case):
    spec = FIXTURE["cases"][case]
    table = pa.Table.from_pylist(spec.get("rows", FIXTURE["rows"]))  # (a struct per map: a missing key is null)
    schema_json = spec.get("schema", FIXTURE["schema"])
    schema = PinotSchema.from_json(schema_json)
    out = IngestionPipeline.from_configs(schema, TableConfig.from_json(spec["table_config"], schema), table.schema).apply(table, 0).table.to_pylist()
    columns = [f["name"] for f in schema_json["dimensionFieldSpecs"]]
    # (a text into a multi-value column is the writer's conversion, after the pipeline: one element)
    multi = {f["name"] for f in schema_json["dimensionFieldSpecs"] if not f.get("singleValueField", True)}
    ours = [{c: [row[c]] if c in multi and isinstance(row.get(c), str) else row.get(c) for c in columns} for row in out]
    pinot = [{c: row.get(c) for c in columns} for row in spec["pinot_rows"]]
    assert ours == pinot
