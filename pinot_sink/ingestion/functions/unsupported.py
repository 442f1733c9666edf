"""Pinot scalar functions this package refuses, each with the reason (canonical name -> reason).

With the registry this is the whole of Pinot's list (tests/fixtures/functions/pinot_scalar_functions.json,
dumped from Pinot's own FunctionRegistry): every canonical name there is either registered or here
(tests/ingestion/test_function_list.py). A transform or filter naming one of these fails when the config is
read, with the reason.
"""
from __future__ import annotations


_QUERY_ONLY = "query-time context (broker, request, stage ids); it has no value at ingestion"
UNSUPPORTED: dict[str, str] = {
    **{name: _QUERY_ONLY for name in ("brokerid", "cid", "endtime", "queryengine", "reqid", "stageid",
                                      "starttime", "workerid")},
}


def reason(canonical_name: str, num_args: int | None = None) -> str | None:
    """Why ``name`` (with ``num_args`` arguments, when one overload only is refused: ``name/N``) is refused."""
    if num_args is not None and f"{canonical_name}/{num_args}" in UNSUPPORTED:
        return UNSUPPORTED[f"{canonical_name}/{num_args}"]
    return UNSUPPORTED.get(canonical_name)
