"""More StringFunctions, the byte/encoding functions and HashFunctions against their Java semantics.

References are computed here independently: Java's String operations on UTF-16 code units, ``URLEncoder``
from its documented rules, digests and checksums with hashlib / zlib / mmh3, and the values Pinot's own
HashFunctionsTest asserts (Java's outputs) for the hashes nothing else computes.
"""
from __future__ import annotations

import base64
import hashlib
import zlib

import mmh3
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from javalib.charsets import new_string_utf8
from pinot_sink.ingestion import IngestionPipeline
from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.expression import ExpressionError
from pinot_sink.ingestion import lone_surrogates
from pinot_sink.ingestion.values import Context, IngestionError
from type_mapping.pinot_schema import PinotSchema
from type_mapping.table_config import TableConfig

TEXT = st.text(alphabet="ab-é😀 ", max_size=8)


def evaluate(text: str, continue_on_error: bool = False, **columns):
    table = {name: (values if isinstance(values, pa.Array) else pa.array(values)) for name, values in columns.items()}
    n = len(next(iter(table.values())))
    ctx = Context(n, 0, continue_on_error)
    ctx.where = text
    # a batch's markers for lone surrogates, as the pipeline has them; the values read back as Java's Strings
    with lone_surrogates.scope(lambda: lone_surrogates.pool_characters(table.values())) as lone:
        return java_strings(Expression(text).evaluate_array(table, ctx).to_pylist(), lone), ctx


def java_strings(value, lone):
    """Texts with each lone surrogate's marker the surrogate itself (a Python str can hold one), as Java has it."""
    if isinstance(value, str):
        return lone.java_chars(value)
    return [java_strings(v, lone) for v in value] if isinstance(value, list) else value


def units(s: str) -> list[int]:
    b = s.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(b[i:i + 2], "little") for i in range(0, len(b), 2)]


def from_units(u: list[int]) -> str:
    return b"".join(x.to_bytes(2, "little") for x in u).decode("utf-16-le", "surrogatepass")  # a cut pair: lone


def index_of(hay: list[int], needle: list[int], start: int = 0) -> int:
    for i in range(max(start, 0), len(hay) - len(needle) + 1):
        if hay[i:i + len(needle)] == needle:
            return i
    return -1


def last_index_of(hay: list[int], needle: list[int], start: int) -> int:
    for i in range(min(start, len(hay) - len(needle)), -1, -1):
        if hay[i:i + len(needle)] == needle:
            return i
    return -1


# --- strings ---------------------------------------------------------------------------------------------


@given(st.lists(TEXT, min_size=1, max_size=12), st.text(alphabet="ab😀", min_size=0, max_size=2),
       st.integers(-1, 4), st.integers(-2, 12))
@settings(deadline=None)
def test_positions_count_utf16_units(values, find, instance, start):
    column = pa.array(values, pa.string())

    def ordinal(s):
        if instance <= 0:
            return -1
        if find == "":
            return 0
        index = -1
        for _ in range(instance):
            index = index_of(units(s), units(find), index + 1)
            if index < 0:
                return -1
        return index

    assert evaluate(f"strpos(s, '{find}')", s=column)[0] == [index_of(units(v), units(find)) for v in values]
    assert evaluate(f"strpos(s, '{find}', {instance})", s=column)[0] == [ordinal(v) for v in values]
    assert evaluate(f"strrpos(s, '{find}')", s=column)[0] == \
        [last_index_of(units(v), units(find), len(units(v))) for v in values]
    assert evaluate(f"strrpos(s, '{find}', {start})", s=column)[0] == \
        [-1 if start < 0 else last_index_of(units(v), units(find), start) for v in values]


