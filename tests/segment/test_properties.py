"""metadata.properties reading and writing against files Pinot wrote (SEGMENT_FORMAT.md 2.1)."""
from __future__ import annotations

import tarfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment.properties import (
    PropertiesWriter,
    _escape_key_chars,
    _escape_value_chars,
    escape_key,
    escape_value,
    get_string_stat,
    parse_properties,
    pinot_escape_string,
    pinot_unescape_string,
)
from type_mapping.java_text import java_float_from_shortest, java_float_str

BUILT_CASES = ["all_types_dict", "all_types_dict_v1", "all_types_nulls", "raw_codecs", "events_indexes",
               "events_partitioned"]


def _metadata_from_tar(path: Path) -> tuple[bytes, bool]:
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.name.endswith("metadata.properties"):
                return tar.extractfile(member).read(), "/v3/" in member.name
    raise AssertionError(f"no metadata.properties in {path}")


def _rewrite(data: bytes, resaved: bool) -> bytes:
    """Parse with the reading rules, write back with the writing rules."""
    writer = PropertiesWriter()
    for key, value in parse_properties(data).items():
        if isinstance(value, list):
            writer.put_list(key, value)
        else:
            writer.put(key, value)
    return writer.render(resaved=resaved)


@pytest.mark.parametrize("case", BUILT_CASES)
def test_pinot_built_metadata_round_trips_byte_for_byte(pinot_built, case):
    data, is_v3 = _metadata_from_tar(pinot_built / case / f"{case}_0.tar.gz")
    assert _rewrite(data, resaved=is_v3) == data


@pytest.mark.parametrize("name", ["legacyRawInverted_OFFLINE_0.tar.gz", "legacyRawInverted_v3_OFFLINE_0.tar.gz"])
def test_legacy_metadata_round_trips_byte_for_byte(pinot_segments, name):
    data, is_v3 = _metadata_from_tar(pinot_segments / "legacy" / name)
    assert _rewrite(data, resaved=is_v3) == data


def test_escaped_value_fixture_reads_back_like_pinot(pinot_segments):
    props = parse_properties((pinot_segments / "metadata-properties" / "metadata-with-unescaped.properties").read_bytes())
    assert props["column.installation_output.minValue"] == (
        "\r\n\r\n  utils   em::C:\\dir\\utils\r\nPSParentPath            : Mi"
    )
    assert props["column.installation_output.maxNumberOfMultiValues"] == "-1"


def test_version_header_and_escaped_comma(pinot_segments):
    with_header = parse_properties(
        (pinot_segments / "metadata-properties" / "segment-metadata-with-version-header.properties").read_bytes()
    )
    assert len(with_header) == 123
    assert with_header["segment.dimension.column.names"] == [
        "ProductId", "Score", "Summary", "Text", "UserId", "combined", "embedding", "n_tokens"]
    without = parse_properties(
        (pinot_segments / "metadata-properties" / "segment-metadata-without-version-header.properties").read_bytes()
    )
    assert without["column-ProductId-maxValue"] == "B009,WVB40S"


@pytest.mark.parametrize(
    "value, line",
    [
        ("a,b", "column.c.minValue = a\\u0000\\u0000b\n"),
        (" lead", "column.c.minValue = \\u0000 lead\n"),
        ("back\\slash", "column.c.minValue = back\\\\slash\n"),
        ("tab\there", "column.c.minValue = tab\\there\n"),
        ("uni\u00e9\u4e2d", "column.c.minValue = uni\\u00E9\\u4E2D\n"),
        ("", "column.c.minValue = \n"),
    ],
)
def test_string_stat_lines_match_pinot_worked_examples(value, line):
    writer = PropertiesWriter()
    writer.put("column.c.minValue", pinot_escape_string(value))
    rendered = writer.render()
    assert rendered.decode() == line
    assert get_string_stat(parse_properties(rendered), "column.c.minValue") == value


def test_values_above_the_bmp_are_not_written():
    assert pinot_escape_string("emoji \U0001F600") is None


def test_unescape_is_the_inverse_of_escape():
    for value in ["", " ", "  both  ", "a,,b", ",", "x"]:
        assert pinot_unescape_string(pinot_escape_string(value)) == value


def test_resaved_empty_value_has_no_trailing_space():
    writer = PropertiesWriter()
    writer.put("column.by.defaultNullValue", "")
    assert writer.render() == b"column.by.defaultNullValue = \n"
    assert writer.render(resaved=True) == b"column.by.defaultNullValue =\n"


def test_keys_are_escaped():
    assert escape_key("a b=c:d") == "a\\ b\\=c\\:d"
    assert parse_properties(b"a\\ b\\=c\\:d = 1\n") == {"a b=c:d": "1"}


def test_text_left_as_is_needs_no_escape():
    # the regex that lets text through unchanged misses no character the per-character escape would change
    for code in list(range(0x2100)) + [0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF]:
        for text in (chr(code), f"a{chr(code)}b"):
            assert escape_key(text) == _escape_key_chars(text), hex(code)
            assert escape_value(text) == _escape_value_chars(text), hex(code)


def test_empty_list_writes_no_line():
    writer = PropertiesWriter()
    writer.put_list("segment.metric.column.names", [])
    assert writer.render() == b""


