#!/usr/bin/env python3
"""Record a real Pinot controller's answers to the contract script (``tests/controller_contract.py``).

    .venv/bin/python tools/controller_contract/record.py [--controller http://127.0.0.1:19000]

Needs a running cluster (``../shared/pinot-cluster/start.sh``). Drops the tables ``contract`` and
``contract_other`` first, builds the segments with ``pinot-sink build``, runs every case and writes
``tests/fixtures/controller_contract/recorded.json``; ``tests/controller/test_controller_contract.py`` replays it
against the test controller.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import controller_contract as contract  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "controller_contract" / "recorded.json"


def drop(url: str, table: str) -> None:
    requests.delete(f"{url}/tables/{table}", params={"type": "offline"}, timeout=60)
    contract.wait_for(lambda: requests.get(f"{url}/tables/{table}/externalview", timeout=30).status_code == 404,
                      120, f"table {table} gone")
    requests.delete(f"{url}/schemas/{table}", timeout=60)


def settle(url: str) -> None:
    """Every uploaded segment ONLINE (lineage steps on a real cluster follow the ideal state, not the view,
    but a broker query right after may not)."""
    def online() -> bool:
        ideal = requests.get(f"{url}/tables/{contract.TABLE}/idealstate", timeout=30).json().get("OFFLINE") or {}
        view = requests.get(f"{url}/tables/{contract.TABLE}/externalview", timeout=30).json().get("OFFLINE") or {}
        return all(view.get(s) == states for s, states in ideal.items())
    contract.wait_for(online, 120, "segments ONLINE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--controller", default="http://127.0.0.1:19000")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    url = args.controller.rstrip("/")
    for table in (contract.TABLE, contract.OTHER):
        drop(url, table)
    with tempfile.TemporaryDirectory(prefix="contract-") as work:
        tarballs = contract.build_segments(Path(work))
        with contract.file_server(Path(work)) as base:
            answers = contract.Contract(url, tarballs, settle=lambda: settle(url)).run(base)
    version = requests.get(f"{url}/version", timeout=30)
    document = {"recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "controller": "pinot-cluster (shared/pinot-cluster, Pinot commit 210c2951e720)",
                "version": version.json() if version.ok else None, "answers": answers}
    Path(args.out).write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"{len(answers)} answers -> {args.out}")


if __name__ == "__main__":
    main()
