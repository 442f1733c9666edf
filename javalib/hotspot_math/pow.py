"""HotSpot's x86_64 ``Math.pow`` stub (StubRoutines::dpow), replayed operation for operation (the package's
docstring says how and how far)."""
from __future__ import annotations

import numpy as np

from .stub_data import _U64, _bits, _d, _rows, tables


# --- pow -------------------------------------------------------------------------------------------------
# macroAssembler_x86_pow.cpp. log2(x) first, as k + log2(LH / B) + p(r) with r = B * mantissa - LH in high
# and low parts, then 2**(y * log2(x)) with a 256-entry table; every path of the stub is kept (x near 1 with a
# large y, results near the overflow / underflow borders, subnormal x scaled by 2**128, negative x with an
# integer y, the special values), each the stub's own sequence of float64 operations.
_POW_LH = _d(0x3FF7200000000000)  # LOG2_E's first double (1.4453125): what r is taken from
_POW_C0 = (_d(0xBF8365786DC96112), _d(0xBF9B0301EE241472))  # coeff, two doubles a row (lane 0, lane 1)
_POW_C1 = (_d(0xBFB528DB9F95985A), _d(0xBFD619B6B3841D2A))
_POW_C2 = (_d(0x3F9004F2518775E3), _d(0x3FA76C9BAC8349BB))
_POW_C3 = (_d(0x3FC4635E486ECECC), _d(0xBF5DABE1161BB241))
_POW_D0 = (_d(0xBFB528DB9F95985A), _d(0x3EF2531EF8B5787D))  # coeff + 64, + 80: the x-near-1 path's
_POW_D1 = (_d(0x3FC4635E486ECECB), _d(0xBDD61BB2412055CC))
_POW_CH = (_d(0xBFD61A0000000000), _d(0xBF5DABE100000000))  # coeff_h
_POW_E01 = (_d(0x3F55D87FE78A6731), _d(0x3FAC6B08D704A0C0))  # e_coeff
_POW_E23 = (_d(0x3F83B2AB6FBA4E77), _d(0x3FCEBFBDFF82C58F))
_POW_LN2 = _d(0x3FE62E42FEFA39EF)
_POW_SHIFTER = _d(0x42B8000000000000)  # 1.5 * 2**44: rounds to 1/256
_POW_INT_SHIFTER = _d(0x4338000000000000)  # 1.5 * 2**52: rounds to an integer
_TWO_128 = _d(0x47F0000000000000)
_M32 = _U64(0xFFFFFFFF)
# 2**(j/256) and log2(LH / B): tables().pow_exp and tables().pow_log2 (libjvm.so's _T_exp, _L_tbl_pow)
# B = rcpps(mantissa) * 1.4453125f, plus 0x2000, its float bits from bit 14 up kept: its steps on this CPU
# (tools/java_math/rcpps_steps.c pow: AMD EPYC, as for log), as the top 12 bits of the mantissa where B goes
# one step down. B runs over the float bits 0x3FB90000 down to 0x3F390000, the rows of _POW_LOG2_TABLE
# (log2(LH / B), high and low).
# -> tables().pow_steps


def _hi_word(v: np.ndarray) -> np.ndarray:
    """pextrw 3: bits 48..63, sign included."""
    return (_bits(v) >> _U64(48)).astype(np.int64)


def _plus_high_dword(v: np.ndarray, add: np.ndarray) -> np.ndarray:
    """paddd of (0, add): the high 32 bits plus add, wrapping, the low 32 as they are."""
    b = _bits(v)
    hi = ((b >> _U64(32)) + add) & _M32
    return _d((hi << _U64(32)) | (b & _M32))


def _bsr(v: np.ndarray) -> np.ndarray:
    return np.frexp(v.astype(np.float64))[1].astype(np.int64) - 1


