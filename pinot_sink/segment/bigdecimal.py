"""Java ``BigDecimal`` as Pinot stores and prints it.

Pinot keeps a BIG_DECIMAL as scale + unscaled integer (``BigDecimalUtils.serialize``): a 2-byte big-endian
scale followed by ``BigInteger.toByteArray()`` of the unscaled value (big-endian two's complement, minimal
length, at least one byte). Dictionaries and raw forward indexes hold exactly these bytes.

Text forms: ``BigDecimal.toString`` (scientific notation when the exponent is positive or the adjusted
exponent is below -6; used by bloom filters and ``minValue``/``maxValue``) and ``toPlainString`` (never
scientific; used by partition functions and ``defaultNullValue``). Parsing accepts Java's
``new BigDecimal(String)`` grammar only, so text Java would reject is rejected here too.
"""
from __future__ import annotations

import re
from decimal import Decimal

SCALE_MIN, SCALE_MAX = -(2**15), 2**15 - 1  # the scale travels as a signed 16-bit short

_JAVA_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class BigDecimalError(ValueError):
    """A value that is not a BIG_DECIMAL Pinot can store."""


def parse_big_decimal(text: str) -> tuple[int, int]:
    """``new BigDecimal(text)`` as ``(unscaled, scale)``; value = unscaled * 10**-scale."""
    if not isinstance(text, str) or not _JAVA_DECIMAL.fullmatch(text):
        raise BigDecimalError(f"{text!r} is not a decimal number Java's BigDecimal accepts")
    mantissa, _, exponent = text.lower().partition("e")
    integer_part, _, fraction = mantissa.partition(".")
    digits = (integer_part.lstrip("+-") + fraction) or "0"
    unscaled = int(digits)
    if mantissa.startswith("-"):
        unscaled = -unscaled
    scale = len(fraction) - (int(exponent) if exponent else 0)
    return unscaled, scale


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


def _as_parts(value: str | Decimal | tuple[int, int]) -> tuple[int, int]:
    if isinstance(value, tuple):
        return value
    if isinstance(value, Decimal):
        return from_decimal(value)
    return parse_big_decimal(value)


def byte_size(value: str | Decimal | tuple[int, int]) -> int:
    """``BigDecimalUtils.byteSize``: length of the serialised value (the stats' element length)."""
    unscaled, _ = _as_parts(value)
    return _java_bit_length(unscaled) // 8 + 3


def _java_bit_length(unscaled: int) -> int:
    """``BigInteger.bitLength``: bits of the two's complement form, sign bit excluded."""
    return (~unscaled).bit_length() if unscaled < 0 else unscaled.bit_length()


def serialize(value: str | Decimal | tuple[int, int]) -> bytes:
    """``BigDecimalUtils.serialize``: scale as a big-endian short, then the minimal two's complement."""
    unscaled, scale = _as_parts(value)
    if not SCALE_MIN <= scale <= SCALE_MAX:
        raise BigDecimalError(f"scale {scale} does not fit the 2-byte scale Pinot stores")
    length = _java_bit_length(unscaled) // 8 + 1
    return scale.to_bytes(2, "big", signed=True) + unscaled.to_bytes(length, "big", signed=True)


def deserialize(data: bytes | memoryview) -> tuple[int, int]:
    """``BigDecimalUtils.deserialize`` as ``(unscaled, scale)``."""
    data = bytes(data)
    if len(data) < 3:
        raise BigDecimalError(f"{data.hex()} is too short for a serialised BigDecimal")
    return int.from_bytes(data[2:], "big", signed=True), int.from_bytes(data[:2], "big", signed=True)


def to_java_string(value: str | Decimal | tuple[int, int]) -> str:
    """``BigDecimal.toString``: plain unless scale < 0 or the adjusted exponent is below -6."""
    unscaled, scale = _as_parts(value)
    digits = str(abs(unscaled))
    sign = "-" if unscaled < 0 else ""
    adjusted = len(digits) - 1 - scale
    if scale == 0:
        return sign + digits
    if scale > 0 and adjusted >= -6:
        return sign + _insert_point(digits, scale)
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}E{'+' if adjusted >= 0 else ''}{adjusted}"


def to_plain_string(value: str | Decimal | tuple[int, int]) -> str:
    """``BigDecimal.toPlainString``: never scientific; a zero with negative scale prints ``0``."""
    unscaled, scale = _as_parts(value)
    if scale <= 0:
        return "0" if unscaled == 0 else str(unscaled) + "0" * -scale
    sign = "-" if unscaled < 0 else ""
    return sign + _insert_point(str(abs(unscaled)), scale)


def _insert_point(digits: str, scale: int) -> str:
    if len(digits) > scale:
        return f"{digits[:-scale]}.{digits[-scale:]}"
    return "0." + "0" * (scale - len(digits)) + digits
