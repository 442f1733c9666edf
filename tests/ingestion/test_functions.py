"""Pinot's scalar functions against their documented Java semantics (nulls, zones, overflow, JSON paths).

Each property compares the vectorised function with a small per-value reference written from the Java
definition (``TimeUnit`` truncation and saturation, Joda's ISO fields in a zone, ``(long) d``...).
"""
from __future__ import annotations

import datetime as dt
import math
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion import lone_surrogates
from pinot_sink.ingestion.values import Context, IngestionError

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
ZONES = ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Asia/Tokyo", "Europe/Berlin", "Australia/Lord_Howe"]
# Instants Joda and Python both handle: years 1..9999
MILLIS = st.integers(min_value=-62_135_596_800_000 + 86_400_000, max_value=253_402_300_799_000 - 86_400_000)


def evaluate(text: str, continue_on_error: bool = False, **columns):
    table = {name: (values if isinstance(values, pa.Array) else pa.array(values)) for name, values in columns.items()}
    n = len(next(iter(table.values())))
    ctx = Context(n, 0, continue_on_error)
    ctx.where = text
    # a batch's markers for lone surrogates, as the pipeline has them; the values read back as Java's Strings
    with lone_surrogates.scope(lambda: lone_surrogates.pool_characters(table.values())) as lone:
        out = Expression(text).evaluate_array(table, ctx)
        return java_strings(out.to_pylist(), lone), ctx


def java_strings(value, lone):
    """Texts with each lone surrogate's marker the surrogate itself (a Python str can hold one), as Java has it."""
    if isinstance(value, str):
        return lone.java_chars(value)
    return [java_strings(v, lone) for v in value] if isinstance(value, list) else value


def java_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def saturate(value: int) -> int:
    return max(LONG_MIN, min(LONG_MAX, value))


@given(st.lists(st.one_of(st.none(), st.integers(LONG_MIN, LONG_MAX)), min_size=1, max_size=30))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_to_epoch_truncates_toward_zero_and_keeps_nulls(values):
    for name, factor in (("Seconds", 1000), ("Minutes", 60_000), ("Hours", 3_600_000), ("Days", 86_400_000)):
        out, _ = evaluate(f"toEpoch{name}(t)", t=pa.array(values, pa.int64()))
        assert out == [None if v is None else java_div(v, factor) for v in values]


@given(st.lists(st.integers(LONG_MIN, LONG_MAX), min_size=1, max_size=30), st.integers(1, 1000))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_from_epoch_saturates_and_bucket_multiplies_with_wrap(values, bucket):
    out, _ = evaluate("fromEpochDays(t)", t=pa.array(values, pa.int64()))
    assert out == [saturate(v * 86_400_000) for v in values]
    out, _ = evaluate(f"fromEpochMinutesBucket(t, {bucket})", t=pa.array(values, pa.int64()))
    wrapped = [((v * bucket - LONG_MIN) % 2**64) + LONG_MIN for v in values]
    assert out == [saturate(w * 60_000) for w in wrapped]


@given(st.lists(MILLIS, min_size=1, max_size=20), st.sampled_from(ZONES))
@settings(max_examples=40, deadline=None)
def test_calendar_fields_in_a_zone(values, zone):
    local = [(dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=v)).astimezone(ZoneInfo(zone))
             for v in values]
    column = pa.array(values, pa.int64())
    assert evaluate(f"hour(t, '{zone}')", t=column)[0] == [d.hour for d in local]
    assert evaluate(f"year(t, '{zone}')", t=column)[0] == [d.year for d in local]
    assert evaluate(f"dayOfWeek(t, '{zone}')", t=column)[0] == [d.isoweekday() for d in local]
    assert evaluate(f"week(t, '{zone}')", t=column)[0] == [d.isocalendar()[1] for d in local]
    assert evaluate(f"quarter(t, '{zone}')", t=column)[0] == [(d.month - 1) // 3 + 1 for d in local]


@given(st.lists(st.integers(0, 4_102_444_800_000), min_size=1, max_size=20),
       st.sampled_from(["America/New_York", "UTC", "Asia/Kolkata"]), st.sampled_from(["DAY", "WEEK", "MONTH"]))
@settings(max_examples=40, deadline=None)
def test_date_trunc_floors_in_local_time(values, zone, unit):
    out, _ = evaluate(f"dateTrunc('{unit}', t, 'MILLISECONDS', '{zone}')", t=pa.array(values, pa.int64()))
    tz = ZoneInfo(zone)
    for v, got in zip(values, out):
        local = (dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=v)).astimezone(tz)
        start = local.replace(hour=0, minute=0, second=0, microsecond=0)
        if unit == "WEEK":
            start = start - dt.timedelta(days=start.weekday())
        elif unit == "MONTH":
            start = start.replace(day=1)
        start = start.replace(tzinfo=None).replace(tzinfo=tz)  # re-resolve the offset of that local midnight
        assert got == int(start.timestamp() * 1000)