def _pow_exp_tail(z, n, hi_add, scale_bits):
    """2**(n / 256) * (1 + p(z)), the table row n & 255 with ``hi_add`` added to both its doubles' high dwords
    and the result times the double of ``scale_bits``: returns (result, the scaled row, the scale, the sum
    before the row was added), what the subnormal fix-up needs."""
    row = tables().pow_exp[(n & 255).astype(np.intp)]
    t = _plus_high_dword(row[:, 0].view(np.float64), hi_add)
    t_lo = _plus_high_dword(row[:, 1].view(np.float64), hi_add)
    z2 = z * z
    e0 = _POW_E01[0] * z
    e1 = _POW_E01[1] * z
    p = _POW_LN2 * z
    z4 = z2 * z2
    ea = _POW_E23[0] + e0
    eb = _POW_E23[1] + e1
    p = p * t
    fa = z4 * ea
    fb = z2 * eb
    p = p + t_lo
    s = (fa * t + p) + fb * t
    scale = _d(scale_bits)
    return (s + t) * scale, t, scale, s


def _pow_tiny_fix(res, t, scale, s):
    """The stub's path for a result below the normal range: the row split where the result's last bit will
    fall, each half scaled on its own (so the one rounding is the subnormal one)."""
    c = -31 - ((((_hi_word(t) & 0x7FF0) - 16368) + (_hi_word(scale) & 0x7FF0)) >> 4)
    keep = c > 20
    mask = np.where(c <= 0, _M32, (_M32 << np.clip(c, 0, 31).astype(np.uint64)) & _M32)
    t_hi = _d(_bits(t) & (mask << _U64(32)))
    fixed = t_hi * scale + ((t - t_hi) + s) * scale
    return np.where(keep, res, fixed)


def _pow_edge(ax, y, sign):
    """Certain overflow or underflow (the stub's L_12 and its y = +-Infinity / NaN branch)."""
    yb = _bits(y)
    y_special = (_hi_word(y) & 0x7FF0) == 0x7FF0
    below = (((_hi_word(ax) & 0x7FF0) - 16368) ^ _hi_word(y)) & 0x8000
    signed = np.where(sign != 0, -1.0, 1.0)
    out = np.where(below != 0, 0.0 * signed, np.inf * signed)
    if y_special.any():
        y_nan = (yb & _U64(0x000FFFFFFFFFFFFF)) != 0
        inf_or_zero = np.where(below != 0, 0.0, np.inf)
        special = np.where(ax == 1.0, np.nan, np.where(y_nan, y + y, inf_or_zero))
        out = np.where(y_special, special, out)
    return out


def _pow_split(ax, negative_base=False):
    """B, the table row and the mantissa (times 2**896) split high / low as the stub splits it, and k. For a
    negative x (an integer y: the stub's L_35 / L_36 entries) the split's width comes from the high word less 16,
    i.e. from the exponent less one (``((hw & 0x7FFF) - 16) & 0x7FF0``), where the positive entry masks the high
    word itself: where bsr(|e| + 1) steps between the two, the split is a bit apart and a product rounds apart
    (pow(-13.300923077792575, -141.0) is 1 ulp from -pow(13.30..., -141.0) on HotSpot; 33 of 1.6M negative
    bases with integer exponents, even ones included, before the port followed this)."""
    sub = _hi_word(ax) < 16
    xs = np.where(sub, ax * _TWO_128, ax)
    xb = _bits(xs)
    mant = xb & _U64(0x000FFFFFFFFFFFFF)
    steps = np.searchsorted(tables().pow_steps, (mant >> _U64(40)).astype(np.int64), side="right") - 1
    b_bits = _U64(0x3FB90000) - (steps.astype(np.uint64) << _U64(14))
    b = _d((b_bits << _U64(29)) & _U64(0xFFFFF80000000000))
    row = ((b_bits >> _U64(14)) & _U64(0x3FF)).astype(np.intp) - 228
    m_bits = mant | _U64(0x77F0000000000000)
    hx = (xb >> _U64(48)).astype(np.int64)
    e16 = (((hx - 16) if negative_base else hx) & 0x7FF0) - 16368
    shift = _bsr(np.abs(e16) + 16) - 4
    mask = np.where(sub, _U64(0xFFFFFC00), (_M32 << shift.astype(np.uint64)) & _M32) << _U64(32)
    near1 = ~sub & ((hx == 0x3FEF) | (hx == 0x3FF0))
    m_hi = _d(np.where(near1, (m_bits + _U64(0x80000000)) & mask, m_bits & mask))
    k = np.where(sub, ((hx & 0x7FF0) - 18416) >> 4, (hx - 16368) >> 4)
    return _d(m_bits), m_hi, b, row, k, near1


