"""Small gzip tarballs read and inflated into pooled buffers (``inflate_into``): a buffer is used again only
once nothing views it, segments open together never share one, and a stream libdeflate alone would misread
(a second member, trailing bytes) is left to the other inflater."""
from __future__ import annotations

import gzip
import io

import pytest

from pinot_sink.segment.read import inflate_into, tar_source
from pinot_sink.segment.read.reader import read_segment

pytestmark = pytest.mark.skipif(not inflate_into.available(), reason="libdeflate's entry point is not reachable")


@pytest.fixture(autouse=True)
def empty_pool(monkeypatch):
    monkeypatch.setattr(inflate_into, "_spare", [])


def test_a_buffer_still_viewed_is_never_handed_out_again():
    buffer = inflate_into.take(1000)
    view = memoryview(buffer)[10:20]
    inflate_into.give_back(buffer)
    assert inflate_into._spare == []
    view.release()
    inflate_into.give_back(buffer)
    assert inflate_into._spare == [buffer] and inflate_into.take(1000) is buffer


def test_the_pool_keeps_few_and_small_buffers():
    large = bytearray(inflate_into.POOLED_MAX + 1)
    inflate_into.give_back(large)
    assert inflate_into._spare == []
    buffers = [bytearray(10) for _ in range(inflate_into.POOLED + 1)]
    for buffer in buffers:
        inflate_into.give_back(buffer)
    assert len(inflate_into._spare) == inflate_into.POOLED
    assert len(inflate_into.take(11)) >= 11  # none fits: a new one, the small ones dropped


def test_gzip_into_takes_one_member_that_ends_the_data():
    one = b"a" * 5000
    compressed = bytearray(gzip.compress(one))
    view = inflate_into.gzip_into(compressed, len(compressed), len(one))
    assert bytes(view) == one
    assert inflate_into.gzip_into(compressed, len(compressed), len(one) - 1) is None  # more than said
    assert inflate_into.gzip_into(compressed, len(compressed), len(one) + 1) is None  # less than said
    two = bytearray(gzip.compress(one) + gzip.compress(b"b" * 5000))
    assert inflate_into.gzip_into(two, len(two), len(one)) is None  # a second member, never left unread
    cut = bytearray(gzip.compress(one)[:-20])
    assert inflate_into.gzip_into(cut, len(cut), len(one)) is None


def test_segments_read_one_after_another_share_buffers_and_read_the_same(pinot_built, monkeypatch):
    tarballs = sorted(pinot_built.glob("*/*.tar.gz"))[:6]
    assert len(tarballs) >= 3
    expected = {}
    monkeypatch.setattr(inflate_into, "available", lambda: False)
    for tarball in tarballs:
        expected[tarball] = read_segment(tarball).table
    monkeypatch.undo()
    handed, fresh = [], []
    take = inflate_into.take

    def counted(size):
        pooled = {id(b) for b in inflate_into._spare}
        buffer = take(size)
        handed.append(buffer)
        if id(buffer) not in pooled:
            fresh.append(size)
        return buffer

    monkeypatch.setattr(inflate_into, "take", counted)
    for _ in range(3):
        for tarball in tarballs:
            assert read_segment(tarball).table.equals(expected[tarball])
    assert len(handed) == 2 * 3 * len(tarballs)  # a gzip and a tar each
    assert len(fresh) <= len(tarballs) + 2  # the rest from the pool


def test_segments_open_together_hold_their_own_buffers(pinot_built):
    tarballs = sorted(pinot_built.glob("*/*.tar.gz"))[:3]
    opened = [tar_source.load_tarball(t) for t in tarballs]
    try:
        inflated = [gzip.decompress(t.read_bytes()) for t in tarballs]
        for files, tar in zip(opened, inflated):
            names = list(files.names())
            assert names and all(bytes(files.view(n)) in tar for n in names)
        assert len({id(files.view(next(files.names())).obj) for files in opened}) == len(opened)
    finally:
        for files in opened:
            files.close()
    assert len(inflate_into._spare) <= inflate_into.POOLED
