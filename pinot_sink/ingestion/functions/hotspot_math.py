"""``Math.exp``, ``Math.log`` and ``Math.log10`` as HotSpot computes them on x86_64: the stubs it generates
for these intrinsics (hotspot/cpu/x86/macroAssembler_x86_exp.cpp, _log.cpp, _log10.cpp: Intel's LIBM
algorithms), replayed in numpy: the same tables and constants (as bits), the same float64 operations in the
same order (SSE2 rounds each to nearest, as numpy does; no fused multiply-add), the same integer tricks on bit
patterns. So each rounding falls where the stub's does, and the result is Java's to the bit, which neither
numpy's libm nor fdlibm (StrictMath) gives on every input.

What this follows, precisely: Java 17's HotSpot on x86_64. The log stubs start from the CPU's ``rcpps``
reciprocal estimate, whose table is the vendor's own; the steps it gives are held here as measured on AMD EPYC
(Zen), so on an Intel CPU a Pinot may print another last bit for some inputs of ``ln`` / ``log2`` / ``log10``
(``exp`` uses no such instruction). aarch64 HotSpot has other stubs, and a JVM without these intrinsics uses
StrictMath (fdlibm): there the last bit may differ too. Checked against Java on this machine
(tests/fixtures/java17_math.txt, written by tools/java_math/math_fixture.py).
"""
from __future__ import annotations

import numpy as np

__all__ = ["hotspot_exp", "hotspot_log", "hotspot_log10"]


