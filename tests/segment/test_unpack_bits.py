"""The reader's bit unpacking (groups of eight values, whole-byte widths) against a plain per-value reference, for
every width 1..32 and counts that end mid-group, on bytes the writer's packer made."""
from __future__ import annotations

import numpy as np
import pytest

from pinot_sink.segment.bitpack import pack_bits
from pinot_sink.segment.read.decoders import unpack_bits


def _reference(buf: bytes, bits: int, count: int) -> list[int]:
    number = int.from_bytes(buf, "big")
    total = len(buf) * 8
    return [(number >> (total - (i + 1) * bits)) & ((1 << bits) - 1) for i in range(count)]


@pytest.mark.parametrize("bits", range(1, 33))
def test_every_width(bits):
    rng = np.random.default_rng(bits)
    for count in (1, 7, 8, 9, 61):
        high = min(2**bits, 2**31)
        values = rng.integers(0, high, count, dtype=np.int64)
        values[0] = high - 1  # the widest value of the width
        buf = bytes(pack_bits(values.astype(np.int64), bits))
        got = unpack_bits(buf, bits, count, "test")
        assert got.dtype == np.int32
        assert got.tolist() == _reference(buf, bits, count) == values.tolist()


def test_take_of_one_length_values_equals_arrows_take():
    import pyarrow as pa

    from pinot_sink.segment.read.reader import _take

    ids = pa.array([3, 0, 0, 2, 1, 3], pa.int32())
    for dictionary in (pa.array(["aa", "bb", "cc", "dd"]), pa.array([b"\x00\x01", b"zz", b"\xff\xfe", b"qq"]),
                       pa.array(["a", "bb", "c", "d"]), pa.array(["", "", "", ""]),
                       pa.array(["xx", "aa", "bb", "cc", "dd"]).slice(1)):
        got = _take(dictionary, ids)
        assert got.type == dictionary.type and got.equals(dictionary.take(ids)), dictionary


def test_sorted_dict_ids_of_runs_and_of_a_slice_of_them():
    from pinot_sink.segment.read.decoders import sorted_dict_ids

    lengths = [1, 3, 1, 1, 5, 2, 1]
    firsts = np.cumsum([0] + lengths[:-1])
    ranges = np.stack([firsts, firsts + np.array(lengths) - 1], axis=1).astype(np.int32)
    expected = np.repeat(np.arange(len(lengths)), lengths)
    got = sorted_dict_ids(ranges)
    assert got.dtype == np.int32 and got.tolist() == expected.tolist()
    # runs cut to docs [2, 10), as read_batches clips them: ids from 0, one per doc
    clipped = ranges[1:5].copy()
    clipped[0, 0], clipped[-1, 1] = 2, 9
    assert sorted_dict_ids(clipped).tolist() == [0, 0, 1, 2, 3, 3, 3, 3]
    unique = np.array([[4, 4], [5, 5], [6, 6]], dtype=np.int32)
    assert sorted_dict_ids(unique).tolist() == [0, 1, 2]
