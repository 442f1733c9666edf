"""Measure the ZooKeeper records of ``tests/controller/zk_cases.py`` with Helix's own serializer and write
``tests/fixtures/zk_record_sizes.json``, the sizes the size model (``pinot_sink.controller.zk_records``) is
tested against.

Helix is not a dependency: compile the few classes the serializer needs from an apache/helix checkout (module
``zookeeper-api``: ``ZNRecord``, ``ZNRecordDelta``, ``ZNRecordSerializer``, ``PayloadSerializer``,
``JacksonPayloadSerializer``, ``CodehausJacksonIntrospector``, ``GZipCompressionUtil``, ``ZNRecordUtil``,
``ZkSystemPropertyKeys``, ``ZkSerializer``, ``ZkMarshallingError``, ``ZkException`` and its three subclasses,
``ZkClientException``) with javac against jackson-annotations/core/databind, slf4j-api and zookeeper jars, then::

    python tools/zk_record_sizes/measure.py --classpath <helix classes>:<jars>

``RecordSize.java`` (ours, in this folder) reads the records in a line format and prints what the serializer
wrote. The write limit is raised for the measurement (records over 1,024,000 bytes are measured, not refused)
while the compression threshold stays at Helix's default.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.controller.zk_cases import CASES, case_record  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "zk_record_sizes.json"


def lines(record) -> list[str]:
    out = [f"R\t{record.id}"]
    out += [f"S\t{k}\t{v}" for k, v in record.simple.items()]
    out += ["\t".join(["M", k] + [x for kv in inner.items() for x in kv]) for k, inner in record.maps.items()]
    out += ["\t".join(["L", k, *values]) for k, values in record.lists.items()]
    return out + ["E"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classpath", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-nowarn", "-d", tmp, "-cp", args.classpath, str(Path(__file__).with_name(
            "RecordSize.java"))], check=True)
        spec = Path(tmp) / "records.txt"
        spec.write_text("\n".join(line for case in CASES for line in lines(case_record(case))) + "\n")
        result = subprocess.run(
            ["java", "-Dzk.serializer.znrecord.write.size.limit.bytes=1000000000",
             "-Dzk.serializer.znrecord.auto-compress.threshold.bytes=1024000", "-cp", f"{tmp}:{args.classpath}",
             "RecordSize", str(spec)], check=True, capture_output=True, text=True)
    measured = [line.split("\t") for line in result.stdout.splitlines() if line.count("\t") == 3]
    assert len(measured) == len(CASES), result.stdout + result.stderr
    rows = [{"case": case, "json_bytes": int(raw), "written_bytes": int(written), "compressed": flag == "1"}
            for case, (_id, raw, written, flag) in zip(CASES, measured)]
    head = json.dumps("apache/helix zookeeper-api ZNRecordSerializer (commit 0902505fdaa3), jackson-databind "
                      "2.21.2, " + java_version())
    FIXTURE.write_text('{"measured_with": ' + head + ',\n "cases": [\n  '
                       + ",\n  ".join(json.dumps(row) for row in rows) + "\n ]\n}\n")
    print(f"wrote {FIXTURE} ({len(rows)} cases)")


def java_version() -> str:
    out = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return out.splitlines()[0] if out else "?"


if __name__ == "__main__":
    main()
