"""UUID functions (the uuid/ PinotScalarFunction classes, UuidConversionFunctions, StringFunctions'
toUUIDBytes / fromUUIDBytes), checked against Pinot's own build (tests/fixtures/functions/uuid.jsonl).

A text passed where Pinot expects a ``UUID`` is trimmed, then read as ``UuidUtils.toBytes``: the canonical
form (any case; ``UUID.fromString`` must print it back) or 32 hex digits; anything else throws. ``isUuid``
asks the same of the untrimmed text. A UUID result is stored as its lowercase text (a STRING column).
``toUUIDBytes`` is ``UUID.fromString``'s lenient reading (``1-2-3-4-5`` is accepted; a text it throws on is
null); ``uuidTimestamp`` is the time of a version 1 or 6 (Gregorian 100 ns since 1582, to millis) or 7 (the
first 48 bits) UUID; any other version fails the row.
``uuidV4`` / ``uuidV7`` are fresh random UUIDs per row, as Pinot makes them (``UuidUtils.randomV4`` /
``randomV7``: the version and variant bits set, the rest random; v7's first 48 bits the clock's milliseconds
when the batch is transformed), drawn from the operating system's entropy: no two attempts of a task store the
same ones, and none need to (the driver publishes one attempt's segments: docs/ingestion.md).
"""
from __future__ import annotations

import re
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..values import Context, Value, arrow_java_type, broadcast, to_string
from .string_functions_bytes import to_bytes
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_CANONICAL = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX32 = re.compile(r"[0-9a-fA-F]{32}")
_GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns intervals from 1582-10-15 to 1970-01-01
_JAVA_TRIM = "".join(chr(i) for i in range(0x21))


def uuid_bytes(text: str) -> bytes:
    """``UuidUtils.toBytes(String)``."""
    if _CANONICAL.fullmatch(text):
        return bytes.fromhex(text.replace("-", ""))
    if _HEX32.fullmatch(text):
        return bytes.fromhex(text)
    raise JavaThrows(f"IllegalArgumentException: Invalid UUID value: '{text}'")


def _from_bytes(raw: bytes) -> bytes:
    if len(raw) != 16:
        raise JavaThrows(f"IllegalArgumentException: UUID bytes must be 16 bytes, got {len(raw)}")
    return raw


def uuid_text(raw: bytes) -> str:
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def java_uuid_from_string(text: str) -> bytes:
    """``UUID.fromString`` (Java 17): five dash-separated hex fields, each masked to its width."""
    if len(text) > 36:
        raise JavaThrows("IllegalArgumentException: UUID string too large")
    parts = text.split("-")
    if len(parts) != 5:
        raise JavaThrows(f"IllegalArgumentException: Invalid UUID string: {text}")
    values = []
    for part in parts:
        if not re.fullmatch(r"[+-]?[0-9a-fA-F]+", part):
            raise JavaThrows(f"NumberFormatException: Error at index 0 in: \"{part}\"")
        value = int(part, 16)
        if not -(2**63) <= value < 2**63:
            raise JavaThrows(f"NumberFormatException: For input string: \"{part}\"")
        values.append(value)
    msb = ((values[0] & 0xFFFFFFFF) << 32) | ((values[1] & 0xFFFF) << 16) | (values[2] & 0xFFFF)
    lsb = ((values[3] & 0xFFFF) << 48) | (values[4] & 0xFFFFFFFFFFFF)
    return msb.to_bytes(8, "big") + lsb.to_bytes(8, "big")


def _uuid_arg(ctx: Context, value: Value) -> tuple[pa.Array, bool]:
    """The argument as what the function reads: (text trimmed, True) or (bytes, False)."""
    array = broadcast(value, ctx.num_rows)
    if arrow_java_type(array.type) == "BYTES":
        return array, False
    return pc.utf8_trim(broadcast(to_string(value, ctx), ctx.num_rows, pa.string()), characters=_JAVA_TRIM), True


def _uuid_function(fn, out_type):
    def impl(ctx: Context, args: list[Value]) -> Value:
        array, is_text = _uuid_arg(ctx, args[0])
        read = uuid_bytes if is_text else _from_bytes
        return per_row(ctx, lambda v: fn(read(v)), out_type, array)

    return impl