@given(st.lists(st.integers(31_536_000_000, 3_000_000_000_000), min_size=1, max_size=20), st.sampled_from(ZONES))
@settings(max_examples=40, deadline=None)
def test_to_date_time_and_from_date_time_round_trip(values, zone):
    pattern = "yyyy-MM-dd HH:mm:ss.SSS ZZ"
    text, _ = evaluate(f"toDateTime(t, '{pattern}', '{zone}')", t=pa.array(values, pa.int64()))
    back, _ = evaluate(f"fromDateTime(s, '{pattern}')", s=pa.array(text))
    assert back == values


@given(st.integers(-3_000_000_000_000, 3_000_000_000_000), st.sampled_from([1_000, 3_600_000, 86_400_000, 10**9]),
       st.sampled_from(ZONES), st.sampled_from(["yyyy-MM-dd", "yyyy-MM-dd HH", "yyyyMMddHHmm", "HH:mm:ss ZZ"]),
       st.booleans())
@settings(max_examples=25, deadline=None)
def test_to_date_time_of_a_large_batch_prints_each_row_as_a_small_one_does(start, spread, zone, pattern, nulls):
    """Batches of 1,024 rows and more print each distinct bucket once (by offset from the first bucket when
    they are few, else by hashing); every row must read as it does in a batch too small for either."""
    rng = np.random.default_rng(start % 2**32)
    values = (start + rng.integers(0, spread, 3_000)).tolist()
    if nulls:
        values[::7] = [None] * len(values[::7])
    text = f"toDateTime(t, '{pattern}', '{zone}')"
    whole, _ = evaluate(text, t=pa.array(values, pa.int64()))
    pieces = [evaluate(text, t=pa.array(values[i:i + 1000], pa.int64()))[0] for i in range(0, len(values), 1000)]
    assert whole == [v for piece in pieces for v in piece]


def test_from_date_time_in_dst_gap_and_overlap():
    pattern = "yyyy-MM-dd HH:mm:ss"
    out, _ = evaluate(f"fromDateTime(s, '{pattern}', 'America/Los_Angeles')",
                      s=["2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-07-01 12:00:00"])
    # The gap moves forward by the hour (Pinot's DST-gap fallback); the overlap takes the earlier instant.
    assert out == [1710066600000, 1730622600000, 1719860400000]


def test_from_date_time_rejects_text_that_does_not_match():
    with pytest.raises(IngestionError, match=r"row 1: cannot parse"):
        evaluate("fromDateTime(s, 'yyyy-MM-dd')", s=["2024-01-31", "2024-02-30", None])
    out, ctx = evaluate("fromDateTime(s, 'yyyy-MM-dd')", True, s=["2024-01-31", "2024-02-30", None])
    assert out == [1706659200000, None, None] and ctx.errors.tolist() == [False, True, False]
    out, _ = evaluate("fromDateTime(s, 'yyyy-MM-dd', 'UTC', -1)", s=["x", "2024-01-01"])
    assert out == [-1, 1704067200000]


@given(st.lists(st.one_of(st.none(), st.integers(-(2**62), 2**62)), min_size=1, max_size=20),
       st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, width=64)), min_size=20,
                max_size=20))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_arithmetic_is_double_and_null_intolerant(a, b):
    b = b[:len(a)]
    out, _ = evaluate("plus(a, b)", a=pa.array(a, pa.int64()), b=pa.array(b, pa.float64()))
    assert out == [None if x is None or y is None else float(x) + y for x, y in zip(a, b)]
    out, _ = evaluate("a * 2", a=pa.array(a, pa.int64()))
    assert out == [None if x is None else float(x) * 2.0 for x in a]


