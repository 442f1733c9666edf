"""TrigonometricFunctions: ``sin cos tan`` (so ``cot``, ``1.0 / tan``) are HotSpot's x86_64 intrinsic stubs
ported (``javalib.hotspot_math``), ``asin acos atan atan2 sinh cosh tanh`` fdlibm's algorithms (``StrictMath``,
which JDK 17's ``Math`` calls for them), bit for bit; ``asinh acosh atanh`` Pinot's own formulas through
``Math.log`` (arithmetic_functions.py holds the shared double-to-double wrapper).
"""
from __future__ import annotations

import numpy as np

from javalib.fdlibm import fdlibm_acos, fdlibm_asin, fdlibm_atan, fdlibm_atan2, fdlibm_cosh, fdlibm_sinh, fdlibm_tanh
from javalib.hotspot_math import hotspot_cos, hotspot_log, hotspot_sin, hotspot_tan
from .arithmetic_functions import _double_fn
from .registry import scalar_function

for _name, _fn in {"sin": hotspot_sin, "cos": hotspot_cos, "tan": hotspot_tan, "asin": fdlibm_asin,
                   "acos": fdlibm_acos, "atan": fdlibm_atan, "sinh": fdlibm_sinh, "cosh": fdlibm_cosh,
                   "tanh": fdlibm_tanh}.items():
    scalar_function(_name, arity=1)(_double_fn(_fn))
scalar_function("cot", arity=1)(_double_fn(lambda a: 1.0 / hotspot_tan(a)))  # TrigonometricFunctions: 1.0 / tan(a)
scalar_function("atan2", arity=2)(_double_fn(fdlibm_atan2))
scalar_function("degrees", arity=1)(_double_fn(lambda a: a * 57.29577951308232))
scalar_function("radians", arity=1)(_double_fn(lambda a: a * 0.017453292519943295))
# Pinot's own formulas (not Math's): asinh sign-separated, acosh and atanh through Math.log (HotSpot's stub)
scalar_function("asinh", arity=1)(_double_fn(
    lambda a: np.where(a >= 0, hotspot_log(a + np.sqrt(a * a + 1)), -hotspot_log(-a + np.sqrt(a * a + 1)))))
scalar_function("acosh", arity=1)(_double_fn(lambda a: hotspot_log(a + np.sqrt(a * a - 1))))
scalar_function("atanh", arity=1)(_double_fn(lambda a: 0.5 * hotspot_log((1 + a) / (1 - a))))

