"""A random differential search of Pinot's scalar functions against this package, run by hand (needs
~/pinot-verify; the suite never runs it):

    python tools/pinot_functions/differential.py --seed 3 --batches 4 --cases 112 [--keep] [--log FILE]
    python tools/pinot_functions/differential.py --expressions CASES.json --family NAME   # given cases, all kept

Each batch draws ``--cases`` random nested expressions over every scalar function of the registry
(tests/fixtures/functions/pinot_scalar_functions.json, what tools/pinot_functions/DumpFunctionRegistry.java read
from Pinot), typed by the Java signatures, with edge literals (integer extremes, -0.0, huge exponents, NaN and
the infinities by division, emoji and cut surrogates, case-mapping oddities, regexp / LIKE metacharacters, URLs,
UUIDs, invalid and odd zones, JSON null / duplicate keys / malformed JSON, literal-only calls; 6% of single-value
arguments a multi-value column, 6% of scalar arguments a value of another type, 10% of results into a column of
another type) over rows with edge values (empty, singleton and huge arrays, edge texts, ...). One Pinot build answers the whole batch (one segment, one transform column per
case and an ``isNotNull`` column beside it, continueOnError on); the replay test's own comparison
(tests/ingestion/test_function_expectations.py) then runs each case through this package on the same rows.

``--ask-refused`` asks Pinot about the cases whose config this package refuses too (a build of their own): a
refusal where Pinot stores a value on some row is listed (``refused_answered``) unless documented.

Every disagreement is kept with ``--keep``: one fixture table per family (the Java class of the outermost
function), ``tests/fixtures/functions/diff_<family>.jsonl``, in the format the replay test reads, holding only
the cases that differed (merged with the table already there). A summary line per run goes to stdout:
functions, cases, seeds, differences.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import json
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "ingestion"))
from expectations import COMMIT, VERIFY, _configs, run_pinot  # noqa: E402
from families import EMOJI, IP_ADDRESSES, IP_PREFIXES, _cases_family, _inputs  # noqa: E402
import forms  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "functions"
_CALLED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
REGISTRY = json.loads((FIXTURES / "pinot_scalar_functions.json").read_text())["functions"]

# Java type -> the generator kind of an argument / the Pinot column type of a result
_KIND = {"long": "long", "Long": "long", "int": "int", "Integer": "int", "double": "double", "float": "double",
         "String": "string", "byte[]": "bytes", "boolean": "bool", "Boolean": "bool", "long[]": "longs",
         "int[]": "longs", "double[]": "doubles", "float[]": "doubles", "String[]": "strings", "Object": "any"}
_OUT = {"String": ("STRING", True), "int": ("INT", True), "Integer": ("INT", True), "long": ("LONG", True),
        "Long": ("LONG", True), "double": ("DOUBLE", True), "float": ("FLOAT", True), "boolean": ("BOOLEAN", True),
        "Boolean": ("BOOLEAN", True), "byte[]": ("BYTES", True), "int[]": ("INT", False), "long[]": ("LONG", False),
        "double[]": ("DOUBLE", False), "float[]": ("FLOAT", False), "String[]": ("STRING", False),
        "Object": ("STRING", True), "List": ("STRING", False)}
# kinds the search once left out (their functions never called): UUID (a text or 16 bytes), Timestamp (a long),
# BigDecimal (a number or its text), Object[] (jsonPathArray's, an MV of texts)
_KIND.update({"UUID": "uuid", "Timestamp": "long", "Timestamp[]": "longs", "BigDecimal": "decimal"})
_OUT.update({"UUID": ("STRING", True), "Timestamp": ("TIMESTAMP", True), "Timestamp[]": ("TIMESTAMP", False),
             "BigDecimal": ("BIG_DECIMAL", True), "Object[]": ("STRING", False)})
# classes pinot-verify cannot run (its class audit fails the build); the geospatial ST_* functions are pinot-core's,
# absent from the dump (``source``). Whole class names: a fragment ("St", "Geo") once left out StringFunctions,
# GeohashFunctions and UuidToStringScalarFunction, 86 names the search never called. A pinot-verify whose
# launcher puts the real IPAddress library before its stand-ins (docs/ingestion.md, "The random differential
# search") runs IpAddressFunctions; one built with httpcore5 (URIUtils compiles) runs encodeUrl / decodeUrl.
_LAUNCHER = VERIFY / "pinot-segment-build"
_RUNS_IP = _LAUNCHER.exists() and "first/" in _LAUNCHER.read_text() and any((VERIFY / "first").glob("ipaddress*.jar"))
_SKIP_CLASS = set() if _RUNS_IP else {"IpAddressFunctions"}
# functions of a runnable class whose Pinot code reaches a class pinot-verify's audit refuses (URIUtils needs
# httpcore5's URIBuilder): every build that calls them fails, there is nothing to compare
_UNRUNNABLE = set() if any((VERIFY / "lib").glob("httpcore5*.jar")) else {"encodeurl", "decodeurl"}
# (the variadic ones, the two over a Map, sleep and the clock's / random ones by their shape: forms.py; rand(seed)
# is deterministic and drawn as any function)
_SKIP_NAMES = {"now", "ago", "agomv", "sleep", "uuid", "generateuuid", "randomuuid", "random", "inidset",
               "arrayvalueconstructor", "array", "case", "casewhen", "in", "notin", "inidsetmv"}

_LITERALS = {
    "long": ["0", "1", "-1", "9223372036854775807", "-9223372036854775808", "1700000000000", "2147483647",
             "-2147483648", "86400000", "253402300800000", "-62135596800001"],
    # (no Integer.MAX_VALUE as an int: lpad / repeat to such lengths build 2 GB texts on both sides)
    "int": ["0", "1", "2", "3", "-1", "100", "65536", "-2147483648"],
    "double": ["0.0", "-0.0", "1.5", "1.5E300", "1e-320", "1.7976931348623157E308", "0.1", "-2.5", "1e21"],
    "string": ["''", "'a'", "'abc'", f"'{EMOJI}'", f"'a{EMOJI}b'", "'héllo'", "'Ä'", "'ß'", "'UTC'",
               "'Invalid/Zone'", "'GMT+25'", "'{\"a\": 1, \"a\": 2}'", "'null'", "'{\"x\": 1.5E300}'",
               "'[{\"a\": 1}, {\"b\": 2}]'", "'$.a'", "'$..x'", "'$.length()'", "'$[-1]'", "'$.*'", "'$[0]'",
               "'yyyy-MM-dd''T''HH'", "'DAY'", "'YEAR'", "'MONTH'", "'1:MILLISECONDS:EPOCH'", "'1:DAYS'", "','",
               "'\ud83d'", "'\ude00x'", "'2024-01-02'", "'-0.0'", "'NaN'", "'Infinity'", "'1.5E300'",
               "'yyyy-MM-dd HH:mm:ss'", "'{\"a\": [1, {\"b\": null}]}'", "'America/New_York'", "'[]'", "'{}'"],
    "bytes": ["hexToBytes('')", "hexToBytes('00')", "hexToBytes('c3a9')", "hexToBytes('f09f')",
              "hexToBytes('ffffffffffffffffff')"],
    "bool": ["true", "false"],
}
# Wider edges (the search's blind spots, 2026-11-29): doubles no literal can write (NaN, the infinities, as
# Pinot's own division makes them), the shortest-digit and E-notation borders, 2^53 + 1, shift counts;
# texts whose case mapping differs between Unicode tables or grows (İ, ß, ﬁ, final sigma), LIKE / regexp
# metacharacters, URLs, UUIDs, numbers with spaces and signs, malformed JSON, Joda patterns and zones with
# odd offsets, units and time formats.
_LITERALS["double"] += ["divide(0.0, 0.0)", "divide(1.0, 0.0)", "divide(-1.0, 0.0)", "4.9E-324", "-1.0E-300",
                        "9007199254740993.0", "0.001", "1.0E7", "9999999.999999998", "123456.789", "-0.5",
                        "2.5E-5", "1.0E-3", "9.223372036854776E18", "-9.223372036854776E18", "3.4028235E38"]
_LITERALS["long"] += ["9007199254740993", "-9007199254740993", "4102444800000", "-1000", "63", "64"]
_LITERALS["int"] += ["-5", "10", "31", "32", "63", "64", "-2147483647"]
_LITERALS["string"] += [
    "'İ'", "'ı'", "'ﬁ'", "'ΣΑΣ'", "'ǅ'", "' '", "'  a b  '", "'a\tb'", "'%'", "'a%'", "'_'", "'%a_'",
    "'.*'", "'[a-z]+'", "'(a)(b)?'", "'$1'", "'\\'", "'a|b'", "'^'", "'http://u:p@h.com:8080/p/a.html?q=1&r=&q=2#f'",
    "'https://x.org/a%20b?x=%zz&y=%C3%A9'", "'%E0%A4'", "'a+b%2Bc'", "'550e8400-e29b-41d4-a716-446655440000'",
    "'550E8400E29B41D4A716446655440000'", "'1-2-3-4-5'", "'2024-02-30'", "'2024-01-02T03:04:05.678Z'",
    "'2024-01-02 03:04:05'", "'1e3'", "' 12 '", "'+5'", "'0x10'", "'9223372036854775808'", "'-0'", "'1,5'",
    "'EEE, d MMM yyyy HH:mm:ss Z'", "'yyyyMMdd'", "'MM/dd/yyyy hh:mm a'", "'HH:mm:ss.SSS ZZ'", "'xxxx-ww-e'",
    "'G yyyy'", "'yyyy-MM-dd''T''HH:mm:ss.SSSZZ'", "'Asia/Kathmandu'", "'+05:45'", "'-23:59'", "'GMT-00:30'",
    "'Europe/London'", "'Pacific/Apia'", "'SECONDS'", "'WEEK'", "'QUARTER'", "'HOUR'", "'MILLISECONDS'",
    "'1:HOURS:EPOCH'", "'1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd'", "'5:MINUTES'", "'[1, 2'", "'{\"a\":}'",
    "'{\"a\": {\"b\": [1, 2, 3]}}'", "'{\"a\": 1e400}'", "'{\"a\": -0.0}'", "'{\"a\": 12345678901234567890}'",
    "'$.a.b'", "'$.a[0]'", "'$[*]'", "'$..a'", "'$.a[?(@ > 1)]'", "'$.a.length()'", "'a,b;c'", "'😀😀x'",
]
# zone names (2026-11-29, late: Joda's names, fixed from the search's round6_zone_names) and zones whose
# standard time tzdata and Joda see apart (negative savings, a JVM without names)
_LITERALS["string"] += ["'z'", "'zzzz'", "'EEE, d MMM yyyy HH:mm z'", "'yyyy-MM-dd zzzz'", "'Europe/Dublin'",
                        "'Africa/Casablanca'", "'Etc/GMT+5'", "'America/Coyhaique'", "'CET'", "'EST5EDT'"]
_LITERALS["bytes"] += ["hexToBytes('ff')", "hexToBytes('550e8400e29b41d4a716446655440000')", "toUtf8('😀')",
                       "hexToBytes('edb080')"]
# edge texts for rows 24.. of each batch (s, j, z): kept out of families._inputs, whose rows the suite's
# committed tables hold
_EDGE_TEXTS = ["İ", "ΣΑΣ", "ﬁ", "%", "a_b", "\t x", "http://u@h.com:8/p?q=1&q=2#f",
               "550e8400-e29b-41d4-a716-446655440000", "2024-01-02T03:04:05Z", " 12 ", "1e3", "a%20b%zz", "ǅ",
               "\u2028", "ab" * 40, "0"]
_EDGE_JSON = ['[1, 2', '{"a":}', '{"a": {"b": [1, 2, 3]}}', '{"a": 1e400}', '{"a": -0.0}',
              '{"a": 12345678901234567890}', '{"a": "\u00e9", "b": [true, null]}', '  {"a": 1}  ', '[[]]', '""',
              '{"a": [1, 2, 3], "a": {"x": 1}}', '-0', '1.0E+2', '{"": 1}', 'tru', '{"a": 0.1}']
_EDGE_ZONES = ["Asia/Kathmandu", "+05:45", "GMT-00:30", "Europe/London", "-23:59", "+14:00", "Pacific/Apia",
               "America/St_Johns", "Australia/Lord_Howe", "Etc/GMT-14", "+24:00", "asia/kolkata", "CET", "MST",
               "GMT0", "UTC-0"]
_COLUMNS = {"long": ["l", "n"], "int": ["n"], "double": ["d", "f"], "string": ["s", "z", "j"], "bytes": ["b"],
            "longs": ["ia"], "doubles": ["ia"], "strings": ["sa"], "bool": [], "any": ["l", "d", "s", "n"],
            "uuid": ["s", "b"], "decimal": ["d", "l", "s"], "ip": ["s", "z"]}
# a multi-value column passed where a function takes one value (Pinot converts it by its first element)
_MV_AS_ONE = {"string": ["sa", "ia"], "long": ["ia"], "int": ["ia"], "double": ["ia"], "bytes": ["sa"],
              "any": ["ia", "sa"]}
_LITERALS["uuid"] = ["'550e8400-e29b-41d4-a716-446655440000'", "'550E8400E29B41D4A716446655440000'",
                     "' 550e8400-e29b-41d4-a716-446655440000 '", "'1-2-3-4-5'", "''",
                     "'00000000-0000-0000-0000-000000000000'",
                     "'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'", "'c232ab00-9414-11ec-b3c8-9f6bdeced846'",
                     "hexToBytes('550e8400e29b41d4a716446655440000')", "hexToBytes('00')", "'not-a-uuid'"]
# IpAddressFunctions' texts: the ip table's addresses and prefixes (families.py), and a few texts of any kind
_LITERALS["ip"] = [f"'{a}'" for a in IP_ADDRESSES + IP_PREFIXES] + ["'1.2.*.*'", "'1.2.3.0-255'", "'-7'", "'a%20b'"]
_LITERALS["decimal"] = ["'1.5'", "'-0.00'", "'1E+3'", "'123456789012345678901234567890.123'", "'0.1'", "0", "1.5",
                        "'-1e-20'", "9223372036854775807", "'abc'"]


def _functions() -> list[dict]:
    chosen, seen = [], set()
    for f in REGISTRY:
        if f.get("source") or not f["deterministic"] or f["class"].rsplit(".", 1)[-1] in _SKIP_CLASS:
            continue
        if f["name"] in _SKIP_NAMES | _UNRUNNABLE or f["arity"] < 0 or "fory" in f["name"]:  # (Fory: the audit's)
            continue
        if any(p not in _KIND for p in f["params"]) or f["returns"] not in _OUT:
            continue
        name = next((n for n in f["declared_names"] if n.lower().replace("_", "") == f["name"]), None) or f["name"]
        if (name, f["arity"]) in seen:
            continue
        seen.add((name, f["arity"]))
        chosen.append({**f, "call": name})
    return chosen + forms.functions()


def _returns(kind: str, f: dict) -> bool:
    r = _KIND.get(f["returns"])
    return r == kind or (kind in ("long", "int", "double") and r in ("long", "int", "double")) or kind == "any" and (
        r in ("long", "int", "double", "string"))


class Generator:
    def __init__(self, rng: random.Random, functions: list[dict]):
        self.rng, self.functions = rng, functions
        self.by_kind = {k: [f for f in functions if _returns(k, f)] for k in set(_KIND.values())}
        self.by_kind["ip"] = self.by_kind["string"]

    def arg(self, kind: str, depth: int, literal_only: bool) -> str:
        rng = self.rng
        if depth > 0 and rng.random() < 0.3 and self.by_kind.get(kind):
            return self.call(rng.choice(self.by_kind[kind]), depth - 1, literal_only)
        columns = [] if literal_only else _COLUMNS[kind]
        if kind in _CROSS and rng.random() < CROSS_RATE:  # a value of another type (FunctionInvoker converts it)
            return self.arg(rng.choice([k for k in _CROSS if k != kind]), depth, literal_only)
        if columns and kind in _MV_AS_ONE and rng.random() < 0.06:  # a multi-value where one value is taken
            return rng.choice(_MV_AS_ONE[kind])
        literals = _LITERALS.get(kind) or (_LITERALS["string"] + _LITERALS["long"] if kind == "any" else [])
        if columns and (not literals or rng.random() < 0.55):
            return rng.choice(columns)
        if not literals:  # an array kind, literal only: a split / a column-free array
            return {"longs": "split('1,2', ',')", "doubles": "split('1.5', ',')", "strings": "split('a,,b', ',')"}[kind]
        return rng.choice(literals)

    def call(self, f: dict, depth: int, literal_only: bool = False) -> str:
        if "form" in f:
            return f["form"](self, depth, literal_only)
        ip = f["class"].endswith("IpAddressFunctions")  # (its texts: addresses and prefixes, mostly)
        args = [self.arg("ip" if ip and p == "String" else _KIND[p], depth, literal_only) for p in f["params"]]
        return f"{f['call']}({', '.join(args)})"


# Argument shapes the Java signatures never gave (2026-11-29, late): a value of another scalar type where one is
# taken (a DOUBLE into a long parameter, a number into a String, a text into a number, a boolean into an int,
# bytes into a String: FunctionInvoker.convertTypes / PinotDataType.convert), and a result stored into a
# column of another type than the function's own (DataTypeTransformer's conversion: a double into a STRING
# or INT column, a text into a LONG one, a single value into a multi-value column, ...)
_CROSS = ["long", "int", "double", "string", "bool", "bytes"]
CROSS_RATE = 0.06
_OTHER_COLUMNS = [("STRING", True), ("INT", True), ("LONG", True), ("FLOAT", True), ("DOUBLE", True),
                  ("BOOLEAN", True), ("BYTES", True), ("TIMESTAMP", True), ("BIG_DECIMAL", True), ("JSON", True),
                  ("STRING", False), ("LONG", False), ("DOUBLE", False), ("INT", False), ("FLOAT", False),
                  ("BYTES", False)]
OTHER_COLUMN_RATE = 0.1


def _rows(rng: random.Random) -> list[dict]:
    rows = _inputs(rng, 40)
    huge = [rng.randint(-2**31, 2**31 - 1) for _ in range(2000)]
    edges = [([], []), ([7], ["only"]), (huge, [EMOJI * 3] * 40), ([0, -0, 2**31 - 1, -2**31], ["x", ""])]
    for row, (ia, sa) in zip(rows[20:], edges):
        row["ia"], row["sa"] = ia, sa
    for row, text, json_text, zone in zip(rows[24:40], _EDGE_TEXTS, _EDGE_JSON, _EDGE_ZONES):
        row["s"], row["j"], row["z"] = text, json_text, zone
    return rows


@contextlib.contextmanager
def _memory_cap(gib: int = 6):
    """Our side's evaluation under an address-space cap (a MemoryError, not the machine's OOM killer, when a
    random case asks for a 2 GB text); lifted again before Pinot's JVM is started."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (gib << 30, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _rows_seed(seed: str) -> str:
    """The rows of every batch of a run are the same (the run's seed, not the batch's): kept cases of several
    batches share one table per family."""
    return seed.rsplit("-", 1)[0] + "-rows"


