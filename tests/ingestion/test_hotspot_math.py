"""``Math.exp`` / ``Math.log`` / ``Math.log10`` as x86_64 HotSpot's intrinsics compute them (``functions.hotspot_math``):
against the table Java 17 wrote on this machine (tests/fixtures/java17_math.txt, by
tools/java_math/math_fixture.py; its run of ~1,290,000 inputs had no difference, numpy's libm 11,990), and
through the functions Pinot's transforms call. tests/type_mapping/test_java_rules.py asks a JDK 17 about
fresh random inputs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.functions.hotspot_math import hotspot_exp, hotspot_log, hotspot_log10
from pinot_sink.ingestion.values import Context

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "java17_math.txt"
FUNCTIONS = {"exp": hotspot_exp, "log": hotspot_log, "log10": hotspot_log10}


def _table(function: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split() for line in FIXTURE.read_text().splitlines() if line.startswith(function + " ")]
    x = np.array([int(r[1], 16) for r in rows], dtype=np.uint64).view(np.float64)
    return x, np.array([int(r[2], 16) for r in rows], dtype=np.uint64)


@pytest.mark.parametrize("function", ["exp", "log", "log10"])
def test_bits_match_java17_on_the_table(function):
    x, want = _table(function)
    assert len(x) > 1500
    got = FUNCTIONS[function](x).view(np.uint64)
    nan = np.isnan(want.view(np.float64)) & np.isnan(got.view(np.float64))
    wrong = np.flatnonzero((got != want) & ~nan)
    assert not len(wrong), [(x[i], hex(int(want[i])), hex(int(got[i]))) for i in wrong[:5]]
    # the table holds the inputs where the platform's libm rounds the other way: the port is what passes
    with np.errstate(all="ignore"):
        libm = {"exp": np.exp, "log": np.log, "log10": np.log10}[function](x).view(np.uint64)
    assert int(((libm != want) & ~(np.isnan(want.view(np.float64)))).sum()) > 40


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
