"""Pinot's built-in scalar functions used at ingestion, vectorised over Arrow (one module per family).

``REGISTRY`` maps a canonical name (``FunctionRegistry.canonicalize``) to its overloads by argument count
(``VAR_ARGS`` for varargs), as Pinot's ``FunctionRegistry.lookupFunctionInfo(name, numArguments)`` picks
them at ingestion: by count only, so the polymorphic arithmetic and comparison functions take their DOUBLE
overload. A function is null-intolerant unless registered ``nullable`` (``@ScalarFunction(nullableParameters
= true)``): then any null argument gives null without calling it (``InbuiltFunctionEvaluator``).
"""
from __future__ import annotations

from .registry import REGISTRY, VAR_ARGS, Function, lookup, scalar_function
from . import array, binary, conversion, datetime, geo, hash, json, math, regexp, string  # noqa: E402,F401  (each family registers its functions)

__all__ = ["REGISTRY", "VAR_ARGS", "Function", "lookup", "scalar_function"]
from . import array_build, big_decimal, geohash, h3_cells, internal, ip, json_keys, json_objects, numeric, objects, strings_extra, timestamp_arith, url, uuid, vector  # noqa: E402,F401
from . import multi_value  # noqa: E402,F401  (after the single-value functions it wraps)
