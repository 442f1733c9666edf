"""Call forms the registry's Java signatures cannot give the random search (differential.py), drawn beside its
functions: the variadic functions (``coalesce``, ``array`` / ``arrayValueConstructor``, ``caseWhen`` and the SQL
``CASE``), the two over a Java ``Map`` (``toJsonMapStr(jsonStringToMap(...))``), ``sleep`` (short ones),
and the clock's and random ones by their shape only (``now()``, ``ago``, ``agoMV``,
``uuidV4()``, ``uuidV7()``, ``rand()``: a value differs from run to run, so only what must hold of any value is
compared: a range, a UUID's version and length, which rows fail).

Each form is a pseudo-function of the generator (``FORMS``): a name, the Java type of its result (the output
column, as differential._OUT maps it), the Java class it belongs to (the fixture family of a kept case) and a
builder ``build(gen, depth, literal_only) -> expression``.
"""
from __future__ import annotations

# argument kinds a variadic Object... takes here (differential._KIND's), "null" as a literal of its own
_ANY_KINDS = ["any", "string", "long", "double", "bool", "int", "bytes"]
_MV_KINDS = ["longs", "strings"]


def _args(gen, kinds, count, depth, literal_only) -> list[str]:
    rng = gen.rng
    out = []
    for _ in range(count):
        if rng.random() < 0.12:
            out.append("null")
        elif not literal_only and rng.random() < 0.08:
            out.append(gen.arg(rng.choice(_MV_KINDS), depth, literal_only))
        else:
            out.append(gen.arg(rng.choice(kinds), depth, literal_only))
    return out


def _coalesce(gen, depth, literal_only):
    return f"coalesce({', '.join(_args(gen, _ANY_KINDS, gen.rng.randint(1, 4), depth, literal_only))})"


def _same_kind_args(gen, depth, literal_only, nulls=True) -> list[str]:
    """Arguments of one kind mostly (Pinot's array builds a primitive array of its first argument's class and
    casts the others: a mix fails), of mixed kinds sometimes."""
    rng = gen.rng
    kind = rng.choice(["long", "double", "string", "bool", "int"])
    kinds = [kind] if rng.random() < 0.75 else _ANY_KINDS
    args = _args(gen, kinds, rng.randint(0 if rng.random() < 0.1 else 1, 4), depth, literal_only)
    return args if nulls else [a for a in args if a != "null"]


def _array(gen, depth, literal_only):
    return f"array({', '.join(_same_kind_args(gen, depth, literal_only))})"


def _array_value_constructor(gen, depth, literal_only):
    # Pinot's evaluator takes this name's arguments as literals (a column is refused when the config is read)
    return f"arrayValueConstructor({', '.join(_same_kind_args(gen, 0, gen.rng.random() < 0.9))})"


def _conditions(gen, depth, literal_only) -> list[str]:
    rng = gen.rng
    args = []
    for _ in range(rng.randint(1, 3)):
        condition = gen.arg("bool", max(depth, 1), literal_only) if rng.random() < 0.85 else gen.arg(
            rng.choice(_ANY_KINDS), depth, literal_only)
        args += [condition, _args(gen, [rng.choice(_ANY_KINDS)], 1, depth, literal_only)[0]]
    return args


def _case_when(gen, depth, literal_only):
    rng = gen.rng
    args = _conditions(gen, depth, literal_only)
    if rng.random() < 0.6:
        args += _args(gen, _ANY_KINDS, 1, depth, literal_only)
    return f"caseWhen({', '.join(args)})"  # (case(...): CASE is a keyword of the parser, here and in Pinot)


def _sql_case(gen, depth, literal_only):
    args = _conditions(gen, depth, literal_only)
    whens = " ".join(f"WHEN {c} THEN {v}" for c, v in zip(args[::2], args[1::2]))
    otherwise = f" ELSE {_args(gen, _ANY_KINDS, 1, depth, literal_only)[0]}" if gen.rng.random() < 0.6 else ""
    return f"CASE {whens}{otherwise} END"


