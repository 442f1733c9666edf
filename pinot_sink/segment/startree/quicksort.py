"""The order fastutil's ``Arrays.quickSort(from, to, IntComparator, Swapper)`` leaves equal keys in.

Pinot's star-tree builder sorts record ids with that (unstable) quicksort and then merges the records of each
run of equal dimensions in the order the sort left them. For most aggregations the order of a run does not
change the result, but a DOUBLE sum does (floating-point addition is not associative): to write the same bytes
we must visit equal keys in the same order as fastutil. ``fastutil_order`` reproduces the algorithm's moves
(insertion sort below 16 elements, median of 3 / pseudo-median of 9 pivot, Bentley-McIlroy three-way
partition); it was checked against fastutil 8.5.11 itself on tie-heavy random inputs
(tests/segment/test_startree_quicksort.py holds the orders Java produced).
"""
from __future__ import annotations

from typing import Sequence

_NO_REC = 16  # QUICKSORT_NO_REC
_MEDIAN_OF_9 = 128  # QUICKSORT_MEDIAN_OF_9


def fastutil_order(keys: Sequence) -> list[int]:
    """The permutation of ``range(len(keys))`` fastutil's quicksort produces when it sorts an int array
    initialised to 0..n-1 comparing ``keys[x]`` (any mutually comparable values: ints, tuples)."""
    n = len(keys)
    ids = list(range(n))
    if n > 1:
        if not all(type(k) is int for k in keys):
            ranks = {k: r for r, k in enumerate(sorted(set(keys)))}
            keys = [ranks[k] for k in keys]
        _sort(ids, list(keys), 0, n)
    return ids


def _med3(kv: list, a: int, b: int, c: int) -> int:
    ka, kb, kc = kv[a], kv[b], kv[c]
    if ka < kb:
        return b if kb < kc else (c if ka < kc else a)
    return b if kb > kc else (c if ka > kc else a)


def _sort(ids: list[int], kv: list[int], lo: int, hi: int) -> None:
    """Sorts ``kv`` (the keys, position by position) and moves ``ids`` along with it."""
    while True:
        length = hi - lo
        if length < _NO_REC:
            for i in range(lo, hi):
                j = i
                while j > lo and kv[j - 1] > kv[j]:
                    kv[j], kv[j - 1] = kv[j - 1], kv[j]
                    ids[j], ids[j - 1] = ids[j - 1], ids[j]
                    j -= 1
            return
        window = kv[lo:hi]
        if min(window) == max(window):  # all equal: fastutil's partition moves nothing (shortcut, same order)
            return
        m = lo + length // 2
        l, n = lo, hi - 1
        if length > _MEDIAN_OF_9:
            s = length // 8
            l = _med3(kv, l, l + s, l + 2 * s)
            m = _med3(kv, m - s, m, m + s)
            n = _med3(kv, n - 2 * s, n - s, n)
        m = _med3(kv, l, m, n)
        pivot = kv[m]  # the pivot element moves, its value does not: compare with the value
        a = b = lo
        c = d = hi - 1
        while True:
            while b <= c:
                kb = kv[b]
                if kb > pivot:
                    break
                if kb == pivot:
                    kv[a], kv[b] = kv[b], kv[a]
                    ids[a], ids[b] = ids[b], ids[a]
                    a += 1
                b += 1
            while c >= b:
                kc = kv[c]
                if kc < pivot:
                    break
                if kc == pivot:
                    kv[c], kv[d] = kv[d], kv[c]
                    ids[c], ids[d] = ids[d], ids[c]
                    d -= 1
                c -= 1
            if b > c:
                break
            kv[b], kv[c] = kv[c], kv[b]
            ids[b], ids[c] = ids[c], ids[b]
            b += 1
            c -= 1
        s = min(a - lo, b - a)
        _vec_swap(ids, kv, lo, b - s, s)
        s = min(d - c, hi - d - 1)
        _vec_swap(ids, kv, b, hi - s, s)
        left, right = b - a, d - c
        if left > 1:
            _sort(ids, kv, lo, lo + left)
        if right > 1:
            lo = hi - right  # the second recursion as a loop
            continue
        return


def _vec_swap(ids: list[int], kv: list[int], a: int, b: int, n: int) -> None:
    if n:
        ids[a:a + n], ids[b:b + n] = ids[b:b + n], ids[a:a + n]
        kv[a:a + n], kv[b:b + n] = kv[b:b + n], kv[a:a + n]
