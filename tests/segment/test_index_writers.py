"""The index-writer contract: the builder writes exactly what the registered writers say, under their
ids and extensions, in both layouts."""
from __future__ import annotations

import pyarrow as pa
import pytest

from fixture_loader import psf_payloads, read_tarball
from pinot_sink.segment import build_segment, builder, index_writers
from pinot_sink.segment.builder import BuildOptions
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"}, {"name": "id", "dataType": "INT"}],
})
CONFIG = {"tableName": "t_OFFLINE", "tableIndexConfig": {"invertedIndexColumns": ["city"],
                                                        "noDictionaryColumns": ["id"]}}
COLUMNS = PinotColumns(pa.table({"city": pa.array(["b", "a", "b"]), "id": pa.array([3, 1, 2], pa.int32())}), {})


class RowCountWriter:
    """A made-up index: the column's row count, on dictionary-encoded columns only."""

    index_id = "row_count"

    def file_extension(self, ctx):
        return ".rows"

    def applies_to(self, ctx):
        return ctx.has_dictionary

    def write(self, ctx):
        return ctx.stats.total_number_of_entries.to_bytes(4, "big")


def test_the_registry_is_what_the_builder_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(builder, "INDEX_WRITERS", index_writers.INDEX_WRITERS + (RowCountWriter(),))
    v1 = read_tarball(build_segment(COLUMNS, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / "v1", "s", 0,
                                    BuildOptions(segment_version="v1")).tar_path)
    names = sorted(v1)
    assert names == ["city.bitmap.inv", "city.dict", "city.rows", "city.sv.unsorted.fwd", "creation.meta",
                     "id.sv.raw.fwd", "metadata.properties"]
    assert v1["city.rows"] == (3).to_bytes(4, "big")
    v3 = read_tarball(build_segment(COLUMNS, SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), tmp_path / "v3", "s", 0).tar_path)
    payloads = psf_payloads(v3)
    assert payloads[("city", "row_count")] == (3).to_bytes(4, "big")
    assert sorted(payloads) == [("city", "dictionary"), ("city", "forward_index"), ("city", "inverted_index"),
                                ("city", "row_count"), ("id", "forward_index")]


def test_writer_ids_and_extensions_are_distinct():
    fixed = [w for w in index_writers.INDEX_WRITERS if w.index_id != "forward_index"]
    assert len({w.index_id for w in index_writers.INDEX_WRITERS}) == len(index_writers.INDEX_WRITERS)
    assert len({w.extension for w in fixed}) == len(fixed)


@pytest.mark.parametrize("has_dictionary, single_value, is_sorted, extension", [
    (True, True, True, ".sv.sorted.fwd"), (True, True, False, ".sv.unsorted.fwd"), (True, False, False, ".mv.fwd"),
    (False, True, False, ".sv.raw.fwd"), (False, False, False, ".mv.raw.fwd"),
])
def test_forward_index_extension_follows_the_column(has_dictionary, single_value, is_sorted, extension):
    from pinot_sink.segment.format import forward_index_extension

    assert forward_index_extension(has_dictionary, single_value, is_sorted) == extension
