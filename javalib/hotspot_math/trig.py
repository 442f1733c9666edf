"""HotSpot's x86_64 ``Math.sin``, ``Math.cos`` and ``Math.tan`` stubs (StubRoutines::dsin, dcos, dtan),
replayed operation for operation (the package's docstring says how and how far)."""
from __future__ import annotations

import numpy as np

from .stub_data import _U64, _bits, _d, _rows, tables


# --- sin, cos ------------------------------------------------------------------------------------------
# macroAssembler_x86_sin.cpp / _cos.cpp (their tables shared in the same files): x = N * pi/32 + r, with
# pi/32 in three parts (P_1, P_2 of 32 bits, P_3), then sin(B + r) from a 64-row table of B = (N mod 64) *
# pi/32 (sigma, C_hl, S_hi, S_lo as the stub keeps them) and two short polynomials. For |x| from 2**16 * 1.375 on
# the stub first reduces x modulo pi/4 itself (Payne-Hanek: x's 53 bits times 2/pi's bits from PI_INV_TABLE,
# in 32 x 32-bit products and 64-bit sums); that part is replayed here in numpy's uint64, the same products,
# carries, shifts and conversions, so the reduced argument is the stub's to the bit.
_SC_ONEHALF = _d(0x3FE0000000000000)
_SC_PI32INV = _d(0x40245F306DC9C883)
_SC_P1 = _d(0x3FB921FB54400000)
_SC_P2 = _d(0x3D90B4611A600000)
_SC_P3 = _d(0x3B63198A2E037073)
_SC_SC4 = (_d(0x3EC71DE3A556C734), _d(0x3EFA01A01A01A01A))
_SC_SC3 = (_d(0xBF2A01A01A01A01A), _d(0xBF56C16C16C16C17))
_SC_SC2 = (_d(0x3F81111111111111), _d(0x3FA5555555555555))
_SC_SC1 = (_d(0xBFC5555555555555), _d(0xBFE0000000000000))
_SC_PI4 = (_d(0x3FE921FB40000000), _d(0x3E64442D18469899))
_SC_ALL_ONES = _d(0x3FEFFFFFFFFFFFFF)
_SC_TWO_POW_55 = _d(0x4360000000000000)
_SC_TWO_POW_M55 = _d(0x3C80000000000000)
# the 64-row table and 2/pi's bits: tables().sin_cos and tables().pi_inv (libjvm.so's StubRoutines::x86::_Ctable,
# _PI_INV_TABLE)


def _sc_poly(r1, n_p2, c_neg, t, y_lo=None, cos_order=False):
    """The stub's evaluation from r1 = x - N * P_1: r = r1 - N * P_2, the correction term, the table row ``t``
    (four doubles) and the polynomials, summed in the stub's order (cos's main path has its own)."""
    t0, t1, t2, t3 = (t[:, i].view(np.float64) for i in range(4))
    r = r1 - n_p2
    s4a = _SC_SC4[0] * r1
    s4b = _SC_SC4[1] * r1
    x7 = t1 * r
    c1 = r1 - r
    s4a = s4a * r
    s4b = s4b * r
    r2 = r * r
    c2 = c1 - n_p2
    m1 = c_neg - c2  # N * P_3 - c2
    t03 = t0 + t3
    x7 = x7 - t03
    if y_lo is not None:
        m1 = m1 - y_lo
    x2a = t03 * r
    s2a = _SC_SC2[0] * r2
    s2b = _SC_SC2[1] * r2
    x3 = t3 * r
    x2a = x2a * r2
    x2b = t1 * r2
    r4 = r2 * r2
    s4a = s4a + _SC_SC3[0]
    s4b = s4b + _SC_SC3[1]
    x4 = r * t0
    s2a = s2a + _SC_SC1[0]
    s2b = s2b + _SC_SC1[1]
    s4a = s4a * r4
    s4b = s4b * r4
    x0 = x3
    x3 = x3 + t1
    m1 = m1 * x7
    x7 = x4
    x4 = x4 + x3
    s2a = s2a + s4a
    s2b = s2b + s4b
    x5 = t1 - x3
    x3 = x3 - x4
    m1 = m1 + t2
    s2a = s2a * x2a
    s2b = s2b * x2b
    if cos_order:
        x0 = x0 + x5
        x3 = x3 + x7
        return (((x0 + m1) + x3) + s2a + s2b) + x4
    x5 = x5 + x0
    x3 = x3 + x7
    m1 = m1 + x5
    m1 = m1 + x3
    m1 = m1 + s2a
    m1 = m1 + s2b
    return x4 + m1


