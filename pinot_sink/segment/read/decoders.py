"""Decoders for the index buffers of a Pinot segment (the read side of SEGMENT_FORMAT.md sections 1.3-1.4, 4, 5.1-5.3, 6).

Each decoder takes the bytes of one index (a v1 file, or a v3 ``columns.psf`` entry without its magic marker)
and a ``where`` text naming the column and file, used in every error. All decoding is vectorised with
numpy / pyarrow; only BIG_DECIMAL values (one ``Decimal`` per distinct value) are converted one by one.
Raw (no-dictionary) forward indexes are decoded by ``raw_forward``; this module does everything else.
"""
from __future__ import annotations

import decimal
import struct
from typing import Mapping

import numpy as np
import pyarrow as pa
import pyroaring

from javalib.charsets import JAVA_UTF8_REPLACE

from ..format import V3_MAGIC_MARKER, VAR_LENGTH_DICTIONARY_MAGIC
from .pooled import copy_as, copy_bytes, empty
from .segment_metadata import IndexEntry, SegmentFormatError

MV_ENTRY_DICT_MAGIC = 0xFFABCDEF
_NUMERIC_DTYPE = {"INT": ">i4", "LONG": ">i8", "FLOAT": ">f4", "DOUBLE": ">f8"}
_NATIVE_DTYPE = {"INT": np.int32, "LONG": np.int64, "FLOAT": np.float32, "DOUBLE": np.float64}
_ARROW = {"INT": pa.int32(), "LONG": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64()}
MV_VALUES_PER_CHUNK = 2048  # FixedBitMVForwardIndexWriter.PREFERRED_NUM_VALUES_PER_CHUNK


# --- bit-packed dictIds ---------------------------------------------------------------------------


