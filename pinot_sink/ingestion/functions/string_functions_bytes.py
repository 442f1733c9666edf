"""Bytes and text encodings: toUtf8 / fromUtf8, toAscii / fromAscii, Base64, hex, URL encoding (StringFunctions,
DataTypeConversionFunctions).

A ``byte[]`` parameter given a STRING is converted as ``PinotDataType.STRING.toBytes`` does: the trimmed text
is *hex-decoded* (``BytesUtils.toBytes``), so ``fromUtf8('68656c6c6f')`` is ``hello`` and a text that is not
hex fails the row. Other non-BYTES values cannot be converted (``UnsupportedOperationException`` in Pinot),
an error for the whole column here. A ``byte[]`` result is an Arrow binary value (a BYTES column stores it;
a STRING column stores its hex, as Pinot's ``BYTES.toString`` does).
"""
from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import quote_plus

import pyarrow as pa
import pyarrow.compute as pc

from javalib.charsets import new_string_utf8
from type_mapping.java_text import java_parse_long

from .. import lone_surrogates
from ..values import (Context, IngestionError, Value, arrow_java_type, broadcast, first_elements, java_utf8, to_long,
                      to_string)
from .registry import scalar_function
from .rowwise import JavaThrows, per_row

_JAVA_TRIM = "".join(chr(i) for i in range(0x21))  # String.trim


def to_bytes(value: Value, ctx: Context) -> pa.Array:
    """A value converted for a Java ``byte[]`` parameter (``PinotDataType.toBytes``), as an Arrow binary array."""
    array = broadcast(value, ctx.num_rows)
    jt = arrow_java_type(array.type)
    if jt == "ARRAY":  # a multi-value: its first element (values.first_elements)
        return to_bytes(first_elements(array, ctx), ctx)
    if jt == "BYTES":
        return array if pa.types.is_binary(array.type) else array.cast(pa.binary())
    if jt == "STRING":
        return per_row(ctx, _hex_bytes, pa.binary(), pc.utf8_trim(array.cast(pa.string()), characters=_JAVA_TRIM))
    if jt == "NULL":
        return pa.nulls(len(array), pa.binary())
    raise IngestionError(f"{ctx.where}: a {jt} value cannot be passed where Pinot expects bytes "
                         f"(UnsupportedOperationException: Cannot convert value from {jt} to BYTES)")


def _hex_bytes(text: str) -> bytes:
    """``BytesUtils.toBytes``: commons-codec ``Hex.decodeHex`` (an even number of hex digits)."""
    if len(text) % 2 or not _HEX.fullmatch(text):
        raise JavaThrows(f"IllegalArgumentException: Value: {text} is not Hex encoded")
    return bytes.fromhex(text)


_HEX = re.compile(r"[0-9a-fA-F]*")


def _text(ctx: Context, value: Value) -> pa.Array:
    return broadcast(to_string(value, ctx), ctx.num_rows, pa.string())


@scalar_function("toUtf8", arity=1)
def _to_utf8(ctx: Context, args: list[Value]) -> Value:
    return java_utf8(_text(ctx, args[0]))


@scalar_function("fromUtf8", arity=1)
def _from_utf8(ctx: Context, args: list[Value]) -> Value:
    """``new String(bytes, UTF_8)``: malformed input becomes U+FFFD."""
    data = to_bytes(args[0], ctx)

    return per_row(ctx, new_string_utf8, pa.string(), data)


@scalar_function("toAscii", arity=1)
def _to_ascii(ctx: Context, args: list[Value]) -> Value:
    """``getBytes(US_ASCII)``: a character outside ASCII (a surrogate pair counting as one) becomes '?'."""
    text = _text(ctx, args[0])
    if pc.all(pc.fill_null(pc.string_is_ascii(text), True)).as_py():
        return text.cast(pa.binary())
    return per_row(ctx, lambda s: s.encode("ascii", "replace"), pa.binary(), text)


@scalar_function("fromAscii", arity=1)
def _from_ascii(ctx: Context, args: list[Value]) -> Value:
    """``new String(bytes, US_ASCII)``: a byte above 127 becomes U+FFFD."""
    return per_row(ctx, lambda b: b.decode("ascii", "replace"), pa.string(), to_bytes(args[0], ctx))