@given(st.lists(TEXT, min_size=1, max_size=12), st.integers(-3, 10))
@settings(deadline=None)
def test_left_right_and_one_based_substring(values, n):
    column = pa.array(values, pa.string())
    assert evaluate(f"leftSubStr(s, {n})", s=column)[0] == ["" if n < 0 else from_units(units(v)[:n]) for v in values]
    assert evaluate(f"right(s, {n})", s=column)[0] == \
        ["" if n < 0 else (v if n >= len(units(v)) else from_units(units(v)[len(units(v)) - n:])) for v in values]

    def substring(v, begin, length):  # StringUtils.substring(v, begin - 1, begin - 1 + length)
        u = units(v)
        b, e = begin - 1, begin - 1 + length
        b, e = (b + len(u) if b < 0 else b), (e + len(u) if e < 0 else e)
        b, e = max(b, 0), min(e, len(u))
        return "" if b > e else from_units(u[b:e])

    assert evaluate(f"substring(s, 2, {n})", s=column)[0] == [substring(v, 2, n) for v in values]


@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=10))
@settings(deadline=None)
def test_distances_and_compare_on_utf16_units(pairs):
    a = pa.array([p[0] for p in pairs], pa.string())
    b = pa.array([p[1] for p in pairs], pa.string())

    def levenshtein(x, y):
        x, y = units(x), units(y)
        d = [[i + j if i * j == 0 else 0 for j in range(len(y) + 1)] for i in range(len(x) + 1)]
        for i in range(1, len(x) + 1):
            for j in range(1, len(y) + 1):
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] != y[j - 1]))
        return d[-1][-1]

    def compare(x, y):
        x, y = units(x), units(y)
        diffs = [p - q for p, q in zip(x, y) if p != q]
        return diffs[0] if diffs else len(x) - len(y)

    assert evaluate("levenshteinDistance(a, b)", a=a, b=b)[0] == [levenshtein(*p) for p in pairs]
    assert evaluate("hammingDistance(a, b)", a=a, b=b)[0] == \
        [-1 if len(units(x)) != len(units(y)) else sum(p != q for p, q in zip(units(x), units(y))) for x, y in pairs]
    assert evaluate("strcmp(a, b)", a=a, b=b)[0] == [compare(*p) for p in pairs]


def test_string_edge_cases():
    assert evaluate("repeat(s, 3)", s=["ab", ""])[0] == ["ababab", ""]
    assert evaluate("repeat(s, '-', 3)", s=["ab"])[0] == ["ab-ab-ab"]
    assert evaluate("repeat(s, -1)", s=["ab"])[0] == [""]
    assert evaluate("codepoint(s)", s=["😀x", "A"])[0] == [0x1F600, 65]
    with pytest.raises(IngestionError, match="row 1: StringIndexOutOfBoundsException"):
        evaluate("codepoint(s)", s=["a", ""])
    assert evaluate("chr(c)", c=[65, 0x1F600])[0] == ["A", "😀"]
    out, ctx = evaluate("chr(c)", True, c=[-1, 0x110000, 66])
    assert out == [None, None, "B"] and ctx.errors.tolist() == [True, True, False]
    assert evaluate("ascii(s)", s=["hello", "", "😀"])[0] == [104, 0, 0xD83D]
    assert evaluate("space(n)", n=[0, 3, -1])[0] == ["", "   ", ""]
    assert evaluate("normalize(s)", s=["e\u0301"])[0] == ["\u00e9"]
    assert evaluate("normalize(s, 'NFKD')", s=["\ufb01"])[0] == ["fi"]
    with pytest.raises(ExpressionError, match="normalization form"):
        Expression("normalize(s, 'nfc')")
    assert evaluate("remove(s, 'an')", s=["banana", None])[0] == ["ba", None]
    assert evaluate("octetLength(s)", s=["é😀"])[0] == [6]
    assert evaluate("charLength(s)", s=["é😀"])[0] == [2]
    assert evaluate("length(s)", s=["é😀"])[0] == [3]
    assert evaluate("firstLine(s)", s=["a\r\nb", "x"])[0] == ["a", "x"]
    assert evaluate("substringIndex(s, '.', 2)", s=["www.apache.org", "a"])[0] == ["www.apache", "a"]
    assert evaluate("substringIndex(s, '.', -2)", s=["www.apache.org"])[0] == ["apache.org"]
    assert evaluate("substringIndex(s, 'aa', -1)", s=["xaaay"])[0] == ["y"]  # the last start, overlapping
    assert evaluate("isValidASCII(s)", s=["abc", "é"])[0] == [True, False]


