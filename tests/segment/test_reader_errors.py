"""Malformed segments give clear errors naming the file and column; tarballs are extracted safely."""
from __future__ import annotations

import io
import os
import pathlib
import shutil
import struct
import tarfile
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinot_sink.segment.read import decoders
from pinot_sink.segment.read.reader import SegmentFormatError, open_segment, read_segment
from pinot_sink.segment.read.tar_source import extract_all


@pytest.fixture(params=["whole, own headers", "whole by ISA-L", "whole, tarfile's headers", "streamed"])
def tar_path(request, monkeypatch):
    """Each way ``load_tarball`` reads a local gzip tarball: inflated whole (by libdeflate, or by ISA-L
    without it) with its headers read by ``_plain_headers`` or (anything but a plain header) by tarfile, or
    streamed (larger than ``WHOLE_INFLATE_MAX``, past the budget): the same members and the same refusals."""
    from pinot_sink.segment.read import tar_source

    if request.param == "whole by ISA-L":
        monkeypatch.setattr(tar_source, "_libdeflate", None)
    elif request.param == "whole, tarfile's headers":
        monkeypatch.setattr(tar_source, "_plain_headers", lambda data: None)
    elif request.param == "streamed":
        monkeypatch.setattr(tar_source, "WHOLE_INFLATE_MAX", 0)
    return request.param


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Point tempfile at an empty dir so a test can see what the reader leaves behind."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def _extract(tarball, into):
    with tarfile.open(tarball) as tar:
        top = tar.getnames()[0].split("/")[0]
        extract_all(tar, into)
    return into / top


def test_tarball_is_read_in_memory_and_spills_past_the_budget(pinot_built, private_tmp, monkeypatch):
    """A tarball's members are held in memory (no temp folder); past the budget they go to a temp folder,
    read the same and removed on close."""
    from pinot_sink.segment.read import tar_source

    tarball = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    with open_segment(tarball) as reader:
        assert os.listdir(private_tmp) == []
        in_memory, crcs = reader.read().table, reader.compute_crcs()
    assert crcs[0] == reader.metadata.crc
    monkeypatch.setattr(tar_source, "MEMORY_BUDGET", 2000)  # metadata in memory, columns.psf spilled
    with open_segment(tarball) as reader:
        assert len(os.listdir(private_tmp)) == 1
        assert reader.read().table.equals(in_memory)
        assert reader.compute_crcs() == crcs
    assert os.listdir(private_tmp) == []


def test_directory_and_tarball_read_the_same(pinot_built, tmp_path):
    tarball = pinot_built / "all_types_dict_v1" / "all_types_dict_v1_0.tar.gz"
    from_dir = read_segment(_extract(tarball, tmp_path))
    assert from_dir.table.equals(read_segment(tarball).table)


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _dir(name):
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info, None