def _java_base64_decode(data: bytes) -> bytes:
    """``Base64.getDecoder().decode``: the basic alphabet, no line breaks; padding optional, but when present
    it must be complete; a final unit of one character is an error."""
    body = data.rstrip(b"=")
    padding = len(data) - len(body)
    if not re.fullmatch(rb"[A-Za-z0-9+/]*", body) or padding > 2:
        raise JavaThrows("IllegalArgumentException: Illegal base64 character or ending")
    rest = len(body) % 4
    if rest == 1 or (padding and rest + padding != 4):
        raise JavaThrows("IllegalArgumentException: Input byte array has wrong 4-byte ending unit")
    return binascii.a2b_base64(body + b"=" * (-len(body) % 4))


@scalar_function("toBase64", arity=1)
def _to_base64(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda b: base64.b64encode(b).decode("ascii"), pa.string(), to_bytes(args[0], ctx))


@scalar_function("fromBase64", arity=1)
def _from_base64(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, lambda s: _java_base64_decode(s.encode("utf-8")), pa.binary(), _text(ctx, args[0]))


@scalar_function("base64Encode", arity=1)
def _base64_encode(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, base64.b64encode, pa.binary(), to_bytes(args[0], ctx))


@scalar_function("base64Decode", arity=1)
def _base64_decode(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, _java_base64_decode, pa.binary(), to_bytes(args[0], ctx))


@scalar_function("hexToBytes", arity=1)
def _hex_to_bytes(ctx: Context, args: list[Value]) -> Value:
    """``BytesUtils.toBytes`` of the text as it is (no trim)."""
    return per_row(ctx, _hex_bytes, pa.binary(), _text(ctx, args[0]))


@scalar_function("bytesToHex", arity=1)
def _bytes_to_hex(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, bytes.hex, pa.string(), to_bytes(args[0], ctx))


@scalar_function("hexDecimalToLong", arity=1)
def _hex_decimal_to_long(ctx: Context, args: list[Value]) -> Value:
    """``Long.parseLong(text, 16)``, after a leading "0x" if any: a sign is allowed, overflow fails."""
    def parse(s: str) -> int:
        try:
            return java_parse_long(s[2:] if s.startswith("0x") else s, 16)
        except ValueError as exc:
            raise JavaThrows(f"NumberFormatException: {exc}") from None

    return per_row(ctx, parse, pa.int64(), _text(ctx, args[0]))


@scalar_function("longToHexDecimal", arity=1)
def _long_to_hex_decimal(ctx: Context, args: list[Value]) -> Value:
    """``Long.toHexString``: the two's complement digits, lower case, no leading zeros."""
    values = broadcast(to_long(args[0], ctx), ctx.num_rows, pa.int64())
    return per_row(ctx, lambda v: format(v % 2**64, "x"), pa.string(), values)


@scalar_function("encodeUrl", arity=1)
def _encode_url(ctx: Context, args: list[Value]) -> Value:
    """``URLEncoder.encode(s, UTF_8)``: letters, digits and ``.-*_`` kept, space as '+', the rest as %XX of
    its UTF-8 bytes (upper-case hex; '~' too); a lone surrogate's bytes are '?' (``getBytes``), so "%3F"."""
    text = lone_surrogates.current().replaced(_text(ctx, args[0]), "?")
    return per_row(ctx, lambda s: quote_plus(s, safe="*").replace("~", "%7E"), pa.string(), text)


def java_url_decode(s: str) -> str:
    """``URLDecoder.decode(s, UTF_8)``: '+' is a space; each run of %XX escapes is decoded as UTF-8 (malformed
    bytes become U+FFFD); a bad or incomplete escape throws."""
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "+":
            out.append(" ")
            i += 1
        elif c == "%":
            run = bytearray()
            while i + 2 < n and s[i] == "%":
                digits = s[i + 1:i + 3]
                try:
                    value = java_parse_long(digits, 16)  # Integer.parseInt(digits, 16)
                except ValueError:
                    raise JavaThrows("IllegalArgumentException: URLDecoder: Illegal hex characters in escape (%) "
                                     f"pattern - Error at index 0 in: \"{digits}\"") from None
                if value < 0:
                    raise JavaThrows("IllegalArgumentException: URLDecoder: Illegal hex characters in escape (%) "
                                     "pattern - negative value")
                run.append(value)
                i += 3
            if i < n and s[i] == "%":
                raise JavaThrows("IllegalArgumentException: URLDecoder: Incomplete trailing escape (%) pattern")
            out.append(new_string_utf8(bytes(run)))  # URLDecoder: new String(bytes, charset)
        else:
            out.append(c)
            i += 1
    return "".join(out)


@scalar_function("decodeUrl", arity=1)
def _decode_url(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, java_url_decode, pa.string(), _text(ctx, args[0]))


def _url_decode_or_null(s: str) -> str | None:
    try:
        return java_url_decode(s)
    except JavaThrows:
        return None


