"""Write tests/fixtures/java17_math.txt: ``Math.exp``, ``Math.log``, ``Math.log10``, ``Math.sin``, ``Math.cos``,
``Math.tan`` and ``Math.pow`` as Java 17 on this x86_64 machine computes them (HotSpot's intrinsic stubs), for
the inputs where numpy's libm gives other bits, the special and border values, and a sample of the others,
found among ~400,000 inputs a function (random bit patterns, the whole range, subnormal results and arguments,
overflow / underflow borders and their ulp neighbours; for sin / cos / tan the large arguments of the stubs'
own reduction and multiples of pi/4; for pow also integer exponents and negative bases, x near 1 with a large
y, y = 2 and 0.5, the special values of both). Prints how many of the run's values ``javalib.hotspot_math``
gets wrong.

    python tools/java_math/math_fixture.py [--seed 1] [--check-only]
"""
from __future__ import annotations

import argparse
import math
import random
import struct
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from java_runner import java_answers  # noqa: E402

from javalib.hotspot_math import (hotspot_cos, hotspot_exp, hotspot_log, hotspot_log10,  # noqa: E402
                                       hotspot_pow, hotspot_sin, hotspot_tan)

FIXTURE = ROOT / "tests" / "fixtures" / "java17_math.txt"
OURS = {"exp": (hotspot_exp, np.exp), "log": (hotspot_log, np.log), "log10": (hotspot_log10, np.log10),
        "sin": (hotspot_sin, np.sin), "cos": (hotspot_cos, np.cos), "tan": (hotspot_tan, np.tan)}


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def inputs(function: str, rng: random.Random) -> list[int]:
    values = {rng.getrandbits(64) for _ in range(150_000)}
    if function == "exp":
        values.update(_bits(rng.uniform(-745.2, 709.8)) for _ in range(150_000))
        values.update(_bits(rng.uniform(-50, 50)) for _ in range(30_000))
        values.update(_bits(rng.uniform(-745.2, -700)) for _ in range(30_000))  # subnormal results
        values.update(_bits(rng.uniform(700, 709.8)) for _ in range(20_000))
        values.update(_bits(rng.uniform(-1e-15, 1e-15)) for _ in range(20_000))
        borders = (709.782712893383973096, -745.133219101941108420, -708.3964185322641, 0.0, -0.0, 1024.0, -1024.0,
                   2.0**-54, -(2.0**-54), 1e-300, 5e-324, float("inf"), float("-inf"))
    elif function in ("sin", "cos", "tan"):
        values.update(_bits(rng.uniform(-10, 10)) for _ in range(100_000))
        values.update(_bits(rng.uniform(-1e5, 1e5)) for _ in range(50_000))  # across the large-argument border
        values.update(_bits(10 ** rng.uniform(-20, 308) * rng.choice((-1, 1))) for _ in range(50_000))
        values.update(_bits(rng.uniform(-1e-5, 1e-5)) for _ in range(20_000))
        values.update(rng.randrange(1, 1 << 52) for _ in range(5_000))  # subnormal arguments
        borders = tuple(k * math.pi / 4 for k in range(-64, 65)) + tuple(k * math.pi / 2 for k in range(1, 4000, 97))
        borders += (0.0, -0.0, 2.0**-252, 2.0**-29, 0.1015625, 12288.0, 86016.0, 90112.0, 1e22, 1.7976931348623157e308,
                    float("inf"), float("-inf"), 5e-324)
    else:
        values.update(_bits(rng.uniform(0, 1e6)) for _ in range(150_000))
        values.update(_bits(10.0 ** rng.uniform(-310, 308)) for _ in range(30_000))
        values.update(_bits(rng.uniform(0.5, 2)) for _ in range(30_000))
        values.update(rng.randrange(1, 1 << 52) for _ in range(20_000))  # subnormal arguments
        borders = tuple(float(f"1e{e}") for e in range(-323, 309)) + (1.0, 0.0, -0.0, float("inf"), -1.0, 5e-324,
                                                                       2.2250738585072014e-308)
    for border in borders:
        values.update((_bits(border) + k) & (2**64 - 1) for k in range(-50, 51))
    return sorted(values)


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0]


