"""The expectation tables' inputs: per family, the input columns (Arrow types), the output columns (Pinot type,
single-value?) with the transform that fills each, and a row generator (random and extreme values)."""
from __future__ import annotations

import math
import random
import uuid

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# Joda's range of instants and some calendar corners (month ends, leap days, year 0, the epoch)
EXTREME_MILLIS = [LONG_MIN, LONG_MIN + 1, LONG_MAX, LONG_MAX - 1, 0, -1, 1, 951_782_400_000, 951_868_799_999,
                  -62_167_219_200_000, 253_402_300_799_999, 1_706_659_200_000, 1_709_164_800_000,
                  -9_223_372_036_854_775, 9_223_372_036_854_775]


def _millis(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.15:
        return rng.choice(EXTREME_MILLIS)
    if kind < 0.25:
        return rng.randint(LONG_MIN, LONG_MAX)
    return rng.randint(-5_000_000_000_000, 5_000_000_000_000)


def _interval(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.1:
        return rng.choice([LONG_MIN, LONG_MAX, INT_MIN, INT_MAX, INT_MAX + 1, 0, -1, 1, 12, -12, 3 * 2**61])
    if kind < 0.2:
        return rng.randint(LONG_MIN, LONG_MAX)
    return rng.randint(-3000, 3000)


UNITS = ["millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year"]


def _timestamp_rows(rng: random.Random) -> list[dict]:
    rows = []
    for i in range(600):
        unit = rng.choice(UNITS + ["DAY", "Month", "days", "", "YEAR"])
        rows.append({"unit": unit, "n": _interval(rng), "t1": _millis(rng), "t2": _millis(rng)})
        if i % 50 == 0:
            rows[-1]["t1"] = None
    return rows


# TIMESTAMPADD / TIMESTAMPDIFF are SQL keywords in Pinot's grammar: the unit is a keyword there; dateAdd /
# dateDiff are plain functions taking the unit as text
_timestamp_transforms = {
    **{f"add_{u}": f"timestampAdd({u.upper()}, n, t1)" for u in UNITS},
    **{f"diff_{u}": f"timestampDiff({u.upper()}, t1, t2)" for u in UNITS},
    **{f"date_add_{u}": f"dateAdd('{u}', n, t1)" for u in UNITS},
    **{f"date_diff_{u}": f"dateDiff('{u}', t1, t2)" for u in UNITS},
    "date_add_col": "dateAdd(unit, n, t1)",
    "date_diff_col": "dateDiff(unit, t1, t2)",
}

URLS = [
    "https://www.example.com:8080/a/b/?x=1&y=%20z&x=3#fr%41g", "http://my_host/p?x=1", "mailto:a@b.com",
    "http://1.2.3/x", "http://1.2.3.4:99/x?x", "bad url", "", "//host/p?q", "http://[::1]:80/a?x=%E2%82%AC",
    "http://user:pw@sub.example.co.uk/a//b/", "ftp://ftp.test.org", "http://www.a.b.c.d.com/", "https://x.y/",
    "http://host:99999999999/", "http://host:/p", "http://ho-st.com/p%zz", "http://ho-st-.com/p", "HTTP://Caps.COM/A",
    "http://例え.jp/パス?キー=値#フラグ", "https://site.com/p?a=1&&b=2&=3&c=#", "http://www.site.net/x?x=a%26b&x",
    "https://example.com/search?q=caf%C3%A9&lang=fr", "file:///etc/passwd", "http://a.b/%E2%82", "urn:isbn:123",
    "http://www.www.com", "https://www.bbc.co.uk/news", "http://host?x=1#f", "http://host#f", "?x=1", "#only",
    "http://h/a b", "http://[zz]/", "http://2001:db8::1/", "http://ex.com/p?x=%2B1&y=+2", "http://ex.com/%7E/",
    "s3://bucket/key/part?versionId=3", "http://192.168.0.1:8080/ip", "http://256.1.1.1/", "http://a_b.com:80/",
    # empty parameters (a sweep found them): cutURLParameter's '&' goes in only once its text is not empty
    "https://9.a.x1/?&k=v&k=v+", "a.9.uk/b+?&k=v+", "http://h/?&&x=1&k=2&", "http://h/?k=1&&y=2&", "http://h/?&",
    "http://h/?=&k&x=#f",
]


def _url_rows(rng: random.Random) -> list[dict]:
    rows = [{"url": u, "name": rng.choice(["x", "y", "a", "q", "", "versionId", "キー"])} for u in URLS]
    for _ in range(200):
        host = ".".join(rng.choice(["www", "a", "b-c", "example", "co", "uk", "com", "x1", "9"])
                        for _ in range(rng.randint(1, 4)))
        path = "".join(rng.choice(["/", "a", "/b", "%41", "%", "é", " ", "?", "&k=v", "=", "#f", "+"])
                       for _ in range(rng.randint(0, 6)))
        scheme = rng.choice(["http://", "https://", "", "ftp://", "x:"])
        rows.append({"url": scheme + host + path, "name": rng.choice(["k", "x", ""])})
    rows.append({"url": None, "name": "x"})
    return rows


_URL_STRING = ["urlProtocol", "urlDomain", "urlDomainWithoutWWW", "urlTopLevelDomain", "urlFirstSignificantSubdomain",
               "cutToFirstSignificantSubdomain", "cutToFirstSignificantSubdomainWithWWW", "urlPath",
               "urlPathWithQuery", "urlQueryString", "urlFragment", "urlQueryStringAndFragment", "urlNetloc",
               "cutWWW", "cutQueryString", "cutFragment", "cutQueryStringAndFragment"]
_URL_ARRAY = ["extractURLParameters", "extractURLParameterNames", "urlHierarchy", "urlPathHierarchy"]

UUIDS = ["123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000",
         "ffffffff-ffff-ffff-ffff-ffffffffffff", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "not-a-uuid", "",
         "123E4567-E89B-12D3-A456-426614174000", "1-2-3-4-5", "{123e4567-e89b-12d3-a456-426614174000}",
         "123e4567e89b12d3a456426614174000", " 123e4567-e89b-12d3-a456-426614174000"]


def _uuid_rows(rng: random.Random) -> list[dict]:
    rows = [{"u": u} for u in UUIDS]
    for _ in range(60):
        rows.append({"u": str(uuid.UUID(int=rng.getrandbits(128), version=rng.choice([1, 3, 4, 5])))})
    rows.append({"u": None})
    for row in rows:
        row["b"] = rng.choice(["00112233445566778899aabbccddeeff", "0011", "", None,
                               uuid.UUID(int=rng.getrandbits(128)).hex])
    return rows


FAMILIES = {
    "timestamp_arith": {
        "inputs": {"unit": "string", "n": "int64", "t1": "int64", "t2": "int64"},
        "outputs": {c: ("LONG", True) for c in _timestamp_transforms},
        "transforms": _timestamp_transforms,
        "rows": _timestamp_rows,
    },
    "url": {
        "inputs": {"url": "string", "name": "string"},
        "outputs": {**{f"{f}_": ("STRING", True) for f in _URL_STRING}, **{f"{f}_": ("STRING", False) for f in _URL_ARRAY},
                    "urlPort_": ("INT", True), "extractURLParameter_": ("STRING", True),
                    "cutURLParameter_": ("STRING", True), "cutURLParameters_": ("STRING", True)},
        "transforms": {**{f"{f}_": f"{f}(url)" for f in _URL_STRING + _URL_ARRAY + ["urlPort"]},
                       "extractURLParameter_": "extractURLParameter(url, name)",
                       "cutURLParameter_": "cutURLParameter(url, name)",
                       "cutURLParameters_": "cutURLParameters(url, split('x,y,utm_source', ','))"},
        "rows": _url_rows,
    },
    "uuid": {
        "inputs": {"u": "string", "b": "string"},
        "outputs": {"is_uuid": ("BOOLEAN", True), "to_uuid": ("STRING", True), "uuid_to_string": ("STRING", True),
                    "uuid_version": ("INT", True), "uuid_to_bytes": ("BYTES", True), "uuid_timestamp": ("LONG", True),
                    "to_uuid_bytes": ("BYTES", True), "from_uuid_bytes": ("STRING", True),
                    "bytes_to_uuid": ("STRING", True), "is_uuid_bytes": ("BOOLEAN", True)},
        "transforms": {"is_uuid": "isUuid(u)", "to_uuid": "toUuid(u)", "uuid_to_string": "uuidToString(u)",
                       "uuid_version": "uuidVersion(u)", "uuid_to_bytes": "uuidToBytes(u)",
                       "uuid_timestamp": "uuidTimestamp(u)", "to_uuid_bytes": "toUUIDBytes(u)",
                       "from_uuid_bytes": "fromUUIDBytes(b)", "bytes_to_uuid": "bytesToUuid(b)",
                       "is_uuid_bytes": "isUuid(b)"},
        "rows": _uuid_rows,
    },
}

JSON_DOCS = ['{"a": 1, "b": {"c": 2, "d": [1, {"e": 3}]}}', '{"a": [1, 2]}', '[1, {"x": 2}]', '{}', '[]', '"text"', '3',
             'not json', '', '{"a.b": {"c d": 1}, "q\'": 2}', '{"a": null}', 'null', '{"a": {"a": {"a": {}}}}',
             '{"k": 1} trailing', '{"ü": {"😀": [[]]}}']


_JSON_VALUES = ["1", "[1, 2]", '{"n": true}', "null", '"s"']


def _json_rows(rng: random.Random) -> list[dict]:
    rows = [{"j": d} for d in JSON_DOCS]
    for _ in range(40):
        keys = [rng.choice(["a", "b", "c", "x y", "0"]) for _ in range(rng.randint(0, 3))]
        body = ", ".join('"%s": %s' % (k, rng.choice(_JSON_VALUES)) for k in keys)
        rows.append({"j": "{" + body + "}"})
    rows.append({"j": None})
    return rows


_JSON_KEY_PATHS = {"star": "$.*", "all": "$..**", "empty": "", "b_star": "$.b.*", "deep_star": "$..*", "a": "$.a",
                   "a_items": "$.a[*]"}
FAMILIES["json_keys"] = {
    "inputs": {"j": "string"},
    "outputs": {f"keys_{k}": ("STRING", False) for k in _JSON_KEY_PATHS},
    "transforms": {f"keys_{k}": f"jsonExtractKey(j, '{p}')" for k, p in _JSON_KEY_PATHS.items()},
    "rows": _json_rows,
}

EXTREME_DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-300, -1e-300, 4.9e-324, 1.7976931348623157e308,
                   -1.7976931348623157e308, 9.223372036854775807e18, -9.223372036854775808e18, 3.141592653589793,
                   1e15 + 0.5, 710.0, -745.5, 0.9999999, -0.9999999]
EXTREME_LONGS = [0, 1, -1, 2, 63, 64, 65, -64, 20, 21, LONG_MIN, LONG_MAX, INT_MIN, INT_MAX, 12, 18, 1 << 40]


def _numeric_rows(rng: random.Random) -> list[dict]:
    rows = []
    for i in range(400):
        def double():
            kind = rng.random()
            if kind < 0.3:
                return rng.choice(EXTREME_DOUBLES)
            if kind < 0.5:
                return rng.uniform(-10, 10)
            return rng.uniform(-1e6, 1e6) if kind < 0.8 else rng.choice([1.5, -2.5, 100.0, 7.0])

        def long():
            kind = rng.random()
            if kind < 0.3:
                return rng.choice(EXTREME_LONGS)
            if kind < 0.5:
                return rng.randint(LONG_MIN, LONG_MAX)
            return rng.randint(-100, 100)

        rows.append({"x": double(), "y": double(), "a": long(), "b": long(), "s": rng.randint(-70, 70)})
        if i % 40 == 0:
            rows[-1][rng.choice(["x", "a"])] = None
    return rows


_DOUBLE_1 = ["sin", "cos", "tan", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh", "degrees", "radians",
             "asinh", "acosh", "atanh", "cbrt", "exp2", "exp10", "log1p", "sigmoid"]
_numeric_transforms = {
    **{f"{f}_x": (f"{f}(x)", "DOUBLE") for f in _DOUBLE_1},
    **{f"{f}_xy": (f"{f}(x, y)", "DOUBLE") for f in ["atan2", "hypot", "ifNotFinite", "greatest", "least",
                                                      "moduloOrZero", "positiveModulo"]},
    **{f"{f}_x": (f"{f}(x)", "INT") for f in ["isNaN", "isFinite", "isInfinite"]},
    "intdiv_xy": ("intDiv(x, y)", "LONG"), "intdivorzero_xy": ("intDivOrZero(x, y)", "LONG"),
    "intdiv_ab": ("intDiv(a, b)", "LONG"),
    **{f"{f}_ab": (f"{f}(a, b)", "LONG") for f in ["gcd", "lcm", "bitAnd", "bitOr", "bitXor"]},
    **{f"{f}_as": (f"{f}(a, s)", "LONG") for f in ["bitShiftLeft", "bitShiftRight", "bitShiftRightUnsigned"]},
    "bitextract_as": ("bitExtract(a, s)", "INT"), "bitmask_s": ("bitMask(s)", "LONG"), "bitnot_a": ("bitNot(a)", "LONG"),
    "bitcount_a": ("bitCount(a)", "INT"), "byteswapint_a": ("byteswapInt(a)", "INT"),
    "byteswaplong_a": ("byteswapLong(a)", "LONG"), "factorial_s": ("factorial(s)", "LONG"),
    "rand_a": ("rand(a)", "DOUBLE"), "pi_": ("pi()", "DOUBLE"), "e_": ("e()", "DOUBLE"),
    "widthbucket_x": ("widthBucket(x, -10.0, 10.0, s)", "INT"),
}
FAMILIES["numeric"] = {
    "inputs": {"x": "float64", "y": "float64", "a": "int64", "b": "int64", "s": "int64"},
    "outputs": {c: (t, True) for c, (_, t) in _numeric_transforms.items()},
    "transforms": {c: e for c, (e, _) in _numeric_transforms.items()},
    "rows": _numeric_rows,
}


def _mv_rows(rng: random.Random) -> list[dict]:
    rows = []
    for i in range(150):
        n = rng.choice([0, 1, 2, 3])
        # instants of years 1812..2096: the single-value functions at the long range's ends are issue 23's cause 7
        rows.append({"tm": [rng.randint(-5_000_000_000_000, 4_000_000_000_000) for _ in range(n)],
                     "t": rng.randint(0, 4_000_000_000_000)})
        rows[-1]["zones"] = ",".join(rng.sample(["UTC", "Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu",
                                                 "Pacific/Chatham", "America/New_York", "-03:30", "Nowhere/Zone"],
                                                rng.randint(1, 3)))
        if i % 30 == 0:
            rows[-1]["tm"] = None
    return rows


_MV_LONG = {  # primitive array results: read through arrayToString (stored directly they are Pinot's ClassCastException)
    "year": "yearMV(tm)", "year_zone": "yearMV(tm, 'Asia/Kolkata')", "yow": "yowMV(tm)", "quarter": "quarterMV(tm)",
    "month": "monthOfYearMV(tm)", "week": "weekMV(tm, 'America/New_York')", "doy": "doyMV(tm)", "day": "dayMV(tm)",
    "dow": "dowMV(tm)", "hour": "hourMV(tm, 'Asia/Tokyo')", "minute": "minuteMV(tm)", "second": "secondMV(tm)",
    "milli": "millisecondMV(tm)", "epoch_days": "toEpochDaysMV(tm)", "epoch_hours_rounded": "toEpochHoursRoundedMV(tm, 5)",
    "epoch_minutes_bucket": "toEpochMinutesBucketMV(tm, 15)", "from_epoch_seconds": "fromEpochSecondsMV(tm)",
    "from_epoch_days_bucket": "fromEpochDaysBucketMV(tm, 3)", "round": "roundMV(tm, 1000)",
    "trunc": "dateTruncMV('DAY', tm)", "trunc_zone": "dateTruncMV('MONTH', tm, 'MILLISECONDS', 'Europe/Berlin')",
    "add": "timestampAddMV('month', 1, tm)", "diff": "dateDiffMV('day', tm, t)", "diff_rev": "dateDiffMVReverse('hour', t, tm)",
    "tz_hour": "timezoneHourMV('America/Los_Angeles', tm)", "tz_minute": "timezoneMinuteMV('Asia/Kolkata', tm)",
    "from_iso": "fromIso8601MV(toIso8601MV(tm))", "from_dt": "fromDateTimeMV(toDateTimeMV(tm, 'yyyy-MM-dd'), 'yyyy-MM-dd')",
}
FAMILIES["multi_value"] = {
    "inputs": {"tm": "list<int64>", "t": "int64", "zones": "string"},
    "outputs": {**{f"{k}_text": ("STRING", True) for k in _MV_LONG}, "to_dt_mv": ("STRING", False),
                "iso_mv": ("STRING", False), "len_mv": ("INT", True), "tz_hour": ("INT", True),
                "tz_minute": ("INT", True), "tz_hour_now": ("INT", True),
                "zones_hour": ("STRING", True), "zones_minute": ("STRING", True),
                "year_direct": ("INT", False), "days_direct": ("LONG", False)},
    "transforms": {**{f"{k}_text": f"arrayToString({e}, ',')" for k, e in _MV_LONG.items()},
                   "to_dt_mv": "toDateTimeMV(tm, 'yyyy-MM-dd HH:mm', 'Asia/Kolkata')", "iso_mv": "toIso8601MV(tm)",
                   "len_mv": "arrayLength(toEpochDaysMV(tm))", "tz_hour": "timezoneHour('America/New_York', t)",
                   "tz_minute": "timezoneMinute('Asia/Kathmandu', t)", "tz_hour_now": "timezoneHour('Asia/Kolkata')",
                   "zones_hour": "arrayToString(timezoneHourMV(split(zones, ',')), ',')",
                   "zones_minute": "arrayToString(timezoneMinuteMV(split(zones, ',')), ',')",
                   # stored directly: Pinot's ClassCastException, every row null
                   "year_direct": "yearMV(tm)", "days_direct": "toEpochDaysMV(tm)"},
    "rows": _mv_rows,
}


def _object_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(120):
        # (Pinot's JSON reader makes small whole numbers Integer: no LONG column here, its Java type would vary)
        rows.append({"i": rng.choice([None, 0, 1, 2, 7]), "d": rng.choice([None, 0.0, -0.0, 1.0, 2.5]),
                     "s": rng.choice([None, "", "a", "b", "1"]), "s2": rng.choice([None, "", "a", "1"])})
    return rows


_OBJECT = {"ni_s": ("nullIf(s, s2)", "STRING"), "ni_lit": ("nullIf(s, 'a')", "STRING"),
           "ni_i1": ("nullIf(i, 1)", "INT"), "ni_i40": ("nullIf(i, 1099511627776)", "INT"),
           "ni_i_d": ("nullIf(i, 1.0)", "INT"), "ni_d": ("nullIf(d, 2.5)", "DOUBLE"), "ni_dz": ("nullIf(d, 0.0)", "DOUBLE"),
           "dist_s": ("isDistinctFrom(s, s2)", "BOOLEAN"), "dist_i": ("isDistinctFrom(i, 2)", "BOOLEAN"),
           "dist_id": ("isDistinctFrom(i, d)", "BOOLEAN"), "ndist_s": ("isNotDistinctFrom(s, s2)", "BOOLEAN"),
           "ndist_d": ("isNotDistinctFrom(d, d)", "BOOLEAN"), "ndist_null": ("isNotDistinctFrom(s, null)", "BOOLEAN")}
FAMILIES["objects"] = {
    "inputs": {"i": "int32", "d": "float64", "s": "string", "s2": "string"},
    "outputs": {c: (t, True) for c, (_, t) in _OBJECT.items()},
    "transforms": {c: e for c, (e, _) in _OBJECT.items()},
    "rows": _object_rows,
}

TEXTS = ["", "Robert", "Rupert", "Rubin", "Ashcraft", "Tymczak", "Pfister", "Honeyman", "a", "123", "O'Brien",
         "Müller", "straße", "Éclair", "  lee  ", "Washington", "Lee", "Gutierrez", "Jackson", "VanDeusen", "😀x",
         "hello world", "AEIOU", "HWHW", "Schmidt", "Lloyd", "ıi", '{"a": 1}', "[1, 2]", "null", "NaN", "'x'",
         '{"a": 1} tail', "  42  ", "{", '"s"', "-0", "01", "1e999", "{'a': 1}", "[1,]", "\t", "true", "tru",
         '{"a":"\\u00e9"}', "/* c */ 1"]


def _string_rows(rng: random.Random) -> list[dict]:
    rows = [{"s": t, "t": rng.choice(TEXTS)} for t in TEXTS]
    for _ in range(40):
        rows.append({"s": "".join(rng.choice("abcxyzAEHWhw ÄéŁ-1") for _ in range(rng.randint(0, 8))),
                     "t": rng.choice(TEXTS)})
    rows.append({"s": None, "t": "a"})
    return rows


_STRINGS = {"soundex_s": ("soundex(s)", "STRING"), "difference_st": ("difference(s, t)", "INT"),
            "isjson_s": ("isJson(s)", "BOOLEAN"), "utf16_s": ("toBytes(s, 'UTF-16')", "BYTES"),
            "ascii_s": ("toBytes(s, 'US-ASCII')", "BYTES"), "latin1_s": ("toBytes(s, 'latin1')", "BYTES"),
            "utf16le_s": ("toBytes(s, 'UTF-16LE')", "BYTES"),
            "roundtrip_s": ("fromBytes(toBytes(s, 'UTF-16'), 'UTF-16')", "STRING"),
            "from_ascii_s": ("fromBytes(toUtf8(s), 'US-ASCII')", "STRING"),
            "from_latin1_s": ("fromBytes(toUtf8(s), 'ISO-8859-1')", "STRING")}
FAMILIES["strings_extra"] = {
    "inputs": {"s": "string", "t": "string"},
    "outputs": {c: (t, True) for c, (_, t) in _STRINGS.items()},
    "transforms": {c: e for c, (e, _) in _STRINGS.items()},
    "rows": _string_rows,
}


def _geohash_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(150):
        rows.append({"lat": rng.choice([rng.uniform(-90, 90), 90.0, -90.0, 0.0, 45.5]),
                     "lon": rng.choice([rng.uniform(-180, 180), 180.0, -180.0, 0.0, -0.0]),
                     "p": rng.choice([1, 5, 9, 12, 0, 13, 7]),
                     "g": rng.choice(["u4pruydqqvj", "ezs42", "", "a", "zzzzzzzzzzzz", "00000", "9q8yy", "s0"])})
    return rows


_GEOHASH = {"enc": ("encodeGeoHash(lat, lon, p)", "STRING"), "lat_": ("decodeGeoHashLatitude(g)", "DOUBLE"),
            "lon_": ("decodeGeoHashLon(g)", "DOUBLE"), "round": ("decodeGeoHashLat(encodeGeoHash(lat, lon, 12))", "DOUBLE"),
            "dec_text": ("arrayToString(decodeGeoHash(g), ',')", "STRING")}
FAMILIES["geohash"] = {
    "inputs": {"lat": "float64", "lon": "float64", "p": "int64", "g": "string"},
    "outputs": {c: (t, True) for c, (_, t) in _GEOHASH.items()},
    "transforms": {c: e for c, (e, _) in _GEOHASH.items()},
    "rows": _geohash_rows,
}


def _array_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(150):
        # (no huge counts: Java allocates them, OutOfMemoryError ends Pinot's build whatever continueOnError)
        rows.append({"a": rng.choice([0, 1, -3, 10, 7, 100]),
                     "b": rng.choice([0, 5, 10, -10, 20, 3]),
                     "c": rng.choice([1, 2, -1, -2, 3, 0, 7]),
                     "x": rng.choice([0.0, 0.5, 1.5, -2.25, 10.0]), "y": rng.choice([3.0, 2.0, -1.0, 0.1, 7.5]),
                     "z": rng.choice([0.5, 0.25, -0.5, 1.0, 0.3]),  # (texts under 512 characters: no truncation)
                     "m1": sorted(rng.sample(range(10), rng.randint(0, 5))),
                     "m2": sorted(rng.sample(range(10), rng.randint(0, 5)))})
    return rows


_ARRAYS = {"gen_int": "arrayToString(generateIntArray(a, b, c), ',')",
           "gen_long": "arrayToString(generateLongArray(a, b, c), ',')",
           "gen_double": "arrayToString(generateDoubleArray(x, y, z), ',')",
           "gen_float": "arrayToString(generateFloatArray(x, y, z), ',')",
           "gen_len": "arrayLength(generateIntArray(a, b, c))",
           "intersect": "arrayToString(intersectIndices(m1, m2), ',')",
           "arr_int": "arrayToString(array(a, b, c), '|')", "arr_str": "arrayToString(array('p', 'q'), '|')",
           "arr_mixed": "arrayToString(array(a, x), '|')", "arr_double": "arrayToString(array(x, y), '|')"}
FAMILIES["array_build"] = {
    "inputs": {"a": "int32", "b": "int32", "c": "int32", "x": "float64", "y": "float64", "z": "float64",
               "m1": "list<int32>", "m2": "list<int32>"},
    "outputs": {c: ("INT" if c == "gen_len" else "STRING", True) for c in _ARRAYS},
    "transforms": _ARRAYS,
    "rows": _array_rows,
}


def _ngram_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(100):
        # (no emoji: an n-gram cutting a surrogate pair fails Pinot's whole build, issue 23's cause 5)
        rows.append({"s": rng.choice(["", "a", "abc", "banana", "aaaa", "hello world", "ßx", "çéa"]),
                     "n": rng.choice([0, 1, 2, 3, 5, -1]), "m": rng.choice([1, 2, 3, 0, 4]),
                     "ss": rng.sample(["ab", "abc", "b", "", "xyz", "banana"], rng.randint(0, 3))})
    return rows


FAMILIES["ngrams"] = {
    "inputs": {"s": "string", "n": "int32", "m": "int32", "ss": "list<string>"},
    "outputs": {"grams": ("STRING", False), "grams_range": ("STRING", False), "grams_mv": ("STRING", False),
                "grams_mv_range": ("STRING", False), "grams_alias": ("STRING", False)},
    "transforms": {"grams": "uniqueNgrams(s, n)", "grams_range": "uniqueNgrams(s, m, 3)",
                   "grams_mv": "uniqueNgramsMV(ss, n)", "grams_mv_range": "generateUniqueNgramsMV(ss, m, 3)",
                   "grams_alias": "generateUniqueNgrams(s, 2)"},
    "rows": _ngram_rows,
}


_JSON_PATH_DOCS = ['{"a": 1, "b": "x", "c": [1, 2, 3], "d": {"e": 2.5}, "f": [{"g": 1}, {"g": 2}], "n": null}',
                   '{"a": "12", "b": 7, "c": [], "d": {"e": "y"}, "f": [{"g": "s"}]}', '{"a": 9.5}', '[1, 2]', 'x',
                   '', '{"a": true, "c": [null, "q"]}', '{"a": 99999999999999999999}', '{"f": [{"h": 1}, {"g": 3}]}']
_JSON_PATHS = {"a": "$.a", "b": "$.b", "c0": "$.c[0]", "call": "$.c[*]", "e": "$.d.e", "g": "$.f[*].g",
               "deep": "$..g", "n": "$.n", "missing": "$.zz"}
FAMILIES["json_fast"] = {
    "inputs": {"j": "string"},
    "outputs": {f"{k}_{p}": (t, True) for p in _JSON_PATHS
                for k, t in (("sf", "STRING"), ("sm", "STRING"), ("lf", "LONG"), ("lm", "LONG"), ("df", "DOUBLE"),
                             ("dm", "DOUBLE"))},
    "transforms": {f"{k}_{p}": f"{fn}(j, '{path}', {default})" for p, path in _JSON_PATHS.items()
                   for k, fn, default in (("sf", "jsonPathStringFast", "'dflt'"), ("sm", "jsonPathStringFirstMatch", "'dflt'"),
                                          ("lf", "jsonPathLongFast", "-7"), ("lm", "jsonPathLongFirstMatch", "-7"),
                                          ("df", "jsonPathDoubleFast", "-7.5"), ("dm", "jsonPathDoubleFirstMatch", "-7.5"))},
    "rows": lambda rng: [{"j": d} for d in _JSON_PATH_DOCS] + [{"j": None}],
}


def _date_bin_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(150):
        rows.append({"w": rng.choice(["15m", "1d", "2h30m", "90s", "1d2h3m4s", "", "0s", "-1h", "1w", "10x", "1h1d",
                                      "+5m", "3H"]),
                     # (beyond an int: Pinot's JSON reader would make a small number an Integer, which no
                     # TIMESTAMP parameter takes, while the Arrow column here is LONG)
                     "t": rng.choice([rng.randint(-10**12, 4 * 10**12), 2**31, -(2**31) - 1]),
                     "o": rng.choice([2**32, 1_700_000_000_000, -86_400_000_000, -(2**40)])})
    return rows


FAMILIES["date_bin"] = {
    "inputs": {"w": "string", "t": "int64", "o": "int64"},
    "outputs": {"bin": ("LONG", True), "bin15": ("LONG", True), "bin_origin": ("LONG", True), "bin_ts": ("TIMESTAMP", True)},
    "transforms": {"bin": "dateBin(w, t, o)", "bin15": "dateBin('15m', t, 0)", "bin_origin": "dateBin('1h', t, 1700000000000)", "bin_ts": "dateBin('1d', t, o)"},
    "rows": _date_bin_rows,
}


def _vector_rows(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(120):
        n = rng.choice([0, 1, 3, 4])
        v1 = [rng.choice([rng.uniform(-10, 10), 0.1, 0.0, 1e-3, 3.3]) for _ in range(n)]
        v2 = [rng.choice([rng.uniform(-10, 10), 0.7, 0.0, 2.5]) for _ in range(rng.choice([n, n, n, 2]))]
        rows.append({"v1": v1, "v2": v2})
    return rows


_VECTOR = {"cos": ("cosineDistance(v1, v2)", "DOUBLE"), "cos_d": ("cosineDistance(v1, v2, -1.0)", "DOUBLE"),
           "inner": ("innerProduct(v1, v2)", "DOUBLE"), "dot": ("dotProduct(v1, v2)", "DOUBLE"),
           "l1": ("l1Distance(v1, v2)", "DOUBLE"), "l2": ("l2Distance(v1, v2)", "DOUBLE"),
           "eu": ("euclideanDistance(v1, v2)", "DOUBLE"), "dims": ("vectorDims(v1)", "INT"),
           "norm": ("vectorNorm(v1)", "DOUBLE")}
FAMILIES["vector"] = {
    "inputs": {"v1": "list<float64>", "v2": "list<float64>"},
    "outputs": {c: (t, True) for c, (_, t) in _VECTOR.items()},
    "transforms": {c: e for c, (e, _) in _VECTOR.items()},
    "rows": _vector_rows,
}


# What Pinot stores for a Map / List result (pinot_sink/ingestion/java_objects.py): into a single-value STRING
# column a one-entry map or one-element list becomes that value, a longer one fails the row; into a JSON column
# a map is printed with its keys sorted; into a multi-value column a list's elements are converted one by one
# (a one-entry map element becomes its value, a null element is dropped).
_JSON_OBJECT_DOCS = ['{"a": 1, "b": [1, 2.5, "x"], "c": {"d": null}}', '[1, "two", {"k": 3}]', '  [ ]  ', '{}',
                     'not json', '', '"text"', '12', '{"a": 1} trailing', '[1, 2', '{"z": 1, "a": 2}',
                     '{"u": "é😀", "f": 1.0E10, "big": 123456789012345678901234567890}', '[true, false, null]']
_JSON_OBJECT = {"to_array": ("jsonStringToArray(j)", "STRING", True), "to_map": ("jsonStringToMap(j)", "STRING", True),
                "to_any": ("jsonStringToListOrMap(j)", "STRING", True), "extract": ("jsonExtractObject(j)", "STRING", True),
                "path_obj": ("jsonPath(j, '$.c')", "STRING", True), "path_arr": ("jsonPath(j, '$.b')", "STRING", True),
                "path_num": ("jsonPath(j, '$.a')", "STRING", True), "path_all": ("jsonPath(j, '$[*]')", "STRING", True),
                "map_str": ("toJsonMapStr(jsonStringToMap(j))", "STRING", True),
                "to_array_json": ("jsonStringToArray(j)", "JSON", True), "to_map_json": ("jsonStringToMap(j)", "JSON", True),
                "to_array_mv": ("jsonStringToArray(j)", "STRING", False)}
FAMILIES["json_objects"] = {
    "inputs": {"j": "string"},
    "outputs": {c: (t, sv) for c, (_, t, sv) in _JSON_OBJECT.items()},
    "transforms": {c: e for c, (e, _, _) in _JSON_OBJECT.items()},
    "rows": lambda rng: [{"j": d} for d in _JSON_OBJECT_DOCS] + [{"j": None}],
}

# The Java objects chained into other functions, the complex-type's neighbours (a HashMap's order, Maps in an
# Object[], scalars a path finds) and stored into typed columns.
_KV_DOCS = ['[{"key": "k1", "value": "v1"}, {"key": "k2", "value": 2}]', '[{"key": "a"}]', '{"key": "x", "value": "y"}',
            'not json', '[]', '[{"key": 1, "value": {"x": 1}}, {"key": "n", "value": null}]', '[{"k": "a", "v": "b"}]',
            "[" + ", ".join(f'{{"key": "key{i}", "value": "{i}", "k": "c{i}", "v": {i}.5}}' for i in range(20)) + "]",
            '[{"key": "Aa", "value": "1"}, {"key": "BB", "value": "2"}, {"key": "z", "value": "3"}, '
            '{"key": "Aa", "value": "4"}]', '[[1, 2], {"key": "p", "value": "q"}]', '  [ {"key": "é😀", "value": "x"} ]']
_JSON_MORE_DOCS = _JSON_OBJECT_DOCS + ['{"a": 7, "b": ["x", "y"], "c": {"e": 1, "f": 2.5}, "f": 1.5}',
                                       '[{"a": 1, "b": 2}, {"a": 3}]', '{"a": "12", "c": {"only": "one"}}',
                                       '{"a": 2147483648, "b": [], "c": {}}', '{"b": [[1], [2, 3]], "f": "NaN"}',
                                       '{"a": true, "b": [null, "z"]}', '{"b": [{"k": 1}, {"k": 2}]}']
_JSON_MORE = {
    "kv_fmt": ("jsonFormat(jsonKeyValueArrayToMap(kv))", "STRING", True),
    "kv_json": ("jsonKeyValueArrayToMap(kv)", "JSON", True),
    "kv_custom": ("jsonFormat(jsonKeyValueArrayToMap(kv, 'k', 'v'))", "STRING", True),
    "kv_mv": ("jsonKeyValueArrayToMap(kv)", "STRING", False),
    "obj_path": ("jsonPathString(jsonExtractObject(j), '$.a', 'none')", "STRING", True),
    "obj_path_long": ("jsonPathLong(jsonExtractObject(j), '$.a', -1)", "LONG", True),
    "obj_fmt": ("jsonFormat(jsonExtractObject(j))", "STRING", True),
    "obj_keys": ("jsonExtractKey(jsonExtractObject(j), '$.*')", "STRING", False),
    "path_fmt": ("jsonFormat(jsonPath(j, '$.c'))", "STRING", True),
    "path_mv": ("jsonPath(j, '$.b')", "STRING", False),
    "path_long": ("jsonPath(j, '$.a')", "LONG", True),
    "path_double": ("jsonPath(j, '$.f')", "DOUBLE", True),
    "path_int_mv": ("jsonPath(j, '$.b')", "INT", False),
    "path_in_path": ("jsonPathString(jsonPath(j, '$.c'), '$.e', 'none')", "STRING", True),
    "arr_objs_mv": ("jsonPathArray(j, '$[*]')", "STRING", False),
    "arr_objs_sv": ("jsonPathArray(j, '$.c')", "STRING", True),
    "list_fmt": ("jsonFormat(jsonStringToArray(j))", "STRING", True),
    "map_int": ("jsonStringToMap(j)", "INT", True),
    "map_mv": ("jsonStringToMap(j)", "STRING", False),
    "any_json": ("jsonStringToListOrMap(j)", "JSON", True),
    "path_json": ("jsonPath(j, '$.b')", "JSON", True),
}
FAMILIES["json_objects_more"] = {
    "inputs": {"j": "string", "kv": "string"},
    "outputs": {c: (t, sv) for c, (_, t, sv) in _JSON_MORE.items()},
    "transforms": {c: e for c, (e, _, _) in _JSON_MORE.items()},
    "rows": lambda rng: [{"j": d, "kv": _KV_DOCS[i % len(_KV_DOCS)]} for i, d in enumerate(_JSON_MORE_DOCS)]
    + [{"j": None, "kv": None}],
}

def _hash_rows(rng: random.Random) -> list[dict]:
    fixed = ["", "00", "61", "616263", "ff" * 4, "00" * 12, "31" * 13, "41" * 16, "7f" * 17, "80" * 24, "a5" * 25,
             "5a" * 32, "c3" * 33, "e9" * 40, "01" * 64, "fe" * 65, "123456789abcdef0" * 16]
    decimals = ["1.50", "-0", "0.000", "1e3", "1E-3", "-123456789012345678901234567890.123", "abc", " 2.5 ", "+7",
                "1.", ".5", "9" * 40, "-1e-40", "NaN", "1_000", "0x10"]
    rows = []
    for i in range(120):
        data = fixed[i] if i < len(fixed) else bytes(rng.randrange(256) for _ in range(rng.randint(0, 90))).hex()
        rows.append({"b": data, "s0": rng.choice([0, 1, -1, LONG_MIN, LONG_MAX, rng.randint(LONG_MIN, LONG_MAX)]),
                     "s1": rng.randint(LONG_MIN, LONG_MAX), "x": decimals[i % len(decimals)],
                     "d": rng.choice([0.1, -2.5, 1e21, 1e-7, 123.456, rng.uniform(-1e6, 1e6)]),
                     "v": rng.choice([LONG_MIN, LONG_MAX, 0, rng.randint(LONG_MIN, LONG_MAX)])})
    rows.append({"b": None, "s0": None, "s1": None, "x": None, "d": None, "v": None})
    return rows


_HASHES = {"city32": ("cityHash32(b)", "LONG"), "city64": ("cityHash64(b)", "LONG"),
           "city64_seed": ("cityHash64(b, s0)", "LONG"), "city64_seeds": ("cityHash64(b, s0, s1)", "LONG"),
           "city128": ("cityHash128(b)", "BYTES"), "md2": ("md2(b)", "STRING"),
           "bd_bytes": ("bigDecimalToBytes(x)", "BYTES"), "bd_bytes_double": ("bigDecimalToBytes(d)", "BYTES"),
           "bd_bytes_long": ("bigDecimalToBytes(v)", "BYTES"),
           "bd_round_trip": ("bytesToBigDecimal(bigDecimalToBytes(v))", "BIG_DECIMAL"),
           "bd_text": ("bytesToBigDecimal(bigDecimalToBytes(v))", "STRING"),
           "bd_scales": ("bytesToBigDecimal(bigDecimalToBytes(x))", "BIG_DECIMAL"),
           "bd_scales_text": ("bytesToBigDecimal(bigDecimalToBytes(x))", "STRING"),
           "bd_scales_double": ("bytesToBigDecimal(bigDecimalToBytes(x))", "DOUBLE"),
           "bd_scales_upper": ("upper(bytesToBigDecimal(bigDecimalToBytes(x)))", "STRING")}
FAMILIES["hashes_big_decimal"] = {
    "inputs": {"b": "binary", "s0": "int64", "s1": "int64", "x": "string", "d": "float64", "v": "int64"},
    "outputs": {c: (t, True) for c, (_, t) in _HASHES.items()},
    "transforms": {c: e for c, (e, _) in _HASHES.items()},
    "rows": _hash_rows,
}

# A Java object passed to a String parameter of another function (FunctionInvoker.convertTypes)
_OBJECT_ARGS = {"upper_path": ("upper(jsonPath(j, '$.x'))", "STRING"), "concat_path": ("concat(jsonPath(j, '$.x'), '|')", "STRING"),
                "length_map": ("length(jsonStringToMap(j))", "INT"), "concat_list": ("concat(jsonStringToArray(j), '|')", "STRING"),
                "long_path": ("plus(jsonPath(j, '$.x'), 1)", "DOUBLE")}
FAMILIES["json_object_args"] = {
    "inputs": {"j": "string"},
    "outputs": {c: (t, True) for c, (_, t) in _OBJECT_ARGS.items()},
    "transforms": {c: e for c, (e, _) in _OBJECT_ARGS.items()},
    "rows": lambda rng: [{"j": d} for d in ['{"x": "abc"}', '{"x": 12}', '{"x": 2.5}', '{"x": {"b": 1, "a": "q"}}',
                                            '{"x": [1, "y", {"k": 2}]}', '{"x": true}', '{"x": null}', '[1, "two"]',
                                            '{"z": 1, "a": [1]}', '[]', '{}', '{"x": "1e3"}']] + [{"j": None}],
}

_KEY_PARAMS = {"all_d2": ("", "maxDepth=2"), "all_dots": ("$..**", "dotNotation=true"),
               "all_dots_d1": ("$..", "MAXDEPTH = 1 ; dotnotation=TRUE"), "star_d1": ("$.*", "maxDepth=1"),
               "deep_d2_dots": ("$..*", "maxDepth=2;dotNotation=true"), "b_star_dots": ("$.b.*", "dotNotation=true"),
               "zero": ("$.*", "maxDepth=0"), "neg": ("", "maxDepth=-1"), "bad": ("$.*", "depth=3"),
               "empty_params": ("$.a", "")}
FAMILIES["json_keys_params"] = {
    "inputs": {"j": "string"},
    "outputs": {f"keys_{k}": ("STRING", False) for k in _KEY_PARAMS},
    "transforms": {f"keys_{k}": f"jsonExtractKey(j, '{p}', '{q}')" for k, (p, q) in _KEY_PARAMS.items()},
    "rows": _json_rows,
}


FAMILIES["json_map"] = {
    "inputs": {"m": "map<string,int64>"},
    "outputs": {"text": ("STRING", True)},
    "transforms": {"text": "toJsonMapStr(m)"},
    "json_columns": ["text"],
    "rows": lambda rng: [{"m": {"a": 1, "b": 2}}, {"m": {}}, {"m": None}, {"m": {"z": 10, "a": -3}},
                         {"m": {"k é": 2**40}}] + [{"m": {k: rng.randint(-5, 5) for k in rng.sample("abcde", 2)}}
                                                 for _ in range(10)],
}


# Families of cases (issue 23's corners): case k of a family is two output columns, ``c<k>`` = the expression into
# its Pinot type and ``ok<k>`` = ``isNotNull(<expression>)`` (a nullable-parameter function: true = a value, false
# = null, null = the expression threw on that row), so that the tables tell a failure from a null and the test
# knows the row where a build without continueOnError stops. The inputs are schema columns too (Pinot's JSON
# reader reads them); typed inputs (bytes, floats) are transforms of their own (``b = hexToBytes(b_hex)``).
EMOJI = "\U0001F600"


def _inputs(rng: random.Random, n: int) -> list[dict]:
    longs = [0, 1, -1, LONG_MIN, LONG_MAX, LONG_MIN + 1, 2**31, -(2**31) - 1, 1_700_000_000_000,
             -62_135_596_800_001, 253_402_300_800_000, 9_000_000_000_000_000, -9_000_000_000_000_000]
    doubles = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e21, 1e23, 0.1, 2.5, -2.5,
               1e-5, 123456789.0, 1e7, 0.001, 3.0e-3, 100.0, 2.0 ** 0.5, math.pi, 1.0e-300, -1.79e308]
    strings = ["", "a", "ab", "abc", "a" + EMOJI, EMOJI + "b", EMOJI, "héllo", "ß", " x ", "1", "-7",
               "2024-01-02", "NaN", "null", "a,b,,c", "😀😀", "\u00a0z"]
    zones = ["UTC", "Z", "UTC+01:00", "EST", "utc", "PST", "", "+0100", "+01:00", "GMT+1", "GMT", "Etc/GMT+1",
             "America/New_York", "Asia/Kolkata", "UT", "+01", "UTC+1", "EST5EDT", "-00:00", "Europe/Paris"]
    hexes = ["", "00", "01ab", "ff", "c3a9", "f09f9880", "deadbeef"]
    jsons = ['{"a": 1, "b": [1, 2]}', '{"a": {"x": 1}, "b": {"y": "z"}}', 'null', '[{"a": 1}, {"a": 2}]',
             '{"a": "text"}', 'not json', '{"a": 1.5}', '[]', '{}', '{"a": null}', '"str"', '12',
             '{"a": [{"k": 1}, {"k": 2}]}', '{"a": true}']
    rows = []
    for i in range(n):
        pick = (lambda pool, gen: pool[i] if i < len(pool) else gen())  # extremes first, then random
        rows.append({
            "l": pick(longs, lambda: rng.choice([rng.randint(LONG_MIN, LONG_MAX), rng.randint(-10**13, 10**13),
                                                 rng.randint(-1000, 1000)])),
            "d": pick(doubles, lambda: rng.choice([rng.uniform(-1e6, 1e6), rng.lognormvariate(0, 30),
                                                   float(rng.randint(-100, 100)), rng.random()])),
            "s": pick(strings, lambda: "".join(rng.choice(["a", "b", ",", " ", EMOJI, "é", "Z", "1"])
                                               for _ in range(rng.randint(0, 6)))),
            "z": zones[i % len(zones)],
            "b_hex": hexes[i % len(hexes)],
            "j": jsons[i % len(jsons)],
            "n": rng.choice([0, 1, 2, 3, 5, 8, -1, 100]),
            "ia": [rng.randint(-5, 5) for _ in range(rng.randint(0, 4))],
            "sa": [rng.choice(["x", "y", EMOJI, ""]) for _ in range(rng.randint(0, 3))],
        })
    rows.append({k: None for k in rows[0]})  # a row of nulls
    return rows


_INPUT_FIELDS = {"l": "LONG", "d": "DOUBLE", "s": "STRING", "z": "STRING", "b_hex": "STRING", "j": "STRING",
                 "n": "INT", "ia": ("INT", False), "sa": ("STRING", False)}
_TYPED = {"b": ("BYTES", "hexToBytes(b_hex)"), "f": ("FLOAT", "d")}

# family -> [(expression, Pinot type, single value)]
_CASES: dict[str, list[tuple[str, str, bool]]] = {
    "numbers_text": [
        ("reverse(d)", "STRING", True), ("repeat(d, 2)", "STRING", True), ("lpad(s, 12, d)", "STRING", True),
        ("upper(d)", "STRING", True), ("concat(d, s)", "STRING", True), ("fnv1Hash32UTF8(d)", "INT", True),
        ("fnv1aHash64UTF8(d)", "LONG", True), ("regexpReplace(d, 'E', 'e')", "STRING", True),
        ("d", "STRING", True), ("f", "STRING", True), ("concat(f, s)", "STRING", True),
        ("jsonFormat(d)", "STRING", True),
    ],
    "bytes_text": [
        ("rpad(s, 10, b)", "STRING", True), ("endsWith(s, b)", "BOOLEAN", True), ("contains(s, b)", "BOOLEAN", True),
        ("startsWith(s, b)", "BOOLEAN", True), ("concat(s, b)", "STRING", True), ("upper(b)", "STRING", True),
        ("length(b)", "INT", True), ("strpos(s, b)", "INT", True),
    ],
    "datetime_extremes": [
        ("year(l)", "INT", True), ("month(l)", "INT", True), ("dayOfYear(l)", "INT", True), ("week(l)", "INT", True),
        ("hour(l)", "INT", True), ("dayOfWeek(l)", "INT", True), ("toIso8601(l)", "STRING", True),
        ("dateTrunc('YEAR', l)", "LONG", True), ("dateTrunc('WEEK', l)", "LONG", True),
        ("dateTrunc('MONTH', l)", "LONG", True), ("dateTrunc('DAY', l, 'SECONDS')", "LONG", True),
        ("toDateTime(l, 'yyyy-MM-dd HH:mm:ss.SSS')", "STRING", True),
        ("dateTimeConvert(l, '1:MILLISECONDS:EPOCH', '1:DAYS:EPOCH', '1:DAYS')", "LONG", True),
        ("dateTimeConvert(l, '1:MILLISECONDS:EPOCH', '1:MILLISECONDS:EPOCH', '1:HOURS')", "LONG", True),
        ("toEpochSecondsBucket(l, n)", "LONG", True), ("round(l, n)", "LONG", True),
        ("hour(l, 'America/New_York')", "INT", True), ("year(l, 'Asia/Kolkata')", "INT", True),
    ],
    "zones": [
        ("hour(l, z)", "INT", True), ("toDateTime(l, 'yyyy-MM-dd HH:mm ZZ', z)", "STRING", True),
        ("fromDateTime('2024-03-10 02:30', 'yyyy-MM-dd HH:mm', z, 7)", "LONG", True),
        ("dateTrunc('DAY', l, 'MILLISECONDS', z)", "LONG", True), ("dayOfMonth(l, z)", "INT", True),
        ("fromDateTime(s, 'yyyy-MM-dd', 'Z', 5)", "LONG", True), ("fromDateTime(s, z, 'UTC', 5)", "LONG", True),
    ],
    "math": [
        # doubles as text: a dictionary of doubles holding NaN fails Pinot's builder (IndexOutOfBounds)
        ("log2(d)", "STRING", True), ("pow(d, 0.5)", "STRING", True), ("pow(d, d)", "STRING", True),
        ("ln(d)", "STRING", True), ("exp(d)", "STRING", True), ("sqrt(d)", "STRING", True),
        ("log10(d)", "STRING", True), ("roundDecimal(d, 2)", "STRING", True), ("truncate(d, 8)", "STRING", True),
        ("roundDecimal(d)", "STRING", True), ("d <> 'NaN'", "BOOLEAN", True), ("l <> 'NaN'", "BOOLEAN", True),
        ("d = 'NaN'", "BOOLEAN", True), ("left('abcdef', d)", "STRING", True), ("lpad('a', d, 'b')", "STRING", True),
        ("coalesce(d > 0, n)", "STRING", True),
    ],
    "arrays_mv": [
        ("arrayReverseInt(ia)", "INT", False), ("arrayReverseInt(ia)", "INT", True),
        ("arraySortInt(ia)", "LONG", False), ("arrayDistinctInt(ia)", "INT", False),
        ("arrayConcatInt(ia, ia)", "INT", False), ("arrayReverseString(sa)", "STRING", False),
        ("arraySliceInt(ia, 0, 1)", "INT", False), ("split(s, ',')", "STRING", False),
        ("arrayPushBackInt(ia, 7)", "INT", False), ("arrayIndexesOfInt(ia, 1)", "INT", False),
    ],
    "corners": [
        # a double into an int parameter is Java's (int) cast (saturates), a long intValue() (wraps)
        ("left('abcdef', 4294967298.0)", "STRING", True), ("left('abcdef', 4294967298)", "STRING", True),
        ("substr('abcdef', 1, -4294967294.0)", "STRING", True), ("repeat('ab', -4294967294.0)", "STRING", True),
        ("repeat('ab', -4294967294)", "STRING", True), ("right('abcdef', 1e300)", "STRING", True),
        ("left('abcdef', d * 1e10)", "STRING", True),
        # COALESCE returns the first non-null Java object; the column converts it
        ("coalesce(d > 0, n)", "INT", True), ("coalesce(d > 0, n)", "LONG", True),
        ("coalesce(d > 0, n)", "BOOLEAN", True), ("coalesce(d > 0, n)", "DOUBLE", True),
        ("coalesce(d > 0, n)", "STRING", True), ("coalesce(n, d > 0)", "BOOLEAN", True),
        ("coalesce(n, d > 0)", "INT", True), ("coalesce(l > 0, d)", "DOUBLE", True),
        ("coalesce(s, n)", "INT", True), ("coalesce(d, n)", "LONG", True),
    ],
    # A text cut inside a surrogate pair, read by another function (stored, it makes Pinot's builder fail, or
    # with continueOnError write a segment whose row count leaves the row out: tools/pinot_functions/
    # surrogates.py has those cases, each in its own build, since one such row corrupts the whole segment)
    "unicode": [
        ("length(rpad(s, 2, '\U0001F600'))", "INT", True), ("toUtf8(lpad(s, 3, '\U0001F600'))", "BYTES", True),
        ("fnv1Hash32UTF8(substr(s, 0, 1))", "INT", True), ("strpos(rpad(s, 3, '\U0001F600'), '\U0001F600')", "INT", True),
        ("codepoint(substr(s, 1))", "INT", True), ("length(left(s, 1))", "INT", True),
        ("toUtf8(arrayToString(prefixes(s, 2), '|'))", "BYTES", True), ("md5(toUtf8(substr(s, 1)))", "STRING", True),
        ("reverse(s)", "STRING", True), ("upper(s)", "STRING", True), ("length(s)", "INT", True),
        ("toBytes(substr(s, 0, 1), 'UTF-16BE')", "BYTES", True), ("toBytes(left(s, 1), 'ISO-8859-1')", "BYTES", True),
    ],
    # AND / OR / NOT as operators and in the function-call forms Pinot's registry lists (LogicalFunctions): the
    # evaluator plans both (And/Or/NotExecutionNode: any number of operands, stops at the deciding one)
    "logic": [
        ("and(d > 0, l > 0)", "BOOLEAN", True), ("or(d > 0, l > 0)", "BOOLEAN", True), ("not(d > 0)", "BOOLEAN", True),
        ("AND(d > 0, l > 0, n > 1)", "BOOLEAN", True), ("Or(d > 0, s = 'a', n > 1)", "BOOLEAN", True),
        ("and(d > 0)", "BOOLEAN", True), ("or(n > 1)", "BOOLEAN", True), ("d > 0 AND l > 0", "BOOLEAN", True),
        ("NOT (d > 0 OR l > 0)", "BOOLEAN", True), ("not(and(d > 0, or(l > 0, n = 2)))", "BOOLEAN", True),
        ("and(d > 0, jsonPathLong(j, '$.a') > 0)", "BOOLEAN", True), ("or(d > 0, n)", "BOOLEAN", True),
        ("and(n > 1, s)", "BOOLEAN", True), ("or(d > 0, l > 0)", "INT", True), ("not(d)", "BOOLEAN", True),
    ],
    "json": [
        ("jsonPathArray(j, '$.*')", "STRING", False), ("jsonPathArray(j, '$.a[*]')", "STRING", False),
        ("jsonPathExists(j, '$')", "BOOLEAN", True), ("jsonPathExists(j, '$.a')", "BOOLEAN", True),
        ("jsonPathString(j, '$')", "STRING", True), ("jsonPathString(j, '$.a')", "STRING", True),
        ("jsonPathLong(j, '$.a', l)", "LONG", True), ("jsonPathLong(j, '$.a')", "LONG", True),
        ("jsonPathDouble(j, '$.a')", "STRING", True), ("jsonPathString(j, '$.a', 'dflt')", "STRING", True),
        ("jsonPathArrayDefaultEmpty(j, '$.a')", "STRING", False),
    ],
}


def _cases_family(name: str, cases: list[tuple[str, str, bool]], **spec) -> dict:
    """A family of cases over the common inputs (``_inputs``), or over ``spec``'s inputs / schema_inputs /
    typed (helper transforms) / rows."""
    inputs = {k: v for k, v in _INPUT_FIELDS.items() if isinstance(v, str) or name == "arrays_mv"}
    typed = spec.pop("typed", _TYPED)
    outputs, transforms = {}, {c: e for c, (_, e) in typed.items()}
    for k, (expression, pinot_type, single) in enumerate(cases):
        outputs[f"c{k}"], outputs[f"ok{k}"] = (pinot_type, single), ("BOOLEAN", True)
        transforms[f"c{k}"], transforms[f"ok{k}"] = expression, f"isNotNull({expression})"
    return {
        "inputs": {"l": "int64", "d": "float64", "s": "string", "z": "string", "b_hex": "string", "j": "string",
                   "n": "int64", "ia": "list<int64>", "sa": "list<string>"},
        # (multi-value inputs are schema columns only where read: fewer MV columns, fewer Pinot corners)
        "schema_inputs": {k: (v, True) if isinstance(v, str) else v for k, v in inputs.items()},
        "outputs": outputs, "transforms": transforms, "row_id": False, "seed": name,
        "rows": lambda rng: _inputs(rng, 160),
        **spec,
    }


for _name, _cases in _CASES.items():
    FAMILIES[_name] = _cases_family(_name, _cases)


# IP addresses (IpAddressFunctions, over the inet.ipaddr library): Pinot's forms and its parser's corners (not the
# wildcard and range forms, "1.2.*.*", "1.2.3.0-255", which functions/ip_address_functions.py refuses). pinot-verify has only a
# stand-in for the library: the table was made with the real one, Pinot's pinned 5.6.2 compiled from its source
# with javac, first on the class path of a copy of pinot-segment-build (PINOT_VERIFY_HOME names that copy's folder)
IP_ADDRESSES = [
    "192.168.1.1", "10.0.0.1", "172.16.5.4", "172.31.255.255", "172.32.0.1", "127.0.0.1", "169.254.1.1", "8.8.8.8",
    "0.0.0.0", "255.255.255.255", "256.1.1.1", "999.0.0.1", "1.2.3", "1.2", "1", "127.1", "01.02.03.04",
    "001.002.003.004", "1.2.3.04", "0x7f.0.0.1", "0177.0.0.1", "1.2.3.4.5", "1.2.3.", ".1.2.3", " 1.2.3.4",
    "1.2.3.4 ", "", "abc", "hello world", "::1", "::", "2001:db8::1", "2001:DB8::1",
    "2001:0db8:0000:0000:0000:0000:0000:0001", "fe80::1", "fe80::1%eth0", "fe80::1%1", "fc00::1", "fd12:3456::1",
    "fe00::1", "::ffff:1.2.3.4", "::ffff:c0a8:101", "::ffff:10.1.1.1", "::1.2.3.4", "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9", "1::2::3", "[::1]", "1:2:3:4:5:6:1.2.3.4", "0:0:0:0:0:ffff:0102:0304", 
    "1.2.3.4%1", "::ffff:127.0.0.1", "0::0:0", "1:0:0:1::", "2001:db8:0:0:1:0:0:1",
    "2001:db8::0:1", "a:b:c:d:e:f:0:1", "00001::1", "1::00001", "ff02::1", "fe80::", "febf:ffff::1", "fec0::1",
    "::2", "0.0.0.1", "10.255.255.255", "11.0.0.0", "192.169.0.1", "169.254.0.0", "169.255.0.0", "126.255.255.255",
    "128.0.0.0", "1.2.3.4/24", "1.2.3.4/32", "::1/128", "0x01020304", "4294967295", "1.2.3.4:80", "::ffff:0:0",
    "64:ff9b::1.2.3.4", "1.2.3.4\t", "１.２.３.４", "ABCD:EF01:2345:6789:ABCD:EF01:2345:6789", "::FFFF:1.2.3.4",
]
IP_PREFIXES = [
    "192.168.1.0/24", "192.168.1.7/24", "10.0.0.0/8", "0.0.0.0/0", "1.2.3.4/32", "1.2.3.4/33", "1.2.3.4/31",
    "2001:db8::/32", "::/0", "fe80::/10", "fc00::/7", "::1/128", "::1/129", "1.2.3.4/255.255.255.0", "1.2.3.4/",
    "/24", "1.2.3.4/024", "::ffff:1.2.3.4/120", "::ffff:1.2.3.4/96", "1.2.3.4/-1", "1.2.3.4", "2001:db8::1",
    "172.16.0.0/12", "172.16.0.0/11", "10.1.2.3/8", "10.1.2.3/9", "192.168.0.0/16", "1.2.3.4/ 24", "1.2.3.4 /24",
    "2001:db8::1/64", "2001:db8::1/65", "2001:db8::1/127", "1.2.3/24", "1.2.3.4/8/8", "", "abc/24", "1.2.3.4/0",
    "1.2.3.4/1", "1.2.3.4/7", "1.2.3.4/23", "255.255.255.255/25", "ffff::/1", "ffff::/9", "8000::/1", 
    "1.2.3.4/16 ", "fe80::1%eth0/64", "1.2.3.4/+24", "0.0.0.0/32", "1.2.3.4/1.2", "1.2.3.4/255.0.255.0",
    "2001:db8::1/ffff:ffff::", "10.1.2.3/255.255.255.255", "1.2.3.4/::", "fe80::1%eth0/10",
]


def _random_ipv4(rng: random.Random) -> str:
    parts = [str(rng.randint(0, 255)) for _ in range(4)]
    if rng.random() < 0.1:
        parts[rng.randrange(4)] = "0" + parts[0]
    return ".".join(parts)


def _random_ipv6(rng: random.Random) -> str:
    groups = [f"{rng.choice([0, 0, 1, rng.randint(0, 0xffff)]):x}" for _ in range(8)]
    if rng.random() < 0.2:
        groups = [g.zfill(4) for g in groups]
    if rng.random() < 0.3:
        groups = [g.upper() for g in groups]
    text = ":".join(groups)
    if rng.random() < 0.5 and "0" in groups:  # compress the first run of zeros
        first = groups.index("0")
        last = first
        while last + 1 < 8 and groups[last + 1] == "0":
            last += 1
        text = ":".join(groups[:first]) + "::" + ":".join(groups[last + 1:])
    return text


def _ip_rows(rng: random.Random) -> list[dict]:
    longs = [0, 1, 4294967295, 4294967296, -1, 3232235777, 2130706433, 2**63 - 1, -(2**63)]
    hexes = ["00" * 16, "ff" * 16, "20010db8" + "00" * 11 + "01", "00" * 10 + "ffff" + "01020304", "", "0102",
             "fe80" + "00" * 14, "00" * 15 + "01", "00" * 17]
    rows = []
    for i in range(max(len(IP_ADDRESSES), len(IP_PREFIXES)) + 120):
        if i < len(IP_ADDRESSES):
            a = IP_ADDRESSES[i]
        else:
            a = _random_ipv4(rng) if rng.random() < 0.5 else _random_ipv6(rng)
        if i < len(IP_PREFIXES):
            p = IP_PREFIXES[i]
        else:
            p = (_random_ipv4(rng) + f"/{rng.randint(0, 33)}" if rng.random() < 0.5
                 else _random_ipv6(rng) + f"/{rng.randint(0, 129)}")
        rows.append({"a": a, "p": p, "n": rng.choice([0, 1, 8, 16, 24, 31, 32, 33, 64, 96, 120, 128, 129, -1]),
                     "v": longs[i] if i < len(longs) else rng.choice([rng.randint(0, 2**32 - 1),
                                                                      rng.randint(-2**40, 2**40)]),
                     "b_hex": hexes[i] if i < len(hexes) else "".join(f"{rng.randint(0, 255):02x}" for _ in range(16))})
    rows.append({"a": None, "p": None, "n": None, "v": None, "b_hex": None})
    return rows


FAMILIES["ip"] = _cases_family("ip", [
    ("isSubnetOf(p, a)", "BOOLEAN", True), ("ipPrefix(a, n)", "STRING", True), ("ipSubnetMin(p)", "STRING", True),
    ("ipSubnetMax(p)", "STRING", True), ("isIPv4String(a)", "BOOLEAN", True), ("isIPv6String(a)", "BOOLEAN", True),
    ("isIPv4String(p)", "BOOLEAN", True), ("isIPv6String(p)", "BOOLEAN", True), ("ipv4ToLong(a)", "LONG", True),
    ("longToIpv4(v)", "STRING", True), ("ipv6ToBytes(a)", "BYTES", True), ("bytesToIpv6(b)", "STRING", True),
    ("ipv4ToIpv6(a)", "STRING", True), ("ipv4CIDRToRange(p)", "STRING", False), ("ipFamily(a)", "INT", True),
    ("ip_family(p)", "INT", True), ("ipMaskLen(p)", "INT", True), ("ipNetmask(p)", "STRING", True),
    ("ipHostmask(p)", "STRING", True), ("isPrivateIp(a)", "BOOLEAN", True), ("is_private_ip(p)", "BOOLEAN", True),
    ("ipPrefix(p, 24)", "STRING", True), ("isSubnetOf('10.0.0.0/8', a)", "BOOLEAN", True),
    ("isSubnetOf('::ffff:0:0/96', a)", "BOOLEAN", True), ("isSubnetOf(p, '192.168.1.100')", "BOOLEAN", True),
    ("isSubnetOf('fe80::/10', a)", "BOOLEAN", True), ("isSubnetOf('fe80::%eth0/64', a)", "BOOLEAN", True),
    ("isSubnetOf(p, 'fe80::1%eth0')", "BOOLEAN", True),
], inputs={"a": "string", "p": "string", "n": "int64", "v": "int64", "b_hex": "string"},
    schema_inputs={"a": ("STRING", True), "p": ("STRING", True), "n": ("INT", True), "v": ("LONG", True),
                   "b_hex": ("STRING", True)},
    typed={"b": ("BYTES", "hexToBytes(b_hex)")}, rows=_ip_rows)


# Jackson (JsonUtils' ObjectMapper, Pinot's JSON functions and JSON columns) on extreme inputs: numbers beyond
# double range and beyond a long, duplicate keys, nesting near Jackson's depth limit, a key-value array with a
# null or repeated key, non-standard tokens. (No "\ud83d"-style lone surrogate escapes: a stored text holding one
# corrupts the whole segment, tools/pinot_functions/surrogates.py. A text into a JSON column is the writer's
# conversion, after the pipeline this table is replayed through: not a case here.)
_DEEP = [800, 999, 1000, 1001, 1500]
JSON_EXTREME_DOCS = (
    ['{"a": 1e400}', '{"a": -1e400}', '{"a": 1e-400}', '{"a": 123456789012345678901234567890}',
     '{"a": 9223372036854775807}', '{"a": 9223372036854775808}', '{"a": -9223372036854775809}',
     '{"a": 12345678901234567890.5}', '{"a": 0.1}', '{"a": 1.0}', '{"a": 1E2}', '{"a": -0.0}', '{"a": 1e308}',
     '{"a": 4.9e-324}', '{"a": 2.4703282292062327e-324}', '{"a": 0.30000000000000004}', '{"a": 100000000000000000000000}',
     '{"a": 1, "a": 2}', '{"a": {"b": 1}, "a": 3}', '{"a": [1, 1e400, 123456789012345678901234567890]}',
     '{"a": NaN}', '{"a": Infinity}', "{'a': 1}", '{"a": 01}', '{"a": .5}', '{"a": 1.}', '{"a": +1}',
     '{"a": "x"} {"a": "y"}', '{"a": 1,}', '[{"key": null, "value": 1}]', '[{"key": "a", "value": 1}, {"key": "a", "value": 2}]',
     '[{"key": 1, "value": 1e400}]', '[{"value": 1}]', '{"a": "' + "9" * 1001 + '"}', '{"a": ' + "9" * 999 + '}',
     '{"a": ' + "9" * 1001 + '}', '{"a": 1.' + "5" * 1200 + '}', '{"b": {"a": 1e400}}', '{"a": true, "A": false}']
    + ['{"a": ' + "[" * n + "1" + "]" * n + "}" for n in _DEEP]
    + ['{"a": 1, "z": ' + '{"z": ' * n + "1" + "}" * n + "}" for n in _DEEP])
FAMILIES["json_extremes"] = _cases_family("json_extremes", [
    ("jsonPathString(j, '$.a', 'dflt')", "STRING", True), ("jsonPathDouble(j, '$.a', -1.5)", "STRING", True),
    ("jsonPathLong(j, '$.a', -7)", "LONG", True), ("jsonPathArray(j, '$.a')", "STRING", False),
    ("jsonPathString(j, '$.a')", "STRING", True), ("jsonPathDouble(j, '$.a')", "STRING", True),
    ("jsonPathLong(j, '$.a')", "LONG", True), ("jsonPathExists(j, '$.a')", "BOOLEAN", True),
    ("jsonPathString(j, '$.b.a')", "STRING", True), ("toJsonMapStr(jsonStringToMap(j))", "STRING", True),
    ("jsonFormat(jsonStringToMap(j))", "STRING", True), ("jsonStringToMap(j)", "JSON", True),
    ("toJsonMapStr(jsonKeyValueArrayToMap(j))", "STRING", True), ("isJson(j)", "BOOLEAN", True),
    ("arrayLength(jsonExtractKey(j, '$.*'))", "INT", True),
    ("jsonPathString(j, '$.z')", "STRING", True),
], inputs={"j": "string"}, schema_inputs={"j": ("STRING", True)}, typed={},
    rows=lambda rng: [{"j": d} for d in JSON_EXTREME_DOCS] + [{"j": None}])


# dateTrunc in a zone around the hours a DST change repeats: Joda's roundFloor converts the floored local time
# back with the original instant's offset when that offset is one of the two (found by a sweep: Europe/Berlin,
# 1916-10-01 00:00 happened twice)
_OVERLAP_ZONES = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Havana", "Asia/Beirut"]


def _fall_backs(zone: str, years) -> list[int]:
    """Epoch millis of the instants where ``zone``'s offset drops (a local hour or half hour repeats)."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    tz, found = ZoneInfo(zone), []
    for year in years:
        t = dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc)
        before = t.astimezone(tz).utcoffset()
        while t.year == year:
            t += dt.timedelta(hours=1)
            now = t.astimezone(tz).utcoffset()
            if now < before:
                found.append(int(t.timestamp() * 1000))
            before = now
    return found


def _overlap_rows(rng: random.Random) -> list[dict]:
    rows = []
    for zone in _OVERLAP_ZONES:
        for edge in _fall_backs(zone, [1916, 1975, 2000, 2023]):
            for _ in range(6):
                rows.append({"l": edge + rng.randint(-2 * 3_600_000, 2 * 3_600_000)})
    rows += [{"l": rng.randint(-5_000_000_000_000, 5_000_000_000_000)} for _ in range(40)]
    return rows + [{"l": None}]


FAMILIES["dst_overlaps"] = _cases_family("dst_overlaps", [
    (f"dateTrunc('{unit}', l, 'MILLISECONDS', '{zone}')", "LONG", True)
    for zone in _OVERLAP_ZONES for unit in ("HOUR", "DAY", "MONTH", "WEEK")
] + [("dateTrunc('MINUTE', l, 'MILLISECONDS', 'Australia/Lord_Howe')", "LONG", True)],
    inputs={"l": "int64"}, schema_inputs={"l": ("LONG", True)}, typed={}, rows=_overlap_rows)


# InternalFunctions read the query's thread context, which an ingestion has none of (QueryThreadContext.get() is
# null without assertions: every non-null argument throws, a null one gives null without a call); sleep(ms) is
# its argument (it pauses only with assertions on); rand() / uuidV4() / uuidV7() are random, so only what Pinot
# makes of them is compared: their range, version and length
def _query_context_rows(rng: random.Random) -> list[dict]:
    texts = [None, "", "x", "select 1"]
    numbers = [None, 0, 5, -3, 2**40, LONG_MIN, LONG_MAX]
    return [{"s": rng.choice(texts), "n": rng.choice(numbers)} for _ in range(40)]


FAMILIES["query_context"] = _cases_family("query_context", [
    ("brokerId(s)", "STRING", True), ("cid(s)", "STRING", True), ("queryEngine(s)", "STRING", True),
    ("reqId(s)", "LONG", True), ("startTime(s)", "LONG", True), ("endTime(s)", "LONG", True),
    ("stageId(s)", "INT", True), ("workerId(s)", "INT", True),
    ("sleep(n)", "LONG", True), ("floor(rand())", "DOUBLE", True), ("floor(rand() * 0.0)", "DOUBLE", True),
    ("uuidVersion(uuidV4())", "INT", True), ("uuidVersion(UUID_V7())", "INT", True),
    ("length(uuidV4())", "INT", True), ("length(uuidToString(uuidV7()))", "INT", True),
], inputs={"s": "string", "n": "int64"}, schema_inputs={"s": ("STRING", True), "n": ("LONG", True)}, typed={},
    rows=_query_context_rows)
