"""JTS's text and binary forms of a geometry (``geometry.Geom``), as Pinot's ``GeometryUtils`` readers and
writers give them: JTS 1.20.0's ``WKTReader`` / ``WKTWriter`` / ``WKBWriter``, jts-io-common 1.19.0's
``GeoJsonWriter`` (what Pinot's binary ships, over json-simple 1.1.1). Written here rather than taken from
GEOS / shapely, whose text differs (number digits, MULTIPOINT parentheses, GeoJSON field order and numbers).

* WKT numbers: ``DecimalFormat("0")`` with 16 fraction digits (the floating precision model's significant
  digits), Locale.US: plain digits, no exponent, half-even on Java's shortest digits; NaN ``NaN``, infinities
  ``Inf`` / ``-Inf``; -0.0 ``-0``.
* GeoJSON numbers (``GeoJsonWriter.formatOrdinate``): from 1e-3 (absolute) up to, not including, 1e7 (signed:
  every negative number below -1e-3 qualifies), rounded to 8 decimals by ``floor(x * 1e8 + 0.5) / 1e8`` and
  printed as a whole number when it is one (``1``), else ``Double.toString``; everything else ``Double.toString``
  unrounded (``0.0``, ``1.0E-4``, ``1.0E7``). Fields: type, coordinates (or geometries), crs (top level only:
  ``{"type":"name","properties":{"name":"EPSG:<srid>"}}``, EPSG:0 for a geometry).
* WKB: big-endian, 2-D, OGC type codes 1..7, no SRID; an empty point as NaN NaN.
"""
from __future__ import annotations

import math
import re
import struct
from decimal import Decimal, localcontext

from ..exceptions import JavaException
from ..floating_decimal import java_float_str
from .geometry import GEOGRAPHY_SRID, Geom, line_string, linear_ring, polygon

_WKT_NAMES = {"Point": "POINT", "LineString": "LINESTRING", "LinearRing": "LINEARRING", "Polygon": "POLYGON",
              "MultiPoint": "MULTIPOINT", "MultiLineString": "MULTILINESTRING", "MultiPolygon": "MULTIPOLYGON",
              "GeometryCollection": "GEOMETRYCOLLECTION"}

# --- WKT writing ------------------------------------------------------------------------------------

_FRACTION_DIGITS = 16


