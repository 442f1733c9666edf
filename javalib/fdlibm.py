"""fdlibm 5.3, the algorithms of Java's ``StrictMath`` (JDK 17: native C fdlibm, or its Java port in
``FdLibm.java``), in numpy, bit for bit: ``Math.asin acos atan atan2 sinh cosh tanh expm1 log1p hypot`` delegate
to them (HotSpot has no intrinsic for these), and ``sinh cosh tanh`` call fdlibm's own ``exp`` / ``expm1`` (not
HotSpot's ``Math.exp`` stub, see hotspot_math).

Every function is vectorised the same way: each branch of fdlibm's code is computed over the whole array (with
floating-point warnings off; a branch's garbage on rows it does not own is discarded) and ``np.where`` picks, in
fdlibm's order of tests, the branch each row takes. The arithmetic inside a branch keeps fdlibm's operation order
and grouping, so every rounding is the same; the 32-bit halves of a double (fdlibm's ``__HI`` / ``__LO``) are
read and written through integer views. Checked against Java 17 (tests/ingestion/test_fdlibm.py and its fixture
tests/fixtures/java17_fdlibm.txt, written by tools/java_math/fdlibm_fixture.py).
"""
from __future__ import annotations

import numpy as np

_HUGE = 1.0e300
_TINY = 1.0e-300
_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 0x3dea39ef 35793c76
_INVLN2 = 1.44269504088896338700e+00
_PIO2_HI = 1.57079632679489655800e+00  # 0x3ff921fb 54442d18
_PIO2_LO = 6.12323399573676603587e-17  # 0x3c91a626 33145c07
_PIO4_HI = 7.85398163397448278999e-01
_PI = 3.141592653589793
_HYPOT_BIG = float.fromhex("0x1.00000ffffffffp500")
_O_THRESHOLD = 7.09782712893383973096e+02


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _hi(x: np.ndarray) -> np.ndarray:
    """The high 32-bit word, signed (fdlibm's ``__HI``)."""
    return (x.view(np.int64) >> 32).astype(np.int32)