def _pow_positive(ax, y, sign, negative_base=False):
    """The stub for |x| positive, finite, not zero; ``sign`` (0 or 0x80000000) the result's sign bit;
    ``negative_base``: x was negative (ax = -x), whose entry splits the mantissa its own way (_pow_split)."""
    out = np.empty_like(ax)
    m, m_hi, b, row, k, near1 = _pow_split(ax, negative_base)
    near1_big = near1 & ((_hi_word(y) & 0x7FF0) >= 16560)
    if near1_big.any():
        i = near1_big
        out[i] = _pow_near1(m[i], m_hi[i], b[i], row[i], k[i], y[i], sign[i], ax[i])
    rest = ~near1_big
    if rest.any():
        i = _rows(rest)
        out[i] = _pow_general(m[i], m_hi[i], b[i], row[i], k[i], y[i], sign[i], ax[i])
    return out


def _pow_general(m, m_hi, b, row, k, y, sign, ax):
    m_lo = m - m_hi
    mb_hi = m_hi * b
    mb_lo = m_lo * b
    u = mb_hi - _POW_LH
    r = mb_lo + u
    t0 = tables().pow_log2[row, 0].view(np.float64)
    t1 = tables().pow_log2[row, 1].view(np.float64)
    a1 = mb_lo + t1
    r2 = r * r
    a = (u + t0) + k.astype(np.float64)
    r3 = r * r2
    r4 = r2 * r2
    qa = r4 * ((_POW_C2[0] + _POW_C0[0] * r) * r3)
    qb = r4 * ((_POW_C2[1] + _POW_C0[1] * r) * r)
    pa = ((_POW_C3[0] + _POW_C1[0] * r) * r3) + a1
    pb = (_POW_C3[1] + _POW_C1[1] * r) * r
    qa = qa + pa
    qb = qb + pb
    poly = qb + qa
    gate = (_bsr(np.abs(k) + 1) << 4) - 15872 + (_hi_word(y) & 0x7FF0)
    out = np.empty_like(m)
    main = (gate >= 0) & (gate < 624)
    if main.any():
        i = _rows(main)
        yi, ai = y[i], a[i]
        y_hi = _d(_bits(yi) & _U64(0xFFFFFFF800000000))
        t4 = y_hi * ai
        t1_ = (yi - y_hi) * ai
        sh = _POW_SHIFTER + t4
        n = _bits(sh) & _M32
        t4 = (t4 - (sh - _POW_SHIFTER)) + t1_
        z = yi * poly[i] + t4
        hi_add = ((n << _U64(12)) ^ sign[i].astype(np.uint64)) & _U64(0xFFF00000)
        out[i] = _pow_exp_tail(z, n, hi_add, np.full(len(z), 0x3FF0000000000000, dtype=np.uint64))[0]
    small = gate < 0
    if small.any():
        i = small
        yi = y[i]
        s = a[i] * yi + yi * poly[i]
        negative = sign[i] != 0
        res = np.where(negative, -1.0, 1.0) + s * np.where(negative, -_POW_LN2, _POW_LN2)
        out[i] = np.where(gate[i] + 384 < 0, 1.0, res)
    mid = (gate >= 624) & (gate < 752)
    if mid.any():
        i = mid
        yi, ai, pi = y[i], a[i], poly[i]
        s_ = ai + pi
        d = ai - s_
        s_hi = _d(_bits(s_) & _U64(0xFFFFFFFFF8000000))
        y_hi = _d(_bits(yi) & _U64(0xFFFFFFFFF8000000))
        s_lo = s_ - s_hi
        err = (pi + d) + s_lo
        t4 = y_hi * s_hi
        w = yi * err + (yi - y_hi) * s_hi
        sh = _POW_SHIFTER + t4
        n = _bits(sh) & _M32
        rnd = sh - _POW_SHIFTER
        z = w + (t4 - rnd)
        big = (_hi_word(rnd) & 0x7FFF) > 16529
        nn = n.astype(np.int64)
        nn = np.where(nn >= 2**31, nn - 2**32, nn) >> 8
        half = nn >> 1
        hi_add = ((half.astype(np.uint64) << _U64(20)) ^ sign[i].astype(np.uint64)) & _M32
        scale_word = (((nn - half) << 4) + 16368) & 0xFFFF
        res, t, scale, s = _pow_exp_tail(z, n, hi_add, scale_word.astype(np.uint64) << _U64(48))
        tiny = (_hi_word(res) & 0x7FF0) == 0
        if tiny.any():
            res[tiny] = _pow_tiny_fix(res[tiny], t[tiny], scale[tiny], s[tiny])
        if big.any():
            res[big] = _pow_edge(ax[i][big], yi[big], sign[i][big])
        out[i] = res
    edge = gate >= 752
    if edge.any():
        out[edge] = _pow_edge(ax[edge], y[edge], sign[edge])
    return out