def java_split(s: str, sep: str, limit: int) -> list[str]:
    """``splitByWholeSeparatorWorker`` written from its loop: find the separator from ``begin``; a token only
    when non-empty; no separator left: the rest (even "") is the last token; the limit-th token is the rest."""
    out, begin = [], 0
    if s == "":
        return out
    while True:
        end = s.find(sep, begin)
        if end == -1:
            out.append(s[begin:])
            return out
        if end > begin:
            if len(out) + 1 == limit:
                out.append(s[begin:])
                return out
            out.append(s[begin:end])
        begin = end + len(sep)
        if begin >= len(s) and end + len(sep) == len(s):
            out.append("")
            return out


@given(st.lists(st.text(alphabet="ab,", max_size=8), min_size=1, max_size=12), st.sampled_from([",", "ab", ",,"]),
       st.integers(-1, 3))
@settings(deadline=None)
def test_split_is_split_by_whole_separator(values, sep, limit):
    column = pa.array(values, pa.string())
    assert evaluate(f"split(s, '{sep}')", s=column)[0] == [java_split(v, sep, -1) for v in values]
    assert evaluate(f"split(s, '{sep}', {limit})", s=column)[0] == [java_split(v, sep, limit) for v in values]


def test_split_on_white_space_is_java_white_space():
    s = ["a  b\u00a0c\x85d\u2003e", "  "]
    assert evaluate("split(s, '')", s=s)[0] == [["a", "b\u00a0c\x85d", "e"], []]
    assert evaluate("split(s, '', 2)", s=s)[0] == [["a", "b\u00a0c\x85d\u2003e"], []]
    assert evaluate("splitPart(s, '', 1)", s=s)[0] == ["b\u00a0c\x85d", "null"]


def test_case_translate_overlay_trim_and_affixes():
    assert evaluate("initcap(s)", s=["hello WORLD\tfoo", "ßa İX", "a\u00a0b"])[0] == \
        ["Hello World\tFoo", "ßa İx", "A\u00a0b"]  # 'ß' has no one-character upper case; U+00A0 is no space
    assert evaluate("startsWithCaseInsensitive(s, 'HEL')", s=["hello", "he", "Hélo"])[0] == [True, False, False]
    assert evaluate("endsWithCaseInsensitive(s, 'LO')", s=["hello", "o"])[0] == [True, False]
    # translate(a, b, c), overlay(s, r, n) and trim('BOTH', c, s) do not parse in Pinot: the SQL forms do
    assert evaluate("OVERLAY(s PLACING 'XY' FROM 2)", s=["abcdef"])[0] == ["aXYdef"]
    assert evaluate("OVERLAY(s PLACING 'XY' FROM 2 FOR 0)", s=["abcdef"])[0] == ["aXYbcdef"]
    assert evaluate("OVERLAY(s PLACING 'XY' FROM 10 FOR 3)", s=["abc"])[0] == ["abcXY"]
    assert evaluate("TRIM(LEADING 'xy' FROM s)", s=["xyaxy"])[0] == ["axy"]
    assert evaluate("TRIM(BOTH 'xy' FROM s)", s=["xyaxy", "xx"])[0] == ["a", ""]
    assert evaluate("prefixes(s, 3)", s=["abcd", "a😀"])[0] == [["a", "ab", "abc"], ["a", "a\ud83d", "a😀"]]
    assert evaluate("prefixesWithPrefix(s, 2, p)", s=["abcd", "xy"], p=["#", None])[0] == \
        [["#a", "#ab"], ["x", "xy"]]  # nullable: a null prefix is none
    out, ctx = evaluate("suffixesWithSuffix(s, 2, '_')", True, s=["abcd", None])
    assert out == [["d_", "cd_"], None] and ctx.errors.tolist() == [False, True]  # NullPointerException


