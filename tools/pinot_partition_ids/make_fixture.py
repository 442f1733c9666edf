"""Ask Pinot's own partition functions (through ~/pinot-verify's classes) for the ids of the keys
``tests/segment/partition_keys.py`` draws, and keep the answers as ``tests/fixtures/partition_ids/pinot_ids.json``.

    javac -d /tmp/pk-verify/classes -cp "$HOME/pinot-verify/classes:$HOME/pinot-verify/lib/*" \
        tools/pinot_partition_ids/PartitionIds.java
    .venv/bin/python tools/pinot_partition_ids/make_fixture.py /tmp/pk-verify/classes

Per key type and function config: the SHA-256 of the ids (a byte each, 255 where Pinot threw), the
histogram and the first ids; the test regenerates the keys from the seed and compares.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "segment"))

import partition_keys as pk  # noqa: E402


def main(classes: str) -> None:
    verify = Path(os.environ.get("PINOT_VERIFY_HOME", Path.home() / "pinot-verify"))
    classpath = f"{classes}:{verify / 'classes'}:{verify / 'lib'}/*"
    out = {"seed": pk.SEED, "count": pk.COUNT, "sample": pk.SAMPLE, "cases": []}
    for kind, specs in pk.SPECS.items():
        with tempfile.TemporaryDirectory() as work:
            work = Path(work)
            (work / "keys.txt").write_text("\n".join(pk.key_lines(kind, pk.keys(kind))) + "\n")
            (work / "specs.txt").write_text("\n".join(pk.spec_line(*s) for s in specs) + "\n")
            subprocess.run(["java", "-cp", classpath, "pinotsink.verify.PartitionIds", kind, str(work / "keys.txt"),
                            str(work / "specs.txt"), str(work)], check=True)
            for index, (name, n, config) in enumerate(specs):
                ids = (work / f"{index}.ids").read_bytes()
                assert len(ids) == pk.COUNT, (kind, name, len(ids))
                out["cases"].append({"type": kind, "function": name, "numPartitions": n, "functionConfig": config,
                                     "sha256": hashlib.sha256(ids).hexdigest(),
                                     "histogram": {str(i): ids.count(i) for i in sorted(set(ids))},
                                     "first": ids[: pk.SAMPLE].hex()})
        print(kind, "done", file=sys.stderr)
    target = ROOT / "tests" / "fixtures" / "partition_ids" / "pinot_ids.json"
    target.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