def wkt_number(value: float) -> str:
    """JTS ``OrdinateFormat`` with 16 fraction digits (``java.text.DecimalFormat``, pattern ``0``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    with localcontext() as context:
        context.prec = 800
        return _wkt_number(value)


def _wkt_number(value: float) -> str:
    negative = math.copysign(1.0, value) < 0
    java = java_float_str(abs(value))  # Java's digits, which DecimalFormat rounds
    digits = Decimal(java.replace("E", "e"))
    cut = digits.quantize(Decimal(1).scaleb(-_FRACTION_DIGITS), rounding="ROUND_DOWN")
    rest = digits - cut
    if rest:
        half = Decimal(5).scaleb(-_FRACTION_DIGITS - 1)
        up = rest > half
        if rest == half:  # a tie in the digits: DigitList looks at whether they are exact or were rounded
            exact = Decimal(abs(value))
            up = (cut.quantize(Decimal(1).scaleb(-_FRACTION_DIGITS)) .as_tuple().digits[-1] % 2 == 1
                  if exact == digits else exact > digits)
        if up:
            cut += Decimal(1).scaleb(-_FRACTION_DIGITS)
    text = format(cut.normalize() if cut else Decimal(0), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return ("-" if negative else "") + text


def _wkt_coords(coords) -> str:
    return ", ".join(f"{wkt_number(x)} {wkt_number(y)}" for x, y in coords)


def _wkt_body(geom: Geom) -> str:
    """A point, line or polygon with no coordinates is EMPTY; a multi-geometry or collection only when it has no
    members (``GEOMETRYCOLLECTION (POINT EMPTY)`` stays so)."""
    if not geom.parts:
        return "EMPTY"
    kind = geom.kind
    if kind == "Point":
        return f"({_wkt_coords([geom.parts])})"
    if kind in ("LineString", "LinearRing"):
        return f"({_wkt_coords(geom.parts)})"
    if kind == "Polygon":
        return "(" + ", ".join(f"({_wkt_coords(ring)})" if ring else "EMPTY" for ring in geom.parts) + ")"
    if kind == "GeometryCollection":
        return "(" + ", ".join(write_wkt(m) for m in geom.parts) + ")"
    return "(" + ", ".join(_wkt_body(m) for m in geom.parts) + ")"


def write_wkt(geom: Geom) -> str:
    """``WKTWriter.write`` (JTS 1.20, 2-D)."""
    return f"{_WKT_NAMES[geom.kind]} {_wkt_body(geom)}"


# --- WKB writing ------------------------------------------------------------------------------------

_WKB_CODES = {"Point": 1, "LineString": 2, "LinearRing": 2, "Polygon": 3, "MultiPoint": 4, "MultiLineString": 5,
              "MultiPolygon": 6, "GeometryCollection": 7}


def _wkb_ring(coords) -> bytes:
    return struct.pack(">I", len(coords)) + b"".join(struct.pack(">dd", x, y) for x, y in coords)


def write_wkb(geom: Geom) -> bytes:
    """``WKBWriter.write`` (JTS 1.20 defaults: big-endian, 2-D, no SRID)."""
    out = b"\x00" + struct.pack(">I", _WKB_CODES[geom.kind])
    kind = geom.kind
    if kind == "Point":
        return out + struct.pack(">dd", *(geom.parts or (math.nan, math.nan)))
    if kind in ("LineString", "LinearRing"):
        return out + _wkb_ring(geom.parts)
    if kind == "Polygon":
        return out + struct.pack(">I", len(geom.parts)) + b"".join(_wkb_ring(r) for r in geom.parts)
    return out + struct.pack(">I", len(geom.parts)) + b"".join(write_wkb(m) for m in geom.parts)


# --- GeoJSON writing --------------------------------------------------------------------------------


def geojson_number(x: float) -> str:
    """``GeoJsonWriter.formatOrdinate`` (8 decimals)."""
    if abs(x) >= 1e-3 and x < 1e7:
        scaled = x * 1e8 + 0.5
        x = (math.floor(scaled) if math.isfinite(scaled) else scaled) / 1e8  # Math.floor keeps an infinity
        if math.isfinite(x):
            as_long = max(min(int(x), 2**63 - 1), -(2**63))
        else:
            as_long = 2**63 - 1 if x > 0 else -(2**63)
        if float(as_long) == x:
            return str(as_long)
    return java_float_str(x)


def _gj_sequence(coords) -> str:
    """``getJsonString(CoordinateSequence)``: one coordinate bare, more in an array, none: nothing."""
    body = ",".join(f"[{geojson_number(x)},{geojson_number(y)}]" for x, y in coords)
    return f"[{body}]" if len(coords) > 1 else body


def _gj_polygon(geom: Geom) -> str:
    rings = geom.parts or [[]]
    return "[" + ",".join(_gj_sequence(r) for r in rings) + "]"


def _gj_member(geom: Geom) -> str:
    if geom.kind == "Polygon":
        return _gj_polygon(geom)
    return _gj_sequence(geom.coordinates())


def _gj_object(geom: Geom, crs: bool) -> str:
    kind = geom.kind
    if kind == "Point":
        coords = "[]" if geom.parts is None else _gj_sequence([geom.parts])
    elif kind in ("LineString", "LinearRing"):
        coords = "[]" if not geom.parts else _gj_sequence(geom.parts)
    elif kind == "Polygon":
        coords = _gj_polygon(geom)
    elif kind == "GeometryCollection":
        coords = None
    else:
        coords = "[" + ",".join(_gj_member(m) for m in geom.parts) + "]"
    out = f'{{"type":"{kind}",'
    if coords is None:
        out += '"geometries":[' + ",".join(_gj_object(m, False) for m in geom.parts) + "]"
    else:
        out += f'"coordinates":{coords}'
    if crs:
        out += f',"crs":{{"type":"name","properties":{{"name":"EPSG:{geom.srid}"}}}}'
    return out + "}"


def write_geojson(geom: Geom) -> str:
    """``GeoJsonWriter.write`` (jts-io-common 1.19.0, default 8 decimals, CRS encoded)."""
    return _gj_object(geom, True)


# --- WKT reading ------------------------------------------------------------------------------------

# StreamTokenizer as JTS sets it up: words of letters, digits, '-', '+', '.' (and chars 160..255); whitespace
# is every char up to ' '; '#' starts a comment to the end of the line; any other char is a token of its own
_TOKEN = re.compile(r"[\x00- ]+|#[^\n\r]*|([A-Za-z0-9+\-.\u00a0-\u00ff]+)|(.)", re.DOTALL)
# Double.parseDouble's forms (a word has no blanks to trim): decimal, hexadecimal with a binary exponent,
# NaN / Infinity, each with an optional sign and a float / double suffix
_JAVA_DECIMAL = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)")
_JAVA_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?")


def java_parse_double(token: str) -> float | None:
    """``Double.parseDouble`` of a word, or None where it throws NumberFormatException."""
    if _JAVA_DECIMAL.fullmatch(token):
        return float(token.rstrip("fFdD").replace("Infinity", "inf"))
    hexadecimal = _JAVA_HEX.fullmatch(token)
    if hexadecimal:
        value = float.fromhex("0x" + hexadecimal.group(2))
        return -value if hexadecimal.group(1) == "-" else value
    return None


class _Tokens:
    def __init__(self, text: str):
        self.tokens = [m.group(1) or m.group(2) for m in _TOKEN.finditer(text) if m.group(1) or m.group(2)]
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def fail(self, expected: str, token: str | None):
        found = "End-of-Stream" if token is None else f"'{token}'"
        raise JavaException(f"ParseException: Expected {expected} but found {found}")

    def word(self) -> str:
        """``getNextWord``: a word (EMPTY in any case as EMPTY), '(', ')' or ','; anything else fails."""
        token = self.peek()
        if token is None or not (_is_word(token) or token in "(),"):
            self.fail("word", token)
        self.pos += 1
        return "EMPTY" if token.upper() == "EMPTY" else token

    def number(self) -> float:
        token = self.peek()
        self.pos += 1
        if token is None or not _is_word(token):
            self.fail("number", token)
        if token.lower() == "nan":
            return math.nan
        value = java_parse_double(token)
        if value is None:
            raise JavaException(f"ParseException: Invalid number: {token}")
        return value

    def word_next(self) -> bool:
        """``isNumberNext``: the next token is a word (any word: it is then read as a number)."""
        token = self.peek()
        return token is not None and _is_word(token)

    def empty_or_opener(self) -> bool:
        """``getNextEmptyOrOpener``: True for EMPTY, False for '(' (after an optional Z / M / ZM)."""
        token = self.word()
        if token.upper() in ("Z", "M", "ZM"):
            token = self.word()
        if token == "EMPTY":
            return True
        if token == "(":
            return False
        self.fail("EMPTY or (", token)

    def closer_or_comma(self) -> str:
        token = self.word()
        if token in (",", ")"):
            return token
        self.fail(", or )", token)

    def closer(self):
        token = self.word()
        if token != ")":
            self.fail(")", token)


def _is_word(token: str) -> bool:
    return token[0].isascii() and token[0].isalnum() or token[0] in "+-." or "\u00a0" <= token[0] <= "\u00ff"


def _coordinate(tokens: _Tokens, dims: tuple[bool, bool], try_paren: bool = False) -> tuple[float, float]:
    """``getCoordinate``: x, y, then a Z and an M as declared; undeclared, one more number is read as a Z
    (JTS's old coordinate syntax). Only x and y are kept (Pinot's bytes are 2-D)."""
    opened = try_paren and tokens.peek() == "("
    if opened:
        tokens.pos += 1
    x, y = tokens.number(), tokens.number()
    has_z, has_m = dims
    if has_z:
        tokens.number()
    if has_m:
        tokens.number()
    if not has_z and not has_m and tokens.word_next():
        tokens.number()
    if opened:
        tokens.closer()
    return (x, y)


def _coordinates(tokens: _Tokens, dims) -> list:
    if tokens.empty_or_opener():
        return []
    coords = [_coordinate(tokens, dims)]
    while tokens.closer_or_comma() == ",":
        coords.append(_coordinate(tokens, dims))
    return coords


def _list(tokens: _Tokens, read) -> list:
    if tokens.empty_or_opener():
        return []
    items = [read(tokens)]
    while tokens.closer_or_comma() == ",":
        items.append(read(tokens))
    return items


def _point_text(tokens: _Tokens, dims, srid: int) -> Geom:
    if tokens.empty_or_opener():
        return Geom("Point", None, srid)
    point = _coordinate(tokens, dims)
    tokens.closer()
    return Geom("Point", point, srid)


def _polygon_parts(tokens: _Tokens, dims) -> list:
    rings = _list(tokens, lambda t: linear_ring(_coordinates(t, dims)).parts)
    return polygon(rings[0], rings[1:]).parts if rings else []


def _multi_point(tokens: _Tokens, dims, srid: int) -> Geom:
    if tokens.empty_or_opener():
        return Geom("MultiPoint", [], srid)
    ahead = tokens.peek()
    if ahead is not None and ahead != "(" and ahead.upper() != "EMPTY":  # the old syntax: MULTIPOINT (1 2, 3 4)
        tokens.word()  # (lookAheadWord: what getNextWord refuses fails here)
        tokens.pos -= 1
        points = [Geom("Point", _coordinate(tokens, dims, True), srid)]
        while tokens.closer_or_comma() == ",":
            points.append(Geom("Point", _coordinate(tokens, dims, True), srid))
        return Geom("MultiPoint", points, srid)
    points = [_point_text(tokens, dims, srid)]
    while tokens.closer_or_comma() == ",":
        points.append(_point_text(tokens, dims, srid))
    return Geom("MultiPoint", points, srid)


_TYPE_NAMES = ("POINT", "LINESTRING", "LINEARRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
               "GEOMETRYCOLLECTION")  # JTS's order of tests


def _tagged(tokens: _Tokens, srid: int) -> Geom:
    """``readGeometryTaggedText``: the type word (a Z / M / ZM suffix declares the dimensions, else a Z / M /
    ZM word after it may), then its text."""
    word = tokens.word().upper()
    has_z, has_m = word.endswith("ZM") or word.endswith("Z"), word.endswith("ZM") or word.endswith("M")
    if not has_z and not has_m:
        ahead = tokens.word().upper()
        tokens.pos -= 1
        if ahead in ("Z", "M", "ZM"):
            tokens.pos += 1
            has_z, has_m = ahead in ("Z", "ZM"), ahead in ("M", "ZM")
    dims = (has_z, has_m)
    for name in _TYPE_NAMES:
        if word.startswith(name):
            if word[len(name):] not in ("", "Z", "M", "ZM"):
                raise JavaException(f"ParseException: Invalid dimension modifiers: {word}")
            break
    else:
        raise JavaException(f"ParseException: Unknown geometry type: {word}")
    if name == "POINT":
        return _point_text(tokens, dims, srid)
    if name == "LINESTRING":
        return line_string(_coordinates(tokens, dims), srid)
    if name == "LINEARRING":
        return Geom("LinearRing", linear_ring(_coordinates(tokens, dims)).parts, srid)
    if name == "POLYGON":
        return Geom("Polygon", _polygon_parts(tokens, dims), srid)
    if name == "MULTIPOINT":
        return _multi_point(tokens, dims, srid)
    if name == "MULTILINESTRING":
        return Geom("MultiLineString", _list(tokens, lambda t: line_string(_coordinates(t, dims), srid)), srid)
    if name == "MULTIPOLYGON":
        return Geom("MultiPolygon", _list(tokens, lambda t: Geom("Polygon", _polygon_parts(t, dims), srid)), srid)
    return Geom("GeometryCollection", _list(tokens, lambda t: _tagged(t, srid)), srid)


def read_wkt(text: str, geography: bool) -> Geom:
    """``WKTReader.read`` (JTS 1.20) with Pinot's geometry (SRID 0) or geography (4326) factory. Text after the
    geometry is not looked at, as JTS does not."""
    return _tagged(_Tokens(text), GEOGRAPHY_SRID if geography else 0)


# --- WKB reading ------------------------------------------------------------------------------------


class _WkbStream:
    """JTS's ``ByteOrderDataInStream`` over the value's bytes (big-endian until a byte-order byte says 1)."""

    def __init__(self, data: bytes):
        self.data, self.pos, self.order = data, 0, ">"
        self.max_count = len(data) // 8  # WKBReader.read(byte[]): no count field may exceed this

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise JavaException("ParseException: Attempt to read past end of input")
        values = struct.unpack_from(self.order + fmt, self.data, self.pos)
        self.pos += size
        return values

    def count(self, field: str) -> int:
        (n,) = self.take("i")
        if n < 0 or n > self.max_count:
            raise JavaException(f"ParseException: {field} value is too large")
        return n


def _wkb_coords(stream: _WkbStream, n: int, dims: int) -> list:
    values = stream.take(f"{n * dims}d")
    return [(values[i * dims], values[i * dims + 1]) for i in range(n)]


def _wkb_read_ring(stream: _WkbStream, dims: int) -> list:
    """``readLinearRing`` (not strict): an open or short ring is closed with copies of its first point."""
    coords = _wkb_coords(stream, stream.count("numCoords"), dims)
    n = len(coords)
    if n and not (n > 3 and coords[0][0] == coords[-1][0] and coords[0][1] == coords[-1][1]):
        coords = coords + [coords[0]] * ((4 if n <= 3 else n + 1) - n)
    return linear_ring(coords).parts


def _wkb_geometry(stream: _WkbStream, srid: int, factory_srid: int) -> Geom:
    (order,) = stream.take("b")
    if order == 1:
        stream.order = "<"
    elif order == 0:
        stream.order = ">"
    elif stream.pos == 1:
        # JTS keeps the byte order its reader last read: inside a value, the enclosing geometry's (kept here);
        # for the value's first byte, the previous value's read by Pinot's one shared reader: not mirrored
        raise JavaException(f"ParseException: Unknown geometry byte order (not NDR or XDR): {order}")
    (type_int,) = stream.take("I")
    low = type_int & 0xFFFF
    kind = low % 1000
    has_z = bool(type_int & 0x80000000) or low // 1000 in (1, 3)
    has_m = bool(type_int & 0x40000000) or low // 1000 in (2, 3)
    dims = 2 + has_z + has_m
    if type_int & 0x20000000:
        (srid,) = stream.take("i")
    if kind == 1:
        (x, y) = _wkb_coords(stream, 1, dims)[0]
        geom = Geom("Point", None if math.isnan(x) or math.isnan(y) else (x, y), factory_srid)
    elif kind == 2:
        coords = _wkb_coords(stream, stream.count("numCoords"), dims)
        geom = line_string(coords * 2 if len(coords) == 1 else coords, factory_srid)  # a 1-point line: doubled
    elif kind == 3:
        rings = [_wkb_read_ring(stream, dims) for _ in range(stream.count("numRings"))]
        geom = Geom("Polygon", polygon(rings[0], rings[1:]).parts if rings else [], factory_srid)
    elif kind in (4, 5, 6, 7):
        name, member = {4: ("MultiPoint", "Point"), 5: ("MultiLineString", "LineString"),
                        6: ("MultiPolygon", "Polygon"), 7: ("GeometryCollection", None)}[kind]
        members = []
        for _ in range(stream.count("numElems")):
            m = _wkb_geometry(stream, srid, factory_srid)
            if member is not None and m.kind != member:
                raise JavaException(f"ParseException: Invalid geometry type encountered in {name}")
            members.append(m)
        geom = Geom(name, members, factory_srid)
    else:
        raise JavaException(f"ParseException: Unknown WKB type {kind}")
    if srid != 0:
        geom.srid = srid
    return geom


def read_wkb(data: bytes, geography: bool) -> Geom:
    """``WKBReader.read`` (JTS 1.20, not strict) with Pinot's geometry or geography factory: EWKB's SRID is
    kept (so an SRID of 4326 makes a geography even through ST_GeomFromWKB), Z and M read and dropped, bytes
    after the geometry ignored."""
    return _wkb_geometry(_WkbStream(bytes(data)), 0, GEOGRAPHY_SRID if geography else 0)


# --- GeoJSON reading --------------------------------------------------------------------------------

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_JSON_NUMBER = re.compile(r"-?[0-9]+((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)")
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_VALUE, _LEFT_BRACE, _RIGHT_BRACE, _LEFT_SQUARE, _RIGHT_SQUARE, _COMMA, _COLON, _EOF = range(8)
_PUNCTUATION = {"{": _LEFT_BRACE, "}": _RIGHT_BRACE, "[": _LEFT_SQUARE, "]": _RIGHT_SQUARE, ",": _COMMA, ":": _COLON}


def _json_tokens(text: str):
    """json-simple 1.1.1's lexer (its JFlex grammar): strings with its escapes (a backslash before anything
    else is kept as a backslash; an unterminated string ends the input), integers as Long (leading zeros taken,
    out of range: NumberFormatException), other numbers as Double, lowercase true / false / null, blanks of
    space, tab, CR and LF only; any other character fails."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c in _PUNCTUATION:
            yield _PUNCTUATION[c], None
            i += 1
        elif c == '"':
            out, i = [], i + 1
            while True:
                if i >= n:  # the end of input inside a string: the lexer returns no token, the parser sees EOF
                    yield _EOF, None
                    return
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and text[i + 1] in _JSON_ESCAPES:
                    out.append(_JSON_ESCAPES[text[i + 1]])
                    i += 2
                elif c == "\\" and text[i + 1:i + 2] == "u" and _HEX4.fullmatch(text[i + 2:i + 6]):
                    out.append(chr(int(text[i + 2:i + 6], 16)))
                    i += 6
                else:
                    out.append(c)
                    i += 1
            yield _VALUE, "".join(out)
        else:
            number = _JSON_NUMBER.match(text, i)
            if number:
                if number.group(1):
                    yield _VALUE, float(number.group(0))
                else:
                    value = int(number.group(0))
                    if not _LONG_MIN <= value <= _LONG_MAX:
                        raise JavaException(f'NumberFormatException: For input string: "{number.group(0)}"')
                    yield _VALUE, value
                i = number.end()
                continue
            for word, value in (("true", True), ("false", False), ("null", None)):
                if text.startswith(word, i):
                    yield _VALUE, value
                    i += len(word)
                    break
            else:
                raise JavaException(f"ParseException: Unexpected character ({c}) at position {i}.")
    yield _EOF, None


