"""The test controller keeps Pinot's upload rules: checked with raw HTTP, with segments built by Pinot
itself (shared fixtures) and with segments from our own builder."""
from __future__ import annotations

import io
import json
import struct
import tarfile
import time
from pathlib import Path

import pyarrow as pa
import pytest
import requests

from pinot_sink.controller import push_segment
from type_mapping.table_config import TableConfig
from segment_factory import make_segment, segment_files, tar_segment


def post_upload(controller, data: bytes | None = None, *, parts=None, params=None, headers=None):
    """A hand-made multipart upload, to test the controller's rules rather than our client's."""
    params = {"tableName": "events", "tableType": "OFFLINE", **(params or {})}
    files = parts if parts is not None else [("seg", ("seg", data, "application/octet-stream"))]
    return requests.post(f"{controller.url}/v2/segments", params=params, files=files, headers=headers or {},
                         timeout=10)


def error(response) -> str:
    body = response.json()
    assert body["code"] == response.status_code
    return body["error"]


def test_accepts_every_segment_pinot_built(fake_controller, pinot_built: Path):
    for case in sorted(p for p in pinot_built.iterdir() if p.is_dir()):
        config = json.loads((case / "table_config.json").read_text())
        config["tableName"] = case.name
        fake_controller.add_table(json.loads((case / "schema.json").read_text()), config)
        tar = (case / f"{case.name}_0.tar.gz").read_bytes()
        response = requests.post(f"{fake_controller.url}/v2/segments", params={"tableName": case.name},
                                 files={f"{case.name}_0": (f"{case.name}_0", tar)}, timeout=10)
        assert response.status_code == 200, (case.name, response.text)
        stored = fake_controller.segments(case.name)[f"{case.name}_0"]
        assert stored.creation_time == 1_700_000_000_000
        dump = json.loads((case / "dump-columns.jsonl").read_text().splitlines()[0])
        assert stored.crc == int(dump["crc"])
        assert stored.zk["segment.total.docs"] == str(dump["totalDocs"])
        if dump.get("startTimeMillis") is not None:  # DAYS / SECONDS intervals become millis in ZK
            assert stored.zk["segment.start.time"] == str(dump["startTimeMillis"])
            assert stored.zk["segment.end.time"] == str(dump["endTimeMillis"])


def test_accepts_a_segment_from_our_builder(fake_controller, tmp_path):
    from pinot_sink.controller import ControllerClient
    from pinot_sink.segment import build_segment
    from type_mapping.pinot_schema import PinotSchema
    from type_mapping.stored import PinotColumns

    table = fake_controller.tables["events"]
    schema = PinotSchema.from_json(table.schema)
    rows = pa.table({
        "country": pa.array(["nl", "fr", "nl"]),
        "value": pa.array([1, 2, 3], pa.int64()),
        "ts": pa.array([1_700_000_000_000, 1_700_000_100_000, 1_700_000_050_000], pa.int64()),
    })
    built = build_segment(PinotColumns(rows, {}), schema, TableConfig.from_json(table.config, schema), tmp_path, "events_built_0")
    push_segment(ControllerClient(fake_controller.url), "events", built.tar_path)
    stored = fake_controller.segments()["events_built_0"]
    assert stored.crc == built.crc
    assert stored.zk["segment.total.docs"] == "3"
    assert (stored.zk["segment.start.time"], stored.zk["segment.end.time"]) == ("1700000000000", "1700000100000")


def test_multipart_must_have_exactly_one_part(fake_controller, tmp_path):
    data = make_segment(tmp_path, "events_0").read_bytes()
    two = [("a", ("a", data, "application/octet-stream")), ("b", ("b", data, "application/octet-stream"))]
    response = post_upload(fake_controller, parts=two)
    assert response.status_code == 400 and "multi-part" in error(response)
    assert post_upload(fake_controller, data).status_code == 200


