"""Exact request shapes (method, path, query, headers, multipart part), checked with ``responses``."""
from __future__ import annotations

import json
from email.parser import BytesParser
from email.policy import HTTP
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from pinot_sink.controller import Auth, ControllerClient, RetryPolicy, push_segment
from pinot_sink.controller.transport import MULTIPART_CHUNK, MultipartFile
from segment_factory import make_segment

URL = "http://controller.test:9000"


@pytest.fixture
def mocked():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def client():
    return ControllerClient(URL, auth=Auth.bearer("t0ken"), retry=RetryPolicy.none())


def query(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


def body_bytes(call) -> bytes:
    body = call.request.body
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode()
    return body if isinstance(body, bytes) else b"".join(body)


def the_part(call):
    content_type = call.request.headers["Content-Type"]
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body_bytes(call))
    parts = list(message.iter_parts())
    assert len(parts) == 1
    return parts[0]


def test_tar_upload_shape(mocked, client, tmp_path):
    path = make_segment(tmp_path, "events_0")
    mocked.post(f"{URL}/v2/segments", json={"status": "Successfully uploaded segment: events_0 of table: x"})
    push_segment(client, "events_OFFLINE", path)
    call = mocked.calls[0]
    assert query(call) == {"tableName": ["events"], "tableType": ["OFFLINE"]}
    headers = call.request.headers
    assert headers["UPLOAD_TYPE"] == "SEGMENT" and headers["Authorization"] == "Bearer t0ken"
    assert headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert int(headers["Content-Length"]) == len(body_bytes(call))
    assert "Transfer-Encoding" not in headers
    part = the_part(call)
    assert part.get_param("name", header="content-disposition") == "events_0"
    assert part.get_filename() == "events_0"
    assert part.get_content_type() == "application/octet-stream"
    assert part.get_payload(decode=True) == path.read_bytes()


def test_upload_body_is_streamed_in_bounded_chunks(tmp_path):
    path = tmp_path / "big.tar.gz"
    path.write_bytes(b"x" * (3 * MULTIPART_CHUNK + 5))
    body = MultipartFile(path, "big")
    chunks = list(body)
    assert max(len(c) for c in chunks) <= MULTIPART_CHUNK
    assert len(b"".join(chunks)) == len(body)
    assert not hasattr(body, "read")  # urllib3 iterates it instead of reading it whole


def test_metadata_upload_shape(mocked, client, tmp_path):
    path = make_segment(tmp_path, "events_0")
    mocked.post(f"{URL}/v2/segments", json={"status": "ok"})
    push_segment(client, "events", path, push_mode="metadata", deep_store_uri=str(tmp_path / "ds"),
                          copy_to_deep_store=True, parallel_push_protection=True)
    call = mocked.calls[0]
    assert query(call) == {"tableName": ["events"], "tableType": ["OFFLINE"], "enableParallelPushProtection": ["true"]}
    headers = call.request.headers
    assert headers["UPLOAD_TYPE"] == "METADATA"
    assert headers["DOWNLOAD_URI"] == (tmp_path / "ds" / "events" / "events_0.tar.gz").as_uri()
    assert headers["COPY_SEGMENT_TO_DEEP_STORE"] == "true"
    assert the_part(call).get_filename() == "events_0"


def test_uri_upload_shape(mocked, client, tmp_path):
    mocked.post(f"{URL}/v2/segments", json={"status": "ok"})
    push_segment(client, "events", make_segment(tmp_path, "events_0"), push_mode="uri",
                          deep_store_uri="memory://shapes")
    call = mocked.calls[0]
    headers = call.request.headers
    assert headers["UPLOAD_TYPE"] == "URI" and headers["DOWNLOAD_URI"] == "memory://shapes/events/events_0.tar.gz"
    assert headers["Content-Type"] == "application/json" and body_bytes(call) == b""
    assert "COPY_SEGMENT_TO_DEEP_STORE" not in headers


