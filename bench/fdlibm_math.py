"""The fdlibm ports (``javalib.fdlibm``: Java's exact bits) against numpy's libm calls they replaced, in the
same run: nanoseconds per value over arrays of --values doubles in each function's useful range, best of
--repeat, CPU seconds beside wall, the load average beside.

    python bench/fdlibm_math.py [--values 1000000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from javalib import fdlibm  # noqa: E402
from timing import best  # noqa: E402

CASES = {  # name: (port, numpy's, arguments' range)
    "asin": (fdlibm.fdlibm_asin, np.arcsin, 1.0), "acos": (fdlibm.fdlibm_acos, np.arccos, 1.0),
    "atan": (fdlibm.fdlibm_atan, np.arctan, 10.0), "atan2": (fdlibm.fdlibm_atan2, np.arctan2, 10.0),
    "sinh": (fdlibm.fdlibm_sinh, np.sinh, 30.0), "cosh": (fdlibm.fdlibm_cosh, np.cosh, 30.0),
    "tanh": (fdlibm.fdlibm_tanh, np.tanh, 5.0), "log1p": (fdlibm.fdlibm_log1p, np.log1p, 10.0),
    "hypot": (fdlibm.fdlibm_hypot, np.hypot, 1e3),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print(f"{args.values} values, best of {args.repeat}; load {os.getloadavg()[0]:.2f}")
    print(f"{'function':9} {'port ns':>8} {'cpu':>6} {'numpy ns':>9} {'cpu':>6} {'ratio':>6}")
    for name, (port, libm, scale) in CASES.items():
        arity = 2 if name in ("atan2", "hypot") else 1
        low = -1.0 if name == "log1p" else -scale
        argv = [rng.uniform(low, scale, args.values) for _ in range(arity)]
        with np.errstate(all="ignore"):
            wall, cpu = best(lambda: port(*argv), args.repeat)
            libm_wall, libm_cpu = best(lambda: libm(*argv), args.repeat)
        per = 1e9 / args.values
        print(f"{name:9} {wall * per:8.1f} {cpu * per:6.1f} {libm_wall * per:9.1f} {libm_cpu * per:6.1f} "
              f"{wall / libm_wall:5.1f}x")


if __name__ == "__main__":
    main()
