"""A table config whose transforms use TIMESTAMPADD / TIMESTAMPDIFF, dateAdd / dateDiff, URL functions, UUID
functions and jsonExtractKey (tests/fixtures/functions/web_events, built by Pinot itself with
tools/pinot_functions/must_show.py): through the pipeline, the type mapping and the segment builder as a task
does, every value is what Pinot's reader returned and the segment has Pinot's bytes."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from type_mapping.table_config import TableConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "segment"))
from fixture_loader import CREATION_TIME_MS, psf_payloads, read_tarball  # noqa: E402

from pinot_sink.ingestion import IngestionPipeline  # noqa: E402
from pinot_sink.segment.builder import BuildOptions, build_segment  # noqa: E402
from type_mapping.convert import to_pinot_columns  # noqa: E402
from type_mapping.pinot_schema import PinotSchema  # noqa: E402
from type_mapping.reconcile import plan_write  # noqa: E402

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "web_events"
NAME = "web_events_0"
INPUT = pa.schema([("event_id", pa.int64()), ("ts", pa.int64()), ("shipped_ms", pa.int64()),
                   ("signup_ms", pa.int64()), ("url", pa.string()), ("session", pa.string()),
                   ("payload", pa.string())])


@pytest.fixture(scope="module")
def case():
    schema = PinotSchema.from_json(json.loads((FOLDER / "schema.json").read_text()))
    table_config = json.loads((FOLDER / "table_config.json").read_text())
    rows = [json.loads(line) for line in (FOLDER / "rows.jsonl").read_text().splitlines() if line.strip()]
    expected = [json.loads(line) for line in (FOLDER / "dump-rows.jsonl").read_text().splitlines() if line.strip()]
    return schema, table_config, pa.Table.from_pylist(rows, schema=INPUT), expected


def _ingested(case):
    schema, table_config, table, _ = case
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(table_config, schema), table.schema).apply(table, 0)


def test_every_value_is_what_pinot_read_back(case):
    schema, _, _, expected = case
    ingested = _ingested(case)
    assert ingested.error_rows > 0  # broken JSON, bad UUIDs: nulled under continueOnError, as Pinot does
    rows = ingested.table.to_pylist()
    wrong = []
    for pinot, ours in zip(expected, rows):
        nulls = set(pinot.get("nulls") or [])
        for column in schema.column_names:
            value = ours[column]
            if column in nulls:
                if value not in (None, []):
                    wrong.append((pinot["docId"], column, None, value))
            elif pinot["values"][column] != value:
                wrong.append((pinot["docId"], column, pinot["values"][column], value))
    assert len(rows) == len(expected)
    assert not wrong, f"{len(wrong)} values differ, first: {wrong[:5]}"


def test_same_segment_bytes_as_pinot(case, tmp_path):
    schema, table_config, _, _ = case
    ingested = _ingested(case)
    columns = to_pinot_columns(ingested.table, schema,
                               plan_write(ingested.table.schema, schema, table_config=TableConfig.from_json(table_config, schema)))
    built = build_segment(columns, schema, TableConfig.from_json(table_config, schema), tmp_path, NAME, CREATION_TIME_MS,
                          BuildOptions(sort_by_sorted_column=False))
    ours, theirs = read_tarball(built.tar_path), read_tarball(FOLDER / f"{NAME}.tar.gz")
    assert sorted(ours) == sorted(theirs)
    differing = sorted(k for k, v in psf_payloads(theirs).items() if psf_payloads(ours).get(k) != v)
    assert differing == [], f"indexes whose bytes differ from Pinot's: {differing}"
    for name in ("metadata.properties", "index_map", "creation.meta"):
        assert ours[f"v3/{name}"] == theirs[f"v3/{name}"], name