def test_upper_and_lower_use_java_full_case_mappings():
    # String.toUpperCase / toLowerCase map whole strings: 'ß' -> "SS", the ligature 'ﬀ' -> "FF", 'İ' -> 'i' and
    # a combining dot, a final capital sigma -> 'ς' (values from Java's String).
    assert evaluate("upper(s)", s=["straße", "ﬀ", "abc", None])[0] == ["STRASSE", "FF", "ABC", None]
    assert evaluate("lower(s)", s=["İs", "ΟΔΟΣ ΑΣ.Σ", "ABC"])[0] == ["i\u0307s", "οδος ασ.ς", "abc"]


@given(st.lists(st.one_of(st.none(), st.text(alphabet="aZ .ÄüßİıΣσΟﬀᾳǅ😀𐐀", max_size=8)), min_size=1, max_size=30))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_case_mappings_take_arrows_kernel_only_where_it_maps_as_java(values):
    """A batch whose text has none of the characters Java maps otherwise than Arrow's per-character kernel
    (found on its distinct non-ASCII values) takes the kernel: every batch must read as the full mapping."""
    for name, mapping in (("lower", str.lower), ("upper", str.upper)):
        expected = [None if v is None else mapping(v) for v in values]
        assert evaluate(f"{name}(s)", s=pa.array(values, pa.string()))[0] == expected, name
        # a slice of a longer array: only its own bytes count
        sliced = pa.array(["ß ΟΣ"] + values + ["ß ΟΣ"], pa.string()).slice(1, len(values))
        assert evaluate(f"{name}(s)", s=sliced)[0] == expected, name


def test_overlay_rejoins_a_cut_surrogate_pair_and_affixes_reject_a_negative_length():
    # Java concatenates UTF-16 substrings: the two halves of a pair cut at the overlay point meet again.
    assert evaluate("OVERLAY(s PLACING '' FROM 2 FOR -2)", s=["😀x"])[0] == ["😀x"]
    assert evaluate("OVERLAY(s PLACING '' FROM 2)", s=["😀x"])[0] == ["😀x"]
    # new String[Math.min(maxlength, length)]: a negative length throws NegativeArraySizeException
    for text in ("prefixes(s, n)", "suffixes(s, n)", "prefixesWithPrefix(s, n, '#')", "suffixesWithSuffix(s, n, p)"):
        out, ctx = evaluate(text, True, s=["ab", "ab"], n=pa.array([-1, 1], pa.int32()), p=["#", "#"])
        assert ctx.errors.tolist() == [True, False] and out[0] is None, text
    with pytest.raises(IngestionError, match="row 0: NegativeArraySizeException"):
        evaluate("prefixes(s, -1)", s=["ab"])


# --- bytes and encodings -----------------------------------------------------------------------------------


def java_url_encode(s: str) -> str:
    out = []
    for ch in s:
        if ch.isascii() and (ch.isalnum() or ch in ".-*_"):
            out.append(ch)
        elif ch == " ":
            out.append("+")
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
    return "".join(out)


@given(st.lists(st.text(max_size=10).filter(lambda t: "\x00" not in t), min_size=1, max_size=10))
@settings(deadline=None)
def test_url_encode_and_decode_round_trip(values):
    column = pa.array(values, pa.string())
    encoded, _ = evaluate("encodeUrl(s)", s=column)
    assert encoded == [java_url_encode(v) for v in values]
    assert evaluate("decodeUrl(s)", s=pa.array(encoded, pa.string()))[0] == values


def test_url_decode_java_errors_and_leniency():
    assert evaluate("decodeUrl(s)", s=["a+b%20c", "%e2%82%ac", "%+1", "%C3"])[0] == ["a b c", "€", "\x01", "\ufffd"]
    for bad in ("%", "%4", "abc%zz", "%-1"):
        with pytest.raises(IngestionError, match="URLDecoder"):
            evaluate("decodeUrl(s)", s=[bad])
        assert evaluate("urlDecode(s)", s=[bad, "a+b"])[0] == [None, "a b"]  # UrlFunctions: null instead
    assert evaluate("urlEncodeFormComponent(s)", s=["a b~*"])[0] == ["a+b%7E*"]


