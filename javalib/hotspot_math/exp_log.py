"""HotSpot's x86_64 ``Math.exp``, ``Math.log`` and ``Math.log10`` stubs (StubRoutines::dexp, dlog, dlog10),
replayed operation for operation (the package's docstring says how and how far)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .stub_data import _ONE, _U64, _bits, _d, tables


# --- exp -------------------------------------------------------------------------------------------------
# cv: 64/ln2, ln2/64 high and low parts, ~0.5, then the polynomial's coefficients two by two (lanes 0 / 1)
_EXP_L2E = _d(0x40571547652B82FE)
_EXP_LN2_HI = _d(0x3F862E42FEFA0000)
_EXP_LN2_LO = _d(0x3D1CF79ABC9E3B3A)
_EXP_HALF = _d(0x3FDFFFFFFFFFFFFE)
_EXP_C4 = (_d(0x3F56C15CE3289860), _d(0x3FA55555555B9E25))  # (lane 0, lane 1) of cv + 64
_EXP_C5 = (_d(0x3F811115C090CF0F), _d(0x3FC5555555548BA1))  # cv + 80
_EXP_SHIFTER = _d(0x4338000000000000)
# 2**(j/64), j = 0..63: (the low correction, as a double; the high part's fraction bits, its exponent zero)
# -> tables().exp (libjvm.so's _Tbl_addr)

def _exp_scale_far(p: np.ndarray, t_bits: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The stub's path for n (the power of two) outside [-894, 1022]: 2**n applied in two halves, and for a
    result below the normal range the high part rounded off by integer arithmetic on the bit patterns."""
    out = np.empty_like(p)
    n32 = n.astype(np.int64)
    edx = -1022 - n32
    half = n32 >> 1
    # pinsrw word 3 then psllq 4: (n >> 1) in the exponent field (its low 12 bits)
    xmm3 = ((half.astype(np.uint64) & _U64(0xFFFF)) << _U64(48)) << _U64(4)
    # psubd: the high dword less (n >> 1) << 20, 32-bit wrapping; the low dword less 0
    hi = ((t_bits >> _U64(32)) - (xmm3 >> _U64(32))) & _U64(0xFFFFFFFF)
    t2_bits = (hi << _U64(32)) | (t_bits & _U64(0xFFFFFFFF))
    t2 = t2_bits.view(np.float64)
    p = p * t2  # mulsd
    # paddd with 1.0's dwords: 2**(n >> 1)
    scale_bits = (((xmm3 >> _U64(32)) + _U64(0x3FF00000)) & _U64(0xFFFFFFFF)) << _U64(32)
    scale = scale_bits.view(np.float64)
    far = edx > 52
    if far.any():  # below every subnormal: (p + t2) * 2**(n >> 1)
        out[far] = (p[far] + t2[far]) * scale[far]
    near = ~far
    if near.any():
        # psllq of all ones by edx (as an unsigned count: a negative one, like one above 63, gives zero)
        count = edx[near]
        mask = np.where((count >= 0) & (count <= 63), ~_U64(0) << np.clip(count, 0, 63).astype(np.uint64), _U64(0))
        hi_part_bits = t2_bits[near] & mask
        hi_part = hi_part_bits.view(np.float64)
        p_near = p[near] + (t2[near] - hi_part)  # subsd then addsd
        s = scale[near]
        n_near = n32[near]
        res = np.empty_like(p_near)
        big = n_near >= 1023
        res[big] = (p_near[big] + hi_part[big]) * s[big]
        small = ~big
        if small.any():
            ps, hs, ss = p_near[small], hi_part[small], s[small]
            sign = (_bits(ps) >> _U64(63)).astype(np.int64)
            plain = ((count[small] | (sign << 15)) == 0)  # edx | sign bit word == 0
            r = (ps + hs) * ss
            subnormal = ~plain & (((_bits(r) >> _U64(52)) & _U64(0x7FF)) == 0)
            if subnormal.any():
                a = (ps[subnormal] * ss[subnormal])
                b = (hs[subnormal] * ss[subnormal])
                a_bits, b_bits = _bits(a), _bits(b)
                differ = ((a_bits ^ b_bits) >> _U64(63)).astype(bool)
                magnitude = a_bits & _U64(0x7FFFFFFFFFFFFFFF)
                # (a's magnitude, negated in two's complement when the signs differ) + b's bits, as integers
                summed = np.where(differ, (~magnitude) + _U64(1), magnitude) + b_bits
                r[subnormal] = summed.view(np.float64)
            res[small] = r
        out[near] = res
    return out


