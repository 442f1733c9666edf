"""VectorFunctions over ``float[]`` (a multi-value column converted to floats), in Java's arithmetic: each
product or difference of two elements is a float (rounded to 32 bits), widened and summed in order as a
double; ``Math.pow(x, 2)`` is the double square. Vectors of different lengths (or an empty one for
``vectorDims`` / ``vectorNorm``) fail the row; ``cosineDistance`` gives its default (NaN with two arguments,
stored as null) when a norm is 0. Checked against Pinot's own build (tests/fixtures/functions/vector.jsonl).
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from ..values import Context, Value, to_double
from .array_functions import to_array
from .registry import scalar_function
from .rowwise import JavaThrows, per_row


def _pair(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    if len(a) != len(b):
        raise JavaThrows("IllegalArgumentException: Vector lengths do not match")
    return np.array(a, np.float32), np.array(b, np.float32)


def _sum(values: np.ndarray) -> float:
    total = 0.0
    for v in values.astype(np.float64):  # in order, as Java's loop adds
        total += float(v)
    return total


def _squares(values: np.ndarray) -> np.ndarray:
    wide = values.astype(np.float64)
    return wide * wide


def inner_product(a: tuple, b: tuple) -> float:
    x, y = _pair(a, b)
    return _sum(x * y)


def cosine_distance(a: tuple, b: tuple, default: float = float("nan")) -> float:
    x, y = _pair(a, b)
    dot, n1, n2 = 0.0, 0.0, 0.0
    products, s1, s2 = (x * y).astype(np.float64), _squares(x), _squares(y)
    for p, q, r in zip(products, s1, s2):
        dot += float(p)
        n1 += float(q)
        n2 += float(r)
    if n1 == 0 or n2 == 0:
        return default
    return 1 - (dot / (math.sqrt(n1) * math.sqrt(n2)))


def euclidean_distance(a: tuple, b: tuple) -> float:
    x, y = _pair(a, b)
    return _sum(_squares(x - y))


def l1_distance(a: tuple, b: tuple) -> float:
    x, y = _pair(a, b)
    return _sum(np.abs(x - y))


def _one(a: tuple) -> np.ndarray:
    if len(a) == 0:
        raise JavaThrows("IllegalArgumentException: Empty vector passed")
    return np.array(a, np.float32)


def _vectors(ctx: Context, args: list[Value]) -> list[pa.Array]:
    return [to_array(a, "Float", ctx) for a in args]


def _register(name, fn, out_type=pa.float64(), arity=2):
    scalar_function(name, arity=arity)(lambda ctx, args: per_row(ctx, fn, out_type, *_vectors(ctx, args)))


_register("innerProduct", inner_product)
_register("dotProduct", inner_product)
_register("cosineDistance", cosine_distance)
_register("euclideanDistance", euclidean_distance)
_register("l2Distance", lambda a, b: math.sqrt(euclidean_distance(a, b)))
_register("l1Distance", l1_distance)
_register("vectorDims", lambda a: len(_one(a)), pa.int32(), arity=1)
_register("vectorNorm", lambda a: math.sqrt(_sum(_squares(_one(a)))), arity=1)


@scalar_function("cosineDistance", arity=3)
def _cosine_distance_default(ctx: Context, args: list[Value]) -> Value:
    return per_row(ctx, cosine_distance, pa.float64(), *_vectors(ctx, args[:2]), to_double(args[2], ctx))
