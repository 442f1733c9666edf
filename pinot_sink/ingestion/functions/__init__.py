"""Pinot's built-in scalar functions used at ingestion, vectorised over Arrow (one module per family).

``REGISTRY`` maps a canonical name (``FunctionRegistry.canonicalize``) to its overloads by argument count
(``VAR_ARGS`` for varargs), as Pinot's ``FunctionRegistry.lookupFunctionInfo(name, numArguments)`` picks
them at ingestion: by count only, so the polymorphic arithmetic and comparison functions take their DOUBLE
overload. A function is null-intolerant unless registered ``nullable`` (``@ScalarFunction(nullableParameters
= true)``): then any null argument gives null without calling it (``InbuiltFunctionEvaluator``).
"""
from __future__ import annotations

from .registry import REGISTRY, VAR_ARGS, Function, lookup, scalar_function
from . import (array_functions, string_functions_bytes, data_type_conversion_functions, date_time_functions,  # noqa
               geospatial_scalar_functions, hash_functions, json_functions, arithmetic_functions, regexp_functions,
               string_functions)  # noqa: E402,F401  (each family registers its functions)

__all__ = ["REGISTRY", "VAR_ARGS", "Function", "lookup", "scalar_function"]
from . import (geohash_functions, internal_functions, ip_address_functions, json_functions_keys,  # noqa: E402,F401
               object_functions, ngram_functions, date_time_functions_arith, trigonometric_functions, url_functions,
               uuid_functions, vector_functions)
from . import date_time_functions_mv  # noqa: E402,F401  (after the single-value functions it wraps)