_MAP_TEXTS = ["'{\"a\": 1, \"b\": \"x\"}'", "'{}'", "'[]'", "'null'", "'{\"a\": {\"b\": [1, 2]}}'", "'{\"a\": null}'",
              "'{\"a\": 1, \"a\": 2}'", "'{\"b\": 1, \"a\": 2}'", "'{\"x\": 1.5E300, \"y\": -0.0}'", "'[1, 2'",
              "'{\"a\": 12345678901234567890}'", "'\"text\"'", "'1'", "'{\"é\": \"😀\"}'"]


def _map_text(gen, depth, literal_only) -> str:
    rng = gen.rng
    return rng.choice(_MAP_TEXTS) if literal_only or rng.random() < 0.5 else gen.arg("string", depth, literal_only)


def _map(gen, depth, literal_only):
    return f"toJsonMapStr(jsonStringToMap({_map_text(gen, depth, literal_only)}))"


def _map_alone(gen, depth, literal_only):  # a Java Map into a STRING column (Pinot's conversion of it)
    return f"jsonStringToMap({_map_text(gen, depth, literal_only)})"


def _sleep(gen, depth, literal_only):
    return f"sleep({gen.rng.choice(['0', '1', '-1', '-9223372036854775808'])})"


# Shapes: what holds of any value the clock / random functions give (2025-11-24 is before any run)
_AFTER = "1764000000000"
_DURATIONS = ["'PT1H'", "'P1D'", "'PT0S'", "'-PT1H'", "'P1DT2H'", "'PT1.5S'", "'P365000000D'", "'1h'", "''",
              "'PT-0.001S'", "'pt1h'", "'P2W'", "'P106751991167D'"]


def _shape(gen, depth, literal_only):
    rng = gen.rng
    duration = rng.choice(_DURATIONS) if literal_only or rng.random() < 0.6 else gen.arg("string", depth, False)
    return rng.choice([
        f"greaterThan(now(), {_AFTER})",
        f"lessThan(ago({duration}), add(now(), 100000000000000))",  # fails or not as the text parses
        f"greaterThan(ago('PT1H'), {_AFTER})",
        f"arrayLength(agoMV({gen.arg('strings', depth, literal_only)}))",
        "uuidVersion(uuidV4())", "uuidVersion(UUID_V7())", "charLength(uuidV4())", "isUuid(uuidV7())",
        "lessThan(rand(), 1.0)", "greaterThanOrEqual(rand(), 0.0)",
    ])


_BOOLEAN_SHAPES = ("greaterThan", "lessThan", "isUuid")

FORMS = [
    # (name, returns, class, build)
    ("coalesce", "Object", "ObjectFunctions", _coalesce),
    ("array", "Object[]", "ArrayFunctions", _array),
    ("arrayvalueconstructor", "Object[]", "ArrayFunctions", _array_value_constructor),
    ("casewhen", "Object", "ObjectFunctions", _case_when),
    ("case", "Object", "ObjectFunctions", _sql_case),
    ("tojsonmapstr", "String", "JsonFunctions", _map),
    ("jsonstringtomap", "Object", "JsonFunctions", _map_alone),
    ("sleep", "long", "DateTimeFunctions", _sleep),
    ("now", "Object", "DateTimeFunctions", _shape),  # (its output column: by the shape drawn, shape_type)
]


def shape_type(expression: str) -> tuple[str, bool] | None:
    """The output column of a drawn shape (its outermost call's)."""
    name = expression.split("(", 1)[0]
    if name in _BOOLEAN_SHAPES or name == "greaterThanOrEqual":
        return "BOOLEAN", True
    if name in ("uuidVersion", "charLength", "arrayLength"):
        return "INT", True
    return None


def functions() -> list[dict]:
    """The forms as generator entries (differential._functions' shape)."""
    return [{"name": name, "call": name, "arity": -1, "class": f"forms.{cls}", "params": [], "returns": returns,
             "declared_names": [], "deterministic": True, "form": build} for name, returns, cls, build in FORMS]
