"""Pinot's star-tree value aggregators (``ValueAggregatorFactory``), with the values' stored forms.

Each aggregator turns the raw values of its column (as the segment stores them: int, float, str, BIG_DECIMAL
text, bytes; a list for a multi-value row) into an aggregated value, merges aggregated values, and writes them
as Pinot does: LONG (COUNT, COUNTMV), DOUBLE (SUM, SUMMV, MIN, MAX) or BYTES (AVG / AVGMV as ``AvgPair``,
MINMAXRANGE as ``MinMaxRangePair``, SUMPRECISION as ``BigDecimalUtils.serialize``, DISTINCTCOUNTBITMAP as a
portable RoaringBitmap, DISTINCTCOUNTHLL as stream-lib's ``HyperLogLog.getBytes()``).

Aggregated values are treated as immutable here (every operation returns a new value), which is what Pinot's
off-heap builder amounts to: it serialises each record when it appends it and reads back a fresh copy.
"""
from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from type_mapping.java_text import big_decimal_parts, java_code_units, java_float_str

from .. import bigdecimal
from . import hll
from type_mapping.errors import PinotSinkError

LONG, DOUBLE, BYTES = "LONG", "DOUBLE", "BYTES"


class UnsupportedAggregation(PinotSinkError, ValueError):
    """A function this builder cannot compute with Pinot's bytes; the message says why."""


def java_min(a: float, b: float) -> float:
    """``Math.min``: NaN wins, -0.0 is below 0.0."""
    if a != a:
        return a
    if b != b:
        return b
    if a == 0.0 and b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return a if a <= b else b


def java_max(a: float, b: float) -> float:
    if a != a:
        return a
    if b != b:
        return b
    if a == 0.0 and b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return a if a >= b else b


def to_double(value: Any, stored: str) -> float:
    """``ValueAggregatorUtils.toDouble``: numbers widen, anything else goes through ``Double.parseDouble``."""
    if stored in ("INT", "LONG", "FLOAT", "DOUBLE"):
        return float(value)
    if stored == "BIG_DECIMAL":
        unscaled, scale = big_decimal_parts(value)
        return float(unscaled) if scale == 0 else float(_decimal_text(unscaled, scale))
    if stored == "STRING":
        try:
            return float(value.strip())
        except ValueError:
            raise UnsupportedAggregation(f"value {value!r} is not a number") from None
    raise UnsupportedAggregation(f"a {stored} value cannot be aggregated as a number")


def _exact_in_any_order(values: np.ndarray) -> bool:
    """Whole numbers whose total stays below 2^53 add up to the same double in any order."""
    with np.errstate(invalid="ignore"):
        return bool(np.isfinite(values).all() and (values == np.round(values)).all()
                    and float(np.abs(values).sum()) < 2.0**53)


def _decimal_text(unscaled: int, scale: int) -> str:
    return f"{unscaled}e{-scale}"


ONE_PER_DOC = None  # an initial block's part that is 1 for every doc: no column of ones is made or reordered


