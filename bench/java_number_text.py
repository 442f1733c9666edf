"""Double.toString / Float.toString as Java 17 prints them (``java_float_str``), per value, against Python's
``repr`` (the floor: the shortest digits, no Java rules) in the same run, over kinds of values a column holds:
prices (2 decimals), uniform doubles in [0, 1) (16-17 digits), whole numbers, large doubles (1e10..1e20, the
whole ones above 2**53 take the dtoa port), float32 values (``float32=True``). Best of --repeat, microseconds
per value, CPU seconds beside wall.

    python bench/java_number_text.py [--values 20000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from type_mapping.java_text import java_float_str  # noqa: E402
from timing import best  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng, n = random.Random(1), args.values
    kinds = {
        "prices": ([round(rng.uniform(0, 1000), 2) for _ in range(n)], False),
        "uniform [0, 1)": ([rng.uniform(0, 1) for _ in range(n)], False),
        "whole numbers": ([float(rng.randint(0, 10**6)) for _ in range(n)], False),
        "1e10..1e20": ([rng.uniform(1e10, 1e20) for _ in range(n)], False),
        "float32": ([float(np.float32(rng.uniform(0, 1000))) for _ in range(n)], True),
    }
    print(f"{n} values a kind, best of {args.repeat}; load {os.getloadavg()[0]:.2f}")
    print(f"{'kind':16} {'java_float_str us':>18} {'cpu':>6} {'repr us':>8} {'ratio':>6}")
    for name, (values, single) in kinds.items():
        wall, cpu = best(lambda: [java_float_str(v, single) for v in values], args.repeat)
        spell = (lambda v: str(np.float32(v))) if single else repr
        base, _ = best(lambda: [spell(v) for v in values], args.repeat)
        print(f"{name:16} {wall / n * 1e6:18.2f} {cpu / n * 1e6:6.2f} {base / n * 1e6:8.2f} {wall / base:6.1f}x")


if __name__ == "__main__":
    main()
