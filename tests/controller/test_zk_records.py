"""The ZooKeeper record size model against Helix's own serializer (``tests/fixtures/zk_record_sizes.json``,
measured by ``tools/zk_record_sizes``), and the budget a commit is checked against."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pinot_sink.controller.zk_records import (ZnRecord, java_gzip, project_commit, record_json, written_size)
from tests.controller.zk_cases import case_record, segment_names

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "zk_record_sizes.json").read_text())
MEASURED = FIXTURE["cases"]


@pytest.mark.parametrize("row", MEASURED, ids=lambda row: json.dumps(row["case"], separators=(",", ":")))
def test_the_model_agrees_with_helix_within_2_percent(row):
    size = written_size(case_record(row["case"]))
    assert size.compressed == row["compressed"]
    assert size.json_bytes == row["json_bytes"]  # the JSON is Helix's to the byte
    assert abs(size.written_bytes - row["written_bytes"]) <= 0.02 * row["written_bytes"]


def test_the_json_is_jacksons_indented_form():
    record = ZnRecord("t_OFFLINE", {"REPLICAS": "1"}, {"s1": {"Server_1": "ONLINE"}}, {"e": ["a,b", "c"], "f": []})
    assert record_json(record).decode() == (
        '{\n  "id" : "t_OFFLINE",\n  "simpleFields" : {\n    "REPLICAS" : "1"\n  },\n  "mapFields" : {\n'
        '    "s1" : {\n      "Server_1" : "ONLINE"\n    }\n  },\n  "listFields" : {\n    "e" : [ "a,b", "c" ],\n'
        '    "f" : [ ]\n  }\n}')
    assert record_json(ZnRecord("x", {}, {}, {})).decode() == (
        '{\n  "id" : "x",\n  "simpleFields" : { },\n  "mapFields" : { },\n  "listFields" : { }\n}')


def test_java_gzip_is_a_gzip_stream_of_the_same_bytes():
    data = b"segment_" * 5000
    packed = java_gzip(data)
    assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed) == data


def test_a_commit_within_the_limit_fits_and_one_over_it_is_refused_with_numbers_and_fixes():
    names = segment_names(20000, "r1", "uuid")
    small = project_commit("events_OFFLINE", {}, {}, names[:2000], [])
    assert small.fits
    big = project_commit("events_OFFLINE", {}, {}, names, [], limit=300_000)
    assert not big.fits
    message = big.refusal("events")
    assert "nothing was uploaded" in message and "commit.zk-record-limit" in message
    assert f"{big.ideal_state.written_bytes:,}" in message and "300,000" in message
    assert "bigger segments" in message and "smaller writes" in message


def test_a_replace_counts_both_snapshots_in_the_ideal_state():
    old = segment_names(3000, "o1", "uuid")
    state = {name: {"Server_a_8098": "ONLINE"} for name in old}
    budget = project_commit("events_OFFLINE", {}, state, segment_names(3000, "o2", "uuid"), old)
    assert budget.ideal_state_segments == 6000 and budget.replaced_segments == 3000
    alone = project_commit("events_OFFLINE", {}, {}, segment_names(3000, "o2", "uuid"), [])
    assert budget.ideal_state.written_bytes > 1.8 * alone.ideal_state.written_bytes


def test_the_model_predicts_what_the_real_controller_accepted_and_refused():
    real = FIXTURE["real_cluster"]
    for case in real["cases"]:
        budget = project_commit(case["table"], {}, {}, segment_names(case["segments"], "r1", "uuid"), [],
                                limit=real["limit"])
        assert (budget.lineage.written_bytes <= real["limit"]) == case["accepted"]  # a start only writes lineage
        for size in case.get("helix_sizes", ()):
            assert abs(budget.lineage.written_bytes - size) <= 0.02 * size
