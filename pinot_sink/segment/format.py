"""Every file name of a segment, in one place (SEGMENT_FORMAT.md 1.2-1.6).

* v1: one file per index, ``<column><extension>`` (``V1Constants.Indexes``), plus ``metadata.properties``
  and ``creation.meta``;
* v3: ``v3/columns.psf`` (the index buffers), ``v3/index_map``, ``v3/metadata.properties``,
  ``v3/creation.meta``;
* the built segment travels as ``<segment name>.tar.gz`` holding the directory ``<segment name>/``.

Segment names may not contain ``\\ / : * ? " < > |`` (``SegmentNameUtils``): a name is a file name and
part of a URI path.
"""
from __future__ import annotations

from type_mapping.table_config import raw_table_name  # noqa: F401  (the segment names use it; its home is the model)

METADATA_FILE = "metadata.properties"
CREATION_META_FILE = "creation.meta"
V3_DIR = "v3"
INDEX_MAP_FILE = "index_map"
STAR_TREE_INDEX_FILE = "star_tree_index"  # StarTreeV2Constants.INDEX_FILE_NAME: every tree, back to back
STAR_TREE_INDEX_MAP_FILE = "star_tree_index_map"  # offsets and sizes of each tree's buffers in it
COLUMNS_FILE = "columns.psf"

# columns.psf: each index buffer follows this 8-byte marker; a var-length dictionary starts with ".vl;".
V3_MAGIC_MARKER = bytes.fromhex("deadbeefdeafbead")
VAR_LENGTH_DICTIONARY_MAGIC = b".vl;"

TARBALL_EXTENSION = ".tar.gz"
# SegmentNameUtils.validatePartialOrFullSegmentName: no part of a name may hold these.
INVALID_NAME_CHARS = '\\/:*?"<>|'

# v1 file extensions (V1Constants.Indexes) of the indexes whose extension does not depend on the column.
DICTIONARY_EXTENSION = ".dict"
INVERTED_INDEX_EXTENSION = ".bitmap.inv"
RANGE_INDEX_EXTENSION = ".bitmap.range"
JSON_INDEX_EXTENSION = ".json.idx"
BLOOM_FILTER_EXTENSION = ".bloom"
NULLVALUE_VECTOR_EXTENSION = ".bitmap.nullvalue"
# Forward indexes: dictionary-encoded sorted / unsorted single-value, multi-value; raw single / multi-value.
SORTED_SV_FORWARD_EXTENSION = ".sv.sorted.fwd"
UNSORTED_SV_FORWARD_EXTENSION = ".sv.unsorted.fwd"
MV_FORWARD_EXTENSION = ".mv.fwd"
RAW_SV_FORWARD_EXTENSION = ".sv.raw.fwd"
RAW_MV_FORWARD_EXTENSION = ".mv.raw.fwd"
# The data CRC covers the forward indexes and dictionaries (v1 names).
DATA_FILE_SUFFIXES = (".fwd", DICTIONARY_EXTENSION)

# Index id -> v1 extensions, for readers (the forward index: forward_index_extension). Several for the
# Lucene-based indexes, whose names carry the Lucene version that wrote them.
V1_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "bloom_filter": (BLOOM_FILTER_EXTENSION,),
    "dictionary": (DICTIONARY_EXTENSION,),
    "fst_index": (".lucene.v912.fst", ".lucene.v99.fst", ".lucene.v9.fst", ".lucene.fst"),
    "h3_index": (".h3.idx",),
    "ifst_index": (".lucene.v912.ifst", ".lucene.v99.ifst", ".lucene.v9.ifst", ".lucene.ifst"),
    "inverted_index": (INVERTED_INDEX_EXTENSION,),
    "json_index": (JSON_INDEX_EXTENSION,),
    "nullvalue_vector": (NULLVALUE_VECTOR_EXTENSION,),
    "range_index": (RANGE_INDEX_EXTENSION,),
}


def forward_index_extension(dictionary_encoded: bool, single_value: bool, is_sorted: bool = False) -> str:
    """``ForwardIndexType.getFileExtension``: from the column's encoding, cardinality of values and order."""
    if dictionary_encoded:
        if not single_value:
            return MV_FORWARD_EXTENSION
        return SORTED_SV_FORWARD_EXTENSION if is_sorted else UNSORTED_SV_FORWARD_EXTENSION
    return RAW_SV_FORWARD_EXTENSION if single_value else RAW_MV_FORWARD_EXTENSION




def tarball_name(segment_name: str) -> str:
    """The built segment's file name: ``<segment name>.tar.gz`` (the name as it is, not URI-quoted)."""
    return segment_name + TARBALL_EXTENSION


def segment_name_of_tarball(file_name: str) -> str:
    """``<segment name>.tar.gz`` -> the segment name (the inverse of ``tarball_name``)."""
    if not file_name.endswith(TARBALL_EXTENSION):
        raise ValueError(f"{file_name!r} is not a segment tarball name (<segment name>{TARBALL_EXTENSION})")
    return file_name[: -len(TARBALL_EXTENSION)]

# A file name holds 255 bytes (ext4, xfs, APFS; HDFS's default max-component-length). The longest file name
# made from a segment name is the tarball's temporary file ".<name>.tar.gz.XXXXXXXX.tmp" (tarball.py), so a
# segment name may have this many bytes (UTF-8).
FILE_NAME_MAX_BYTES = 255
SEGMENT_NAME_MAX_BYTES = FILE_NAME_MAX_BYTES - len(".") - len(TARBALL_EXTENSION) - len(".XXXXXXXX.tmp")
