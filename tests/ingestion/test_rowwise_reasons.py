"""A function evaluated row by row (``functions.rowwise.per_row``) fails each row with its own throw's reason,
the earliest failing row first, over one column (dictionary-encoded) and over several."""
from __future__ import annotations

import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.values import Context


@pytest.mark.parametrize("expression, columns", [
    ("generateIntArray(0, 10, inc)", {"inc": pa.array([1, 0, -1, None, -1, 0], pa.int64())}),
    ("generateIntArray(start, 10, inc)", {"start": pa.array([0] * 6, pa.int64()),
                                          "inc": pa.array([1, 0, -1, None, -1, 0], pa.int64())}),
])
def test_each_failing_row_is_failed_with_its_own_reason(monkeypatch, expression, columns):
    recorded = []
    fail = Context.fail

    def recording(self, mask, reason, values=None):
        recorded.append((reason, [i for i, m in enumerate(mask) if m]))
        return fail(self, mask, reason, values)
    monkeypatch.setattr(Context, "fail", recording)
    ctx = Context(6, continue_on_error=True)
    ctx.where = expression
    out = Expression(expression).evaluate_array(columns, ctx)
    assert out.to_pylist() == [list(range(11)), None, None, None, None, None]
    assert recorded == [("ArithmeticException: / by zero", [1, 5]), ("NegativeArraySizeException: -9", [2, 4])]
    assert ctx.errors.tolist() == [False, True, True, False, True, True]