def _lo(x: np.ndarray) -> np.ndarray:
    """The low 32-bit word, unsigned."""
    return (x.view(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _lo_zero(x: np.ndarray) -> np.ndarray:
    """x with its low word cleared (``__LO(x) = 0``)."""
    return (x.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)


def _from_hi(hi: np.ndarray) -> np.ndarray:
    """The double whose high word is ``hi`` and low word 0."""
    return (hi.astype(np.int64).astype(np.uint64) << np.uint64(32)).view(np.float64)


def _add_exponent(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``__HI(y) += k << 20``: an integer add into the exponent field, as fdlibm does (no rounding, no checks)."""
    return (y.view(np.int64) + (k.astype(np.int64) << 52)).view(np.float64)


def _poly_asin(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = t * (1.66666666666666657415e-01 + t * (-3.25565818622400915405e-01 + t * (
        2.01212532134862925881e-01 + t * (-4.00555345006794114027e-02 + t * (
            7.91534994289814532176e-04 + t * 3.47933107596021167570e-05)))))
    q = 1.0 + t * (-2.40339491173441421878e+00 + t * (2.02094576023350569471e+00 + t * (
        -6.88283971605453293030e-01 + t * 7.70381505559019352791e-02)))
    return p, q


def fdlibm_asin(x) -> np.ndarray:
    """e_asin.c: a rational approximation below 0.5, ``pi/2 - 2*asin(sqrt((1-|x|)/2))`` above, the square root
    split in two between 0.5 and 0.975."""
    x = _f64(x)
    hx = _hi(x)
    ix = hx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        t = x * x
        p, q = _poly_asin(t)
        small = np.where(ix < 0x3E400000, x, x + x * (p / q))
        w = 1.0 - np.abs(x)
        t = w * 0.5
        p, q = _poly_asin(t)
        s = np.sqrt(t)
        near_one = _PIO2_HI - (2.0 * (s + s * (p / q)) - _PIO2_LO)
        f = _lo_zero(s)
        c = (t - f * f) / (s + f)
        r = p / q
        pp = 2.0 * s * r - (_PIO2_LO - 2.0 * c)
        qq = _PIO4_HI - 2.0 * f
        middle = _PIO4_HI - (pp - qq)
        big = np.where(ix >= 0x3FEF3333, near_one, middle)
        big = np.where(hx > 0, big, -big)
        one = ((ix - 0x3FF00000) | _lo(x).view(np.int32)) == 0
        outside = np.where(one, x * _PIO2_HI + x * _PIO2_LO, (x - x) / (x - x))
        return np.where(ix >= 0x3FF00000, outside, np.where(ix < 0x3FE00000, small, big))


def fdlibm_acos(x) -> np.ndarray:
    """e_acos.c: ``pi/2 - asin`` below 0.5, ``pi - 2*asin(sqrt((1+x)/2))`` below -0.5, ``2*asin(sqrt((1-x)/2))``
    (the root split in two) above 0.5."""
    x = _f64(x)
    hx = _hi(x)
    ix = hx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        z = x * x
        p, q = _poly_asin(z)
        r = p / q
        small = np.where(ix <= 0x3C600000, _PIO2_HI + _PIO2_LO, _PIO2_HI - (x - (_PIO2_LO - x * r)))
        z = (1.0 + x) * 0.5
        p, q = _poly_asin(z)
        s = np.sqrt(z)
        r = p / q
        w = r * s - _PIO2_LO
        negative = _PI - 2.0 * (s + w)
        z = (1.0 - x) * 0.5
        s = np.sqrt(z)
        df = _lo_zero(s)
        c = (z - df * df) / (s + df)
        p, q = _poly_asin(z)
        r = p / q
        w = r * s + c
        positive = 2.0 * (df + w)
        one = ((ix - 0x3FF00000) | _lo(x).view(np.int32)) == 0
        outside = np.where(one, np.where(hx > 0, 0.0, _PI + 2.0 * _PIO2_LO), (x - x) / (x - x))
        inside = np.where(ix < 0x3FE00000, small, np.where(hx < 0, negative, positive))
        return np.where(ix >= 0x3FF00000, outside, inside)


_ATAN_HI = np.array([4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
                     1.57079632679489655800e+00])
_ATAN_LO = np.array([2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
                     6.12323399573676603587e-17])
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)


def fdlibm_atan(x) -> np.ndarray:
    """s_atan.c: |x| reduced to one of five intervals (around 0, 1/2, 1, 3/2, infinity), then an odd
    polynomial split in even and odd halves."""
    x = _f64(x)
    hx = _hi(x)
    ix = hx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        a = np.abs(x)
        ident = np.where(ix < 0x3FDC0000, -1, np.where(ix < 0x3FE60000, 0, np.where(
            ix < 0x3FF30000, 1, np.where(ix < 0x40038000, 2, 3))))
        reduced = np.where(ident == 0, (2.0 * a - 1.0) / (2.0 + a), np.where(
            ident == 1, (a - 1.0) / (a + 1.0), np.where(ident == 2, (a - 1.5) / (1.0 + 1.5 * a), -1.0 / a)))
        y = np.where(ident < 0, x, reduced)
        z = y * y
        w = z * z
        s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
        s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
        near_zero = np.where(ix < 0x3E200000, x, y - y * (s1 + s2))
        i = np.maximum(ident, 0)
        zz = _ATAN_HI[i] - ((y * (s1 + s2) - _ATAN_LO[i]) - y)
        reduced = np.where(hx < 0, -zz, zz)
        result = np.where(ident < 0, near_zero, reduced)
        nan = (ix > 0x7FF00000) | ((ix == 0x7FF00000) & (_lo(x) != 0))
        huge = np.where(nan, x + x, np.where(hx > 0, _ATAN_HI[3] + _ATAN_LO[3], -_ATAN_HI[3] - _ATAN_LO[3]))
        return np.where(ix >= 0x44100000, huge, result)


def fdlibm_atan2(y, x) -> np.ndarray:
    """e_atan2.c: the special values of the quadrants, then ``atan(|y/x|)`` put in its quadrant with pi's tail."""
    y, x = np.broadcast_arrays(_f64(y), _f64(x))
    y, x = np.ascontiguousarray(y), np.ascontiguousarray(x)
    hx, hy = _hi(x), _hi(y)
    ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
    lx, ly = _lo(x), _lo(y)
    pi_o_4, pi_o_2, pi_lo = 7.8539816339744827900e-01, 1.5707963267948965580e+00, 1.2246467991473531772e-16
    with np.errstate(all="ignore"):
        m = ((hy >> 31) & 1) | ((hx >> 30) & 2)
        k = (iy.astype(np.int64) - ix) >> 20
        z = np.where(k > 60, pi_o_2 + 0.5 * pi_lo,
                     np.where((hx < 0) & (k < -60), 0.0, fdlibm_atan(np.abs(y / x))))
        general = np.select([m == 0, m == 1, m == 2], [z, -z, _PI - (z - pi_lo)], (z - pi_lo) - _PI)
        res = general
        up_down = np.where(hy < 0, -pi_o_2 - _TINY, pi_o_2 + _TINY)
        res = np.where(iy == 0x7FF00000, up_down, res)
        both_inf = np.select([m == 0, m == 1, m == 2], [pi_o_4 + _TINY, -pi_o_4 - _TINY, 3.0 * pi_o_4 + _TINY],
                             -3.0 * pi_o_4 - _TINY)
        x_inf = np.select([m == 0, m == 1, m == 2], [0.0, -0.0, _PI + _TINY], -_PI - _TINY)
        res = np.where(ix == 0x7FF00000, np.where(iy == 0x7FF00000, both_inf, x_inf), res)
        res = np.where((ix | lx.view(np.int32)) == 0, up_down, res)
        y_zero = np.select([m <= 1, m == 2], [y, _PI + _TINY], -_PI - _TINY)
        res = np.where((iy | ly.view(np.int32)) == 0, y_zero, res)
        res = np.where(((hx - 0x3FF00000) | lx.view(np.int32)) == 0, fdlibm_atan(y), res)
        return np.where(np.isnan(x) | np.isnan(y), x + y, res)


_EXP_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
          -1.65339022054652515390e-06, 4.13813679705723846039e-08)


def fdlibm_exp(x) -> np.ndarray:
    """e_exp.c (``StrictMath.exp``; not ``Math.exp``, whose HotSpot stub is hotspot_math's): x = k*ln2 + r,
    a rational approximation of exp(r), k added to the exponent."""
    x = _f64(x)
    hx = _hi(x)
    negative = hx < 0
    ix = hx & 0x7FFFFFFF
    twom1000 = 9.33263618503218878990e-302
    with np.errstate(all="ignore"):
        sign = np.where(negative, -1.0, 1.0)
        near = ix < 0x3FF0A2B2
        k_far = (_INVLN2 * x + 0.5 * sign)
        k_far = np.where(np.isfinite(k_far), k_far, 0.0).astype(np.int64)  # Java's (int) truncates
        k = np.where(near, np.where(negative, -1, 1), k_far)
        t = k.astype(np.float64)
        hi = np.where(near, x - _LN2_HI * sign, x - t * _LN2_HI)
        lo = np.where(near, np.where(negative, -_LN2_LO, _LN2_LO), t * _LN2_LO)
        reduce = ix > 0x3FD62E42
        k = np.where(reduce, k, 0)
        r = np.where(reduce, hi - lo, x)
        t = r * r
        c = r - t * (_EXP_P[0] + t * (_EXP_P[1] + t * (_EXP_P[2] + t * (_EXP_P[3] + t * _EXP_P[4]))))
        unscaled = 1.0 - ((r * c) / (c - 2.0) - r)
        y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
        scaled = np.where(k >= -1021, _add_exponent(y, k), _add_exponent(y, k + 1000) * twom1000)
        res = np.where(k == 0, unscaled, scaled)
        res = np.where(~reduce & (ix < 0x3E300000), 1.0 + x, res)
        nan = ((ix & 0xFFFFF) | _lo(x).view(np.int32)) != 0
        special = np.where(ix >= 0x7FF00000, np.where(nan, x + x, np.where(negative, 0.0, x)),
                           np.where(x > _O_THRESHOLD, np.inf, np.where(x < -7.45133219101941108420e+02, 0.0, res)))
        return np.where(ix >= 0x40862E42, special, res)


_EXPM1_Q = (-3.33333333333331316428e-02, 1.58730158725481460165e-03, -7.93650757867487942473e-05,
            4.00821782732936239552e-06, -2.01099218183624371326e-07)


def fdlibm_expm1(x) -> np.ndarray:
    """s_expm1.c: x = k*ln2 + r with a correction term, a rational approximation of expm1(r), and seven ways
    back to expm1(x) by the size of k."""
    x = _f64(x)
    hx = _hi(x)
    negative = hx < 0
    ix = hx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        near = ix < 0x3FF0A2B2
        k_far = _INVLN2 * x + np.where(negative, -0.5, 0.5)
        k_far = np.where(np.isfinite(k_far), k_far, 0.0).astype(np.int64)
        k = np.where(near, np.where(negative, -1, 1), k_far)
        t = k.astype(np.float64)
        hi = np.where(near, np.where(negative, x + _LN2_HI, x - _LN2_HI), x - t * _LN2_HI)
        lo = np.where(near, np.where(negative, -_LN2_LO, _LN2_LO), t * _LN2_LO)
        reduce = ix > 0x3FD62E42
        r = np.where(reduce, hi - lo, x)
        c = np.where(reduce, (hi - r) - lo, 0.0)
        k = np.where(reduce, k, 0)
        hfx = 0.5 * r
        hxs = r * hfx
        r1 = 1.0 + hxs * (_EXPM1_Q[0] + hxs * (_EXPM1_Q[1] + hxs * (_EXPM1_Q[2] + hxs * (
            _EXPM1_Q[3] + hxs * _EXPM1_Q[4]))))
        t = 3.0 - r1 * hfx
        e = hxs * ((r1 - t) / (6.0 - r * t))
        k_zero = r - (r * e - hxs)
        e = (r * (e - c) - c)
        e = e - hxs
        k_minus_one = 0.5 * (r - e) - 0.5
        k_one = np.where(r < -0.25, -2.0 * (e - (r + 0.5)), 1.0 + 2.0 * (r - e))
        y = 1.0 - (e - r)
        far = _add_exponent(y, k) - 1.0
        shift = np.clip(k, 0, 31)
        t_small = _from_hi(0x3FF00000 - (0x200000 >> shift))  # 1 - 2**-k
        small = _add_exponent(t_small - (e - r), k)
        t_mid = _from_hi((0x3FF - np.clip(k, 0, 0x3FF)) << 20)  # 2**-k
        mid = _add_exponent((r - (e + t_mid)) + 1.0, k)
        res = np.select([k == 0, k == -1, k == 1, (k <= -2) | (k > 56), k < 20],
                        [k_zero, k_minus_one, k_one, far, small], mid)
        res = np.where(~reduce & (ix < 0x3C900000), x, res)
        nan = ((ix & 0xFFFFF) | _lo(x).view(np.int32)) != 0
        big = np.where(ix >= 0x40862E42,
                       np.where(ix >= 0x7FF00000, np.where(nan, x + x, np.where(negative, -1.0, x)),
                                np.where(x > _O_THRESHOLD, np.inf, np.where(negative, _TINY - 1.0, res))),
                       np.where(negative, _TINY - 1.0, res))
        return np.where(ix >= 0x4043687A, big, res)


def fdlibm_sinh(x) -> np.ndarray:
    """e_sinh.c: ``(E + E/(E+1))/2`` with E = expm1(|x|) below 22, ``exp(|x|)/2`` up to ln(MAX), then
    ``exp(|x|/2)/2 * exp(|x|/2)`` up to the overflow threshold."""
    x = _f64(x)
    jx = _hi(x)
    ix = jx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        h = np.where(jx < 0, -0.5, 0.5)
        a = np.abs(x)
        t = fdlibm_expm1(a)
        below_22 = np.where(ix < 0x3FF00000, h * (2.0 * t - t * t / (t + 1.0)), h * (t + t / (t + 1.0)))
        below_22 = np.where(ix < 0x3E300000, x, below_22)
        w = fdlibm_exp(0.5 * a)
        lx = _lo(x)
        fits = (ix < 0x408633CE) | ((ix == 0x408633CE) & (lx <= np.uint32(0x8FB9F87D)))
        top = np.where(fits, (h * w) * w, x * 1.0e307)
        res = np.where(ix < 0x40360000, below_22, np.where(ix < 0x40862E42, h * fdlibm_exp(a), top))
        return np.where(ix >= 0x7FF00000, x + x, res)


def fdlibm_cosh(x) -> np.ndarray:
    """e_cosh.c: ``1 + expm1(|x|)**2 / (2*exp(|x|))`` below ln2/2, ``(exp(|x|) + 1/exp(|x|))/2`` below 22,
    then as sinh."""
    x = _f64(x)
    ix = _hi(x) & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        a = np.abs(x)
        t = fdlibm_expm1(a)
        w = 1.0 + t
        small = np.where(ix < 0x3C800000, w, 1.0 + (t * t) / (w + w))
        e = fdlibm_exp(a)
        middle = 0.5 * e + 0.5 / e
        w = fdlibm_exp(0.5 * a)
        lx = _lo(x)
        fits = (ix < 0x408633CE) | ((ix == 0x408633CE) & (lx <= np.uint32(0x8FB9F87D)))
        top = np.where(fits, (0.5 * w) * w, np.inf)
        res = np.where(ix < 0x3FD62E43, small, np.where(ix < 0x40360000, middle, np.where(
            ix < 0x40862E42, 0.5 * e, top)))
        return np.where(ix >= 0x7FF00000, x * x, res)


def fdlibm_tanh(x) -> np.ndarray:
    """s_tanh.c: ``-t/(t+2)`` with t = expm1(-2|x|) below 1, ``1 - 2/(expm1(2|x|)+2)`` below 22, then 1."""
    x = _f64(x)
    jx = _hi(x)
    ix = jx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        a = np.abs(x)
        t = fdlibm_expm1(2.0 * a)
        above_one = 1.0 - 2.0 / (t + 2.0)
        t = fdlibm_expm1(-2.0 * a)
        below_one = -t / (t + 2.0)
        z = np.where(ix < 0x40360000, np.where(ix >= 0x3FF00000, above_one, below_one), 1.0 - _TINY)
        res = np.where(jx >= 0, z, -z)
        res = np.where(ix < 0x3C800000, x * (1.0 + x), res)
        special = np.where(jx >= 0, 1.0 / x + 1.0, 1.0 / x - 1.0)
        return np.where(ix >= 0x7FF00000, special, res)


_LP = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
       1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01)


def fdlibm_log1p(x) -> np.ndarray:
    """s_log1p.c: 1+x = 2**k * (1+f) with a correction term for the rounding of 1+x, then log(1+f) by
    ``s = f/(2+f)`` and a polynomial in s**2."""
    x = _f64(x)
    hx = _hi(x)
    ax = hx & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        direct = (hx < 0x3FDA827A) & ((hx > 0) | (hx <= np.int32(-0x402D413D)))  # 0xbfd2bec3: -0.2929 < x < 0.41422
        u = np.where(hx < 0x43400000, 1.0 + x, x)
        hu = _hi(u)
        k = (hu >> 20) - 1023
        c = np.where(k > 0, 1.0 - (u - x), x - (u - 1.0)) / u
        c = np.where(hx < 0x43400000, c, 0.0)
        hu = hu & 0x000FFFFF
        low_half = hu < 0x6A09E
        u = (((hu | np.where(low_half, 0x3FF00000, 0x3FE00000)).astype(np.int64).astype(np.uint64) << np.uint64(32))
             | (u.view(np.uint64) & np.uint64(0xFFFFFFFF))).view(np.float64)
        k = np.where(low_half, k, k + 1)
        hu = np.where(low_half, hu, (0x00100000 - hu) >> 2)
        f = np.where(direct, x, u - 1.0)
        k = np.where(direct, 0, k)
        hu = np.where(direct, 1, hu)
        c = np.where(direct, 0.0, c)
        dk = k.astype(np.float64)
        hfsq = 0.5 * f * f
        r_small = hfsq * (1.0 - 0.66666666666666666 * f)
        tiny_f = np.where(f == 0.0, np.where(k == 0, 0.0, dk * _LN2_HI + (c + dk * _LN2_LO)),
                          np.where(k == 0, f - r_small, dk * _LN2_HI - ((r_small - (dk * _LN2_LO + c)) - f)))
        s = f / (2.0 + f)
        z = s * s
        r = z * (_LP[0] + z * (_LP[1] + z * (_LP[2] + z * (_LP[3] + z * (_LP[4] + z * (_LP[5] + z * _LP[6]))))))
        general = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                           dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * _LN2_LO + c))) - f))
        res = np.where(hu == 0, tiny_f, general)
        res = np.where(hx >= 0x7FF00000, x + x, res)
        small = np.where((ax < 0x3C900000), x, x - x * x * 0.5)
        below = np.where(x == -1.0, -np.inf, np.nan)
        low = np.where(ax >= 0x3FF00000, below, np.where(ax < 0x3E200000, small, res))
        return np.where(hx < 0x3FDA827A, low, res)


