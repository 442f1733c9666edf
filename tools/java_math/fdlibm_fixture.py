"""Write tests/fixtures/java17_fdlibm.txt: the ``Math`` functions JDK 17 computes with fdlibm (``StrictMath``),
as Java 17 answers them, for the inputs where numpy's libm gives other bits, the special values and a sample of
the others, found among ~120,000 inputs a function (random bit patterns, the function's useful range, near 0,
near +-1 for asin / acos, subnormals, huge values, the branch borders of fdlibm and their ulp neighbours, inf,
NaN, -0.0). Prints, per function, how many of the run's values ``javalib.fdlibm`` and
numpy get wrong.

    python tools/java_math/fdlibm_fixture.py [--seed 1] [--check-only] [--only asin,acos]
"""
from __future__ import annotations

import argparse
import random
import struct
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from java_runner import java_answers  # noqa: E402

from javalib import fdlibm  # noqa: E402
from javalib.hotspot_math import hotspot_exp  # noqa: E402
from javalib.fdlibm import fdlibm_cbrt  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "java17_fdlibm.txt"
# name: (ours, numpy's, arity, (low, high) of the useful range)
FUNCTIONS = {
    "asin": (fdlibm.fdlibm_asin, np.arcsin, 1, (-1.0, 1.0)),
    "acos": (fdlibm.fdlibm_acos, np.arccos, 1, (-1.0, 1.0)),
    "atan": (fdlibm.fdlibm_atan, np.arctan, 1, (-10.0, 10.0)),
    "atan2": (fdlibm.fdlibm_atan2, np.arctan2, 2, (-10.0, 10.0)),
    "sinh": (fdlibm.fdlibm_sinh, np.sinh, 1, (-30.0, 30.0)),
    "cosh": (fdlibm.fdlibm_cosh, np.cosh, 1, (-30.0, 30.0)),
    "tanh": (fdlibm.fdlibm_tanh, np.tanh, 1, (-5.0, 5.0)),
    "expm1": (fdlibm.fdlibm_expm1, np.expm1, 1, (-40.0, 40.0)),
    "log1p": (fdlibm.fdlibm_log1p, np.log1p, 1, (-1.0, 10.0)),
    "hypot": (fdlibm.fdlibm_hypot, np.hypot, 2, (-1e3, 1e3)),
    "cbrt": (fdlibm_cbrt, np.cbrt, 1, (-1e3, 1e3)),
    "sexp": (fdlibm.fdlibm_exp, np.exp, 1, (-745.2, 709.8)),
    "sigmoid": (lambda a: 1.0 / (1.0 + hotspot_exp(-a)), lambda a: 1.0 / (1.0 + np.exp(-a)), 1, (-40.0, 40.0)),
}
BORDERS = (0.0, 1.0, 0.5, 0.975, 2.0**-27, 2.0**-28, 2.0**-29, 2.0**-54, 2.0**-55, 2.0**-57, 0.4375, 0.6875,
           1.1875, 2.4375, 2.0**66, 22.0, 0.34657359027997264, 1.0397207708399179, 38.816242111356935,
           709.782712893384, 710.4758600739439, 745.1332191019411, 0.41421356, 0.2929, 2.0**53, 2.0**500,
           2.0**-500, 2.0**-1022, 5e-324, 1e300, 1e-300, 1.7976931348623157e308, 2.0**60)


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def inputs(function: str, rng: random.Random) -> list[int]:
    low, high = FUNCTIONS[function][3]
    values = {rng.getrandbits(64) for _ in range(40_000)}
    values.update(_bits(rng.uniform(low, high)) for _ in range(50_000))
    values.update(_bits(rng.uniform(-1, 1)) for _ in range(10_000))
    values.update(_bits(rng.choice((-1, 1)) * 10.0 ** rng.uniform(-320, 308)) for _ in range(10_000))
    values.update(rng.randrange(1, 1 << 52) | (rng.getrandbits(1) << 63) for _ in range(2_000))  # subnormals
    if function in ("asin", "acos"):
        values.update(_bits(rng.choice((-1, 1)) * (1 - 10.0 ** rng.uniform(-17, -1))) for _ in range(8_000))
    for border in BORDERS + (low, high):
        for sign in (1.0, -1.0):
            values.update((_bits(sign * border) + k) & (2**64 - 1) for k in range(-40, 41))
    values.update(_bits(v) for v in (float("inf"), float("-inf"), float("nan"), -0.0))
    return sorted(values)


