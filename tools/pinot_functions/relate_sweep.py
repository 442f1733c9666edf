"""A differential sweep of the DE-9IM matrix: random pairs of geo_reference.py's graph_rows (invalid areas and
collections), JTS 1.20's old RelateOp (RelateMatrixReference.java) against the port
(javalib/jts/relate_op.relate_matrix), each pair both ways round, read from WKT as
written (no Pinot bytes between: ring orientations as drawn). A TopologyException must be one in both (the
message is not compared). Prints the differing pairs and a count; exits 1 when any differ.

    javac -cp <jts-core-1.20.0.jar> -d <dir> tools/pinot_functions/RelateMatrixReference.java
    RELATE_REFERENCE_CP=<dir>:<jts-core-1.20.0.jar> python tools/pinot_functions/relate_sweep.py --seed S --rows N
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from geo_reference import graph_rows  # noqa: E402

from javalib.jts.relate_op import relate_matrix  # noqa: E402
from javalib.jts.io import read_wkt  # noqa: E402
from javalib.exceptions import JavaException  # noqa: E402


def ours(a: str, b: str) -> str:
    try:
        return relate_matrix(read_wkt(a, False), read_wkt(b, False))
    except JavaException as e:  # what JTS throws (or a text its reader refuses): compared as "it threw"
        return f"!{e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", default="1")
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    rows = graph_rows(random.Random(f"relate-sweep-{args.seed}"), args.rows)
    pairs = [(r["w"], r["w2"]) for r in rows] + [(r["w2"], r["w"]) for r in rows]
    done = subprocess.run(["java", "-cp", os.environ["RELATE_REFERENCE_CP"], "RelateMatrixReference"],
                          input="".join(f"{a}\t{b}\n" for a, b in pairs), capture_output=True, text=True,
                          check=True).stdout.splitlines()
    differing = thrown = 0
    for (a, b), theirs in zip(pairs, done):
        mine = ours(a, b)
        thrown += theirs.startswith("!")
        same = mine.startswith("!") if theirs.startswith("!") else mine == theirs
        if not same:
            differing += 1
            print(f"{a}\t{b}\tJTS {theirs}\tport {mine}")
    print(f"{len(pairs)} pairs, {thrown} thrown by JTS, {differing} differing")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