_OBJECTS = {f["name"] for f in REGISTRY if f["returns"] in ("Object", "List", "Map", "Object[]")}
# a function returning a Java array: an empty one is null too in a single-value column (DataTypeTransformerUtils
# .standardize), where the search's other column types put it (OTHER_COLUMN_RATE)
_OBJECTS |= {f["name"] for f in REGISTRY if f["returns"].endswith("[]")} | {"array", "arrayvalueconstructor"}


def _may_be_empty(expression: str) -> bool:
    """Whether the outermost call may return a Java Map / List / Object[]: an empty one Pinot's column
    conversion stores as null without a failure (the replay reads the header's ``may_be_empty``)."""
    name = expression.split("(", 1)[0].strip().lower().replace("_", "")
    return (name.split()[0] if name.startswith("case ") else name) in _OBJECTS  # (SQL's CASE WHEN is case(...))


def _family_of(expression: str, functions: dict) -> str:
    name = expression.split("(", 1)[0].strip().lower().replace("_", "")
    cls = functions.get(name, "other")
    return "diff_" + "".join("_" + c.lower() if c.isupper() else c for c in cls).strip("_")


# Documented deliberate differences (docs/ingestion.md, "The random differential search"): a differing case they
# explain is counted and listed apart, never silently dropped, and not kept as a fixture.
# - Pinot's Regexp*ConstFunctions (and DateTimeConvert) compile the first pattern (format) they are called with
#   and keep it for the function object's life (one segment build, both passes): a pattern from a column is
#   matched per row here. The positions each caches:
_CACHED = {"regexpextract": (1,), "regexplike": (1, 2), "regexpreplace": (1, 5), "like": (1,),
           "datetimeconvert": (1, 2, 3, 4)}