def fdlibm_hypot(x, y) -> np.ndarray:
    """``FdLibm.Hypot`` (JDK 17's Java port of e_hypot.c): the larger and smaller magnitudes scaled into range,
    then ``sqrt(x*x + y*y)`` with the squares split in high and low halves."""
    x, y = np.broadcast_arrays(_f64(x), _f64(y))
    a0, b0 = np.abs(x), np.abs(y)
    a, b = np.maximum(a0, b0), np.minimum(a0, b0)
    with np.errstate(all="ignore"):
        ha, hb = _hi(a).astype(np.int64), _hi(b).astype(np.int64)
        k = np.zeros(a.shape, dtype=np.int64)
        big = a > _HYPOT_BIG  # ~2**500
        ha, hb = np.where(big, ha - 0x25800000, ha), np.where(big, hb - 0x25800000, hb)
        a, b = np.where(big, a * 2.0**-600, a), np.where(big, b * 2.0**-600, b)
        k = np.where(big, k + 600, k)
        small = b < 2.0**-500
        sub = small & (b < 2.2250738585072014e-308)
        up = small & ~sub
        a, b = np.where(sub, a * 2.0**1022, a), np.where(sub, b * 2.0**1022, b)
        k = np.where(sub, k - 1022, k)
        ha, hb = np.where(up, ha + 0x25800000, ha), np.where(up, hb + 0x25800000, hb)
        a, b = np.where(up, a * 2.0**600, a), np.where(up, b * 2.0**600, b)
        k = np.where(up, k - 600, k)
        w = a - b
        t1 = _from_hi(ha)
        t2 = a - t1
        far = np.sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)))
        a2 = a + a
        y1 = _from_hi(hb)
        y2 = b - y1
        t1 = _from_hi(ha + 0x00100000)
        t2 = a2 - t1
        close = np.sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)))
        w = np.where(w > b, far, close)
        res = np.where(k != 0, np.ldexp(1.0, k) * w, w)
        larger, smaller = np.maximum(a0, b0), np.minimum(a0, b0)
        res = np.where(sub & (b == 0.0), larger, res)
        far_apart = _hi(larger).astype(np.int64) - _hi(smaller).astype(np.int64) > 0x3C00000  # ratio > 2**60
        res = np.where(far_apart, larger + smaller, res)
        finite = np.isfinite(a0) & np.isfinite(b0)
        special = np.where((a0 == np.inf) | (b0 == np.inf), np.inf, a0 + b0)
        return np.where(finite, res, special)


