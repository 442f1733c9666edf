"""Does a real Pinot cluster load a segment tarball of each codec (build.tar-codec)? Never run by the tests.

Builds one segment per codec (gzip, lz4, zstd; 1000 rows each, x = codec index) with this package's builder,
pushes each with ``pinot-sink push`` (Pinot's multipart tar push), waits until the server has them ONLINE, and
asks the broker for COUNT(*) and SUM(x) per segment ($segmentName). Start a cluster first, e.g.:

    PINOT_CLUSTER_HOME=../shared/pinot-cluster/dist ../shared/pinot-cluster/start.sh
    .venv/bin/python tools/pinot_cluster/tar_codecs.py --controller http://127.0.0.1:9000 --broker http://127.0.0.1:8099
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import requests

from type_mapping.table_config import TableConfig

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pinot_sink.segment import build_segment  # noqa: E402
from pinot_sink.segment.builder import BuildOptions  # noqa: E402
from pinot_sink.segment.tar_codecs import CODECS  # noqa: E402
from type_mapping.pinot_schema import PinotSchema  # noqa: E402
from type_mapping.stored import PinotColumns  # noqa: E402

TABLE = "tar_codecs"
SCHEMA = {"schemaName": TABLE, "dimensionFieldSpecs": [{"name": "name", "dataType": "STRING"}],
          "metricFieldSpecs": [{"name": "x", "dataType": "LONG"}]}
CONFIG = {"tableName": TABLE, "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
          "tableIndexConfig": {"invertedIndexColumns": ["name"]}, "tenants": {}, "metadata": {}}
ROWS = 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--controller", required=True)
    parser.add_argument("--broker", required=True)
    args = parser.parse_args()
    c = args.controller.rstrip("/")
    requests.delete(f"{c}/tables/{TABLE}?type=offline", timeout=60)
    requests.delete(f"{c}/schemas/{TABLE}", timeout=60)
    requests.post(f"{c}/schemas", json=SCHEMA, timeout=60).raise_for_status()
    requests.post(f"{c}/tables", json=CONFIG, timeout=60).raise_for_status()
    schema = PinotSchema.from_json(SCHEMA)
    expected = {}
    with tempfile.TemporaryDirectory() as work:
        for index, codec in enumerate(CODECS):
            rows = pa.table({"name": pa.array([f"n{i % 37}" for i in range(ROWS)]),
                             "x": pa.array([index + 1] * ROWS, pa.int64())})
            built = build_segment(PinotColumns(rows, {}), schema, TableConfig.from_json({**CONFIG, "tableName": f"{TABLE}_OFFLINE"}, schema),
                                  Path(work) / codec, f"{TABLE}_{codec}", 0, BuildOptions(tar_codec=codec))
            head = built.tar_path.read_bytes()[:4].hex()
            done = subprocess.run([str(Path(sys.executable).parent / "pinot-sink"), "push", str(built.tar_path),
                                   "--url", c, "--table", TABLE], capture_output=True, text=True)
            print(f"{codec}: {built.tar_bytes} bytes, magic {head}, push rc {done.returncode}",
                  (done.stdout + done.stderr).strip()[-300:])
            expected[built.name] = [ROWS, ROWS * (index + 1)]
        deadline = time.time() + 180
        while time.time() < deadline:
            view = requests.get(f"{c}/tables/{TABLE}/externalview", timeout=60).json().get("OFFLINE") or {}
            if all(view.get(s) and all(v == "ONLINE" for v in view[s].values()) for s in expected):
                break
            time.sleep(2)
        print("external view:", view)
        answer = requests.post(f"{args.broker.rstrip('/')}/query/sql", timeout=60, json={
            "sql": f"SELECT $segmentName, COUNT(*), SUM(x) FROM {TABLE} GROUP BY $segmentName"}).json()
        got = {r[0]: [int(r[1]), int(r[2])] for r in answer["resultTable"]["rows"]}
        print("broker:", got)
    ok = got == expected
    print("every codec loaded and answered" if ok else f"FAIL: expected {expected}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
