"""The registry is Pinot's list: every (name, argument count) Pinot's FunctionRegistry resolves at the fixtures'
commit (tests/fixtures/functions/pinot_scalar_functions.json, dumped from Pinot's own registry by
tools/pinot_functions/DumpFunctionRegistry.java) is implemented or refused with a reason, and nothing is
registered that Pinot lacks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinot_sink.ingestion.evaluate import LOGICAL_OPERATORS, Expression
from pinot_sink.ingestion.expression import ExpressionError
from pinot_sink.ingestion.functions import REGISTRY, VAR_ARGS, lookup

LIST = Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "pinot_scalar_functions.json"


def pinot_functions() -> list[dict]:
    return json.loads(LIST.read_text())["functions"]


def test_the_list_is_pinots_at_the_fixtures_commit():
    data = json.loads(LIST.read_text())
    assert data["pinot_commit"].startswith("210c2951e720")
    assert len({f["name"] for f in data["functions"]}) > 400


def test_every_pinot_function_is_implemented():
    missing = []
    for f in pinot_functions():
        # and / or / not are evaluated by the expression itself (with SQL's three-valued logic), not the registry
        if lookup(f["name"], f["arity"]) is None and f["name"] not in LOGICAL_OPERATORS:
            missing.append((f["name"], f["arity"]))
    assert not missing, missing


def test_nothing_registered_that_pinot_lacks():
    pinot = {(f["name"], f["arity"]) for f in pinot_functions()}
    extra = [(name, count) for name, overloads in REGISTRY.items() for count in overloads
             if (name, count) not in pinot and (name, VAR_ARGS) not in pinot]
    assert not extra, extra


def test_a_function_pinot_lacks_or_a_wrong_count_fails_when_the_config_is_read():
    with pytest.raises(ExpressionError, match="with 0 arguments"):
        Expression("stageId()")  # Pinot's has one argument
    with pytest.raises(ExpressionError, match="not a Pinot scalar function"):
        Expression("noSuchFunction(1)")


def test_primitive_array_results_are_marked_as_pinots_return_types():
    """A function whose Java method returns int[] / long[] / float[] / double[] is marked, so that storing its
    result directly is Pinot's ClassCastException (the list gives each overload's return type)."""
    wrong = []
    for f in pinot_functions():
        function = lookup(f["name"], f["arity"])
        if function is None:
            continue
        primitive = f["returns"] in ("int[]", "long[]", "float[]", "double[]")
        if function.primitive_array != primitive:
            wrong.append((f["name"], f["arity"], f["returns"]))
    assert not wrong, wrong


@pytest.mark.parametrize("text", ["and(a > 1, b > 2)", "or(a > 1, b > 2)", "not(a > 1)"])
def test_the_logical_function_forms_pinot_registers_are_evaluated(text):
    Expression(text)  # parses and resolves: the function-call forms Pinot's registry has (LogicalFunctions)


def test_extract_is_datetimeutils_extract_in_utc():
    import pyarrow as pa

    from pinot_sink.ingestion.values import Context

    columns = {"ts": pa.array([0, 1_700_000_000_000, -1], pa.int64())}
    got = {unit: Expression(f"EXTRACT({unit} FROM ts)").evaluate_array(columns, Context(3)).to_pylist()
           for unit in ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DOY", "DOW", "HOUR", "MINUTE", "SECOND")}
    # 1970-01-01T00:00Z (Thursday, ISO week 1), 2023-11-14T22:13:20Z (Tuesday, week 46), 1969-12-31T23:59:59.999Z
    assert got == {"YEAR": [1970, 2023, 1969], "QUARTER": [1, 4, 4], "MONTH": [1, 11, 12], "WEEK": [1, 46, 1],
                   "DAY": [1, 14, 31], "DOY": [1, 318, 365], "DOW": [4, 2, 3], "HOUR": [0, 22, 23],
                   "MINUTE": [0, 13, 59], "SECOND": [0, 20, 59]}
    # a unit Calcite parses but ExtractFieldType lacks fails (IllegalArgumentException from valueOf)
    with pytest.raises(Exception, match="ExtractFieldType.MILLISECOND"):
        Expression("EXTRACT(MILLISECOND FROM ts)").evaluate_array(columns, Context(3))