# - an array of more than 2^24 elements (generate*Array): Java allocates it when its heap has room, fails the
#   row when not (the machine's answer); this package fails the row (functions/array_functions.py)
_REFUSED_SIZE = "refused here: a JVM with heap enough allocates it"
# And one artefact of the harness, not of the functions: pinot-verify reads a JSON row's whole numbers as Integer
# where they fit, so its LONG columns (l, n) hold Integers while the transforms run; an Object comparison
# (isDistinctFrom / isNotDistinctFrom: Objects.equals) of such a column and an INT is then equal in Pinot, never
# in a Spark job, whose LongType column gives Longs (this package's answer).
_OBJECT_EQUALS = {"isdistinctfrom", "isnotdistinctfrom"}
_LONG_COLUMNS = set(_COLUMNS["long"])
# The same artifact where a java.sql.Timestamp parameter reads such a column (l, n, or ia's elements): Pinot's
# PinotDataType converts a Long but throws on an Integer (fromTimestamp(n) fails every row of these tables; a
# Spark job's LongType column converts, an IntegerType one fails here too: round4_timestamp_arguments)
_TIMESTAMP_PARAMS = {"fromtimestamp": (0,), "fromtimestampmv": (0,), "datebin": (1, 2)}
_INTEGER_IN_JSON = _LONG_COLUMNS | {"ia"}
REASONS: list[str] = []  # the failure reasons of our evaluation of the case being compared
# A Pinot build of a batch past this many seconds (a case allocating gigabytes: seed 20-4 ran 11 minutes) skips
# the batch, counted in the summary, rather than stalling the run
BUILD_TIMEOUT = 300