def test_division_and_mod_follow_java_doubles():
    out, _ = evaluate("divide(a, b)", a=[1.0, -1.0, 0.0, 7.0], b=[0.0, 0.0, 0.0, 2.0])
    assert out[0] == math.inf and out[1] == -math.inf and math.isnan(out[2]) and out[3] == 3.5
    assert evaluate("mod(a, 3)", a=[-7, 7])[0] == [-1.0, 1.0]  # the sign of the dividend
    assert evaluate("divide(a, b, -1)", a=[1.0, 4.0], b=[0.0, 2.0])[0] == [-1.0, 2.0]


def test_round_decimal_is_half_up_on_the_printed_digits():
    assert evaluate("roundDecimal(a, 1)", a=[2.25, 2.35, -2.25, 24.37, 1.005])[0] == [2.3, 2.4, -2.3, 24.4, 1.0]
    assert evaluate("roundDecimal(a)", a=[2.5, -2.5, 0.49])[0] == [3.0, -2.0, 0.0]


def test_comparisons_are_doubles_and_text_there_is_an_error():
    assert evaluate("a = 0.1", a=[0.1 + 1e-9, 0.2])[0] == [True, False]  # tolerance 1e-7
    with pytest.raises(IngestionError, match="row 0: NumberFormatException"):
        evaluate("s = 'test'", s=["test"])


def test_three_valued_logic_and_short_circuit():
    s = ["test1", None, "x", "x"]
    q = pa.array([5, -1, None, 3], pa.int64())
    out, _ = evaluate("startsWith(s, 'test') OR q < 0", s=s, q=q)
    assert out == [True, True, None, False]
    out, _ = evaluate("startsWith(s, 'test') AND q < 0", s=s, q=q)
    assert out == [False, None, False, False]
    # Rows decided by the first operand never evaluate the second one (no NumberFormatException there).
    out, _ = evaluate("startsWith(s, 'n') OR s > 1", s=["n1", "n2"])
    assert out == [True, True]
    with pytest.raises(IngestionError, match="row 1"):
        evaluate("startsWith(s, 'n') OR s > 1", s=["n1", "x"])


def test_nullable_functions_see_nulls():
    assert evaluate("coalesce(a, 0.0)", a=[None, 2.5])[0] == [0.0, 2.5]
    assert evaluate("isNull(a)", a=[None, 1])[0] == [True, False]
    assert evaluate("CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' END", a=[1, -1, 0, None])[0] == \
        ["pos", "neg", None, None]


@given(st.lists(st.one_of(st.none(), st.text(max_size=12)), min_size=1, max_size=20), st.integers(-15, 15),
       st.integers(-15, 15))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_substr_counts_utf16_units_like_java(values, begin, end):
    def java(s):
        units = s.encode("utf-16-le", "surrogatepass")
        n = len(units) // 2
        b, e = begin + n if begin < 0 else begin, (n if end == -1 else (end + n if end < 0 else end))
        e, b = min(e, n), max(b, 0)
        text = "" if b > e else units[2 * b:2 * e].decode("utf-16-le", "surrogatepass")
        return text  # a cut surrogate pair: a lone surrogate


    out, _ = evaluate(f"substr(s, {begin}, {end})", s=pa.array(values, pa.string()))
    assert out == [None if v is None else java(v) for v in values]


def java_pad(s: str, size: int, pad: str, left: bool) -> str:
    """StringUtils.leftPad / rightPad on UTF-16 units (a cut pad may leave a lone surrogate)."""
    units = s.encode("utf-16-le", "surrogatepass")
    pad_units = (pad or " ").encode("utf-16-le", "surrogatepass")
    missing = size - len(units) // 2
    if missing <= 0:
        return s
    filler = (pad_units * missing)[:2 * missing]
    whole = filler + units if left else units + filler
    return whole.decode("utf-16-le", "surrogatepass")


@given(st.lists(st.one_of(st.none(), st.text(alphabet="ab😀é", max_size=5)), min_size=1, max_size=12),
       st.integers(-2, 9), st.sampled_from(["x", "ab", "😀", "a😀", "é", ""]))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_lpad_and_rpad_count_and_cycle_utf16_units_like_java(values, size, pad):
    for name, left in (("lpad", True), ("rpad", False)):
        out, _ = evaluate(f"{name}(s, {size}, '{pad}')", s=pa.array(values, pa.string()))
        assert out == [None if v is None else java_pad(v, size, pad, left) for v in values], name


