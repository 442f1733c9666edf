"""A legacy ``timeFieldSpec`` whose outgoing granularity differs from the incoming one (``TimeSpecFunctionEvaluator``).

Pinot fills the outgoing column from the incoming one through ``TimeConverter`` (EPOCH formats only; the
schema parser refuses anything else):

* to millis: the value as a Java long (``Number.longValue()``, or ``Long.parseLong`` of its text), times the
  incoming ``timeUnitSize`` (wrapping, a Java ``long`` product), through ``TimeUnit.toMillis`` (saturating);
* from millis: ``TimeUnit.convert`` into the outgoing unit (truncating toward zero, or saturating for finer
  units), divided by the outgoing ``timeUnitSize`` (truncating), as the outgoing data type (``(int)``
  wraps, STRING is ``Long.toString``).

A null incoming value throws (``Long.parseLong(null.toString())``). Until a first row converts to a time
inside 1971..2071, every row throws "No valid time value found"; after it no row is checked. Pinot keeps that
state per segment build; here it is per batch, so a batch that starts with out-of-range values fails where
Pinot, further into its segment, might not.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from type_mapping.datetime_formats import VALID_MAX_TIME_MS, VALID_MIN_TIME_MS, millis_to_unit, unit_to_millis
from type_mapping.java_numbers import java_long_div
from type_mapping.pinot_schema import LegacyTimeSpec, SchemaError, TimeGranularity

from .values import Context, to_long

_OUTPUT_TYPES = {"INT": pa.int32(), "LONG": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
                 "STRING": pa.string()}


class TimeSpecConversion:
    """The outgoing column's value, evaluated like a transform expression (``arguments``, ``text``)."""

    def __init__(self, spec: LegacyTimeSpec) -> None:
        if spec.outgoing.data_type not in _OUTPUT_TYPES:  # TimeConverter throws on every row
            raise SchemaError(f"timeFieldSpec.outgoingGranularitySpec.dataType: Pinot converts time into "
                              f"{', '.join(_OUTPUT_TYPES)} only, got {spec.outgoing.data_type}")
        self.spec = spec
        self.arguments = (spec.incoming.name,)
        self.text = f"timeFieldSpec {spec.incoming.name} ({spec.incoming.granularity}) -> " \
                    f"{spec.outgoing.name} ({spec.outgoing.granularity})"

    def evaluate_array(self, columns: dict[str, pa.Array], ctx: Context) -> pa.Array:
        incoming: TimeGranularity = self.spec.incoming
        outgoing: TimeGranularity = self.spec.outgoing
        values = columns.get(incoming.name)
        if values is None:
            values = pa.nulls(ctx.num_rows, pa.int64())
        null = values.is_null().to_numpy(zero_copy_only=False) if values.null_count else np.zeros(len(values), bool)
        parsing = Context(ctx.num_rows, ctx.row_offset, continue_on_error=True)  # collect, report below
        longs = to_long(values, parsing)
        unparsed = parsing.errors if parsing.errors is not None else np.zeros(len(values), bool)
        numbers = pc.fill_null(longs, 0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        with np.errstate(over="ignore"):
            durations = numbers * np.int64(incoming.size)  # wraps, as Java's long product
        millis = unit_to_millis(durations, incoming.time_type)
        candidates = ~null & ~unparsed
        valid = candidates & (millis >= VALID_MIN_TIME_MS) & (millis <= VALID_MAX_TIME_MS)
        before_valid = candidates.copy()
        before_valid[int(np.argmax(valid)) if valid.any() else len(valid):] = False
        failures = [(null, f"no value in the incoming time column {incoming.name!r} (NullPointerException)"),
                    (unparsed, "NumberFormatException (not a long)"),
                    (before_valid, f"No valid time value found in incoming time column {incoming.name!r} (until "
                                   f"a first value converts to a time in 1971..2071, Pinot refuses each row)")]
        # Pinot meets the rows in order: the first failing row is the one reported
        for mask, reason in sorted(failures, key=lambda f: int(np.argmax(f[0])) if f[0].any() else len(f[0])):
            ctx.fail(mask, reason, values)
        converted = java_long_div(millis_to_unit(millis, outgoing.time_type), outgoing.size)
        out = pa.array(converted, pa.int64(), mask=null | unparsed if (null | unparsed).any() else None)
        # (int) and (float) / (double) of a long: wrap and round, never an error
        return out.cast(_OUTPUT_TYPES[outgoing.data_type], safe=False)