def _file(name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


@pytest.mark.parametrize(
    "member",
    [
        _file("seg/../../evil.txt"),
        _file("/tmp/absolute-evil.txt"),
    ],
)
def test_tar_path_traversal_is_rejected(tmp_path, private_tmp, member, tar_path):
    tarball = _tar(tmp_path / "evil.tar.gz", [_dir("seg"), member])
    with pytest.raises(SegmentFormatError, match="unsafe"):
        open_segment(tarball)
    assert os.listdir(private_tmp) == []
    assert not (tmp_path / "evil.txt").exists()


def test_tar_link_escaping_the_root_is_rejected(tmp_path, private_tmp, tar_path):
    link = tarfile.TarInfo("seg/metadata.properties")
    link.type = tarfile.SYMTYPE
    link.linkname = "../../../../etc/passwd"
    tarball = _tar(tmp_path / "link.tar.gz", [_dir("seg"), (link, None)])
    with pytest.raises(SegmentFormatError, match="unsafe"):
        open_segment(tarball)
    assert os.listdir(private_tmp) == []


def test_missing_metadata_is_named(tmp_path, private_tmp, tar_path):
    tarball = _tar(tmp_path / "empty.tar.gz", [_dir("seg"), _file("seg/creation.meta", bytes(24))])
    with pytest.raises(SegmentFormatError, match="metadata.properties is missing"):
        open_segment(tarball)
    assert os.listdir(private_tmp) == []


def test_v3_wrong_magic_names_column(pinot_built, tmp_path):
    segment = _extract(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz", tmp_path)
    psf = segment / "v3" / "columns.psf"
    data = bytearray(psf.read_bytes())
    offset = _index_map_offset(segment, "s", "dictionary")
    data[offset] ^= 0xFF
    psf.write_bytes(bytes(data))
    with open_segment(segment) as reader:
        reader.values("i")  # other columns still read
        with pytest.raises(SegmentFormatError, match=r"magic marker .* s\.dictionary"):
            reader.values("s")


def test_v3_entry_outside_file(pinot_built, tmp_path):
    segment = _extract(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz", tmp_path)
    index_map = segment / "v3" / "index_map"
    text = index_map.read_text().replace("b.dictionary.size = 16", "b.dictionary.size = 99999999")
    index_map.write_text(text)
    with pytest.raises(SegmentFormatError, match="b.dictionary .* outside"):
        open_segment(segment)


def _index_map_offset(segment, column, index):
    for line in (segment / "v3" / "index_map").read_text().splitlines():
        if line.startswith(f"{column}.{index}.startOffset"):
            return int(line.split("=")[1])
    raise AssertionError("no such entry")


def test_v1_dictionary_size_mismatch(pinot_segments, tmp_path):
    segment = _extract(pinot_segments / "paddingNull.tar.gz", tmp_path)
    (segment / "age.dict").write_bytes((segment / "age.dict").read_bytes()[:-1])
    with open_segment(segment) as reader:
        with pytest.raises(SegmentFormatError, match=r"column 'age' dictionary .*age\.dict.*19 bytes"):
            reader.values("age")


def test_v1_forward_index_truncated(pinot_built, tmp_path):
    segment = _extract(pinot_built / "all_types_dict_v1" / "all_types_dict_v1_0.tar.gz", tmp_path)
    forward = segment / "ms.mv.fwd"
    forward.write_bytes(forward.read_bytes()[:-3])
    with open_segment(segment) as reader:
        with pytest.raises(SegmentFormatError, match=r"column 'ms' forward_index .*ms\.mv\.fwd"):
            reader.values("ms")


def test_v1_missing_forward_file(pinot_built, tmp_path):
    segment = _extract(pinot_built / "all_types_dict_v1" / "all_types_dict_v1_0.tar.gz", tmp_path)
    (segment / "b.sv.unsorted.fwd").unlink()
    with open_segment(segment) as reader:
        with pytest.raises(SegmentFormatError, match=r"column 'b' forward_index \(b\.sv\.unsorted\.fwd\): the index is missing"):
            reader.values("b")


def test_dict_id_beyond_cardinality_names_the_entry():
    packed = np.packbits(np.array([0, 1, 1, 1], dtype=np.uint8))  # 2-bit ids: 0b01, 0b11 -> 1, 3
    with pytest.raises(SegmentFormatError, match="entry 1 has dictId 3 >= cardinality 3"):
        decoders.decode_unsorted_sv_forward(packed.tobytes(), 2, 2, 3, "column 'x' forward_index")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 32), st.data())
def test_unpack_bits_matches_a_bit_string(bits, data):
    values = data.draw(st.lists(st.integers(0, 2**bits - 1), max_size=50))
    bit_string = "".join(format(v, f"0{bits}b") for v in values)
    bit_string += "0" * (-len(bit_string) % 8)
    packed = bytes(int(bit_string[i:i + 8], 2) for i in range(0, len(bit_string), 8))
    got = decoders.unpack_bits(packed, bits, len(values), "test").astype(np.int64) & 0xFFFFFFFF
    assert got.tolist() == values


@pytest.mark.parametrize(
    "scale, unscaled, text",
    [(0, 0, "0"), (1, 15, "1.5"), (1, -5, "-0.5"), (-3, 1, "1E+3"), (7, 1, "1E-7"), (6, 1, "0.000001"),
     (9, -12345678901234567890123456789, "-12345678901234567890.123456789"), (0, 2**70, str(2**70))],
)
def test_big_decimal_text_follows_java_tostring(scale, unscaled, text):
    body = unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)
    assert decoders.big_decimal_text(struct.pack(">h", scale) + body) == text


def test_var_length_dictionary_bad_offsets():
    buf = b".vl;" + struct.pack(">iii", 1, 2, 16) + struct.pack(">iii", 28, 40, 29) + b"abc"
    with pytest.raises(SegmentFormatError, match="column 'x' dictionary: var-length offsets"):
        decoders.decode_dictionary(buf, "BYTES", 2, 3, "column 'x' dictionary")