def pinot_split_part(s: str, delimiter: str, limit: int, index: int) -> str:
    """StringFunctions.splitPart(input, delimiter, limit, index) for a non-empty delimiter, by its own scan:
    leading delimiters skipped, runs of them one, a trailing run leaves a final "" field, the limit-th field
    the rest of the text; a negative index counts the fields first."""
    if s == "":
        return "null"
    limit = limit if limit > 0 else 2**31 - 1
    pos, n, d = 0, len(s), len(delimiter)
    while pos < n and s.startswith(delimiter, pos):
        pos += d
    if pos >= n:
        fields = [""]
    else:
        fields = []
        while True:
            if len(fields) + 1 >= limit:
                fields.append(s[pos:])
                break
            end = s.find(delimiter, pos)
            if end == -1:
                fields.append(s[pos:])
                break
            fields.append(s[pos:end])
            pos = end + d
            while pos < n and s.startswith(delimiter, pos):
                pos += d
            if pos >= n:
                fields.append("")
                break
    position = index + len(fields) if index < 0 else index
    return fields[position] if 0 <= position < len(fields) else "null"


@given(st.lists(st.one_of(st.none(), st.text(alphabet="a,b", max_size=8)), min_size=1, max_size=12),
       st.sampled_from([",", ",,", "ab", "b"]), st.integers(-1, 4), st.integers(-4, 4))
@settings(deadline=None)  # timings vary with the machine's load; never a timed test
def test_split_part_with_a_limit_follows_pinots_scan(values, delimiter, limit, index):
    out, _ = evaluate(f"splitPart(s, '{delimiter}', {limit}, {index})", s=pa.array(values, pa.string()))
    assert out == [None if v is None else pinot_split_part(v, delimiter, limit, index) for v in values]


def test_string_functions_java_semantics():
    assert evaluate("length(s)", s=["a😀", "é"])[0] == [3, 1]
    # TRIM(s) is Calcite's TRIM(BOTH ' ' FROM s): spaces only (Pinot: round4_trim_spaces)
    assert evaluate("trim(s)", s=["\x01 a \t", "\u00a0a", "  a  "])[0] == ["\x01 a \t", "\u00a0a", "a"]
    assert evaluate("lpad(s, 6, 'ab')", s=["xy", "toolongvalue"])[0] == ["ababxy", "toolongvalue"]
    assert evaluate("splitPart(s, ',', 1)", s=["a,,b", "a,", ",a,b", "a", ""])[0] == ["b", "", "b", "null", "null"]
    # splitByWholeSeparator: leading / repeated separators skipped, a trailing one leaves a final ""
    assert evaluate("split(s, ',')", s=["a,,b,", ",", ",a", "", None])[0] == [["a", "b", ""], [""], ["a"], [], None]
    assert evaluate("replace(s, 'a', '')", s=["banana"])[0] == ["bnn"]
    assert evaluate("concat(a, b)", a=["x", None], b=["y", "z"])[0] == ["xy", None]


def test_json_paths():
    docs = ['{"a":{"b":1.50,"c":[1,2]},"l":[{"k":"x"},{"k":"y"},{}]}', "not json", None]
    out, _ = evaluate("jsonPathString(p, '$.a', 'd')", p=docs)
    assert out == ['{"b":1.5,"c":[1,2]}', "d", "d"]
    out, _ = evaluate("jsonPathLong(p, '$.a.b')", p=docs[:1] + ['{"x":1}'])
    assert out == [1, LONG_MIN]  # a missing path gives Long.MIN_VALUE
    out, _ = evaluate("jsonPathDouble(p, '$.missing')", p=docs[:1])
    assert math.isnan(out[0])
    out, _ = evaluate("jsonPathArray(p, '$.l[*].k')", p=docs[:1])
    assert out == [["x", "y"]]
    with pytest.raises(IngestionError, match="row 1: the input is not valid JSON"):
        evaluate("jsonPathString(p, '$.a')", p=docs)
    out, ctx = evaluate("jsonPathString(p, '$.a.b')", True, p=docs)
    assert out == ["1.5", None, None] and int(ctx.errors.sum()) == 1


