"""What Java 17's regexp semantics cost here: compiling and running a pattern with ``\\b`` (Java 17's Unicode
word boundary, pinot_sink/ingestion/functions/regexp_functions.py) and with ``\\p{L}`` against the same pattern with
ASCII ``\\b`` / ``[a-zA-Z]`` (Python's ``re`` directly: the baseline), in the same run, CPU seconds (best of
--repeat) beside wall, and the load:

    python bench/regexp_java.py [--rows 100000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from javalib.regex.matcher import java_find  # noqa: E402
from javalib.regex.pattern import JavaPattern  # noqa: E402


def best(fn, repeat: int) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    words = ["café", "au", "lait", "naïve", "über", "plain", "text", "x_1", "Ωmega", "e\u0301te"]
    rows = [" ".join(rng.choice(words) for _ in range(6)) for _ in range(args.rows)]
    print(f"load average {os.getloadavg()[0]:.2f}, {args.rows} rows of 6 words, best of {args.repeat}")
    cases = [(r"\b\w+\b", r"(?a:\b)[a-zA-Z0-9_]+(?a:\b)"), (r"\p{L}+", r"[a-zA-Z]+")]
    for java, baseline in cases:

        def compile_java():
            re.purge()
            JavaPattern(java)

        def compile_base():
            re.purge()
            re.compile(baseline)

        (jc, jw), (bc, bw) = best(compile_java, args.repeat), best(compile_base, args.repeat)
        print(f"compile {java!r}: {jc * 1e3:.1f} ms CPU ({jw * 1e3:.1f} wall); baseline {baseline!r}: "
              f"{bc * 1e3:.2f} ms CPU ({bw * 1e3:.2f} wall)")
        j, b = JavaPattern(java).regex, re.compile(baseline)
        (jc, jw) = best(lambda: [sum(1 for _ in java_find(j, s)) for s in rows], args.repeat)
        (bc, bw) = best(lambda: [sum(1 for _ in java_find(b, s)) for s in rows], args.repeat)
        print(f"count matches {java!r}: {jc / args.rows * 1e6:.2f} us CPU per row ({jw / args.rows * 1e6:.2f} wall); "
              f"baseline {bc / args.rows * 1e6:.2f} us ({bw / args.rows * 1e6:.2f}), {jc / bc:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
