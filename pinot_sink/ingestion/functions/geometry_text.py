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

from type_mapping.java_text import java_float_str

from .geometry import GEOGRAPHY_SRID, Geom, line_string, linear_ring, polygon
from .rowwise import JavaThrows

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
    if geom.is_empty():
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
        x = math.floor(x * 1e8 + 0.5) / 1e8
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
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)")


class _Tokens:
    def __init__(self, text: str):
        self.tokens = [m.group(1) or m.group(2) for m in _TOKEN.finditer(text) if m.group(1) or m.group(2)]
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self) -> str | None:
        token = self.peek()
        self.pos += 1
        return token

    def fail(self, expected: str, token: str | None):
        found = "End-of-Stream" if token is None else f"'{token}'"
        raise JavaThrows(f"ParseException: Expected {expected} but found {found}")

    def word(self) -> str:
        token = self.next()
        if token is None or not _is_word(token):
            self.fail("word", token)
        return token

    def number(self) -> float:
        token = self.next()
        if token is None or not _is_word(token):
            self.fail("number", token)
        if token.lower() == "nan":
            return math.nan
        if token.lower() == "inf":
            return math.inf
        if token.lower() == "-inf":
            return -math.inf
        if _JAVA_DOUBLE.fullmatch(token) is None:
            raise JavaThrows(f"ParseException: Invalid number: {token}")
        return float(token.rstrip("fFdD"))

    def number_next(self) -> bool:
        token = self.peek()
        return token is not None and _is_word(token) and not token[0].isalpha()

    def empty_or_opener(self) -> bool:
        """True for EMPTY; consumes '(' (after an optional Z / M / ZM)."""
        token = self.next()
        if token is not None and token.upper() in ("Z", "M", "ZM"):
            token = self.next()
        if token is not None and token.upper() == "EMPTY":
            return True
        if token == "(":
            return False
        self.fail("EMPTY or (", token)

    def closer_or_comma(self) -> str:
        token = self.next()
        if token in (",", ")"):
            return token
        self.fail(", or )", token)

    def closer(self):
        token = self.next()
        if token != ")":
            self.fail(")", token)


def _is_word(token: str) -> bool:
    return token[0].isalnum() or token[0] in "+-." or "\u00a0" <= token[0] <= "\u00ff"


def _coordinate(tokens: _Tokens) -> tuple[float, float]:
    x, y = tokens.number(), tokens.number()
    for _ in range(2):  # a Z and an M, read and dropped (Pinot's bytes are 2-D)
        if tokens.number_next():
            tokens.number()
    return (x, y)


def _coordinates(tokens: _Tokens) -> list:
    if tokens.empty_or_opener():
        return []
    coords = [_coordinate(tokens)]
    while tokens.closer_or_comma() == ",":
        coords.append(_coordinate(tokens))
    return coords


def _list(tokens: _Tokens, read) -> list:
    if tokens.empty_or_opener():
        return []
    items = [read(tokens)]
    while tokens.closer_or_comma() == ",":
        items.append(read(tokens))
    return items


def _point_text(tokens: _Tokens, srid: int) -> Geom:
    if tokens.empty_or_opener():
        return Geom("Point", None, srid)
    point = _coordinate(tokens)
    tokens.closer()
    return Geom("Point", point, srid)


def _polygon_parts(tokens: _Tokens) -> list:
    rings = _list(tokens, lambda t: linear_ring(_coordinates(t)).parts)
    return polygon(rings[0], rings[1:]).parts if rings else []


def _multi_point(tokens: _Tokens, srid: int) -> Geom:
    if tokens.empty_or_opener():
        return Geom("MultiPoint", [], srid)
    points = []
    while True:
        if tokens.number_next():  # the old syntax: MULTIPOINT (1 2, 3 4)
            points.append(Geom("Point", _coordinate(tokens), srid))
        else:
            points.append(_point_text(tokens, srid))
        if tokens.closer_or_comma() == ")":
            return Geom("MultiPoint", points, srid)


def _tagged(tokens: _Tokens, srid: int) -> Geom:
    word = tokens.word().upper()
    for name in ("MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "LINESTRING", "LINEARRING",
                 "POLYGON", "POINT"):  # a type name, then an optional Z / M / ZM suffix
        if word.startswith(name) and word[len(name):] in ("", "Z", "M", "ZM"):
            break
    else:
        raise JavaThrows(f"ParseException: Unknown geometry type: {word}")
    if name == "POINT":
        return _point_text(tokens, srid)
    if name == "LINESTRING":
        return line_string(_coordinates(tokens), srid)
    if name == "LINEARRING":
        return Geom("LinearRing", linear_ring(_coordinates(tokens)).parts, srid)
    if name == "POLYGON":
        return Geom("Polygon", _polygon_parts(tokens), srid)
    if name == "MULTIPOINT":
        return _multi_point(tokens, srid)
    if name == "MULTILINESTRING":
        return Geom("MultiLineString", _list(tokens, lambda t: line_string(_coordinates(t), srid)), srid)
    if name == "MULTIPOLYGON":
        return Geom("MultiPolygon", _list(tokens, lambda t: Geom("Polygon", _polygon_parts(t), srid)), srid)
    return Geom("GeometryCollection", _list(tokens, lambda t: _tagged(t, srid)), srid)


def read_wkt(text: str, geography: bool) -> Geom:
    """``WKTReader.read`` (JTS 1.20) with Pinot's geometry (SRID 0) or geography (4326) factory. Text after the
    geometry is not looked at, as JTS does not."""
    return _tagged(_Tokens(text), GEOGRAPHY_SRID if geography else 0)