def pow_inputs(rng: random.Random) -> list[tuple[int, int]]:
    """(x, y) bit patterns for Math.pow: every path of the stub, the borders of each."""
    pairs = [(rng.getrandbits(64), rng.getrandbits(64)) for _ in range(60_000)]
    real = []
    real += [(rng.uniform(0, 100), rng.uniform(-50, 50)) for _ in range(60_000)]
    real += [(10 ** rng.uniform(-300, 300), rng.uniform(-2, 2)) for _ in range(40_000)]
    real += [(1 + rng.uniform(-0.04, 0.07), rng.uniform(-1e6, 1e6)) for _ in range(40_000)]  # x near 1, y large
    real += [(1 + rng.uniform(-1e-8, 1e-8), 10 ** rng.uniform(3, 12) * rng.choice((-1, 1))) for _ in range(20_000)]
    real += [(rng.uniform(-100, 100), float(rng.randint(-400, 400))) for _ in range(40_000)]  # integer exponents
    real += [(rng.uniform(0, 3), rng.uniform(-1100, 1100)) for _ in range(40_000)]  # overflow / underflow borders
    real += [(_double(rng.randrange(1, 2**52)), rng.uniform(-2, 2)) for _ in range(20_000)]  # subnormal x
    real += [(rng.uniform(0.5, 2), rng.uniform(-108000, -102000)) for _ in range(20_000)]
    real += [(2.0, rng.uniform(-1075, -1020)) for _ in range(10_000)]  # subnormal results
    real += [(rng.uniform(0, 1e6), 0.5) for _ in range(5_000)] + [(rng.uniform(-3, 3), 2.0) for _ in range(5_000)]
    special = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, 1e300, -1e300, 5e-324, -5e-324,
               float("inf"), float("-inf"), float("nan"), 2.0**53, 2.0**53 + 2, 2.0**52 + 1, -(2.0**52 + 1)]
    real += [(a, b) for a in special for b in special]
    pairs += [(_bits(a), _bits(b)) for a, b in real]
    return sorted(set(pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-only", action="store_true")
    args = parser.parse_args()
    rows, wrong = [], 0
    pick = random.Random(args.seed + 1)
    for function, (ours, libm) in OURS.items():
        xs = inputs(function, random.Random(args.seed))
        signed = [b - 2**64 if b >= 2**63 else b for b in xs]
        answers = java_answers([f"{function} {b}" for b in signed])
        want = np.array([int(a) for a in answers], dtype=np.int64).view(np.uint64)
        x = np.array(xs, dtype=np.uint64).view(np.float64)
        with np.errstate(all="ignore"):
            got, numpy_got = ours(x).view(np.uint64), libm(x).view(np.uint64)
        nan = np.isnan(want.view(np.float64))
        differ = (got != want) & ~(nan & np.isnan(got.view(np.float64)))
        numpy_differs = (numpy_got != want) & ~(nan & np.isnan(numpy_got.view(np.float64)))
        wrong += int(differ.sum())
        print(f"{function}: {len(xs)} inputs, {int(differ.sum())} differ from Java 17 here "
              f"(numpy's: {int(numpy_differs.sum())})")
        hard = list(np.flatnonzero(numpy_differs))
        special = [i for i in range(len(xs)) if not np.isfinite(x[i]) or abs(x[i]) in (0.0,) or
                   not np.isfinite(want.view(np.float64)[i]) or abs(want.view(np.float64)[i]) < 2.3e-308]
        rest = pick.sample(range(len(xs)), 1000)
        chosen = sorted(set(pick.sample(hard, min(3000, len(hard)))) | set(pick.sample(special, min(500, len(special))))
                        | set(rest))
        rows += [(function, int(xs[i]), int(want[i])) for i in chosen]
    xs, ys = zip(*pow_inputs(random.Random(args.seed)))
    signed = lambda b: b - 2**64 if b >= 2**63 else b  # noqa: E731
    answers = java_answers([f"pow {signed(a)} {signed(b)}" for a, b in zip(xs, ys)])
    want = np.array([int(a) for a in answers], dtype=np.int64).view(np.uint64)
    x, y = np.array(xs, dtype=np.uint64).view(np.float64), np.array(ys, dtype=np.uint64).view(np.float64)
    with np.errstate(all="ignore"):
        got, numpy_got = hotspot_pow(x, y).view(np.uint64), np.power(x, y).view(np.uint64)
    nan = np.isnan(want.view(np.float64))
    differ = (got != want) & ~(nan & np.isnan(got.view(np.float64)))
    numpy_differs = (numpy_got != want) & ~(nan & np.isnan(numpy_got.view(np.float64)))
    wrong += int(differ.sum())
    print(f"pow: {len(xs)} inputs, {int(differ.sum())} differ from Java 17 here (numpy's: {int(numpy_differs.sum())})")
    hard = list(np.flatnonzero(numpy_differs))
    result = want.view(np.float64)
    special = [i for i in range(len(xs)) if not (np.isfinite(x[i]) and np.isfinite(y[i]) and np.isfinite(result[i]))
               or x[i] <= 0 or result[i] == 0 or abs(result[i]) < 2.3e-308 or abs(result[i]) > 1e300]
    chosen = sorted(set(pick.sample(hard, min(3000, len(hard)))) | set(pick.sample(special, min(1500, len(special))))
                    | set(pick.sample(range(len(xs)), 1500)))
    pow_rows = [(int(xs[i]), int(ys[i]), int(want[i])) for i in chosen]
    if args.check_only or wrong:
        sys.exit(1 if wrong else 0)
    with FIXTURE.open("w") as out:
        out.write("# Math.exp / log / log10 / sin / cos / tan / pow of Java 17 on x86_64 HotSpot (AMD EPYC), written\n"
                  "# by tools/java_math/math_fixture.py: where numpy's libm differs, special values, a sample.\n"
                  "# function x-bits [y-bits] result-bits (hex)\n")
        for function, x_bits, result_bits in rows:
            out.write(f"{function} {x_bits:x} {result_bits:x}\n")
        for x_bits, y_bits, result_bits in pow_rows:
            out.write(f"pow {x_bits:x} {y_bits:x} {result_bits:x}\n")
    print(f"wrote {len(rows) + len(pow_rows)} cases to {FIXTURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
