"""The registry is Pinot's list: every (name, argument count) Pinot's FunctionRegistry resolves at the fixtures'
commit (tests/fixtures/functions/pinot_scalar_functions.json, dumped from Pinot's own registry by
tools/pinot_functions/DumpFunctionRegistry.java) is implemented or refused with a reason, and nothing is
registered that Pinot lacks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.expression import ExpressionError
from pinot_sink.ingestion.functions import REGISTRY, VAR_ARGS, lookup
from pinot_sink.ingestion.functions.unsupported import UNSUPPORTED, reason

LIST = Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "pinot_scalar_functions.json"


def pinot_functions() -> list[dict]:
    return json.loads(LIST.read_text())["functions"]


def test_the_list_is_pinots_at_the_fixtures_commit():
    data = json.loads(LIST.read_text())
    assert data["pinot_commit"].startswith("210c2951e720")
    assert len({f["name"] for f in data["functions"]}) > 400


def test_every_pinot_function_is_implemented_or_refused_with_a_reason():
    missing = []
    for f in pinot_functions():
        implemented = lookup(f["name"], f["arity"]) is not None
        refused = reason(f["name"], f["arity"]) is not None
        if implemented == refused:
            missing.append((f["name"], f["arity"], "both" if implemented else "neither"))
    assert not missing, missing


def test_nothing_registered_that_pinot_lacks():
    pinot = {(f["name"], f["arity"]) for f in pinot_functions()}
    extra = [(name, count) for name, overloads in REGISTRY.items() for count in overloads
             if (name, count) not in pinot and (name, VAR_ARGS) not in pinot]
    assert not extra, extra


def test_every_refusal_names_a_pinot_function():
    names = {f["name"] for f in pinot_functions()}
    assert not [key for key in UNSUPPORTED if key.split("/")[0] not in names]


def test_a_refused_function_fails_with_its_reason():
    with pytest.raises(ExpressionError, match="non-deterministic"):
        Expression("now()")
    with pytest.raises(ExpressionError, match="IP address"):
        Expression("ipv4ToLong(ip)")


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