class ValueAggregator:
    """One function over one column's raw values (``stored``: the column's stored type; ``single_value``)."""

    name = ""
    value_type = DOUBLE
    kind = "object"  # how ``tree.MetricColumn`` stores the values: long, double, avg, range or object
    order_sensitive = False  # does merging in another order change the bytes (DOUBLE sums)?

    def __init__(self, stored: str = "LONG", single_value: bool = True, params: dict | None = None):
        self.stored = stored
        self.single_value = single_value
        self.params = params or {}

    def initial(self, raw):
        raise NotImplementedError

    def apply_raw(self, value, raw):
        return self.merge(value, self.initial(raw))

    def merge(self, value, other):
        raise NotImplementedError

    def serialize(self, value) -> bytes:
        raise NotImplementedError

    def max_byte_size(self) -> int:
        return 8

    def initial_block(self, numeric: np.ndarray | None, raw: list | None, num_docs: int):
        """Every doc's initial value as a ``MetricColumn`` block: arrays for the numpy kinds (from the
        column's float64 values when it is a single-value number column), else the raw values themselves
        (the tree applies ``initial`` / ``apply_raw`` to them in Pinot's order)."""
        if self.kind == "object":
            return raw
        if self.name == "count" or (numeric is not None and self.single_value):
            vals = numeric
            # ONE_PER_DOC: each doc counts once (a count, an average's count); the tree reads it as its runs' sizes
            block = {"long": [ONE_PER_DOC], "double": [vals], "avg": [vals, ONE_PER_DOC],
                     "range": [vals, vals]}[self.kind]
        else:
            values = [self.initial(r) for r in (raw if raw is not None else [None] * num_docs)]
            if self.kind == "long":
                block = [np.array(values, dtype=np.int64)]
            elif self.kind == "double":
                block = [np.array(values, dtype=np.float64)]
            else:
                pairs = np.array(values, dtype=np.float64).reshape(-1, 2)
                block = [pairs[:, 0].copy(), pairs[:, 1].astype(np.int64) if self.kind == "avg" else pairs[:, 1].copy()]
        if self.kind in ("double", "avg") and self.name not in ("min", "max"):
            self.order_sensitive = not _exact_in_any_order(block[0])
        return block

    def numbers(self, raw) -> list[float]:
        values = raw if isinstance(raw, (list, tuple)) else [raw]
        return [to_double(v, self.stored) for v in values]


class Count(ValueAggregator):
    name, value_type, kind = "count", LONG, "long"

    def initial(self, raw):
        return 1

    def apply_raw(self, value, raw):
        return value + 1

    def merge(self, value, other):
        return value + other


class CountMV(Count):
    name = "countMV"

    def initial(self, raw):
        return len(raw) if isinstance(raw, (list, tuple)) else 1

    def apply_raw(self, value, raw):
        return value + self.initial(raw)


class Sum(ValueAggregator):
    name, value_type, kind = "sum", DOUBLE, "double"

    def initial(self, raw):
        if isinstance(raw, (list, tuple)):
            total = 0.0
            for v in raw:
                total += to_double(v, self.stored)
            return total
        return to_double(raw, self.stored)

    def apply_raw(self, value, raw):
        return value + self.initial(raw)

    def merge(self, value, other):
        return value + other


class SumMV(Sum):
    name = "sumMV"


class Min(ValueAggregator):
    name, value_type, kind = "min", DOUBLE, "double"

    def initial(self, raw):
        out = math.inf
        if isinstance(raw, (list, tuple)):
            for v in self.numbers(raw):
                out = java_min(out, v)
            return out
        return to_double(raw, self.stored)

    def merge(self, value, other):
        return java_min(value, other)


class Max(ValueAggregator):
    name, value_type, kind = "max", DOUBLE, "double"

    def initial(self, raw):
        out = -math.inf
        if isinstance(raw, (list, tuple)):
            for v in self.numbers(raw):
                out = java_max(out, v)
            return out
        return to_double(raw, self.stored)

    def merge(self, value, other):
        return java_max(value, other)


class Avg(ValueAggregator):
    """``AvgPair`` (sum DOUBLE, count LONG), 16 bytes big-endian."""

    name, value_type, kind = "avg", BYTES, "avg"

    def initial(self, raw):
        if self.stored == "BYTES" and not isinstance(raw, (list, tuple)):
            return struct.unpack(">dq", bytes.fromhex(raw) if isinstance(raw, str) else raw)
        if isinstance(raw, (list, tuple)):
            total = 0.0
            for v in raw:
                total += to_double(v, self.stored)
            return (total, len(raw))
        return (to_double(raw, self.stored), 1)

    def merge(self, value, other):
        return (value[0] + other[0], value[1] + other[1])

    def serialize(self, value) -> bytes:
        return struct.pack(">dq", value[0], value[1])

    def max_byte_size(self) -> int:
        return 16


class AvgMV(Avg):
    name = "avgMV"


