"""Raw forward index: byte equality with Pinot-built indexes, decoding of every real chunk format, and
round trips over every stored type, SV and MV, every codec, including huge chunks."""
from __future__ import annotations

import json
import struct
import tarfile

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinot_sink.segment import codecs
from pinot_sink.segment import raw_forward as rf
from pinot_sink.segment.properties import parse_properties
from pinot_sink.segment.read.raw_forward import read_raw_forward
from type_mapping.java_text import big_decimal_string as to_java_string
from type_mapping.pinot_schema import FieldSpec, PinotSchema
from type_mapping.stored import arrow_type_for

RAW_CODECS = "raw_codecs"
# Compressed payloads that differ from Pinot's while the decompressed chunk is identical: snappy-java
# (native Snappy) and cramjam (Rust `snap`) make different, equally valid match choices for this chunk.
# Nothing reads compressed bytes except the decompressor, so only CRC parity with Java is affected.
KNOWN_COMPRESSED_DIFFERENCES = {"l"}


def _v3_payloads(tar_path, segment):
    with tarfile.open(tar_path) as tar:
        psf = tar.extractfile(f"{segment}/v3/columns.psf").read()
        index_map = parse_properties(tar.extractfile(f"{segment}/v3/index_map").read())
        metadata = parse_properties(tar.extractfile(f"{segment}/v3/metadata.properties").read())

    def payload(column, index):
        start = int(index_map[f"{column}.{index}.startOffset"])
        size = int(index_map[f"{column}.{index}.size"])
        assert psf[start : start + 8] == bytes.fromhex("deadbeefdeafbead")
        return psf[start + 8 : start + size]

    return payload, metadata


@pytest.fixture(scope="module")
def raw_codecs(pinot_built):
    case = pinot_built / RAW_CODECS
    payload, metadata = _v3_payloads(case / f"{RAW_CODECS}_0.tar.gz", f"{RAW_CODECS}_0")
    schema = PinotSchema.from_json(json.loads((case / "schema.json").read_text()))
    table_config = json.loads((case / "table_config.json").read_text())
    codec_of = {f["name"]: codecs.codec_id(f["compressionCodec"]) for f in table_config["fieldConfigList"]}
    rows = [json.loads(line) for line in (case / "dump-rows.jsonl").read_text().splitlines()]
    rows = [r["values"] for r in rows if r.get("kind") == "row"]
    return payload, metadata, schema, codec_of, rows


def _dump_value(value, spec):
    if spec.stored_type in ("FLOAT", "DOUBLE"):
        return float(value)  # the dump spells infinities as strings
    if spec.stored_type == "BYTES":
        return bytes.fromhex(value)
    return value


def _column(rows, spec):
    if spec.single_value:
        values = [_dump_value(r[spec.name], spec) for r in rows]
    else:
        values = [[_dump_value(v, spec) for v in r[spec.name]] for r in rows]
    return pa.array(values, type=arrow_type_for(spec))


RAW_COLUMNS = ["i", "l", "f", "d", "bd", "b", "ts", "s", "j", "by", "mi", "ml", "mf", "md", "ms"]


@pytest.mark.parametrize("name", RAW_COLUMNS)
def test_pinot_built_raw_column_is_reproduced(raw_codecs, name):
    payload, metadata, schema, codec_of, rows = raw_codecs
    spec = schema[name]
    pinot = payload(name, "forward_index")
    values = _column(rows, spec)
    ours = rf.write_raw_forward(values, spec, codec_of[name], stats=None)
    if name not in KNOWN_COMPRESSED_DIFFERENCES:
        assert ours == pinot
        return
    # Fixed-byte v4: identical header and chunk offsets, identical decompressed chunk, codec bytes differ.
    assert ours[:36] == pinot[:36]
    assert codecs.decompress(codecs.SNAPPY, ours[36:]) == codecs.decompress(codecs.SNAPPY, pinot[36:])
    assert ours != pinot  # if this starts failing, cramjam now matches snappy-java: drop the pin