def test_copy_of_tarball_without_gzip_is_read(pinot_built, tmp_path):
    """Any tar flavour works (the controller auto-detects the compressor)."""
    plain = tmp_path / "plain.tar"
    with tarfile.open(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz") as src, tarfile.open(plain, "w") as dst:
        for member in src.getmembers():
            dst.addfile(member, src.extractfile(member) if member.isfile() else None)
    assert read_segment(plain).table.num_rows == 300
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT])
def test_long_member_names_are_read_from_the_stream(fmt, tmp_path, tar_path):
    """A segment name past tar's 100 characters is carried by a pax or GNU long-name header, which the in-memory
    loader reads from the stream as tarfile does."""
    from pinot_sink.segment.read.tar_source import load_tarball

    name = "t_" + "x" * 150
    payload = bytes(range(256)) * 20
    path = tmp_path / "long.tar.gz"
    with tarfile.open(path, "w:gz", format=fmt) as tar:
        top = tarfile.TarInfo(name)
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        for member, data in (("v3/metadata.properties", b"a=b\n"), ("v3/columns.psf", payload)):
            info = tarfile.TarInfo(f"{name}/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    files = load_tarball(path)
    try:
        assert sorted(files.names()) == ["v3/columns.psf", "v3/metadata.properties"]
        assert bytes(files.view("v3/columns.psf")) == payload and files.read("v3/metadata.properties") == b"a=b\n"
    finally:
        files.close()


@pytest.mark.parametrize("data_filter", [True, False], ids=["tarfile's data filter", "a Python without it"])
def test_extraction_refuses_links_and_escapes_with_or_without_tarfiles_data_filter(tmp_path, pinot_built,
                                                                                   monkeypatch, data_filter):
    """``extract_all`` uses tarfile's ``data`` filter where Python has it (3.10.12+, 3.11.4+) and makes the
    same refusals itself where it does not (Debian 12's 3.11.2): a link or a member leaving the folder is an
    unsafe tarball either way, and a good one extracts the same files."""
    from pinot_sink.segment.read import tar_source

    if data_filter and not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no data filter")
    monkeypatch.setattr(tar_source, "_HAS_DATA_FILTER", data_filter)
    link = tarfile.TarInfo("seg/metadata.properties")
    link.type = tarfile.SYMTYPE
    link.linkname = "../../../../etc/passwd"
    for name, members in (("link", [_dir("seg"), (link, None)]), ("escape", [_dir("seg"), _file("seg/../../x")])):
        tarball = _tar(tmp_path / f"{name}.tar.gz", members)
        with tarfile.open(tarball) as tar, pytest.raises(SegmentFormatError, match="unsafe"):
            tar_source.extract_all(tar, tmp_path / f"{name}_out")
        assert not (tmp_path / "x").exists() and not (tmp_path / f"{name}_out" / "seg" / "metadata.properties").exists()
    with tarfile.open(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz") as tar:
        tar_source.extract_all(tar, tmp_path / "good")
    assert sorted(p.name for p in (tmp_path / "good").rglob("*")) == [
        "all_types_dict_0", "columns.psf", "creation.meta", "index_map", "metadata.properties", "v3"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=12), min_size=1, max_size=30), st.integers(0, 3), st.booleans())
def test_bytes_read_as_strings_as_javas_new_string_reads_them(values, cut, large):
    """ASCII values are taken as they are (the fast path), any other bytes validated, malformed sequences
    replaced by U+FFFD as ``new String(bytes, UTF_8)`` does; slices too."""
    import pyarrow as pa

    raw = pa.array(values, pa.large_binary() if large else pa.binary()).slice(min(cut, len(values) - 1))
    strings = decoders.binary_to_utf8(raw, "t")
    assert strings.to_pylist() == [v.decode("utf-8", decoders.JAVA_UTF8_REPLACE) for v in raw.to_pylist()]
    strings.validate(full=True)


