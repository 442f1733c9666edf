"""Write each of ``tests/primary_keys/upsert_history.py``'s histories with pinot_sink (embedded, OFFLINE upsert table,
one task per step), replay it through Pinot's own upsert metadata manager (``UpsertCheck.java`` on
~/pinot-verify's classes) and keep Pinot's valid docs as ``tests/fixtures/upsert_check/pinot_valid_docs.json``.

    javac -d /tmp/pk-verify/classes -cp "$HOME/pinot-verify/classes:$HOME/pinot-verify/lib/*" \
        tools/pinot_upsert_check/UpsertCheck.java
    .venv/bin/python tools/pinot_upsert_check/make_fixture.py /tmp/pk-verify/classes

Two replays: "incremental", as a server sees the history (each commit's new segments added, then the
segments its rerun replaced removed), and "fresh", the live segments loaded in name order (a restart).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pinot_sink.commit import commit_job  # noqa: E402
from pinot_sink.segment.properties import as_text, parse_properties  # noqa: E402
from pinot_sink.task import write_partition  # noqa: E402
from tests.datasource.helpers import prepared_job  # noqa: E402
from tests.primary_keys import upsert_history as history  # noqa: E402
from tests.primary_keys.tables import ARROW, SCHEMA, table_config  # noqa: E402


def _partition(segment_dir: Path) -> int:
    meta = next(segment_dir.rglob("metadata.properties"))
    return int(as_text(parse_properties(meta.read_bytes())["column.id.partitionValues"]))


def main(classes: str) -> None:
    result = {"seed": history.SEED}
    for label, steps in history.HISTORIES.items():
        result[label] = replay(classes, steps)
    target = ROOT / "tests" / "fixtures" / "upsert_check" / "pinot_valid_docs.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=0) + "\n")


def replay(classes: str, steps) -> dict:
    verify = Path(os.environ.get("PINOT_VERIFY_HOME", Path.home() / "pinot-verify"))
    work = Path(tempfile.mkdtemp(prefix="upsert-check-"))
    out, unpacked = work / "out", work / "segments"
    config = table_config("OFFLINE", partitions=4)
    (work / "table.json").write_text(json.dumps({**config, "tenants": {}}))  # Jackson needs tenants
    (work / "schema.json").write_text(json.dumps(SCHEMA))
    events, live = [], set()
    for step, (write_id, *_) in enumerate(steps):
        options = {"table-name": "orders", "sink.buffer-flush.max-rows": 40}
        if write_id:
            options["write.id"] = write_id
        job = prepared_job(SCHEMA, config, ARROW, out=out, **options)
        commit_job(job, [write_partition(job, history.batches(steps, step), partition_id=0, attempt=0,
                                         task_attempt_id=0)])
        now = {p.name[: -len(".tar.gz")] for p in (out / "orders").glob("*.tar.gz")}
        for name in sorted(now - live):
            with tarfile.open(out / "orders" / f"{name}.tar.gz") as archive:
                archive.extractall(unpacked)
            events.append(f"add {_partition(unpacked / name)} {unpacked / name}")
        events += [f"remove {name}" for name in sorted(live - now)]
        live = now
    fresh = [e for e in events if e.startswith("add") and e.rsplit("/", 1)[-1] in live]
    result = {"history": [list(h) for h in steps], "live_segments": sorted(live)}
    for label, lines in (("incremental", events), ("fresh", sorted(fresh, key=lambda e: e.rsplit("/", 1)[-1]))):
        (work / f"{label}.txt").write_text("\n".join(lines) + "\n")
        subprocess.run(["java", "-cp", f"{classes}:{verify / 'classes'}:{verify / 'lib'}/*",
                        f"-Dlog4j2.configurationFile={verify / 'log4j2.xml'}", "pinotsink.verify.UpsertCheck",
                        str(work / "table.json"), str(work / "schema.json"), str(work / f"{label}.txt"),
                        str(work / f"{label}.jsonl")], check=True)
        docs = [json.loads(line) for line in (work / f"{label}.jsonl").read_text().splitlines()]
        result[label] = sorted([d["values"]["id"], d["values"]["city"], d["values"]["amount"], d["values"]["ts"],
                                d["segment"]] for d in docs)
        print(label, len(docs), "valid docs", file=sys.stderr)
    return result


if __name__ == "__main__":
    main(sys.argv[1])
