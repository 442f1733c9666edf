"""``Math.exp`` / ``log`` / ``log10`` / ``sin`` / ``cos`` / ``tan`` / ``pow`` as x86_64 HotSpot's intrinsics compute
them (``javalib.hotspot_math``): against the table Java 17 wrote on this machine (tests/fixtures/java17_math.txt,
by tools/java_math/math_fixture.py: its runs had no difference, see docs/ingestion.md), and through the functions
Pinot's transforms call. Only Java's answers are the reference: whether the platform's libm agrees with Java
depends on the machine, so no test asserts it either way.
tests/type_mapping/test_java_rules.py asks a JDK 17 about fresh random inputs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from javalib.fdlibm import fdlibm_atan2
from javalib.hotspot_math import (hotspot_cos, hotspot_exp, hotspot_log, hotspot_log10, hotspot_pow, hotspot_sin,
                                       hotspot_tan)
from pinot_sink.ingestion.values import Context

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "java17_math.txt"
FUNCTIONS = {"exp": hotspot_exp, "log": hotspot_log, "log10": hotspot_log10, "sin": hotspot_sin, "cos": hotspot_cos,
             "tan": hotspot_tan}


def _table(function: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split() for line in FIXTURE.read_text().splitlines() if line.startswith(function + " ")]
    x = np.array([int(r[1], 16) for r in rows], dtype=np.uint64).view(np.float64)
    return x, np.array([int(r[2], 16) for r in rows], dtype=np.uint64)


@pytest.mark.parametrize("function", ["exp", "log", "log10", "sin", "cos", "tan"])
def test_bits_match_java17_on_the_table(function):
    x, want = _table(function)
    assert len(x) > 1500
    got = FUNCTIONS[function](x).view(np.uint64)
    nan = np.isnan(want.view(np.float64)) & np.isnan(got.view(np.float64))
    wrong = np.flatnonzero((got != want) & ~nan)
    assert not len(wrong), [(x[i], hex(int(want[i])), hex(int(got[i]))) for i in wrong[:5]]


def test_special_values_and_borders():
    exp_in = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 709.782712893384, 709.79, -745.13321910194122,
                       -745.2, 1e-300, -1024.0, 1024.0])
    out = hotspot_exp(exp_in)
    assert out[0] == out[1] == 1.0 and out[2] == 2.718281828459045 and out[3] == np.inf and out[4] == 0.0
    assert np.isnan(out[5]) and out[6] == 1.7976931348622732e+308 and out[7] == np.inf and out[8] == 0.0 and out[9] == 0.0
    assert out[10] == 1.0 and out[11] == 0.0 and out[12] == np.inf
    log_in = np.array([1.0, 10.0, 1e-5, 0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, 1e300])
    out = hotspot_log10(log_in)
    assert out[0] == 0.0 and out[1] == 1.0 and out[2] == -5.0 and out[3] == out[4] == -np.inf
    assert np.isnan(out[5]) and out[6] == np.inf and np.isnan(out[7]) and np.isnan(out[8])
    assert out[9] == -323.3062153431158 and out[10] == 300.0


def test_the_transforms_call_them():
    x, want = _table("exp")
    values = [float(v) for v in x[:200]]
    ours = Expression("exp(d)").evaluate_array({"d": pa.array(values, pa.float64())}, Context(len(values)))
    assert np.array(ours.to_pylist(), dtype=np.float64).view(np.uint64).tolist()[:50] == hotspot_exp(x[:50]).view(np.uint64).tolist()
    x, want = _table("log10")
    ours = Expression("log10(d)").evaluate_array({"d": pa.array(x[:200], pa.float64())}, Context(200))
    got = np.array([np.nan if v is None else v for v in ours.to_pylist()], dtype=np.float64)
    assert np.array_equal(got.view(np.uint64)[~np.isnan(got)], want[:200][~np.isnan(got)])


def _pow_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [line.split()[1:] for line in FIXTURE.read_text().splitlines() if line.startswith("pow ")]
    x, y, want = (np.array([int(r[i], 16) for r in rows], dtype=np.uint64) for i in range(3))
    return x.view(np.float64), y.view(np.float64), want


def test_pow_bits_match_java17_on_the_table():
    x, y, want = _pow_table()
    assert len(x) > 3000
    got = hotspot_pow(x, y).view(np.uint64)
    nan = np.isnan(want.view(np.float64)) & np.isnan(got.view(np.float64))
    wrong = np.flatnonzero((got != want) & ~nan)
    assert not len(wrong), [(x[i], y[i], hex(int(want[i])), hex(int(got[i]))) for i in wrong[:5]]
    # each path of the stub is on the table: x near 1 with |y| >= 2**12, subnormal x and results, negative x
    near1 = (np.abs(x - 1) < 0.07) & (np.abs(y) >= 4096) & np.isfinite(y)
    result = want.view(np.float64)
    assert near1.sum() > 50 and ((x > 0) & (x < 2.3e-308)).sum() > 50 and ((x < 0) & np.isfinite(result)).sum() > 50
    assert ((result != 0) & (np.abs(result) < 2.3e-308)).sum() > 50


def test_pow_special_values():
    inf, nan = np.inf, np.nan
    cases = [(2.0, 10.0, 1024.0), (-2.0, 3.0, -8.0), (-2.0, 0.5, nan), (-0.0, 0.5, 0.0), (-inf, 0.5, inf),
             (0.0, -1.0, inf), (-0.0, -1.0, -inf), (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (nan, 0.0, 1.0),
             (1.0, nan, nan), (1.0, inf, nan), (-1.0, inf, nan), (0.5, inf, 0.0), (0.5, -inf, inf),
             (-inf, -3.0, -0.0), (-inf, 3.0, -inf), (-inf, 4.0, inf), (inf, -2.0, 0.0), (10.0, 309.0, inf),
             (10.0, -324.0, 1e-324), (-10.0, 309.0, -inf), (-10.0, -400.0, 0.0), (-10.0, -401.0, -0.0),
             (2.0, -1074.0, 5e-324), (2.0, 1023.0, 8.98846567431158e307), (2.0, 1024.0, inf),
             (1e-310, 0.5, np.sqrt(1e-310))]
    x, y, want = (np.array(c) for c in zip(*cases))
    got = hotspot_pow(x, y)
    for xi, yi, w, g in zip(x, y, want, got):
        assert (np.isnan(w) and np.isnan(g)) or (w == g and np.signbit(w) == np.signbit(g)), (xi, yi, w, g)


def test_pow_exp2_and_exp10_through_the_transforms():
    x, y, want = _pow_table()
    finite = np.isfinite(x) & np.isfinite(y)
    a, b = x[finite][:300], y[finite][:300]
    ours = Expression("pow(a, b)").evaluate_array({"a": pa.array(a, pa.float64()), "b": pa.array(b, pa.float64())},
                                                   Context(len(a)))
    got = np.array([np.nan if v is None else v for v in ours.to_pylist()], dtype=np.float64).view(np.uint64)
    assert np.array_equal(got, hotspot_pow(a, b).view(np.uint64))
    e = np.linspace(-1080, 1030, 211)
    for name, base in (("exp2", 2.0), ("exp10", 10.0)):
        ours = Expression(f"{name}(d)").evaluate_array({"d": pa.array(e, pa.float64())}, Context(len(e)))
        assert np.array(ours.to_pylist()).view(np.uint64).tolist() == hotspot_pow(base, e).view(np.uint64).tolist()


def test_sin_cos_tan_paths_and_special_values():
    x, _ = _table("sin")
    # the table holds each path of the stubs: tiny and subnormal arguments, the main range, the large arguments
    # of their own reduction (|x| >= 90112, up to the largest double)
    assert (np.abs(x) < 2.0**-252).sum() > 20 and (np.abs(x) > 1e100).sum() > 20 and (np.abs(x) > 90112).sum() > 300
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324])
    sin, cos, tan = hotspot_sin(special), hotspot_cos(special), hotspot_tan(special)
    assert sin[0] == 0.0 and not np.signbit(sin[0]) and sin[1] == 0.0 and np.signbit(sin[1])
    assert np.isnan(sin[2:5]).all() and np.isnan(cos[2:5]).all() and np.isnan(tan[2:5]).all()
    assert cos[0] == cos[1] == cos[5] == 1.0 and tan[5] == 5e-324 and tan[6] == -5e-324 and sin[5] == 5e-324
    assert np.signbit(tan[1]) and tan[0] == 0.0
    # Math.sin(1e22) and Math.cos(1e22) as Java 17 gives them (the stubs' own reduction of a large argument)
    assert hotspot_sin(np.array([1e22]))[0] == -0.8522008497671888
    assert hotspot_cos(np.array([1e22]))[0] == 0.523214785395139


def test_trigonometry_through_the_transforms():
    for name, ours in (("sin", hotspot_sin), ("cos", hotspot_cos), ("tan", hotspot_tan)):
        x, _ = _table(name)
        x = x[np.isfinite(x)][:300]
        got = Expression(f"{name}(d)").evaluate_array({"d": pa.array(x, pa.float64())}, Context(len(x)))
        assert np.array(got.to_pylist()).view(np.uint64).tolist() == ours(x).view(np.uint64).tolist()
    x, _ = _table("tan")
    x = x[np.isfinite(x)][:300]
    got = Expression("cot(d)").evaluate_array({"d": pa.array(x, pa.float64())}, Context(len(x)))
    with np.errstate(all="ignore"):
        want = 1.0 / hotspot_tan(x)
    assert np.array(got.to_pylist()).view(np.uint64).tolist() == want.view(np.uint64).tolist()


def test_functions_built_on_the_stubs_use_them():
    """sigmoid is 1 / (1 + Math.exp(-a)), asinh / acosh / atanh go through Math.log, a geography's ST_Distance
    through Math.sin / Math.cos (and fdlibm's Math.atan2): each with the stub's bits (compared with the ports, never
    with the platform's libm, which may or may not agree with Java on a given machine)."""
    x, _ = _table("exp")
    x = -x[np.isfinite(x)][:400]
    column = {"d": pa.array(x, pa.float64())}
    got = np.array(Expression("sigmoid(d)").evaluate_array(column, Context(len(x))).to_pylist())
    with np.errstate(all="ignore"):
        want = 1.0 / (1.0 + hotspot_exp(-x))
    assert got.view(np.uint64).tolist() == want.view(np.uint64).tolist()
    a = np.linspace(1.0001, 40, 997)
    got = np.array(Expression("acosh(d)").evaluate_array({"d": pa.array(a)}, Context(len(a))).to_pylist())
    assert np.array_equal(got, hotspot_log(a + np.sqrt(a * a - 1)))
    got = np.array(Expression("asinh(d)").evaluate_array({"d": pa.array(-a)}, Context(len(a))).to_pylist())
    assert np.array_equal(got, -hotspot_log(a + np.sqrt(a * a + 1)))
    rng = np.random.default_rng(3)
    lon, lat = rng.uniform(-180, 180, (2, 300)), rng.uniform(-90, 90, (2, 300))
    columns = {f"{k}{i}": pa.array(v[i], pa.float64()) for k, v in (("lon", lon), ("lat", lat)) for i in (0, 1)}
    got = Expression("ST_Distance(ST_Point(lon0, lat0, 1), ST_Point(lon1, lat1, 1))").evaluate_array(
        columns, Context(300)).to_pylist()

    def great_circle(sin, cos):
        r1, r2, d = np.radians(lat[0]), np.radians(lat[1]), np.radians(lon[0]) - np.radians(lon[1])
        s1, s2, sd, c1, c2, cd = sin(r1), sin(r2), sin(d), cos(r1), cos(r2), cos(d)
        t1, t2, t3 = c2 * sd, c1 * s2 - s1 * c2 * cd, s1 * s2 + c1 * c2 * cd
        return (fdlibm_atan2(np.sqrt(t1 * t1 + t2 * t2), t3) * (6371.01 * 1000.0)).tolist()  # Math.atan2: fdlibm

    assert got == great_circle(hotspot_sin, hotspot_cos)