def test_malformed_utf8_reads_as_javas_new_string_reads_it():
    """Java 17.0.15's ``new String(bytes, StandardCharsets.UTF_8)`` of 636 byte strings (1-6 bytes among lead,
    continuation and invalid bytes; UTF-16 code units in hex), kept in tests/fixtures/java/utf8_new_string.jsonl:
    Python's ``replace`` differs at ED A0..BF (a surrogate, as CESU-8 writes one: 3 U+FFFD where Java puts 1)."""
    import json

    import pyarrow as pa

    fixture = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "java" / "utf8_new_string.jsonl"
    cases = [json.loads(line) for line in fixture.read_text().splitlines()]
    raw = pa.array([bytes.fromhex(c["bytes"]) for c in cases], pa.binary())
    java = [bytes.fromhex(c["java"]).decode("utf-16-be") for c in cases]
    assert decoders.binary_to_utf8(raw, "t").to_pylist() == java
    assert decoders.binary_to_utf8(pa.array([b"\xed\xa0\xbd\xed\xb8\x80"]), "t").to_pylist() == ["\ufffd\ufffd"]


def test_strings_with_offsets_out_of_their_data_are_not_taken_as_ascii():
    import pyarrow as pa

    offsets = np.array([0, 3, 2, 4], dtype=np.int32)  # falling: not a sound array, whatever its bytes
    bad = pa.BinaryArray.from_buffers(pa.binary(), 3, [None, pa.py_buffer(offsets), pa.py_buffer(b"abcd")])
    assert not decoders._ascii_with_sound_offsets(bad.view(pa.string()))
    good = pa.BinaryArray.from_buffers(pa.binary(), 3, [None, pa.py_buffer(np.array([0, 1, 3, 4], np.int32)),
                                                       pa.py_buffer(b"abcd")])
    assert decoders._ascii_with_sound_offsets(good.view(pa.string()))
    assert not decoders._ascii_with_sound_offsets(pa.array(["a", "\u00e9"]))


def _inflated(tarball) -> bytes:
    import gzip

    return gzip.decompress(pathlib.Path(tarball).read_bytes())


def _as_tarfile_reads(members):
    return [(m.name, m.isfile(), m.isdir(), m.size if m.isfile() else 0, m.offset_data) for m in members]


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT])
def test_plain_tar_headers_are_read_as_tarfile_reads_them(pinot_built, tmp_path, fmt):
    """A segment's headers as Pinot's builder writes them, and ustar / GNU ones with owner names and modes,
    give the members tarfile gives: names (a folder's trailing slash dropped), kinds, sizes, data offsets."""
    from pinot_sink.segment.read.tar_source import _plain_headers

    built = _inflated(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz")
    assert _as_tarfile_reads(_plain_headers(built)) == _as_tarfile_reads(tarfile.open(fileobj=io.BytesIO(built)))
    path = tmp_path / "owned.tar"
    with tarfile.open(path, "w", format=fmt) as tar:
        for info, data in (_dir("seg/"), _dir("seg/v3"), _file("seg/v3/a", b"x" * 700), _file("seg/v3/empty", b"")):
            info.uname, info.gname, info.mode, info.mtime = "pinot", "staff", 0o640, 1_700_000_000
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    data = path.read_bytes()
    mine = _plain_headers(data)
    assert mine is not None and len(mine) == 4
    assert _as_tarfile_reads(mine) == _as_tarfile_reads(tarfile.open(fileobj=io.BytesIO(data)))


def _one_member_tar(**change) -> bytes:
    info = tarfile.TarInfo("seg/metadata.properties")
    info.size = 3
    for key, value in change.items():
        setattr(info, key, value)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT if "linkname" in change else
                      tarfile.USTAR_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(b"a=b") if info.isfile() else None)
    return out.getvalue()


@pytest.mark.parametrize("what, data", [
    ("a symbolic link", _one_member_tar(type=tarfile.SYMTYPE, linkname="../x")),
    ("a device", _one_member_tar(type=tarfile.CHRTYPE)),
    ("a name in the ustar prefix", _one_member_tar(name="p" * 120 + "/metadata.properties")),
    ("a pax header", None),
    ("a bad checksum", (lambda d: d[:148] + b"0000000\0" + d[156:])(_one_member_tar())),
    ("a base-256 size", (lambda d: d[:124] + b"\x80" + bytes(8) + (3).to_bytes(3, "big") + d[136:])(
        _one_member_tar())),
    ("an all-zero first block", bytes(1024)),
    ("a short archive", _one_member_tar()[:300]),
])
def test_anything_but_plain_headers_is_left_to_tarfile(what, data):
    """Headers the quick reader does not read as tarfile would are not read by it at all (``None``: tarfile
    reads that tarball, refusing what it refuses)."""
    from pinot_sink.segment.read.tar_source import _plain_headers

    if data is None:  # a pax header: a name past 100 characters, written as pax writes it
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
            info = tarfile.TarInfo("seg/" + "n" * 120)
            tar.addfile(info, io.BytesIO(b""))
        data = out.getvalue()
    assert _plain_headers(data) is None
    assert _plain_headers(_one_member_tar()) is not None  # the same member, plain