# UrlFunctions' forms: the same URLEncoder / URLDecoder, but a bad escape gives null instead of failing
scalar_function("urlEncode", "urlEncodeFormComponent", arity=1)(_encode_url)


@scalar_function("urlDecode", "urlDecodeFormComponent", arity=1)
def _url_decode(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, _url_decode_or_null, pa.string(), _text(ctx, args[0]))


# --- toBytes / fromBytes with a charset (StringFunctions) ---------------------------------------------------
# Charsets: ``UTF-8``, ``US-ASCII``, ``ISO-8859-1``, ``UTF-16`` (a big-endian byte order mark before any encoded
# text), ``UTF-16BE``, ``UTF-16LE`` and Java's aliases of them; a character a charset cannot encode is ``?``, bytes
# it cannot decode U+FFFD; another charset name is refused when the config is read (strings_extra.jsonl).

_CHARSETS = {}
for _python, _names in {
    "utf-8": ("UTF-8", "UTF8", "unicode-1-1-utf-8"),
    "ascii": ("US-ASCII", "ASCII", "us", "646", "iso-ir-6", "cp367", "csASCII", "default", "ANSI_X3.4-1968",
              "ANSI_X3.4-1986", "ISO_646.irv:1991", "ISO646-US", "IBM367", "iso_646.irv:1983", "ascii7"),
    "latin-1": ("ISO-8859-1", "ISO8859-1", "ISO8859_1", "ISO_8859_1", "ISO_8859-1", "ISO_8859-1:1987", "8859_1",
                "latin1", "l1", "IBM819", "cp819", "csISOLatin1", "819", "IBM-819", "iso-ir-100"),
    "utf-16": ("UTF-16", "UTF_16", "utf16", "unicode", "UnicodeBig"),
    "utf-16-be": ("UTF-16BE", "UTF_16BE", "ISO-10646-UCS-2", "X-UTF-16BE", "UnicodeBigUnmarked"),
    "utf-16-le": ("UTF-16LE", "UTF_16LE", "X-UTF-16LE", "UnicodeLittleUnmarked"),
}.items():
    for _name in _names:
        _CHARSETS[_name.lower()] = _python


def _charset(name: str) -> str:
    found = _CHARSETS.get(name.lower())
    if found is None:
        raise ValueError(f"charset {name!r} is not supported here (UTF-8, US-ASCII, ISO-8859-1, UTF-16, UTF-16BE, "
                         f"UTF-16LE and their aliases)")
    return found


def _check_charset(args: list) -> None:
    if len(args) > 1 and isinstance(args[1], str):
        _charset(args[1])


def _codec(charset: str) -> str | None:
    try:
        return _charset(charset)
    except ValueError:  # a charset name from a column: UnsupportedEncodingException, caught by Pinot: null
        return None


def java_encode(text: str, charset: str) -> bytes | None:
    codec = _codec(charset)
    if codec is None:
        return None
    if codec == "utf-16":  # a byte order mark before the first character only
        return b"\xfe\xff" + java_encode(text, "UTF-16BE") if text else b""
    out = []
    lone = lone_surrogates.current()
    for c in text:
        if lone.is_marker(c):  # half a surrogate pair: the encoder's replacement (U+FFFD for UTF-16, else '?')
            out.append(("\ufffd" if codec.startswith("utf-16") else "?").encode(codec))
            continue
        try:
            out.append(c.encode(codec))
        except UnicodeEncodeError:
            out.append("?".encode(codec) if codec not in ("utf-8",) else b"?")
    return b"".join(out)


def java_decode(raw: bytes, charset: str) -> str | None:
    codec = _codec(charset)
    if codec is None:
        return None
    if codec == "utf-16":
        if raw[:2] == b"\xff\xfe":
            return raw[2:].decode("utf-16-le", "replace")
        return (raw[2:] if raw[:2] == b"\xfe\xff" else raw).decode("utf-16-be", "replace")
    return raw.decode(codec, "replace")


@scalar_function("toBytes", arity=2, literal_args=(1,), check=_check_charset)
def _to_bytes(ctx: Context, args: list[Value]) -> Value:
    charset = to_string(args[1], ctx)
    return per_row(ctx, java_encode, pa.binary(), to_string(args[0], ctx), charset)


@scalar_function("fromBytes", arity=2, literal_args=(1,), check=_check_charset)
def _from_bytes(ctx: Context, args: list[Value]) -> Value:
    charset = to_string(args[1], ctx)
    return per_row(ctx, java_decode, pa.string(), to_bytes(args[0], ctx), charset)