@given(st.lists(st.binary(max_size=12), min_size=1, max_size=10))
@settings(deadline=None)
def test_bytes_functions_read_a_string_argument_as_hex(values):
    hex_text = pa.array([b.hex().upper() for b in values], pa.string())
    assert evaluate("toBase64(h)", h=hex_text)[0] == [base64.b64encode(b).decode() for b in values]
    assert evaluate("fromBase64(toBase64(h))", h=hex_text)[0] == values
    assert evaluate("bytesToHex(h)", h=hex_text)[0] == [b.hex() for b in values]
    assert evaluate("hexToBytes(h)", h=hex_text)[0] == values
    assert evaluate("base64Decode(base64Encode(b))", b=pa.array(values, pa.binary()))[0] == values
    assert evaluate("fromUtf8(b)", b=pa.array(values, pa.binary()))[0] == \
        [new_string_utf8(b) for b in values]  # Java's replacement (the fixture test below holds Java's answers)
    assert evaluate("fromAscii(b)", b=pa.array(values, pa.binary()))[0] == \
        [b.decode("ascii", "replace") for b in values]


def test_bytes_edge_cases():
    assert evaluate("toUtf8(s)", s=["é"])[0] == [b"\xc3\xa9"]
    assert evaluate("toAscii(s)", s=["aé😀"])[0] == [b"a??"]
    assert evaluate("fromUtf8(s)", s=[" 68656C6C6F "])[0] == ["hello"]  # STRING -> byte[]: trimmed hex
    with pytest.raises(IngestionError, match="row 0: IllegalArgumentException: Value: hello is not Hex"):
        evaluate("fromUtf8(s)", s=["hello"])
    with pytest.raises(IngestionError, match="not Hex"):
        evaluate("hexToBytes(s)", s=[" 00"])  # hexToBytes takes a String: no trim
    assert evaluate("fromBase64(s)", s=["QQ", "QUI", "QUJD", ""])[0] == [b"A", b"AB", b"ABC", b""]
    for bad in ("Q", "QQ=", "QUJD=", "QQ==QQ==", "QU JD", "QUI=="):
        out, ctx = evaluate("fromBase64(s)", True, s=[bad])
        assert out == [None] and ctx.errors.tolist() == [True], bad
    assert evaluate("hexDecimalToLong(s)", s=["0xff", "-ff", "7fffffffffffffff"])[0] == [255, -255, 2**63 - 1]
    # Long.parseLong reads digits with Character.digit: any BMP decimal digit, fullwidth Latin letters (Java)
    out, ctx = evaluate("hexDecimalToLong(s)", True, s=["\u0663", "\uff21\uff41", "0x-1", "-", "\U0001d7ce", "0x"])
    assert out == [3, 170, -1, None, None, None] and ctx.errors.tolist() == [False] * 3 + [True] * 3
    with pytest.raises(IngestionError, match="NumberFormatException"):
        evaluate("hexDecimalToLong(s)", s=["8000000000000000"])
    assert evaluate("longToHexDecimal(v)", v=pa.array([255, -1], pa.int64()))[0] == ["ff", "ffffffffffffffff"]
    with pytest.raises(IngestionError, match="Cannot convert value from LONG to BYTES"):
        evaluate("md5(v)", v=pa.array([1], pa.int64()))


# --- hashes ------------------------------------------------------------------------------------------------


