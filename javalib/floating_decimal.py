"""Java 17's ``Double.toString`` / ``Float.toString``: ``FloatingDecimal``'s ``dtoa`` and ``getChars``, step by step.

Pinot's JVM is Java 17, whose digits are not always the shortest that read back (JDK-4511638, fixed in 19):
``1.0E23`` prints ``9.999999999999999E22``, ``2.0E-3`` keeps a digit too many in places. This module follows
the JDK 17 algorithm's structure and every decision in it, so that its quirks come out the same:

* whole numbers with no fraction bits and below 2**63 (``developLongDigits``): the number's digits with the
  "insignificant" low ones (as many as 2**(binExp - significant bits - 1) has digits beyond its first)
  rounded half up;
* otherwise an estimate of the decimal exponent (a double computation, reproduced with the same operations)
  and digit generation by B / S with M half an ulp: in Java ``int`` arithmetic when every number fits 32 bits,
  ``long`` when 64, else ``FDBigInteger`` (Python ints here: exact, which FDBigInteger is too). The int and
  long paths wrap as Java's do and stop with ``b + m > 10s``; the big-number path stops with ``>=``;
* at least two digits in E notation, the tie rule (round up an odd last digit), ``roundup``'s carry (which
  keeps the digit count: ``9.5`` rounds to ``10`` as ``1.0``), and the layout (plain for 1e-3 <= |v| < 1e7).

The facts come from the JDK 17 source (jdk.internal.math.FloatingDecimal, FDBigInteger); the expectations
are Java's own output (tests/type_mapping/test_floating_decimal.py).
"""
from __future__ import annotations

import math
import struct
from decimal import Decimal

import numpy as np

__all__ = ["java17_double_string", "java17_float_string", "java17_whole_number_string"]

# approximately ceil(log2(5**i)), i < 27 (FloatingDecimal.N_5_BITS); its length bounds the fast path too
_N_5_BITS = (0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61)
# the number of digits of 2**p beyond its first, as Java's table has it (its last entry is one too many, but
# no double reaches it)
_INSIGNIFICANT_DIGITS_POW2 = (0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8,
                              8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15,
                              15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19)