def _reads_a_column(node) -> bool:
    from pinot_sink.ingestion.expression import Call, Identifier
    return isinstance(node, Identifier) or isinstance(node, Call) and any(_reads_a_column(a) for a in node.args)


_INT_RESULTS = {f["name"] for f in REGISTRY if f["returns"] in ("int", "Integer")}


def _array_class(node) -> str:
    """An argument of array(...) as the harness's artefact sees it: an Integer (an int literal, a call returning
    int: strpos(...), seed 310-5), a LONG column (an Integer in pinot-verify's JSON rows), or another."""
    from pinot_sink.ingestion.expression import Call, Identifier, Literal
    if isinstance(node, Literal) and node.java_type == "INT":
        return "INT"
    if isinstance(node, Call) and node.name.replace("_", "").lower() in _INT_RESULTS:
        return "INT"
    return "LONG_COLUMN" if isinstance(node, Identifier) and node.name in _LONG_COLUMNS else "OTHER"


def deliberate(expression: str) -> str | None:
    """Which documented deliberate difference explains a differing case, if one does."""
    from pinot_sink.ingestion.expression import Call, Identifier, parse_expression
    if any(_REFUSED_SIZE in r for r in REASONS):
        return "an array of over 2^24 elements (Java's outcome is its heap's)"
    if any("beyond Arrow's decimals" in r for r in REASONS):
        return "a BigDecimal beyond Arrow's decimal256 in a BIG_DECIMAL column (the row fails here)"
    if any("array() of a multi-value and BYTES values" in r for r in REASONS):
        return "array: a multi-value beside BYTES (Pinot stores a text of the byte[] not derived here; refused)"
    if any("identity text" in r for r in REASONS):
        return "array: a primitive array into a STRING column (Pinot stores its identity text '[I@...', refused here)"
    if any("IPAddress library reads but this package does not reproduce" in r for r in REASONS):
        return "ip: an IP wildcard / range form (not reproduced, the row fails here)"
    stack = [parse_expression(expression)]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.name in _OBJECT_EQUALS and len(node.args) == 2:
            longs = [isinstance(a, Identifier) and a.name in _LONG_COLUMNS for a in node.args]
            if any(longs) and not all(longs):
                return f"{node.text or node.name}: a LONG column pinot-verify's JSON rows give as Integer (harness)"
        if isinstance(node, Call) and any(i < len(node.args) and isinstance(node.args[i], Identifier)
                                          and node.args[i].name in _INTEGER_IN_JSON
                                          for i in _TIMESTAMP_PARAMS.get(node.name, ())):
            return f"{node.text or node.name}: a LONG column pinot-verify's JSON rows give as Integer (harness)"
        if isinstance(node, Call) and node.name == "array" and len({_array_class(a) for a in node.args}) > 1 and (
                {_array_class(a) for a in node.args} <= {"INT", "LONG_COLUMN"}):
            # (array(1, l): Java casts each argument to the first one's class, an Integer l passes in pinot-verify,
            # a Spark job's Long fails the row here: seed 305-2)
            return f"{node.text or node.name}: a LONG column pinot-verify's JSON rows give as Integer (harness)"
        if isinstance(node, Call):
            if any(i < len(node.args) and _reads_a_column(node.args[i]) for i in _CACHED.get(node.name, ())):
                return f"{node.text or node.name}: a pattern from a column (Pinot's function object keeps its first)"
            stack.extend(node.args)
    return None


