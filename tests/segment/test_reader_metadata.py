"""Metadata parsing rules of Pinot's reader (SegmentMetadataImpl / ColumnMetadataImpl) on small synthetic files."""
from __future__ import annotations

import decimal

import pytest

from pinot_sink.segment.read.reader import read_segment
from pinot_sink.segment.read.segment_metadata import (
    CreationMeta,
    SegmentFormatError,
    parse_index_map,
    parse_segment_metadata,
)

BASE = """segment.name = s_0
segment.table.name = events_OFFLINE
segment.dimension.column.names = a.b,mv,name
segment.metric.column.names = m
segment.total.docs = 3
segment.time.column.name = m
segment.start.time = 10
segment.end.time = 12
segment.time.unit = daysSinceEpoch
column.a.b.columnType = DIMENSION
column.a.b.dataType = BYTES
column.a.b.cardinality = 2
column.a.b.lengthOfEachEntry = 3
column.a.b.minValue = 00ff
column.a.b.defaultNullValue = 
column.a.b.partitionFunction = Murmur
column.a.b.numPartitions = 8
column.a.b.partitionValues = [0 2],6
column.mv.columnType = DIMENSION
column.mv.dataType = LONG
column.mv.isSingleValues = false
column.mv.cardinality = 4
column.mv.maxNumberOfMultiValues = 3
column.mv.totalNumberOfEntries = 5
column.mv.maxRowLengthInBytes = 99
column.name.columnType = DIMENSION
column.name.dataType = STRING
column.name.cardinality = 1
column.name.hasDictionary = false
column.name.bitsPerElement = 1
column.name.lengthOfLongestElement = 7
column.name.maxNumberOfMultiValues = -1
column.name.minValue = \\u0000 x\\u0000\\u0000y
column.name.defaultNullValue = n/a
column.m.columnType = METRIC
column.m.dataType = BIG_DECIMAL
column.m.cardinality = 3
column.m.maxValue = 1.50
column.m.minValue = -Infinity
"""


def test_reader_canonicalisation():
    with pytest.raises(SegmentFormatError, match=r"column 'm': minValue '-Infinity' is not a valid BIG_DECIMAL"):
        parse_segment_metadata(BASE)
    meta = parse_segment_metadata(BASE.replace("column.m.minValue = -Infinity", "column.m.minValue = -2E+3"))
    assert (meta.name, meta.table_name, meta.total_docs, meta.version) == ("s_0", "events", 3, "v1")
    assert (meta.time_unit, meta.start_time_ms, meta.end_time_ms) == ("DAYS", 10 * 86400000, 12 * 86400000)
    assert list(meta.columns) == ["a.b", "m", "mv", "name"]

    ab = meta.columns["a.b"]
    assert (ab.min_value, ab.max_value, ab.default_null_value) == (b"\x00\xff", None, b"")
    assert (ab.partition_function, ab.num_partitions, ab.partitions) == ("Murmur", 8, (0, 1, 2, 6))
    assert (ab.total_number_of_entries, ab.max_number_of_multi_values, ab.max_row_length_in_bytes) == (3, 0, 3)
    assert ab.length_of_longest_element == 3  # pre-1.6: falls back to lengthOfEachEntry (dictionary column)

    mv = meta.columns["mv"]
    assert (mv.length_of_shortest_element, mv.length_of_longest_element) == (8, 8)
    assert (mv.total_number_of_entries, mv.max_row_length_in_bytes) == (5, 24)  # 3 values x 8 bytes
    assert mv.default_null_value == -(2**63)

    name = meta.columns["name"]
    assert (name.bits_per_element, name.forward_index_encoding) == (-1, "RAW")
    assert name.max_number_of_multi_values == 0
    assert name.min_value == " x,y"  # Pinot's NUL pre-escaping undone
    assert name.default_null_value == "n/a"

    m = meta.columns["m"]
    assert (m.min_value, m.max_value) == (decimal.Decimal("-2E+3"), decimal.Decimal("1.50"))
    assert m.default_null_value == decimal.Decimal(0)
    schema = meta.schema()
    assert schema["name"].default_null_value_in_schema and not schema["mv"].default_null_value_in_schema


