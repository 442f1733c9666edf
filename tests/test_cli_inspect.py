"""`pinot-sink inspect` on real Pinot segments."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from pinot_sink.cli import main


def _json_report(capsys, *argv):
    assert main(["inspect", *map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_report_matches_pinot_dump(pinot_built, capsys):
    folder = pinot_built / "all_types_nulls"
    report = _json_report(capsys, folder / "all_types_nulls_0.tar.gz", "--rows", "4")
    dump = [json.loads(line) for line in (folder / "dump-columns.jsonl").read_text().splitlines()]
    expected_meta = dump[0]
    segment = report["segment"]
    assert (segment["name"], segment["totalDocs"], segment["crc"], segment["dataCrc"]) == (
        expected_meta["segmentName"], 300, expected_meta["crc"], expected_meta["dataCrc"]
    )
    assert (segment["computedCrc"], segment["computedDataCrc"]) == (segment["crc"], segment["dataCrc"])
    assert segment["startTimeIso"] == "2019-04-14T00:00:00.000Z" and segment["timeUnit"] == "DAYS"
    columns = {c["name"]: c for c in report["columns"]}
    for expected in expected_meta["columns"]:
        got = columns[expected["columnName"]]
        assert got["indexes"] == expected["indexSizeMap"]
        assert got["cardinality"] == expected["cardinality"]
    nulls = {c["column"]: len(c.get("nullDocIds", [])) for c in dump if c["kind"] == "column"}
    assert {n: c["nullCount"] for n, c in columns.items()} == nulls  # `day`: isNonNull -> 0
    rows = [json.loads(line) for line in (folder / "dump-rows.jsonl").read_text().splitlines()[:4]]
    assert len(report["rows"]) == 4
    for got, expected in zip(report["rows"], rows):
        for name, value in got.items():
            if name in expected.get("nulls", ()):
                assert value is None, name
            elif name == "ts":
                assert value.endswith("Z")
            elif name == "b":
                assert value is bool(expected["values"][name])
            elif name in ("f", "mf"):
                assert np.array_equal(np.float32(value), np.float32(expected["values"][name]))
            else:
                assert value == expected["values"][name], name


def test_text_report(pinot_segments, capsys):
    assert main(["inspect", str(pinot_segments / "paddingNull.tar.gz"), "--rows", "2", "--columns", "name,age"]) == 0
    out = capsys.readouterr().out
    assert "segment     mySegment_0" in out and "5 docs" in out and "layout v1" in out
    assert "crc 2641412145   data crc -   (matches the files)" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("column "))
    assert header.split() == ["column", "type", "field", "card", "encoding", "sorted", "bits", "nulls", "min", "max",
                              "indexes"]
    name_line = next(line for line in lines if line.startswith("name "))
    assert "STRING" in name_line and "dictionary 18 B, forward_index 1 B" in name_line
    assert "rows 0..1 of 5" in out
    assert lines[-2].split() == ["0", '"lynda"', "1228"] and lines[-1].split() == ["1", '"lynda', '2.0"', "837"]


def test_metadata_only(pinot_segments, capsys):
    path = pinot_segments / "metadata-properties" / "metadata-with-unescaped.properties"
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "metadata only" in out and "created_at" in out  # the undescribed time column is reported
    report = _json_report(capsys, path)
    assert report["rows"] is None and report["segment"]["layout"] == "metadata-only"


def test_unknown_column_is_an_error(pinot_segments, capsys):
    assert main(["inspect", str(pinot_segments / "paddingNull.tar.gz"), "--columns", "nope"]) == 1
    assert "nope" in capsys.readouterr().err


def test_console_script_runs(pinot_built):
    result = subprocess.run(
        [sys.executable, "-m", "pinot_sink.cli", "inspect", "--rows", "1", "--json",
         str(pinot_built / "events_indexes" / "events_indexes_0.tar.gz")],
        capture_output=True, text=True, timeout=120, check=True,
    )
    report = json.loads(result.stdout)
    assert report["segment"]["totalDocs"] == 20000 and len(report["rows"]) == 1
    ts = next(c for c in report["columns"] if c["name"] == "ts")
    assert ts["sorted"] and ts["indexes"]["forward_index"] == 160008


def test_star_trees_match_pinot_dump(pinot_built, capsys):
    for name in ("startree", "startree_default"):
        folder = pinot_built / name
        report = _json_report(capsys, folder / f"{name}_0.tar.gz", "--rows", "0")
        expected = [json.loads(line) for line in (folder / "dump-columns.jsonl").read_text().splitlines()
                    if '"kind":"startree"' in line]
        got = report["segment"]["starTrees"]
        assert report["segment"]["starTreeCount"] == len(expected) == len(got)
        for tree, dump in zip(got, expected):
            assert tree["dimensionsSplitOrder"] == dump["dimensionsSplitOrder"]
            assert tree["functionColumnPairs"] == dump["functionColumnPairs"]
            assert tree["skipStarNodeCreationForDimensions"] == dump["skipStarNodeCreationForDimensions"]
            assert (tree["numDocs"], tree["numNodes"], tree["maxLeafRecords"]) == (
                dump["numDocs"], dump["numNodes"], dump["maxLeafRecords"])
            assert tree["numStarNodes"] == sum(1 for node in dump["nodes"][1:] if node[1] == -1)
    assert main(["inspect", str(pinot_built / "startree" / "startree_0.tar.gz"), "--rows", "0"]) == 0
    text = capsys.readouterr().out
    assert "star-trees  2" in text and "tree 1    split device > country" in text
    assert "5 function pairs: max__clicks, sum__revenue, countMV__tags, sumMV__tags, avgMV__tags" in text


def test_json_index_paths(pinot_built, capsys):
    """The JSON index Pinot built (timestamp_json: fieldConfigList indexes.json with excludeFields 'secret')."""
    report = _json_report(capsys, pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz", "--columns", "payload,attrs")
    payload = {c["name"]: c for c in report["columns"]}["payload"]["jsonIndex"]
    paths = {p["path"]: p for p in payload["paths"]}
    assert {".user.id", ".user.name", ".user.roles.$index", ".items..sku", ".note"} <= set(paths)
    assert ".secret" not in paths  # excludeFields
    assert paths[".user.id"]["docs"] == 1500 and payload["flattenedDocs"] >= 1500
    assert main(["inspect", str(pinot_built / "timestamp_json" / "timestamp_json_0.tar.gz"), "--rows", "0",
                 "--columns", "attrs"]) == 0
    text = capsys.readouterr().out
    assert "json index  attrs: 2 paths" in text and ".k " in text


def test_a_file_that_is_no_segment_is_named_so(tmp_path, capsys):
    """A Parquet file or a non-tarball named .tar.gz was taken for a bare metadata.properties: 'segment.name is
    missing', or a UnicodeDecodeError, instead of saying the file is no segment."""
    for name, content in (("events.tar.gz", b"hello"), ("rows.parquet", b"PAR1\xe5\x00\xff")):
        path = tmp_path / name
        path.write_bytes(content)
        assert main(["inspect", str(path)]) == 1
        err = capsys.readouterr().err
        assert f"{name}: not a segment (neither a segment tarball" in err and content[:4].hex() in err
    bare = tmp_path / "metadata.properties"
    bare.write_text("hello\n")
    assert main(["inspect", str(bare)]) == 1
    assert "segment.name is missing" in capsys.readouterr().err  # a real metadata.properties: its own fault


def test_a_folder_of_segments_says_how_to_inspect_one(pinot_built, tmp_path, capsys):
    """``pinot-sink inspect out/events`` (a table's folder) said 'metadata.properties is missing'; it names the
    folder's segments and a command to inspect one, quoted for a path with spaces."""
    import shutil

    folder = tmp_path / "my table"
    folder.mkdir()
    shutil.copy(pinot_built / "events_indexes" / "events_indexes_0.tar.gz", folder)
    assert main(["inspect", str(folder)]) == 1
    assert (f"is a folder of 1 segment(s), not a segment: inspect one, e.g. pinot-sink inspect "
            f"'{folder}/events_indexes_0.tar.gz'") in capsys.readouterr().err