def _recording_failures() -> None:
    """Our evaluation's failure reasons into REASONS (what ``deliberate`` reads)."""
    from pinot_sink.ingestion.values import Context
    fail = Context.fail
    if getattr(fail, "recording", False):
        return

    def recorded(self, mask, reason, values=None):
        REASONS.append(reason)
        return fail(self, mask, reason, values)

    recorded.recording = True
    Context.fail = recorded


DELIBERATE: list[tuple[str, str]] = []  # this run's differing cases a documented difference explains
OVERSIZE: list[str] = []  # texts over maxLength the last _ours_builds_now stored
UNASKED: list[str] = []  # this run's cases whose build fails here (not asked of Pinot)
REFUSED: list[str] = []  # ... of them, those whose config is refused (a call form this package does not take)


def _buildable(exprs: list[tuple], seed: str) -> tuple[list[tuple], list[tuple]]:
    """The expressions Pinot's builder gets through (continueOnError does not cover its stats and index passes
    disagreeing, e.g. a multi-value conversion that fails in one): halves a failing batch down to the cases that
    fail the build alone, which are left out (Pinot's own failure, nothing to compare)."""
    spec = _cases_family("differential", exprs, rows=lambda r: _rows(random.Random(_rows_seed(seed))))
    try:
        run_pinot(*_configs("differential", spec), spec["rows"](None), timeout=BUILD_TIMEOUT)
        return exprs, []
    except SystemExit:
        if len(exprs) == 1:
            return [], exprs
    half = len(exprs) // 2
    (a, fa), (b, fb) = _buildable(exprs[:half], seed), _buildable(exprs[half:], seed)
    return a + b, fa + fb