def uuid_timestamp(raw: bytes):
    """``UuidUtils.getTimestampMillis``: a version 1 or 6 UUID's Gregorian 100 ns (each its own layout), a
    version 7's first 48 bits; any other version throws (IllegalArgumentException: the row fails)."""
    msb = int.from_bytes(raw[:8], "big")
    version = (msb >> 12) & 0xF
    if version == 7:
        return msb >> 16
    if version == 1:
        ticks = ((msb & 0xFFF) << 48) | (((msb >> 16) & 0xFFFF) << 32) | (msb >> 32)
    elif version == 6:
        ticks = ((msb >> 32) << 28) | (((msb >> 16) & 0xFFFF) << 12) | (msb & 0xFFF)
    else:
        raise JavaThrows(f"IllegalArgumentException: UUID version {version} is not time-based; only versions 1, 6, "
                         f"and 7 carry an embedded timestamp")
    delta = ticks - _GREGORIAN_OFFSET
    return abs(delta) // 10_000 * (1 if delta >= 0 else -1)  # (Java's division truncates toward zero)


scalar_function("toUuid", arity=1)(_uuid_function(uuid_text, pa.string()))
scalar_function("uuidToString", arity=1)(_uuid_function(uuid_text, pa.string()))
scalar_function("uuidToBytes", arity=1)(_uuid_function(bytes, pa.binary()))
scalar_function("uuidVersion", arity=1)(_uuid_function(lambda raw: (raw[6] >> 4) & 0xF, pa.int32()))
scalar_function("uuidTimestamp", arity=1)(_uuid_function(uuid_timestamp, pa.int64()))


@scalar_function("isUuid", arity=1)
def _is_uuid(ctx: Context, args: list[Value]) -> Value:
    def valid(text: str) -> bool:
        return bool(_CANONICAL.fullmatch(text) or _HEX32.fullmatch(text))

    return per_row(ctx, valid, pa.bool_(), to_string(args[0], ctx))


def _uuid_bytes_or_null(text: str) -> bytes | None:
    """toUUIDBytes catches IllegalArgumentException, NumberFormatException included: every throw of
    ``UUID.fromString`` on a text is a null, not a failed row."""
    try:
        return java_uuid_from_string(text)
    except JavaThrows:
        return None


@scalar_function("toUUIDBytes", arity=1)
def _to_uuid_bytes(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, _uuid_bytes_or_null, pa.binary(), to_string(args[0], ctx))


@scalar_function("fromUUIDBytes", "bytesToUuid", arity=1)
def _from_uuid_bytes(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda raw: uuid_text(_from_bytes(raw)), pa.string(), to_bytes(args[0], ctx))


# --- fresh UUIDs --------------------------------------------------------------------------------------------

_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_TEXT_COLUMNS = np.array([c for c in range(36) if c not in (8, 13, 18, 23)])  # where the 32 hex digits go


def uuid_texts(raw: np.ndarray) -> pa.Array:
    """A (rows, 16) uint8 array of UUID bytes as their lowercase canonical texts, without a Python loop."""
    rows = len(raw)
    digits = np.empty((rows, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX_DIGITS[raw >> 4]
    digits[:, 1::2] = _HEX_DIGITS[raw & 0x0F]
    text = np.full((rows, 36), ord("-"), dtype=np.uint8)
    text[:, _TEXT_COLUMNS] = digits
    offsets = np.arange(0, 36 * (rows + 1), 36, dtype=np.int32)
    return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(text))


def random_uuid_bytes(rows: int, version: int) -> np.ndarray:
    """Random UUID bytes with RFC 9562's version nibble and the variant ``10`` (``UuidUtils.randomV4`` /
    ``randomV7``'s layout); v7's first 48 bits are the clock's epoch milliseconds."""
    raw = np.random.default_rng().integers(0, 256, (rows, 16), dtype=np.uint8)
    if version == 7:
        millis = (time.time_ns() // 1_000_000) & 0xFFFFFFFFFFFF
        raw[:, :6] = np.frombuffer(millis.to_bytes(6, "big"), dtype=np.uint8)
    raw[:, 6] = (raw[:, 6] & 0x0F) | (version << 4)
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    return raw


@scalar_function("uuidV4", "UUID_V4", arity=0)
def _uuid_v4(ctx: Context, args: list[Value]) -> Value:
    return uuid_texts(random_uuid_bytes(ctx.num_rows, 4))


@scalar_function("uuidV7", "UUID_V7", arity=0)
def _uuid_v7(ctx: Context, args: list[Value]) -> Value:
    return uuid_texts(random_uuid_bytes(ctx.num_rows, 7))
