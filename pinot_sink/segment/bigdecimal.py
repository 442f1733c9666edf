"""Java ``BigDecimal`` as Pinot stores it: the rule lives in ``type_mapping.big_decimal_bytes`` (the ingestion's
``bigDecimalToBytes`` / ``bytesToBigDecimal`` use it too); re-exported here for the segment writers and readers."""
from __future__ import annotations

from type_mapping.big_decimal_bytes import SCALE_MAX, SCALE_MIN, BigDecimalError, byte_size, deserialize, serialize

__all__ = ["BigDecimalError", "SCALE_MIN", "SCALE_MAX", "byte_size", "serialize", "deserialize"]