def test_hashes_match_the_values_pinot_asserts():
    t = pa.array([b"testString"], pa.binary())
    expected = {
        "sha": "956265657d0b637ef65b9b59f9f858eecf55ed6a",
        "sha224": "bb54d1095764bff72b570dcdc3172ed6d1b26695494528a0059c95ae",
        "sha256": "4acf0b39d9c4766709a3689f553ac01ab550545ffa4544dfc0b2cea82fba02a3",
        "md5": "536788f4dbdffeecfbb8f350a941eea3",
        "murmurHash2": -534425817, "murmurHash2Bit64": 3907736674355139845, "adler32": 392102968,
        "crc32": 418708744, "crc32c": -1608760557,
    }
    for name, value in expected.items():
        assert evaluate(f"{name}(t)", t=t)[0] == [value], name
    assert evaluate("murmurHash2UTF8(s)", s=["testString"])[0] == [-534425817]
    assert evaluate("murmurHash2Bit64(t, 12345)", t=t)[0] == [-2138976126980760436]
    assert evaluate("murmurHash3Bit32(t, 0)", t=t)[0] == [-1435605585]
    assert evaluate("murmurHash3Bit64(t, 0)", t=t)[0] == [-3652179990542706350]
    assert evaluate("murmurHash3Bit128(t, 0)", t=t)[0] == \
        [bytes(b % 256 for b in [82, -103, -23, 15, -90, -39, 80, -51, 15, 73, -81, -28, 111, -21, -78, 108])]
    assert evaluate("murmurHash3X64Bit32(t, 0)", t=t)[0] == [-1096986291]
    assert evaluate("murmurHash3X64Bit64(t, 0)", t=t)[0] == [-1096986291]
    assert evaluate("murmurHash3X64Bit128(t, 0)", t=t)[0] == \
        [bytes(b % 256 for b in [-66, -99, 81, 77, -7, 29, 124, 76, 42, 38, -34, -42, -92, -83, 83, 13])]
    assert evaluate("crc32c(t)", t=pa.array([b"123456789"], pa.binary()))[0] == [0xE3069283 - 2**32]


def signed(v: int, bits: int) -> int:
    return v - 2**bits if v >= 2**(bits - 1) else v


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=8), st.integers(0, 2**31 - 1))
@settings(deadline=None)
def test_hashes_match_independent_implementations(values, seed):
    t = pa.array(values, pa.binary())
    assert evaluate("sha512(t)", t=t)[0] == [hashlib.sha512(v).hexdigest() for v in values]
    assert evaluate("sha224(t)", t=t)[0] == [hashlib.sha3_224(v).hexdigest() for v in values]  # SHA3, not SHA-2
    assert evaluate("crc32(t)", t=t)[0] == [signed(zlib.crc32(v), 32) for v in values]
    assert evaluate("adler32(t)", t=t)[0] == [signed(zlib.adler32(v), 32) for v in values]
    assert evaluate(f"murmurHash3Bit32(t, {seed})", t=t)[0] == [mmh3.hash(v, seed) for v in values]
    assert evaluate(f"murmurHash3Bit128(t, {seed})", t=t)[0] == [mmh3.hash_bytes(v, seed) for v in values]
    assert evaluate(f"murmurHash3Bit64(t, {seed})", t=t)[0] == \
        [signed(int.from_bytes(mmh3.hash_bytes(v, seed)[:8], "little"), 64) for v in values]

    def fnv(v, bits, alternate):
        prime = 0x01000193 if bits == 32 else 0x100000001B3
        h = 0x811C9DC5 if bits == 32 else 0xCBF29CE484222325
        for byte in v:
            h = ((h ^ byte) * prime if alternate else (h * prime) ^ byte) % 2**bits
        return signed(h, bits)

    assert evaluate("fnv1Hash32(t)", t=t)[0] == [fnv(v, 32, False) for v in values]
    assert evaluate("fnv1aHash64(t)", t=t)[0] == [fnv(v, 64, True) for v in values]
    text = [v.hex() for v in values]
    assert evaluate("fnv1aHash32UTF8(s)", s=text)[0] == [fnv(s.encode(), 32, True) for s in text]