_INIT, _FINISHED, _IN_OBJECT, _PASSED_KEY, _IN_ARRAY = range(5)


def _parse_json(text: str):
    """json-simple 1.1.1's ``JSONParser.parse``, lenient as it is: commas are skipped wherever they are
    (missing, doubled, trailing), a key's colon may be left out, a value must be followed by the end."""
    status, statuses, values = _INIT, [], []

    def error():
        raise JavaException("ParseException: Unexpected token")

    def open_container(container, new_status):
        nonlocal status
        status = new_status
        statuses.append(status)
        values.append(container)

    for kind, value in _json_tokens(text):
        if status == _INIT:
            if kind == _VALUE:
                status = _FINISHED
                statuses.append(status)
                values.append(value)
            elif kind == _LEFT_BRACE:
                open_container({}, _IN_OBJECT)
            elif kind == _LEFT_SQUARE:
                open_container([], _IN_ARRAY)
            else:
                error()
        elif status == _FINISHED:
            if kind == _EOF:
                return values.pop()
            error()
        elif status == _IN_OBJECT:
            if kind == _COMMA:
                pass
            elif kind == _VALUE and isinstance(value, str):
                values.append(value)
                status = _PASSED_KEY
                statuses.append(status)
            elif kind == _RIGHT_BRACE:
                if len(values) > 1:
                    statuses.pop()
                    values.pop()
                    status = statuses[-1] if statuses else -1
                else:
                    status = _FINISHED
            else:
                error()
        elif status == _PASSED_KEY:
            if kind == _COLON:
                pass
            elif kind in (_VALUE, _LEFT_SQUARE, _LEFT_BRACE):
                statuses.pop()
                key = values.pop()
                if kind == _VALUE:
                    values[-1][key] = value
                    status = statuses[-1] if statuses else -1
                else:
                    container = [] if kind == _LEFT_SQUARE else {}
                    values[-1][key] = container
                    open_container(container, _IN_ARRAY if kind == _LEFT_SQUARE else _IN_OBJECT)
            else:
                error()
        elif status == _IN_ARRAY:
            if kind == _COMMA:
                pass
            elif kind == _VALUE:
                values[-1].append(value)
            elif kind == _RIGHT_SQUARE:
                if len(values) > 1:
                    statuses.pop()
                    values.pop()
                    status = statuses[-1] if statuses else -1
                else:
                    status = _FINISHED
            elif kind in (_LEFT_BRACE, _LEFT_SQUARE):
                container = {} if kind == _LEFT_BRACE else []
                values[-1].append(container)
                open_container(container, _IN_OBJECT if kind == _LEFT_BRACE else _IN_ARRAY)
            else:
                error()
        else:
            error()
    error()