def test_table_config_schema_and_listing_shapes(mocked, client):
    mocked.get(f"{URL}/tables/events", json={"OFFLINE": {"tableName": "events_OFFLINE"}})
    mocked.get(f"{URL}/tables/events/schema", json={"schemaName": "events"})
    mocked.get(f"{URL}/segments/events", json=[{"OFFLINE": ["a", "b"]}])
    mocked.get(f"{URL}/segments/events/crc", json={"a": "12", "b": "4294967295"})
    mocked.get(f"{URL}/segments/events/zkmetadata", json={"a": {"segment.crc": "12"}})
    assert client.get_table_config("events_OFFLINE") == {"tableName": "events_OFFLINE"}
    assert client.get_schema("events") == {"schemaName": "events"}
    assert client.list_segments("events") == ["a", "b"]
    assert client.segment_crcs("events") == {"a": 12, "b": 4294967295}
    assert client.segment_zk_metadata("events") == {"a": {"segment.crc": "12"}}
    calls = mocked.calls
    assert query(calls[0]) == {"type": ["offline"]}
    assert query(calls[2]) == {"type": ["OFFLINE"], "excludeReplacedSegments": ["true"]}
    assert query(calls[4]) == {"type": ["OFFLINE"]}
    assert all(c.request.headers["Authorization"] == "Bearer t0ken" for c in calls)


def test_delete_shape_batches_and_retention(mocked, client):
    mocked.delete(f"{URL}/segments/events", json={"status": "ok"})
    mocked.delete(f"{URL}/segments/events", json={"status": "ok"})
    names = [f"s_{i}" for i in range(150)]
    client.delete_segments("events", names, retention="0d")
    first, second = (query(c) for c in mocked.calls)
    assert first["type"] == ["OFFLINE"] and first["retention"] == ["0d"]
    assert first["segments"] + second["segments"] == names and len(first["segments"]) == 100


def test_lineage_shapes(mocked, client):
    mocked.post(f"{URL}/segments/events/startReplaceSegments", json={"segmentLineageEntryId": "e1"})
    mocked.post(f"{URL}/segments/events/endReplaceSegments", body="")
    mocked.post(f"{URL}/segments/events/endReplaceSegments", body="")
    mocked.post(f"{URL}/segments/events/revertReplaceSegments", body="")
    assert client.start_replace("events", ["a"], ["b", "c"], custom_map={"k": "v"}) == "e1"
    client.end_replace("events", "e1")
    client.end_replace("events", "e1", segments_to=["b"], cleanup=True)
    client.revert_replace("events", "e1")
    start, end, end_subset, revert = mocked.calls
    assert query(start) == {"type": ["OFFLINE"], "forceCleanup": ["false"]}
    assert json.loads(body_bytes(start)) == {"segmentsFrom": ["a"], "segmentsTo": ["b", "c"], "customMap": {"k": "v"}}
    assert query(end) == {"type": ["OFFLINE"], "segmentLineageEntryId": ["e1"], "cleanup": ["false"]}
    assert end.request.headers["Content-Type"] == "application/json" and body_bytes(end) == b""
    assert query(end_subset)["cleanup"] == ["true"] and json.loads(body_bytes(end_subset)) == {"segmentsTo": ["b"]}
    assert query(revert) == {"type": ["OFFLINE"], "segmentLineageEntryId": ["e1"], "forceRevert": ["true"]}


@pytest.mark.parametrize("auth, expected", [
    (Auth.basic("admin", "verysecret"), "Basic YWRtaW46dmVyeXNlY3JldA=="),
    (Auth.bearer("abc"), "Bearer abc"),
    (Auth.header("Custom xyz"), "Custom xyz"),
])
def test_auth_styles_and_extra_headers(mocked, auth, expected):
    mocked.get(f"{URL}/tables/events/schema", json={})
    ControllerClient(URL, auth=auth, headers={"X-Tenant": "t1"}, database="db1").get_schema("events")
    headers = mocked.calls[0].request.headers
    assert headers["Authorization"] == expected
    assert headers["X-Tenant"] == "t1" and headers["database"] == "db1"


def test_credentials_in_the_url_become_basic_auth(mocked):
    mocked.get(f"{URL}/tables/events/schema", json={})
    client = ControllerClient("http://admin:verysecret@controller.test:9000")
    assert client.url == URL
    client.get_schema("events")
    assert mocked.calls[0].request.headers["Authorization"] == "Basic YWRtaW46dmVyeXNlY3JldA=="