def _pairs(xs: list[int], rng: random.Random) -> list[tuple[int, int]]:
    """Two-argument functions: each input against a random partner (a random pattern, a value of the same
    size, or a special), so that every quadrant, ratio and scaling branch is met."""
    specials = [_bits(v) for v in (0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"), 5e-324)]
    out = []
    for b in xs:
        r = rng.random()
        if r < 0.3:
            other = rng.getrandbits(64)
        elif r < 0.9:
            v = struct.unpack("<d", struct.pack("<Q", b))[0]
            other = _bits(v * rng.uniform(-4, 4) if v == v and abs(v) != float("inf") else rng.uniform(-4, 4))
        else:
            other = rng.choice(specials)
        out.append((b, other) if rng.random() < 0.5 else (other, b))
    return out


def _signed(b: int) -> int:
    return b - 2**64 if b >= 2**63 else b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    rows, wrong = [], 0
    pick = random.Random(args.seed + 1)
    names = [n for n in FUNCTIONS if not args.only or n in args.only.split(",")]
    for function in names:
        ours, libm, arity, _ = FUNCTIONS[function]
        xs = inputs(function, random.Random(args.seed))
        cases = _pairs(xs, random.Random(args.seed + 7)) if arity == 2 else [(b,) for b in xs]
        answers = java_answers([f"fdlibm {function} " + " ".join(str(_signed(b)) for b in case) for case in cases])
        want = np.array([int(a) for a in answers], dtype=np.int64).view(np.uint64)
        argv = [np.array([c[i] for c in cases], dtype=np.uint64).view(np.float64) for i in range(arity)]
        with np.errstate(all="ignore"):
            got, numpy_got = ours(*argv).view(np.uint64), libm(*argv).view(np.uint64)
        nan = np.isnan(want.view(np.float64))
        differ = (got != want) & ~(nan & np.isnan(got.view(np.float64)))
        numpy_differs = (numpy_got != want) & ~(nan & np.isnan(numpy_got.view(np.float64)))
        wrong += int(differ.sum())
        print(f"{function}: {len(cases)} inputs, {int(differ.sum())} differ from Java 17 here "
              f"(numpy's: {int(numpy_differs.sum())})", flush=True)
        for i in np.flatnonzero(differ)[:5]:
            print("   ", [float(a[i]) for a in argv], hex(int(want[i])), hex(int(got[i])))
        hard = list(np.flatnonzero(numpy_differs))
        res = want.view(np.float64)
        special = [i for i in range(len(cases)) if not all(np.isfinite(a[i]) and a[i] != 0 for a in argv)
                   or not np.isfinite(res[i]) or abs(res[i]) < 2.3e-308]
        chosen = sorted(set(pick.sample(hard, min(600, len(hard)))) | set(pick.sample(special, min(200, len(special))))
                        | set(pick.sample(range(len(cases)), 300)))
        rows += [(function, cases[i], int(want[i])) for i in chosen]
    if args.check_only or wrong:
        sys.exit(1 if wrong else 0)
    with FIXTURE.open("w") as out:
        out.write("# Math.asin ... Math.hypot, Math.cbrt (fdlibm), StrictMath.exp (sexp) and Pinot's sigmoid of Java 17, written by\n"
                  "# tools/java_math/fdlibm_fixture.py: where numpy's libm differs, special values, a sample. "
                  "function argument-bits... result-bits (hex)\n")
        for function, case, result_bits in rows:
            out.write(f"{function} {' '.join(f'{b:x}' for b in case)} {result_bits:x}\n")
    print(f"wrote {len(rows)} cases to {FIXTURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
