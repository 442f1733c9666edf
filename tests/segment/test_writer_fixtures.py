"""Byte equality with segments Apache Pinot's own builder wrote (shared/fixtures/pinot-built).

Each case is rebuilt from the values Pinot's reader returned, with the same schema, table config, name
and creation time; every (column, index id) payload, ``index_map``, ``metadata.properties`` and
``creation.meta`` are compared, so a failure names the index that differs.
"""
from __future__ import annotations

import difflib

import numpy as np
import pyarrow as pa
import pytest

from fixture_loader import CREATION_TIME_MS, load_case, psf_payloads, read_tarball
from pinot_sink.segment.builder import BuildOptions, build_segment
from type_mapping.table_config import TableConfig

# Where our bytes differ from Pinot's on purpose or by codec choice (docs/segment-format-notes.md).
KNOWN_DIFFERENCES = {
    # cramjam's Snappy encoder chose other (equally valid) matches than snappy-java for this chunk.
    "raw_codecs": {("l", "forward_index")},
}


def _build(case, tmp_path, **options):
    return build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), tmp_path, case.segment_name,
                         CREATION_TIME_MS, BuildOptions(sort_by_sorted_column=False, **options))


def _payloads(files: dict[str, bytes]) -> dict:
    if "v3/index_map" in files:
        return psf_payloads(files)
    return {name: data for name, data in files.items() if name not in ("metadata.properties", "creation.meta")}


def _metadata_name(files: dict[str, bytes]) -> str:
    return "v3/metadata.properties" if "v3/index_map" in files else "metadata.properties"


def _assert_same_metadata(ours: dict[str, bytes], theirs: dict[str, bytes]) -> None:
    name = _metadata_name(theirs)
    if ours[name] != theirs[name]:
        diff = "\n".join(difflib.unified_diff(theirs[name].decode().splitlines(), ours[name].decode().splitlines(),
                                              "pinot", "ours", lineterm=""))
        pytest.fail(f"{name} differs:\n{diff}")


@pytest.mark.parametrize("name", ["all_types_dict", "all_types_dict_v1", "all_types_nulls", "raw_codecs",
                                  "events_indexes", "events_partitioned"])
def test_same_bytes_as_pinot(name, pinot_built, tmp_path):
    case = load_case(pinot_built / name)
    built = _build(case, tmp_path)
    ours, theirs = read_tarball(built.tar_path), case.pinot_files()
    assert sorted(ours) == sorted(theirs)

    ours_payloads, theirs_payloads = _payloads(ours), _payloads(theirs)
    assert sorted(ours_payloads) == sorted(theirs_payloads)
    differing = {key for key in theirs_payloads if ours_payloads[key] != theirs_payloads[key]}
    assert differing == KNOWN_DIFFERENCES.get(name, set()), f"indexes whose bytes differ from Pinot's: {differing}"
    _assert_same_metadata(ours, theirs)

    if "v3/index_map" in theirs and not differing:
        assert ours["v3/index_map"] == theirs["v3/index_map"]
    if not differing:
        creation = "v3/creation.meta" if "v3/index_map" in theirs else "creation.meta"
        assert ours[creation] == theirs[creation]
        assert built.crc == int.from_bytes(theirs[creation][:8], "big")


def test_raw_snappy_difference_is_only_compression(pinot_built, tmp_path):
    """The one raw chunk that differs holds the same values: Pinot's reader decodes both the same way."""
    from pinot_sink.segment.read.reader import open_segment

    case = load_case(pinot_built / "raw_codecs")
    built = _build(case, tmp_path)
    ours, theirs = psf_payloads(read_tarball(built.tar_path)), psf_payloads(case.pinot_files())
    # Same header (version 4, 1 chunk of 1024 docs, 8-byte entries, 300 docs, SNAPPY, offsets at 28).
    assert ours[("l", "forward_index")][:36] == theirs[("l", "forward_index")][:36]
    with open_segment(built.tar_path) as mine, open_segment(case.tarball) as pinot:
        assert mine.stored_values("l").equals(pinot.stored_values("l"))
        assert mine.stored_values("l").equals(case.columns.table.column("l").combine_chunks())


def test_sorted_column_sorts_rows(pinot_built, tmp_path):
    """With sort_by_sorted_column (the default), ``country`` is sorted and every row moves as a whole."""
    from pinot_sink.segment.read.reader import open_segment

    case = load_case(pinot_built / "events_indexes")
    built = build_segment(case.columns, case.schema, TableConfig.from_json(case.table_config, case.schema), tmp_path, case.segment_name,
                          CREATION_TIME_MS)
    _check_sorted_by_country(case, built, open_segment)