@pytest.mark.parametrize("name", RAW_COLUMNS)
def test_stats_computed_from_values_equal_pinots(raw_codecs, name):
    _, metadata, schema, _, rows = raw_codecs
    spec = schema[name]
    stats = rf.RawColumnStats.of(_column(rows, spec), spec)

    def key(suffix):
        return int(metadata.get(f"column.{name}.{suffix}", 0))

    if spec.single_value and not spec.is_fixed_width:
        assert stats.length_of_longest_element == key("lengthOfLongestElement")
    if not spec.single_value:
        assert stats.max_number_of_multi_values == key("maxNumberOfMultiValues")
        assert stats.total_number_of_entries == key("totalNumberOfEntries")
        if not spec.is_fixed_width:
            assert stats.max_row_length_in_bytes == key("maxRowLengthInBytes")


@pytest.mark.parametrize("name", RAW_COLUMNS)
def test_pinot_built_raw_column_decodes_to_pinots_values(raw_codecs, name):
    payload, _, schema, _, rows = raw_codecs
    spec = schema[name]
    decoded = read_raw_forward(payload(name, "forward_index"), spec, spec.single_value, len(rows))
    assert decoded.equals(_column(rows, spec))


def test_v4_var_byte_header_facts(raw_codecs):
    """Configured LZ4 is stored as LZ4_LENGTH_PREFIXED (4) in V4; fixed-byte keeps plain LZ4 (3)."""
    payload, *_ = raw_codecs
    version, chunk_size, codec, chunks_start = struct.unpack(">4i", payload("j", "forward_index")[:16])
    assert (version, chunk_size, codec, chunks_start) == (4, 24_000, codecs.LZ4_LENGTH_PREFIXED, 24)
    assert struct.unpack(">7i", payload("d", "forward_index")[:28]) == (4, 1, 1024, 8, 300, codecs.LZ4, 28)


OLD_FORMATS = [
    ("fixedByteSVRDoubles.v1", "DOUBLE", 10009, lambda i: float(i)),
    ("fixedByteCompressed.v2", "DOUBLE", 2000, lambda i: i + 100.2356),
    ("fixedByteRaw.v2", "DOUBLE", 2000, lambda i: i + 100.2356),
    ("varByteStrings.v1", "STRING", 5003, lambda i: ["abcde", "fgh", "ijklmn", "12345"][i % 4]),
    ("varByteStringsCompressed.v2", "STRING", 1000, lambda i: ["abcdefghijk", "12456887", "pqrstuv", "500"][i % 4]),
    ("varByteStringsRaw.v2", "STRING", 1000, lambda i: ["abcdefghijk", "12456887", "pqrstuv", "500"][i % 4]),
]


@pytest.mark.parametrize("file_name, stored, num_docs, expected", OLD_FORMATS)
def test_old_chunk_formats_decode(pinot_segments, file_name, stored, num_docs, expected):
    buf = (pinot_segments / "index-files" / file_name).read_bytes()
    decoded = read_raw_forward(buf, stored, True, num_docs)
    assert decoded.to_pylist() == [expected(i) for i in range(num_docs)]


def test_configured_writer_version_2_reproduces_pinots_v2_files(pinot_segments):
    """Pinot's own v2 test files, rewritten from their values with rawIndexWriterVersion 2."""
    directory = pinot_segments / "index-files"
    doubles = pa.array([i + 100.2356 for i in range(2000)])
    for name, codec in (("fixedByteRaw.v2", codecs.PASS_THROUGH), ("fixedByteCompressed.v2", codecs.SNAPPY)):
        ours = rf.write_raw_forward(doubles, FieldSpec("d", "DOUBLE"), codec, writer_version=2)
        assert ours == (directory / name).read_bytes()
    strings = pa.array([["abcdefghijk", "12456887", "pqrstuv", "500"][i % 4] for i in range(1000)])
    spec = FieldSpec("s", "STRING")
    # deriveNumDocsPerChunk: 1MB / (11 + 4) = 69905 docs per chunk, as in the files' headers
    raw = rf.write_raw_forward(strings, spec, codecs.PASS_THROUGH, writer_version=2, derive_num_docs_per_chunk=True)
    assert raw == (directory / "varByteStringsRaw.v2").read_bytes()
    pinot = (directory / "varByteStringsCompressed.v2").read_bytes()
    ours = rf.write_raw_forward(strings, spec, codecs.SNAPPY, writer_version=2, derive_num_docs_per_chunk=True)
    # one Snappy chunk: same header and table, same decompressed chunk, different (valid) Snappy encoding
    assert ours[:32] == pinot[:32]
    assert codecs.decompress(codecs.SNAPPY, ours[32:]) == codecs.decompress(codecs.SNAPPY, pinot[32:])