def test_errors_name_key_and_column():
    base = BASE.replace("-Infinity", "1")
    with pytest.raises(SegmentFormatError, match="segment.total.docs"):
        parse_segment_metadata(base.replace("segment.total.docs = 3", "segment.total.docs = three"))
    with pytest.raises(SegmentFormatError, match=r"column\.mv\.cardinality"):
        parse_segment_metadata(base.replace("column.mv.cardinality = 4\n", ""))
    with pytest.raises(SegmentFormatError, match="column 'mv': unknown Pinot data type 'WIDGET'"):
        parse_segment_metadata(base.replace("column.mv.dataType = LONG", "column.mv.dataType = WIDGET"))
    with pytest.raises(SegmentFormatError, match="segment.name"):
        parse_segment_metadata("segment.total.docs = 1\n")


def test_bad_time_unit_leaves_interval_unset():
    meta = parse_segment_metadata(BASE.replace("daysSinceEpoch", "fortnights").replace("-Infinity", "1"))
    assert (meta.time_unit, meta.start_time, meta.start_time_ms) == (None, None, None)


def test_index_map_keys_split_from_the_right():
    entries = parse_index_map("a.b.dictionary.startOffset = 0\na.b.dictionary.size = 16\n"
                              "a\\ c.forward_index.startOffset = 16\na\\ c.forward_index.size = 9\n")
    assert entries["a.b"]["dictionary"].size == 16
    assert (entries["a c"]["forward_index"].offset, entries["a c"]["forward_index"].size) == (16, 9)
    with pytest.raises(SegmentFormatError, match="x.dictionary has no size"):
        parse_index_map("x.dictionary.startOffset = 0\n")


def test_creation_meta_lengths():
    assert CreationMeta.parse(bytes(7) + b"\x05" + bytes(7) + b"\x06") == CreationMeta(5, 6, None)
    assert CreationMeta.parse(bytes(16) + b"\xff" * 8).data_crc == -1
    with pytest.raises(SegmentFormatError, match="creation.meta"):
        CreationMeta.parse(bytes(8))


def test_empty_segment_reads_as_zero_rows(tmp_path):
    text = BASE.replace("segment.total.docs = 3", "segment.total.docs = 0").replace("-Infinity", "1")
    (tmp_path / "metadata.properties").write_text(text)
    contents = read_segment(tmp_path)
    assert contents.num_rows == 0
    assert contents.table.column_names == ["a.b", "m", "mv", "name"]
    column = contents.metadata.columns["mv"]
    assert (column.cardinality, column.has_dictionary, column.min_max_value_invalid) == (0, False, True)


INDEX_MAP_TEXTS = {
    "as written": "a.dictionary.startOffset = 0\na.dictionary.size = 16\nb.c.forward_index.startOffset = 16\n"
                  "b.c.forward_index.size = 40\n",
    "no spaces": "a.dictionary.startOffset=0\na.dictionary.size=16\n",
    "colon and tab": "a.dictionary.startOffset:\t0\na.dictionary.size = 16\n",
    "comment and blank line": "# offsets\na.dictionary.startOffset = 0\n\na.dictionary.size = 16\n",
    "CRLF": "a.dictionary.startOffset = 0\r\na.dictionary.size = 16\r\n",
    "escaped key": "a\\ b.dictionary.startOffset = 0\na\\ b.dictionary.size = 16\n",
    "repeated key": "a.dictionary.startOffset = 0\na.dictionary.startOffset = 8\na.dictionary.size = 16\n",
    "no last newline": "a.dictionary.startOffset = 0\na.dictionary.size = 16",
}


@pytest.mark.parametrize("name", sorted(INDEX_MAP_TEXTS))
def test_index_map_read_by_its_pattern_or_by_the_parser_alike(name, monkeypatch):
    """Index maps as Pinot writes them skip the properties parser; any other line sends the whole map through
    it: the entries (or the error) are the parser's either way."""
    import re

    from pinot_sink.segment.read import segment_metadata

    def outcome():
        try:
            return parse_index_map(INDEX_MAP_TEXTS[name])
        except SegmentFormatError as exc:
            return str(exc)

    fast = outcome()
    monkeypatch.setattr(segment_metadata, "_INDEX_MAP_LINE", re.compile(r"(?!)"))  # never matches: the parser
    assert outcome() == fast


def test_an_index_map_as_written_is_not_given_to_the_parser(monkeypatch):
    from pinot_sink.segment.read import segment_metadata

    monkeypatch.setattr(segment_metadata, "parse_properties", lambda text: pytest.fail("parsed"))
    entries = parse_index_map(INDEX_MAP_TEXTS["as written"])
    assert entries["b.c"]["forward_index"] == segment_metadata.IndexEntry("b.c", "forward_index", 16, 40)