def test_hash_of_text_is_of_its_hex_bytes_and_md5_through_a_pipeline():
    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "digest", "dataType": "STRING"}, {"name": "domain", "dataType": "STRING"},
        {"name": "code", "dataType": "STRING"}]})
    table_config = {"tableName": "t", "ingestionConfig": {"transformConfigs": [
        {"columnName": "digest", "transformFunction": "md5(toUtf8(email))"},
        {"columnName": "domain", "transformFunction": "regexpExtract(email, '@([a-z.]+)$', 1, 'none')"},
        {"columnName": "code", "transformFunction": "encodeUrl(concat(upper(email), ' x', ''))"}],
        "filterConfig": {"filterFunction": "regexpLike(email, '^test')"}}}
    table = pa.table({"email": ["a@example.com", "test@x.org", "b@SHOUT.COM", None]})
    pipeline = IngestionPipeline.from_configs(schema, TableConfig.from_json(table_config, schema), table.schema)
    out = pipeline.apply(table, 0).table
    kept = ["a@example.com", "b@SHOUT.COM", None]
    assert out.column("digest").to_pylist() == [None if e is None else hashlib.md5(e.encode()).hexdigest()
                                                for e in kept]
    assert out.column("domain").to_pylist() == ["example.com", "none", None]
    assert out.column("code").to_pylist() == ["A%40EXAMPLE.COM+x", "B%40SHOUT.COM+x", None]


def test_ip_forms_not_reproduced_fail_the_row_with_the_reason():
    """A wildcard or range address (a multi-valued address in Pinot's IPAddress library) is not guessed: the
    row fails naming the form, under continueOnError it is null and counted (tests/fixtures/functions/ip.jsonl
    holds Pinot's answers for the forms that are reproduced)."""
    import pyarrow as pa

    from pinot_sink.ingestion.evaluate import Expression
    from pinot_sink.ingestion.values import Context, IngestionError

    column = pa.array(["1.2.3.4", "1.2.*.*", "10.0.0.0-255"])
    ctx = Context(3, 0, True)
    out = Expression("ipv4ToLong(a)").evaluate_array({"a": column}, ctx)
    assert out.to_pylist() == [16909060, None, None] and ctx.errors.tolist() == [False, True, True]
    with pytest.raises(IngestionError, match="row 1: .*a wildcard or a range"):
        Expression("isIPv4String(a)").evaluate_array({"a": column}, Context(3, 0, False))


@pytest.mark.parametrize("kind,default", [("String", "'dflt'"), ("Long", "-7"), ("Double", "-7.5")])
def test_the_fory_json_path_variants_give_the_plain_functions_values(kind, default):
    """jsonPath{String,Long,Double}Fory take Jayway's path in Pinot's default build (no fory-json on the class
    path: JsonFunctions.foryJsonPath falls back), so they store what the plain three-argument form stores, on
    the documents and paths Pinot's own build gave the plain form's values for (json_fast.jsonl)."""
    import json
    from pathlib import Path

    lines = (Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "json_fast.jsonl").read_text().splitlines()
    docs = [json.loads(line)["row"]["j"] for line in lines[1:] if line.strip()]
    paths = {t["transformFunction"].split("'")[1] for t in json.loads(lines[0])["table_config"]["ingestionConfig"]
             ["transformConfigs"]}
    assert len(paths) > 3 and len(docs) >= 10
    for path in paths:
        fory, _ = evaluate(f"jsonPath{kind}Fory(j, '{path}', {default})", True, j=docs)
        plain, _ = evaluate(f"jsonPath{kind}(j, '{path}', {default})", True, j=docs)
        assert fory == plain, path


@pytest.mark.parametrize("text", ["jsonExtractKey(j, j)", "jsonExtractKey(j, concat('$', '.*'))",
                                  "jsonExtractKey(j, '$.*', j)"])
def test_json_extract_key_wants_literal_path_and_parameters_as_pinots_parser_does(text):
    # ParserUtils.validateJsonExtractKeyFunction: Pinot's build fails on such a config (seen with pinot-verify)
    with pytest.raises(ExpressionError, match="must be a single-quoted literal"):
        Expression(text)
    assert evaluate("jsonExtractKey(j, '$.*')", j=['{"a": 1}'])[0] == [["$['a']"]]


