"""The reader against older real Pinot segments and metadata files (shared/fixtures/pinot-segments/README.md)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pinot_sink.segment.read.reader import SegmentFormatError, open_segment, read_segment

PADDING_ROWS = {
    "age": [1228, 837, 1209, 617, 824],
    "percent": [341.87375, 793.6646, 925.2542, 864.6524, 411.72318],
    "outgoingName1": [902, 467, 310, 246, 336],
}
PADDING_CREATION = {
    "paddingNull": (0x9D70C031, 1468780127653),
    "paddingOld": (0x4E8DB496, 1468779529252),
    "paddingPercent": (0xDFF7BF15, 1468780512677),
}


@pytest.mark.parametrize("name", sorted(PADDING_CREATION))
def test_padding_segments(pinot_segments, name):
    with open_segment(pinot_segments / f"{name}.tar.gz") as reader:
        meta = reader.metadata
        assert reader.layout == "v1"
        assert (meta.name, meta.table_name, meta.total_docs, meta.version) == ("mySegment_0", "myTable", 5, "v1")
        assert (meta.time_column, meta.time_unit, meta.start_time, meta.end_time) == ("outgoingName1", "DAYS", 246, 902)
        assert (meta.crc, meta.creation_time_ms) == PADDING_CREATION[name]
        assert meta.data_crc is None  # 16-byte creation.meta
        data_crc = 0xDB791671 if name == "paddingNull" else 0x0ED6171D
        assert reader.compute_crcs() == (meta.crc, data_crc)
        assert meta.dimension_columns == ("age", "name", "percent") and meta.metric_columns == ()
        assert sorted(meta.columns) == ["age", "name", "outgoingName1", "percent"]
        shape = {c: (m.field_type, m.data_type, m.cardinality, m.bits_per_element, m.dictionary_element_size)
                 for c, m in meta.columns.items()}
        assert shape == {
            "age": ("DIMENSION", "INT", 5, 3, 0),
            "name": ("DIMENSION", "STRING", 2, 1, 9),
            "percent": ("DIMENSION", "FLOAT", 5, 3, 0),
            "outgoingName1": ("TIME", "LONG", 5, 3, 0),
        }
        assert reader.dictionary("age").to_pylist() == [617, 824, 837, 1209, 1228]
        assert reader.dictionary("outgoingName1").to_pylist() == [246, 310, 336, 467, 902]
        assert reader.dict_ids("age").to_pylist() == [4, 2, 3, 0, 1]
        assert reader.dict_ids("percent").to_pylist() == [0, 2, 4, 3, 1]
        assert reader.dict_ids("outgoingName1").to_pylist() == [4, 3, 1, 0, 2]
        assert reader.index_sizes("age") == {"dictionary": 20, "forward_index": 2}
        for column, expected in PADDING_ROWS.items():
            got = reader.stored_values(column).to_numpy()
            assert (got == np.array(expected, dtype=got.dtype)).all(), column
        names = reader.stored_values("name").to_pylist()
        # Only NUL padding is stripped (as current Pinot does); '%'-padded values keep their '%'.
        if name == "paddingNull":
            assert reader.dictionary("name").to_pylist() == ["lynda", "lynda 2.0"]
            assert names == ["lynda", "lynda 2.0", "lynda 2.0", "lynda 2.0", "lynda"]
        else:
            assert reader.dictionary("name").to_pylist() == ["lynda 2.0", "lynda%%%%"]
            assert names == ["lynda%%%%", "lynda 2.0", "lynda 2.0", "lynda 2.0", "lynda%%%%"]


@pytest.mark.parametrize("tarball", ["legacyRawInverted_OFFLINE_0.tar.gz", "legacyRawInverted_v3_OFFLINE_0.tar.gz"])
def test_legacy_metadata_and_index_sizes(pinot_segments, tarball):
    with open_segment(pinot_segments / "legacy" / tarball) as reader:
        meta = reader.metadata
        v3 = "_v3_" in tarball
        assert reader.layout == ("v3" if v3 else "v1") and meta.version == ("v3" if v3 else "v1")
        assert (meta.name, meta.table_name, meta.total_docs) == ("legacyRawInverted_OFFLINE_0", "legacyRawInverted", 600)
        assert (meta.crc, meta.creation_time_ms, meta.data_crc) == (0x4D76BDB7, 1777871824473, 0x64028585)
        # A server-converted v3 segment keeps the v1 CRC in creation.meta; its own files give another one.
        assert reader.compute_crcs() == ((0x80450A97 if v3 else 0x4D76BDB7), 0x64028585)
        column = reader.column("category")
        assert (column.has_dictionary, column.forward_index_encoding, column.cardinality) == (False, "RAW", 4)
        assert column.bits_per_element == -1  # canonicalised: no dictionary
        assert (column.min_value, column.max_value, column.default_null_value) == ("alpha", "gamma", "null")
        assert column.max_length == 512 and not column.auto_generated
        sizes = {"forward_index": 2577, "inverted_index": 1391} if v3 else {"forward_index": 2569, "inverted_index": 1383}
        assert reader.index_sizes("category") == sizes
        assert reader.dictionary("category") is None and reader.dict_ids("category") is None
        assert reader.inverted_index("category") is None  # no dictionary: not a standard inverted index
        values, postings = reader.legacy_raw_inverted_index("category")
        assert values.to_pylist() == ["alpha", "beta", "delta", "gamma"]
        assert [p.tolist() for p in postings] == [
            list(range(0, 600, 2)), list(range(1, 600, 6)), list(range(5, 600, 6)), list(range(3, 600, 6))
        ]
        forward = reader.stored_values("category").to_pylist()
        for value, docs in zip(values.to_pylist(), postings):
            assert {forward[d] for d in docs} == {value}


@pytest.mark.parametrize("tarball", ["legacyRawInverted_OFFLINE_0.tar.gz", "legacyRawInverted_v3_OFFLINE_0.tar.gz"])
def test_legacy_rows(pinot_segments, tarball):
    contents = read_segment(pinot_segments / "legacy" / tarball)
    values = contents.table.column("category").to_pylist()
    assert values[:12] == ["alpha", "beta", "alpha", "gamma", "alpha", "delta"] * 2
    digest = hashlib.sha1("\n".join(values).encode()).hexdigest()
    assert digest == "7aa9e28f0bcf7548fc1b8ab092108d82aed52eea"


def test_metadata_with_escaped_values(pinot_segments):
    with open_segment(pinot_segments / "metadata-properties" / "metadata-with-unescaped.properties") as reader:
        meta = reader.metadata
        assert reader.layout == "metadata-only"
        assert (meta.name, meta.total_docs, meta.time_column) == ("mytable_segment_0", 6478, "created_at")
        assert (meta.time_unit, meta.start_time, meta.end_time) == ("MILLISECONDS", 1707431311000, 1707517649000)
        assert meta.undescribed_columns == ("created_at",)
        output = reader.column("installation_output")
        assert output.min_value == "\r\n\r\n  utils   em::C:\\dir\\utils\r\nPSParentPath            : Mi"
        assert output.max_value == "null"
        assert output.dictionary_element_size == 512 and output.cardinality == 31
        assert output.max_number_of_multi_values == 0  # -1 in the file, canonicalised for SV
        created = reader.column("createdAt")
        assert (created.data_type, created.stored_type, created.field_type) == ("TIMESTAMP", "LONG", "DATE_TIME")
        assert (created.min_value, created.max_value, created.default_null_value) == (1634841705000, 1707517574000, 0)
        assert created.datetime_format == "1:MILLISECONDS:TIMESTAMP"
        with pytest.raises(SegmentFormatError, match="only metadata"):
            reader.values("createdAt")


@pytest.mark.parametrize("header", ["with", "without"])
def test_metadata_version_header(pinot_segments, header):
    path = pinot_segments / "metadata-properties" / f"segment-metadata-{header}-version-header.properties"
    with open_segment(path) as reader:
        meta = reader.metadata
        assert len(meta.properties) == 123
        assert (meta.name, meta.table_name, meta.total_docs) == ("fineFoodReviews_OFFLINE_0", "fineFoodReviews", 1000)
        assert meta.dimension_columns == (
            "ProductId", "Score", "Summary", "Text", "UserId", "combined", "embedding", "n_tokens"
        )
        assert "input.data.file.uri" in meta.custom
        product = reader.column("ProductId")
        assert (product.cardinality, product.bits_per_element, product.dictionary_element_size) == (868, 10, 10)
        assert product.min_value == "7310172001"
        if header == "with":
            assert product.max_value == "B009WVB40S"
        else:
            assert product.max_value is None
            assert meta.properties["column-ProductId-maxValue"] == "B009,WVB40S"


def test_startree_metadata_and_index_map(pinot_segments):
    with open_segment(pinot_segments / "startree" / "segment") as reader:
        meta = reader.metadata
        assert reader.layout == "v3"
        assert (meta.name, meta.total_docs, meta.star_tree_count) == ("airlineStats_OFFLINE_16085_16085_0", 313, 1)
        assert (meta.time_column, meta.time_unit, meta.start_time, meta.end_time) == ("DaysSinceEpoch", "DAYS", 16085, 16085)
        # No segment.dimension.column.names line: like Pinot, only the listed DATE_TIME columns are columns.
        assert sorted(meta.columns) == ["$ts$DAY", "$ts$MONTH", "$ts$WEEK", "DaysSinceEpoch", "ts", "tsRaw"]
        ts = reader.column("ts")
        assert (ts.data_type, ts.datetime_format, ts.datetime_granularity) == (
            "TIMESTAMP", "1:MILLISECONDS:TIMESTAMP", "1:SECONDS"
        )
        assert ts.min_value == ts.max_value == 1389744000000 and ts.sorted
        assert reader.index_sizes("$ts$DAY") == {"dictionary": 16, "forward_index": 16, "range_index": 38}
        days = reader.column("DaysSinceEpoch")
        assert (days.min_value, days.default_null_value) == (16085, -(2**31))
        assert meta.properties["startree.v2.0.split.order"] == ["AirlineID", "Origin", "Dest"]
        with pytest.raises(SegmentFormatError, match="columns.psf"):
            reader.stored_values("ts")
