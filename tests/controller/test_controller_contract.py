"""The test controller answers as the real one: the recorded contract (``tests/fixtures/controller_contract/``,
recorded from a real Pinot controller by ``tools/controller_contract/record.py``) replayed against it.

Per case: the status, the body's kind and JSON shape (keys and value kinds), and the error or status text
(ids, times, ports and temp paths blanked out). A difference is a bug in the test controller: the real one is
right.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import controller_contract as contract
from fake_controller import FakeController

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "controller_contract" / "recorded.json"
CHECKED = ("status", "body_kind", "shape", "error", "status_text")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    work = tmp_path_factory.mktemp("contract")
    tarballs = contract.build_segments(work)
    controller = FakeController().start()
    try:
        with contract.file_server(work) as base:
            yield contract.Contract(controller.url, tarballs).run(base)
    finally:
        controller.stop()


def _recorded() -> dict[str, dict]:
    return json.loads(RECORDED.read_text())["answers"]


def test_the_recording_covers_every_endpoint_the_client_calls():
    requests_seen = {answer["request"].split(" ", 1)[0] + " " + _route(answer["request"].split(" ", 1)[1])
                     for answer in _recorded().values()}
    assert requests_seen >= {
        "GET /tables/{t}", "GET /tables/{t}/schema", "POST /schemas", "POST /tables", "GET /segments/{t}",
        "GET /segments/{t}/crc", "GET /segments/{t}/zkmetadata", "GET /segments/{t}/lineage",
        "GET /segments/{t}/{s}", "POST /v2/segments", "DELETE /segments/{t}",
        "POST /segments/{t}/startReplaceSegments", "POST /segments/{t}/endReplaceSegments",
        "POST /segments/{t}/revertReplaceSegments", "GET /tables/{t}/externalview", "POST /segments/{t}/reload"}


def _route(path: str) -> str:
    parts = path.strip("/").split("/")
    if parts[0] in ("tables", "segments") and len(parts) > 1:
        parts[1] = "{t}"
        if parts[0] == "segments" and len(parts) == 3 and parts[2] not in (
                "crc", "zkmetadata", "lineage", "reload", "startReplaceSegments", "endReplaceSegments",
                "revertReplaceSegments"):
            parts[2] = "{s}"
    return "/" + "/".join(parts)


@pytest.mark.parametrize("case", sorted(_recorded()))
def test_the_test_controller_answers_as_the_real_one(replayed, case):
    real, ours = _recorded()[case], replayed[case]
    differences = {key: {"real": real[key], "test controller": ours[key]} for key in CHECKED if real[key] != ours[key]}
    assert not differences, f"{case} ({real['request']}): " + json.dumps(differences, indent=1)


def _content(body):
    """What the client reads of a listing, a lineage record or a CRC map (the real controller's order of
    names is a hash set's: not part of the contract)."""
    if isinstance(body, list):
        return [sorted(element.get("OFFLINE", [])) for element in body]
    if isinstance(body, dict) and "lineageEntries" in body:
        return sorted((e["state"], sorted(e["segmentsFrom"]), sorted(e["segmentsTo"]))
                      for e in body["lineageEntries"].values())
    return body


@pytest.mark.parametrize("case", sorted(c for c in _recorded()
                                        if c.startswith(("list", "lineage", "zkmetadata_download"))))
def test_the_test_controller_lists_and_records_lineage_as_the_real_one(replayed, case):
    """Which segments a listing (excludeReplacedSegments true or false, during and after an entry) names, the
    lineage entries' states and segments, where each push's segment is served from."""
    real, ours = _recorded()[case], replayed[case]
    assert _content(ours["body"]) == _content(real["body"]), case
