"""The controller contract: every endpoint and error case pinot_sink uses, as a script of raw HTTP requests.

One script, two uses: ``tools/controller_contract/record.py`` runs it against a real Pinot controller and keeps
the answers under ``tests/fixtures/controller_contract/``; ``tests/controller/test_controller_contract.py`` runs
it against the test controller (``tests/fake_controller.py``) and compares status, body shape and error text
with the recording. The requests are raw (``requests``, not ``ControllerClient``) so what is compared is the
controller's answer, not the client's reading of it.

Segments are real ones built by ``pinot-sink build`` (the server must load them on a real cluster), over the
tables ``contract`` (time column ``ts``) and ``contract_other``; URI pushes fetch from a loopback HTTP server
started here (and from ``file://`` paths).
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable

import requests

TABLE = "contract"
OTHER = "contract_other"  # a second table, for "wrong table" cases
SCHEMA = {
    "schemaName": TABLE,
    "dimensionFieldSpecs": [{"name": "country", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "value", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}


def table_config(name: str = TABLE, time_column: str = "ts") -> dict:
    return {"tableName": name, "tableType": "OFFLINE",
            "segmentsConfig": {"timeColumnName": time_column, "replication": "1"},
            "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}, "metadata": {}}


DAY = 86_400_000
BASE = 1_700_000_000_000
SEGMENTS = {  # name -> (first ts, rows)
    "contract_seg_1": (BASE, 5), "contract_seg_2": (BASE + DAY, 5), "contract_seg_3": (BASE, 7),
    "contract_seg_4": (BASE + 2 * DAY, 3), "contract_seg_5": (BASE + 3 * DAY, 3),
}
OLD = "contract_seg_old"  # times before 1971, which Pinot refuses: made by segment_factory (our builder refuses too)


def build_segments(work: Path) -> dict[str, Path]:
    """Each of SEGMENTS as a tarball built by ``pinot-sink build`` (in this process: no interpreter start-up)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pinot_sink.cli import main as cli_main

    work.mkdir(parents=True, exist_ok=True)
    (work / "schema.json").write_text(json.dumps(SCHEMA))
    (work / "table.json").write_text(json.dumps(table_config()))
    out: dict[str, Path] = {}
    for name, (first, rows) in SEGMENTS.items():
        parquet = work / f"{name}.parquet"
        pq.write_table(pa.table({"country": [f"c{i % 3}" for i in range(rows)],
                                 "value": pa.array(range(rows), pa.int64()),
                                 "ts": pa.array([first + i * 1000 for i in range(rows)], pa.int64())}), parquet)
        folder = work / name
        if not folder.is_dir():
            code = cli_main(["build", "--schema", str(work / "schema.json"), "--table-config",
                             str(work / "table.json"), "--input", str(parquet), "--out", str(folder), "--name", name])
            if code != 0:
                raise RuntimeError(f"pinot-sink build {name}: exit {code}")
        out[name] = next(folder.glob("*.tar.gz"))
    out[OLD] = _with_old_times(out["contract_seg_1"], work / OLD / f"{OLD}.tar.gz")
    return out


def _with_old_times(source: Path, dest: Path) -> Path:
    """A copy of a real segment renamed ``OLD`` whose metadata says its times lie in 1970."""
    import io
    import tarfile

    dest.parent.mkdir(parents=True, exist_ok=True)
    old_name = source.name[: -len(".tar.gz")]
    with tarfile.open(source) as src, tarfile.open(dest, "w:gz", format=tarfile.USTAR_FORMAT) as out:
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None
            member.name = OLD + member.name[len(old_name):]
            if data is not None and member.name.endswith("metadata.properties"):
                text = data.decode("utf-8").replace(old_name, OLD)
                text = re.sub(r"(?m)^segment\.start\.time = .*$", "segment.start.time = 1000", text)
                text = re.sub(r"(?m)^segment\.end\.time = .*$", "segment.end.time = 2000", text)
                data = text.encode("utf-8")
                member.size = len(data)
            out.addfile(member, io.BytesIO(data) if data is not None else None)
    return dest