def test_table_type_suffix_must_match(fake_controller, tmp_path):
    data = make_segment(tmp_path, "events_0").read_bytes()
    response = post_upload(fake_controller, data, params={"tableName": "events_REALTIME"})
    assert response.status_code == 400 and "does not match table type" in error(response)
    assert post_upload(fake_controller, data, params={"tableName": "events_OFFLINE"}).status_code == 200


def test_table_name_falls_back_to_segment_metadata(fake_controller, tmp_path):
    data = make_segment(tmp_path, "events_0", table="events").read_bytes()
    response = requests.post(f"{fake_controller.url}/v2/segments", files={"x": ("x", data)}, timeout=10)
    assert response.status_code == 200 and "events_0" in fake_controller.segments()


def test_unknown_table_is_400(fake_controller, tmp_path):
    response = post_upload(fake_controller, make_segment(tmp_path, "x_0").read_bytes(), params={"tableName": "nope"})
    assert response.status_code == 400 and error(response) == "Failed to find table: nope_OFFLINE"


def test_reserved_realtime_names_are_400(fake_controller, tmp_path):
    data = make_segment(tmp_path, "a__events__0__20240101T0000Z__x").read_bytes()
    response = post_upload(fake_controller, data)
    assert response.status_code == 400 and "reserved for uploaded real-time segment" in error(response)


@pytest.mark.parametrize("start, end, unit, status", [
    (1_700_000_000_000, 1_700_000_000_001, "MILLISECONDS", 200),
    (19_000, 19_001, "DAYS", 200),
    (31_536_000_000, 31_536_000_000, "MILLISECONDS", 200),  # 1971-01-01: inclusive
    (31_535_999_999, 31_536_000_000, "MILLISECONDS", 403),
    (1_700_000_000, 3_187_296_001, "SECONDS", 403),  # past 2071-01-01
    (None, None, "MILLISECONDS", 403),  # the table has a time column: the interval is required
])
def test_time_interval_rules(fake_controller, tmp_path, start, end, unit, status):
    data = make_segment(tmp_path, "events_0", start_time=start, end_time=end, time_unit=unit).read_bytes()
    assert post_upload(fake_controller, data).status_code == status


def test_time_check_can_be_switched_off_by_the_table(fake_controller, tmp_path):
    fake_controller.add_simple_table("lax", ingestionConfig={"segmentTimeValueCheck": False})
    data = make_segment(tmp_path, "lax_0", table="lax", start_time=0, end_time=1).read_bytes()
    assert post_upload(fake_controller, data, params={"tableName": "lax"}).status_code == 200


def test_table_without_time_column_needs_no_interval(fake_controller, tmp_path):
    fake_controller.add_simple_table("dims", time_column=None)
    data = make_segment(tmp_path, "dims_0", table="dims", time_column=None, start_time=None).read_bytes()
    assert post_upload(fake_controller, data, params={"tableName": "dims"}).status_code == 200


def test_broken_tarballs_are_500(fake_controller, tmp_path):
    assert post_upload(fake_controller, b"not a tarball").status_code == 500
    files = segment_files("events_0")
    del files["v3/metadata.properties"]
    response = post_upload(fake_controller, tar_segment("events_0", files))
    assert response.status_code == 500 and "metadata.properties" in error(response)


def test_strict_layout_catches_index_map_past_columns_psf(fake_controller):
    files = segment_files("events_0")
    files["v3/index_map"] = b"value.forward_index.startOffset = 0\nvalue.forward_index.size = 999999\n"
    response = post_upload(fake_controller, tar_segment("events_0", files))
    assert response.status_code == 500 and "outside columns.psf" in error(response)


def test_path_traversal_is_refused(fake_controller):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../evil")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    assert post_upload(fake_controller, buffer.getvalue()).status_code == 500
    assert fake_controller.segments() == {}


