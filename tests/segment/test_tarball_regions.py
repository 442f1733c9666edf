"""The tarball stores the parts that do not compress and deflates the rest (tarball._incompressible): which
parts are stored, that their bytes are in the tarball as they are, that the gzip is one valid member with the
same bytes for any number of threads (held in memory or spilled), and that the untarred files are the inputs."""
from __future__ import annotations

import io
import tarfile
import zlib

import numpy as np
import pytest

from pinot_sink.segment import tarball
from pinot_sink.segment.bitpack import pack_bits
from pinot_sink.segment.spill import Spill

RNG = np.random.default_rng(21)
MARKER = b"\xde\xad\xbe\xef" * 2  # as columns.psf has between index buffers
NOISE = RNG.integers(0, 256, 300_000, dtype=np.uint8).tobytes()
# a bit-packed forward index of a high-cardinality column (18-bit dictIds of 200k values): stored
IDS = bytes(pack_bits(RNG.integers(0, 200_000, 150_000).astype(np.int32), 18))
# bit-packed too, but sorted, or of few values: these compress
SORTED_IDS = bytes(pack_bits(np.sort(RNG.integers(0, 200_000, 150_000)).astype(np.int32), 18))
FEW = bytes(pack_bits(RNG.integers(0, 3, 600_000).astype(np.int32), 2))
TEXT = b"the same words again and again, " * 6000
REPEATS = np.tile(RNG.integers(0, 256, 1000, dtype=np.uint8), 300).tobytes()  # random bytes, but repeated
TINY = RNG.integers(0, 256, 5000, dtype=np.uint8).tobytes()  # below _MIN_REGION: deflated with its neighbours


def _share(part: bytes) -> float:
    return tarball._deflated_share(tarball._sample(part, 0, len(part)))


def test_parts_judged_by_entropy_then_by_a_deflated_sample():
    assert [_share(p) >= tarball._STORE_RATIO for p in (NOISE, IDS)] == [True, True]  # stored: deflate saves nothing
    # low entropy settles these without a probe
    assert [_share(p) for p in (FEW, TEXT)] == [0.0, 0.0]
    # REPEATS' bytes look random one by one, the probe sees the repeats
    assert tarball._entropy(tarball._sample(REPEATS, 0, len(REPEATS))) > tarball._ENTROPY_SCREEN
    assert _share(REPEATS) < tarball._STORE_FLOOR
    # sorted dictIds save a little: stored only within the budget
    assert tarball._STORE_FLOOR <= _share(SORTED_IDS) < tarball._STORE_RATIO


def _files(parts=None):
    psf = [MARKER, NOISE, MARKER, SORTED_IDS, MARKER, TINY, MARKER, IDS, MARKER, TEXT, MARKER, FEW]
    return {"v3/columns.psf": parts if parts is not None else psf, "v3/index_map": [b"a.forward_index = 8\n"],
            "v3/metadata.properties": b"segment.name = seg\n"}


def _stream(files) -> bytes:
    return b"".join(bytes(memoryview(b).cast("B")) for b in tarball.tar_stream("seg", ["v3/"], files, 1234))


def test_stored_stretches_are_the_parts_that_do_not_compress():
    files = _files()
    stream = _stream(files)
    stored = tarball._incompressible(tarball._members("seg", ["v3/"], files, 1234))
    assert [stream[start:end] for start, end in stored] == [NOISE, IDS]