def file_server(folder: Path):
    """A loopback HTTP server over ``folder`` (what a URI push's controller downloads from)."""
    return serve(functools.partial(_QuietHandler, directory=str(folder)))


@contextlib.contextmanager
def serve(handler):
    """``handler`` served on a loopback port in a thread; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:
        pass


# --- comparing answers ---------------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NUMBER = re.compile(r"\d{6,}")  # times, CRCs, sizes, ports: not part of the contract
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_TMP = re.compile(r"/tmp/[^\s\"',\]]+")
_WHERE = re.compile(r"line: \d+, column: \d+")  # a JSON parser's position in the request body
_INSTANCE = re.compile(r"\b(Server|Broker|Controller|Minion)_[\w.-]+?_\d+\b")  # Helix ids: host and port vary


def normalise_text(text: str) -> str:
    text = _UUID.sub("<id>", text)
    text = _INSTANCE.sub(r"\1_<host>_<port>", text)
    text = _PORT.sub("127.0.0.1:<port>", text)
    text = _TMP.sub("<path>", text)
    text = _WHERE.sub("line: <n>, column: <n>", text)
    return _NUMBER.sub("<n>", text)


def shape(value: Any) -> Any:
    """The JSON structure of an answer: dict keys (sorted) and value kinds; lists by the shape of their items."""
    if isinstance(value, dict):  # keys that are ids or numbers are data, not shape
        return {normalise_text(k): shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        items = [shape(v) for v in value]
        unique = []
        for item in items:
            if item not in unique:
                unique.append(item)
        return unique
    if value is None:
        return "null"
    return type(value).__name__  # bool, int, float, str


def answer(response: requests.Response) -> dict:
    kind = (response.headers.get("Content-Type") or "").split(";")[0].strip()
    try:
        body: Any = response.json() if response.content else "<empty>"
        body_kind = "json"
    except ValueError:
        body, body_kind = ("<bytes>" if kind == "application/octet-stream" else response.text[:300]), "text"
    error = body.get("error") if isinstance(body, dict) else None
    return {"status": response.status_code, "body_kind": body_kind,
            "shape": shape(body) if body_kind == "json" else "<text>",
            "error": normalise_text(str(error)) if error is not None else None,
            "status_text": normalise_text(str(body["status"])) if isinstance(body, dict) and "status" in body
            else None,
            "body": body if body_kind == "json" and len(json.dumps(body)) < 4000 else None}


# --- the script ------------------------------------------------------------------------------------------

class Contract:
    """Runs the cases against ``url``; ``answers`` maps each case name to its ``answer``."""

    def __init__(self, url: str, tarballs: dict[str, Path], *, settle: Callable[[], None] = lambda: None) -> None:
        self.url = url.rstrip("/")
        self.tarballs = tarballs
        self.settle = settle  # between steps a real cluster must see (a segment ONLINE before lineage moves it)
        self.answers: dict[str, dict] = {}
        self.session = requests.Session()

    def call(self, case: str, method: str, path: str, *, params=None, headers=None, json_body=None,
             data=None, files=None) -> requests.Response:
        response = self.session.request(method, self.url + path, params=params, headers=headers, json=json_body,
                                        data=data, files=files, timeout=120)
        self.answers[case] = dict(answer(response), request=f"{method} {path}")
        return response

    def upload(self, case: str, segment: str, *, table: str = TABLE, table_type: str = "OFFLINE",
               upload_type: str = "SEGMENT", payload: bytes | None = None, download_uri: str | None = None):
        headers = {"UPLOAD_TYPE": upload_type}
        if download_uri is not None:
            headers["DOWNLOAD_URI"] = download_uri
        files = None
        data = None
        if upload_type == "URI":
            data, headers["Content-Type"] = b"", "application/json"
        else:
            body = payload if payload is not None else self.tarballs[segment].read_bytes()
            files = {segment: (segment, body, "application/octet-stream")}
        return self.call(case, "POST", "/v2/segments", params={"tableName": table, "tableType": table_type},
                         headers=headers, files=files, data=data)

    def download_urls(self, response: requests.Response, uri_base: str) -> dict:
        """Where each segment is served from after its push (tar, URI, metadata): the controller (it copied the
        tarball into its deep store) or the URI the push named."""
        def kind(url: str) -> str:
            if url.startswith(uri_base):
                return "the pushed http URI"
            if url.startswith("file:"):
                return "the pushed file URI"
            return "the controller" if "/segments/contract/" in url else url
        body = response.json() if response.status_code == 200 else {}
        kinds = {name: kind(meta.get("segment.download.url", "")) for name, meta in body.items()}
        return {"status": 200, "body_kind": "json", "shape": kinds, "error": None, "status_text": None,
                "body": kinds, "request": "GET /segments/{t}/zkmetadata (segment.download.url)"}

    def lineage(self, case: str) -> dict:
        response = self.call(case, "GET", f"/segments/{TABLE}/lineage", params={"type": "OFFLINE"})
        body = response.json() if response.content else None
        return (body or {}).get("lineageEntries") or {}

    def run(self, uri_base: str) -> dict[str, dict]:
        t = TABLE
        seg = {n: n for n in [*SEGMENTS, OLD]}
        # table config and schema
        self.call("get_table_missing", "GET", "/tables/contract_missing", params={"type": "offline"})
        self.call("get_schema_missing", "GET", "/tables/contract_missing/schema")
        self.call("add_schema_without_name", "POST", "/schemas", params={"override": "false"},
                  json_body={"dimensionFieldSpecs": []})
        self.call("add_table_without_schema", "POST", "/tables", json_body=table_config("contract_noschema"))
        self.call("add_schema", "POST", "/schemas", params={"override": "false"}, json_body=SCHEMA)
        self.call("add_schema_again", "POST", "/schemas", params={"override": "false"}, json_body=SCHEMA)
        self.call("add_table_bad_time_column", "POST", "/tables", json_body=table_config(time_column="nope"))
        without_tenants = {k: v for k, v in table_config().items() if k != "tenants"}
        self.call("add_table_without_tenants", "POST", "/tables", json_body=without_tenants)
        self.call("add_table", "POST", "/tables", json_body=table_config())
        self.call("add_table_again", "POST", "/tables", json_body=table_config())
        self.call("add_other_schema", "POST", "/schemas", params={"override": "false"},
                  json_body=dict(SCHEMA, schemaName=OTHER))
        self.call("add_other_table", "POST", "/tables", json_body=table_config(OTHER))
        self.call("get_table", "GET", f"/tables/{t}", params={"type": "offline"})
        self.call("get_schema", "GET", f"/tables/{t}/schema")
        # an empty table
        self.call("list_empty", "GET", f"/segments/{t}", params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        self.call("list_missing_table", "GET", "/segments/contract_missing",
                  params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        self.call("crc_empty", "GET", f"/segments/{t}/crc")
        self.call("zkmetadata_empty", "GET", f"/segments/{t}/zkmetadata", params={"type": "OFFLINE"})
        self.call("lineage_none", "GET", f"/segments/{t}/lineage", params={"type": "OFFLINE"})
        self.call("lineage_missing_table", "GET", "/segments/contract_missing/lineage", params={"type": "OFFLINE"})
        # uploads
        self.upload("upload_tar", seg["contract_seg_1"])
        self.upload("upload_tar_same_crc", seg["contract_seg_1"])
        self.upload("upload_tar_missing_table", seg["contract_seg_2"], table="contract_missing")
        self.upload("upload_tar_table_type_mismatch", seg["contract_seg_2"], table=f"{t}_REALTIME")
        self.upload("upload_tar_unknown_upload_type", seg["contract_seg_2"], upload_type="FOO")
        self.upload("upload_tar_time_before_1971", seg["contract_seg_old"])
        self.upload("upload_tar_not_a_tarball", seg["contract_seg_2"], payload=b"not a tarball")
        tar2 = self.tarballs[seg["contract_seg_2"]]
        self.upload("upload_uri_http", seg["contract_seg_2"], upload_type="URI",
                    download_uri=f"{uri_base}/{tar2.parent.name}/{tar2.name}")
        self.upload("upload_uri_http_missing", seg["contract_seg_4"], upload_type="URI",
                    download_uri=f"{uri_base}/nowhere/contract_seg_4.tar.gz")
        self.upload("upload_uri_without_download_uri", seg["contract_seg_4"], upload_type="URI")
        tar4 = self.tarballs[seg["contract_seg_4"]]
        self.upload("upload_uri_file", seg["contract_seg_4"], upload_type="URI", download_uri=tar4.as_uri())
        from pinot_sink.controller.push import metadata_tarball

        name5, metadata5 = metadata_tarball(self.tarballs[seg["contract_seg_5"]])
        self.upload("upload_metadata", name5, upload_type="METADATA", payload=metadata5,
                    download_uri=self.tarballs[seg["contract_seg_5"]].as_uri())
        self.upload("upload_metadata_without_download_uri", name5, upload_type="METADATA", payload=metadata5)
        self.call("list", "GET", f"/segments/{t}", params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        self.call("crc", "GET", f"/segments/{t}/crc")
        zk = self.call("zkmetadata", "GET", f"/segments/{t}/zkmetadata", params={"type": "OFFLINE"})
        self.answers["zkmetadata_download_urls"] = self.download_urls(zk, uri_base)
        self.call("download", "GET", f"/segments/{t}/contract_seg_1")
        self.call("download_missing", "GET", f"/segments/{t}/contract_seg_nope")
        self.settle()
        # what the servers hold (read before a reload after a revert): here, with nothing deleted yet, every
        # uploaded segment and nothing lingering, so the segment names are the same on both controllers
        self.call("externalview", "GET", f"/tables/{t}/externalview", params={"tableType": "OFFLINE"})
        self.call("externalview_missing_table", "GET", "/tables/contract_missing/externalview",
                  params={"tableType": "OFFLINE"})
        # lineage: start, its refusals, end, revert
        self.call("start_replace", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": ["contract_seg_1"], "segmentsTo": ["contract_seg_3"]})
        entry = self.answers["start_replace"].get("body", {}).get("segmentLineageEntryId", "none")
        self.call("start_replace_from_missing", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": ["contract_seg_nope"], "segmentsTo": ["contract_seg_x"]})
        self.call("start_replace_to_live", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": [], "segmentsTo": ["contract_seg_2"]})
        self.call("start_replace_from_in_an_entry", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": ["contract_seg_1"], "segmentsTo": ["contract_seg_y"]})
        self.call("start_replace_to_in_an_entry", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": [], "segmentsTo": ["contract_seg_3"]})
        self.lineage("lineage_in_progress")
        self.call("list_during_entry", "GET", f"/segments/{t}",
                  params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        self.call("delete_in_progress_from", "DELETE", f"/segments/{t}",
                  params=[("type", "OFFLINE"), ("segments", "contract_seg_1")])
        end = {"type": "OFFLINE", "segmentLineageEntryId": entry, "cleanup": "false"}
        self.call("end_replace_before_upload", "POST", f"/segments/{t}/endReplaceSegments", params=end,
                  data=b"", headers={"Content-Type": "application/json"})
        self.upload("upload_tar_of_entry", seg["contract_seg_3"])
        self.call("end_replace_unknown_id", "POST", f"/segments/{t}/endReplaceSegments",
                  params=dict(end, segmentLineageEntryId="0000-nope"), data=b"",
                  headers={"Content-Type": "application/json"})
        self.call("end_replace_subset_not_in_entry", "POST", f"/segments/{t}/endReplaceSegments", params=end,
                  json_body={"segmentsTo": ["contract_seg_z"]})
        self.settle()
        self.call("end_replace", "POST", f"/segments/{t}/endReplaceSegments", params=end, data=b"",
                  headers={"Content-Type": "application/json"})
        self.call("end_replace_again", "POST", f"/segments/{t}/endReplaceSegments", params=end, data=b"",
                  headers={"Content-Type": "application/json"})
        self.lineage("lineage_completed")
        self.call("list_after_end", "GET", f"/segments/{t}",
                  params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        self.call("list_after_end_with_replaced", "GET", f"/segments/{t}",
                  params={"type": "OFFLINE", "excludeReplacedSegments": "false"})
        self.call("delete_replaced", "DELETE", f"/segments/{t}",
                  params=[("type", "OFFLINE"), ("segments", "contract_seg_1")])
        self.call("start_replace_for_revert", "POST", f"/segments/{t}/startReplaceSegments",
                  params={"type": "OFFLINE", "forceCleanup": "false"},
                  json_body={"segmentsFrom": ["contract_seg_3"], "segmentsTo": ["contract_seg_6"]})
        entry2 = self.answers["start_replace_for_revert"].get("body", {}).get("segmentLineageEntryId", "none")
        revert = {"type": "OFFLINE", "segmentLineageEntryId": entry2}
        self.call("revert_in_progress_without_force", "POST", f"/segments/{t}/revertReplaceSegments",
                  params=dict(revert, forceRevert="false"), data=b"", headers={"Content-Type": "application/json"})
        self.call("revert_in_progress", "POST", f"/segments/{t}/revertReplaceSegments",
                  params=dict(revert, forceRevert="true"), data=b"", headers={"Content-Type": "application/json"})
        self.call("revert_again", "POST", f"/segments/{t}/revertReplaceSegments",
                  params=dict(revert, forceRevert="true"), data=b"", headers={"Content-Type": "application/json"})
        self.call("revert_unknown_id", "POST", f"/segments/{t}/revertReplaceSegments",
                  params=dict(revert, segmentLineageEntryId="0000-nope", forceRevert="true"), data=b"",
                  headers={"Content-Type": "application/json"})
        self.call("end_replace_reverted", "POST", f"/segments/{t}/endReplaceSegments",
                  params=dict(end, segmentLineageEntryId=entry2), data=b"",
                  headers={"Content-Type": "application/json"})
        self.lineage("lineage_reverted")
        # the reload pinot_sink asks after a revert on an upsert or dedup table
        self.call("reload", "POST", f"/segments/{t}/reload", params={"type": "OFFLINE"}, data=b"",
                  headers={"Content-Type": "application/json"})
        self.call("reload_missing_table", "POST", "/segments/contract_missing/reload", params={"type": "OFFLINE"},
                  data=b"", headers={"Content-Type": "application/json"})
        # deletes
        self.call("delete_one", "DELETE", f"/segments/{t}",
                  params=[("type", "OFFLINE"), ("segments", "contract_seg_2")])
        self.call("delete_missing_name", "DELETE", f"/segments/{t}",
                  params=[("type", "OFFLINE"), ("segments", "contract_seg_nope")])
        self.call("delete_missing_table", "DELETE", "/segments/contract_missing",
                  params=[("type", "OFFLINE"), ("segments", "contract_seg_nope")])
        self.call("list_at_end", "GET", f"/segments/{t}",
                  params={"type": "OFFLINE", "excludeReplacedSegments": "true"})
        return self.answers


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not after {timeout:.0f} s")
        time.sleep(1)