def test_a_cut_surrogate_in_a_literal_is_javas_lone_surrogate():
    # a literal's '\ude00' is the marker of its unit, as one cut from a column is (it crashed the build before)
    values, ctx = evaluate("isNotDistinctFrom(substr(s, 1), '\ude00x')", s=["\U0001f600x", "x", None])
    assert values == [True, False, False] and ctx.errors is None
    assert evaluate("length('\ud83d')", s=["a"])[0] == [1]
    assert evaluate("concat('\ud83d', '\ude00')", s=["a"])[0] == ["\U0001f600"]


def test_a_json_path_is_trimmed_of_spaces_as_jayways_path_compiler_does():
    # CharacterIndex.trim takes the spaces off both ends, but the leading "$" is looked for at the untrimmed first
    # character: " $.a" is "$. $.a", an invalid path (refused when the config is read, as any invalid literal path)
    assert evaluate("jsonPathString(j, '$.a  ', 'd')", j=['{"a": "x"}'])[0] == ["x"]
    assert evaluate("jsonPathString(j, 'a ', 'd')", j=['{"a": "x"}'])[0] == ["x"]
    with pytest.raises(ExpressionError, match="not valid|blank"):
        Expression("jsonPathString(j, ' $.a', 'd')")


def test_from_utf8_decodes_malformed_bytes_as_javas_new_string():
    """``fromUtf8`` is ``new String(bytes, UTF_8)``: Java 17's answers for 636 byte strings
    (tests/fixtures/java/utf8_new_string.jsonl); Python's ``replace`` differs on 315 of them (ED A0..BF)."""
    import json
    from pathlib import Path

    from pinot_sink.ingestion.evaluate import Expression
    from pinot_sink.ingestion.values import Context

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "java" / "utf8_new_string.jsonl"
    cases = [json.loads(line) for line in fixture.read_text().splitlines()]
    data = pa.array([bytes.fromhex(c["bytes"]) for c in cases], pa.binary())
    ctx = Context(len(cases))
    ctx.where = "fromUtf8(b)"
    out = Expression("fromUtf8(b)").evaluate_array({"b": data}, ctx).to_pylist()
    assert out == [bytes.fromhex(c["java"]).decode("utf-16-be") for c in cases]


def test_space_into_gigabytes_fails_the_row_naming_the_function_and_the_size():
    # seed 50: cutToFirstSignificantSubdomainWithWWW(space(ia)), an element of 1,379,413,761
    values, _ = evaluate("length(space(n))", True, n=[1_379_413_761, 3, -1])
    assert values == [None, 3, 0]
    with pytest.raises(Exception, match="space\\(n\\) would make a text of 1,379,413,761 characters, over the "
                                        "16,777,216 this package builds"):
        evaluate("space(n)", False, n=[1_379_413_761, 3, -1])


@pytest.mark.parametrize("text", ["repeat(s, n)", "repeat(s, ',', n)", "length(repeat(s, n))"])
def test_repeat_into_gigabytes_fails_the_row_naming_the_function_and_the_size(text):
    # Pinot's JVM builds a text of 1.2 billion characters with heap enough; here the row fails with a clear
    # reason rather than exhausting the machine (or Arrow's 2 GB of text per batch): a deliberate difference
    values, ctx = evaluate(text, True, s=["abc", "abc", None], n=[400_000_000, 2, 1_000_000_000])
    assert values[1] in ("abcabc", "abc,abc", 6) and values[0] is None
    with pytest.raises(Exception, match=r"(repeat\(s, n\) would make a text of 1,200,000,000|repeat\(s, separator, n\)"
                                        r" would make a text of 1,600,000,000) characters, over the 16,777,216 this "
                                        r"package builds"):
        evaluate(text, False, s=["abc", "abc", None], n=[400_000_000, 2, 1_000_000_000])
