"""ControllerClient against the test controller: every endpoint, every push mode."""
from __future__ import annotations

import pickle
import tarfile

import pytest

from pinot_sink.controller import push_segment
from pinot_sink.controller import (
    ClientConfig,
    ControllerClient,
    ControllerNotFoundError,
    ControllerRequestError,
    RetryPolicy,
    metadata_tarball,
)
from segment_factory import make_segment, segment_crc

FAST = RetryPolicy(max_attempts=3, max_elapsed_s=10, initial_backoff_s=0.01, max_backoff_s=0.05)


@pytest.fixture
def client(fake_controller):
    with ControllerClient(fake_controller.url, retry=FAST) as client:
        yield client


def test_table_config_and_schema_with_raw_or_typed_name(client):
    assert client.get_table_config("events")["tableName"] == "events_OFFLINE"
    assert client.get_table_config("events_OFFLINE")["segmentsConfig"]["timeColumnName"] == "ts"
    assert client.get_schema("events_OFFLINE")["schemaName"] == "events"


def test_missing_table_is_a_clear_not_found(client):
    with pytest.raises(ControllerNotFoundError, match="nope_OFFLINE does not exist") as info:
        client.get_table_config("nope")
    assert info.value.status == 404 and info.value.table == "nope"


def test_a_broker_url_is_said_to_be_no_controller_not_a_missing_table():
    """A broker (or server) answers every controller path with Jersey's bare 404, as the controller answers a
    path it does not serve: a write pointed at a broker's port said the table does not exist and to create it
    with table.create=if-missing. The bare 404 is no missing table: one line naming the URL and the mix-up."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Broker(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"OK" if self.path == "/health" else json.dumps({"code": 404, "error": "HTTP 404 Not Found"}).encode()
            self.send_response(200 if self.path == "/health" else 404)
            self.send_header("Content-Type", "text/plain" if self.path == "/health" else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Broker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        with ControllerClient(url, retry=FAST) as broker:
            for call in (lambda: broker.get_schema("events"), lambda: broker.list_segments("events")):
                with pytest.raises(ControllerRequestError, match=rf"{url} serves no GET /\S+: is it the "
                                                                  r"controller's URL\?") as info:
                    call()
                assert not isinstance(info.value, ControllerNotFoundError) and info.value.status == 404
    finally:
        server.shutdown()
        server.server_close()


def test_realtime_table_name_is_refused_without_a_request(client, fake_controller):
    before = len(fake_controller.received)
    with pytest.raises(ControllerRequestError, match="writes OFFLINE tables"):
        client.list_segments("events_REALTIME")
    assert len(fake_controller.received) == before


def test_tar_upload_list_crc_zk_metadata_download(client, fake_controller, tmp_path):
    path = make_segment(tmp_path, "events_0", rows=7)
    push_segment(client, "events", path)
    assert client.list_segments("events") == ["events_0"]
    assert client.segment_crcs("events_OFFLINE") == {"events_0": segment_crc(path)}
    zk = client.segment_zk_metadata("events")["events_0"]
    assert zk["segment.total.docs"] == "7"
    assert zk["segment.start.time"] == "1700000000000"
    downloaded = client.download_segment("events", "events_0", tmp_path / "copy.tar.gz")
    assert downloaded.read_bytes() == path.read_bytes()
    upload = fake_controller.uploads()[-1]
    assert upload.query == {"tableName": ["events"], "tableType": ["OFFLINE"]}


def test_reupload_same_bytes_is_a_noop_and_new_bytes_refresh(client, fake_controller, tmp_path):
    path = make_segment(tmp_path / "a", "events_0", seed=1)
    push_segment(client, "events", path)
    push_segment(client, "events", path)
    stored = fake_controller.segments()["events_0"]
    assert (stored.refreshes, stored.noop_uploads) == (0, 1)
    changed = make_segment(tmp_path / "b", "events_0", seed=2)
    push_segment(client, "events", changed)
    stored = fake_controller.segments()["events_0"]
    assert stored.refreshes == 1 and stored.crc == segment_crc(changed)
    assert client.list_segments("events") == ["events_0"]


def test_uri_push_copies_to_deep_store_then_sends_the_uri(client, fake_controller, tmp_path):
    import fsspec

    path = make_segment(tmp_path, "events_1")
    push_segment(client, "events", path, push_mode="uri", deep_store_uri="memory://store/uri-test/")
    expected = "memory://store/uri-test/events/events_1.tar.gz"
    with fsspec.open(expected, "rb") as handle:
        assert handle.read() == path.read_bytes()
    upload = fake_controller.uploads()[-1]
    assert upload.header("UPLOAD_TYPE") == "URI" and upload.header("DOWNLOAD_URI") == expected
    assert upload.header("Content-Type") == "application/json"
    # /v2/segments copies a URI push into the controller's deep store and serves it (recorded from Pinot)
    assert fake_controller.segments()["events_1"].download_uri == f"{fake_controller.url}/segments/events/events_1"


def test_uri_push_refuses_file_deep_store_before_copying(client, tmp_path):
    path = make_segment(tmp_path, "events_1")
    with pytest.raises(ControllerRequestError, match="file://"):
        push_segment(client, "events", path, push_mode="uri", deep_store_uri=f"file://{tmp_path}/store")
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("copy", [False, True])
def test_metadata_push_sends_only_metadata(client, fake_controller, tmp_path, copy):
    path = make_segment(tmp_path, "events_2", payload_bytes=50_000)
    store = tmp_path / "deep"
    push_segment(client, "events", path, push_mode="metadata", deep_store_uri=str(store), copy_to_deep_store=copy)
    copied = store / "events" / "events_2.tar.gz"
    assert copied.read_bytes() == path.read_bytes()
    upload = fake_controller.uploads()[-1]
    assert upload.header("UPLOAD_TYPE") == "METADATA"
    assert upload.header("DOWNLOAD_URI") == copied.as_uri()
    assert upload.header("COPY_SEGMENT_TO_DEEP_STORE") == ("true" if copy else None)
    assert upload.body_bytes < 5_000  # metadata only, not the 50 kB tarball
    stored = fake_controller.segments()["events_2"]
    assert stored.crc == segment_crc(path)
    assert stored.download_uri == (f"{fake_controller.url}/segments/events/events_2" if copy else copied.as_uri())


def test_metadata_tarball_has_the_two_files_at_top_level(tmp_path):
    path = make_segment(tmp_path, "events_3")
    name, data = metadata_tarball(path)
    assert name == "events_3"
    (tmp_path / "m.tar.gz").write_bytes(data)
    with tarfile.open(tmp_path / "m.tar.gz") as archive:
        assert sorted(archive.getnames()) == ["creation.meta", "metadata.properties"]


def test_delete_segments(client, fake_controller, tmp_path):
    for i in range(3):
        push_segment(client, "events", make_segment(tmp_path, f"events_{i}"))
    client.delete_segments("events", ["events_0", "events_2", "never_existed"])
    assert client.list_segments("events") == ["events_1"]
    client.delete_segments("events", [])  # must not turn into "delete everything"
    assert client.list_segments("events") == ["events_1"]
    assert fake_controller.received[-1].method != "DELETE"


def test_lineage_start_end_revert(client, fake_controller, tmp_path):
    push_segment(client, "events", make_segment(tmp_path, "old_0"))
    entry = client.start_replace("events", ["old_0"], ["new_0"])
    push_segment(client, "events", make_segment(tmp_path, "new_0"))
    assert client.list_segments("events") == ["old_0"]  # new one hidden until the end
    client.end_replace("events", entry)
    client.end_replace("events", entry)  # COMPLETED: a repeated end is a no-op
    assert client.list_segments("events") == ["new_0"]
    assert client.list_segments("events", exclude_replaced=False) == ["new_0", "old_0"]
    assert client.get_lineage("events")[entry]["state"] == "COMPLETED"

    second = client.start_replace("events", ["new_0"], ["newer_0"])
    push_segment(client, "events", make_segment(tmp_path, "newer_0"))
    client.revert_replace("events", second)
    assert client.list_segments("events") == ["new_0"]
    assert "newer_0" not in fake_controller.segments()
    assert client.get_lineage("events")[second]["state"] == "REVERTED"


def test_end_replace_with_a_subset_of_the_declared_segments(client, tmp_path):
    entry = client.start_replace("events", [], ["a_0", "a_1"])
    push_segment(client, "events", make_segment(tmp_path, "a_0"))
    client.end_replace("events", entry, segments_to=["a_0"])
    assert client.list_segments("events") == ["a_0"]


def test_database_header_and_qualified_upload_table(fake_controller, tmp_path):
    fake_controller.add_simple_table("sales.events")
    with ControllerClient(fake_controller.url, database="sales", retry=FAST) as client:
        assert client.get_table_config("events")["tableName"] == "sales.events_OFFLINE"
        push_segment(client, "events", make_segment(tmp_path, "events_0", table="events"))
        assert client.list_segments("events") == ["events_0"]
    upload = fake_controller.uploads()[-1]
    assert upload.query["tableName"] == ["sales.events"] and upload.header("database") == "sales"
    assert "events_0" in fake_controller.segments("sales.events")


def test_client_pickles_as_its_config_and_works_after(client, tmp_path):
    clone = pickle.loads(pickle.dumps(client))
    assert isinstance(clone.config, ClientConfig) and clone.config == client.config
    push_segment(clone, "events", make_segment(tmp_path, "events_0"))
    assert ControllerClient.from_config(client.config).list_segments("events") == ["events_0"]


def test_trailing_slash_is_dropped():
    client = ControllerClient("http://localhost:9000/")
    assert client.url == "http://localhost:9000"


def test_the_docs_state_the_defaults_of_their_one_home():
    """docs/controller.md quotes the defaults once; this keeps the quote in step with ClientConfig/RetryPolicy."""
    import re
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "controller.md").read_text()
    policy = RetryPolicy()
    expected = (f"connect {ClientConfig.connect_timeout:g} s, read {ClientConfig.read_timeout:g} s, "
                f"{policy.max_attempts} attempts, deadline {policy.max_elapsed_s:g} s, backoff "
                f"{policy.initial_backoff_s:g} s doubling to {policy.max_backoff_s:g} s")
    assert expected in re.sub(r"\s+", " ", docs), expected
