"""The build time a JSON index and a TIMESTAMP index add, as ratios against the same segment without them
(best of --repeat; CPU-seconds of this process beside wall seconds, the 1-minute load average printed).

100,000 rows: a LONG id, a STRING holding a distinct 3-level JSON value with an array per row, a TIMESTAMP;
``jsonIndexColumns`` on the STRING, then a TIMESTAMP index with HOUR, DAY, WEEK, MONTH on the TIMESTAMP.
``--repo DIR`` also times the JSON index of another checkout (e.g. ``git archive <commit> | tar -x -C DIR``) in
a subprocess, for a before / after ratio in one run.

    python bench/index_kinds.py [--rows 100000] [--repeat 3] [--repo DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from type_mapping.table_config import TableConfig

REPO = Path(__file__).resolve().parents[1]
if __name__ == "__main__" and "--child" not in sys.argv:
    sys.path.insert(0, str(REPO))

from pinot_sink.segment import build_segment  # noqa: E402
from type_mapping import PinotColumns, PinotSchema  # noqa: E402

SCHEMA = PinotSchema.from_json({
    "schemaName": "b",
    "dimensionFieldSpecs": [{"name": "id", "dataType": "LONG"}, {"name": "p", "dataType": "STRING", "maxLength": 1000}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
})
CONFIGS = {
    "no extra index": {"tableName": "b"},
    "json index": {"tableName": "b", "tableIndexConfig": {"jsonIndexColumns": ["p"]}},
    "timestamp index (4 granularities)": {"tableName": "b", "fieldConfigList": [
        {"name": "ts", "timestampConfig": {"granularities": ["HOUR", "DAY", "WEEK", "MONTH"]}}]},
}


def _columns(n: int) -> PinotColumns:
    texts = [json.dumps({"user": {"id": i % 5000, "name": f"u{i % 977}"}, "tags": [f"t{i % 7}", f"t{i % 11}"],
                         "n": i}) for i in range(n)]
    return PinotColumns(pa.table({"id": pa.array(range(n), pa.int64()), "p": pa.array(texts),
                                  "ts": pa.array([1_700_000_000_000 + i * 60_000 for i in range(n)], pa.int64())}),
                        {})


def _time(columns: PinotColumns, config: dict, repeat: int) -> tuple[float, float]:
    out = tempfile.mkdtemp()
    wall = cpu = float("inf")
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        build_segment(columns, SCHEMA, TableConfig.from_json(config, SCHEMA), out, "b_0", 0)
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repo", default=None, help="another checkout whose JSON index to time too")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    columns = _columns(args.rows)
    if args.child:
        print(json.dumps(_time(columns, CONFIGS[args.child], args.repeat)))
        return
    timings = {label: _time(columns, config, args.repeat) for label, config in CONFIGS.items()}
    if args.repo:
        out = subprocess.run([sys.executable, __file__, "--child", "json index", "--rows", str(args.rows),
                              "--repeat", str(args.repeat)], check=True, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(Path(args.repo).resolve())}, cwd=args.repo)
        timings[f"json index ({args.repo})"] = tuple(json.loads(out.stdout.strip().splitlines()[-1]))
    base_wall, base_cpu = timings["no extra index"]
    print(f"rows {args.rows:,}; best of {args.repeat}; load {os.getloadavg()[0]:.1f}")
    for label, (wall, cpu) in timings.items():
        print(f"{label:44s} wall {wall:7.2f} s {wall / base_wall:6.2f}x   cpu {cpu:7.2f} s {cpu / base_cpu:6.2f}x")


if __name__ == "__main__":
    main()
