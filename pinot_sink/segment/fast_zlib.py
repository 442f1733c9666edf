"""zlib's deflate, CRC-32 and Adler-32, from ISA-L where it is installed, else from Python's zlib.

ISA-L (the ``isal`` package) gives the same values and the same deflate format 2-3x faster (AVX2 / NEON);
it has wheels for x86-64 and ARM64 on Linux, macOS and Windows. Where no wheel exists the package is left
out (setup.cfg) and everything here falls back to zlib: same segment bytes and CRCs, tarballs still valid
gzip, builds take ~15% more CPU (1.96 vs 1.71 CPU-s for the 1M-row bench, docs/performance.md).
"""
from __future__ import annotations

import zlib

try:
    from isal import isal_zlib as fast_zlib

    HAVE_ISAL = True
except ImportError:  # no wheel for this platform: the standard library does the same, slower
    fast_zlib = zlib  # type: ignore[assignment]
    HAVE_ISAL = False

__all__ = ["HAVE_ISAL", "fast_zlib"]
