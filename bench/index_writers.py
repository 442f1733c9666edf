"""Single index writers against their plain references, in one process (best of --repeat, seconds).

* inverted index over 1M rows with 1M distinct values and with 200k: ``inverted_index`` (array-container
  bitmaps written with numpy) against one pyroaring bitmap per dictId, the way the writer built bitmaps
  before (the grouping of rows by dictId, shared, is today's in both);
* bloom filter over 1M distinct doubles: ``build_bloom_filter`` against the same filter with every value
  spelled by the general Double.toString layout (what it did before the plain-range shortcut);
* Adler-32 of 64 MiB: ISA-L's against zlib's.

    python bench/index_writers.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time
import zlib
from array import array
from unittest import mock

import numpy as np
from isal import isal_zlib
from pyroaring import BitMap

from pinot_sink.segment import bloom_filter
from pinot_sink.segment.inverted_index import _grouped_docs, inverted_index
from type_mapping import java_text
from type_mapping.pinot_schema import FieldSpec


def best(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def per_bitmap_inverted_index(dict_ids: np.ndarray, cardinality: int) -> bytes:
    """The writer before: one pyroaring bitmap per dictId, each fed a slice of one ``array('I')``."""
    docs, ends = _grouped_docs(dict_ids, cardinality, None)
    docs, ends = array("I", docs.astype(np.uint32).tobytes()), ends.tolist()
    bitmaps = []
    for start, end in zip([0] + ends[:-1], ends):
        bitmap = BitMap(docs[start:end])
        bitmap.run_optimize()
        bitmaps.append(bitmap.serialize())
    offsets = np.cumsum([4 * (cardinality + 1)] + [len(b) for b in bitmaps])
    return offsets.astype(">u4").tobytes() + b"".join(bitmaps)


def general_spelling(value: float, float32: bool = False) -> str:
    """Double.toString through the general digit layout only (finite, non-zero doubles, as generated here)."""
    return java_text.java_float_from_shortest(value, repr(float(value)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print(f"best of {args.repeat}, seconds; load average {os.getloadavg()[0]:.1f}")

    for label, dict_ids in [("1M distinct values", rng.permutation(1_000_000)),
                            ("200k dictIds over 1M rows", np.unique(rng.integers(0, 200_000, 1_000_000),
                                                                    return_inverse=True)[1])]:
        dict_ids = dict_ids.astype(np.int32)
        cardinality = int(dict_ids.max()) + 1
        assert bytes(inverted_index(dict_ids, cardinality)) == per_bitmap_inverted_index(dict_ids, cardinality)
        ours = best(lambda: inverted_index(dict_ids, cardinality), args.repeat)
        plain = best(lambda: per_bitmap_inverted_index(dict_ids, cardinality), args.repeat)
        print(f"inverted index, {label}: {ours:.3f} vs per-bitmap pyroaring {plain:.3f}")

    import pyarrow as pa

    doubles = pa.array(np.unique(rng.random(1_000_000)))
    spec = FieldSpec("score", "DOUBLE")
    ours = best(lambda: bloom_filter.build_bloom_filter(doubles, spec), args.repeat)
    with mock.patch.object(bloom_filter, "java_float_str", general_spelling):
        plain = best(lambda: bloom_filter.build_bloom_filter(doubles, spec), 1)
    print(f"bloom filter, {len(doubles):,} distinct doubles: {ours:.3f} vs general Double.toString layout {plain:.3f}")

    data = os.urandom(64 << 20)
    print(f"Adler-32 of 64 MiB: ISA-L {best(lambda: isal_zlib.adler32(data), args.repeat):.4f} vs zlib "
          f"{best(lambda: zlib.adler32(data), args.repeat):.4f}")


if __name__ == "__main__":
    main()
