"""The storage room's store interface: chosen once, and safe to ship to executors."""
from __future__ import annotations

import pickle

from pinot_sink.controller import ClientConfig
from pinot_sink.storage.layout import manifest_uri, staging_uri
from pinot_sink.controller.store import ControllerStore, open_store
from pinot_sink.storage.stores import DirectoryStore


def test_open_store_chooses_the_controller_when_there_is_one(tmp_path):
    directory = open_store("events", root_uri=tmp_path.as_uri())
    assert isinstance(directory, DirectoryStore) and directory.list() == set()
    assert directory.describe() == f"{tmp_path.as_uri()}/events"
    controller = open_store("events", client_config=ClientConfig(url="http://localhost:9"),
                            root_uri=tmp_path.as_uri())
    assert isinstance(controller, ControllerStore) and controller.describe() == "controller http://localhost:9"


def test_a_controller_store_keeps_its_client_on_the_driver(fake_controller):
    store = ControllerStore("events", ClientConfig(url=fake_controller.url))
    assert store.client is store.client  # one client until close
    shipped = pickle.loads(pickle.dumps(store))
    assert shipped._client is None and shipped.table == "events"
    store.close()
    assert store._client is None


def test_a_borrowed_client_is_left_open(fake_controller):
    from pinot_sink.controller import ControllerClient

    with ControllerClient(fake_controller.url) as client:
        store = ControllerStore.over(client, "events")
        assert store.client is client
        store.close()
        assert client.list_segments("events") == []  # still usable


def test_the_layout_of_a_runs_files():
    root = "file:///out"
    assert staging_uri(root, "a b", "w1_r2") == "file:///out/a%20b/_staging/w1_r2"
    assert manifest_uri(root, "a b", "w1_r2") == "file:///out/a%20b/_manifests/w1_r2.json"


def test_each_module_of_the_two_rooms_imports_first():
    """Storage sits below the controller (the controller's push imports storage's files and the controller
    store its interface): whichever module is imported first in a fresh process (a Spark worker, a script),
    it loads whole."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for module in ("pinot_sink.storage.layout", "pinot_sink.storage.files", "pinot_sink.storage.stores",
                   "pinot_sink.storage.manifests", "pinot_sink.controller.errors", "pinot_sink.controller.push",
                   "pinot_sink.controller.store"):
        done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root, capture_output=True, text=True,
                              env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
        assert done.returncode == 0, f"import {module}: {done.stderr[-800:]}"


def test_a_small_file_is_written_whole_with_the_umasks_mode(tmp_path):
    """``write_text``'s local path: a new file of the umask's normal mode (what Pinot's servers, another user,
    need to read), its folder made, an earlier file replaced whole, and a temporary a killed process left
    under the same name replaced, never appended to or left with its own mode."""
    import os
    import threading

    from pinot_sink.storage.files import public_file_mode, read_text, write_text

    target = tmp_path / "made" / "m.json"
    old = os.umask(0o027)
    try:
        write_text(target.as_uri(), "first é")
        assert target.read_bytes() == "first é".encode() and read_text(target.as_uri()) == "first é"
        assert target.stat().st_mode & 0o777 == public_file_mode() == 0o640
        stale = f"{target}.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(stale, "w") as handle:
            handle.write("a longer text a killed write left behind")
        os.chmod(stale, 0o600)
        write_text(target.as_uri(), "second")
        assert target.read_text() == "second" and target.stat().st_mode & 0o777 == 0o640
        assert sorted(p.name for p in target.parent.iterdir()) == ["m.json"]
    finally:
        os.umask(old)