def run_batch(seed: str, cases: int, functions: list[dict], given: list[tuple] | None = None,
              outer: list[dict] | None = None) -> tuple[dict, list[dict], list[tuple[str, str, str]]]:
    """One Pinot build of ``cases`` random expressions (or the ``given`` (expression, Pinot type, single value)
    cases); returns (header, rows, differing [(column, expression, why)])."""
    import test_function_expectations as replay
    rng = random.Random(seed)
    gen = Generator(rng, functions)
    exprs = list(given or [])
    order = (outer or functions)[:]  # (the outermost calls; any function nests inside them)
    random.Random(_rows_seed(seed)).shuffle(order)  # one order per run: its batches take turns through it
    tail = seed.rsplit("-", 1)[-1]
    batch = int(tail) if "-" in seed and tail.isdigit() else 0  # (a bare seed, '1': batch 0)
    for k in range(0 if given else cases):
        f = order[(batch * cases + k) % len(order)]
        expression = gen.call(f, rng.choice([0, 1, 1, 2]), literal_only=rng.random() < 0.15)
        column = forms.shape_type(expression) or _OUT[f["returns"]]
        if rng.random() < OTHER_COLUMN_RATE:  # the result into a column of another type
            column = rng.choice(_OTHER_COLUMNS)
        exprs.append((expression,) + column)
    # a case whose build fails here (a cut surrogate stored: Pinot's build fails then too, docs/ingestion.md)
    # would fail Pinot's whole batch: such cases are set aside, not asked (counted in the summary)
    with _memory_cap():
        unasked = [e for e in exprs if not _ours_builds(e, seed)]
    exprs = [e for e in exprs if e not in unasked]
    for case in unasked:
        print(f"  not asked (our build fails): {case[0]}", flush=True)
    UNASKED.extend(case[0] for case in unasked)
    if ASK_REFUSED:
        _ask_refused([e for e in unasked if e[0] in REFUSED], seed)
    print(f"batch {seed}: asking Pinot about {len(exprs)} cases", flush=True)
    failing = []
    for attempt in (0, 1):
        spec = _cases_family("differential", exprs, rows=lambda r: _rows(random.Random(_rows_seed(seed))))
        rows = spec["rows"](rng)
        schema, table_config = _configs("differential", spec)
        try:
            docs = run_pinot(schema, table_config, rows, timeout=BUILD_TIMEOUT)
            break
        except SystemExit:
            if attempt:
                raise
            half = len(exprs) // 2
            (a, fa), (b, fb) = _buildable(exprs[:half], seed), _buildable(exprs[half:], seed)
            exprs, failing = a + b, fa + fb
    header = {"pinot_commit": COMMIT, "made_by": "tools/pinot_functions/differential.py", "schema": schema,
              "table_config": table_config, "input_types": spec["inputs"], "json_columns": [],
              "may_be_empty": [c for c, e in spec["transforms"].items()
                               if c.startswith("c") and c[1:].isdigit() and _may_be_empty(e)]}
    lines = [{"row": row, "values": {c: d["values"][c] for c in spec["outputs"]},
              "nulls": sorted(set(d.get("nulls") or []) & set(spec["outputs"]))} for row, d in zip(rows, docs)]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "differential.jsonl").write_text(
            "\n".join(json.dumps(x) for x in [header] + lines) + "\n")
        replay.FIXTURES = Path(tmp)
        replay.load.cache_clear()
        differing = []
        cap = _memory_cap()
        cap.__enter__()
        _recording_failures()
        for _, column, expression, check in replay._cases("differential"):
            REASONS.clear()
            try:
                replay.test_continue_on_error_gives_pinots_values_and_failures("differential", column, expression, check)
            except BaseException as exc:  # noqa: BLE001 - any failure is a difference to keep
                if isinstance(exc, KeyboardInterrupt):
                    raise
                if "Pinot failed rows" in str(exc) and _nan_nulled(replay, column):
                    continue  # a NaN result Pinot stored as null (SpecialValueTransformer), not a failure
                why = deliberate(expression)
                if why is not None:
                    print(f"  deliberate ({why}): {expression}", flush=True)
                    DELIBERATE.append((expression, why))
                    continue
                differing.append((column, expression, f"{type(exc).__name__}: {str(exc)[:300]}"))
        cap.__exit__(None, None, None)
        replay.load.cache_clear()
    for case in failing:  # Pinot's build fails on it alone: ours must fail too (continueOnError on)
        REASONS.clear()  # (what deliberate() reads: this build's reasons, so cleared before it, not after)
        with _memory_cap():
            builds = _ours_builds(case, seed)
        why = deliberate(case[0]) if builds else None
        if builds and why is None and OVERSIZE:  # (OVERSIZE: set by this build, _ours_builds_now)
            why = "a text over the column's maxLength (512): this package's writer refuses it by default, Pinot " \
                  "cuts it (through an emoji: its build fails)"
        if why is not None:  # (a pattern from a column: rows before the first valid one, missing from the stats)
            print(f"  deliberate, Pinot's build fails ({why}): {case[0]}", flush=True)
            DELIBERATE.append((case[0], why))
        elif builds:
            differing.append(("-", case[0], "Pinot's build fails (e.g. a cut surrogate stored), ours succeeds"))
        else:
            print(f"  both builds fail: {case[0]}", flush=True)
    return header, lines, differing


# --ask-refused: the cases whose config this package refuses are asked of Pinot too (a build of their own): a
# refusal must stand where Pinot fails every row or refuses the config itself; one where Pinot's build stores a
# value on some row is a difference (REFUSED_ANSWERED), listed with the refusal's words
ASK_REFUSED = False
# refusals documented as deliberate (docs/ingestion.md, Deliberate differences): counted apart by these words of
# the refusal, not listed as differences
_REFUSALS_DOCUMENTED = {
    "JSON path '": "a literal JSON path Jayway cannot compile (a form with a default: Pinot's default on every row), "
                   "refused when the config is read",
    "date pattern letter": "a literal pattern Joda cannot compile (fromDateTime's form with a default: Pinot's "
                           "default on every row), refused when the config is read"}
REFUSED_DOCUMENTED: list[tuple[str, str]] = []
REFUSED_ANSWERED: list[tuple[str, str, str]] = []  # (expression, our refusal, Pinot's first stored values)
REFUSED_CONFIRMED: list[str] = []  # refused here, and Pinot's build fails or every row fails / is null


def _case_table(case: tuple, seed: str):
    """(the replay module, the header, the input table) of one case over the run's rows."""
    import test_function_expectations as replay
    spec = _cases_family("differential", [case], rows=lambda r: _rows(random.Random(_rows_seed(seed))))
    schema, table_config = _configs("differential", spec)
    header = {"schema": schema, "table_config": table_config, "input_types": spec["inputs"]}
    table = replay._input_table(header, [{"row": r} for r in spec["rows"](None)])
    return replay, header, table


def _refusal(case: tuple, seed: str) -> str:
    replay, header, table = _case_table(case, seed)
    try:
        replay._pipeline(header, ["c0", "ok0"], True, table)
    except Exception as exc:  # noqa: BLE001 - the refusal's words
        return str(exc).split("transformFunction: ", 1)[-1][:240]
    return "(not refused)"