def _check_sorted_by_country(case, built, open_segment):
    original = case.columns.table
    with open_segment(built.tar_path) as segment:
        meta = segment.column("country")
        assert meta.sorted
        country = segment.stored_values("country").to_pylist()
        assert country == sorted(country)
        # the forward index is the sorted one: per dictId a contiguous (first, last) doc range
        ranges = segment.sorted_doc_ranges("country")
        assert ranges is not None and ranges[0][0] == 0 and ranges[-1][1] == len(country) - 1
        assert all(ranges[i + 1][0] == ranges[i][1] + 1 for i in range(len(ranges) - 1))
        assert not segment.column("ts").sorted  # ts was sorted only in the input order
        # Rows permuted consistently: Pinot's input order is stable within each country.
        order = np.argsort(np.array(original.column("country").to_pylist()), kind="stable")
        expected = original.take(pa.array(order))
        for name in original.column_names:
            assert segment.stored_values(name).equals(expected.column(name).combine_chunks()), name
        # The inverted index of city follows the permuted rows.
        city_ids = segment.dict_ids("city").to_numpy()
        for dict_id, docs in enumerate(segment.inverted_index("city")):
            assert np.array_equal(np.flatnonzero(city_ids == dict_id), docs)


def test_timestamp_and_json_indexes_same_bytes_as_pinot(pinot_built, tmp_path):
    """The derived $ts$HOUR / DAY / WEEK / MONTH columns (dictionary, forward, range index) and the JSON
    indexes of both config forms (fieldConfigList indexes.json on a JSON column, jsonIndexColumns on a STRING
    column): every payload, the index_map, metadata.properties and creation.meta."""
    case = load_case(pinot_built / "timestamp_json")
    built = _build(case, tmp_path)
    ours, theirs = read_tarball(built.tar_path), case.pinot_files()
    ours_payloads, theirs_payloads = psf_payloads(ours), psf_payloads(theirs)
    assert len([key for key in theirs_payloads if key[0].startswith("$ts$")]) == 12
    assert {("payload", "json_index"), ("attrs", "json_index")} <= set(theirs_payloads)
    assert sorted(ours_payloads) == sorted(theirs_payloads)
    assert {key for key in theirs_payloads if ours_payloads[key] != theirs_payloads[key]} == set()
    _assert_same_metadata(ours, theirs)
    assert ours["v3/index_map"] == theirs["v3/index_map"] and ours["v3/creation.meta"] == theirs["v3/creation.meta"]
    assert built.skipped_indexes == []


def test_json_index_flattening_options_same_bytes_as_pinot(tmp_path):
    """Every JsonIndexConfig option, in the three config forms, against the segment Pinot built
    (tests/fixtures/json_index/README.md)."""
    import json
    from pathlib import Path

    from pinot_sink.segment.json_index import read_json_index
    from type_mapping import PinotColumns, PinotSchema

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "json_index"
    schema = PinotSchema.from_json(json.loads((folder / "schema.json").read_text()))
    rows = [json.loads(line) for line in (folder / "rows.jsonl").read_text().splitlines()]
    table = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()),
                      **{f"j{i}": pa.array([r[f"j{i}"] for r in rows]) for i in range(1, 7)}})
    built = build_segment(PinotColumns(table, {}), schema, TableConfig.from_json(json.loads((folder / "table_config.json").read_text()), schema),
                          tmp_path, "json_flatten_0", CREATION_TIME_MS)
    ours, theirs = read_tarball(built.tar_path), read_tarball(folder / "json_flatten_0.tar.gz")
    ours_payloads, theirs_payloads = psf_payloads(ours), psf_payloads(theirs)
    assert sorted(ours_payloads) == sorted(theirs_payloads)
    for column in (f"j{i}" for i in range(1, 7)):
        keys, postings, mapping = read_json_index(theirs_payloads[(column, "json_index")])
        assert len(keys) > 10 and len(mapping) >= 30, column  # each config indexes something
        assert ours_payloads[(column, "json_index")] == theirs_payloads[(column, "json_index")], column
    assert {key for key in theirs_payloads if ours_payloads[key] != theirs_payloads[key]} == set()
    _assert_same_metadata(ours, theirs)
    assert ours["v3/index_map"] == theirs["v3/index_map"]