def _d(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def _pairs(words: list[int]) -> list[int]:
    """32-bit words (low, high) as 64-bit patterns, the way the stub's tables lay doubles out."""
    return [words[i] | (words[i + 1] << 32) for i in range(0, len(words), 2)]


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
_EXP_TABLE = np.array(_pairs([
    0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x0E03754D, 0x3CAD7BBF, 0x3E778060, 0x00002C9A,
    0x3567F613, 0x3C8CD252, 0xD3158574, 0x000059B0, 0x61E6C861, 0x3C60F74E, 0x18759BC8, 0x00008745,
    0x5D837B6C, 0x3C979AA6, 0x6CF9890F, 0x0000B558, 0x702F9CD1, 0x3C3EBE3D, 0x32D3D1A2, 0x0000E3EC,
    0x1E63BCD8, 0x3CA3516E, 0xD0125B50, 0x00011301, 0x26F0387B, 0x3CA4C554, 0xAEA92DDF, 0x0001429A,
    0x62523FB6, 0x3CA95153, 0x3C7D517A, 0x000172B8, 0x3F1353BF, 0x3C8B898C, 0xEB6FCB75, 0x0001A35B,
    0x3E3A2F5F, 0x3C9AECF7, 0x3168B9AA, 0x0001D487, 0x44A6C38D, 0x3C8A6F41, 0x88628CD6, 0x0002063B,
    0xE3A8A894, 0x3C968EFD, 0x6E756238, 0x0002387A, 0x981FE7F2, 0x3C80472B, 0x65E27CDD, 0x00026B45,
    0x6D09AB31, 0x3C82F7E1, 0xF51FDEE1, 0x00029E9D, 0x720C0AB3, 0x3C8B3782, 0xA6E4030B, 0x0002D285,
    0x4DB0ABB6, 0x3C834D75, 0x0A31B715, 0x000306FE, 0x5DD3F84A, 0x3C8FDD39, 0xB26416FF, 0x00033C08,
    0xCC187D29, 0x3CA12F8C, 0x373AA9CA, 0x000371A7, 0x738B5E8B, 0x3CA7D229, 0x34E59FF6, 0x0003A7DB,
    0xA72A4C6D, 0x3C859F48, 0x4C123422, 0x0003DEA6, 0x259D9205, 0x3CA8B846, 0x21F72E29, 0x0004160A,
    0x60C2AC12, 0x3C4363ED, 0x6061892D, 0x00044E08, 0xDAA10379, 0x3C6ECCE1, 0xB5C13CD0, 0x000486A2,
    0xBB7AAFB0, 0x3C7690CE, 0xD5362A27, 0x0004BFDA, 0x9B282A09, 0x3CA083CC, 0x769D2CA6, 0x0004F9B2,
    0xC1AAE707, 0x3CA509B0, 0x569D4F81, 0x0005342B, 0x18FDD78E, 0x3C933505, 0x36B527DA, 0x00056F47,
    0xE21C5409, 0x3C9063E1, 0xDD485429, 0x0005AB07, 0x2B64C035, 0x3C9432E6, 0x15AD2148, 0x0005E76F,
    0x99F08C0A, 0x3CA01284, 0xB03A5584, 0x0006247E, 0x0073DC06, 0x3C99F087, 0x82552224, 0x00066238,
    0x0DA05571, 0x3C998D4D, 0x667F3BCC, 0x0006A09E, 0x86CE4786, 0x3CA52BB9, 0x3C651A2E, 0x0006DFB2,
    0x206F0DAB, 0x3CA32092, 0xE8EC5F73, 0x00071F75, 0x8E17A7A6, 0x3CA06122, 0x564267C8, 0x00075FEB,
    0x461E9F86, 0x3CA244AC, 0x73EB0186, 0x0007A114, 0xABD66C55, 0x3C65EBE1, 0x36CF4E62, 0x0007E2F3,
    0xBBFF67D0, 0x3C96FE9F, 0x994CCE12, 0x00082589, 0x14C801DF, 0x3C951F14, 0x9B4492EC, 0x000868D9,
    0xC1F0EAB4, 0x3C8DB72F, 0x422AA0DB, 0x0008ACE5, 0x59F35F44, 0x3C7BF683, 0x99157736, 0x0008F1AE,
    0x9C06283C, 0x3CA360BA, 0xB0CDC5E4, 0x00093737, 0x20F962AA, 0x3C95E8D1, 0x9FDE4E4F, 0x00097D82,
    0x2B91CE27, 0x3C71AFFC, 0x82A3F090, 0x0009C491, 0x589A2EBD, 0x3C9B6D34, 0x7B5DE564, 0x000A0C66,
    0x9AB89880, 0x3C95277C, 0xB23E255C, 0x000A5503, 0x6E735AB3, 0x3C846984, 0x5579FDBF, 0x000A9E6B,
    0x92CB3387, 0x3C8C1A77, 0x995AD3AD, 0x000AE89F, 0xDC2D1D96, 0x3CA22466, 0xB84F15FA, 0x000B33A2,
    0xB19505AE, 0x3CA1112E, 0xF2FB5E46, 0x000B7F76, 0x0A5FDDCD, 0x3C74FFD7, 0x904BC1D2, 0x000BCC1E,
    0x30AF0CB3, 0x3C736EAE, 0xDD85529C, 0x000C199B, 0xD10959AC, 0x3C84E08F, 0x2E57D14B, 0x000C67F1,
    0x6C921968, 0x3C676B2C, 0xDCEF9069, 0x000CB720, 0x36DF99B3, 0x3C937009, 0x4A07897B, 0x000D072D,
    0xA63D07A7, 0x3C74A385, 0xDCFBA487, 0x000D5818, 0xD5C192AC, 0x3C8E5A50, 0x03DB3285, 0x000DA9E6,
    0x1C4A9792, 0x3C98BB73, 0x337B9B5E, 0x000DFC97, 0x603A88D3, 0x3C74B604, 0xE78B3FF6, 0x000E502E,
    0x92094926, 0x3C916F27, 0xA2A490D9, 0x000EA4AF, 0x41AA2008, 0x3C8EC3BC, 0xEE615A27, 0x000EFA1B,
    0x31D185EE, 0x3C8A64A9, 0x5B6E4540, 0x000F5076, 0x4D91CD9D, 0x3C77893B, 0x819E90D8, 0x000FA7C1,
]), dtype=np.uint64).reshape(64, 2)
_ONE = np.float64(1.0)
_U64 = np.uint64


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint64)


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
            t_lo = _EXP_TABLE[j, 0].view(np.float64)
            t_bits = _EXP_TABLE[j, 1] | exponent
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
_LOG10_TABLE = np.array(_pairs([
    0x509F7800, 0x3FD34413, 0x1F12B358, 0x3D1FEF31, 0x80333400, 0x3FD32418, 0xC671D9D0, 0xBCF542BF, 0x51195000, 0x3FD30442,
    0x78A4B0C3, 0x3D18216A, 0x6FC79400, 0x3FD2E490, 0x80FA389D, 0xBC902869, 0x89D04000, 0x3FD2C502, 0x75C2F564, 0x3D040754,
    0x4DDD1C00, 0x3FD2A598, 0xD219B2C3, 0xBCFA1D84, 0x6BAA7C00, 0x3FD28651, 0xFD9ABEC1, 0x3D1BE6D3, 0x94028800, 0x3FD2672D,
    0xE289A455, 0xBD1EDE5E, 0x78B86400, 0x3FD2482C, 0x6734D179, 0x3D1FE79B, 0xCCA3C800, 0x3FD2294D, 0x981A40B8, 0xBCED34EA,
    0x439C5000, 0x3FD20A91, 0xCC392737, 0xBD1A9CC3, 0x92752C00, 0x3FD1EBF6, 0x03C9AFE7, 0x3D1E98F8, 0x6EF8DC00, 0x3FD1CD7D,
    0x71DAE7F4, 0x3D08A86C, 0x8FE4DC00, 0x3FD1AF25, 0xEE9185A1, 0xBCFF3412, 0xACE59400, 0x3FD190EE, 0xC2CAB353, 0x3CF17ED9,
    0x7E925000, 0x3FD172D8, 0x6952C1B2, 0x3CF1521C, 0xBE694400, 0x3FD154E2, 0xCACB79CA, 0xBD0BDC78, 0x26CBAC00, 0x3FD1370D,
    0xF71F4DE1, 0xBD01F8BE, 0x72FA0800, 0x3FD11957, 0x55BF910B, 0x3C946E2B, 0x5F106000, 0x3FD0FBC1, 0x39E639C1, 0x3D14A84B,
    0xA802A800, 0x3FD0DE4A, 0xD3F31D5D, 0xBD178385, 0x0B992000, 0x3FD0C0F3, 0x3843106F, 0xBD1F602F, 0x486CE800, 0x3FD0A3BA,
    0x8819497C, 0x3CEF987A, 0x1DE49400, 0x3FD086A0, 0x1CAA0467, 0x3D0FAEC7, 0x4C30CC00, 0x3FD069A4, 0xA4424372, 0xBD1618FC,
    0x94490000, 0x3FD04CC6, 0x946517D2, 0xBD18384B, 0xB7E84000, 0x3FD03006, 0xE0109C37, 0xBD19A6AC, 0x798A0C00, 0x3FD01364,
    0x5121E864, 0xBD164CF7, 0x38CE8000, 0x3FCFEDBF, 0x46214D1A, 0xBCBBC402, 0xC8E62000, 0x3FCFB4EF, 0xDAB93203, 0x3D1E0176,
    0x2CB02800, 0x3FCF7C5A, 0x2A2EA8E4, 0xBCFEC86A, 0xEEEAA000, 0x3FCF43FD, 0xC18E49A4, 0x3CF110A8, 0x9BB6E800, 0x3FCF0BDA,
    0x923CC9C0, 0xBD15CE99, 0xC093F000, 0x3FCED3EF, 0x4D4B51E9, 0x3D1A04C7, 0xEC58F800, 0x3FCE9C3C, 0x163CAD59, 0x3CAC8260,
    0x9A907000, 0x3FCE2D7D, 0x3FA93646, 0x3CE4A1C0, 0x37311000, 0x3FCDBF99, 0x32ABD1FD, 0x3D07EA9D, 0x6744B800, 0x3FCD528C,
    0x4DCBDFD4, 0xBD1B08E2, 0xE36DE800, 0x3FCCE653, 0x0B7B7F7F, 0xBD1B8F03, 0x77506800, 0x3FCC7AEC, 0xA821C9FB, 0x3D13C163,
    0x00FF8800, 0x3FCC1053, 0x536BCA76, 0xBD074EE5, 0x70719800, 0x3FCBA684, 0xD7DA9B6B, 0xBD1FBF16, 0xC6F8D800, 0x3FCB3D7D,
    0xE2220BB3, 0x3D1A295D, 0x16C15800, 0x3FCAD53C, 0xE724911E, 0xBCF55822, 0x82533800, 0x3FCA6DBC, 0x6D982371, 0x3CAC567C,
    0x3C19E800, 0x3FCA06FC, 0x84D17D80, 0x3D1DA204, 0x85EF8000, 0x3FC9A0F8, 0x54466A6A, 0xBD002204, 0xB0AC2000, 0x3FC93BAE,
    0xD601FD65, 0x3D18840C, 0x1BB9B000, 0x3FC8D71C, 0x7BF58766, 0xBD14F897, 0x34AAE800, 0x3FC8733E, 0x3AF6AC24, 0xBD0F5C45,
    0x76D68000, 0x3FC81012, 0x4303E1A1, 0xBD1F9A80, 0x6AF57800, 0x3FC7AD96, 0x43FBCB46, 0x3CF4C33E, 0xA6C51000, 0x3FC74BC7,
    0x70F0EAC5, 0xBD192E3B, 0xCCAB9800, 0x3FC6EAA3, 0xC0093DFE, 0xBD0FAF15, 0x8B60B800, 0x3FC68A28, 0xDE78D5FD, 0xBC9EA4EE,
    0x9D987000, 0x3FC62A53, 0x962BEA6E, 0xBD194084, 0xC9B0E800, 0x3FC5CB22, 0x888DD999, 0x3D1FE201, 0xE1634800, 0x3FC56C93,
    0x16ADA7AD, 0x3D1B1188, 0xC176C000, 0x3FC50EA4, 0x4159B5B5, 0xBCF09C08, 0x51766000, 0x3FC4B153, 0x84393D23, 0xBCF6A89C,
    0x83695000, 0x3FC4549D, 0x9F0B8BBB, 0x3D1C4B8C, 0x538D5800, 0x3FC3F881, 0xF49DF747, 0x3CF89B99, 0xC8138000, 0x3FC39CFC,
    0xD503B834, 0xBD13B99F, 0xF0DF0800, 0x3FC3420D, 0xF011B386, 0xBD05D8BE, 0xE7466800, 0x3FC2E7B2, 0xF39C7BC2, 0xBD1BB94E,
    0xCDD62800, 0x3FC28DE9, 0x05E6D69B, 0xBD10ED05, 0xD015D800, 0x3FC234B0, 0xE29B6C9D, 0xBD1FF967, 0x224EA800, 0x3FC1DC06,
    0x727711FC, 0xBCFFB30D, 0x01540000, 0x3FC183E8, 0x39786C5A, 0x3CC23F57, 0xB24D9800, 0x3FC12C54, 0xC905A342, 0x3D003A1D,
    0x82835800, 0x3FC0D54A, 0x9B9920C0, 0x3D03B25A, 0xC72AC000, 0x3FC07EC7, 0x46F26A24, 0x3CF0FA41, 0xDD35D800, 0x3FC028CA,
    0x41D9D6DC, 0x3D034A65, 0x52474000, 0x3FBFA6A4, 0x44F66449, 0x3D19CAD3, 0x2DA3D000, 0x3FBEFCB8, 0x67832999, 0x3D18400F,
    0x32A10000, 0x3FBE53CE, 0x9C0E3B1A, 0xBCFF62FD, 0x556B7000, 0x3FBDABE3, 0x02976913, 0xBCF8243B, 0x97E88000, 0x3FBD04F4,
    0xEC793797, 0x3D1C0578, 0x09647000, 0x3FBC5EFF, 0x05FC0565, 0xBD1D799E, 0xC6426000, 0x3FBBB9FF, 0x4625F5ED, 0x3D1F5723,
    0xF7AFD000, 0x3FBB15F3, 0xDD5AAE61, 0xBD1A7E1E, 0xD358B000, 0x3FBA72D8, 0x3314E4D3, 0x3D17BC91, 0x9B1F5000, 0x3FB9D0AB,
    0x9A4D514B, 0x3CF18C9B, 0x9CD4E000, 0x3FB92F69, 0x7E4496AB, 0x3CF1F96D, 0x31F4F000, 0x3FB88F10, 0xF56479E7, 0x3D165818,
    0xBF628000, 0x3FB7EF9C, 0x26BF486D, 0xBD1113A6, 0xB526B000, 0x3FB7510C, 0x1A1C3384, 0x3CA9898D, 0x8E31E000, 0x3FB6B35D,
    0xB3875361, 0xBD0661AC, 0xD01DE000, 0x3FB6168C, 0x2A7CACFA, 0xBD1BDF10, 0x0AF23000, 0x3FB57A98, 0xFF868816, 0x3CF046D0,
    0xD8EA0000, 0x3FB4DF7C, 0x1515FBE7, 0xBD1FD529, 0xDE3B2000, 0x3FB44538, 0x6E59A132, 0x3D1FAEEE, 0xC8DF9000, 0x3FB3ABC9,
    0xF1322361, 0xBD198807, 0x505F1000, 0x3FB3132D, 0x0888E6AB, 0x3D1E5380, 0x359BD000, 0x3FB27B61, 0xDFBCBB22, 0xBCFE2724,
    0x429EE000, 0x3FB1E463, 0x6EB4C58C, 0xBCFE4DD6, 0x4A673000, 0x3FB14E31, 0x4CE1AC9B, 0x3D1BA691, 0x28B96000, 0x3FB0B8C9,
    0x8C7813B8, 0xBD0B3872, 0xC1F08000, 0x3FB02428, 0xC2BC8C2C, 0x3CB5EA6B, 0x05A1A000, 0x3FAF209C, 0x72E8F18E, 0xBCE8DF84,
    0xC0B5E000, 0x3FADFA6D, 0x9FDEF436, 0x3D087364, 0xAF416000, 0x3FACD5C2, 0x1068C3A9, 0x3D0827E7, 0xDB356000, 0x3FABB296,
    0x120A34D3, 0x3D101A9F, 0x5DFEA000, 0x3FAA90E6, 0xDADED264, 0xBD14C392, 0x6034C000, 0x3FA970AD, 0x1C9D06A9, 0xBD1B705E,
    0x194C6000, 0x3FA851E8, 0x83996AD9, 0xBD0117BC, 0xCF4AC000, 0x3FA73492, 0xB1A94A62, 0xBCA5EA42, 0xD67B4000, 0x3FA618A9,
    0x75AED8CA, 0xBD07119B, 0x9126C000, 0x3FA4FE29, 0x5291D533, 0x3D12658F, 0x6F4D4000, 0x3FA3E50E, 0xCD2C5CD9, 0x3D1D5C70,
    0xEE608000, 0x3FA2CD54, 0xD1008489, 0x3D1A4802, 0x9900E000, 0x3FA1B6F9, 0x54FB5598, 0xBD16593F, 0x06BB6000, 0x3FA0A1F9,
    0x64EF57B4, 0xBD17636B, 0xB7940000, 0x3F9F1C9F, 0xEE6A4737, 0x3CB5D479, 0x91AA0000, 0x3F9CF7F5, 0x3A16373C, 0x3D087114,
    0x156B8000, 0x3F9AD5ED, 0x836C554A, 0x3C6900B0, 0xD4764000, 0x3F98B67F, 0xED12F17B, 0xBCFFC974, 0x77DEC000, 0x3F9699A7,
    0x232CE7EA, 0x3D1E35BB, 0xBFBF4000, 0x3F947F5D, 0xD84FFA6E, 0x3D0E0A49, 0x82C7C000, 0x3F92679C, 0x8D170E90, 0xBD14D9F2,
    0xADD20000, 0x3F90525D, 0x86D9F88E, 0x3CDEB986, 0x86F10000, 0x3F8C7F36, 0xB9E0A517, 0x3CE29FAA, 0xB75C8000, 0x3F885E9E,
    0x542568CB, 0xBD1F7BDB, 0x46B30000, 0x3F8442E8, 0xB954E7D9, 0x3D1E5287, 0xB7E60000, 0x3F802C07, 0x22DA0B17, 0xBD19FB27,
    0x6C8B0000, 0x3F7833E3, 0x821271EF, 0xBD190F96, 0x29910000, 0x3F701936, 0xBC3491A5, 0xBD1BCF45, 0x354A0000, 0x3F600FE3,
    0xC0FF520A, 0xBD19D71C, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
]), dtype=np.uint64).reshape(-1, 2)
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
_LOG10_B_STEPS = np.array([
    0, 9, 28, 47, 66, 85, 104, 124, 143, 163, 183, 204, 224, 245, 265, 287, 307, 329, 351, 373, 395, 417, 440, 462,
    485, 508, 531, 555, 579, 603, 628, 653, 678, 703, 729, 754, 780, 806, 832, 860, 886, 914, 942, 970, 998, 1027,
    1056, 1086, 1115, 1145, 1176, 1206, 1237, 1269, 1301, 1333, 1366, 1398, 1432, 1466, 1500, 1534, 1570, 1605, 1642,
    1678, 1715, 1752, 1789, 1827, 1867, 1906, 1946, 1987, 2028, 2070, 2111, 2153, 2197, 2241, 2285, 2330, 2377, 2422,
    2470, 2518, 2567, 2615, 2664, 2715, 2767, 2819, 2873, 2927, 2980, 3021, 3050, 3077, 3107, 3135, 3165, 3194, 3223,
    3251, 3282, 3312, 3341, 3373, 3404, 3436, 3466, 3498, 3530, 3562, 3593, 3625, 3659, 3693, 3727, 3759, 3794, 3828,
    3863, 3897, 3933, 3970, 4004, 4041, 4077,
], dtype=np.int64)