def _pow_near1(m, m_hi, b, row, k, y, sign, ax):
    """x in [1 - 1/32, 1 + 1/16) with |y| >= 2**12: log2(x) to more bits (the stub's L_2 path)."""
    m_lo = m - m_hi
    mb_hi = m_hi * b
    mb_lo = m_lo * b
    u = mb_hi - _POW_LH
    r = mb_lo + u
    t0 = tables().pow_log2[row, 0].view(np.float64)
    t1 = tables().pow_log2[row, 1].view(np.float64)
    x7a = k.astype(np.float64) + t0
    x7b = 0.0 + t1
    x4 = _POW_CH[0] * u
    x0 = _POW_CH[1] * u
    x6 = _POW_CH[0] * mb_lo
    x1 = _POW_CH[1] * mb_lo
    x4 = x4 * u
    x5 = u + x0
    x2 = u + r
    x7 = x7a + x5
    x6 = x6 * x2
    x0 = x7a - x7
    x2 = x7
    x7 = x7 + x4
    x0 = x0 + x5
    x2 = x2 - x7
    x4 = x4 + x2
    x5 = x7
    x7 = x7 + mb_lo
    x4 = x4 + x0
    x5 = x5 - x7
    x6 = x6 + x4
    x4 = x7
    x5 = x5 + mb_lo
    x7 = x7 + x1
    x4 = x4 - x7
    x6 = x6 + x5
    x4 = x4 + x1
    x1 = x7
    x7 = x7 + x7b
    x1 = x1 - x7
    x1 = x1 + x7b
    x6 = x6 + x4
    x6 = x6 + x1
    r2 = r * r
    r3 = r * r2
    r4 = r2 * r2
    pa = ((_POW_C2[0] + _POW_C0[0] * r) * r3) * r4
    pb = ((_POW_C2[1] + _POW_C0[1] * r) * r) * r4
    qa = (_POW_D1[0] + _POW_D0[0] * r) * r3
    qb = (_POW_D1[1] + _POW_D0[1] * r) * r
    qa = qa + x6
    l_hi = _d(_bits(x7) & _U64(0xFFFFFFFFF8000000))
    l_lo = x7 - l_hi
    qa = qa + pa
    qb = qb + pb
    e16 = (_hi_word(x7) & 0x7FF0) - 16368
    ey16 = _hi_word(y) & 0x7FF0
    out = np.empty_like(m)
    y_special = ey16 == 0x7FF0
    over = ~y_special & (((ey16 + e16) & _M32.astype(np.int64)) >= 16576)
    go = ~y_special & ~over
    if y_special.any():
        out[y_special] = _pow_edge(ax[y_special], y[y_special], sign[y_special])
    if over.any():
        i = over
        below = (_hi_word(y[i]) ^ _hi_word(l_hi[i])) & 0x8000
        signed = np.where(sign[i] != 0, -1.0, 1.0)
        out[i] = np.where(below != 0, 0.0 * signed, np.inf * signed)
    if go.any():
        i = go
        yi = y[i]
        lh, ll = l_hi[i], l_lo[i] + (qa[i] + qb[i])
        y_hi = _d(_bits(yi) & _U64(0xFFFFFFFF00000000))
        t4 = y_hi * lh
        w = (yi - y_hi) * lh + yi * ll
        sh = _POW_SHIFTER + t4
        n = _bits(sh) & _M32
        rnd = sh - _POW_SHIFTER
        z = (t4 - rnd) + w
        big = (_hi_word(rnd) & 0x7FFF) > 16529
        top = n >> _U64(8)
        half = top >> _U64(1)
        hi_add = (half << _U64(20)) & _M32
        scale_hi = ((((top - half) + _U64(1023)) << _U64(20)) | sign[i].astype(np.uint64)) & _M32
        res, t, scale, s = _pow_exp_tail(z, n, hi_add, scale_hi << _U64(32))
        tiny = (_hi_word(res) & 0x7FF0) == 0
        if tiny.any():
            res[tiny] = _pow_tiny_fix(res[tiny], t[tiny], scale[tiny], s[tiny])
        if big.any():
            res[big] = _pow_edge(ax[i][big], yi[big], sign[i][big])
        out[i] = res
    return out


