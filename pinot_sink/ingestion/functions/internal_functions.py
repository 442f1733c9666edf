"""Pinot's InternalFunctions (``brokerId``, ``cid``, ``queryEngine``, ``reqId``, ``startTime``, ``endTime``,
``stageId``, ``workerId``): the running query's ids and times, read from ``QueryThreadContext``. An ingestion
has no query: ``QueryThreadContext.get()`` is null there (its ``assert`` is off in a server or an ingestion
job), so each call throws a NullPointerException, which fails the row (null under continueOnError); a null
argument gives null without a call, as for every non-nullable function. Pinot's own build stores exactly that
(tests/fixtures/functions/query_context.jsonl). A table config naming one is accepted, as Pinot accepts it.
"""
from __future__ import annotations

import pyarrow as pa

from ..values import Context, Value, broadcast, null_mask
from .registry import scalar_function

_NO_QUERY = ("NullPointerException: {name}() reads the running query's context (QueryThreadContext), and an "
             "ingestion has none")


def _query_context(name: str, result_type: pa.DataType):
    def impl(ctx: Context, args: list[Value]) -> Value:
        present = ~null_mask(broadcast(args[0], ctx.num_rows))
        ctx.fail(present, _NO_QUERY.format(name=name))
        return pa.nulls(ctx.num_rows, result_type)
    return impl


for _name, _type in (("brokerId", pa.string()), ("cid", pa.string()), ("queryEngine", pa.string()),
                     ("reqId", pa.int64()), ("startTime", pa.int64()), ("endTime", pa.int64()),
                     ("stageId", pa.int32()), ("workerId", pa.int32())):
    scalar_function(_name, arity=1)(_query_context(_name, _type))