def _sc_main(x, row_offset, cos_order):
    """The stub's path for 2**-252 <= |x| < 90112."""
    with np.errstate(all="ignore"):
        y = _SC_PI32INV * x
        half = np.where(np.signbit(x), -_SC_ONEHALF, _SC_ONEHALF)
        n = np.trunc(y + half).astype(np.int64)  # cvttsd2si
    nd = n.astype(np.float64)
    t = tables().sin_cos[((n + row_offset) & 63).astype(np.intp)]
    r1 = x - _SC_P1 * nd
    return _sc_poly(r1, _SC_P2 * nd, nd * _SC_P3, t, cos_order=cos_order)


_V32 = _U64(0xFFFFFFFF)


def _bit_length(v: np.ndarray) -> np.ndarray:
    """bsr + 1 of 64-bit values (0 for 0), exactly: each 32-bit half through a float64."""
    hi, lo = v >> _U64(32), v & _V32
    length = lambda w: np.frexp(w.astype(np.float64))[1].astype(np.int64)  # noqa: E731
    return np.where(hi > 0, 32 + length(hi), length(lo))


def _negate_192(top: np.ndarray, r9, r10, r8):
    """(top : 0 : 0) - (r9 : r10 : r8), as the stub's sub / sbb / sbb chain does it."""
    borrow1 = (r8 != 0).astype(np.uint64)
    new_r8 = _U64(0) - r8
    new_r10 = _U64(0) - r10 - borrow1
    borrow2 = ((r10 != 0) | (borrow1 != 0)).astype(np.uint64)
    return top - r9 - borrow2, new_r10, new_r8