class MinMaxRange(ValueAggregator):
    """``MinMaxRangePair`` (min, max as DOUBLE), 16 bytes big-endian."""

    name, value_type, kind = "minMaxRange", BYTES, "range"

    def initial(self, raw):
        if self.stored == "BYTES" and not isinstance(raw, (list, tuple)):
            return struct.unpack(">dd", bytes.fromhex(raw) if isinstance(raw, str) else raw)
        if isinstance(raw, (list, tuple)):
            low, high = math.inf, -math.inf
            for v in self.numbers(raw):
                low, high = java_min(low, v), java_max(high, v)
            return (low, high)
        v = to_double(raw, self.stored)
        return (v, v)

    def merge(self, value, other):
        return (java_min(value[0], other[0]), java_max(value[1], other[1]))

    def serialize(self, value) -> bytes:
        return struct.pack(">dd", value[0], value[1])

    def max_byte_size(self) -> int:
        return 16


class SumPrecision(ValueAggregator):
    """Exact BigDecimal sum as (unscaled, scale); ``maxByteSize`` tracked over every intermediate sum, as the
    Java aggregator does (it sizes the var-byte chunks), unless a ``precision`` parameter fixes it."""

    name, value_type = "sumPrecision", BYTES

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        precision = self.params.get("precision")
        self.fixed_size = -1 if precision is None else _byte_size_for_precision(int(precision))
        self._max = 0

    def _track(self, value):
        if self.fixed_size < 0:
            self._max = max(self._max, _bd_byte_size(value))
        return value

    def _parse(self, raw):
        if self.stored in ("INT", "LONG"):
            return (int(raw), 0)
        if self.stored == "BYTES":
            return bigdecimal.deserialize(bytes.fromhex(raw) if isinstance(raw, str) else raw)
        if self.stored == "FLOAT":
            return big_decimal_parts(java_float_str(raw, float32=True))
        if self.stored == "DOUBLE":
            return big_decimal_parts(java_float_str(raw))
        if isinstance(raw, (list, tuple)):
            raise UnsupportedAggregation("SUMPRECISION over a multi-value column")
        return big_decimal_parts(str(raw))

    def initial(self, raw):
        return self._track(self._parse(raw))

    def apply_raw(self, value, raw):
        return self._track(_bd_add(value, self._parse(raw)))

    def merge(self, value, other):
        return self._track(_bd_add(value, other))

    def serialize(self, value) -> bytes:
        data = bigdecimal.serialize(value)
        if self.fixed_size > 0:
            if len(data) > self.fixed_size:
                raise UnsupportedAggregation(f"a sum needs {len(data)} bytes, more than the precision allows")
            # BigDecimalUtils.serializeWithSize: the unscaled value sign-extended to the fixed size
            unscaled, scale = value
            data = scale.to_bytes(2, "big", signed=True) + unscaled.to_bytes(self.fixed_size - 2, "big", signed=True)
        return data

    def max_byte_size(self) -> int:
        if self.fixed_size > 0:
            return self.fixed_size
        if self._max <= 0:
            raise UnsupportedAggregation("unknown max aggregated value byte size")
        return self._max


def _bd_add(a, b):
    (ua, sa), (ub, sb) = a, b
    scale = max(sa, sb)
    return (ua * 10 ** (scale - sa) + ub * 10 ** (scale - sb), scale)


_bd_byte_size = bigdecimal.byte_size  # BigDecimalUtils.byteSize of an (unscaled, scale) pair


def _byte_size_for_precision(precision: int) -> int:
    """``BigDecimalUtils.byteSizeForFixedPrecision``: the two's complement bytes of 10^precision - 1, plus
    the 2-byte scale."""
    return _bd_byte_size((10 ** precision - 1, 0))