def test_refresh_rules(fake_controller, tmp_path):
    first = make_segment(tmp_path / "1", "events_0", seed=1).read_bytes()
    second = make_segment(tmp_path / "2", "events_0", seed=2).read_bytes()
    response = post_upload(fake_controller, first, headers={"REFRESH_ONLY": "true"})
    assert response.status_code == 410
    assert post_upload(fake_controller, first).status_code == 200
    crc = fake_controller.segments()["events_0"].crc
    assert post_upload(fake_controller, second, params={"allowRefresh": "false"}).status_code == 409
    assert post_upload(fake_controller, second, headers={"If-Match": str(crc + 1)}).status_code == 412
    assert post_upload(fake_controller, second, headers={"If-Match": "abc"}).status_code == 412
    assert post_upload(fake_controller, second, headers={"If-Match": str(crc)}).status_code == 200
    assert fake_controller.segments()["events_0"].refreshes == 1


def test_uri_mode_rules(fake_controller, tmp_path):
    path = make_segment(tmp_path, "events_0")
    url = f"{fake_controller.url}/v2/segments?tableName=events"
    json_headers = {"Content-Type": "application/json", "UPLOAD_TYPE": "URI"}
    assert requests.post(url, headers=json_headers, timeout=10).status_code == 400  # DOWNLOAD_URI missing
    response = requests.post(url, headers={**json_headers, "DOWNLOAD_URI": path.as_uri()}, timeout=10)
    assert response.status_code == 400 and error(response).startswith("Unsupported URI: file:")
    response = requests.post(url, headers={**json_headers, "UPLOAD_TYPE": "SEGMENT"}, timeout=10)
    assert response.status_code == 400 and "multipart/form-data" in error(response)
    response = requests.post(url, headers={**json_headers, "UPLOAD_TYPE": "JSON"}, timeout=10)
    assert response.status_code == 400


def test_metadata_mode_needs_download_uri(fake_controller, tmp_path):
    from pinot_sink.controller import metadata_tarball

    _, small = metadata_tarball(make_segment(tmp_path, "events_0"))
    response = post_upload(fake_controller, small, headers={"UPLOAD_TYPE": "METADATA"})
    assert response.status_code == 400 and "DOWNLOAD_URI" in error(response)


def test_creation_meta_16_bytes_is_accepted(fake_controller):
    files = segment_files("events_0")
    files["v3/creation.meta"] = struct.pack(">qq", 42, 1_700_000_000_000)
    assert post_upload(fake_controller, tar_segment("events_0", files)).status_code == 200
    assert fake_controller.segments()["events_0"].crc == 42


def test_delete_without_names_deletes_all_as_pinot_does(fake_controller, tmp_path):
    for i in range(3):
        assert post_upload(fake_controller, make_segment(tmp_path, f"events_{i}").read_bytes()).status_code == 200
    response = requests.delete(f"{fake_controller.url}/segments/events?type=OFFLINE", timeout=10)
    assert response.status_code == 200 and fake_controller.segments() == {}


def test_lineage_rules(fake_controller, tmp_path):
    base = f"{fake_controller.url}/segments/events"
    assert post_upload(fake_controller, make_segment(tmp_path, "old_0").read_bytes()).status_code == 200

    def start(body, **params):
        return requests.post(f"{base}/startReplaceSegments", params={"type": "OFFLINE", **params}, json=body, timeout=10)

    assert start({"segmentsFrom": ["missing"], "segmentsTo": ["n"]}).status_code == 500
    assert start({"segmentsFrom": [], "segmentsTo": ["old_0"]}).status_code == 500
    first = start({"segmentsFrom": ["old_0"], "segmentsTo": ["n_0"]}).json()["segmentLineageEntryId"]
    clash = start({"segmentsFrom": ["old_0"], "segmentsTo": ["n_1"]})
    assert clash.status_code == 500 and error(clash).startswith("Failed to update the segment lineage during startReplaceSegments")  # as Pinot: no detail
    revert = requests.post(f"{base}/revertReplaceSegments", params={"type": "OFFLINE", "segmentLineageEntryId": first},
                           timeout=10)
    assert revert.status_code == 500 and "Failed to update the segment lineage during revertReplaceSegments" in error(revert)  # IN_PROGRESS needs force
    forced = start({"segmentsFrom": ["old_0"], "segmentsTo": ["n_1"]}, forceCleanup="true")
    assert forced.status_code == 200
    assert requests.get(f"{base}/lineage", timeout=10).json()["lineageEntries"][first]["state"] == "REVERTED"
    end = requests.post(f"{base}/endReplaceSegments", params={"type": "OFFLINE", "segmentLineageEntryId": first},
                        timeout=10)
    assert end.status_code == 500 and "segment lineage during endReplaceSegments" in error(end)  # a REVERTED entry