def test_json_format_prints_like_jackson():
    out, _ = evaluate("jsonFormat(l)", l=pa.array([["a", "b"], [], None], pa.list_(pa.string())))
    assert out == ['["a","b"]', "[]", None]
    out, _ = evaluate("jsonFormat(d)", d=pa.array([1.0e20, 0.5]))
    assert out == ["1.0E20", "0.5"]


def test_json_path_syntax():
    from pinot_sink.ingestion.expression import ExpressionError

    out, _ = evaluate("jsonPathString(p, 'a.b')", p=['{"a":{"b":"x"}}'])
    assert out == ["x"]  # Jayway reads a path without '$' from the root
    out, _ = evaluate("jsonPathString(p, '$[1]')", p=['["a","b"]'])
    assert out == ["b"]
    out, _ = evaluate("jsonPathString(p, '$..id')", p=['{"a":{"id":1},"b":[{"id":2}]}'])
    assert out == ["[1,2]"]  # an indefinite path gives the list of matches
    for bad in ("$.a[", "$.a[x]", ""):
        with pytest.raises(ExpressionError):
            Expression(f"jsonPathString(p, '{bad}')")


# --- the evaluator against a row-by-row reference of InbuiltFunctionEvaluator's rules ------------------

_BINARY = {"plus": lambda a, b: a + b, "sub": lambda a, b: a - b, "times": lambda a, b: a * b}


def _expressions():
    leaves = st.sampled_from(["a", "b", "1", "2.5"])

    def extend(children):
        return st.one_of(
            st.tuples(st.sampled_from(sorted(_BINARY)), children, children).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            st.tuples(children).map(lambda t: f"abs({t[0]})"),
            st.tuples(children, children).map(lambda t: f"coalesce({t[0]}, {t[1]})"),
            st.tuples(children, children, children).map(
                lambda t: f"CASE WHEN {t[0]} > 0 THEN {t[1]} ELSE {t[2]} END"),
        )

    return st.recursive(leaves, extend, max_leaves=6)


def _reference(text: str, row: dict):
    """Evaluate one row in Python with Pinot's rules (doubles; null in -> null out unless nullable)."""
    from pinot_sink.ingestion.expression import Call, Identifier, Literal, parse_expression

    def ev(node):
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Identifier):
            return row[node.name]
        args = [ev(a) for a in node.args]
        if node.name == "coalesce":
            return next((a for a in args if a is not None), None)
        if node.name == "case":
            return args[1] if args[0] is True else args[2]
        if any(a is None for a in args):
            return None
        if node.name == "abs":
            return abs(float(args[0]))
        if node.name == "greaterthan":
            return float(args[0]) > float(args[1])
        return _BINARY[node.name](float(args[0]), float(args[1]))

    assert isinstance(parse_expression(text), (Call, Identifier, Literal))
    return ev(parse_expression(text))


