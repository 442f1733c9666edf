"""The ingestion_transforms case Pinot built: 2,000 raw orders through 67 transforms and a filter.

The raw rows go through our pipeline, then the type mapping and the segment builder, exactly as a task does;
the values must be what Pinot's reader returned for every doc and column (nulls included), and the segment
the same bytes as Pinot's.
"""
from __future__ import annotations

import json
import pickle
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
from type_mapping.reconcile import plan_write
from type_mapping.pinot_schema import PinotSchema  # noqa: E402

CASE = "ingestion_transforms"


@pytest.fixture(scope="module")
def case(pinot_built):
    folder = pinot_built / CASE
    schema = PinotSchema.from_json(json.loads((folder / "schema.json").read_text()))
    table_config = json.loads((folder / "table_config.json").read_text())
    rows = [json.loads(line) for line in (folder / "rows.jsonl").read_text().splitlines() if line.strip()]
    expected = [json.loads(line) for line in (folder / "dump-rows.jsonl").read_text().splitlines() if line.strip()]
    expected.sort(key=lambda r: r["docId"])
    return folder, schema, table_config, pa.Table.from_pylist(rows), expected


def _pipeline(case):
    _, schema, table_config, table, _ = case
    return IngestionPipeline.from_configs(schema, TableConfig.from_json(table_config, schema), table.schema)


def test_filter_drops_what_pinot_dropped(case):
    result = _pipeline(case).apply(case[3], 0)
    assert (result.filtered_rows, result.error_rows, result.table.num_rows) == (451, 0, 1549)


def test_raw_source_fields_are_dropped(case):
    pipeline = _pipeline(case)
    for source_only in ("qty", "unit_price", "discount", "payload", "labels", "created_at", "tags_csv"):
        assert source_only not in pipeline.output_schema.names
    assert set(pipeline.output_schema.names) == set(case[1].column_names)
    assert pipeline.apply(case[3], 0).table.schema == pipeline.output_schema


def _same(expected, ours) -> bool:
    if isinstance(ours, bool):
        ours = int(ours)
    if isinstance(expected, float) or isinstance(ours, float):
        return ours is not None and float(expected) == float(ours)
    return expected == ours


def test_every_value_is_what_pinot_read_back(case):
    _, schema, _, table, expected = case
    rows = _pipeline(case).apply(table, 0).table.to_pylist()
    assert len(rows) == len(expected)
    wrong = []
    for doc, (pinot, ours) in enumerate(zip(expected, rows)):
        nulls = set(pinot.get("nulls") or [])
        for column in schema.column_names:
            if column in nulls:
                if ours[column] is not None:
                    wrong.append((doc, column, None, ours[column]))
            elif not _same(pinot["values"][column], ours[column]):
                wrong.append((doc, column, pinot["values"][column], ours[column]))
    assert not wrong, f"{len(wrong)} values differ, first: {wrong[:5]}"


def test_same_segment_bytes_as_pinot(case, tmp_path):
    folder, schema, table_config, table, _ = case
    pipeline = pickle.loads(pickle.dumps(_pipeline(case)))  # as shipped to an executor
    ingested = pipeline.apply(table, 0)
    columns = to_pinot_columns(ingested.table, schema, plan_write(ingested.table.schema, schema, table_config=TableConfig.from_json(table_config, schema)))
    built = build_segment(columns, schema, TableConfig.from_json(table_config, schema), tmp_path, f"{CASE}_0", CREATION_TIME_MS,
                          BuildOptions(sort_by_sorted_column=False))
    ours, theirs = read_tarball(built.tar_path), read_tarball(folder / f"{CASE}_0.tar.gz")
    assert sorted(ours) == sorted(theirs)
    ours_payloads, theirs_payloads = psf_payloads(ours), psf_payloads(theirs)
    differing = sorted(key for key in theirs_payloads if ours_payloads.get(key) != theirs_payloads[key])
    assert differing == [], f"indexes whose bytes differ from Pinot's: {differing}"
    assert ours["v3/metadata.properties"] == theirs["v3/metadata.properties"]
    assert ours["v3/index_map"] == theirs["v3/index_map"]
    assert ours["v3/creation.meta"] == theirs["v3/creation.meta"]


def test_batches_give_the_same_rows_as_one_table(case):
    """A task feeds the pipeline batch by batch: the result must not depend on where batches are cut."""
    table = case[3]
    pipeline = _pipeline(case)
    whole = pipeline.apply(table, 0).table
    parts = [pipeline.apply(table.slice(start, 333), start) for start in range(0, table.num_rows, 333)]
    assert sum(p.filtered_rows for p in parts) == 451
    assert pa.concat_tables([p.table for p in parts]).equals(whole)