def _log10_core(x: np.ndarray, k16: np.ndarray) -> np.ndarray:
    """The stub's main path for positive normal ``x`` (``k16``: 16 times its binary exponent, as the stub
    keeps it)."""
    xb = _bits(x)
    mantissa = xb & _U64(0x000FFFFFFFFFFFFF)
    steps = np.searchsorted(_LOG10_B_STEPS, (mantissa >> _U64(40)).astype(np.int64), side="right") - 1
    b_float_bits = (_U64(0x3EDE0000) - (steps.astype(np.uint64) << _U64(16)))
    b = ((b_float_bits << _U64(29)) & _U64(0xFFFFE00000000000)).view(np.float64)
    entry = ((b_float_bits >> _U64(16)) & _U64(0xFF)).astype(np.int64) - 94
    t_hi = _LOG10_TABLE[entry, 0].view(np.float64)
    t_lo = _LOG10_TABLE[entry, 1].view(np.float64)
    m = (mantissa | _U64(0x77F0000000000000)).view(np.float64)  # the mantissa times 2**896
    m_hi = (_bits(m) & _U64(0xFFFFFFFFF8000000)).view(np.float64)
    m_lo = m - m_hi
    k = k16.astype(np.float64)
    r = m_lo * b + (m_hi * b - _LOG10_LH)  # the reduced argument, B * mantissa - LH
    c0, c1, c2, c3, c4, c5 = _LOG10_C
    a = t_hi + _LOG10_2_HI * k
    r2 = r * r
    lane0 = (c2 * r + c4) * r + (c0 * r) * r2
    lane1 = (c3 * r + c5) + c1 * r2
    head = a + r
    tail = r + (a - head)
    tail = tail + _LOG10_LH_LO * r
    tail = tail + (k * _LOG10_2_LO + t_lo)
    tail = tail + lane0 * (r2 * r2)
    tail = tail + lane1 * r2
    return head + tail