def _ask_refused(refused: list[tuple], seed: str) -> None:
    if not refused:
        return
    buildable, failing = _buildable(refused, seed)
    REFUSED_CONFIRMED.extend(case[0] for case in failing)  # Pinot's build fails on it too
    if not buildable:
        return
    spec = _cases_family("differential", buildable, rows=lambda r: _rows(random.Random(_rows_seed(seed))))
    docs = run_pinot(*_configs("differential", spec), spec["rows"](None), timeout=BUILD_TIMEOUT)
    for k, case in enumerate(buildable):
        stored = [(i, d["values"].get(f"c{k}")) for i, d in enumerate(docs)
                  if f"c{k}" not in (d.get("nulls") or []) and f"ok{k}" not in (d.get("nulls") or [])
                  and d["values"].get(f"ok{k}") == 1]
        why = _refusal(case, seed) if stored else ""
        documented = next((d for words, d in _REFUSALS_DOCUMENTED.items() if words in why), None)
        if documented:
            print(f"  refused here, documented ({documented}): {case[0]}", flush=True)
            REFUSED_DOCUMENTED.append((case[0], documented))
        elif stored:
            print(f"  refused here, Pinot stores values ({why}): {case[0]} -> {stored[:3]}", flush=True)
            REFUSED_ANSWERED.append((case[0], why, repr(stored[:5])[:300]))
        else:
            REFUSED_CONFIRMED.append(case[0])


def _nan_nulled(replay, column: str) -> bool:
    """Whether the rows the replay counts as Pinot's failures are those where our value is NaN or null (Pinot's
    builder stores a NaN of a DOUBLE / FLOAT column as null, which the table cannot tell from a failed
    conversion)."""
    header, rows = replay.load("differential")
    table = replay._input_table(header, rows)
    ours = replay._pipeline(header, [column], True, table).apply(table, 0).table.column(column).to_pylist()
    if replay._pinot_type(header, column) not in ("DOUBLE", "FLOAT"):  # (a None of another column is a failure
        return False  # counted short: seed 401's split(s, ',') into STRING passed here)
    odd = [i for i, r in enumerate(rows) if column in r["nulls"] and ("ok" + column[1:]) not in r["nulls"]]
    return bool(odd) and all(ours[i] is None or isinstance(ours[i], float) and ours[i] != ours[i] for i in odd)


class _TooSlow(BaseException):
    pass


def _too_slow(signum, frame):
    raise _TooSlow()


def _ours_builds(case: tuple, seed: str) -> bool:
    """Whether our build of the case alone succeeds (continueOnError on); a case over 20 s counts as failing
    (set aside: a random case can ask for hours of work, a regexp's backtracking, ...)."""
    signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(20)
    try:
        return _ours_builds_now(case, seed)
    except _TooSlow:
        print(f"  too slow here: {case[0]}", flush=True)
        return False
    finally:
        signal.alarm(0)


def _ours_builds_now(case: tuple, seed: str) -> bool:
    replay, header, table = _case_table(case, seed)
    try:
        pipeline = replay._pipeline(header, ["c0", "ok0"], True, table)
    except Exception:  # noqa: BLE001 - the config refused (a literal parameter given a column, ...)
        REFUSED.append(case[0])
        return False
    OVERSIZE.clear()
    try:
        result = pipeline.apply(table, 0)
    except Exception:  # noqa: BLE001 - any failure of the build
        return False
    # a STRING value over maxLength 512 UTF-16 units: the transforms build, the write (convert.on-oversize-string
    # = error, the default) refuses it; only the transforms run here
    values = result.table.column("c0").to_pylist() if "c0" in result.table.column_names else []
    texts = [t for v in values for t in (v if isinstance(v, list) else [v]) if isinstance(t, str)]
    OVERSIZE.extend(t for t in texts if len(t.encode("utf-16-le", "surrogatepass")) > 1024)
    return True


