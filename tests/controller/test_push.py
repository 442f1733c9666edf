"""Push mechanics: bounded parallelism, streaming, deep store errors, input checks."""
from __future__ import annotations

import threading
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from pinot_sink.controller import push_segment
from pinot_sink.controller import (
    ControllerClient,
    ControllerRequestError,
    DeepStoreError,
    RetriesExhaustedError,
    RetryPolicy,
    push_segments,
)
from pinot_sink.storage.layout import segment_uri
from segment_factory import make_segment


def test_parallel_uploads_stay_within_the_bound(fake_controller, tmp_path):
    fake_controller.upload_latency_s = 0.2  # uploads overlap for sure, unless the client serialises them
    paths = [make_segment(tmp_path, f"events_{i}") for i in range(8)]
    seen = []
    results = push_segments(ControllerClient(fake_controller.url), "events", paths, parallel=3, on_result=seen.append)
    assert [r.segment for r in results] == [f"events_{i}" for i in range(8)]  # input order
    assert sorted(r.segment for r in seen) == sorted(r.segment for r in results)
    assert all(r.ok and r.tar_bytes == p.stat().st_size for r, p in zip(results, paths))
    assert 2 <= fake_controller.max_concurrent_uploads <= 3


def test_raise_on_error_false_tries_everything(fake_controller, tmp_path):
    paths = [make_segment(tmp_path, f"events_{i}") for i in range(4)]
    paths.append(make_segment(tmp_path, "events_bad", start_time=1, end_time=2))
    results = push_segments(ControllerClient(fake_controller.url), "events", paths, parallel=2, raise_on_error=False)
    failed = [r for r in results if not r.ok]
    assert [r.segment for r in failed] == ["events_bad"] and failed[0].error.status == 403
    assert len(fake_controller.segments()) == 4


class _DiscardingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        remaining = int(self.headers["Content-Length"])
        while remaining:
            remaining -= len(self.rfile.read(min(remaining, 65536)))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


def test_tar_upload_streams_from_disk(tmp_path):
    big = make_segment(tmp_path, "events_big", payload_bytes=24_000_000)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DiscardingHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        client = ControllerClient(f"http://127.0.0.1:{server.server_address[1]}", retry=RetryPolicy.none())
        tracemalloc.start()
        push_segment(client, "events", big)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        server.shutdown()
        server.server_close()
    assert peak < 8_000_000  # a 24 MB tarball never sits in memory


def test_unknown_deep_store_scheme_is_a_clear_error(fake_controller, tmp_path):
    path = make_segment(tmp_path, "events_0")
    with pytest.raises(DeepStoreError, match="nosuchfs"):
        push_segment(ControllerClient(fake_controller.url), "events", path, push_mode="metadata",
                                                            deep_store_uri="nosuchfs://bucket/x")
    assert fake_controller.uploads() == []


def test_deep_store_io_errors_are_retried_then_named(fake_controller, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the deep store directory should be")
    path = make_segment(tmp_path, "events_0")
    client = ControllerClient(fake_controller.url, retry=RetryPolicy(max_attempts=2, initial_backoff_s=0.01))
    with pytest.raises(RetriesExhaustedError) as info:
        push_segment(client, "events", path, push_mode="metadata", deep_store_uri=str(blocker))
    assert isinstance(info.value.last_error, DeepStoreError) and info.value.attempts == 2
    assert (info.value.segment, info.value.table) == ("events_0", "events") and "Not a directory" in str(info.value)
    assert fake_controller.uploads() == []


def test_destination_layout():
    assert segment_uri("s3://bucket/pinot/", "events", "events_2024_0") == \
        "s3://bucket/pinot/events/events_2024_0.tar.gz"
    assert segment_uri("file:///data", "events", "a b%") == "file:///data/events/a%20b%25.tar.gz"


def test_bad_inputs_fail_before_any_request(fake_controller, tmp_path):
    client = ControllerClient(fake_controller.url)
    with pytest.raises(ControllerRequestError, match="no segment tarball"):
        push_segment(client, "events", tmp_path / "missing.tar.gz")
    path = make_segment(tmp_path, "events_0")
    with pytest.raises(ControllerRequestError, match="unknown push mode"):
        push_segment(client, "events", path, push_mode="ftp")
    with pytest.raises(ControllerRequestError, match="needs a deep store"):
        push_segment(client, "events", path, push_mode="metadata")
    assert fake_controller.received == []


class _S3aLike(MemoryFileSystem):
    """Another scheme over the same in-memory store: what executors write through (``s3a://``) while the
    controller reads the same objects under another scheme (``s3://``)."""

    protocol = ("s3alike",)

    @classmethod
    def _strip_protocol(cls, path):
        return MemoryFileSystem._strip_protocol("memory://" + path[len("s3alike://"):] if path.startswith("s3alike://")
                                                else path)


def test_segment_uri_prefix_and_suffix_rewrite_the_announced_uri(fake_controller, tmp_path):
    from pinot_sink.controller import controller_download_uri, push_segment
    from pinot_sink.storage.layout import segment_uri

    fsspec.register_implementation("s3alike", _S3aLike, clobber=True)
    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    result = push_segment(client, "events", make_segment(tmp_path, "events 0"), push_mode="uri",
                          deep_store_uri="s3alike://bucket/pinot", segment_uri_prefix="memory://bucket")
    assert result.stored_uri == "s3alike://bucket/pinot/events/events%200.tar.gz"
    assert result.download_uri == "memory://bucket/pinot/events/events%200.tar.gz"  # prefix + raw path
    assert fake_controller.uploads()[-1].header("DOWNLOAD_URI") == result.download_uri
    assert fake_controller.segments()["events 0"].download_uri.startswith(fake_controller.url)  # /v2 copies it

    result = push_segment(client, "events", make_segment(tmp_path, "events_1"), push_mode="metadata",
                          deep_store_uri="s3alike://bucket/pinot", segment_uri_prefix="memory://bucket",
                          segment_uri_suffix="?versionId=7")
    assert fake_controller.uploads()[-1].header("DOWNLOAD_URI") == \
        "memory://bucket/pinot/events/events_1.tar.gz?versionId=7"
    # without prefix and suffix the stored URI is announced as is; a file: URI is refused for 'uri' only
    # when it is what the controller would be sent
    stored = segment_uri(str(tmp_path / "shared"), "events", "x")
    assert controller_download_uri(stored) == stored
    assert controller_download_uri(stored, "hdfs://nn:8020") == f"hdfs://nn:8020{tmp_path}/shared/events/x.tar.gz"
    with pytest.raises(ControllerRequestError, match="file://"):
        push_segment(client, "events", make_segment(tmp_path, "events_2"), push_mode="uri",
                     deep_store_uri=str(tmp_path / "shared"))


def test_an_unreachable_controller_stops_the_push_early(tmp_path):
    """Without raise_on_error, a push that finds no controller at all (no HTTP answer after the retries)
    does not try the rest: they come back as skipped failures."""
    import socket

    from pinot_sink.controller import ClientConfig, ControllerClient, RetryPolicy, push_segments

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    paths = [make_segment(tmp_path, f"events_{i}") for i in range(6)]
    config = ClientConfig(url=f"http://127.0.0.1:{port}", retry=RetryPolicy(max_attempts=2, initial_backoff_s=0.01))
    with ControllerClient.from_config(config) as client:
        results = push_segments(client, "events", paths, parallel=1, raise_on_error=False)
    assert len(results) == 6 and not any(r.ok for r in results)
    assert not results[0].skipped and all(r.skipped for r in results[1:])
    assert "not tried: the controller could not be reached" in str(results[1].error)
