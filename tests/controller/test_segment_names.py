"""Segment names with spaces, ``%`` and non-ASCII through the one deep-store layout (``pinot_sink.storage.layout``):
local directories, fsspec memory://, URI push, metadata push and tar push, against the test controller."""
from __future__ import annotations

import os
from pathlib import Path

import fsspec
import pytest

from pinot_sink.controller import ControllerClient, DeepStoreError, push_segment
from pinot_sink.storage.files import copy_to_deep_store, list_segment_uris
from pinot_sink.storage.layout import (StorageError, normalise_uri, segment_name_from_path, segment_name_from_uri, segment_uri,
                                       table_uri, uri_to_fs)
from segment_factory import make_segment

NAMES = ["events 2024-03-01 0", "events_100%_done", "événements_日本_0", "a%20b", "a+b c"]


@pytest.fixture
def memory_root():
    root = f"memory://names-{os.getpid()}-{id(object())}"
    yield root
    fs, path = uri_to_fs(root)
    if fs.exists(path):
        fs.rm(path, recursive=True)


def test_the_uri_encodes_the_name_and_the_file_keeps_it_verbatim(tmp_path):
    uri = segment_uri(str(tmp_path / "deep store"), "events", "a b%é")
    assert uri == f"{Path(tmp_path).as_uri()}/deep%20store/events/a%20b%25%C3%A9.tar.gz"
    assert uri.isascii() and " " not in uri  # fits a URI and an HTTP header
    assert segment_name_from_uri(uri) == "a b%é"
    fs, path = uri_to_fs(uri)
    assert path == f"{tmp_path}/deep store/events/a b%é.tar.gz"
    assert segment_name_from_path(path) == "a b%é"


@pytest.mark.parametrize("name", NAMES)
def test_names_round_trip_through_a_local_directory(tmp_path, name):
    tarball = make_segment(tmp_path / "built", name)
    assert Path(tarball).name == f"{name}.tar.gz"  # the builder's own naming: verbatim
    root = str(tmp_path / "store 100%")
    uri = segment_uri(root, "events", name)
    copy_to_deep_store(tarball, uri)
    on_disk = tmp_path / "store 100%" / "events" / f"{name}.tar.gz"
    assert on_disk.read_bytes() == Path(tarball).read_bytes()
    assert list_segment_uris(root, "events") == {name: uri}
    assert list_segment_uris(normalise_uri(root), "events") == {name: uri}  # the root as a URI: same place


@pytest.mark.parametrize("name", NAMES)
def test_names_round_trip_through_fsspec_memory(tmp_path, memory_root, name):
    tarball = make_segment(tmp_path, name)
    uri = segment_uri(memory_root, "events", name)
    copy_to_deep_store(tarball, uri)
    fs = fsspec.filesystem("memory")
    assert fs.cat_file(f"{memory_root[len('memory://'):]}/events/{name}.tar.gz") == Path(tarball).read_bytes()
    assert list_segment_uris(memory_root, "events") == {name: uri}


@pytest.mark.parametrize("mode", ["tar", "uri", "metadata"])
def test_names_through_every_push_mode(fake_controller, tmp_path, memory_root, mode):
    client = ControllerClient(fake_controller.url)
    for name in NAMES:
        tarball = make_segment(tmp_path / mode, name)
        result = push_segment(client, "events", tarball, push_mode=mode,
                              deep_store_uri=None if mode == "tar" else memory_root, copy_to_deep_store=True)
        assert result.segment == name
        if mode != "tar":
            assert result.download_uri == segment_uri(memory_root, "events", name)
            # both copied into the controller's deep store: URI (always, on /v2) and metadata (asked to)
            assert fake_controller.segments()[name].download_uri.startswith(f"{fake_controller.url}/segments/events/")
        downloaded = client.download_segment("events", name, tmp_path / "downloaded.tar.gz")
        assert downloaded.read_bytes() == Path(tarball).read_bytes()
    assert sorted(client.list_segments("events")) == sorted(NAMES)
    if mode != "tar":
        assert set(list_segment_uris(memory_root, "events")) == set(NAMES)


def test_the_fake_controller_refuses_an_unencoded_download_uri_as_java_does(fake_controller, tmp_path,
                                                                             memory_root):
    tarball = make_segment(tmp_path, "a b")
    raw_uri = f"{memory_root}/events/a b.tar.gz"
    fs, path = uri_to_fs(segment_uri(memory_root, "events", "a b"))
    fs.pipe_file(path, Path(tarball).read_bytes())
    from pinot_sink.controller import ControllerError, RetryPolicy

    client = ControllerClient(fake_controller.url, retry=RetryPolicy.none())
    with pytest.raises(ControllerError, match="Illegal character"):
        client.post_segment_uri("events", "a b", raw_uri)
    client.post_segment_uri("events", "a b", segment_uri(memory_root, "events", "a b"))
    assert fake_controller.live_segments() == ["a b"]


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "a\\b"])
def test_names_that_cannot_be_a_file_are_refused(bad):
    with pytest.raises(StorageError, match="cannot be a file name"):
        segment_uri("memory://x", "events", bad)
    with pytest.raises(StorageError):
        table_uri("memory://x", bad)


def test_staging_folders_use_the_same_rule(tmp_path):
    from pinot_sink.storage.layout import child_uri, tarball_uri

    staging = child_uri(child_uri(table_uri(str(tmp_path), "events"), "_staging"), "run 1%")
    uri = tarball_uri(child_uri(staging, "p0_a0"), "a b%é")
    assert uri.endswith("/events/_staging/run%201%25/p0_a0/a%20b%25%C3%A9.tar.gz")
    copy_to_deep_store(make_segment(tmp_path / "built", "a b%é"), uri)
    assert (tmp_path / "events" / "_staging" / "run 1%" / "p0_a0" / "a b%é.tar.gz").is_file()
    assert segment_name_from_uri(uri) == "a b%é"


def test_root_uris_are_escaped_but_keep_their_escapes():
    assert normalise_uri("s3://bucket/my prefix/") == "s3://bucket/my%20prefix"
    assert normalise_uri("s3://bucket/a%20b/100%") == "s3://bucket/a%20b/100%25"
    assert normalise_uri("gs://bucket/é") == "gs://bucket/%C3%A9"