@pytest.mark.parametrize(
    "value, float32, expected",
    [
        (1e30, True, "1.0E30"),
        (341.87375, False, "341.87375"),
        (0.0, False, "0.0"),
        (-0.0, False, "-0.0"),
        (99.99, False, "99.99"),
        (1e-5, False, "1.0E-5"),
        (-12345000.0, False, "-1.2345E7"),
        (1234567.0, False, "1234567.0"),
        (10_000_000.0, False, "1.0E7"),
        (0.001, False, "0.001"),
        (0.0009, False, "9.0E-4"),
        (0.1, True, "0.1"),
        (float("inf"), False, "Infinity"),
        (float("-inf"), True, "-Infinity"),
        (float("nan"), False, "NaN"),
    ],
)
def test_java_float_spelling(value, float32, expected):
    assert java_float_str(value, float32=float32) == expected


def test_java_float_str_plain_range_shortcut_agrees_with_the_general_layout():
    """Between 1e-3 and 1e7 the shortest repr is taken as is; around and beyond those bounds the general
    digit layout must give the same strings."""
    rng = np.random.default_rng(3)
    doubles = np.concatenate([10.0 ** rng.uniform(-6, 10, 30_000), np.round(rng.uniform(0, 1e4, 5_000), 2),
                              [1e-3, 0.000999999, 0.001000001, 9999999.999999998, 1e7, 1.0, 100.0, 1234567.0]])
    java17_whole = (lambda v: 1e7 <= abs(v) < 2.0**63 and v == int(v))  # Java 17's own digits (test_java_rules)
    for value in np.concatenate([doubles, -doubles]):
        if not java17_whole(float(value)):
            assert java_float_str(value) == java_float_from_shortest(value, repr(float(value))), value
        single = float(np.float32(value))
        if not java17_whole(single):
            assert java_float_str(single, float32=True) == java_float_from_shortest(single, str(np.float32(single)))


def test_a_column_named_with_a_tab_is_read_as_pinot_reads_it(tmp_path):
    """Issue 32 item 11: Pinot's writer (and ours) escape the tab in a key as backslash + tab; Pinot's reader
    takes it back (tests/fixtures/tab_column: Pinot's segment and pinot-segment-dump's answer), and so must
    ours: the column was dropped before. Our own build of the same rows writes the same metadata keys."""
    import json
    import tarfile

    from pinot_sink.cli import main
    from pinot_sink.segment import read_segment

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "tab_column"
    rows = [json.loads(line) for line in (folder / "pinot_dump.jsonl").read_text().splitlines()
            if '"kind":"row"' in line]
    want = {"a\tb": [r["values"]["a\tb"] for r in rows], "id": [r["values"]["id"] for r in rows]}
    assert want == {"a\tb": ["x", "y"], "id": [1, 2]}
    assert read_segment(str(folder / "tabs_0.tar.gz")).table.to_pydict() == want
    assert main(["build", "--schema", str(folder / "schema.json"), "--table-config", str(folder / "table.json"),
                 "--input", str(folder / "rows.jsonl"), "--out", str(tmp_path), "--name", "tabs_0"]) == 0
    assert read_segment(str(tmp_path / "tabs_0.tar.gz")).table.to_pydict() == want

    def keys(path):
        with tarfile.open(path) as tar:
            text = tar.extractfile("tabs_0/v3/metadata.properties").read().decode()
        return sorted(line.split(" = ")[0] for line in text.splitlines() if line.startswith("column.a"))

    assert keys(tmp_path / "tabs_0.tar.gz") == keys(folder / "tabs_0.tar.gz")


def test_plain_lines_escaped_lines_and_continued_lines_read_together():
    """Lines without a backslash take the direct path, the others the escape-aware one: mixed in one file
    (a continued line, an escaped comma, a repeated key, a comment, a key ended by a tab) they read as Java's."""
    text = ("segment.padding.character = \\u0000\n# a comment = x\n a.b = 1, 2 ,3\nlist = x\\,y, z\n"
            "long = one \\\n    two\nk\tv\nrepeated = a\nrepeated = b, c\n! another\nempty =\nbare\n")
    assert parse_properties(text) == {
        "segment.padding.character": "\0", "a.b": ["1", "2", "3"], "list": ["x,y", "z"], "long": "one two",
        "k": "v", "repeated": ["a", "b", "c"], "empty": "", "bare": ""}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b.c", " = ", "=", ":", " ", "\t", "\\", "#", "!", ",", "\x1f",
                                           "\u00e9", "x, y "]), max_size=6).map("".join), max_size=8),
       st.sampled_from(["", "\n"]))
def test_lines_split_in_one_go_read_as_line_by_line(lines, end):
    """``parse_properties`` splits a text's "<key> = <value>" lines by one regular expression: the same keys,
    values, lists and repeats as reading every line one at a time (``splitlines``), whatever the lines hold
    (separators, blanks, comments, escapes, continued lines, non-ASCII)."""
    from pinot_sink.segment.properties import _parsed, parse_properties

    text = "\n".join(lines) + end
    assert parse_properties(text) == _parsed([("", "", raw) for raw in text.splitlines()])


@pytest.mark.parametrize("text", ["\x1fa = b", " a = b", "a = b\\", "a = b\\\nc = d", "x\\\na = b", "#a = b",
                                  "!a = b", "a = b, c", "a =  b ", "a:b = c", "=a = b", "a\t= b", "a = \\u0041",
                                  "a = b\na = c", "a = b\n\n\na = c, d\n", "a = b\r\nc = d", "é = b\na = c"])
def test_lines_split_in_one_go_read_as_line_by_line_examples(text):
    """The same, on the lines where the one-go split and the line-by-line reading could part."""
    from pinot_sink.segment.properties import _parsed, parse_properties

    assert parse_properties(text) == _parsed([("", "", raw) for raw in text.splitlines()])