def hotspot_exp(x: np.ndarray) -> np.ndarray:
    """``Math.exp`` on x86_64 HotSpot (StubRoutines::dexp)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    xb = _bits(x)
    word = ((xb >> _U64(48)) & _U64(0x7FFF)).astype(np.int64)
    main = (word <= 16527) & (word >= 15504)  # 2**-54 <= |x| < 1024
    with np.errstate(all="ignore"):
        if main.any():
            xm = x[main]
            m_shifted = xm * _EXP_L2E + _EXP_SHIFTER
            m = m_shifted - _EXP_SHIFTER
            r = (xm - m * _EXP_LN2_HI) - m * _EXP_LN2_LO
            low = (_bits(m_shifted) & _U64(0xFFFFFFFF)).astype(np.int64)
            low = np.where(low >= 2**31, low - 2**32, low)  # movdl: the int32 m
            j = low & 63
            n = low >> 6
            # (m & ~63 as 32 bits) + 0xffc0, shifted up 46: 2**n's exponent field (wrapping), sign bit included
            exponent = (((_bits(m_shifted) & _U64(0xFFFFFFC0)) + _U64(0xFFC0)) << _U64(46))
            t_lo = tables().exp[j, 0].view(np.float64)
            t_bits = tables().exp[j, 1] | exponent
            r2 = r * r
            r3 = r * r2
            r5 = r3 * r2
            poly0 = _EXP_C5[0] + r * _EXP_C4[0]
            poly1 = _EXP_C5[1] + r * _EXP_C4[1]
            lane0 = (r + t_lo) + r5 * poly0
            p = (r3 * poly1 + lane0) + r2 * _EXP_HALF
            t = t_bits.view(np.float64)
            res = np.empty_like(xm)
            inside = (n + 894 >= 0) & (n + 894 <= 1916)
            res[inside] = p[inside] * t[inside] + t[inside]
            if (~inside).any():
                res[~inside] = _exp_scale_far(p[~inside], t_bits[~inside], n[~inside])
            out[main] = res
        rest = ~main
        if rest.any():
            xr = x[rest]
            high = (_bits(xr) >> _U64(32)).astype(np.int64)
            magnitude_high = high & 0x7FFFFFFF
            res = xr + _ONE  # |x| < 2**-54: 1 + x
            huge = magnitude_high >= 0x40900000
            res = np.where(huge & (xr > 0), np.inf, res)
            res = np.where(huge & (xr < 0), 0.0, res)
            res = np.where(np.isnan(xr), xr + xr, res)
            out[rest] = res
    return out


# --- log10 ----------------------------------------------------------------------------------------------
# -log10(B) for the stub's B (high part with trailing zeros, low part), indexed by B's float bits
# -> tables().log10 (libjvm.so's _L_tbl_log10)
_LOG10_LH = _d(0x3FDBC00000000000)  # the short log10(e) B is scaled by (0.43359375)
_LOG10_LH_LO = _d(0x3F5A7A6CBF2E4108)
_LOG10_2_HI = _d(0x3F934413509F7800)  # log10(2) / 16 (k comes in sixteenths), high and low
_LOG10_2_LO = _d(0x3CDFEF311F12B358)
_LOG10_C = tuple(_d(b) for b in (0x40358874C1A5F12E, 0xC008930964D4EF0D, 0xC025C917385593B1, 0x3FFC6A02DC963467,
                                  0x4016AB9F7F9D3AA1, 0xBFF27AF2DC77B115))
# B comes from rcpps (a 12-bit reciprocal approximation, its table the CPU's own) of the mantissa, times
# 0.43359375 in single precision, rounded to 7 bits: it steps down by one (float bits 0x3EDE0000 - i * 2**16)
# at these values of the mantissa's top 12 bits, as measured (every one of the 2**23 float mantissas) on this
# machine's AMD EPYC (Zen) by tools/java_math/rcpps_steps.c. Intel's rcpps approximates differently: there a
# few B, hence last bits, may differ.
# -> tables().log10_steps


def hotspot_log10(x: np.ndarray) -> np.ndarray:
    """``Math.log10`` on x86_64 HotSpot (StubRoutines::dlog10)."""
    return _log_like(x, _LOG10)


# --- log -------------------------------------------------------------------------------------------------
# -log(B) (high part with trailing zeros, low part), indexed by B's float bits (macroAssembler_x86_log.cpp)
# -> tables().log (libjvm.so's _L_tbl)
_LOG_2_HI = _d(0x3FA62E42FEFA3800)  # ln(2) / 16, high and low
_LOG_2_LO = _d(0x3CEEF35793C76730)
_LOG_C = tuple(_d(b) for b in (0x3FC2492492492492, 0xBFD0000000000000, 0xBFC5555E3D6FB175, 0x3FD5555555555555,
                                0x3FC999999999999A, 0xBFE0000000000000))
# log's B is rcpps of the mantissa itself rounded to 7 bits (no scaling): its steps, measured as above
# -> tables().log_steps


class _LogStub(NamedTuple):
    """What the log and log10 stubs' main paths differ in; their sequences of float64 operations are the same."""
    b_steps: str  # where rcpps's B steps down (above): its field of tables()
    b_top: int  # B's float bits below the first step
    entry_offset: int  # the table's row of B's float bits' top byte
    table: str  # its field of tables()
    m_hi_mask: int  # the mantissa's high part (times 2**896)
    lh: np.float64  # r = B * mantissa - lh
    lh_lo: np.float64 | None  # log10's: lh's low part, times r, in the tail
    two_hi: np.float64  # log(2) / 16 in the stub's base, high and low
    two_lo: np.float64
    coefficients: tuple


