"""Write tests/fixtures/java17_number_text.txt: Java 17's ``Double.toString`` / ``Float.toString`` for the
hard cases of a large run (where Java 17's digits are not the shortest that read back, JDK-4511638) and a
sample of the others, found among random bit patterns, 15-17 digit decimals, powers of ten and their
neighbours by ulp, subnormals, whole numbers near 2**53 and up to 2**63, dyadic values, short decimals.
Prints how many of the run's values ``javalib.floating_decimal`` (and ``java_float_str``) get wrong.

    python tools/java_math/number_text_fixture.py [--seed 1] [--check-only]
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

from javalib.floating_decimal import java17_double_string, java17_float_string  # noqa: E402
from type_mapping.java_text import java_float_from_shortest, java_float_str  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "java17_number_text.txt"


def _dbits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _fbits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def inputs(rng: random.Random) -> tuple[list[int], list[int]]:
    d: set[int] = set()
    f: set[int] = set()
    d.update(rng.getrandbits(64) for _ in range(200_000))
    for _ in range(100_000):
        digits = rng.randint(15, 17)
        x = float(f"{rng.randrange(10**(digits - 1), 10**digits)}e{rng.randint(-340, 310)}")
        if 0 < x < float("inf"):
            d.add(_dbits(x))
    for e in range(-330, 311):
        for m in (1, 2, 3, 5, 7, 9):
            x = float(f"{m}e{e}")
            if 0 < x < float("inf"):
                d.update(_dbits(x) + k for k in range(-3, 4))
    d.update(rng.randrange(1, 1 << 52) for _ in range(20_000))  # subnormals
    d.update(_dbits(float((1 << 53) + rng.randint(-5000, 5000))) for _ in range(20_000))
    d.update(_dbits(float(rng.randrange(10**7, 2**63))) for _ in range(20_000))
    d.update(_dbits(rng.randrange(1, 2**53) / 2 ** rng.randint(1, 12)) for _ in range(60_000))  # dyadic
    for _ in range(60_000):  # short decimals
        digits = rng.randint(1, 16)
        d.add(_dbits(float(f"{rng.randrange(1, 10**digits)}e{rng.randint(-25, 20)}")))
    d.update(_dbits(rng.uniform(-1e6, 1e6)) for _ in range(60_000))
    d.update(_dbits(x) for x in (1e23, 2e-3, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 0.1, 1e7))
    f.update(rng.getrandbits(32) for _ in range(150_000))
    with np.errstate(over="ignore"):
        for _ in range(110_000):
            digits = rng.randint(1, 9)
            x = np.float32(float(f"{rng.randrange(1, 10**digits)}e{rng.randint(-50, 38)}"))
            if np.isfinite(x) and x != 0:
                f.add(_fbits(x))
    for e in range(-46, 39):
        x = np.float32(float(f"1e{e}"))
        if x != 0 and np.isfinite(x):
            f.update(_fbits(x) + k for k in range(-3, 4))
    f.update(rng.randrange(1, 1 << 23) for _ in range(10_000))
    f.update(_fbits(np.float32(rng.randrange(1, 2**40))) for _ in range(10_000))
    f.update(_fbits(np.float32(rng.randrange(1, 2**24) / 2 ** rng.randint(1, 12))) for _ in range(40_000))
    f.update(_fbits(np.float32(rng.uniform(-1e6, 1e6))) for _ in range(40_000))
    return sorted(b & (2**64 - 1) for b in d), sorted(b & (2**32 - 1) for b in f)


def _signed(bits: int, width: int) -> int:
    return bits - (1 << width) if bits >> (width - 1) else bits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check-only", action="store_true", help="compare only; leave the fixture as it is")
    args = parser.parse_args()
    doubles, floats = inputs(random.Random(args.seed))
    answers = java_answers([f"dstr {_signed(b, 64)}" for b in doubles] + [f"fstr {_signed(b, 32)}" for b in floats])
    cases = [("d", b, a) for b, a in zip(doubles, answers)] + [("f", b, a) for b, a in zip(floats, answers[len(doubles):])]
    wrong, hard, plain = [], {"d": [], "f": []}, {"d": [], "f": []}
    for kind, bits, expected in cases:
        if kind == "d":
            value = struct.unpack("<d", struct.pack("<Q", bits))[0]
            ours, fast, shortest = java17_double_string(value), java_float_str(value), repr(value)
        else:
            value = float(np.uint32(bits).view(np.float32))
            ours, fast, shortest = java17_float_string(value), java_float_str(value, True), str(np.float32(value))
        if ours != expected or fast != expected:
            wrong.append((kind, f"{bits:x}", expected, ours, fast))
        if expected in ("NaN", "Infinity", "-Infinity", "0.0", "-0.0"):
            continue
        (hard if java_float_from_shortest(value, shortest) != expected else plain)[kind].append((bits, expected))
    print(f"{len(cases)} values ({len(doubles)} doubles, {len(floats)} floats), {len(wrong)} differ from Java 17; "
          f"Java 17's digits not the shortest for {len(hard['d'])} doubles, {len(hard['f'])} floats")
    for row in wrong[:20]:
        print("  ", row)
    if args.check_only or wrong:
        sys.exit(1 if wrong else 0)
    pick = random.Random(args.seed + 1)
    rows = []
    for kind, hard_count in (("d", 3000), ("f", 1500)):
        for group, count in ((hard[kind], hard_count), (plain[kind], 500)):
            rows += [(kind, bits, text) for bits, text in pick.sample(group, min(count, len(group)))]
    with FIXTURE.open("w") as out:
        out.write("# Java 17 Double.toString ('d', the double's bits in hex) and Float.toString ('f', the float's bits),\n"
                  "# written by tools/java_math/number_text_fixture.py: values where Java 17's digits are not the\n"
                  "# shortest (JDK-4511638) and a sample of the others. One a line: kind bits text\n")
        for kind, bits, text in sorted(rows):
            out.write(f"{kind} {bits:x} {text}\n")
    print(f"wrote {len(rows)} cases to {FIXTURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
