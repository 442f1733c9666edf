"""``Math.exp``, ``log``, ``log10``, ``pow``, ``sin``, ``cos`` and ``tan`` as HotSpot computes them on x86_64: the stubs
it generates for these intrinsics (hotspot/cpu/x86/macroAssembler_x86_exp.cpp, _log.cpp, _log10.cpp, _pow.cpp,
_sin.cpp, _cos.cpp, _tan.cpp:
Intel's LIBM algorithms), replayed in numpy: the same tables and constants (as bits), the same float64 operations in the
same order (SSE2 rounds each to nearest, as numpy does; no fused multiply-add), the same integer tricks on bit
patterns. So each rounding falls where the stub's does, and the result is Java's to the bit, which neither
numpy's libm nor fdlibm (StrictMath) gives on every input.

What this follows, precisely: Java 17's HotSpot on x86_64. The log and pow stubs start from the CPU's ``rcpps``
reciprocal estimate, whose table is the vendor's own; the steps it gives are held here as measured on AMD EPYC
(Zen), so on an Intel CPU a Pinot may print another last bit for some inputs of ``ln`` / ``log2`` / ``log10`` / ``pow``
(``exp`` uses no such instruction). aarch64 HotSpot has other stubs, and a JVM without these intrinsics uses
StrictMath (fdlibm): there the last bit may differ too. Checked against Java on this machine
(tests/fixtures/java17_math.txt, written by tools/java_math/math_fixture.py).

One module a stub family: exp_log.py (exp, log, log10), pow.py, trig.py (sin, cos, tan); stub_data.py reads the
stubs' tables and rcpps's steps from tables.json, once, on a stub's first call. tables.json is generated:

    python -m tools.java_math.hotspot_tables [--check]

which reads the tables from the symbol table of JDK 17's own libjvm.so and measures the rcpps steps on this CPU
(tools/java_math/rcpps_steps.c, gcc); ``--check`` fails unless a fresh run gives the committed bytes.
"""
from __future__ import annotations

from .exp_log import hotspot_exp, hotspot_log, hotspot_log10
from .pow import hotspot_pow
from .trig import hotspot_cos, hotspot_sin, hotspot_tan

__all__ = ["hotspot_cos", "hotspot_exp", "hotspot_log", "hotspot_log10", "hotspot_pow", "hotspot_sin", "hotspot_tan"]