@pytest.mark.parametrize("version, expected", [(5, 5), (6, 6), (4, 4)])
def test_multi_value_numbers_use_v5_and_v6_rows_without_count(version, expected):
    spec = FieldSpec("m", "INT", single_value=False)
    values = pa.array([[1, 2], [3]], pa.list_(pa.int32()))
    buf = rf.write_raw_forward(values, spec, codecs.PASS_THROUGH, writer_version=version)
    assert struct.unpack(">i", buf[:4])[0] == expected
    body = buf[24:]  # one regular chunk: [numDocs][offsets][rows]
    row_bytes = len(body) - 4 * 3
    assert row_bytes == (12 if version in (5, 6) else 20)  # 3 ints, plus two counts in V4
    assert read_raw_forward(buf, spec, False, 2).equals(values)


def test_v6_stores_sizes_in_compressed_chunks():
    spec = FieldSpec("s", "STRING")
    values = pa.array(["a", "bbb", "cc"])
    buf = rf.write_raw_forward(values, spec, codecs.ZSTANDARD, writer_version=6)
    chunk = codecs.decompress(codecs.ZSTANDARD, buf[24:])
    assert np.frombuffer(chunk, "<i4", count=4).tolist() == [3, 1, 3, 2]
    assert read_raw_forward(buf, spec, True, 3).equals(values)
    # single-value strings with version 5 stay V4 (SingleValueVarByteRawIndexCreator has no V5)
    assert struct.unpack(">i", rf.write_raw_forward(values, spec, codecs.LZ4, writer_version=5)[:4])[0] == 4


def test_legacy_v4_strings_decode_and_are_reproduced(pinot_segments):
    with tarfile.open(pinot_segments / "legacy" / "legacyRawInverted_OFFLINE_0.tar.gz") as tar:
        pinot = tar.extractfile("legacyRawInverted_OFFLINE_0/category.sv.raw.fwd").read()
    expected = ["alpha" if i % 2 == 0 else {1: "beta", 3: "gamma", 5: "delta"}[i % 6] for i in range(600)]
    assert read_raw_forward(pinot, "STRING", True, 600).to_pylist() == expected
    # Pinot's default LZ4 compression of a DIMENSION column: two chunks, first docIds 0 and 565.
    ours = rf.write_raw_forward(pa.array(expected), FieldSpec("category", "STRING"), codecs.LZ4)
    assert ours == pinot


def test_wrong_doc_count_is_an_error(pinot_segments):
    buf = (pinot_segments / "index-files" / "fixedByteRaw.v2").read_bytes()
    with pytest.raises(rf.RawForwardIndexError, match="2000 docs"):
        read_raw_forward(buf, "DOUBLE", True, 1999)


@pytest.mark.parametrize("codec", sorted(codecs.CODEC_NAMES))
def test_chunk_compressor_equals_compress_for_every_codec(codec):
    """A file's compressor (LZ4 into one output buffer kept between chunks) gives each chunk the bytes ``compress``
    gives it, whatever the chunks before: a small one, then one that outgrows the buffer, then a small one that
    leaves stale bytes past its end, from bytes and from a numpy slice."""
    rng = np.random.default_rng(codec)
    chunks = [b"abc" * 5, rng.integers(0, 4, 200_000, dtype=np.uint8).tobytes(), b"", b"xyz" * 40]
    compress = codecs.ChunkCompressor(codec, length_byte_order="little")
    for chunk in chunks:
        expected = codecs.compress(codec, chunk, length_byte_order="little")
        assert compress(chunk) == expected
        assert compress(np.frombuffer(b"?" + chunk, dtype=np.uint8)[1:]) == expected


@pytest.mark.parametrize("codec", sorted(codecs.CODEC_NAMES))
def test_chunks_decompressed_joined_are_each_chunks_bytes_joined(codec):
    """``decompress_joined`` (raw LZ4 straight into one buffer) gives the bytes of each chunk's ``decompress``
    joined: full chunks, a short last one, an empty one."""
    rng = np.random.default_rng(codec + 10)
    chunks = [rng.integers(0, 4, 8192, dtype=np.uint8).tobytes(), bytes(8192), b"", b"tail" * 100]
    payloads = [memoryview(codecs.compress(codec, chunk)) for chunk in chunks]
    joined = codecs.decompress_joined(codec, payloads, 8192)
    assert bytes(joined) == b"".join(chunks)


