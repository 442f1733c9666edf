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
    ids = list(range(len(keys)))
    if len(ids) > 1:
        _sort(ids, keys, 0, len(ids))
    return ids


def _cmp(keys, ids, i: int, j: int) -> int:
    a, b = keys[ids[i]], keys[ids[j]]
    return -1 if a < b else (1 if a > b else 0)


def _med3(keys, ids, a: int, b: int, c: int) -> int:
    ab = _cmp(keys, ids, a, b)
    ac = _cmp(keys, ids, a, c)
    bc = _cmp(keys, ids, b, c)
    if ab < 0:
        return b if bc < 0 else (c if ac < 0 else a)
    return b if bc > 0 else (c if ac > 0 else a)


def _sort(ids: list[int], keys, lo: int, hi: int) -> None:
    while True:
        length = hi - lo
        if length < _NO_REC:
            for i in range(lo, hi):
                j = i
                while j > lo and keys[ids[j - 1]] > keys[ids[j]]:
                    ids[j], ids[j - 1] = ids[j - 1], ids[j]
                    j -= 1
            return
        m = lo + length // 2
        l, n = lo, hi - 1
        if length > _MEDIAN_OF_9:
            s = length // 8
            l = _med3(keys, ids, l, l + s, l + 2 * s)
            m = _med3(keys, ids, m - s, m, m + s)
            n = _med3(keys, ids, n - 2 * s, n - s, n)
        m = _med3(keys, ids, l, m, n)
        a = b = lo
        c = d = hi - 1
        while True:
            while b <= c:
                comparison = _cmp(keys, ids, b, m)
                if comparison > 0:
                    break
                if comparison == 0:
                    if a == m:
                        m = b
                    elif b == m:
                        m = a
                    ids[a], ids[b] = ids[b], ids[a]
                    a += 1
                b += 1
            while c >= b:
                comparison = _cmp(keys, ids, c, m)
                if comparison < 0:
                    break
                if comparison == 0:
                    if c == m:
                        m = d
                    elif d == m:
                        m = c
                    ids[c], ids[d] = ids[d], ids[c]
                    d -= 1
                c -= 1
            if b > c:
                break
            if b == m:
                m = d
            elif c == m:
                m = c
            ids[b], ids[c] = ids[c], ids[b]
            b += 1
            c -= 1
        s = min(a - lo, b - a)
        _vec_swap(ids, lo, b - s, s)
        s = min(d - c, hi - d - 1)
        _vec_swap(ids, b, hi - s, s)
        left, right = b - a, d - c
        if left > 1:
            _sort(ids, keys, lo, lo + left)
        if right > 1:
            lo = hi - right  # the second recursion as a loop
            continue
        return


def _vec_swap(ids: list[int], a: int, b: int, n: int) -> None:
    for k in range(n):
        ids[a + k], ids[b + k] = ids[b + k], ids[a + k]