class DistinctCountBitmap(ValueAggregator):
    """A RoaringBitmap of the values' Java ``hashCode()``; serialised in the portable format (pyroaring's
    CRoaring writes the same bytes for the same containers; no run containers: Pinot never run-optimises)."""

    name, value_type = "distinctCountBitmap", BYTES

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from pyroaring import BitMap  # the inverted index's dependency already

        self._bitmap = BitMap
        self._max = 0

    def _hash(self, v) -> int:
        stored = self.stored
        if stored == "INT":
            return int(v)
        if stored == "LONG":
            v = int(v) & 0xFFFFFFFFFFFFFFFF
            return _i32((v ^ (v >> 32)) & 0xFFFFFFFF)
        if stored == "FLOAT":
            bits = struct.unpack(">I", struct.pack(">f", v))[0]
            if v != v:
                bits = 0x7FC00000  # floatToIntBits canonical NaN
            return _i32(bits)
        if stored == "DOUBLE":
            bits = struct.unpack(">Q", struct.pack(">d", v))[0]
            if v != v:
                bits = 0x7FF8000000000000
            return _i32((bits ^ (bits >> 32)) & 0xFFFFFFFF)
        if stored == "STRING":  # String.hashCode over its UTF-16 code units
            h = 0
            for unit in java_code_units(v).tolist():
                h = (31 * h + unit) & 0xFFFFFFFF
            return _i32(h)
        raise UnsupportedAggregation(f"DISTINCTCOUNTBITMAP over a {stored} column (Java hashCode not reproduced)")

    def initial(self, raw):
        if self.stored == "BYTES" and not isinstance(raw, (list, tuple)):
            raise UnsupportedAggregation("DISTINCTCOUNTBITMAP over serialised bitmaps (BYTES column)")
        values = raw if isinstance(raw, (list, tuple)) else [raw]
        bitmap = self._bitmap([self._hash(v) & 0xFFFFFFFF for v in values], optimize=False)
        return bitmap

    def apply_raw(self, value, raw):
        return value | self.initial(raw)

    def merge(self, value, other):
        return value | other

    def serialize(self, value) -> bytes:
        data = value.serialize()
        if len(data) > self._max:
            self._max = len(data)
        return data

    def max_byte_size(self) -> int:
        # the largest value serialised; a union only grows, so this is the largest Pinot met while merging
        return self._max


def _i32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


class DistinctCountHLL(ValueAggregator):
    """stream-lib ``HyperLogLog(log2m)`` as its registers (uint8 array); see ``hll``."""

    name, value_type = "distinctCountHLL", BYTES

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log2m = int(self.params.get("log2m", hll.DEFAULT_LOG2M))
        if not 1 <= self.log2m <= 30:
            raise UnsupportedAggregation(f"log2m {self.log2m} is out of range")

    def hash(self, v) -> int:
        stored = self.stored
        if stored in ("INT", "LONG"):
            return hll.hash_long(int(v))
        if stored == "FLOAT":
            return hll.hash_long(struct.unpack(">i", struct.pack(">f", v))[0])
        if stored == "DOUBLE":
            return hll.hash_long(struct.unpack(">q", struct.pack(">d", v))[0])
        if stored == "STRING":
            return hll.hash_bytes(v.encode("utf-8"))
        if stored == "BIG_DECIMAL":  # BigDecimal.toString()'s bytes
            from type_mapping.java_text import big_decimal_string

            return hll.hash_bytes(big_decimal_string(v).encode("utf-8"))
        raise UnsupportedAggregation(f"DISTINCTCOUNTHLL over a {stored} column")

    def initial(self, raw):
        if self.stored == "BYTES" and not isinstance(raw, (list, tuple)):
            registers, log2m = hll.deserialize(bytes.fromhex(raw) if isinstance(raw, str) else raw)
            if log2m != self.log2m:
                raise UnsupportedAggregation("serialised HyperLogLogs with another log2m")
            return registers
        values = raw if isinstance(raw, (list, tuple)) else [raw]
        return hll.registers_from_hashes(np.array([self.hash(v) for v in values], dtype=np.uint32), self.log2m)

    def merge(self, value, other):
        return np.maximum(value, other)

    def serialize(self, value) -> bytes:
        return hll.serialize(value, self.log2m)

    def max_byte_size(self) -> int:
        return hll.serialized_size(self.log2m)