@pytest.mark.parametrize("codec", [codecs.PASS_THROUGH, codecs.LZ4, codecs.SNAPPY])
@pytest.mark.parametrize("docs", [1, 1024, 2500])
def test_fixed_byte_numbers_of_several_chunks_read_back(codec, docs):
    """Fixed-byte LONG and DOUBLE columns of one chunk, of whole chunks and a short last one read back as
    written, with every codec path (the chunks as they lie for PASS_THROUGH, one buffer for LZ4)."""
    rng = np.random.default_rng(docs)
    for spec, values in ((FieldSpec("n", "LONG"), pa.array(rng.integers(-2**62, 2**62, docs))),
                         (FieldSpec("d", "DOUBLE"), pa.array(rng.normal(size=docs)))):
        buf = rf.write_raw_forward(values, spec, codec)
        assert struct.unpack(">i", buf[:4])[0] == 4 and struct.unpack(">i", buf[20:24])[0] == codec
        assert read_raw_forward(buf, spec, True, docs).equals(values)


def test_pass_through_chunks_out_of_order_are_still_joined_in_table_order():
    """A PASS_THROUGH file whose chunk table is not in file order (no writer makes one) is read as before:
    each chunk from its offset to the next one's (to the end for the last), joined in table order; only a
    table in file order is read as the bytes lie."""
    spec, values = FieldSpec("n", "LONG"), pa.array(np.arange(2048, dtype=np.int64))
    buf = bytearray(rf.write_raw_forward(values, spec, codecs.PASS_THROUGH))
    table = 28
    first, second = struct.unpack(">2q", buf[table:table + 16])
    body = bytes(buf[first:])
    chunk = second - first
    buf[first:] = body[chunk:] + body[:chunk]  # the chunks' bytes swapped, the table pointing at each
    buf[table:table + 16] = struct.pack(">2q", first + len(body) - chunk, first)
    starts = [first + len(body) - chunk, first]
    ends = [first, len(buf)]  # each chunk runs to the next one's offset
    expected = np.frombuffer(b"".join(bytes(buf[a:b]) for a, b in zip(starts, ends)), dtype=">i8")
    assert read_raw_forward(bytes(buf), spec, True, 2048).to_pylist() == expected.astype(np.int64).tolist()


# --- chunking rules -------------------------------------------------------------------------------