def _reduce_big(x: np.ndarray, tan: bool = False):
    """The stubs' reduction of a large |x| (their L_1 path), in 64-bit integer arithmetic as they compute it
    (x's 53 bits times 2/pi's bits from PI_INV_TABLE in 32 x 32-bit products, carries, shifts, a 192-bit
    complement): returns y high, y low and the count of pi/4 (tan: pi/2) to add to N. tan's stub keeps one
    integer bit less."""
    top = 0x40000000 if tan else 0x20000000
    drop = _U64(2 if tan else 3)
    bits = _bits(x)
    hiword = (bits >> _U64(48)).astype(np.int64)
    offset = (((hiword & 0x7FF0) - 16224) >> 7) & 65532
    w = [tables().pi_inv[offset // 4 + i] for i in range(7)]
    rdx = bits & _V32
    rax = (((bits >> _U64(21)) & _V32) | _U64(0x80000000)) >> _U64(11)
    s32 = _U64(32)
    r10 = w[5] * rdx
    r9 = w[5] * rax
    r8 = w[6] * rax
    r11 = (r10 & _V32) + r8
    r9 = r9 + (r10 >> s32) + (r11 >> s32)
    r8 = r11 & _V32
    rsi = w[4] * rdx
    r10 = w[4] * rax
    rdi = w[3] * rdx
    r9 = r9 + (rsi & _V32)
    rbx = r9 & _V32
    r10 = r10 + (rsi >> s32) + (r9 >> s32)
    r8 = r8 | (rbx << s32)
    r11 = w[3] * rax
    r10 = r10 + (rdi & _V32)
    rbx = r10 & _V32
    r11 = r11 + (rdi >> s32) + (r10 >> s32)
    r9 = w[2] * rdx
    rdi = w[2] * rax
    r11 = r11 + (r9 & _V32)
    r10 = ((r11 & _V32) << s32) | rbx
    rdi = rdi + (r9 >> s32) + (r11 >> s32)
    rsi = w[1] * rdx
    r9 = w[1] * rax
    rdi = rdi + (rsi & _V32)
    r11 = rdi & _V32
    r9 = r9 + (rsi >> s32) + (rdi >> s32) + rdx * w[0]
    ecx = offset * 8 + 19 - (((hiword >> 4) & 2047) - 1023)
    negative = (hiword & 0x8000) != 0
    edx = ecx + 32
    ebx = np.zeros(len(x), dtype=np.int64)
    small = ecx < (0 if tan else 1)
    # ecx small (the stub's L_4 / L_13): the integer part sits in the low word after a left shift
    cl = ((~ecx if tan else -ecx) & 63).astype(np.uint64)
    shifted = ((r9 << s32) | r11) << cl
    rdi_a = shifted
    low_a = (shifted & _V32) >> (cl & _U64(31))
    flip_a = small & ((shifted & _U64(0x80000000)) != 0)
    # otherwise (the main case / L_5): the integer bits at the top of the low word of r9
    cl_b = ((29 - ecx) & 31).astype(np.uint64)
    rdi_b = ((r9 & _V32) << cl_b) & _V32
    kept = rdi_b & _U64(top - 1)
    flip_b = ~small & ((kept & _U64(top >> 1)) != 0)
    r9_new = np.where(small, low_a, ((kept >> cl_b) << s32) | r11)
    rdi = np.where(small, np.where(flip_a, ((rdi_a >> drop) + _U64(top)) & _V32, rdi_a >> drop),
                   np.where(flip_b, (rdi_b + _U64(top)) & _V32, rdi_b))
    flip = flip_a | flip_b
    if flip.any():
        complement_top = np.where(small, _U64(1 << 32) >> cl, (_U64(top) >> cl_b) << s32)
        n9, n10, n8 = _negate_192(complement_top[flip], r9_new[flip], r10[flip], r8[flip])
        r9_new[flip], r10[flip], r8[flip] = n9, n10, n8
        ebx[flip] = 0x8000
    r9 = r9_new
    for _ in range(2):  # a zero high word: the next 64 bits move up (the stub's L_8)
        empty = r9 == 0
        if empty.any():
            edx = np.where(empty, edx + 64, edx)
            r9, r10, r8 = np.where(empty, r10, r9), np.where(empty, r8, r10), np.where(empty, _U64(0), r8)
    c = 30 - _bit_length(r9)
    up = np.clip(c, 1, 63).astype(np.uint64)
    down = np.clip(-c, 1, 63).astype(np.uint64)
    r9_up = (r9 << up) | (r10 >> (_U64(64) - up))
    r10_up = (r10 << up) | (r8 >> (_U64(64) - up))
    r9_down = r9 >> down
    r10_down = (r10 >> down) | (r9 << (_U64(64) - down))
    r9 = np.where(c > 0, r9_up, np.where(c < 0, r9_down, r9))
    r10 = np.where(c > 0, r10_up, np.where(c < 0, r10_down, r10))
    edx = edx + c
    hi = r9.astype(np.int64).astype(np.float64)
    lo = (r10 >> _U64(1)).astype(np.int64).astype(np.float64)
    word = ((-(edx << 4) + 16368) | (hiword & 0x8000)) ^ ebx
    h = hi * _d((word & 0xFFFF).astype(np.uint64) << _U64(48))
    lo = lo * _d(((word - 1008) & 0xFFFF).astype(np.uint64) << _U64(48))
    pi4 = _TAN_PI4 if tan else _SC_PI4
    s = h + lo
    h = h * pi4[0]
    lo = lo * pi4[0]
    sign = np.where(negative, -1, 0)
    quarter = ((((rdi & _V32) >> _U64(30 if tan else 29)).astype(np.int64) + sign) ^ sign) & 0xFFFFFFFF
    t6 = pi4[1] * s + lo
    y_hi = h + t6
    return y_hi, t6 + (h - y_hi), quarter


def _sc_big(x, row_offset):
    """|x| from about 90112 on (finite): the stub's own reduction, then its evaluation of the reduced y."""
    y_hi, y_lo, quarter = _reduce_big(x)
    with np.errstate(all="ignore"):
        y = _SC_PI32INV * y_hi
        half = np.where(np.signbit(y_hi), -_SC_ONEHALF, _SC_ONEHALF)
        n = np.trunc(y + half).astype(np.int64)
    nd = n.astype(np.float64)
    t = tables().sin_cos[((n + (quarter << 3) + row_offset) & 63).astype(np.intp)]
    r1 = y_hi - _SC_P1 * nd
    return _sc_poly(r1, _SC_P2 * nd, nd * _SC_P3, t, y_lo=y_lo)


def _sin_cos(x, cos: bool) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    high = ((_bits(x) >> _U64(32)) & _U64(0x7FFF0000)).astype(np.int64) - 0x30300000
    row_offset = 16 if cos else 0  # cos(x) = sin(x + pi/2): 16 rows of pi/32 on
    with np.errstate(all="ignore"):
        main = (high >= 0) & (high <= 281346048)
        if main.any():
            i = _rows(main)
            out[i] = _sc_main(x[i], row_offset, cos)
        big = high > 281346048
        finite_big = big & np.isfinite(x)
        if finite_big.any():
            out[finite_big] = _sc_big(x[finite_big], row_offset)
        out[big & ~finite_big] = np.nan  # x * -0.0: Infinity and NaN give NaN
        tiny = high < 0
        if tiny.any():
            xt = x[tiny]
            if cos:
                out[tiny] = 1.0 - np.abs(xt)
            else:
                subnormal = high[tiny] < 0x100000 - 0x30300000
                out[tiny] = np.where(subnormal, xt * _SC_ALL_ONES, (_SC_TWO_POW_55 * xt - xt) * _SC_TWO_POW_M55)
    return out


def hotspot_sin(x: np.ndarray) -> np.ndarray:
    """``Math.sin`` on x86_64 HotSpot (StubRoutines::dsin)."""
    return _sin_cos(x, cos=False)


def hotspot_cos(x: np.ndarray) -> np.ndarray:
    """``Math.cos`` on x86_64 HotSpot (StubRoutines::dcos)."""
    return _sin_cos(x, cos=True)


# --- tan -------------------------------------------------------------------------------------------------
# macroAssembler_x86_tan.cpp: x = (16 k0 + ...) in two lanes at once, N = x * 32/pi rounded picks one of 32
# blocks (a polynomial of degree 15 per block, T_hi, T_lo, Sigma, T_hl, Tau, Mask), the reciprocal of the
# remainder modulo pi/2 where tan has a pole; a large |x| is reduced as sin's stub does (pi/2 units).
_TAN_ONEHALF = _d(0x3FE0000000000000)
_TAN_PI32INV = (_d(0x3FE45F306DC9C883), _d(0x40245F306DC9C883))
_TAN_MUL16 = (_d(0x4030000000000000), _d(0x3FF0000000000000))
_TAN_P1 = (_d(0x3FB921FB54444000), _d(0x3FB921FB54440000))
_TAN_P2 = (_d(0xBD32E7B967674000), _d(0x3D468C234C4C0000))
_TAN_P3 = (_d(0x3AA8A2E03707344A), _d(0x3AE98A2E03707345))
_TAN_QQ2 = _d(0x3D32E7B9676733AF)
_TAN_Q = tuple(_d(b) for b in (0x3F82609AB8FE4D77, 0x3F9664A0BF847A43, 0x3FABA1BA52C4C8AB, 0x3FC1111111092746,
                                0x3FD5555555555612))  # Q_11, Q_9, Q_7, Q_5, Q_3
_TAN_PI4 = (_d(0x3FE921FB00000000), _d(0x3E85110B4611A626))
_TAN_TWO_POW_55 = _d(0x4360000000000000)
_TAN_TWO_POW_M55 = _d(0x3C80000000000000)
# -> tables().tan (libjvm.so's _Ctable_tan)


def _tan_eval(x, y_lo=None, quarter=None):
    """The stub's evaluation for 0.1 <= |x| < 12288 (and, given ``y_lo`` and ``quarter``, of the y its
    large-argument reduction leaves): two lanes, lane 0 with k0 = round(2x / pi) * 16, lane 1 with N."""
    with np.errstate(all="ignore"):
        half = np.where(np.signbit(x), -_TAN_ONEHALF, _TAN_ONEHALF)
        a0 = np.trunc(_TAN_PI32INV[0] * x + half)
        a1 = np.trunc(_TAN_PI32INV[1] * x + half)
        n = a1.astype(np.int64)
    k0 = a0 * _TAN_MUL16[0]
    k1 = a1 * _TAN_MUL16[1]
    shift = 0 if quarter is None else (quarter << 4)
    block = tables().tan[((n + shift) & 31).astype(np.intp)]
    c = [block[:, i].view(np.float64) for i in range(22)]
    a0 = x - _TAN_P1[0] * k0
    a1 = x - _TAN_P1[1] * k1
    q = _TAN_QQ2 * k0 + a0
    p2a, p2b = _TAN_P2[0] * k0, _TAN_P2[1] * k1
    v0 = a0 - p2a
    v1 = a1 - p2b
    q = _d(_bits(q) & _U64(0xFFFFFFFFFFFC0000))
    with np.errstate(all="ignore"):
        recip = 1.0 / q
    e0 = ((a0 - v0) - p2a) - _TAN_P3[0] * k0
    e1 = ((a1 - v1) - p2b) - _TAN_P3[1] * k1
    if y_lo is not None:
        e0 = e0 + y_lo
        e1 = e1 + y_lo
    e0 = e0 + (v0 - q)
    u = v1
    u2 = u * u
    u4 = u2 * u2
    p7a = c[2] * u + c[0] + (c[6] * u + c[4]) * u2
    p7b = c[3] * u + c[1] + (c[7] * u + c[5]) * u2
    p4a = c[12] * u + c[10] + c[14] * u2
    p4b = c[13] * u + c[11] + c[15] * u2
    p7a = p7a + c[8] * u4
    p7b = p7b + c[9] * u4
    u5 = u * u4
    u8 = u4 * u4
    p7a = p7a + p4a * u5
    p7b = p7b + p4b * u5
    s_sigma = u * c[18]
    s_hl = u * c[19]
    poly = u8 * p7a + p7b
    med = s_sigma + s_hl
    med_lo = s_hl + (s_sigma - med)
    low = ((c[18] + c[19]) * e1 + c[17]) + med_lo
    poly = poly + low
    masked = _d(_bits(c[21]) & _bits(recip))
    t7 = ((1.0 - q * masked) - e0 * recip) * (recip * c[20])
    t2 = masked - c[16]
    head = med - t2
    t2 = t2 + head
    return ((poly + (med - t2)) - t7) + head


def _tan_big(x):
    y_hi, y_lo, quarter = _reduce_big(x, tan=True)
    return _tan_eval(y_hi, y_lo, quarter)


def hotspot_tan(x: np.ndarray) -> np.ndarray:
    """``Math.tan`` on x86_64 HotSpot (StubRoutines::dtan)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    word = (_bits(x) >> _U64(48)).astype(np.int64) & 0x7FFF
    gate = word - 16314
    with np.errstate(all="ignore"):
        main = (gate >= 0) & (gate <= 270)
        if main.any():
            i = _rows(main)
            out[i] = _tan_eval(x[i])
        big = gate > 270
        finite_big = big & np.isfinite(x)
        if finite_big.any():
            out[finite_big] = _tan_big(x[finite_big])
        out[big & ~finite_big] = np.nan
        tiny = gate < 0
        if tiny.any():
            xt, wt = x[tiny], word[tiny]
            x2 = xt * xt
            x3 = xt * x2
            q = ((((_TAN_Q[0] * x2 + _TAN_Q[1]) * x2 + _TAN_Q[2]) * x2 + _TAN_Q[3]) * x2 + _TAN_Q[4]) * x3
            res = np.where(wt < 15904, (xt + _TAN_TWO_POW_55 * xt) * _TAN_TWO_POW_M55, xt + q)
            out[tiny] = np.where((wt & 0x7FF0) == 0, xt, res)
    return out