def hotspot_log10(x: np.ndarray) -> np.ndarray:
    """``Math.log10`` on x86_64 HotSpot (StubRoutines::dlog10)."""
    return _log_like(x, _log10_core)


# --- log -------------------------------------------------------------------------------------------------
# -log(B) (high part with trailing zeros, low part), indexed by B's float bits (macroAssembler_x86_log.cpp)
_LOG_TABLE = np.array(_pairs([
    0xFEFA3800, 0x3FE62E42, 0x93C76730, 0x3D2EF357, 0xAA241800, 0x3FE5EE82, 0x0CDA46BE, 0x3D220238, 0x5C364800, 0x3FE5AF40,
    0xAC10C9FB, 0x3D2DFA63, 0x26BB8C00, 0x3FE5707A, 0xFF3303DD, 0x3D09980B, 0x26867800, 0x3FE5322E, 0x5D257531, 0x3D05CCC4,
    0x835A5000, 0x3FE4F45A, 0x6D93B8FB, 0xBD2E6C51, 0x6F970C00, 0x3FE4B6FD, 0xED4C541C, 0x3CEF7115, 0x27E8A400, 0x3FE47A15,
    0xF94D60AA, 0xBD22CB6A, 0xF2F92400, 0x3FE43D9F, 0x481051F7, 0xBCFD984F, 0x2125CC00, 0x3FE4019C, 0x30F0C74C, 0xBD26CE79,
    0x0C36C000, 0x3FE3C608, 0x7CFE13C2, 0xBD02B736, 0x17197800, 0x3FE38AE2, 0xBB5569A4, 0xBD218B7A, 0xAD9D8C00, 0x3FE35028,
    0x9527E6AC, 0x3D10B83F, 0x44340800, 0x3FE315DA, 0xC5A0ED9C, 0xBD274E93, 0x57B0E000, 0x3FE2DBF5, 0x07B9DC11, 0xBD17A6E5,
    0x6D0EC000, 0x3FE2A278, 0xE797882D, 0x3D206D2B, 0x1134DC00, 0x3FE26962, 0x05226250, 0xBD0B61F1, 0xD8BEBC00, 0x3FE230B0,
    0x6E48667B, 0x3D12FC06, 0x5FC61800, 0x3FE1F863, 0xC9FE81D3, 0xBD2A7242, 0x49AE6000, 0x3FE1C078, 0xED70E667, 0x3CCCACDE,
    0x40F23C00, 0x3FE188EE, 0xF8AB4650, 0x3D14CC4E, 0xF6F29800, 0x3FE151C3, 0xA293AE49, 0xBD2EDD97, 0x23C75C00, 0x3FE11AF8,
    0xBB9DDCB2, 0xBD258647, 0x8611CC00, 0x3FE0E489, 0x07801742, 0x3D1C2998, 0xE2D05400, 0x3FE0AE76, 0x887E7E27, 0x3D1F486B,
    0x0533C400, 0x3FE078BF, 0x41EDF5FD, 0x3D268122, 0xBE760400, 0x3FE04360, 0xE79539E0, 0xBD04C45F, 0xE5B20800, 0x3FE00E5A,
    0xB1727B1C, 0xBD053BA3, 0xAF7A4800, 0x3FDFB358, 0x3C164935, 0x3D0085FA, 0xEE031800, 0x3FDF4AA7, 0x6F014A8B, 0x3D12CDE5,
    0x56B41000, 0x3FDEE2A1, 0x5A470251, 0x3D2F27F4, 0xC3DDB000, 0x3FDE7B42, 0x5372BD08, 0xBD246550, 0x1A272800, 0x3FDE148A,
    0x07322938, 0xBD1326B2, 0x484C9800, 0x3FDDAE75, 0x60DC616A, 0xBD1EA42D, 0x46DEF800, 0x3FDD4902, 0xE9A767A8, 0x3D235BAF,
    0x18064800, 0x3FDCE42F, 0x3EC7A6B0, 0xBD0797C3, 0xC7455800, 0x3FDC7FF9, 0xC15249AE, 0xBD29B6DD, 0x693FA000, 0x3FDC1C60,
    0x7FE8E180, 0x3D2CEC80, 0x1B80E000, 0x3FDBB961, 0xF40A666D, 0x3D27D85B, 0x04462800, 0x3FDB56FA, 0x2D841995, 0x3D109525,
    0x5248D000, 0x3FDAF529, 0x52774458, 0xBD217CC5, 0x3C8AD800, 0x3FDA93ED, 0xBEA77A5D, 0x3D1E36F2, 0x0224F800, 0x3FDA3344,
    0x7F9D79F5, 0x3D23C645, 0xEA15F000, 0x3FD9D32B, 0x10D0C0B0, 0xBD26279E, 0x43135800, 0x3FD973A3, 0xA502D9F0, 0xBD152313,
    0x635BF800, 0x3FD914A8, 0x2EE6307D, 0xBD1766B5, 0xA88B3000, 0x3FD8B639, 0xE5E70470, 0xBD205AE1, 0x776DC800, 0x3FD85855,
    0x3333778A, 0x3D2FD56F, 0x3BD81800, 0x3FD7FAFA, 0xC812566A, 0xBD272090, 0x687CF800, 0x3FD79E26, 0x2EFD1778, 0x3D29EC7D,
    0x76C67800, 0x3FD741D8, 0x49DC60B3, 0x3D2D8B09, 0xE6AF1800, 0x3FD6E60E, 0x7C222D87, 0x3D172165, 0x3E9C6800, 0x3FD68AC8,
    0x2756EBA0, 0x3D20A0D3, 0x0B3AB000, 0x3FD63003, 0xE731AE00, 0xBD2DB623, 0xDF596000, 0x3FD5D5BD, 0x08A465DC, 0xBD0A0B2A,
    0x53C8D000, 0x3FD57BF7, 0xEE5D40EF, 0x3D1FADED, 0x0738A000, 0x3FD522AE, 0x8164C759, 0x3D2EBE70, 0x9E173000, 0x3FD4C9E0,
    0x1B0AD8A4, 0xBD2E2089, 0xC271C800, 0x3FD4718D, 0x0967D675, 0xBD2F27CE, 0x23D5E800, 0x3FD419B4, 0xEC90E09D, 0x3D08E436,
    0x77333000, 0x3FD3C252, 0xB606BD5C, 0x3D183B54, 0x76BE1000, 0x3FD36B67, 0xB0F177C8, 0x3D116ECD, 0xE1D36000, 0x3FD314F1,
    0xD3213CB8, 0xBD28E27A, 0x7CDC9000, 0x3FD2BEF0, 0x4A5004F4, 0x3D2A9CFA, 0x1134D800, 0x3FD26962, 0xDF5BB3B6, 0x3D2C93C1,
    0x6D0EB800, 0x3FD21445, 0xBA46BAEA, 0x3D0A87DE, 0x635A6800, 0x3FD1BF99, 0x5147BDB7, 0x3D2CA6ED, 0xCBACF800, 0x3FD16B5C,
    0xF7A51681, 0x3D2B9ACD, 0x8227E800, 0x3FD1178E, 0x63A5F01C, 0xBD2C210E, 0x67616000, 0x3FD0C42D, 0x163CEAE9, 0x3D27188B,
    0x604D5800, 0x3FD07138, 0x16ED4E91, 0x3CF89CDB, 0x5626C800, 0x3FD01EAE, 0x1485E94A, 0xBD16F08C, 0x6CB3B000, 0x3FCF991C,
    0xCA0CDF30, 0x3D1BCBEC, 0xE4DD0000, 0x3FCEF5AD, 0x65BB8E11, 0xBCCA2115, 0xFFE71000, 0x3FCE530E, 0x6041F430, 0x3CC21227,
    0xB0D49000, 0x3FCDB13D, 0xF715B035, 0xBD2AFF2A, 0xF2656000, 0x3FCD1037, 0x75B6F6E4, 0xBD084A7E, 0xC6F01000, 0x3FCC6FFB,
    0xC5962BD2, 0xBCF1EC72, 0x383BE000, 0x3FCBD087, 0x595412B6, 0xBD2D4BC4, 0x575BD000, 0x3FCB31D8, 0x4EACE1AA, 0xBD0C358D,
    0x3C8AE000, 0x3FCA93ED, 0x50562169, 0xBD287243, 0x07089000, 0x3FC9F6C4, 0x6865817A, 0x3D29904D, 0xDCF70000, 0x3FC95A5A,
    0x58A0FF6F, 0x3D07F228, 0xEB390000, 0x3FC8BEAF, 0xAAE92CD1, 0xBD073D54, 0x6551A000, 0x3FC823C1, 0x9A631E83, 0x3D1E0DDB,
    0x85445000, 0x3FC7898D, 0x70914305, 0xBD1C6610, 0x8B757000, 0x3FC6F012, 0xE59C21E1, 0xBD25118D, 0xBE8C1000, 0x3FC6574E,
    0x2C3C2E78, 0x3D19CF8B, 0x6B544000, 0x3FC5BF40, 0xEB68981C, 0xBD127023, 0xE4A1B000, 0x3FC527E5, 0xE5697DC7, 0x3D2633E8,
    0x8333B000, 0x3FC4913D, 0x54FDB678, 0x3D258379, 0xA5993000, 0x3FC3FB45, 0x7E6A354D, 0xBD2CD1D8, 0xB0159000, 0x3FC365FC,
    0x234B7289, 0x3CC62FA8, 0x0C868000, 0x3FC2D161, 0xCB81B4A1, 0x3D039D6C, 0x2A49C000, 0x3FC23D71, 0x8FD3DF5C, 0x3D100D23,
    0x7E23F000, 0x3FC1AA2B, 0x44389934, 0x3D2CA78E, 0x8227E000, 0x3FC1178E, 0xCE2D07F2, 0x3D21EF78, 0xB59E4000, 0x3FC08598,
    0x7009902C, 0xBD27E5DD, 0x39DBE000, 0x3FBFE891, 0x4FA10AFD, 0xBD2534D6, 0x830A2000, 0x3FBEC739, 0xAFE645E0, 0xBD2DC068,
    0x63844000, 0x3FBDA727, 0x1FA71733, 0x3D1A8940, 0x01BC4000, 0x3FBC8858, 0xC65AACD3, 0x3D2646D1, 0x8DAD6000, 0x3FBB6AC8,
    0x2BF768E5, 0xBD139080, 0x40B1C000, 0x3FBA4E76, 0xB94407C8, 0xBD0E42B6, 0x5D594000, 0x3FB9335E, 0x3ABD47DA, 0x3D23115C,
    0x2F40E000, 0x3FB8197E, 0xF96FFDF7, 0x3D0F80DC, 0x0AEAC000, 0x3FB700D3, 0xA99DED32, 0x3CEC1E8D, 0x4D97A000, 0x3FB5E95A,
    0x3C5D1D1E, 0xBD2C6906, 0x5D208000, 0x3FB4D311, 0x82F4E1EF, 0xBCF53A25, 0xA7D1E000, 0x3FB3BDF5, 0xA5DB4ED7, 0x3D2CC85E,
    0xA4472000, 0x3FB2AA04, 0xAE9C697D, 0xBD20B6E8, 0xD1466000, 0x3FB1973B, 0x560D9E9B, 0xBD25325D, 0xB59E4000, 0x3FB08598,
    0x7009902C, 0xBD17E5DD, 0xC006C000, 0x3FAEEA31, 0x4FC93B7B, 0xBD0E113E, 0xCDDDC000, 0x3FACCB73, 0x47D82807, 0xBD1A68F2,
    0xD0FB0000, 0x3FAAAEF2, 0x353BB42E, 0x3D20FC1A, 0x149FC000, 0x3FA894AA, 0xD05A267D, 0xBD197995, 0xF2D4C000, 0x3FA67C94,
    0xEC19AFA2, 0xBD029EFB, 0xD42E0000, 0x3FA466AE, 0x75BDFD28, 0xBD2C1673, 0x2F8D0000, 0x3FA252F3, 0xE021B67B, 0x3D283E9A,
    0x89E74000, 0x3FA0415D, 0x5CF1D753, 0x3D0111C0, 0xEC148000, 0x3F9C63D2, 0x3F9EB2F3, 0x3D2578C6, 0x28C90000, 0x3F984925,
    0x325A0C34, 0xBD2AA0BA, 0x25980000, 0x3F9432A9, 0x928637FE, 0x3D098139, 0x58938000, 0x3F902056, 0x06E2F7D2, 0xBD23DC5B,
    0xA3890000, 0x3F882448, 0xDA74F640, 0xBD275577, 0x75890000, 0x3F801015, 0x999D2BE8, 0xBD10C76B, 0x59580000, 0x3F700805,
    0xCB31C67B, 0x3D2166AF, 0x00000000, 0x00000000, 0x00000000, 0x80000000,
]), dtype=np.uint64).reshape(-1, 2)
_LOG_2_HI = _d(0x3FA62E42FEFA3800)  # ln(2) / 16, high and low
_LOG_2_LO = _d(0x3CEEF35793C76730)
_LOG_C = tuple(_d(b) for b in (0x3FC2492492492492, 0xBFD0000000000000, 0xBFC5555E3D6FB175, 0x3FD5555555555555,
                                0x3FC999999999999A, 0xBFE0000000000000))