def _untarred(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _joined(files) -> dict[str, bytes]:
    return {f"seg/{name}": content if isinstance(content, bytes) else b"".join(content)
            for name, content in files.items()}


def _found(part: bytes, data: bytes) -> float:
    """The share of 1000-byte slices of ``part`` (every 10 kB) found as they are in ``data``."""
    slices = [part[start : start + 1000] for start in range(0, len(part) - 1000, 10_000)]
    return sum(piece in data for piece in slices) / len(slices)


# random bytes of 150 or 200 values: deflate saves ~9% and ~4% of them
SAVES_9 = RNG.integers(0, 150, 200_000, dtype=np.uint8).tobytes()
SAVES_4 = RNG.integers(0, 200, 200_000, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("budget, expected",
                         [(0, []), (1.2, ["SAVES_4"]), (3, ["SAVES_4"]), (4, ["SAVES_9", "SAVES_4"])])
def test_parts_that_save_little_are_stored_within_the_budget(monkeypatch, budget, expected):
    # budget: in units of what storing SAVES_4 adds by its samples (SAVES_9 adds ~2.5 units). The least
    # compressible part goes first: at 3 units either would fit alone, SAVES_4 is the one stored
    files = {"v3/columns.psf": [SAVES_9, MARKER, TEXT, MARKER, SAVES_4, MARKER, NOISE]}
    stream = _stream(files)
    added = len(SAVES_4) * (1 - _share(SAVES_4))
    assert 2 * added < len(SAVES_9) * (1 - _share(SAVES_9)) < 2.8 * added
    monkeypatch.setattr(tarball, "_STORE_BUDGET", budget * added / len(stream))
    stored = tarball._incompressible(tarball._members("seg", ["v3/"], files, 1234))
    parts = {"SAVES_9": SAVES_9, "SAVES_4": SAVES_4}
    assert [stream[start:end] for start, end in stored] == [parts[name] for name in expected] + [NOISE]


def test_stored_parts_are_in_the_tarball_as_they_are(tmp_path):
    files = _files()
    path = tmp_path / "seg.tar.gz"
    size = tarball.write_tarball(path, "seg", ["v3/"], files, 1234)
    data = path.read_bytes()
    assert size == len(data)
    # stored blocks hold up to 65,535 bytes each as they are (a 1000-byte slice may straddle two blocks)
    assert _found(NOISE, data) > 0.9 and _found(IDS, data) > 0.9
    assert _found(SORTED_IDS, data) == _found(TEXT, data) == _found(FEW, data) == 0
    assert TINY[:1000] not in data and TINY[-1000:] not in data  # not judged: deflated, Huffman-coded
    assert zlib.decompress(data, wbits=31) == _stream(files)  # one gzip member
    assert _untarred(data) == _joined(files)


@pytest.mark.parametrize("window", [4 << 20, 100_000, 65_536])
def test_same_bytes_for_any_thread_count_in_memory_or_spilled(tmp_path, monkeypatch, window):
    # windows smaller than the parts cut stored and deflated stretches; slices judge a part piece by piece
    monkeypatch.setattr(tarball, "GZIP_CHUNK", window)
    monkeypatch.setattr(tarball, "_REGION_SLICE", 200_000)
    files = _files()
    outputs = []
    for threads in (1, 2, 4):
        path = tmp_path / f"{threads}.tar.gz"
        tarball.write_tarball(path, "seg", ["v3/"], files, 1234, threads)
        outputs.append(path.read_bytes())
    with Spill(tmp_path / "spill") as spill:
        spilled = _files([spill.hold(p) if len(p) > 8 else p for p in files["v3/columns.psf"]])
        for threads in (1, 4):
            path = tmp_path / f"spilled{threads}.tar.gz"
            tarball.write_tarball(path, "seg", ["v3/"], spilled, 1234, threads)
            outputs.append(path.read_bytes())
    assert all(output == outputs[0] for output in outputs)
    assert zlib.decompress(outputs[0], wbits=31) == _stream(files)
    assert _untarred(outputs[0]) == _joined(files)


def test_a_part_judged_slice_by_slice(monkeypatch):
    monkeypatch.setattr(tarball, "_REGION_SLICE", 150_000)
    mixed = NOISE + TEXT[:150_000] + NOISE[:150_000]  # 600 kB: four slices of 150 kB
    files = {"v3/columns.psf": [mixed]}
    stream = _stream(files)
    stored = tarball._incompressible(tarball._members("seg", ["v3/"], files, 1234))
    assert [stream[start:end] for start, end in stored] == [NOISE, NOISE[:150_000]]


def test_stretches_of_a_window():
    def stretches(stored, offset, length, history):
        return [(s.start, s.end, s.stored, s.primer) for s in tarball._stretches(stored, offset, length, history)]

    # a marker between two stored parts is stored with them; the rest is deflated, unprimed after stored bytes
    assert stretches([(0, 100_000), (100_008, 200_000)], 0, 300_000, 0) == [
        (0, 200_000, True, 0), (200_000, 300_000, False, 0)]
    # a tiny stretch is deflated when nothing in its window is stored
    assert stretches([], 0, 100, 0) == [(0, 100, False, 0)]
    assert stretches([], 0, 0, 0) == [(0, 0, False, 0)]
    # primed with the previous window's tail, but not with stored bytes
    assert stretches([(50_000, 60_000)], 100_000, 100_000, 32_768) == [(0, 100_000, False, 32_768)]
    assert stretches([(90_000, 110_000)], 100_000, 100_000, 32_768) == [
        (0, 10_000, True, 0), (10_000, 100_000, False, 0)]
    assert stretches([(80_000, 90_000)], 100_000, 100_000, 32_768) == [(0, 100_000, False, 10_000)]
    assert stretches([(120_000, 130_000)], 100_000, 100_000, 32_768) == [
        (0, 20_000, False, 32_768), (20_000, 30_000, True, 0), (30_000, 100_000, False, 0)]
    # a stored part across the window's end, and one starting after it
    assert stretches([(150_000, 400_000), (500_000, 600_000)], 100_000, 100_000, 32_768) == [
        (0, 50_000, False, 32_768), (50_000, 100_000, True, 0)]


@pytest.mark.parametrize("length", [0, 1, 65_535, 65_536, 200_000])
def test_stored_blocks_decode(length):
    data = NOISE[:length]
    views = [memoryview(data)[:7], memoryview(data)[7:]] if length > 7 else [memoryview(data)]
    body = b"".join(tarball._stored_blocks(views, last=True))
    assert len(body) == length + 5 * max(1, -(-length // 65_535))
    decoder = zlib.decompressobj(-15)
    assert decoder.decompress(body) == data and decoder.eof
    unfinished = zlib.decompressobj(-15)
    assert unfinished.decompress(b"".join(tarball._stored_blocks(views, last=False))) == data
    assert not unfinished.eof


def test_a_spilled_part_is_sampled_as_in_memory(tmp_path):
    with Spill(tmp_path) as spill:
        spill.hold(TEXT[:999])  # the span starts inside the file
        span = spill.hold(IDS)
        for start, end in [(0, len(IDS)), (1000, 9000), (12_345, len(IDS) - 7)]:
            assert tarball._sample(span, start, end) == tarball._sample(IDS, start, end)
        with pytest.raises(ValueError, match="outside a span"):
            span.read(len(IDS) - 10, 11)



def test_a_window_of_spilled_bytes_is_one_buffer(tmp_path):
    # ISA-L deflates each stretch in one call: a window holding spilled bytes is read into one buffer (no join)
    with Spill(tmp_path) as spill:
        items = [MARKER, spill.hold(NOISE), MARKER, spill.hold(TEXT), b"", TINY]
        windows = list(tarball._windows(items, 250_000))
        stream = MARKER + NOISE + MARKER + TEXT + TINY
        assert [len(w) for w in windows] == [1] * len(windows)
        assert b"".join(bytes(v) for w in windows for v in w) == stream
        assert [sum(map(len, w)) for w in windows] == [250_000, len(stream) - 250_000]
    # held in memory: views of the items as given, cut where they were
    windows = list(tarball._windows([MARKER, NOISE, TINY], 250_000))
    assert [[len(v) for v in w] for w in windows] == [[8, 249_992], [50_008, 5_000]]
    assert list(tarball._windows([NOISE[:100]], 100)) == [[memoryview(NOISE[:100])], []]


def test_a_span_read_into_a_buffer(tmp_path, monkeypatch):
    with Spill(tmp_path) as spill:
        spill.hold(TEXT[:999])
        span = spill.hold(IDS)
        target = bytearray(5000)
        span.read_into(memoryview(target), 1234)
        assert bytes(target) == IDS[1234:6234]
        monkeypatch.delattr("os.preadv")  # where it does not exist: read, then copied in
        span.read_into(memoryview(target)[:100], len(IDS) - 100)
        assert bytes(target[:100]) == IDS[-100:]
        with pytest.raises(ValueError, match="outside a span"):
            span.read_into(memoryview(target), len(IDS) - 10)


@pytest.mark.parametrize("threads", [1, 2])
def test_without_isal_parallel_compress(tmp_path, monkeypatch, threads):
    # python-isal's _ParallelCompress is private: where it is missing, the public compressobj deflates and the
    # CRC is taken over the stream, and the tarball is the same files (a few bytes apart: ISA-L cut elsewhere)
    monkeypatch.setattr(tarball, "GZIP_CHUNK", 200_000)
    files = _files()
    tarball.write_tarball(tmp_path / "new.tar.gz", "seg", ["v3/"], files, 1234, threads)
    monkeypatch.setattr(tarball, "_PARALLEL", None)
    tarball.write_tarball(tmp_path / "old.tar.gz", "seg", ["v3/"], files, 1234, threads)
    new, old = (tmp_path / "new.tar.gz").read_bytes(), (tmp_path / "old.tar.gz").read_bytes()
    assert zlib.decompress(new, wbits=31) == zlib.decompress(old, wbits=31) == _stream(files)
    assert new != old  # two paths (the new one ends with an empty final stored block)
    assert new[-8:] == old[-8:]  # the same CRC-32 and length, combined from the windows or not
    assert abs(len(new) - len(old)) < 0.01 * len(old)


def test_an_output_over_its_buffer_falls_back(tmp_path, monkeypatch):
    class Overflowing:
        def __init__(self, size, level):
            pass

        def compress_and_crc(self, data, zdict):
            raise OverflowError("Compressed output exceeds buffer size")

    monkeypatch.setattr(tarball, "GZIP_CHUNK", 200_000)
    files = _files()
    monkeypatch.setattr(tarball, "_PARALLEL", Overflowing)
    tarball.write_tarball(tmp_path / "seg.tar.gz", "seg", ["v3/"], files, 1234, 2)
    assert zlib.decompress((tmp_path / "seg.tar.gz").read_bytes(), wbits=31) == _stream(files)


class _Renamed:  # a later python-isal whose private class takes other arguments
    def __init__(self, buffersize, level, threads):
        pass


class _NoCrc:  # or returns the output without the CRC-32
    def __init__(self, size, level):
        pass

    def compress_and_crc(self, data, zdict):
        return isal_deflate_sync(data, zdict), 0


def isal_deflate_sync(data, zdict):
    compressor = zlib.compressobj(1, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=zdict)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


@pytest.mark.parametrize("changed", [_Renamed, _NoCrc, None])
def test_a_changed_private_compressor_is_not_used(monkeypatch, changed):
    """_ParallelCompress is checked once at import: a release where it takes other arguments or gives other
    results makes the tarball take the public path rather than fail every write or write a wrong CRC."""
    monkeypatch.setattr(tarball, "_PARALLEL", changed)
    assert tarball._parallel_works() is False


def test_the_installed_private_compressor_passes_its_check():
    if getattr(tarball.isal_zlib, "_ParallelCompress", None) is None:
        pytest.skip("this python-isal (or plain zlib) has no _ParallelCompress: the public path is the only one")
    assert tarball._parallel_works() is True and tarball._PARALLEL is not None