_LOG10 = _LogStub("log10_steps", 0x3EDE0000, -94, "log10", 0xFFFFFFFFF8000000, _LOG10_LH, _LOG10_LH_LO,
                  _LOG10_2_HI, _LOG10_2_LO, _LOG10_C)
_LOG = _LogStub("log_steps", 0x3F800000, 0, "log", 0xFFFFE00000000000, _ONE, None, _LOG_2_HI, _LOG_2_LO,
                _LOG_C)


def _log_core(x: np.ndarray, k16: np.ndarray, stub: _LogStub) -> np.ndarray:
    """The stub's main path for positive normal ``x`` (``k16``: 16 times its binary exponent, as the stub
    keeps it)."""
    mantissa = _bits(x) & _U64(0x000FFFFFFFFFFFFF)
    data = tables()
    steps = np.searchsorted(getattr(data, stub.b_steps), (mantissa >> _U64(40)).astype(np.int64), side="right") - 1
    b_float_bits = _U64(stub.b_top) - (steps.astype(np.uint64) << _U64(16))
    b = ((b_float_bits << _U64(29)) & _U64(0xFFFFE00000000000)).view(np.float64)
    entry = ((b_float_bits >> _U64(16)) & _U64(0xFF)).astype(np.int64) + stub.entry_offset
    t_hi = getattr(data, stub.table)[entry, 0].view(np.float64)
    t_lo = getattr(data, stub.table)[entry, 1].view(np.float64)
    m = (mantissa | _U64(0x77F0000000000000)).view(np.float64)  # the mantissa times 2**896
    m_hi = (_bits(m) & _U64(stub.m_hi_mask)).view(np.float64)
    m_lo = m - m_hi
    k = k16.astype(np.float64)
    r = m_lo * b + (m_hi * b - stub.lh)  # the reduced argument
    c0, c1, c2, c3, c4, c5 = stub.coefficients
    a = t_hi + stub.two_hi * k
    r2 = r * r
    lane0 = (c2 * r + c4) * r + (c0 * r) * r2
    lane1 = (c3 * r + c5) + c1 * r2
    head = a + r
    tail = r + (a - head)
    if stub.lh_lo is not None:
        tail = tail + stub.lh_lo * r
    tail = tail + (k * stub.two_lo + t_lo)
    tail = tail + lane0 * (r2 * r2)
    tail = tail + lane1 * r2
    return head + tail


def hotspot_log(x: np.ndarray) -> np.ndarray:
    """``Math.log`` on x86_64 HotSpot (StubRoutines::dlog)."""
    return _log_like(x, _LOG)


def _log_like(x: np.ndarray, stub: _LogStub) -> np.ndarray:
    """The special cases log and log10's stubs share: subnormals scaled by 2**128 first, +-0 to -Infinity,
    negatives and -Infinity to NaN, +Infinity and NaN as they are."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    word = (_bits(x) >> _U64(48)).astype(np.int64)
    with np.errstate(all="ignore"):
        normal = (word >= 16) & (word < 0x7FF0)
        if normal.any():
            out[normal] = _log_core(x[normal], (((word[normal] - 16) & 0x7FF0) - 0x3FE0), stub)
        subnormal = (word < 16) & (x != 0)
        if subnormal.any():
            scaled = x[subnormal] * _d(0x47F0000000000000)
            k16 = ((_bits(scaled) >> _U64(48)).astype(np.int64) & 0x7FF0) - 0x47F0
            out[subnormal] = _log_core(scaled, k16, stub)
        out[x == 0] = -np.inf
        out[(word >= 0x7FF0) & ~(x == 0)] = np.nan
        out[x == np.inf] = np.inf
        nan = np.isnan(x)
        out[nan] = x[nan] + x[nan]
    return out