@given(_expressions(), st.lists(st.tuples(st.one_of(st.none(), st.integers(-1000, 1000)),
                                          st.one_of(st.none(), st.floats(-1e6, 1e6))), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)
def test_vectorised_evaluation_matches_row_by_row(text, rows):
    a = pa.array([r[0] for r in rows], pa.int64())
    b = pa.array([r[1] for r in rows], pa.float64())
    out, _ = evaluate(text, a=a, b=b)
    expected = [_reference(text, {"a": r[0], "b": r[1]}) for r in rows]
    assert [None if v is None else float(v) for v in out] == [None if v is None else float(v) for v in expected]


def test_spark_timestamps_and_dates_are_epoch_millis():
    import datetime as _dt

    ts = pa.array([_dt.datetime(2024, 1, 2, 3, 4, 5, 678901)], pa.timestamp("us", tz="UTC"))
    assert evaluate("toEpochSeconds(t)", t=ts)[0] == [1704164645]
    assert evaluate("toDateTime(t, 'yyyy-MM-dd HH:mm:ss.SSS')", t=ts)[0] == ["2024-01-02 03:04:05.678"]
    days = pa.array([_dt.date(2024, 1, 2)], pa.date32())
    assert evaluate("toEpochDays(d)", d=days)[0] == [19724]
    assert evaluate("concat(d, 'x')", d=days)[0] == ["2024-01-02x"]


def test_cast_follows_pinot():
    assert evaluate("CAST(s AS INT)", s=[" 12 ", "3.9", "-2.5", None])[0] == [12, 3, -2, None]
    assert evaluate("CAST(s AS BIGINT)", s=["1700000000000", "2024-01-02 00:00:00", "7.9"])[0] == \
        [1700000000000, 1704153600000, 7]
    assert evaluate("CAST(d AS INT)", d=[2.9, -2.9, float("nan")])[0] == [2, -2, 0]
    assert evaluate("CAST(d AS VARCHAR(10))", d=[1.0, 1e7])[0] == ["1.0", "1.0E7"]
    with pytest.raises(IngestionError, match="NumberFormatException"):
        evaluate("CAST(s AS INT)", s=["x"])
    from pinot_sink.ingestion.expression import ExpressionError

    with pytest.raises(ExpressionError, match="CAST to 'MAP'"):
        Expression("CAST(s AS MAP)")


def test_iso8601_and_timestamps():
    assert evaluate("toIso8601(t)", t=[1704164645678, 1704164645000])[0] == \
        ["2024-01-02T03:04:05.678Z", "2024-01-02T03:04:05Z"]
    assert evaluate("fromIso8601(s)", s=["2024-01-02T03:04:05.678Z", "2024-01-02T08:34:05+05:30"])[0] == \
        [1704164645678, 1704164645000]
    with pytest.raises(IngestionError, match="offset"):
        evaluate("fromIso8601(s)", s=["2024-01-02T03:04:05"])
    assert evaluate("fromTimestamp(toTimestamp(t))", t=[5])[0] == [5]


def test_date_time_convert():
    t = pa.array([1704164645678, -1], pa.int64())  # 2024-01-02T03:04:05.678Z
    assert evaluate("dateTimeConvert(t, '1:MILLISECONDS:EPOCH', '1:DAYS:EPOCH', '1:DAYS')", t=t)[0] == [19724, 0]
    assert evaluate("dateTimeConvert(t, '1:MILLISECONDS:EPOCH', '1:MILLISECONDS:EPOCH', '15:MINUTES')", t=t)[0] == \
        [1704164400000, 0]
    assert evaluate("dateTimeConvert(t, '1:MILLISECONDS:EPOCH', '1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd', '1:DAYS')",
                    t=t)[0] == ["2024-01-02", "1969-12-31"]
    assert evaluate("dateTimeConvert(t, '1:MILLISECONDS:EPOCH', "
                    "'1:HOURS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH tz(Asia/Kolkata)', '6:HOURS')", t=t)[0] == \
        ["2024-01-02 06", "1970-01-01 00"]
    # bucketed in a zone, epoch output: the day starts at midnight in New York
    assert evaluate("dateTimeConvert(t, '1:MILLISECONDS:EPOCH', '1:MILLISECONDS:EPOCH', '1:DAYS', "
                    "'America/New_York')", t=t)[0] == [1704085200000, -68400000]
    assert evaluate("dateTimeConvert(s, '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '1:SECONDS:EPOCH', '1:DAYS')",
                    s=["20240102"])[0] == [1704153600]


def test_decimals_into_long_parameters_truncate_like_big_decimal_long_value():
    import decimal

    d = pa.array([decimal.Decimal("12345678901234567.89"), decimal.Decimal("-2.5")], pa.decimal128(20, 2))
    assert evaluate("fromEpochSeconds(d)", d=d)[0] == [9223372036854775807, -2000]  # saturating toMillis
    assert evaluate("toEpochSeconds(d)", d=d)[0] == [12345678901234, -0]


@pytest.mark.parametrize("text, expected", [
    ("coalesce(plus(a, a), coalesce(a, b))", [2.0, 2.5, None]),
    ("CASE WHEN greaterThan(a, 0) THEN coalesce(a, b) ELSE 2.5 END", [1, 2.5, 2.5]),
    ("plus(coalesce(a, b), 1)", [2.0, 3.5, None]),
])
def test_a_case_or_coalesce_of_java_objects_inside_another(text, expected):
    # coalesce(a, b) of a LONG and a DOUBLE passed on is Java's objects (a Long or a Double per row), which an
    # outer CASE / coalesce passes on as they are (found by test_vectorised_evaluation_matches_row_by_row)
    out, _ = evaluate(text, a=pa.array([1, None, None], pa.int64()), b=pa.array([None, 2.5, None]))
    assert [None if v is None else float(v) for v in out] == expected
