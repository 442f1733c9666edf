"""Java's text rules, in one place: how Java prints numbers and how it orders and cuts strings.

Pinot writes values as Java prints them (metadata min/max, bloom filter and partition inputs, names,
JSON) and orders strings as Java compares them, so every copy of these rules in this package must agree
with Java's, and with each other: they live here, on the ground floor, and everything else calls them.

* ``Double.toString`` / ``Float.toString`` (Java 17's digits): ``java_float_str``; ``Object.toString``
  of a value: ``java_object_string``;
* ``BigDecimal``: ``new BigDecimal(String)`` parsing, ``toString``, ``toPlainString``,
  ``stripTrailingZeros`` (``parse_big_decimal``, ``big_decimal_string``, ``big_decimal_plain_string``);
* ``String``: ``compareTo`` order and ``length()`` in UTF-16 code units, ``substring`` on code units;
* ``Long.parseLong(text, radix)`` with ``Character.digit``'s digits: ``java_parse_long``.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
# Double.toString / Float.toString live with their port (javalib.floating_decimal); named here too, as the one
# door to Java's text rules for the floors above
from javalib.floating_decimal import java_float_from_shortest, java_float_str  # noqa: F401

from .errors import PinotSinkError


def java_object_string(value: object) -> str:
    """``Object.toString()`` of the Java value a Python value stands for: Boolean, Integer/Long, Float (a
    numpy float32) / Double, BigDecimal (a ``Decimal``), bytes as Pinot prints them (lower-case hex)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return java_float_str(float(value), float32=isinstance(value, np.float32))
    if isinstance(value, Decimal):
        return big_decimal_string(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


# --- BigDecimal ------------------------------------------------------------------------------------
# A BigDecimal is (unscaled, scale): value = unscaled * 10**-scale. Java has no negative zero, and
# equals() (hence Pinot's dictionary) tells 1.0 from 1.00: the pair, not the number, is the value.

BigDecimalLike = Union[str, Decimal, "tuple[int, int]"]

_JAVA_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class BigDecimalError(PinotSinkError, ValueError):
    """A value that is not a BigDecimal Java would accept."""


def parse_big_decimal(text: str) -> tuple[int, int]:
    """``new BigDecimal(text)`` as ``(unscaled, scale)``: Java's grammar only, so text Java would reject
    (spaces, ``NaN``, ``1_000``) is rejected here too."""
    if not isinstance(text, str) or not _JAVA_DECIMAL.fullmatch(text):
        raise BigDecimalError(f"{text!r} is not a decimal number Java's BigDecimal accepts")
    mantissa, _, exponent = text.lower().partition("e")
    integer_part, _, fraction = mantissa.partition(".")
    unscaled = int((integer_part.lstrip("+-") + fraction) or "0")
    if mantissa.startswith("-"):
        unscaled = -unscaled
    return unscaled, len(fraction) - (int(exponent) if exponent else 0)


def to_decimal(unscaled: int, scale: int) -> Decimal:
    """Exact (no context rounding): built from the digit tuple."""
    return Decimal((1 if unscaled < 0 else 0, tuple(int(d) for d in str(abs(unscaled))), -scale))


def from_decimal(value: Decimal) -> tuple[int, int]:
    """A Python ``Decimal`` as ``(unscaled, scale)``; NaN and infinities have no Java counterpart."""
    if not value.is_finite():
        raise BigDecimalError(f"{value} cannot be a Java BigDecimal")
    sign, digits, exponent = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0")
    return (-unscaled if sign else unscaled), -int(exponent)


def big_decimal_parts(value: BigDecimalLike) -> tuple[int, int]:
    """``(unscaled, scale)`` of a Java text, a ``Decimal`` or a pair."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, Decimal):
        return from_decimal(value)
    return parse_big_decimal(value)


def strip_trailing_zeros(unscaled: int, scale: int) -> tuple[int, int]:
    """``BigDecimal.stripTrailingZeros``: zero becomes ``BigDecimal.ZERO`` (scale 0)."""
    if unscaled == 0:
        return 0, 0
    digits = str(abs(unscaled))
    zeros = len(digits) - len(digits.rstrip("0"))
    return (unscaled // 10**zeros if zeros else unscaled), scale - zeros


def big_decimal_string(value: BigDecimalLike, strip: bool = False) -> str:
    """``BigDecimal.toString`` (of ``stripTrailingZeros()`` with ``strip``): plain unless the scale is
    negative or the adjusted exponent is below -6."""
    unscaled, scale = big_decimal_parts(value)
    if strip:
        unscaled, scale = strip_trailing_zeros(unscaled, scale)
    digits = str(abs(unscaled))
    sign = "-" if unscaled < 0 else ""
    adjusted = len(digits) - 1 - scale
    if scale == 0:
        return sign + digits
    if scale > 0 and adjusted >= -6:
        return sign + _insert_point(digits, scale)
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}E{'+' if adjusted >= 0 else ''}{adjusted}"


def big_decimal_plain_string(value: BigDecimalLike) -> str:
    """``BigDecimal.toPlainString``: never scientific; a zero with negative scale prints ``0``."""
    unscaled, scale = big_decimal_parts(value)
    if scale <= 0:
        return "0" if unscaled == 0 else str(unscaled) + "0" * -scale
    sign = "-" if unscaled < 0 else ""
    return sign + _insert_point(str(abs(unscaled)), scale)


def _insert_point(digits: str, scale: int) -> str:
    if len(digits) > scale:
        return f"{digits[:-scale]}.{digits[-scale:]}"
    return "0." + "0" * (scale - len(digits)) + digits


_NEEDS_EXPONENT = r"^-?0\.0{6}|E"  # adjusted exponent < -6 (or already E notation)
_INTEGER_TRAILING_ZEROS = r"^-?[1-9][0-9]*0$"  # stripping makes the scale negative: E notation


def big_decimal_text_array(text: pa.Array, strip: bool) -> pa.Array:
    """``big_decimal_string`` over decimal texts as Arrow prints decimals and integers (which spell like
    ``BigDecimal.toString`` at the column's scale), vectorised: only rows in (or needing) E notation, or
    with a negative zero, go through Python."""
    if strip:
        text = pc.replace_substring_regex(text, r"^(-?[0-9]+\.[0-9]*?)0+$", r"\1")
        text = pc.replace_substring_regex(text, r"\.$", "")
        text = pc.replace_substring_regex(text, r"^-0$", "0")
        special = pc.or_(pc.match_substring_regex(text, _INTEGER_TRAILING_ZEROS),
                         pc.match_substring_regex(text, _NEEDS_EXPONENT))
    else:
        special = pc.match_substring_regex(text, _NEEDS_EXPONENT)
    if not pc.any(special).as_py():
        return text
    rows = np.flatnonzero(pc.fill_null(special, False).to_numpy(zero_copy_only=False))
    values = text.to_pylist()
    for i in rows:
        values[i] = big_decimal_string(from_decimal(Decimal(values[i])), strip)
    return pa.array(values, pa.string())


# --- String: UTF-16 code units ----------------------------------------------------------------------


def java_sort_key(text: str) -> bytes:
    """``String.compareTo`` order: UTF-16 code units compared as unsigned numbers (big-endian bytes sort
    the same way). It differs from code point order only for characters above U+FFFF against
    U+E000..U+FFFF."""
    return text.encode("utf-16-be", "surrogatepass")


def java_length(text: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def java_code_units(text: str) -> np.ndarray:
    """The string's UTF-16 code units (``String.charAt`` values), as uint16."""
    return np.frombuffer(java_sort_key(text), dtype=">u2").astype(np.uint16)


def utf8_needs_java_order(utf8: np.ndarray) -> bool:
    """True if UTF-8 bytes (Arrow's string data) hold a character above U+FFFF (a lead byte >= 0xF0),
    the only case where byte order, which Arrow sorts by, differs from ``String.compareTo``."""
    return bool(utf8.size) and int(utf8.max()) >= 0xF0


def java_substring(text: str, units: int) -> str:
    """``text.substring(0, units)`` in UTF-16 code units, then encoded as Java encodes to UTF-8: a
    surrogate pair cut in half leaves a lone high surrogate, which becomes ``?``."""
    out, used = [], 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > units:
            if used < units:  # half a pair fits
                out.append("?")
            break
        out.append(ch)
        used += width
    return "".join(out)


# --- Long.parseLong ------------------------------------------------------------------------------------


def _java_digit(ch: str, radix: int) -> int:
    """``Character.digit(char, radix)``: a BMP decimal digit of any script, or an ASCII / fullwidth Latin
    letter (a = 10); -1 when none or not below ``radix``."""
    cp = ord(ch)
    if cp > 0xFFFF:  # parseLong reads chars: half of a surrogate pair is no digit
        return -1
    value = unicodedata.decimal(ch, -1)
    if value < 0:
        for first_upper, first_lower in ((0x41, 0x61), (0xFF21, 0xFF41)):
            if first_upper <= cp < first_upper + 26 or first_lower <= cp < first_lower + 26:
                value = cp - (first_upper if cp < first_upper + 26 else first_lower) + 10
    return value if 0 <= value < radix else -1


def java_parse_long(text: str, radix: int = 10) -> int:
    """``Long.parseLong(text, radix)``: an optional sign then ``Character.digit`` digits, within the long
    range; ``ValueError`` where Java throws NumberFormatException."""
    body = text[1:] if text[:1] in ("+", "-") else text
    digits = [_java_digit(ch, radix) for ch in body]
    if not digits or min(digits) < 0:
        raise ValueError(f'For input string: "{text}"' + ("" if radix == 10 else f" under radix {radix}"))
    value = 0
    for digit in digits:
        value = value * radix + digit
    value = -value if text[:1] == "-" else value
    if not -(2**63) <= value < 2**63:
        raise ValueError(f'For input string: "{text}"' + ("" if radix == 10 else f" under radix {radix}"))
    return value
