"""The order fastutil's ``Arrays.quickSort(from, to, IntComparator, Swapper)`` leaves equal keys in.

Pinot's star-tree builder sorts record ids with that (unstable) quicksort and then merges the records of each
run of equal dimensions in the order the sort left them. For most aggregations the order of a run does not
change the result, but a DOUBLE sum does (floating-point addition is not associative): to write the same bytes
we must visit equal keys in the same order as fastutil. ``fastutil_order`` reproduces the algorithm's moves
(insertion sort below 16 elements, median of 3 / pseudo-median of 9 pivot, Bentley-McIlroy three-way
partition) in Python: the reference, and the fastest for small inputs. ``fastutil_order_array`` gives the same
permutation for big ones: compiled with numba when it is installed (the ``fast`` extra; ``quicksort_jit``),
else ``_numpy_order``, the same moves computed for every segment of one recursion depth at once.
All three are checked against fastutil 8.5.11 itself (tests/fixtures/startree/fastutil_orders.json, and
orders of 1M keys by their SHA-256, made with tests/fixtures/startree/FastutilOrder.java).
"""
from __future__ import annotations

import logging
from typing import Sequence

import numpy as np

log = logging.getLogger(__name__)

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


# --- the same permutation for big inputs -------------------------------------------------------------

_PYTHON_BELOW = 2048  # the Python port beats numpy's per-call overhead below this
# Loading numba and its cached code costs ~0.4-0.6 CPU-s once per process: worth it from about the size where
# the numpy version takes as long (~0.35 s); once loaded it serves every size from _PYTHON_BELOW on.
_NUMBA_FROM = 150_000


def _choose(n: int) -> str:
    """Which implementation sorts ``n`` keys: the Python port for small inputs, numba for big ones if it is
    installed, else numpy."""
    if n < _PYTHON_BELOW:
        return "python"
    if (_KERNEL and _KERNEL[0] is not None) or (n >= _NUMBA_FROM and _jit() is not None):
        return "numba"
    return "numpy"


def fastutil_order_array(ranks: np.ndarray, how: str = "auto") -> np.ndarray:
    """``fastutil_order`` of non-negative int keys (e.g. each key's rank), as an int64 array.

    ``how``: ``auto`` (``_choose``), or one of ``python``, ``numba``, ``numpy`` (tests compare them)."""
    keys = np.asarray(ranks, dtype=np.int64)
    if how == "auto":
        how = _choose(len(keys))
    if how == "python":
        return np.array(fastutil_order(keys.tolist()), dtype=np.int64)
    if how == "numba":
        kernel = _jit()
        if kernel is None:
            raise RuntimeError("numba is not installed (pip install 'pinot-sink[fast]')")
        return kernel(keys.copy())
    return _numpy_order(keys)