_LONG_5_POW_COUNT = 27  # FDBigInteger.LONG_5_POW holds 5**0 .. 5**26
_EXP_SHIFT = 52  # fraction bits of a double; a float's are shifted up to this position
_MAX_SMALL_BIN_EXP, _MIN_SMALL_BIN_EXP = 62, -(63 // 3)


def _wrap32(x: int) -> int:
    """Java ``int`` overflow."""
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


def _wrap64(x: int) -> int:
    """Java ``long`` overflow."""
    x &= 0xFFFFFFFFFFFFFFFF
    return x - 0x10000000000000000 if x & 0x8000000000000000 else x


def _java_div(a: int, b: int) -> int:
    """Java's ``/``: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    """floor(log10(value)) estimated as Java does, in doubles: log10(d2) ~ (d2 - 1.5) * 0.289529654 +
    0.176091259 for the significand d2 in [1, 2), plus binExp * log10(2) (the same operations, so the same
    roundings; the estimate may be one too high, which digit generation corrects)."""
    d2 = struct.unpack("<d", struct.pack("<Q", (1023 << _EXP_SHIFT) | (fract_bits & ((1 << _EXP_SHIFT) - 1))))[0]
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _develop_long_digits(value: int, insignificant: int) -> tuple[list[str], int]:
    """``developLongDigits``: the digits of a whole number (trailing zeros dropped), the low
    ``insignificant`` ones rounded off half up; returns (digits, decimal exponent)."""
    dec_exponent = 0
    if insignificant:
        pow10 = 10**insignificant
        value, residue = divmod(value, pow10)
        dec_exponent = insignificant
        if residue >= pow10 >> 1:
            value += 1
    text = str(value)
    return list(text.rstrip("0")), dec_exponent + len(text)


def _dtoa(bin_exp: int, fract_bits: int, n_significant_bits: int) -> tuple[list[str], int]:
    """``BinaryToASCIIBuffer.dtoa`` (compatible format): ``fract_bits`` has its high bit at bit 52 and the
    value is fract_bits * 2**(bin_exp - 52); returns (digits, decExponent) with value ~ 0.digits * 10**decExponent."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = _EXP_SHIFT + 1 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)  # significant bits right of the binary point
    if _MIN_SMALL_BIN_EXP <= bin_exp <= _MAX_SMALL_BIN_EXP:
        if n_tiny_bits < _LONG_5_POW_COUNT and n_fract_bits + _N_5_BITS[n_tiny_bits] < 64 and n_tiny_bits == 0:
            insignificant = 0
            if bin_exp > n_significant_bits:
                p2 = bin_exp - n_significant_bits - 1
                insignificant = _INSIGNIFICANT_DIGITS_POW2[p2] if 1 < p2 < len(_INSIGNIFICANT_DIGITS_POW2) else 0
            if bin_exp >= _EXP_SHIFT:
                fract_bits <<= bin_exp - _EXP_SHIFT
            else:
                fract_bits >>= _EXP_SHIFT - bin_exp
            return _develop_long_digits(fract_bits, insignificant)
    # value = (B / S) * 10**decExp, M half an ulp scaled like B; powers of 2 and 5 kept apart
    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5 = b5
    m2 = b2 - n_significant_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common2 = min(b2, s2)
    b2 -= common2
    s2 -= common2
    m2 -= common2
    if n_fract_bits == 1:  # Java's "HACK" for exact powers of two: the next number down is half as far
        m2 -= 1
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0
    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    digits: list[str] = []
    if b_bits < 64 and ten_s_bits < 64:
        # Java int (both below 32 bits) or long arithmetic, wrapping where Java's would
        wrap, shift_mask = (_wrap32, 31) if b_bits < 32 and ten_s_bits < 32 else (_wrap64, 63)
        b = wrap(wrap(wrap(fract_bits) * 5**b5) << (b2 & shift_mask))
        s = wrap(5**s5 << (s2 & shift_mask))
        m = wrap(5**m5 << (m2 & shift_mask))
        tens = wrap(s * 10)
        q = _java_div(b, s)
        b = wrap(10 * (b - q * s))
        m = wrap(m * 10)
        low = b < m
        high = wrap(b + m) > tens
        if q == 0 and not high:
            dec_exp -= 1  # the estimate was one too high: drop the leading zero
        else:
            digits.append(chr(48 + q))
        if dec_exp < -3 or dec_exp >= 8:  # E notation needs a digit after the point
            high = low = False
        top = 1 << (31 if wrap is _wrap32 else 63)
        while not low and not high:
            if b >= 0 and s > 0:  # (always, in practice: Python's divmod is Java's / and % then)
                q, b = divmod(b, s)
            else:
                q = _java_div(b, s)
                b -= q * s
            b *= 10
            m *= 10
            if not -top <= b < top:  # wrap only where Java's arithmetic would overflow
                b = wrap(b)
            if not -top <= m < top:
                m = wrap(m)
            if m > 0:
                low = b < m
                total = b + m
                high = (total if -top <= total < top else wrap(total)) > tens
            else:  # m overflowed: Java takes both as true
                low = high = True
            digits.append(chr(48 + q))
        low_digit_difference = wrap((b << 1) - tens)
    else:
        big_s = 5**s5 << s2
        big_b = fract_bits * 5**b5 << b2
        big_m = 5**(m5 + 1) << (m2 + 1)  # 10 M
        ten_s = 5**(s5 + 1) << (s2 + 1)  # 10 S
        q, big_b = divmod(big_b, big_s)
        big_b *= 10
        low = big_b < big_m
        high = big_b + big_m >= ten_s
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(chr(48 + q))
        if dec_exp < -3 or dec_exp >= 8:
            high = low = False
        while not low and not high:
            q, big_b = divmod(big_b, big_s)
            big_b *= 10
            big_m *= 10
            low = big_b < big_m
            high = big_b + big_m >= ten_s
            digits.append(chr(48 + q))
        low_digit_difference = ((big_b << 1) > ten_s) - ((big_b << 1) < ten_s) if high and low else 0
    dec_exponent = dec_exp + 1
    if high:
        if not low or low_digit_difference > 0 or (low_digit_difference == 0 and ord(digits[-1]) & 1):
            dec_exponent = _roundup(digits, dec_exponent)
    return digits, dec_exponent


def _roundup(digits: list[str], dec_exponent: int) -> int:
    """``roundup``: add one to the last digit; a carry out of the first makes it ``1`` and the exponent one
    more (the other digits stay, zeros)."""
    i = len(digits) - 1
    q = digits[i]
    if q == "9":
        while q == "9" and i > 0:
            digits[i] = "0"
            i -= 1
            q = digits[i]
        if q == "9":
            digits[0] = "1"
            return dec_exponent + 1
    digits[i] = chr(ord(q) + 1)
    return dec_exponent


def _java_layout(negative: bool, digits: list[str], dec_exponent: int) -> str:
    """``getChars``: plain for decExponent in 1..7 and -2..0, else d.dddEn (at least one digit after the point)."""
    sign = "-" if negative else ""
    n = len(digits)
    text = "".join(digits)
    if 0 < dec_exponent < 8:
        if n < dec_exponent:
            return f"{sign}{text}{'0' * (dec_exponent - n)}.0"
        return f"{sign}{text[:dec_exponent]}.{text[dec_exponent:] or '0'}"
    if -3 < dec_exponent <= 0:
        return f"{sign}0.{'0' * -dec_exponent}{text}"
    exponent = f"-{-dec_exponent + 1}" if dec_exponent <= 0 else str(dec_exponent - 1)
    return f"{sign}{text[0]}.{text[1:] or '0'}E{exponent}"


def java17_double_string(value: float) -> str:
    """``Double.toString(value)`` as Java 17 prints it."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    negative = bool(bits >> 63)
    fract_bits = bits & ((1 << 52) - 1)
    bin_exp = (bits >> 52) & 0x7FF
    if bin_exp == 0x7FF:
        return "NaN" if fract_bits else ("-Infinity" if negative else "Infinity")
    if bin_exp == 0:
        if fract_bits == 0:
            return "-0.0" if negative else "0.0"
        leading_zeros = 64 - fract_bits.bit_length()
        shift = leading_zeros - (63 - _EXP_SHIFT)
        fract_bits <<= shift
        bin_exp = 1 - shift
        n_significant_bits = 64 - leading_zeros
    else:
        fract_bits |= 1 << _EXP_SHIFT
        n_significant_bits = _EXP_SHIFT + 1
    digits, dec_exponent = _dtoa(bin_exp - 1023, fract_bits, n_significant_bits)
    return _java_layout(negative, digits, dec_exponent)


def java17_float_string(value: float) -> str:
    """``Float.toString(value)`` as Java 17 prints it (``value`` a float32, or a double rounded to one)."""
    bits = int(np.float32(value).view(np.uint32))
    negative = bool(bits >> 31)
    fract_bits = bits & 0x7FFFFF
    bin_exp = (bits >> 23) & 0xFF
    if bin_exp == 0xFF:
        return "NaN" if fract_bits else ("-Infinity" if negative else "Infinity")
    if bin_exp == 0:
        if fract_bits == 0:
            return "-0.0" if negative else "0.0"
        leading_zeros = 32 - fract_bits.bit_length()
        shift = leading_zeros - (31 - 23)
        fract_bits <<= shift
        bin_exp = 1 - shift
        n_significant_bits = 32 - leading_zeros
    else:
        fract_bits |= 1 << 23
        n_significant_bits = 24
    digits, dec_exponent = _dtoa(bin_exp - 127, fract_bits << (_EXP_SHIFT - 23), n_significant_bits)
    return _java_layout(negative, digits, dec_exponent)


def java17_whole_number_string(value: float, float32: bool = False) -> str:
    """``Double.toString`` (``Float.toString``) of a whole number with 1 <= |value| < 2**63: the path ``dtoa``
    takes for every value with no fraction bits and a binary exponent up to 62 (``developLongDigits``),
    without unpacking the bits (the same digits as ``java17_double_string`` / ``java17_float_string``)."""
    whole = int(abs(value))
    bin_exp = whole.bit_length() - 1
    n_significant_bits = 24 if float32 else 53
    insignificant = 0
    if bin_exp > n_significant_bits:
        p2 = bin_exp - n_significant_bits - 1
        insignificant = _INSIGNIFICANT_DIGITS_POW2[p2] if 1 < p2 < len(_INSIGNIFICANT_DIGITS_POW2) else 0
    digits, dec_exponent = _develop_long_digits(whole, insignificant)
    return _java_layout(value < 0, digits, dec_exponent)


# --- Double.toString / Float.toString ------------------------------------------------------------


def java_float_str(value: float, float32: bool = False) -> str:
    """``Double.toString`` (or ``Float.toString`` with ``float32``) as Java 17, Pinot's JVM, prints it: its
    ``FloatingDecimal`` digits (above), which are not always the shortest that read
    back (``1.0E23`` is ``9.999999999999999E22``; JDK-4511638, changed in Java 19). Python's shortest repr is
    taken where it provably gives the same digits (``_shortest_is_java17``), the port elsewhere."""
    value = float(np.float32(value)) if float32 else float(value)
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7 and math.frexp(magnitude)[0] != 0.5:
        # Java's plain form, and Python's shortest repr: the same digits (see _shortest_is_java17: a double
        # there is normal, below 2**53, and may have one digit)
        if not float32:
            return repr(value)
        shortest = str(np.float32(value))  # numpy may print E notation here ("1e+06")
        if "e" not in shortest:
            digits = len(shortest.lstrip("-").replace(".", "").strip("0"))
            if digits <= 7 or _clear_of_ties(*math.frexp(magnitude), digits, True):
                return shortest
            return java17_float_string(value)
    elif 1e7 <= magnitude < 2.0**63 and value.is_integer():
        return java17_whole_number_string(value, float32)
    shortest = _shortest_is_java17(value, float32)
    if shortest is not None:
        return shortest
    return java17_float_string(value) if float32 else java17_double_string(value)


_MIN_NORMAL = {False: 2.2250738585072014e-308, True: 1.1754943508222875e-38}
_SIGNIFICANT_BITS = {False: 53, True: 24}
# the most digits the shortest repr may have for Java 17 to print the same (see _shortest_is_java17)
_MAX_SAFE_DIGITS = {False: 17, True: 7}  # beyond (or large): _clear_of_ties


def _shortest_is_java17(value: float, float32: bool) -> str | None:
    """Java's text for ``value`` from Python's shortest repr, or None where Java 17 may print other digits.

    Java 17 generates the exact value's digits until the number so far, or it plus one in the last place, is
    within M, half an ulp, and takes the nearer of the two (a tie: an odd last digit rounds up, as David Gay's
    dtoa behind repr and numpy's Dragon4 do): the shortest digits that read back, unless (a) a candidate lies
    at exactly M, where Java's tests (``<``; ``<=`` or ``<``) and reading back (round half even) disagree;
    (b) M differs below and above (a power of two; Java takes the narrower on both sides); (c) one digit would
    do in E notation (Java wants two), or the value is a whole number from 2**53 up (``developLongDigits``
    rounds digits off). For a normal value below 2**53 (2**24 for a float) a candidate at exactly M,
    (2m +- 1) * 2**(e-1), is no whole number and its digits are 5**q * (2m +- 1), 17 or more (8 or more); at
    17 digits a double always has a candidate strictly within M (an ulp is above a unit of the 17th digit),
    so the boundary cannot change where Java stops nor which it takes. A float may need 9 digits: up to 7 it
    is clear, at 8 or 9 ``_clear_of_ties`` checks exactly. So: normal, below 2**53 (2**24), not a power of
    two, two or more digits unless plain (1e-3 <= |value| < 1e7), and for a float of 8 or 9 digits clear of
    ties. Checked against the port and Java 17 (tests/type_mapping/test_floating_decimal.py)."""
    magnitude = abs(value)
    if not _MIN_NORMAL[float32] <= magnitude < 2.0 ** _SIGNIFICANT_BITS[float32]:
        return None  # (above, Java 17 may take the farther of two 17-digit candidates: 2.4996964836998022E25)
    fraction, exponent = math.frexp(magnitude)
    if fraction == 0.5:  # a power of two
        return None
    shortest = str(np.float32(value)) if float32 else repr(value)
    body, _, _ = shortest.partition("e")
    digits = len(body.lstrip("-").replace(".", "").strip("0"))
    plain = 1e-3 <= magnitude < 1e7
    if digits == 1 and not plain:
        return None
    if digits > _MAX_SAFE_DIGITS[float32] and not _clear_of_ties(fraction, exponent, digits, float32):
        return None
    if plain and "e" not in shortest:
        return shortest  # Python's shortest repr is already Java's plain form here ("0.25", "100.0")
    return java_float_from_shortest(value, shortest)


def _clear_of_ties(fraction: float, exponent: int, digits: int, float32: bool) -> bool:
    """For a float of 8 or 9 shortest digits (``math.frexp``'s parts; and a double, where a candidate at exactly
    half an ulp may be a short whole number, 1.0E23): True when no number of up to 8 digits (16 for a double)
    lies at exactly half an ulp, (2m -+ 1) * 2**(e-1), and the exact value m * 2**e is no decimal of
    ``digits`` + 1 digits (a tie between the two candidates). At 17 digits (9) a candidate always lies
    strictly within half an ulp, so a boundary there changes nothing. Exact, in integers."""
    bits = _SIGNIFICANT_BITS[float32]
    m, e = int(fraction * (1 << bits)), exponent - bits
    if _dyadic_digits(m, e) <= digits + 1:
        return False
    limit = 8 if float32 else 16
    return _dyadic_digits(2 * m - 1, e - 1) > limit and _dyadic_digits(2 * m + 1, e - 1) > limit


def _dyadic_digits(n: int, e: int) -> int:
    """The significant decimal digits of n * 2**e, exactly (2**-q is 5**q / 10**q)."""
    return len(str(n << e if e >= 0 else n * 5**-e).strip("0"))


def java_float_from_shortest(value: float, shortest: str) -> str:
    """Java's layout of the shortest decimal digits ``shortest`` (any Python float notation) of ``value``."""
    sign, digit_tuple, exponent = Decimal(shortest).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent += len("".join(map(str, digit_tuple))) - len(digits)
    point = len(digits) + exponent  # digits before the decimal point
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{prefix}{digits}{'0' * (point - len(digits))}.0"
        return f"{prefix}{digits[:point]}.{digits[point:]}"
    return f"{prefix}{digits[0]}.{digits[1:] or '0'}E{point - 1}"
