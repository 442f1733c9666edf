"""``Math.asin acos atan atan2 sinh cosh tanh expm1 log1p hypot cbrt`` (fdlibm in JDK 17, ``javalib.fdlibm``),
fdlibm's own ``exp`` (``StrictMath.exp``, inside sinh / cosh) and Pinot's ``sigmoid``: against the table Java 17
wrote on this machine (tests/fixtures/java17_fdlibm.txt, by tools/java_math/fdlibm_fixture.py; its run of
~120,000 inputs a function had no difference, numpy's libm 29 (log1p) to 22,437 (atan2)), and through the
functions Pinot's transforms call. tests/type_mapping/test_java_rules.py asks a JDK 17 about fresh inputs. Java's
answers are the only reference: no test asserts whether the platform's libm agrees with them (machine-dependent)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from javalib import fdlibm
from javalib.hotspot_math import hotspot_exp
from javalib.fdlibm import fdlibm_cbrt
from pinot_sink.ingestion.values import Context

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "java17_fdlibm.txt"
OURS = {"asin": fdlibm.fdlibm_asin, "acos": fdlibm.fdlibm_acos, "atan": fdlibm.fdlibm_atan,
        "atan2": fdlibm.fdlibm_atan2, "sinh": fdlibm.fdlibm_sinh, "cosh": fdlibm.fdlibm_cosh,
        "tanh": fdlibm.fdlibm_tanh, "expm1": fdlibm.fdlibm_expm1, "log1p": fdlibm.fdlibm_log1p,
        "hypot": fdlibm.fdlibm_hypot, "cbrt": fdlibm_cbrt, "sexp": fdlibm.fdlibm_exp,
        "sigmoid": lambda a: 1.0 / (1.0 + hotspot_exp(-a))}


def _table(function: str) -> tuple[list[np.ndarray], np.ndarray]:
    rows = [line.split()[1:] for line in FIXTURE.read_text().splitlines() if line.startswith(function + " ")]
    args = [np.array([int(r[i], 16) for r in rows], dtype=np.uint64).view(np.float64) for i in range(len(rows[0]) - 1)]
    return args, np.array([int(r[-1], 16) for r in rows], dtype=np.uint64)


def _differ(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    nan = np.isnan(want.view(np.float64)) & np.isnan(got.view(np.float64))
    return (got.view(np.uint64) != want) & ~nan


@pytest.mark.parametrize("function", sorted(OURS))
def test_bits_match_java17_on_the_table(function):
    args, want = _table(function)
    assert len(want) > 500
    got = OURS[function](*args)
    wrong = np.flatnonzero(_differ(got, want))
    assert not len(wrong), [([float(a[i]) for a in args], hex(int(want[i])), hex(int(got.view(np.uint64)[i])))
                            for i in wrong[:5]]


def test_special_values():
    inf, nan = np.inf, np.nan
    assert fdlibm.fdlibm_asin(np.array([1.0, -1.0, 2.0, -0.0]))[:2].tolist() == [np.pi / 2, -np.pi / 2]
    assert np.isnan(fdlibm.fdlibm_asin(np.array([2.0]))[0]) and np.signbit(fdlibm.fdlibm_asin(np.array([-0.0]))[0])
    assert fdlibm.fdlibm_acos(np.array([1.0, -1.0])).tolist() == [0.0, np.pi]
    assert fdlibm.fdlibm_atan(np.array([inf, -inf, 1e300])).tolist() == [np.pi / 2, -np.pi / 2, np.pi / 2]
    y = np.array([0.0, -0.0, 0.0, -0.0, 1.0, inf, inf, -inf, 1.0, nan])
    x = np.array([1.0, 1.0, -1.0, -1.0, 0.0, inf, -inf, -inf, -inf, 1.0])
    out = fdlibm.fdlibm_atan2(y, x)
    assert out[:9].tolist() == [0.0, -0.0, np.pi, -np.pi, np.pi / 2, np.pi / 4, 3 * np.pi / 4, -3 * np.pi / 4, np.pi]
    assert np.signbit(out[1]) and np.isnan(out[9])
    assert fdlibm.fdlibm_sinh(np.array([inf, -inf, 711.0, -0.0])).tolist() == [inf, -inf, inf, -0.0]
    assert fdlibm.fdlibm_cosh(np.array([inf, -inf, 711.0, 0.0])).tolist() == [inf, inf, inf, 1.0]
    assert fdlibm.fdlibm_tanh(np.array([inf, -inf, 30.0, -0.0])).tolist() == [1.0, -1.0, 1.0, -0.0]
    assert fdlibm.fdlibm_expm1(np.array([inf, -inf, 710.0, -50.0])).tolist() == [inf, -1.0, inf, -1.0]
    assert fdlibm.fdlibm_log1p(np.array([-1.0, inf, 0.0]).astype(float)).tolist() == [-inf, inf, 0.0]
    assert np.isnan(fdlibm.fdlibm_log1p(np.array([-2.0, -inf, nan]))).all()
    assert fdlibm.fdlibm_hypot(np.array([inf, nan, 3.0, 1e300, 5e-324]), np.array([nan, -inf, 4.0, 1e300, 0.0])).tolist() \
        == [inf, inf, 5.0, 1.4142135623730952e300, 5e-324]
    # StrictMath.exp(1) is 2.7182818284590455, one ulp above Math.E (and above HotSpot's Math.exp(1))
    assert fdlibm.fdlibm_exp(np.array([0.0, -inf, 710.0, -746.0, 1.0])).tolist() == [1.0, 0.0, inf, 0.0, 2.7182818284590455]


@pytest.mark.parametrize("function", ["asin", "acos", "atan", "sinh", "cosh", "tanh", "log1p", "cbrt", "sigmoid"])
def test_the_transforms_call_them(function):
    (x,), want = _table(function)
    ours = Expression(f"{function}(d)").evaluate_array({"d": pa.array(x, pa.float64())}, Context(len(x)))
    got = np.array([np.nan if v is None else v for v in ours.to_pylist()], dtype=np.float64)
    assert not _differ(got, want).any()


@pytest.mark.parametrize("function", ["atan2", "hypot"])
def test_the_two_argument_transforms_call_them(function):
    (a, b), want = _table(function)
    ours = Expression(f"{function}(a, b)").evaluate_array(
        {"a": pa.array(a, pa.float64()), "b": pa.array(b, pa.float64())}, Context(len(a)))
    got = np.array([np.nan if v is None else v for v in ours.to_pylist()], dtype=np.float64)
    assert not _differ(got, want).any()