def _odd_integer(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(y is an integer, y is an odd integer), as the stub tells them (exponent, then the 1.5 * 2**52 trick)."""
    with np.errstate(all="ignore"):
        integer = np.isfinite(y) & (np.floor(y) == y)
        odd = integer & (np.abs(y) < 2.0**53) & (np.fmod(np.abs(y), 2.0) == 1.0)
    return integer, odd


def hotspot_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Math.pow`` on x86_64 HotSpot (StubRoutines::dpow)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        yb = _bits(y)
        # the stub's first tests: pow(x, 2.0) is x * x, and pow(x, 0.5) sqrt(x) for x's sign bit clear
        squared = yb == _U64(0x4000000000000000)
        out[squared] = x[squared] * x[squared]
        root = (yb == _U64(0x3FE0000000000000)) & ~np.signbit(x)
        out[root] = np.sqrt(x[root])
        squared |= root
        hx = _hi_word(x)
        y_zero = (yb << _U64(1)) == 0
        y_nan = np.isnan(y)
        positive = ~squared & (hx >= 16) & (hx < 0x7FF0)
        if positive.any():
            i = _rows(positive)
            out[i] = _pow_positive(x[i], y[i], np.zeros(len(x[i]), np.uint32))
        x_special = ~squared & ((hx & 0x7FF0) == 0x7FF0)
        if x_special.any():  # x +-Infinity or NaN
            i = x_special
            xi, yi = x[i], y[i]
            _, odd = _odd_integer(yi)
            neg_y = np.signbit(yi)
            inf_rule = np.where(np.signbit(xi),
                                np.where(odd, np.where(neg_y, -0.0, -np.inf), np.where(neg_y, 0.0, np.inf)),
                                np.where(neg_y, 0.0, xi))
            res = np.where(np.isnan(xi), xi + xi, np.where(y_nan[i], yi + yi, inf_rule))
            out[i] = np.where(y_zero[i], 1.0, res)
        zero = ~squared & ((_bits(x) << _U64(1)) == 0)
        if zero.any():
            i = zero
            xi, yi = x[i], y[i]
            _, odd = _odd_integer(yi)
            neg_y = np.signbit(yi)
            res = np.where(odd, np.where(neg_y, 1.0 / xi, xi), np.where(neg_y, np.inf, 0.0))
            out[i] = np.where(y_nan[i], yi + yi, np.where(y_zero[i], 1.0, res))
        subnormal = ~squared & (hx < 16) & ~zero
        if subnormal.any():
            out[subnormal] = _pow_positive(x[subnormal], y[subnormal], np.zeros(int(subnormal.sum()), np.uint32))
        negative = ~squared & (hx >= 0x8000) & ~x_special & ~zero
        if negative.any():
            i = negative
            xi, yi = x[i], y[i]
            integer, odd = _odd_integer(yi)
            y_inf = np.isinf(yi)
            res = np.full(len(xi), _d(0xFFF8000000000000))  # 0 * Infinity: the default NaN, sign set
            go = integer & ~y_zero[i]
            if go.any():
                res[go] = _pow_positive(-xi[go], yi[go], np.where(odd[go], 0x80000000, 0).astype(np.uint32), True)
            minus_one = xi == -1.0
            below = (((_hi_word(-xi) & 0x7FF0) - 16368) ^ _hi_word(yi)) & 0x8000
            inf_rule = np.where(minus_one, np.nan, np.where(below != 0, 0.0, np.inf))
            res = np.where(y_inf, inf_rule, res)
            res = np.where(y_nan[i], yi + yi, res)
            out[i] = np.where(y_zero[i], 1.0, res)
    return out