def keep(header: dict, lines: list[dict], differing: list[tuple[str, str, str]], families: dict,
         family: str | None = None) -> list[Path]:
    """Each differing case into its family's fixture table (rows are the same in every batch of a seed), or all
    into ``family``'s."""
    grouped = collections.defaultdict(list)
    for column, expression, _ in differing:
        if column == "-":  # Pinot's build fails on it: no answer to keep (the log has it)
            continue
        grouped[family or _family_of(expression, families)].append((column, expression))
    written = []
    transforms = {t["columnName"]: t["transformFunction"] for t in header["table_config"]["ingestionConfig"]["transformConfigs"]}
    fields = {f["name"]: f for f in header["schema"]["dimensionFieldSpecs"]}
    for family, cases in sorted(grouped.items()):
        # the family's table with these rows (a run of another seed has its own: <family>_<n>.jsonl)
        tables = [t for t in [FIXTURES / f"{family}.jsonl"] + sorted(FIXTURES.glob(f"{family}_[0-9]*.jsonl"))
                  if t.exists()]
        path = FIXTURES / (f"{family}_{len(tables)}.jsonl" if tables else f"{family}.jsonl")
        old = None
        for table in tables:
            rows = [json.loads(x) for x in table.read_text().splitlines()]
            if [r["row"] for r in rows[1:]] == [r["row"] for r in lines]:
                path, old = table, rows
                break
        base_fields = [f for f in header["schema"]["dimensionFieldSpecs"] if f["name"] in header["input_types"]]
        helpers = [t for t in header["table_config"]["ingestionConfig"]["transformConfigs"] if t["columnName"] in ("b", "f")]
        new_header = old[0] if old else {**header, "schema": {**header["schema"], "schemaName": f"fn_{family}",
                                                               "dimensionFieldSpecs": list(base_fields)},
                                         "table_config": json.loads(json.dumps(header["table_config"]))}
        if not old:
            new_header["may_be_empty"] = []  # (the batch's column names; the kept ones are added below)
            new_header["table_config"]["tableName"] = f"fn_{family}"
            new_header["table_config"]["ingestionConfig"]["transformConfigs"] = list(helpers)
        have = {t["transformFunction"] for t in new_header["table_config"]["ingestionConfig"]["transformConfigs"]}
        table_rows = old[1:] if old else [{"row": r["row"], "values": {}, "nulls": []} for r in lines]
        k = sum(1 for f in new_header["schema"]["dimensionFieldSpecs"] if f["name"].startswith("c"))
        for column, expression in cases:
            if expression in have:
                continue
            ok = "ok" + column[1:]
            if column in header.get("may_be_empty", ()):
                new_header["may_be_empty"] = new_header.get("may_be_empty", []) + [f"c{k}"]
            for src, dst in ((column, f"c{k}"), (ok, f"ok{k}")):
                new_header["schema"]["dimensionFieldSpecs"].append({**fields[src], "name": dst})
                new_header["table_config"]["ingestionConfig"]["transformConfigs"].append(
                    {"columnName": dst, "transformFunction": transforms[src]})
                for mine, theirs in zip(table_rows, lines):
                    mine["values"][dst] = theirs["values"][src]
                    if src in theirs["nulls"]:
                        mine["nulls"] = sorted(set(mine["nulls"]) | {dst})
            k += 1
        path.write_text("\n".join(json.dumps(x) for x in [new_header] + table_rows) + "\n")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", default="1")
    parser.add_argument("--batches", type=int, default=1)
    parser.add_argument("--cases", type=int, default=250, help="expressions per Pinot build")
    parser.add_argument("--keep", action="store_true", help="write the differing cases as fixture tables")
    parser.add_argument("--log", type=Path, help="append every differing case (JSON lines) here")
    parser.add_argument("--family", help="with --expressions: keep every case as tests/fixtures/functions/FAMILY.jsonl")
    parser.add_argument("--expressions", type=Path, help="a JSON list of [expression, Pinot type, single value] "
                        "to ask about instead of random ones (one batch)")
    parser.add_argument("--only", help="draw only the functions whose name or Java class holds one of these "
                        "comma-separated words (e.g. 'forms.,IpAddress,url,rand': the widened families)")
    parser.add_argument("--ask-refused", action="store_true", help="ask Pinot about the cases whose config this "
                        "package refuses too: one where Pinot stores a value on some row is listed (refused_answered)")
    args = parser.parse_args()
    global ASK_REFUSED
    ASK_REFUSED = args.ask_refused
    sys.stdout.reconfigure(errors="backslashreplace")  # (expressions may hold a cut surrogate)
    functions = _functions()
    outer = None
    if args.only:
        words = [w.lower() for w in args.only.split(",") if w]
        outer = [f for f in functions if any(w in f["name"] or w in f["class"].lower() for w in words)]
    if args.expressions:
        given = [tuple(x) for x in json.loads(args.expressions.read_text())]
        header, lines, differing = run_batch(args.seed, 0, functions, given)
        for column, expression, why in differing:
            print(f"{column} {expression}\n    {why}", flush=True)
        if args.family:  # every case (a fixed family's cases, with Pinot's answers) into one table
            transforms = {t["columnName"]: t["transformFunction"]
                          for t in header["table_config"]["ingestionConfig"]["transformConfigs"]}
            every = [(c, e, "") for c, e in transforms.items() if c.startswith("c") and c[1:].isdigit()]
            path = FIXTURES / f"{args.family}.jsonl"
            path.unlink(missing_ok=True)
            for written in keep(header, lines, every, {}, args.family):
                print("kept", written.relative_to(ROOT), flush=True)
        elif args.keep and differing:
            for path in keep(header, lines, differing, {f["name"]: f["class"].rsplit(".", 1)[-1] for f in functions}):
                print("kept", path.relative_to(ROOT), flush=True)
        print(f"{len(differing)} of {len(given)} differ; {len(DELIBERATE)} more by a documented deliberate difference")
        return
    classes = {f["name"]: f["class"].rsplit(".", 1)[-1] for f in functions}
    total, differing_all, used = 0, [], set()
    skipped, answered = [], 0
    for batch in range(args.batches):
        seed = f"{args.seed}-{batch}"
        try:
            header, lines, differing = run_batch(seed, args.cases, functions, outer=outer)
        except subprocess.TimeoutExpired:
            print(f"batch {seed}: skipped, a Pinot build ran past {BUILD_TIMEOUT} s", flush=True)
            skipped.append(seed)
            continue
        exprs = [t["transformFunction"] for t in header["table_config"]["ingestionConfig"]["transformConfigs"]]
        used |= {name.lower() for e in exprs if not e.startswith("isNotNull(") for name in _CALLED.findall(e.replace("_", ""))}
        total += args.cases * len(lines)
        differing_all += differing
        print(f"batch {seed}: {len(differing)} of {args.cases} expressions differ", flush=True)
        if args.log:
            with args.log.open("a") as out:
                for column, expression, why in differing:
                    out.write(json.dumps({"seed": seed, "expression": expression, "why": why}) + "\n")
                for expression, why, stored in REFUSED_ANSWERED[answered:]:
                    out.write(json.dumps({"seed": seed, "expression": expression, "refused": why,
                                          "pinot_stores": stored}) + "\n")
        answered = len(REFUSED_ANSWERED)
        if args.keep and differing:
            for path in keep(header, lines, differing, classes):
                print("kept", path.relative_to(ROOT), flush=True)
    names = {e.split("(", 1)[0].lower() for _, e, _ in differing_all}
    print(json.dumps({"functions": len(outer or functions), "functions_called": len(used), "cases": total,
                      "expressions": args.cases * (args.batches - len(skipped)),
                      "seeds": f"{args.seed}-0..{args.batches - 1}",
                      "differences": len(differing_all), "deliberate": len(DELIBERATE),
                      "deliberate_by_kind": dict(collections.Counter(w.split(": ", 1)[-1] for _, w in DELIBERATE)),
                      "not_asked": len(UNASKED), "batches_skipped": skipped,
                      "refused_call_forms": len(REFUSED),
                      **({"refused_confirmed": len(REFUSED_CONFIRMED), "refused_answered": len(REFUSED_ANSWERED),
                          "refused_documented": len(REFUSED_DOCUMENTED)} if ASK_REFUSED else {}),
                      "functions_differing": sorted(names)}))


if __name__ == "__main__":
    main()