def _v4_table(buf):
    _, chunk_size, codec, chunks_start = struct.unpack(">4i", buf[:16])
    table = np.frombuffer(buf, dtype="<u4", count=(chunks_start - 16) // 4, offset=16).reshape(-1, 2)
    return chunk_size, codec, table


def test_huge_values_get_their_own_flagged_chunks():
    spec = FieldSpec("blob", "BYTES")
    values = [b"a" * 10, b"b" * 2_000_000, b"c" * 10, b"d" * 10]
    buf = rf.write_raw_forward(pa.array(values, pa.binary()), spec, codecs.ZSTANDARD)
    chunk_size, codec, table = _v4_table(buf)
    assert chunk_size == rf.DEFAULT_TARGET_MAX_CHUNK_SIZE  # 2e6 * 1000 overflows int -> targetMaxChunkSize
    assert table[:, 0].tolist() == [0, 1 | rf.HUGE_CHUNK_FLAG, 2]
    assert read_raw_forward(buf, spec, True, 4).to_pylist() == values


def test_regular_chunks_never_exceed_the_target_size():
    spec = FieldSpec("s", "STRING")
    values = pa.array([f"value-{i:06d}" for i in range(5000)])
    buf = rf.write_raw_forward(values, spec, codecs.PASS_THROUGH)
    chunk_size, _, table = _v4_table(buf)
    assert chunk_size == 12_000  # longest value 12 bytes x 1000 docs
    chunks_start = 16 + 8 * len(table)
    ends = list(table[1:, 1]) + [len(buf) - chunks_start]
    sizes = np.array(ends) - table[:, 1]
    assert sizes.max() <= chunk_size
    # greedy: each chunk is full, i.e. the next doc (4 + 12 bytes) would not have fit
    assert (sizes[:-1] + 16 > chunk_size).all()


def test_target_settings_from_the_table_config_change_chunking():
    spec = FieldSpec("n", "INT")
    buf = rf.write_raw_forward(pa.array(np.arange(3000, dtype=np.int32)), spec, codecs.PASS_THROUGH,
                               target_docs_per_chunk=300)
    assert struct.unpack(">7i", buf[:28])[1:3] == (6, 512)  # 300 -> 512 docs per chunk, 6 chunks


def test_errors_name_the_column():
    with pytest.raises(rf.RawForwardIndexError, match="'price'"):
        rf.write_raw_forward(pa.array([1.0, 2.0]), FieldSpec("price", "INT"), codecs.PASS_THROUGH)
    with pytest.raises(rf.RawForwardIndexError, match="'delta'.*codec id 6"):
        rf.write_raw_forward(pa.array([1, 2], pa.int32()), FieldSpec("delta", "INT"), 6)
    with pytest.raises(rf.RawForwardIndexError, match="'amount'.*value 1 'abc'"):
        rf.write_raw_forward(pa.array(["1.5", "abc"]), FieldSpec("amount", "BIG_DECIMAL"), codecs.LZ4)


def test_sliced_and_chunked_inputs_write_the_same_bytes():
    spec = FieldSpec("tags", "STRING", single_value=False)
    full = pa.array([["x"], ["a", "bb"], ["ccc"], [""], ["dd", "e", "f"]], pa.list_(pa.string()))
    sliced = full.slice(1, 3)
    plain = pa.array([["a", "bb"], ["ccc"], [""]], pa.list_(pa.string()))
    assert rf.write_raw_forward(sliced, spec, codecs.SNAPPY) == rf.write_raw_forward(plain, spec, codecs.SNAPPY)
    chunked = pa.chunked_array([plain.slice(0, 1), plain.slice(1)])
    assert rf.write_raw_forward(chunked, spec, codecs.SNAPPY) == rf.write_raw_forward(plain, spec, codecs.SNAPPY)


# --- round trips ------------------------------------------------------------------------------------

WRITABLE_CODECS = [codecs.PASS_THROUGH, codecs.SNAPPY, codecs.ZSTANDARD, codecs.LZ4, codecs.GZIP]

_finite_doubles = st.floats(allow_nan=False, width=64)
_VALUE_STRATEGIES = {
    "INT": st.integers(-(2**31), 2**31 - 1),
    "LONG": st.integers(-(2**63), 2**63 - 1),
    "FLOAT": st.floats(allow_nan=False, width=32),
    "DOUBLE": _finite_doubles,
    "STRING": st.text(max_size=40) | st.text(min_size=3000, max_size=6000),  # large ones go "huge"
    "BYTES": st.binary(max_size=40) | st.binary(min_size=3000, max_size=6000),
    "BIG_DECIMAL": st.builds(
        lambda unscaled, scale: to_java_string((unscaled, scale)),
        st.integers(-(10**30), 10**30), st.integers(-40, 40),
    ),
}


@st.composite
def _columns(draw):
    data_type = draw(st.sampled_from(list(_VALUE_STRATEGIES)))
    single_value = data_type == "BIG_DECIMAL" or draw(st.booleans())
    spec = FieldSpec("c", data_type, single_value=single_value)
    values = _VALUE_STRATEGIES[data_type]
    if single_value:
        rows = draw(st.lists(values, min_size=1, max_size=60))
    else:
        rows = draw(st.lists(st.lists(values, min_size=1, max_size=6), min_size=1, max_size=40))
    return spec, pa.array(rows, type=arrow_type_for(spec))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_columns(), st.sampled_from(WRITABLE_CODECS), st.sampled_from([4096, rf.DEFAULT_TARGET_MAX_CHUNK_SIZE]),
       st.sampled_from([1, 7, 1000]), st.sampled_from([2, 3, 4, 4, 5, 6]), st.booleans())
