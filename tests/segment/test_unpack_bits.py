"""The reader's bit unpacking (groups of eight values, whole-byte widths) against a plain per-value reference, for
every width 1..32 and counts that end mid-group, on bytes the writer's packer made."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
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


@pytest.mark.parametrize("bits", range(1, 33))
def test_every_width_from_arrows_pool_over_scribbled_pages(bits, arrows_own_pool):
    """70 001 values: every array of the unpacking comes from Arrow's pool (segment/read/pooled.py, 64 KiB
    and up), whose pages are not zero-filled: pages a freed buffer left full of 0xAB read as nothing but the
    packed values (the padding past the last byte zeroed)."""
    count = 70_001
    for size in (1 << 16, 1 << 18, 1 << 20, 3 << 20):
        np.frombuffer(pa.allocate_buffer(size), dtype=np.uint8)[:] = 0xAB  # freed at once, pages kept
    values = np.random.default_rng(bits).integers(0, min(2**bits, 2**31), count, dtype=np.int64)
    buf = bytes(pack_bits(values, bits))
    got = unpack_bits(buf, bits, count, "test")
    plain = np.unpackbits(np.frombuffer(buf, dtype=np.uint8))[:count * bits].reshape(count, bits)
    assert got.dtype == np.int32 and np.array_equal(got, plain.astype(np.int64) @ (1 << np.arange(bits - 1, -1, -1)))
    assert np.array_equal(got, values)


def test_arrays_it_writes_into_must_be_writable():
    """An allocator handing out read-only memory is refused by numpy (raises), never written around."""
    def read_only(count, dtype):
        array = np.zeros(count, dtype=dtype)
        array.flags.writeable = False
        return array

    buf = bytes(pack_bits(np.arange(100, dtype=np.int64) % 8, 3))
    with pytest.raises(ValueError, match="read-only"):
        unpack_bits(buf, 3, 100, "test", allocate=read_only)


def test_take_of_ids_with_nulls_is_arrows_take():
    """A null id reads as null (the one-width path builds its rows without a validity buffer: it must not take
    them); none of the reader's own ids are null, a caller's may be."""
    from pinot_sink.segment.read.reader import _take

    ids = pa.array([2, None, 0, None], pa.int32())
    for dictionary in (pa.array(["aa", "bb", "cc"]), pa.array([b"\x00\x01", b"zz", b"qq"])):
        got = _take(dictionary, ids)
        assert got.equals(dictionary.take(ids)) and got.null_count == 2, got
