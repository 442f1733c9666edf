"""``quicksort.fastutil_order`` compiled with numba (the ``fast`` extra): the same moves, ~50x faster.

Imported only when a big order-sensitive sort needs it (importing numba costs ~0.3 s); compiled code is
cached beside this file, or in numba's user cache where that is read-only, or not at all where neither can be
written (then each process compiles it, ~2 CPU-s).
"""
from __future__ import annotations

import numpy as np
from numba import njit

_NO_REC = 16
_MEDIAN_OF_9 = 128


def _compiled(function):
    try:
        return njit(cache=True, nogil=True)(function)
    except RuntimeError:  # "cannot cache function ...: no locator available": no writable cache directory
        return njit(nogil=True)(function)


@_compiled
def _med3(kv, a, b, c):
    ka, kb, kc = kv[a], kv[b], kv[c]
    if ka < kb:
        if kb < kc:
            return b
        return c if ka < kc else a
    if kb > kc:
        return b
    return c if ka > kc else a


@_compiled
def _swap(kv, ids, x, y):
    t = kv[x]
    kv[x] = kv[y]
    kv[y] = t
    t = ids[x]
    ids[x] = ids[y]
    ids[y] = t


@_compiled
def fastutil_sort(kv):
    """Sorts ``kv`` (int64) in place as fastutil does; returns the ids in their sorted order."""
    n = kv.shape[0]
    ids = np.arange(n)
    stack = np.empty((64, 2), dtype=np.int64)  # the parts still to sort
    stack[0, 0] = 0
    stack[0, 1] = n
    depth = 1
    while depth > 0:
        depth -= 1
        lo = stack[depth, 0]
        hi = stack[depth, 1]
        while True:
            length = hi - lo
            if length < _NO_REC:
                for i in range(lo, hi):
                    j = i
                    while j > lo and kv[j - 1] > kv[j]:
                        _swap(kv, ids, j, j - 1)
                        j -= 1
                break
            m = lo + length // 2
            l = lo
            r = hi - 1
            if length > _MEDIAN_OF_9:
                s = length // 8
                l = _med3(kv, l, l + s, l + 2 * s)
                m = _med3(kv, m - s, m, m + s)
                r = _med3(kv, r - 2 * s, r - s, r)
            pivot = kv[_med3(kv, l, m, r)]
            a = lo
            b = lo
            c = hi - 1
            d = hi - 1
            while True:
                while b <= c:
                    kb = kv[b]
                    if kb > pivot:
                        break
                    if kb == pivot:
                        _swap(kv, ids, a, b)
                        a += 1
                    b += 1
                while c >= b:
                    kc = kv[c]
                    if kc < pivot:
                        break
                    if kc == pivot:
                        _swap(kv, ids, c, d)
                        d -= 1
                    c -= 1
                if b > c:
                    break
                _swap(kv, ids, b, c)
                b += 1
                c -= 1
            s = min(a - lo, b - a)
            for i in range(s):
                _swap(kv, ids, lo + i, b - s + i)
            s = min(d - c, hi - d - 1)
            for i in range(s):
                _swap(kv, ids, b + i, hi - s + i)
            # the two parts are disjoint, so their order does not matter: push the larger one and go on with
            # the smaller, which bounds the stack by log2(n)
            left_lo, left_hi = lo, lo + (b - a)
            right_lo, right_hi = hi - (d - c), hi
            if left_hi - left_lo > right_hi - right_lo:
                left_lo, left_hi, right_lo, right_hi = right_lo, right_hi, left_lo, left_hi
            if right_hi - right_lo > 1:
                stack[depth, 0] = right_lo
                stack[depth, 1] = right_hi
                depth += 1
            if left_hi - left_lo > 1:
                lo, hi = left_lo, left_hi
                continue
            break
    return ids


@_compiled
def sequential_sums(values, starts, sizes):
    """Per group ``((v0 + v1) + v2) + ...``, strictly left to right (Java's loop; ``tree.seq_sum``)."""
    out = np.empty(starts.shape[0], dtype=np.float64)
    for g in range(starts.shape[0]):
        s = starts[g]
        total = values[s]
        for i in range(s + 1, s + sizes[g]):
            total += values[i]
        out[g] = total
    return out