def test_round_trip(column, codec, max_chunk, docs_per_chunk, version, derive):
    spec, values = column
    buf = rf.write_raw_forward(values, spec, codec, target_max_chunk_size=max_chunk,
                               target_docs_per_chunk=docs_per_chunk, writer_version=version,
                               derive_num_docs_per_chunk=derive)
    decoded = read_raw_forward(buf, spec, spec.single_value, len(values))
    assert decoded.equals(values)


def test_gzip_length_trailer_follows_the_writers_buffer_order():
    """GzipCompressor appends the length in its output buffer's order: BE for fixed-byte chunks, LE in V4
    (where Pinot's reader takes a huge chunk's size from it)."""
    fixed = rf.write_raw_forward(pa.array([7] * 10, pa.int32()), FieldSpec("n", "INT"), codecs.GZIP)
    assert fixed[-4:] == (40).to_bytes(4, "big")
    huge = b"x" * 5000
    buf = rf.write_raw_forward(pa.array([huge], pa.binary()), FieldSpec("b", "BYTES"), codecs.GZIP,
                               target_max_chunk_size=4096, target_docs_per_chunk=1)
    _, _, table = _v4_table(buf)
    assert table[0, 0] & rf.HUGE_CHUNK_FLAG and buf[-4:] == (5000).to_bytes(4, "little")
    assert read_raw_forward(buf, FieldSpec("b", "BYTES"), True, 1).to_pylist() == [huge]


def test_raw_lz4_blocks_decode_to_their_own_length():
    """Raw LZ4 (id 3) has no length: decoding with a bound must not pad the last, partial chunk."""
    block = codecs.compress(codecs.LZ4, b"abc" * 10)
    assert codecs.decompress(codecs.LZ4, block, 1000) == b"abc" * 10


@pytest.mark.parametrize("version", [2, 3, 4])
@pytest.mark.parametrize("spec, values", [
    (FieldSpec("n", "LONG"), pa.array([], pa.int64())),
    (FieldSpec("s", "STRING"), pa.array([], pa.string())),
    (FieldSpec("m", "INT", single_value=False), pa.array([], pa.list_(pa.int32()))),
])
def test_no_rows_gives_an_index_without_chunks(version, spec, values):
    buf = rf.write_raw_forward(values, spec, codecs.SNAPPY, writer_version=version)
    assert len(read_raw_forward(buf, spec, spec.single_value, 0)) == 0
    if spec.single_value and spec.is_fixed_width or version < 4:
        assert struct.unpack(">i", buf[4:8])[0] == 0 and len(buf) == 28  # numChunks 0, no offsets


@pytest.mark.parametrize("stored, arrow", [("LONG", pa.int64()), ("DOUBLE", pa.float64()), ("INT", pa.int32())])
@pytest.mark.parametrize("ordered", [False, True])
def test_an_uncompressed_file_in_pieces_is_the_whole_files_bytes(tmp_path, monkeypatch, stored, arrow, ordered):
    # The builder's raw PASS_THROUGH forward index comes as spill.Pieces (written to the spill a block at a
    # time): joined, or written and read back, the same bytes as the whole file, over several blocks.
    from pinot_sink.segment.spill import Pieces, Spill
    monkeypatch.setattr(rf, "_GATHER_BLOCK", 1000)
    count = 4321
    values = pa.chunked_array([pa.array((np.arange(count) * 7919 % 10007 - 5000), arrow)])
    order = np.random.default_rng(1).permutation(count).astype(np.int32) if ordered else None
    spec = FieldSpec("m", stored, "METRIC")
    whole = bytes(rf.write_raw_forward(values, spec, codecs.PASS_THROUGH, order=order))
    pieces = rf.write_raw_forward(values, spec, codecs.PASS_THROUGH, order=order, pieces=True)
    assert isinstance(pieces, Pieces) and len(pieces) == len(whole)
    assert sum(1 for _ in pieces) == 1 + 5  # the head and five blocks of values
    assert pieces.joined() == whole
    with Spill(tmp_path) as spill:
        spill.hold(b"before")
        span, adler = spill.hold_pieces(pieces)
        assert span.read(0, len(span)) == whole
    import zlib
    assert adler == zlib.adler32(whole)
    compressed = rf.write_raw_forward(values, spec, codecs.LZ4, order=order, pieces=True)
    assert not isinstance(compressed, Pieces)  # only the uncompressed file is made in pieces