# log's B is rcpps of the mantissa itself rounded to 7 bits (no scaling): its steps, measured as above
_LOG_B_STEPS = np.array([
    0, 8, 24, 41, 57, 74, 91, 107, 124, 141, 158, 175, 193, 211, 229, 246, 264, 283, 301, 320, 338, 357, 376, 395,
    414, 434, 454, 473, 493, 513, 534, 555, 575, 596, 617, 639, 660, 682, 703, 726, 748, 770, 793, 816, 839, 863,
    886, 910, 934, 958, 982, 1007, 1032, 1057, 1083, 1109, 1134, 1161, 1187, 1214, 1241, 1269, 1296, 1324, 1352,
    1380, 1409, 1438, 1468, 1497, 1527, 1557, 1588, 1619, 1650, 1682, 1714, 1747, 1779, 1812, 1845, 1880, 1914,
    1948, 1983, 2019, 2055, 2091, 2128, 2165, 2203, 2241, 2279, 2318, 2357, 2398, 2438, 2479, 2521, 2562, 2605,
    2648, 2692, 2736, 2780, 2826, 2873, 2919, 2966, 3014, 3062, 3112, 3162, 3211, 3263, 3315, 3368, 3421, 3475,
    3532, 3586, 3643, 3702, 3759, 3819, 3879, 3940, 4002, 4066,
], dtype=np.int64)