def fdlibm_cbrt(x: np.ndarray) -> np.ndarray:
    """fdlibm's cbrt (Java's StrictMath.cbrt, which Math.cbrt calls): a 5-bit guess from the exponent bits, a
    rational step to 23 bits, a chop to 20 bits and one Newton step."""
    x = np.asarray(x, dtype=np.float64)
    bits = x.view(np.uint64)
    hi = (bits >> np.uint64(32)).astype(np.uint32)
    lo = (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    sign = hi & np.uint32(0x80000000)
    hx = hi ^ sign
    special = (hx >= 0x7FF00000) | ((hx | lo) == 0)
    ax = ((hx.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)).view(np.float64)
    subnormal = hx < 0x00100000
    with np.errstate(all="ignore"):
        scaled = ax * (np.uint64(0x43500000) << np.uint64(32)).view(np.float64)  # 2**54 * x
        scaled_hi = ((scaled.view(np.uint64) >> np.uint64(32)).astype(np.uint32) // 3 + np.uint32(696219795))
        t_sub = ((scaled_hi.astype(np.uint64) << np.uint64(32))
                 | (scaled.view(np.uint64) & np.uint64(0xFFFFFFFF))).view(np.float64)
        t_norm = ((hx // 3 + np.uint32(715094163)).astype(np.uint64) << np.uint64(32)).view(np.float64)
        t = np.where(subnormal, t_sub, t_norm)
        r = t * t / ax
        s = 5.42857142857142815906e-01 + r * t
        t = t * (3.57142857142857150787e-01 + 1.60714285714285720630e+00
                 / (s + 1.41428571428571436819e+00 + -7.05306122448979611050e-01 / s))
        t_hi = ((t.view(np.uint64) >> np.uint64(32)) + np.uint64(1)) << np.uint64(32)
        t = t_hi.view(np.float64)
        s = t * t
        r = ax / s
        w = t + t
        r = (r - t) / (w + r)
        t = t + t * r
        t = (t.view(np.uint64) | (sign.astype(np.uint64) << np.uint64(32))).view(np.float64)
        return np.where(special, np.where(hx >= 0x7FF00000, x + x, x), t)  # x + x: inf stays, no warning