def test_a_truncated_gzip_tarball_is_a_clear_error(pinot_built, tmp_path, tar_path):
    """Cut short, corrupt inside the stream, or its CRC wrong: an error on every path; inflated whole, the
    tarball is unreadable (its CRC checked before any member is read), never read as fewer members. (Streamed,
    a stream corrupt before its end can stop tarfile at a bad header first: a member is then missing.)"""
    whole = (pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz").read_bytes()
    for name, data in (("cut", whole[:-100]), ("crc", whole[:-8] + bytes([whole[-8] ^ 1]) + whole[-7:]),
                       ("middle", whole[:2000] + bytes(64) + whole[2064:])):
        path = tmp_path / f"{name}.tar.gz"
        path.write_bytes(data)
        with pytest.raises(SegmentFormatError, match=None if tar_path == "streamed" else "unreadable tarball"):
            read_segment(path)


def test_a_small_gzip_tarball_is_one_buffer_a_large_one_a_buffer_per_member(pinot_built, monkeypatch):
    """The whole-inflate path is the one a small local tarball takes (its members views of one buffer),
    and a larger one streams (a buffer each); both read the same."""
    from pinot_sink.segment.read import tar_source

    tarball = pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz"
    whole = tar_source.load_tarball(tarball)
    monkeypatch.setattr(tar_source, "WHOLE_INFLATE_MAX", 0)
    streamed = tar_source.load_tarball(tarball)
    try:
        names = sorted(whole.names())
        assert names == sorted(streamed.names()) and len(names) >= 3
        assert len({id(whole.view(n).obj) for n in names}) == 1
        assert len({id(streamed.view(n).obj) for n in names}) == len(names)
        assert all(bytes(whole.view(n)) == bytes(streamed.view(n)) for n in names)
    finally:
        whole.close()
        streamed.close()


def test_a_tarball_of_two_gzip_members_is_read_whole(pinot_built, tmp_path, tar_path):
    """A gzip file of two members (a concatenation: the first half of the tar, then the rest), of any sizes,
    even two of the same size: every member is read, as gzip reads such a file (libdeflate alone would
    inflate the first member and stop)."""
    import gzip

    tar = _inflated(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz")
    expected = read_segment(pinot_built / "all_types_dict" / "all_types_dict_0.tar.gz").table
    for cut in (len(tar) // 3, len(tar) // 2, 2 * len(tar) // 3):
        path = tmp_path / f"two_{cut}.tar.gz"
        path.write_bytes(gzip.compress(tar[:cut]) + gzip.compress(tar[cut:]))
        assert read_segment(path).table.equals(expected)


def test_libdeflate_is_trusted_only_with_one_member_that_ends_the_file():
    """``_by_libdeflate`` gives the tar only when its size and CRC-32 are the file's last eight bytes'; else
    ``None`` (ISA-L's inflater then reads it, or refuses it)."""
    import gzip

    from pinot_sink.segment.read import tar_source

    if tar_source._libdeflate is None:
        pytest.skip("libdeflate (the deflate package) is not installed")
    one, other = b"a" * 5000, b"b" * 5000
    assert bytes(tar_source._by_libdeflate(gzip.compress(one), 1 << 20)) == one
    assert tar_source._by_libdeflate(gzip.compress(b"short") + gzip.compress(one), 1 << 20) is None
    assert tar_source._by_libdeflate(gzip.compress(one) + gzip.compress(other), 1 << 20) is None  # same size
    assert tar_source._by_libdeflate(gzip.compress(one) + b"garbage!", 1 << 20) is None
    assert tar_source._by_libdeflate(gzip.compress(one)[:-20], 1 << 20) is None
    assert tar_source._by_libdeflate(gzip.compress(one), 4999) is None  # past the budget
