"""The JSON index: ``jsonIndexColumns`` / ``jsonIndexConfigs`` / ``fieldConfigList`` ``indexes.json``.

Each value is flattened as Pinot's ``JsonUtils.flatten`` does (a value gives one or more flattened records
of ``path -> value text``: arrays unnest into one record per element with a ``.$index`` key, sibling arrays
combine, or not with ``disableCrossArrayUnnest``; ``maxLevels``, ``excludeArray``, ``includePaths`` /
``excludePaths`` / ``excludeFields`` / ``indexPaths`` prune, a value longer than ``maxValueLength`` UTF-16
units becomes ``$SKIPPED$``). Every key and every ``key\\0value`` of a flattened record gets a posting list
of flattened doc ids. The file is ``OffHeapJsonIndexCreator``'s (``BaseJsonIndexCreator.generateIndexFile``):

    int version 2, int max posting-key length in UTF-8 bytes, long dictionary length, long inverted index
    length, long doc id mapping length (all big-endian); the posting keys in Java String order as a
    ``VarLengthValueWriter`` dictionary; their bitmaps as a ``BitmapInvertedIndexWriter`` inverted index;
    then each flattened doc's segment doc id (int32, little-endian).

Pinot merges posting lists of every 100,000 documents from separate chunks; a value's bitmap over several
chunks is the OR of run-optimised bitmaps, which can pick other Roaring containers than one run-optimised
bitmap: byte identity is shown for segments under 100,000 documents (the same doc ids either way).
"""
from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from type_mapping.java_text import java_float_str, java_length, java_sort_key
from type_mapping.table_config import JsonIndexSettings

from .dictionary import ColumnValueError, var_length_bytes
from .inverted_index import inverted_index

VERSION = 2
VALUE_KEY = ""
KEY_SEPARATOR = "."
ARRAY_PATH = "[*]"
ARRAY_INDEX_KEY = ".$index"
SKIPPED_VALUE = "$SKIPPED$"
KEY_VALUE_SEPARATOR = "\0"
MAX_COMBINATIONS = 100_000
GLOBAL_WILDCARD, WILDCARD = "**", "*"
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1

Record = dict[str, str]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # Jackson's default reader rejects NaN / Infinity


def _parse(text: str) -> Any:
    return _DECODER.decode(text)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # made once: json.loads makes one per call