def test_fault_knobs_match_by_path_and_count(fake_controller):
    fake_controller.fail_next(2, 502, path="/tables/")
    url = f"{fake_controller.url}/tables/events"
    assert requests.get(f"{fake_controller.url}/segments/events", timeout=10).status_code == 200
    assert [requests.get(url, timeout=10).status_code for _ in range(3)] == [502, 502, 200]


def test_auth_knob(fake_controller):
    fake_controller.require_auth("Basic abc")
    url = f"{fake_controller.url}/tables/events"
    assert requests.get(url, timeout=10).status_code == 401
    assert requests.get(url, headers={"Authorization": "Basic abc"}, timeout=10).status_code == 200


def test_segments_of_a_live_lineage_entry_cannot_be_deleted(fake_controller, tmp_path):
    from pinot_sink.controller import ControllerClient, ControllerUnavailableError, RetriesExhaustedError, RetryPolicy

    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    for name in ("old_0", "other_0"):
        push_segment(client, "events", make_segment(tmp_path, name))
    entry = client.start_replace("events", ["old_0"], ["new_0"])
    push_segment(client, "events", make_segment(tmp_path, "new_0"))
    for locked in (["new_0"], ["old_0", "other_0"]):  # IN_PROGRESS locks both sides; the whole batch is refused
        with pytest.raises(RetriesExhaustedError, match="participate in a live segment lineage entry") as info:
            client.delete_segments("events", locked)
        assert isinstance(info.value.last_error, ControllerUnavailableError)
    assert sorted(fake_controller.segments()) == ["new_0", "old_0", "other_0"]
    client.end_replace("events", entry)
    with pytest.raises(RetriesExhaustedError):  # COMPLETED still locks the replaced segments
        client.delete_segments("events", ["old_0"])
    client.delete_segments("events", ["new_0", "other_0"])
    assert sorted(fake_controller.segments()) == ["old_0"]


def test_force_cleanup_keeps_two_snapshots_of_a_refresh_table(fake_controller, tmp_path):
    from pinot_sink.controller import ConsistentPush, ControllerClient

    fake_controller.add_simple_table(
        "snap", ingestionConfig={"batchIngestionConfig": {"segmentIngestionType": "REFRESH"}})
    client = ControllerClient(fake_controller.url)
    for generation in range(3):
        name = f"snap_{generation}"
        ConsistentPush(client, "snap", segments_to=[name]).run([make_segment(tmp_path, name, table="snap")])
    assert client.list_segments("snap") == ["snap_2"]
    assert sorted(fake_controller.segments("snap")) == ["snap_1", "snap_2"]  # snap_0 proactively deleted