def unpack_bits(buf: bytes | memoryview, bits: int, count: int, where: str, allocate=empty) -> np.ndarray:
    """``count`` unsigned ``bits``-wide values packed MSB-first (``PinotDataBitSet``), as int32; the arrays
    from ``allocate`` (``pooled.empty``, or numpy's for a batch's: ``reader.values_slice``)."""
    if not 1 <= bits <= 32:
        raise SegmentFormatError(f"{where}: bitsPerElement {bits} is out of range 1..32")
    needed = (count * bits + 7) // 8
    if len(buf) < needed:
        raise SegmentFormatError(f"{where}: {len(buf)} bytes, {count} values of {bits} bits need {needed}")
    if count == 0:
        return np.zeros(0, dtype=np.int32)
    if bits in (8, 16, 32):  # whole bytes: the values are the big-endian words themselves
        return copy_as(np.frombuffer(buf, dtype=f">u{bits // 8}", count=count), np.int32, allocate)
    if bits == 1:  # booleans, two-value columns: numpy's own bit unpacking (MSB first), ~10x the passes below
        return copy_as(np.unpackbits(np.frombuffer(buf, dtype=np.uint8, count=needed), count=count), np.int32,
                       allocate)
    if bits in (2, 4):  # whole values in every byte: one pass per value of a byte, no words, no padding copy
        packed = np.frombuffer(buf, dtype=np.uint8, count=needed)
        per = 8 // bits
        out = allocate(needed * per, np.int32)
        for j in range(per):
            np.bitwise_and(packed >> (8 - (j + 1) * bits), (1 << bits) - 1, out=out[j::per], casting="unsafe")
        return out[:count]
    # Eight values take exactly ``bits`` bytes, so value j of every group of eight starts at the same byte
    # and bit of its group: one pass per j reads a big-endian word at that byte of every group (a strided,
    # unaligned view, no gather), shifts and masks it. A value at bit offset <= 7 fits a 32-bit word up to
    # 25 bits, else a 64-bit one. The words of the last group may pass the end: the bytes are padded.
    groups = -(-count // 8)
    wide = bits > 25
    word = 8 if wide else 4
    native = np.uint64 if wide else np.uint32
    padded = allocate(groups * bits + word, np.uint8)
    padded[:needed] = np.frombuffer(buf, dtype=np.uint8, count=needed)
    padded[needed:] = 0
    out = allocate(groups * 8, native)
    step = np.empty(groups, dtype=native)
    mask = native((1 << bits) - 1)
    for j in range(8):
        first_byte, shift = divmod(j * bits, 8)
        words = np.ndarray((groups,), dtype=f">u{word}", buffer=padded, offset=first_byte, strides=(bits,))
        np.copyto(step, words)
        step >>= native(8 * word - shift - bits)
        step &= mask
        out[j::8] = step
    return copy_as(out[:count], np.int32, allocate) if wide else out[:count].view(np.int32)


def decode_unsorted_sv_forward(buf, bits: int, num_docs: int, cardinality: int, where: str) -> np.ndarray:
    expected = (num_docs * bits + 7) // 8
    if len(buf) != expected:
        raise SegmentFormatError(
            f"{where}: unsorted forward index is {len(buf)} bytes, expected ceil({num_docs} x {bits} / 8) = {expected}"
        )
    ids = unpack_bits(buf, bits, num_docs, where)
    check_dict_ids(ids, cardinality, where)
    return ids


def decode_sorted_ranges(buf, cardinality: int, num_docs: int, where: str) -> np.ndarray:
    """Sorted forward index: ``(cardinality, 2)`` inclusive [first, last] docIds per dictId, checked to tile
    docs 0..num_docs-1 in order."""
    if len(buf) != 8 * cardinality:
        raise SegmentFormatError(
            f"{where}: sorted forward index is {len(buf)} bytes, expected 8 x cardinality {cardinality}"
        )
    ranges = copy_as(np.frombuffer(buf, dtype=">i4"), np.int32).reshape(cardinality, 2)
    if cardinality == 0:
        if num_docs:
            raise SegmentFormatError(f"{where}: sorted doc ranges do not tile docs 0..{num_docs - 1}")
        return ranges
    firsts, lasts = ranges[:, 0], ranges[:, 1]
    if (firsts[0] != 0 or lasts[-1] != num_docs - 1 or (lasts < firsts).any()
            or (firsts[1:] != lasts[:-1] + 1).any()):
        raise SegmentFormatError(f"{where}: sorted doc ranges do not tile docs 0..{num_docs - 1}")
    return ranges


def sorted_dict_ids(ranges: np.ndarray) -> np.ndarray:
    """dictIds per doc from a sorted column's doc ranges (tiling their docs in order, as
    ``decode_sorted_ranges`` checks; a slice of them, ``reader._clip_runs``, numbers its runs from 0)."""
    if len(ranges) == 0 or len(ranges) == int(ranges[-1, 1] - ranges[0, 0]) + 1:  # every value once
        return np.arange(len(ranges), dtype=np.int32)
    # A 1 where each run but the first starts, summed up: 3-4x cheaper than np.repeat of mostly 1-doc runs
    # (which also holds the GIL), the same ids.
    ids = empty(int(ranges[-1, 1] - ranges[0, 0]) + 1, np.int32)
    ids.fill(0)
    ids[ranges[1:, 0] - ranges[0, 0]] = 1
    return np.cumsum(ids, dtype=np.int32, out=ids)


def decode_sorted_sv_forward(buf, cardinality: int, num_docs: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted forward index: (dictIds per doc, ``(cardinality, 2)`` inclusive [first, last] doc ranges)."""
    ranges = decode_sorted_ranges(buf, cardinality, num_docs, where)
    return sorted_dict_ids(ranges), ranges


def decode_mv_forward(
    buf, bits: int, num_docs: int, total_entries: int, cardinality: int, where: str
) -> tuple[np.ndarray, np.ndarray]:
    """Dictionary-encoded MV forward index: (row offsets, length num_docs + 1; flattened dictIds)."""
    if len(buf) >= 4 and struct.unpack_from(">I", buf, 0)[0] == MV_ENTRY_DICT_MAGIC:
        raise SegmentFormatError(f"{where}: MV_ENTRY_DICT forward indexes are not supported")
    if num_docs == 0:
        return np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32)
    if total_entries < num_docs:
        raise SegmentFormatError(f"{where}: totalNumberOfEntries {total_entries} < {num_docs} docs")
    average = total_entries // num_docs
    docs_per_chunk = -(-MV_VALUES_PER_CHUNK // average)
    num_chunks = -(-num_docs // docs_per_chunk)
    header = 4 * num_chunks
    bitmap_size = (total_entries + 7) // 8
    values_size = (total_entries * bits + 7) // 8
    if len(buf) != header + bitmap_size + values_size:
        raise SegmentFormatError(
            f"{where}: MV forward index is {len(buf)} bytes, expected {header} + {bitmap_size} + {values_size} "
            f"for {num_docs} docs, {total_entries} values of {bits} bits"
        )
    row_flags = np.unpackbits(np.frombuffer(buf, dtype=np.uint8, count=bitmap_size, offset=header))
    # the flags (0 / 1) seen as booleans: numpy finds set booleans ~6x faster than non-zero bytes
    starts = np.flatnonzero(row_flags[:total_entries].view(np.bool_)).astype(np.int32)
    if len(starts) != num_docs or starts[0] != 0:
        raise SegmentFormatError(f"{where}: row-start bitmap marks {len(starts)} rows, expected {num_docs}")
    chunk_offsets = np.frombuffer(buf, dtype=">i4", count=num_chunks)
    if (chunk_offsets != starts[::docs_per_chunk]).any():
        raise SegmentFormatError(f"{where}: chunk offsets disagree with the row-start bitmap")
    ids = unpack_bits(memoryview(buf)[header + bitmap_size:], bits, total_entries, where)
    check_dict_ids(ids, cardinality, where)
    offsets = np.append(starts, np.int32(total_entries))
    return offsets, ids


def check_dict_ids(ids: np.ndarray, cardinality: int, where: str, first_doc: int = 0) -> None:
    if len(ids) and int(ids.max()) >= cardinality:
        doc = int(np.argmax(ids >= cardinality))
        raise SegmentFormatError(
            f"{where}: entry {first_doc + doc} has dictId {ids[doc]} >= cardinality {cardinality}")


# --- dictionaries ---------------------------------------------------------------------------------


def decode_dictionary(buf, stored_type: str, cardinality: int, entry_width: int, where: str) -> pa.Array:
    """Dictionary values in dictId order, as the stored Arrow type (BIG_DECIMAL as its text)."""
    if stored_type in _NUMERIC_DTYPE:
        dtype = np.dtype(_NUMERIC_DTYPE[stored_type])
        if len(buf) != cardinality * dtype.itemsize:
            raise SegmentFormatError(
                f"{where}: dictionary is {len(buf)} bytes, expected {cardinality} x {dtype.itemsize}"
            )
        values = copy_as(np.frombuffer(buf, dtype=dtype), _NATIVE_DTYPE[stored_type])
        return pa.array(values, type=_ARROW[stored_type])
    if stored_type not in ("STRING", "BYTES", "BIG_DECIMAL"):
        raise SegmentFormatError(f"{where}: dictionaries of stored type {stored_type} are not supported")
    if is_var_length_buffer(buf):
        raw = decode_var_length_values(buf, where)
        if len(raw) != cardinality:
            raise SegmentFormatError(f"{where}: var-length dictionary has {len(raw)} values, cardinality {cardinality}")
    else:
        raw = _decode_fixed_width_values(buf, cardinality, entry_width, stored_type == "STRING", where)
    return _binary_to_stored(raw, stored_type, where)


def is_var_length_buffer(buf) -> bool:
    """``VarLengthValueReader.isVarLengthValueBuffer``: magic ``.vl;`` followed by version 1."""
    return len(buf) >= 16 and bytes(buf[:4]) == VAR_LENGTH_DICTIONARY_MAGIC and struct.unpack_from(">i", buf, 4)[0] == 1


def decode_var_length_values(buf, where: str) -> pa.BinaryArray:
    count, data_start = struct.unpack_from(">ii", buf, 8)
    if count < 0 or data_start != 16 or len(buf) < 16 + 4 * (count + 1):
        raise SegmentFormatError(f"{where}: bad var-length header (count {count}, data offset {data_start})")
    offsets = np.frombuffer(buf, dtype=">i4", count=count + 1, offset=16).astype(np.int64)
    if (np.diff(offsets) < 0).any() or offsets[0] < 16 + 4 * (count + 1) or offsets[-1] != len(buf):
        raise SegmentFormatError(f"{where}: var-length offsets are not increasing within the {len(buf)}-byte buffer")
    data = copy_bytes(buf[offsets[0]:offsets[-1]])
    relative = (offsets - offsets[0]).astype(np.int32)
    return pa.BinaryArray.from_buffers(pa.binary(), count, [None, pa.py_buffer(relative), pa.py_buffer(data)])


def _decode_fixed_width_values(buf, cardinality: int, width: int, unpad: bool, where: str) -> pa.BinaryArray:
    """Padded dictionary: ``cardinality`` entries of ``width`` bytes; STRING stops at the first NUL."""
    if width < 0 or len(buf) != cardinality * width:
        raise SegmentFormatError(
            f"{where}: fixed-width dictionary is {len(buf)} bytes, expected cardinality {cardinality} x "
            f"lengthOfEachEntry {width}"
        )
    buf = copy_bytes(buf)  # a copy: the array outlives the segment's buffers
    if not unpad or not buf.size or buf.min() != 0:  # no NUL, every entry full width: the bytes as they are
        offsets = np.arange(0, (cardinality + 1) * width, width, dtype=np.int32) if width else np.zeros(
            cardinality + 1, dtype=np.int32)
        return pa.BinaryArray.from_buffers(pa.binary(), cardinality, [None, pa.py_buffer(offsets), pa.py_buffer(buf)])
    matrix = buf.reshape(cardinality, width)
    if unpad and width:
        zero = matrix == 0
        lengths = np.where(zero.any(axis=1), zero.argmax(axis=1), width)
        data = matrix[np.arange(width) < lengths[:, None]].tobytes()
    else:
        lengths = np.full(cardinality, width)
        data = matrix.tobytes()
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    return pa.BinaryArray.from_buffers(pa.binary(), cardinality, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _binary_to_stored(raw: pa.BinaryArray, stored_type: str, where: str) -> pa.Array:
    if stored_type == "BYTES":
        return raw
    if stored_type == "BIG_DECIMAL":
        return pa.array([big_decimal_text(v) for v in raw.to_pylist()], type=pa.string())
    return binary_to_utf8(raw, where)


def binary_to_utf8(raw: pa.Array, where: str) -> pa.Array:
    """View UTF-8 bytes as strings; invalid sequences become U+FFFD as Java's ``new String(bytes, UTF_8)`` does."""
    strings = raw.view(pa.string()) if pa.types.is_binary(raw.type) else raw.view(pa.large_string())
    if _ascii_with_sound_offsets(strings):
        return strings
    try:
        strings.validate(full=True)
        return strings
    except pa.ArrowInvalid:
        values = [None if v is None else v.decode("utf-8", JAVA_UTF8_REPLACE) for v in raw.to_pylist()]
        return pa.array(values, type=strings.type)


def _ascii_with_sound_offsets(strings: pa.Array) -> bool:
    """Whether every byte of the values is ASCII (so valid UTF-8 however they are cut) and the offsets rise
    within the data: Arrow's full validation, which checks UTF-8 a character at a time, in a fifth of its
    time (numpy over the buffers; 1M 16-byte strings: ~1.5 against 6.6 ms)."""
    offsets_buffer, data = strings.buffers()[1:3]
    if data is None or offsets_buffer is None or len(strings) == 0:
        return False
    width = 8 if pa.types.is_large_string(strings.type) else 4
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if width == 8 else np.int32, count=len(strings) + 1,
                            offset=strings.offset * width)
    if offsets[0] < 0 or offsets[-1] > data.size or (np.diff(offsets) < 0).any():
        return False
    values = np.frombuffer(data, dtype=np.uint8, count=int(offsets[-1] - offsets[0]), offset=int(offsets[0]))
    return not values.size or int(values.max()) < 0x80


def big_decimal_text(serialized: bytes) -> str:
    """``BigDecimalUtils.deserialize`` + ``toString``: int16 BE scale, then the unscaled two's complement."""
    if len(serialized) < 3:
        raise SegmentFormatError(f"BIG_DECIMAL value {serialized.hex()} is shorter than 3 bytes")
    scale = int.from_bytes(serialized[:2], "big", signed=True)
    unscaled = int.from_bytes(serialized[2:], "big", signed=True)
    # Python's Decimal.__str__ follows the same to-scientific-string rule as Java's BigDecimal.toString.
    return str(decimal.Decimal(f"{unscaled}E{-scale}"))


# --- bitmaps --------------------------------------------------------------------------------------


def decode_bitmap(buf, where: str) -> pyroaring.BitMap:
    try:
        return pyroaring.BitMap.deserialize(bytes(buf))
    except Exception as exc:  # pyroaring raises ValueError/MemoryError on garbage
        raise SegmentFormatError(f"{where}: not a RoaringBitmap ({exc})") from None


def decode_null_vector(buf, num_docs: int, where: str) -> np.ndarray:
    """The null value vector as a bool mask over the docs."""
    docs = np.frombuffer(decode_bitmap(buf, where).to_array(), dtype=np.uint32)
    if len(docs) and int(docs[-1]) >= num_docs:
        raise SegmentFormatError(f"{where}: null docId {int(docs[-1])} >= total docs {num_docs}")
    mask = np.zeros(num_docs, dtype=np.bool_)
    mask[docs] = True
    return mask


def decode_bitmap_inverted(buf, cardinality: int, num_docs: int, where: str) -> list[np.ndarray]:
    """Bitmap inverted index: sorted docIds per dictId. Offsets may carry a constant shift (legacy files)."""
    table = 4 * (cardinality + 1)
    if len(buf) < table:
        raise SegmentFormatError(f"{where}: {len(buf)} bytes cannot hold {cardinality + 1} offsets")
    offsets = np.frombuffer(buf, dtype=">u4", count=cardinality + 1).astype(np.int64)
    offsets = offsets - offsets[0] + table
    if (np.diff(offsets) < 0).any() or offsets[-1] != len(buf):
        raise SegmentFormatError(f"{where}: inverted index offsets do not cover the {len(buf)}-byte buffer")
    postings = []
    for dict_id in range(cardinality):
        bitmap = decode_bitmap(buf[offsets[dict_id]:offsets[dict_id + 1]], f"{where} dictId {dict_id}")
        docs = np.frombuffer(bitmap.to_array(), dtype=np.uint32).astype(np.int32)
        if len(docs) and docs[-1] >= num_docs:
            raise SegmentFormatError(f"{where}: dictId {dict_id} lists doc {docs[-1]} >= total docs {num_docs}")
        postings.append(docs)
    return postings


def decode_legacy_raw_inverted(buf, stored_type: str, num_docs: int, where: str) -> tuple[pa.Array, list[np.ndarray]]:
    """The raw-value inverted index of the reverted PR #17060 (legacy fixture): values and docIds per value.

    Header (BE): int32 version 1, cardinality, max value length, then int64 dictionary offset/length and
    inverted offset/length; an embedded var-length dictionary, then a bitmap inverted index whose offsets are
    relative to the file start. Current Pinot drops and rebuilds such indexes; this is for inspection only.
    """
    if len(buf) < 44:
        raise SegmentFormatError(f"{where}: {len(buf)} bytes, too short for a legacy raw inverted index")
    version, cardinality, _ = struct.unpack_from(">iii", buf, 0)
    dict_offset, dict_length, inv_offset, inv_length = struct.unpack_from(">qqqq", buf, 12)
    if version != 1 or dict_offset + dict_length > len(buf) or inv_offset + inv_length != len(buf):
        raise SegmentFormatError(f"{where}: not a legacy raw inverted index (version {version})")
    dictionary = buf[dict_offset: dict_offset + dict_length]
    if not is_var_length_buffer(dictionary):
        raise SegmentFormatError(f"{where}: the embedded dictionary is not a var-length buffer")
    values = _binary_to_stored(decode_var_length_values(dictionary, where), stored_type, where)
    if len(values) != cardinality:
        raise SegmentFormatError(f"{where}: {len(values)} dictionary values for cardinality {cardinality}")
    postings = decode_bitmap_inverted(buf[inv_offset: inv_offset + inv_length], cardinality, num_docs, where)
    return values, postings


# --- v3 single-file index directory ---------------------------------------------------------------


class V3IndexFile:
    """``v3/columns.psf`` (a zero-copy view: a memory map or a tarball's member in memory) located by
    ``v3/index_map``; magic markers checked."""

    def __init__(self, data: memoryview, entries: Mapping[str, Mapping[str, IndexEntry]], path: str):
        self.path = path
        self.entries = entries
        self._data = data
        size = len(data)
        for column in entries.values():
            for entry in column.values():
                if entry.size and (entry.offset < 0 or entry.offset + entry.size > size or entry.size < 8):
                    raise SegmentFormatError(
                        f"{path}: {entry.column}.{entry.index} [{entry.offset}, +{entry.size}) lies outside "
                        f"the {size}-byte file"
                    )

    def has(self, column: str, index: str) -> bool:
        return index in self.entries.get(column, {})

    def size(self, column: str, index: str) -> int | None:
        entry = self.entries.get(column, {}).get(index)
        return entry.size if entry else None

    def buffer(self, column: str, index: str) -> memoryview | bytes | None:
        """The payload of one index (after its magic marker), a view without a copy, or None if the index is
        absent. Decoders copy what they keep (no Arrow array outlives the file's mapping)."""
        entry = self.entries.get(column, {}).get(index)
        if entry is None:
            return None
        if entry.size == 0:
            return b""
        marker = self._data[entry.offset: entry.offset + 8]
        if marker != V3_MAGIC_MARKER:
            raise SegmentFormatError(
                f"{self.path}: no magic marker at offset {entry.offset} for {column}.{index} "
                f"(found {bytes(marker).hex()})"
            )
        return self._data[entry.offset + 8: entry.offset + entry.size]

    def close(self) -> None:
        self._data = memoryview(b"")