def _text(value: Any) -> str:
    """``JsonNode.asText`` of a value node."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return java_float_str(value)
    return str(value)


# --- indexPaths: JsonUtils.createTree / JsonSchemaTreeNode ------------------------------------------------


class _PathNode:
    def __init__(self, key: str):
        self.key = key
        self.children: dict[str, _PathNode] = {}
        self.global_wildcard: _PathNode | None = None
        self.wildcard: _PathNode | None = None

    def add(self, key: str) -> "_PathNode":
        if self.global_wildcard is not None:
            return self.global_wildcard
        if key == GLOBAL_WILDCARD:
            self.global_wildcard = self.global_wildcard or _PathNode(key)
            return self.global_wildcard
        if key == WILDCARD:
            self.wildcard = self.wildcard or _PathNode(key)
            return self.wildcard
        return self.children.setdefault(key, _PathNode(key))

    def child(self, key: str) -> "_PathNode | None":
        if self.key == GLOBAL_WILDCARD:
            return self
        if self.global_wildcard is not None:
            return self.global_wildcard
        if key in self.children:
            return self.children[key]
        return self.wildcard


def _path_tree(index_paths: frozenset[str] | None) -> _PathNode:
    root = _PathNode("")
    if not index_paths:
        root.add(GLOBAL_WILDCARD)
        return root
    for path in index_paths:
        node = root
        for key in path.split(KEY_SEPARATOR):  # splitPreserveAllTokens: empty tokens kept
            node = node.add(key)
            if key == GLOBAL_WILDCARD:
                break
    return root


# --- JsonUtils.flatten -------------------------------------------------------------------------------------

_MATCH, _POTENTIAL, _NO = (True, True), (True, False), (False, False)  # (include, include path matched)


class Flattener:
    def __init__(self, config: JsonIndexSettings):
        self.config = config
        self.tree = _path_tree(config.index_paths)  # once per column, not per value
        self.filters_paths = config.include_paths is not None or config.exclude_paths is not None

    def flatten_text(self, text: str) -> list[Record]:
        """Raises ValueError for text that is not JSON (unless ``skipInvalidJson``)."""
        try:
            node = _parse(text)
        except ValueError:
            if self.config.skip_invalid_json:
                return [{VALUE_KEY: SKIPPED_VALUE}]
            raise
        return self._flatten(node, 0, "$", False, self.tree)

    def _include(self, path: str) -> tuple[bool, bool]:
        if not self.filters_paths:
            return _POTENTIAL
        include = self.config.include_paths
        if include is not None:
            if path in include:
                return _MATCH
            return _POTENTIAL if any(p.startswith(path) for p in include) else _NO
        exclude = self.config.exclude_paths
        return _NO if exclude is not None and path in exclude else _POTENTIAL

    def _flatten(self, node: Any, level: int, path: str, matched: bool, tree: _PathNode | None) -> list[Record]:
        config = self.config
        if node is None or tree is None:
            return []
        if not isinstance(node, (dict, list)):
            text = _text(node)
            if 0 < config.max_value_length < java_length(text):
                text = SKIPPED_VALUE
            return [{VALUE_KEY: text}]
        if config.max_levels > 0 and level == config.max_levels:
            return []
        if isinstance(node, list):
            if config.exclude_array or not node:
                return []
            child_path = path + ARRAY_PATH
            include, child_matched = _MATCH if matched else self._include(child_path)
            if not include:
                return []
            results = []
            for i, child in enumerate(node):
                for record in self._flatten(child, level + 1, child_path, child_matched, tree.child("")):
                    out = {KEY_SEPARATOR + k: v for k, v in record.items()}
                    out[ARRAY_INDEX_KEY] = str(i)
                    results.append(out)
            return results

        single: Record = {}
        nested: list[list[Record]] = []
        exclude_fields = config.exclude_fields
        for field, child in node.items():
            if exclude_fields is not None and field in exclude_fields:
                continue
            child_path = path + KEY_SEPARATOR + field
            include, child_matched = _MATCH if matched else self._include(child_path)
            if not include:
                continue
            records = self._flatten(child, level + 1, child_path, child_matched, tree.child(field))
            prefix = KEY_SEPARATOR + field
            if len(records) == 1:
                for k, v in records[0].items():
                    single[prefix + k] = v
            elif records:
                nested.append([{prefix + k: v for k, v in r.items()} for r in records])
        if not nested:
            return [single] if single else []
        if len(nested) == 1:
            return [{**r, **single} for r in nested[0]]
        if config.disable_cross_array_unnest:
            return [{**r, **single} for records in nested for r in records]
        combinations = 1
        for records in nested:
            combinations *= len(records)
            if combinations >= MAX_COMBINATIONS:
                raise ValueError("Got too many combinations")
        current = nested[0]
        for records in nested[1:]:
            current = [{**a, **b} for a in current for b in records]
        return [{**r, **single} for r in current]


def flatten(text: str, config: JsonIndexSettings) -> list[Record]:
    return Flattener(config).flatten_text(text)


# --- the index file --------------------------------------------------------------------------------------


def build_json_index(distinct: list[str], doc_values: np.ndarray, config: JsonIndexSettings,
                     column: str) -> bytes:
    """The ``.json.idx`` payload; ``distinct``: the column's distinct values, ``doc_values``: each doc's index
    into them (segment order). Each distinct value is flattened once."""
    flattener = Flattener(config)
    per_value: list[list[list[str]]] = []  # distinct value -> its records -> their posting keys
    for i, text in enumerate(distinct):
        try:
            records = flattener.flatten_text(text)
        except ValueError as exc:
            row = int(np.argmax(doc_values == i))
            raise ColumnValueError(
                f"column {column!r}: row {row}: the JSON index cannot flatten {text[:80]!r}: {exc} (set "
                f"skipInvalidJson in the column's json index config to index it as $SKIPPED$)") from None
        per_value.append([[key for k, v in record.items() for key in (k, k + KEY_VALUE_SEPARATOR + v)]
                          for record in records])
    distinct_keys = {key for records in per_value for record in records for key in record}
    # Java orders Strings by UTF-16 units: the code point order unless a key holds a character above U+E000
    # (after the surrogates) or beyond the BMP
    java_order = any(max(key, default="\0") >= "\ue000" for key in distinct_keys)
    keys = sorted(distinct_keys, key=java_sort_key if java_order else None)
    rank = {key: i for i, key in enumerate(keys)}
    ranked = [[[rank[key] for key in record] for record in records] for records in per_value]
    counts = np.array([len(records) for records in ranked], dtype=np.int64)[doc_values]
    flat_docs = np.repeat(np.arange(len(doc_values), dtype=np.int32), counts)
    if len(flat_docs) >= 2**31:
        raise ColumnValueError(f"column {column!r}: more than {2**31 - 1} flattened JSON records")
    ids: list[int] = []
    lengths_per_row: list[int] = []
    for value in doc_values.tolist():
        for record in ranked[value]:
            ids.extend(record)
            lengths_per_row.append(len(record))
    key_ids = np.array(ids, dtype=np.int64)
    row_lengths = np.array(lengths_per_row, dtype=np.int64)
    encoded = [key.encode("utf-8") for key in keys]
    lengths = np.array([len(b) for b in encoded], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    dictionary = var_length_bytes(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)
    inverted = bytes(inverted_index(key_ids, len(keys), row_lengths)) if keys else struct.pack(">i", 4)
    mapping = flat_docs.astype("<i4").tobytes()
    header = struct.pack(">iiqqq", VERSION, int(lengths.max()) if len(keys) else 0, len(dictionary), len(inverted),
                         len(mapping))
    return header + dictionary + inverted + mapping


# --- reading (inspect, tests) ------------------------------------------------------------------------------


def json_index_paths(payload: bytes) -> dict:
    """What ``pinot-sink inspect`` shows of a JSON index: each flattened path (``.a.b``, ``.arr.$index``, ...)
    with its segment docs and distinct values, in the index's order."""
    keys, postings, mapping = read_json_index(payload)
    _, max_value_length = struct.unpack_from(">ii", payload, 0)
    values: dict[str, int] = {}
    for key in keys:
        path, separator, _ = key.partition(KEY_VALUE_SEPARATOR)
        if separator:
            values[path] = values.get(path, 0) + 1
    paths = [{"path": key, "docs": int(len(np.unique(mapping[docs]))) if len(docs) else 0,
              "values": values.get(key, 0)}
             for key, docs in zip(keys, postings) if KEY_VALUE_SEPARATOR not in key]
    return {"paths": paths, "flattenedDocs": int(len(mapping)), "maxValueLength": max_value_length}


def read_json_index(payload: bytes) -> tuple[list[str], list[np.ndarray], np.ndarray]:
    """(posting keys, each key's flattened doc ids, each flattened doc's doc id)."""
    from pyroaring import BitMap

    version, _, dict_len, inv_len, map_len = struct.unpack_from(">iiqqq", payload, 0)
    if version != VERSION:
        raise ValueError(f"JSON index version {version} (only {VERSION} is read)")
    start = 32
    dictionary = payload[start:start + dict_len]
    count, data_start = struct.unpack_from(">ii", dictionary, 8)
    ends = np.frombuffer(dictionary, ">i4", count + 1, data_start)
    keys = [bytes(dictionary[ends[i]:ends[i + 1]]).decode("utf-8") for i in range(count)]
    inverted = payload[start + dict_len:start + dict_len + inv_len]
    bounds = np.frombuffer(inverted, ">u4", count + 1, 0)
    postings = [np.array(BitMap.deserialize(bytes(inverted[bounds[i]:bounds[i + 1]])), dtype=np.int64)
                for i in range(count)]
    mapping = np.frombuffer(payload, "<i4", map_len // 4, start + dict_len + inv_len)
    return keys, postings, mapping
