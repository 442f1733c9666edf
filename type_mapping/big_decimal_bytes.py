"""Java ``BigDecimal`` as Pinot stores it (one home: the segment files and the ingestion functions
``bigDecimalToBytes`` / ``bytesToBigDecimal``); its text forms are ``type_mapping.java_text``'s.

Pinot keeps a BIG_DECIMAL as scale + unscaled integer (``BigDecimalUtils.serialize``): a 2-byte big-endian
scale followed by ``BigInteger.toByteArray()`` of the unscaled value (big-endian two's complement, minimal
length, at least one byte). Dictionaries and raw forward indexes hold exactly these bytes.
"""
from __future__ import annotations

from type_mapping.java_text import BigDecimalError, BigDecimalLike, big_decimal_parts

SCALE_MIN, SCALE_MAX = -(2**15), 2**15 - 1  # the scale travels as a signed 16-bit short

__all__ = ["BigDecimalError", "SCALE_MIN", "SCALE_MAX", "byte_size", "serialize", "deserialize"]


def byte_size(value: BigDecimalLike) -> int:
    """``BigDecimalUtils.byteSize``: length of the serialised value (the stats' element length)."""
    unscaled, _ = big_decimal_parts(value)
    return _java_bit_length(unscaled) // 8 + 3


def _java_bit_length(unscaled: int) -> int:
    """``BigInteger.bitLength``: bits of the two's complement form, sign bit excluded."""
    return (~unscaled).bit_length() if unscaled < 0 else unscaled.bit_length()


def serialize(value: BigDecimalLike) -> bytes:
    """``BigDecimalUtils.serialize``: scale as a big-endian short, then the minimal two's complement."""
    unscaled, scale = big_decimal_parts(value)
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
