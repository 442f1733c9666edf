"""The tarball's codec (build.tar-codec): gzip, LZ4 (framed) and Zstandard hold the same tar stream, each starts
with the magic number Pinot's TarCompressionUtils chooses its decompressor by, and our reader and the test
controller read each back; a truncated one is a clear error."""
from __future__ import annotations

import io
import tarfile

import pyarrow as pa
import pytest

from fake_controller import ApiError, _read_segment
from pinot_sink.options import OptionError, WriteOptions
from pinot_sink.segment import build_segment, tarball
from pinot_sink.segment.builder import BuildOptions
from pinot_sink.segment.read.decoders import SegmentFormatError
from pinot_sink.segment.read.reader import SegmentReader
from pinot_sink.segment.spill import Spill
from pinot_sink.segment.read.tar_source import open_tar
from pinot_sink.segment.tar_codecs import CODECS, codec_of
from type_mapping.pinot_schema import PinotSchema
from type_mapping.stored import PinotColumns
from type_mapping.table_config import TableConfig

SCHEMA = PinotSchema.from_json({
    "schemaName": "t",
    "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"}, {"name": "id", "dataType": "INT"}],
})
CONFIG = {"tableName": "t_OFFLINE", "tableIndexConfig": {"invertedIndexColumns": ["city"]}}
ROWS = pa.table({"city": pa.array([f"c{i % 97}" for i in range(20_000)]),
                 "id": pa.array(range(20_000), pa.int32())})
MAGIC = {"gzip": "1f8b", "lz4": "04224d18", "zstd": "28b52ffd"}


def _untarred(path) -> dict[str, bytes]:
    with open_tar(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("codecs")
    return {codec: build_segment(PinotColumns(ROWS, {}), SCHEMA, TableConfig.from_json(CONFIG, SCHEMA), out / codec, "s", 0,
                                 BuildOptions(tar_codec=codec)) for codec in CODECS}


@pytest.mark.parametrize("codec", CODECS)
def test_each_codec_holds_the_same_segment_under_its_magic_number(built, codec):
    data = built[codec].tar_path.read_bytes()
    assert data[:len(MAGIC[codec]) // 2].hex() == MAGIC[codec] and codec_of(data) == codec
    assert built[codec].tar_path.name == "s.tar.gz"  # one name whatever the codec (tar_codecs.py)
    assert built[codec].tar_bytes == len(data)
    assert _untarred(built[codec].tar_path) == _untarred(built["gzip"].tar_path)
    assert built[codec].crc == built["gzip"].crc


@pytest.mark.parametrize("codec", CODECS)
def test_our_reader_and_the_test_controller_read_each_codec(built, codec):
    with SegmentReader(str(built[codec].tar_path)) as reader:
        assert reader.read().table.sort_by("id").select(["city", "id"]).equals(ROWS)
    properties, _ = _read_segment(built[codec].tar_path.read_bytes(), full=True, strict=True)
    assert properties["segment.name"] == "s"


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_spilled_parts_give_the_same_bytes(tmp_path, codec):
    parts = [b"head", bytes(range(256)) * 400, b"x" * 70_000]
    in_memory = tmp_path / "m.tar.gz"
    tarball.write_tarball(in_memory, "seg", ["v3/"], {"v3/columns.psf": parts}, 1234, codec=codec)
    with Spill(tmp_path / "spill") as spill:
        spilled = tmp_path / "s.tar.gz"
        tarball.write_tarball(spilled, "seg", ["v3/"], {"v3/columns.psf": [spill.hold(p) for p in parts]}, 1234,
                              codec=codec)
    assert spilled.read_bytes() == in_memory.read_bytes()
    assert _untarred(spilled) == {"seg/v3/columns.psf": b"".join(parts)}


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_a_truncated_tarball_is_a_clear_error(built, tmp_path, codec):
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(built[codec].tar_path.read_bytes()[:-100])
    with pytest.raises((SegmentFormatError, FileNotFoundError)):
        SegmentReader(str(cut)).read()
    with pytest.raises(tarfile.ReadError, match=codec):
        open_tar(io.BytesIO(cut.read_bytes()))
    with pytest.raises(ApiError, match="cannot untar"):
        _read_segment(cut.read_bytes(), full=True, strict=True)


def test_the_option():
    base = {"table-name": "t", "output-uri": "/tmp/x"}
    assert WriteOptions.parse(base).build.tar_codec == "gzip"
    assert WriteOptions.parse({**base, "build.tar-codec": "ZSTD"}).build.tar_codec == "zstd"
    with pytest.raises(OptionError, match=r"option 'build.tar-codec': 'brotli' is not one of gzip, lz4, zstd"):
        WriteOptions.parse({**base, "build.tar-codec": "brotli"})


class _OneWay(io.RawIOBase):
    """A stream that cannot seek (a remote file read as it comes)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("codec", CODECS)
def test_metadata_is_read_from_each_codec_by_path_and_from_a_stream(built, codec):
    """A metadata push and a window replace of a folder read a tarball's metadata.properties (storage.tarballs)."""
    from pinot_sink.controller.push import metadata_tarball
    from pinot_sink.storage.tarballs import metadata_files, tarball_time_range

    path = built[codec].tar_path
    by_path = metadata_files(path)
    assert set(by_path) == {"metadata.properties", "creation.meta"}
    assert metadata_files(_OneWay(path.read_bytes())) == by_path == metadata_files(built["gzip"].tar_path)
    assert tarball_time_range(path) == (-1, -1)
    assert metadata_tarball(path)[0] == "s"