def _log_core(x: np.ndarray, k16: np.ndarray) -> np.ndarray:
    """The log stub's main path for positive normal ``x``."""
    mantissa = _bits(x) & _U64(0x000FFFFFFFFFFFFF)
    steps = np.searchsorted(_LOG_B_STEPS, (mantissa >> _U64(40)).astype(np.int64), side="right") - 1
    b_float_bits = _U64(0x3F800000) - (steps.astype(np.uint64) << _U64(16))
    b = ((b_float_bits << _U64(29)) & _U64(0xFFFFE00000000000)).view(np.float64)
    entry = ((b_float_bits >> _U64(16)) & _U64(0xFF)).astype(np.int64)
    t_hi = _LOG_TABLE[entry, 0].view(np.float64)
    t_lo = _LOG_TABLE[entry, 1].view(np.float64)
    m = (mantissa | _U64(0x77F0000000000000)).view(np.float64)
    m_hi = (_bits(m) & _U64(0xFFFFE00000000000)).view(np.float64)
    m_lo = m - m_hi
    k = k16.astype(np.float64)
    r = m_lo * b + (m_hi * b - _ONE)
    c0, c1, c2, c3, c4, c5 = _LOG_C
    a = t_hi + _LOG_2_HI * k
    r2 = r * r
    lane0 = (c2 * r + c4) * r + (c0 * r) * r2
    lane1 = (c3 * r + c5) + c1 * r2
    head = a + r
    tail = r + (a - head)
    tail = tail + (k * _LOG_2_LO + t_lo)
    tail = tail + lane0 * (r2 * r2)
    tail = tail + lane1 * r2
    return head + tail


def hotspot_log(x: np.ndarray) -> np.ndarray:
    """``Math.log`` on x86_64 HotSpot (StubRoutines::dlog)."""
    return _log_like(x, _log_core)


def _log_like(x: np.ndarray, core) -> np.ndarray:
    """The special cases log and log10's stubs share: subnormals scaled by 2**128 first, +-0 to -Infinity,
    negatives and -Infinity to NaN, +Infinity and NaN as they are."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    word = (_bits(x) >> _U64(48)).astype(np.int64)
    with np.errstate(all="ignore"):
        normal = (word >= 16) & (word < 0x7FF0)
        if normal.any():
            out[normal] = core(x[normal], (((word[normal] - 16) & 0x7FF0) - 0x3FE0))
        subnormal = (word < 16) & (x != 0)
        if subnormal.any():
            scaled = x[subnormal] * _d(0x47F0000000000000)
            out[subnormal] = core(scaled, ((_bits(scaled) >> _U64(48)).astype(np.int64) & 0x7FF0) - 0x47F0)
        out[x == 0] = -np.inf
        out[(word >= 0x7FF0) & ~(x == 0)] = np.nan
        out[x == np.inf] = np.inf
        nan = np.isnan(x)
        out[nan] = x[nan] + x[nan]
    return out
