"""Java 17's ``Double.toString`` / ``Float.toString`` (``javalib.floating_decimal``, a port of JDK 17's
``FloatingDecimal.dtoa``) and ``java_float_str``, which takes Python's shortest repr where it provably prints the
same: against the table Java 17 wrote (tests/fixtures/java17_number_text.txt, by
tools/java_math/number_text_fixture.py, whose run of 874,363 values had no difference), and the shortcut
against the port. tests/type_mapping/test_java_rules.py asks a JDK 17 about fresh random values too."""
from __future__ import annotations

import math
import random
import struct
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from javalib.floating_decimal import java17_double_string, java17_float_string
from type_mapping.java_text import java_float_from_shortest, java_float_str

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "java17_number_text.txt"


@lru_cache(maxsize=None)
def _table() -> list[tuple[str, float, str]]:
    rows = []
    for line in FIXTURE.read_text().splitlines():
        if line.startswith("#"):
            continue
        kind, bits, text = line.split(" ")
        if kind == "d":
            value = struct.unpack("<d", struct.pack("<Q", int(bits, 16)))[0]
        else:
            value = float(np.uint32(int(bits, 16)).view(np.float32))
        rows.append((kind, value, text))
    return rows


def test_the_table_holds_the_hard_cases():
    rows = _table()
    assert sum(k == "d" for k, _, _ in rows) >= 3000 and sum(k == "f" for k, _, _ in rows) >= 1500
    # most of them are not the shortest digits (which Java 19+ prints, and Python's repr)
    not_shortest = [t for k, v, t in rows if k == "d" and t != java_float_from_shortest(v, repr(v))]
    assert len(not_shortest) >= 3000


@pytest.mark.parametrize("kind", ["d", "f"])
def test_port_and_printer_match_java17_on_the_table(kind):
    port = java17_double_string if kind == "d" else java17_float_string
    wrong = [(v, t, port(v), java_float_str(v, kind == "f")) for k, v, t in _table() if k == kind
             and (port(v) != t or java_float_str(v, kind == "f") != t)]
    assert not wrong, f"{len(wrong)} differ from Java 17, first: {wrong[:5]}"


@pytest.mark.parametrize("value, double, single", [
    (1e23, "9.999999999999999E22", "1.0E23"),  # JDK-4511638: not the shortest
    (5e-324, "4.9E-324", "0.0"),  # two digits in E notation, the nearer
    (8.9970867155857632e16, "8.9970867155857632E16", "8.9970863E16"),  # developLongDigits
    (2e22, "2.0E22", "2.0E22"),
    (1e7, "1.0E7", "1.0E7"),
    (9999999.0, "9999999.0", "9999999.0"),
    (0.001, "0.001", "0.001"),
    (1e-5, "1.0E-5", "1.0E-5"),
    (-0.0, "-0.0", "-0.0"),
    (float("nan"), "NaN", "NaN"),
    (float("-inf"), "-Infinity", "-Infinity"),
    (2.0**63, "9.223372036854776E18", "9.223372E18"),
    (0.1, "0.1", "0.1"),
])
def test_named_values(value, double, single):
    assert java17_double_string(value) == java_float_str(value) == double
    assert java17_float_string(value) == java_float_str(value, True) == single


def _doubles(rng: random.Random, n: int) -> list[float]:
    values = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(n)]
    values += [rng.uniform(-1e7, 1e7) for _ in range(n)]
    values += [round(rng.uniform(0, 1000), rng.randint(0, 6)) for _ in range(n)]
    values += [float(f"{rng.randrange(1, 10**rng.randint(1, 17))}e{rng.randint(-30, 20)}") for _ in range(n)]
    values += [rng.randrange(1, 2**53) / 2 ** rng.randint(1, 60) for _ in range(n)]
    return [v for v in values if v == v]


def test_the_shortcut_agrees_with_the_port():
    """Where Python's repr is taken (java_float_str), the port must print the same: a shortcut condition
    too wide would show here on values of every kind."""
    rng = random.Random(4511638)
    doubles = _doubles(rng, 3000)
    wrong = [(v, java_float_str(v), java17_double_string(v)) for v in doubles if java_float_str(v) != java17_double_string(v)]
    floats = [float(np.float32(v)) for v in doubles if abs(v) < 3e38]
    floats += [float(np.uint32(rng.getrandbits(32)).view(np.float32)) for _ in range(3000)]
    floats += [float(np.float32(rng.randrange(1, 2**24) / 2 ** rng.randint(1, 40))) for _ in range(3000)]
    floats += [float(np.float32(rng.uniform(-1e6, 1e6))) for _ in range(3000)]  # 8 and 9 digits
    wrong += [(v, java_float_str(v, True), java17_float_string(v)) for v in floats
              if v == v and java_float_str(v, True) != java17_float_string(v)]
    assert not wrong, wrong[:5]


def test_floats_at_a_tie_take_the_port():
    """2097152.25 is exactly halfway between the 8-digit 2097152.2 and 2097152.3 (both within half an ulp,
    0.125): the shortcut leaves such ties to the port rather than trust numpy's rounding of the tie."""
    from javalib.floating_decimal import _clear_of_ties

    assert not _clear_of_ties(*math.frexp(2097152.25), 8, True)
    assert _clear_of_ties(*math.frexp(float(np.float32(123.45678))), 8, True)
    # 1.0E23: the double below is exactly half an ulp from 10**23, a one-digit number: Java's own choice
    assert not _clear_of_ties(*math.frexp(1e23), 1, False)
    assert _clear_of_ties(*math.frexp(1.2345678901234567e23), 17, False)
    assert java_float_str(2097152.25, True) == java17_float_string(2097152.25) == "2097152.2"