def compiled_sort(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(fastutil's order, the keys sorted) of non-negative int64 keys when ``_choose`` picks numba, else None.
    The compiled sort is fast enough to be the only sort: no stable sort first to find the ties."""
    if _choose(len(keys)) != "numba":
        return None
    ordered = np.array(keys, dtype=np.int64)
    order = _jit()(ordered)  # sorts ``ordered`` in place
    return order, ordered


_KERNEL: list = []


def compiled_sequential_sums():
    """numba's ``quicksort_jit.sequential_sums`` once numba is loaded for the sort (the DOUBLE sums that need
    a strict order are those whose records it sorted), else None: loading numba for the sums alone costs more
    than it saves."""
    if _KERNEL and _KERNEL[0] is not None:
        from . import quicksort_jit
        return quicksort_jit.sequential_sums
    return None


def _jit():
    """numba's compiled quicksort, or None when numba is missing or cannot compile here."""
    if not _KERNEL:
        try:
            from . import quicksort_jit
            quicksort_jit.fastutil_sort(np.zeros(1, dtype=np.int64))  # compiles (or loads) it here, in the try
            _KERNEL.append(quicksort_jit.fastutil_sort)
        except Exception as exc:  # ImportError, or numba failing to compile / cache on this host
            if not isinstance(exc, ImportError):
                log.warning("star-tree: numba's quicksort is unusable here (%s); using numpy's", exc)
            _KERNEL.append(None)
    return _KERNEL[0]


def _med3_values(ka: np.ndarray, kb: np.ndarray, kc: np.ndarray) -> np.ndarray:
    below = np.where(kb < kc, kb, np.where(ka < kc, kc, ka))
    above = np.where(kb > kc, kb, np.where(ka > kc, kc, ka))
    return np.where(ka < kb, below, above)


def _before(flags: np.ndarray, seg: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Per element: how many elements before it in its segment have ``flags`` set."""
    counts = np.cumsum(flags, dtype=np.int64)
    counts -= flags
    counts -= counts[off][seg]
    return counts


def _ranges(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(f, f + c)`` over the pairs."""
    total = int(count.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    return np.arange(total, dtype=np.int64) + np.repeat(first - (np.cumsum(count) - count), count)


def _numpy_order(keys: np.ndarray) -> np.ndarray:
    """fastutil's permutation, one recursion depth at a time for all segments together.

    One partition of a segment, in closed form (a = b = lo, c = d = hi - 1 in fastutil's names): the left scan
    reads the positions [lo, B), the right scan [B, hi), where B is the last x with as many keys above the
    pivot in [lo, x) as below it in [x, hi); the k-th key above it on the left swaps with the k-th key below
    it counted from the right. The left scan's e-th equal key takes slot lo + e and the key that was there
    moves to the equal's slot (a queue, resolved by following those moves); the right scan mirrors it. Then
    the two ``vecSwap``s bring the equal keys to the middle, and the parts below and above recurse; parts
    under 16 keys are insertion-sorted, i.e. sorted stably."""
    n = len(keys)
    out = np.arange(n, dtype=np.int64)
    if n < _NO_REC:
        return np.argsort(keys, kind="stable").astype(np.int64)
    span = int(keys.max()) + 1
    if span * _NO_REC * 2 * n >= 2**62:  # the small parts' sort key below must fit an int64
        keys = np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)
        span = int(keys.max()) + 1
    K = keys.copy()  # keys of the segments still being sorted, segment after segment
    D = np.arange(n, dtype=np.int64)  # their ids
    off = np.zeros(1, dtype=np.int64)  # each segment's start in K
    length = np.full(1, n, dtype=np.int64)
    glo = np.zeros(1, dtype=np.int64)  # each segment's start in the whole array
    while len(off):
        S, N = len(off), len(K)
        seg = np.repeat(np.arange(S, dtype=np.int64), length)
        hi = off + length
        mid = off + length // 2
        lv, mv, rv = K[off], K[mid], K[hi - 1]
        big = length > _MEDIAN_OF_9
        if big.any():
            s = length[big] // 8
            lb, mb, rb = off[big], mid[big], hi[big] - 1
            lv[big] = _med3_values(K[lb], K[lb + s], K[lb + 2 * s])
            mv[big] = _med3_values(K[mb - s], K[mb], K[mb + s])
            rv[big] = _med3_values(K[rb - 2 * s], K[rb - s], K[rb])
        pivot = _med3_values(lv, mv, rv)[seg]
        gt = K > pivot
        lt = K < pivot
        eq = ~(gt | lt)
        del pivot
        last = hi - 1
        g_before = _before(gt, seg, off)
        l_before = _before(lt, seg, off)
        e_before = _before(eq, seg, off)
        g_total = g_before[last] + gt[last]
        l_from = (l_before[last] + lt[last])[seg] - l_before  # keys below the pivot in [p, hi)
        e_total = e_before[last] + eq[last]
        B = off - 1 + np.add.reduceat((g_before - l_from) <= 0, off, dtype=np.int64) + (g_total == 0)
        idx = np.arange(N, dtype=np.int64)
        left = idx < B[seg]
        # the swaps of the two scans: the k-th key above on the left with the k-th below from the right
        lg = np.flatnonzero(left & gt)
        rl = np.flatnonzero(lt & ~left)
        pairs = np.bincount(seg[lg], minlength=S)
        first_pair = np.cumsum(pairs) - pairs
        pg = np.empty(len(lg), dtype=np.int64)
        pl = np.empty(len(rl), dtype=np.int64)
        pg[first_pair[seg[lg]] + g_before[lg]] = lg
        pl[first_pair[seg[rl]] + l_from[rl] - 1] = rl
        item = idx.copy()  # the key each scan position (an event) handles
        item[pg] = pl
        item[pl] = pg
        # equal keys: the e-th of the left scan goes to slot lo + e, of the right scan to hi - 1 - e
        le = np.flatnonzero(eq & left)
        re = np.flatnonzero(eq & ~left)
        EL = np.bincount(seg[le], minlength=S)
        ER = e_total - EL
        dl = off[seg[le]] + e_before[le]
        dr = hi[seg[re]] - e_total[seg[re]] + e_before[re]
        dest = idx.copy()
        moving = np.concatenate([dl, dr])
        moving = moving[~eq[moving]]  # slots whose (non-equal) key an equal key pushes on
        if len(moving):
            step = idx.copy()
            step[dl] = le
            step[dr] = re
            at = step[moving]
            for _ in range(32):
                ahead = step[at]
                if np.array_equal(ahead, at):
                    break
                at = ahead
            else:  # long chains (few keys among many equal ones): pointer doubling
                while True:
                    twice = step[step]
                    if np.array_equal(twice, step):
                        break
                    step = twice
                at = step[moving]
            dest[moving] = at
        dest[le] = dl
        dest[re] = dr
        # the vecSwaps
        nless = (B - off) - EL
        ngreater = (hi - B) - ER
        swap = idx.copy()
        for first, count, shift in ((off, np.minimum(EL, nless), B - np.minimum(EL, nless) - off),
                                    (B, np.minimum(ngreater, ER), hi - np.minimum(ngreater, ER) - B)):
            r = _ranges(first, count)
            if len(r):
                moved = r + np.repeat(shift, count)
                swap[r] = moved
                swap[moved] = r
        final = swap[dest]  # each event's slot after this partition
        Kn, Dn = K[item], D[item]
        part = (final >= (off + nless)[seg]).astype(np.int64) + (final >= (hi - ngreater)[seg])
        middle = part == 1
        out[final[middle] + (glo - off)[seg[middle]]] = Dn[middle]
        # the parts below (2s) and above (2s + 1) the pivot: small ones are insertion-sorted, the rest recurse
        psize = np.stack([nless, ngreater], axis=1).reshape(-1)
        pstart = np.stack([off, hi - ngreater], axis=1).reshape(-1)
        pglo = np.stack([glo, glo + (hi - ngreater - off)], axis=1).reshape(-1)
        keep = ~middle
        pid = 2 * seg[keep] + (part[keep] == 2)
        Kk, Dk = Kn[keep], Dn[keep]
        within = final[keep] - pstart[pid]
        recurse = psize >= _NO_REC
        small = ~recurse[pid]
        if small.any():
            sid, ws = pid[small], within[small]
            order = np.argsort((sid * span + Kk[small]) * _NO_REC + ws)  # stable: ties broken by slot
            out[(pglo[sid] + ws)[np.argsort(sid * _NO_REC + ws)]] = Dk[small][order]
        going = ~small
        kept = np.flatnonzero(recurse)
        length = psize[kept]
        new_off = np.zeros(len(psize), dtype=np.int64)
        new_off[kept] = np.cumsum(length) - length
        at = new_off[pid[going]] + within[going]
        K = np.empty(int(length.sum()), dtype=np.int64)
        D = np.empty_like(K)
        K[at] = Kk[going]
        D[at] = Dk[going]
        off, glo = new_off[kept], pglo[kept]
    return out