def _gj_double(value) -> float:
    """``Number.doubleValue()`` of a list element: anything but a number is a ClassCastException / NPE."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise JavaException("ClassCastException: not a Number")
    return float(value)


def _gj_list(value) -> list:
    if not isinstance(value, list):
        raise JavaException("ClassCastException: not a List")
    return value


def _gj_sequence_of(coordinates) -> list:
    """``createCoordinateSequence``: a missing list is empty; a coordinate's missing ordinates are 0 (a Z, the
    third, must still be a number; more are not looked at)."""
    out = []
    for ordinates in _gj_list(coordinates if coordinates is not None else []):
        ordinates = _gj_list(ordinates)
        xyz = [_gj_double(v) for v in ordinates[:3]]
        out.append((xyz[0] if xyz else 0.0, xyz[1] if len(xyz) > 1 else 0.0))
    return out


def _gj_create(obj, srid: int) -> Geom:
    if not isinstance(obj, dict):
        raise JavaException("NullPointerException" if obj is None else "ClassCastException: not a Map")
    kind = obj.get("type")
    if kind is None:
        raise JavaException("ParseException: Could not parse Geometry from Json string.  No 'type' property found.")
    if not isinstance(kind, str):
        raise JavaException("ClassCastException: 'type' is not a String")
    coordinates = obj.get("coordinates")
    if kind == "Point":
        if coordinates is None or not _gj_list(coordinates):
            return Geom("Point", None, srid)
        xyz = [_gj_double(v) for v in coordinates[:3]]
        return Geom("Point", (xyz[0], xyz[1] if len(xyz) > 1 else 0.0), srid)
    if kind == "LineString":
        return line_string(_gj_sequence_of(coordinates), srid)
    if kind == "Polygon":
        if coordinates is None or not _gj_list(coordinates):
            return Geom("Polygon", [], srid)
        rings = [linear_ring(_gj_sequence_of(r)).parts for r in coordinates]
        return Geom("Polygon", polygon(rings[0], rings[1:]).parts, srid)
    if kind == "MultiPoint":
        return Geom("MultiPoint", [Geom("Point", c, srid) for c in _gj_sequence_of(coordinates)], srid)
    if kind == "MultiLineString":
        if coordinates is None:
            raise JavaException("NullPointerException")
        return Geom("MultiLineString", [line_string(_gj_sequence_of(c), srid) for c in _gj_list(coordinates)], srid)
    if kind == "MultiPolygon":
        if coordinates is None:
            raise JavaException("NullPointerException")
        polygons = []
        for rings_list in _gj_list(coordinates):
            rings = [linear_ring(_gj_sequence_of(r)).parts for r in _gj_list(rings_list)]
            if not rings:
                # skipped, leaving a null at the array's end: the MultiPolygon then refuses null elements
                raise JavaException("IllegalArgumentException: geometries must not contain null elements")
            polygons.append(Geom("Polygon", polygon(rings[0], rings[1:]).parts, srid))
        return Geom("MultiPolygon", polygons, srid)
    if kind == "GeometryCollection":
        members = obj.get("geometries")
        if members is None:
            raise JavaException("NullPointerException")
        return Geom("GeometryCollection", [_gj_create(m, srid) for m in _gj_list(members)], srid)
    if kind == "Feature":
        return _gj_create(obj.get("geometry"), srid)
    if kind == "FeatureCollection":
        features = obj.get("features")
        if features is None:
            raise JavaException("NullPointerException")
        return Geom("GeometryCollection", [_gj_feature(f, srid) for f in _gj_list(features)], srid)
    raise JavaException(f"ParseException: Could not parse Geometry from GeoJson string.  Unsupported 'type':{kind}")


def _gj_feature(obj, srid: int) -> Geom:
    if not isinstance(obj, dict):
        raise JavaException("NullPointerException" if obj is None else "ClassCastException: not a Map")
    return _gj_create(obj.get("geometry"), srid)


def read_geojson(text: str, geography: bool) -> Geom:
    """``GeoJsonReader.read`` (jts-io-common 1.19.0 over json-simple 1.1.1) with Pinot's factory, whose SRID wins
    over any ``crs`` member (it is not read)."""
    obj = _parse_json(text)
    if obj is not None and not isinstance(obj, dict):
        raise JavaException("ParseException: Could not parse Geometry from Json string.")
    return _gj_create(obj, GEOGRAPHY_SRID if geography else 0)
