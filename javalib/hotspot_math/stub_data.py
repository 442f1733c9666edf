"""The data HotSpot's x86_64 Math stubs read, and the bit helpers every stub's replay shares.

The tables (2**(j/64) for exp, -log(B) for log and log10, 2**(j/256) and log2(LH / B) for pow, sin / cos's 64
rows, 2/pi's bits, tan's 32 blocks) are the bytes of the stubs' own data in JDK 17's libjvm.so; the steps of
``rcpps``'s estimate are this CPU's (AMD EPYC): tables.json beside this module, written by
``python -m tools.java_math.hotspot_tables`` (the package's docstring says how), read once, on first use.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

DATA = Path(__file__).with_name("tables.json")
_ONE = np.float64(1.0)
_U64 = np.uint64


def _d(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint64)


def _rows(mask: np.ndarray):
    """An index for the rows of ``mask``: all of them without a copy when every row is in it."""
    return slice(None) if mask.all() else mask


class StubTables(NamedTuple):
    """Each table as the stub indexes it: rows of 64-bit words (a double's bits, or two 32-bit words)."""
    exp: np.ndarray  # (64, 2): _Tbl_addr
    log: np.ndarray  # (129, 2): _L_tbl
    log10: np.ndarray  # (129, 2): _L_tbl_log10
    log_steps: np.ndarray  # the mantissa's top 12 bits where rcpps's B steps down (log, log10, pow)
    log10_steps: np.ndarray
    pow_exp: np.ndarray  # (256, 2): _T_exp
    pow_log2: np.ndarray  # (513, 2): _L_tbl_pow
    pow_steps: np.ndarray
    sin_cos: np.ndarray  # (64, 4): StubRoutines::x86::_Ctable
    pi_inv: np.ndarray  # 2/pi's bits in 32-bit words (StubRoutines::x86::_PI_INV_TABLE), then 8 zero words
    tan: np.ndarray  # (32, 22): _Ctable_tan


@functools.cache
def tables() -> StubTables:
    data = json.loads(DATA.read_text(encoding="ascii"))
    words = {name: np.array([int(w, 16) for w in hexes], dtype=np.uint64) for name, hexes in data["tables"].items()}
    steps = {name: np.array(found, dtype=np.int64) for name, found in data["rcpps_steps"].items()}
    return StubTables(exp=words["exp"].reshape(64, 2), log=words["log"].reshape(-1, 2),
                      log10=words["log10"].reshape(-1, 2), log_steps=steps["log"], log10_steps=steps["log10"],
                      pow_exp=words["pow_exp"].reshape(-1, 2), pow_log2=words["pow_log2"].reshape(-1, 2),
                      pow_steps=steps["pow"], sin_cos=words["sin_cos"].reshape(64, 4),
                      pi_inv=np.concatenate([words["pi_inv"], np.zeros(8, dtype=np.uint64)]),
                      tan=words["tan"].reshape(32, 22))
