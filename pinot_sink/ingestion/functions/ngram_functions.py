"""StringFunctions' ``soundex`` / ``difference`` (commons-codec's US English Soundex), ``isJson`` (Jackson's
reader), ``toBytes`` / ``fromBytes`` with a charset, and NgramFunctions' ``uniqueNgrams``; each once per distinct
value, checked against Pinot's own build (tests/fixtures/functions/strings_extra.jsonl).

``soundex`` keeps the letters (``Character.isLetter``), upper-cases them (``ß`` is ``SS``) and maps A..Z; a
letter outside A..Z (``É``) is commons-codec's ``IllegalArgumentException``: the row fails. ``soundex('')`` is
``0000``; a text without letters gives ``''``, on which ``difference`` fails. ``isJson`` is true when Jackson
reads a JSON value from the start of the text (what follows it is ignored, but a root-level number must end at white space; ``NaN``, single quotes and comments
are not JSON). Charsets: ``UTF-8``, ``US-ASCII``, ``ISO-8859-1``, ``UTF-16`` (a big-endian byte order mark
before any encoded text), ``UTF-16BE``, ``UTF-16LE`` and Java's aliases of them; a character a charset cannot encode is
``?``, bytes it cannot decode U+FFFD; another charset name is refused when the config is read.
"""
from __future__ import annotations

import json

import pyarrow as pa

from .. import lone_surrogates
from ..values import Context, Value, to_int, to_string
from .array_functions import to_array
from .string_functions_bytes import to_bytes
from .json_functions import within_jackson_limits
from .registry import scalar_function
from .rowwise import JavaThrows, per_row
from .string_functions import _from_utf16, _utf16

_MAPPING = "01230120022455012623010202"


def soundex(text: str) -> str:
    if text == "":
        return "0000"
    letters = "".join(c for c in text if c.isalpha() and ord(c) < 0x10000).upper()
    if not letters:
        return ""

    def code(c: str) -> str:
        index = ord(c) - ord("A")
        if not 0 <= index < len(_MAPPING):
            raise JavaThrows(f"IllegalArgumentException: The character is not mapped: {c}")
        return _MAPPING[index]

    out = [letters[0]]
    last = code(letters[0])
    for c in letters[1:]:
        if len(out) == 4:
            break
        if c in "HW":
            continue
        digit = code(c)
        if digit != "0" and digit != last:
            out.append(digit)
        last = digit
    return "".join(out).ljust(4, "0")


def difference(a: str, b: str) -> int:
    x, y = soundex(a), soundex(b)
    if len(x) < 4 or len(y) < 4:
        raise JavaThrows("StringIndexOutOfBoundsException: a text without letters has no Soundex code")
    return sum(1 for i in range(4) if x[i] == y[i])


def _no_constant(name: str):
    raise ValueError(name)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def is_json(text: str) -> bool:
    stripped = text.lstrip(" \t\r\n")
    if not stripped:
        return True  # Jackson reads no value (a missing node), no exception
    if not within_jackson_limits(stripped):
        return False
    try:
        value, end = _DECODER.raw_decode(stripped)
    except ValueError:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # Jackson wants white space after a root-level number (so no leading zeros: '01')
        return end == len(stripped) or stripped[end] in " \t\r\n"
    return True


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


@scalar_function("soundex", arity=1, nullable=True)
def _soundex(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, soundex, pa.string(), to_string(args[0], ctx))


@scalar_function("difference", arity=2)
def _difference(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, difference, pa.int32(), to_string(args[0], ctx), to_string(args[1], ctx))


@scalar_function("isJson", arity=1)
def _is_json(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, is_json, pa.bool_(), to_string(args[0], ctx))


@scalar_function("toBytes", arity=2, literal_args=(1,), check=_check_charset)
def _to_bytes(ctx: Context, args: list[Value]) -> Value:
    charset = to_string(args[1], ctx)
    return per_row(ctx, java_encode, pa.binary(), to_string(args[0], ctx), charset)


@scalar_function("fromBytes", arity=2, literal_args=(1,), check=_check_charset)
def _from_bytes(ctx: Context, args: list[Value]) -> Value:
    charset = to_string(args[1], ctx)
    return per_row(ctx, java_decode, pa.string(), to_bytes(args[0], ctx), charset)


def _utf16_substrings(text: str, lengths) -> list[str]:
    """The distinct substrings of the given UTF-16 lengths, in order (``ObjectLinkedOpenHashSet``), as Java's
    ``substring`` cuts them (a cut surrogate pair stored as ``?``, as the string functions do)."""
    units = _utf16(text)
    size = len(units) // 2
    seen: dict[str, None] = {}
    for n in lengths:
        if n < 0:
            raise JavaThrows(f"StringIndexOutOfBoundsException: begin 0, end {n}, length {size}")
        for i in range(0, size - n + 1):
            seen.setdefault(_from_utf16(units[2 * i:2 * (i + n)]), None)
    return list(seen)


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _gram_lengths(size: int, low: int, high: int) -> list[int]:
    """The lengths ``for (n = low; n <= high && n <= size; n++)`` cuts grams of: a negative one whose inner
    loop runs (``i <= size - n`` in int arithmetic, which wraps for n near Integer.MIN_VALUE) cuts with a
    negative end, which throws; without walking the 2^31 lengths below it."""
    top = min(high, size)
    if low < 0:
        first = max(low, size - 2**31 + 1)  # below it size - n wraps negative: no grams
        if first < 0 and first <= top:
            _utf16_substrings("", [first])  # Java's StringIndexOutOfBoundsException
        low = 1
    return [n for n in range(max(low, 1), top + 1)]


def unique_ngrams(text: str, length: int) -> list[str]:
    size = len(text.encode("utf-16-le", "surrogatepass")) // 2
    if length == 0 or length > size or _int32(size - length + 1) <= 0:  # (the loop's bound wraps)
        return []
    return _utf16_substrings(text, [length])


def unique_ngrams_range(text: str, low: int, high: int) -> list[str]:
    size = len(text.encode("utf-16-le", "surrogatepass")) // 2
    return _utf16_substrings(text, _gram_lengths(size, low, high))


def unique_ngrams_mv(texts: tuple, low: int, high: int | None = None) -> list[str]:
    single = high is None
    if (single and low <= 0) or not texts:
        return []
    out: dict[str, None] = {}
    for text in texts:
        if text is None:
            continue
        size = len(text.encode("utf-16-le", "surrogatepass")) // 2
        if low > size:
            continue
        lengths = [low] if single else _gram_lengths(size, low, high)
        for gram in _utf16_substrings(text, lengths):
            out.setdefault(gram, None)
    return list(out)


@scalar_function("uniqueNgrams", "generateUniqueNgrams", arity=2)
def _unique_ngrams(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams, pa.list_(pa.string()), to_string(args[0], ctx), to_int(args[1], ctx))


@scalar_function("uniqueNgrams", "generateUniqueNgrams", arity=3)
def _unique_ngrams_range(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams_range, pa.list_(pa.string()), to_string(args[0], ctx), to_int(args[1], ctx),
                   to_int(args[2], ctx))


@scalar_function("uniqueNgramsMV", "generateUniqueNgramsMV", arity=(2, 3))
def _unique_ngrams_mv(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, unique_ngrams_mv, pa.list_(pa.string()), to_array(args[0], "String", ctx),
                   *(to_int(a, ctx) for a in args[1:]))
