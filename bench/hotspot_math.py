"""Math functions as x86_64 HotSpot's stubs compute them (``javalib.hotspot_math``) against the numpy call
they replace (the code before: libm through numpy, the floor), per value, in the same run, over kinds of
arguments a column holds. Best of --repeat, nanoseconds per value, CPU seconds beside wall, load printed.

    python bench/hotspot_math.py [--values 200000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from javalib import hotspot_math as hm  # noqa: E402
from timing import best  # noqa: E402


def cases(n: int) -> list[tuple[str, object, object, tuple]]:
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2**64, size=(2, n), dtype=np.uint64).view(np.float64)
    return [
        ("pow, (0, 100) ** (-50, 50)", hm.hotspot_pow, np.power, (rng.uniform(0, 100, n), rng.uniform(-50, 50, n))),
        ("pow, near 1 ** +-1e6", hm.hotspot_pow, np.power, (rng.uniform(0.96, 1.07, n), rng.uniform(-1e6, 1e6, n))),
        ("pow, (-100, 100) ** int", hm.hotspot_pow, np.power,
         (rng.uniform(-100, 100, n), rng.integers(-400, 400, n).astype(np.float64))),
        ("pow, random bits", hm.hotspot_pow, np.power, (bits[0], bits[1])),
    ] + [(f"{name}, {label}", getattr(hm, "hotspot_" + name), getattr(np, name), (values,))
         for name in ("sin", "cos", "tan")
         for label, values in (("(-10, 10)", rng.uniform(-10, 10, n)), ("(-1e5, 1e5)", rng.uniform(-1e5, 1e5, n)),
                               ("random bits", bits[0]))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=200000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.values
    print(f"{n} values a kind, best of {args.repeat}; load {os.getloadavg()[0]:.2f}")
    print(f"{'kind':30} {'port ns':>8} {'cpu':>6} {'numpy ns':>9} {'ratio':>6}")
    with np.errstate(all="ignore"):
        for name, ours, before, arguments in cases(n):
            wall, cpu = best(lambda: ours(*arguments), args.repeat)
            base, _ = best(lambda: before(*arguments), args.repeat)
            print(f"{name:30} {wall / n * 1e9:8.1f} {cpu / n * 1e9:6.1f} {base / n * 1e9:9.1f} {wall / base:6.1f}x")


if __name__ == "__main__":
    main()