class DistinctCountHLLPlus(ValueAggregator):
    """stream-lib ``HyperLogLogPlus(p, sp)`` in its normal representation (sp 0, Pinot's default) as its
    registers; each value is offered as its Java ``toString()`` text (see ``hll``)."""

    name, value_type = "distinctCountHLLPlus", BYTES

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.p = int(self.params.get("p", hll.DEFAULT_HLLPLUS_P))
        self.sp = int(self.params.get("sp", 0))
        if self.sp != 0:
            raise UnsupportedAggregation(f"sp {self.sp}: HyperLogLogPlus's sparse representation is not built by this "
                                         f"writer (use sp 0, Pinot's default)")
        if not 4 <= self.p <= 25:
            raise UnsupportedAggregation(f"p {self.p} is out of range (4-25)")

    def text(self, v) -> str:
        stored = self.stored
        if stored in ("INT", "LONG"):
            return str(int(v))
        if stored == "FLOAT":
            return java_float_str(v, float32=True)
        if stored == "DOUBLE":
            return java_float_str(v)
        if stored == "STRING":
            return v
        if stored == "BIG_DECIMAL":
            from type_mapping.java_text import big_decimal_string

            return big_decimal_string(v)
        raise UnsupportedAggregation(f"DISTINCTCOUNTHLLPLUS over a {stored} column")

    def initial(self, raw):
        if self.stored == "BYTES" and not isinstance(raw, (list, tuple)):
            registers, p = hll.plus_deserialize(bytes.fromhex(raw) if isinstance(raw, str) else raw)
            if p != self.p:
                raise UnsupportedAggregation("serialised HyperLogLogPlus with another p")
            return registers
        values = raw if isinstance(raw, (list, tuple)) else [raw]
        return hll.plus_registers([hll.hash64(self.text(v).encode("utf-8")) for v in values], self.p)

    def merge(self, value, other):
        return np.maximum(value, other)

    def serialize(self, value) -> bytes:
        return hll.plus_serialize(value, self.p, self.sp)

    def max_byte_size(self) -> int:
        # HyperLogLogPlusUtils.byteSize: sizeof() (the register words' bytes) + 12, an estimate Pinot sizes
        # the var-byte chunks with (not the serialised length)
        return 4 * hll.register_words(self.p) + 12


AGGREGATORS: dict[str, type[ValueAggregator]] = {
    "COUNT": Count,
    "COUNTMV": CountMV,
    "SUM": Sum,
    "SUMMV": SumMV,
    "MIN": Min,
    "MAX": Max,
    "AVG": Avg,
    "AVGMV": AvgMV,
    "MINMAXRANGE": MinMaxRange,
    "SUMPRECISION": SumPrecision,
    "DISTINCTCOUNTBITMAP": DistinctCountBitmap,
    "DISTINCTCOUNTHLL": DistinctCountHLL,
    "DISTINCTCOUNTHLLPLUS": DistinctCountHLLPlus,
}


def make_aggregator(function_type: str, stored: str, single_value: bool, params: dict) -> ValueAggregator:
    try:
        cls = AGGREGATORS[function_type]
    except KeyError:
        raise UnsupportedAggregation(f"{function_type} is not built by this writer") from None
    return cls(stored, single_value, _parameters(function_type, params))


def _parameters(function_type: str, params: dict) -> dict:
    """``StarTreeBuilderUtils.expressionContextFromFunctionParameters``: the keys each function reads."""
    out = {}
    if function_type == "DISTINCTCOUNTHLL" and "log2m" in params:
        out["log2m"] = int(str(params["log2m"]))
    if function_type == "DISTINCTCOUNTHLLPLUS":
        if "p" in params:
            out["p"] = int(str(params["p"]))
        if "sp" in params:
            out["sp"] = int(str(params["sp"]))
    if function_type == "SUMPRECISION" and "precision" in params:
        out["precision"] = int(str(params["precision"]))
    return out