def test_lineage_is_kept_as_pinots_controller_keeps_it(fake_controller, tmp_path):
    """PinotHelixResourceManager's record: segmentsFrom stay (hidden) after COMPLETED, an end on a COMPLETED
    entry is a no-op, a revert of a COMPLETED entry needs its segmentsFrom, forceCleanup reverts an overlapping
    IN_PROGRESS entry; the lineage and the ZK metadata (time interval in millis) can be read back."""
    from pinot_sink.controller import ControllerClient, RetryPolicy

    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    push_segment(client, "events", make_segment(tmp_path, "old_0"))
    entry = client.start_replace("events", ["old_0"], ["new_0"])
    push_segment(client, "events", make_segment(tmp_path, "new_0"))
    client.end_replace("events", entry)
    assert sorted(fake_controller.segments()) == ["new_0", "old_0"]  # kept, not deleted
    assert client.list_segments("events") == ["new_0"]  # but hidden
    client.end_replace("events", entry)  # a no-op
    lineage = client.get_lineage("events")
    assert lineage[entry]["state"] == "COMPLETED" and lineage[entry]["segmentsFrom"] == ["old_0"]
    zk = client.segment_zk_metadata("events")["new_0"]
    assert zk["segment.time.unit"] == "MILLISECONDS" and int(zk["segment.start.time"]) > 0
    fake_controller.segments().pop("old_0")  # (a retention manager deleted it)
    with pytest.raises(Exception, match="Failed to update the segment lineage during revertReplaceSegments"):  # a deleted segmentsFrom
        client.revert_replace("events", entry)
    assert client.get_lineage("events")[entry]["state"] == "COMPLETED"
    stuck = client.start_replace("events", ["new_0"], ["next_0"])
    again = client.start_replace("events", ["new_0"], ["next_1"], force_cleanup=True)
    lineage = client.get_lineage("events")
    assert lineage[stuck]["state"] == "REVERTED" and lineage[again]["state"] == "IN_PROGRESS"


def test_a_lost_answer_then_an_outage_and_a_200_with_an_error_body(fake_controller, tmp_path):
    base = f"{fake_controller.url}/segments/events"
    fake_controller.lose_response_next(1, path="/segments/events/startReplaceSegments", then_outage_s=0.5)
    with pytest.raises(requests.ConnectionError):
        requests.post(f"{base}/startReplaceSegments", params={"type": "OFFLINE"},
                      json={"segmentsFrom": [], "segmentsTo": ["a"]}, timeout=10)
    with pytest.raises(requests.ConnectionError):  # unreachable right after
        requests.get(f"{base}/lineage", timeout=10)
    time.sleep(0.6)
    (entry, record), = requests.get(f"{base}/lineage", timeout=10).json()["lineageEntries"].items()
    assert record["state"] == "IN_PROGRESS"  # the lost call was applied
    fake_controller.error_body_next(1, path="/segments/events/revertReplaceSegments")
    answer = requests.post(f"{base}/revertReplaceSegments", params={"type": "OFFLINE", "segmentLineageEntryId": entry,
                                                                    "forceRevert": "true"}, timeout=10)
    assert answer.status_code == 200 and "error" in answer.json()
    assert requests.get(f"{base}/lineage", timeout=10).json()["lineageEntries"][entry]["state"] == "IN_PROGRESS"


def test_health_and_tables_answer_as_pinots_controller(fake_controller):
    """The first calls a user tries (issue 32 item 12), answered as a real Pinot 1.x controller answers them
    (asked on the shared cluster): GET /health 200 text/plain "OK"; GET /tables {"tables": [raw names]},
    ?type=offline|realtime filters, another type is Java's enum error, 500."""
    health = requests.get(f"{fake_controller.url}/health", timeout=10)
    assert (health.status_code, health.text, health.headers["Content-Type"]) == (200, "OK", "text/plain")
    fake_controller.add_simple_table("clicks")
    tables = requests.get(f"{fake_controller.url}/tables", timeout=10)
    assert tables.status_code == 200 and tables.json() == {"tables": ["clicks", "events"]}
    assert requests.get(f"{fake_controller.url}/tables", params={"type": "offline"}, timeout=10).json() == {
        "tables": ["clicks", "events"]}
    assert requests.get(f"{fake_controller.url}/tables", params={"type": "realtime"}, timeout=10).json() == {
        "tables": []}
    bogus = requests.get(f"{fake_controller.url}/tables", params={"type": "bogus"}, timeout=10)
    assert bogus.status_code == 500 and "No enum constant" in error(bogus)
