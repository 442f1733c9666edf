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

import dataclasses
import json
import re
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


# --- flattening every distinct value, by shape ---------------------------------------------------------
#
# Most JSON columns hold values of a few shapes (the same keys, nesting and array lengths; other scalars).
# A value's shape is its text with the scalar literals taken out: the text between tokens and which tokens
# are object keys (one C regex split). Each shape is flattened once, by the flattener above, with every scalar
# replaced by a marker naming its token; every value of that shape then gives the same records with its own
# scalars' texts in the markers' places. Two texts of one shape differ only in literals that are each valid
# JSON scalars in the same places, so if one parses, every one does, to the same structure. A shape whose
# text does not parse falls back to the flattener value by value (an error naming the row, or
# skipInvalidJson's $SKIPPED$).

_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_TOKENS = re.compile(rf'({_STRING}[ \t\n\r]*:)|({_STRING}|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?'
                     r'|true|false)')
_MARK = "\x01"
_AFTER_SURROGATES = re.compile("[\ue000-\U0010ffff]")


class _Shape:
    """One shape's flattened records: each field (path id, the scalar whose text is its value or -1, the text
    id of a constant value such as an array index)."""

    def __init__(self, records: list[list[tuple[int, int, int]]]):
        self.records = records
        self.width = sum(2 * len(r) for r in records)  # posting keys per value: path, path\0value per field


class _Flattened:
    """Every distinct value's flattened records as ids: paths, value texts, and per value its posting keys
    (``path`` and ``path\0text`` codes) and the number of keys in each of its records."""

    def __init__(self, config: JsonIndexSettings):
        self.flattener = Flattener(config)
        self.marker_flattener = Flattener(dataclasses.replace(config, max_value_length=0))
        self.max_value_length = config.max_value_length
        self.paths: dict[str, int] = {}
        self.texts: dict[str, int] = {}
        self.literal_texts: dict[str, int] = {}  # a scalar literal -> its text's id

    def path_id(self, path: str) -> int:
        return self.paths.setdefault(path, len(self.paths))

    def text_id(self, text: str) -> int:
        return self.texts.setdefault(text, len(self.texts))

    def literal_ids(self, literals: list) -> np.ndarray:
        """Each scalar literal's text id."""
        known = self.literal_texts
        for literal in set(literals).difference(known):
            first = literal[0]
            if first == '"':
                text = literal[1:-1] if "\\" not in literal else _parse(literal)
            elif first == "t" or first == "f":
                text = literal
            elif "." in literal or "e" in literal or "E" in literal:
                text = _text(float(literal))  # what json.loads makes of it
            else:
                text = literal if literal != "-0" else "0"  # an int's digits, as str(int(literal))
            if 0 < self.max_value_length < java_length(text):
                text = SKIPPED_VALUE
            known[literal] = self.text_id(text)
        return np.array(list(map(known.__getitem__, literals)), dtype=np.int64)

    def shape(self, parts: list) -> _Shape | None:
        """The records of the text ``parts`` (a ``_TOKENS`` split) with markers for its scalars, or None
        when that text is not JSON."""
        marked = list(parts)
        scalar = 0  # markers number the scalars, in text order
        for token in range(len(parts) // 3):
            if parts[3 * token + 2] is not None:
                marked[3 * token + 2] = f'"\\u0001{scalar}"'
                scalar += 1
            marked[3 * token + 1] = marked[3 * token + 1] or ""
            marked[3 * token + 2] = marked[3 * token + 2] or ""
        try:
            node = _parse("".join(marked))
        except ValueError:
            return None
        flattener = self.marker_flattener
        records = flattener._flatten(node, 0, "$", False, flattener.tree)
        return _Shape([[(self.path_id(k), int(v[1:]) if v.startswith(_MARK) else -1,
                         -1 if v.startswith(_MARK) else self.text_id(v)) for k, v in record.items()]
                       for record in records])


def _ragged(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + c)`` over the pairs."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    return np.arange(total, dtype=np.int64) + np.repeat(starts - (np.cumsum(counts) - counts), counts)


def _flatten_distinct(distinct: list[str], doc_values: np.ndarray, config: JsonIndexSettings, column: str):
    """(posting keys, per distinct value: its posting key ids and its records' key counts, as flat arrays with
    per-value starts and counts). The posting keys are in Java String order."""
    flat = _Flattened(config)
    by_shape: dict[tuple, tuple[_Shape, list[int], list[list[int]]]] = {}  # shape -> its values, their literals
    slow: list[int] = []
    split = _TOKENS.split
    for v, text in enumerate(distinct):
        parts = split(text)
        key = (tuple(parts[0::3]), tuple(parts[1::3]))
        entry = by_shape.get(key)
        if entry is None:
            shape = flat.shape(parts)
            if shape is None:
                slow.append(v)
                continue
            entry = by_shape[key] = (shape, [], [])
        entry[1].append(v)
        entry[2].extend(filter(None, parts[2::3]))  # its scalar literals (the keys' places hold None)
    slow_records = {}
    for v in slow:
        try:
            records = flat.flattener.flatten_text(distinct[v])
        except ValueError as exc:
            row = int(np.argmax(doc_values == v))
            raise ColumnValueError(
                f"column {column!r}: row {row}: the JSON index cannot flatten {distinct[v][:80]!r}: {exc} (set "
                f"skipInvalidJson in the column's json index config to index it as $SKIPPED$)") from None
        slow_records[v] = [[(flat.path_id(k), flat.text_id(t)) for k, t in record.items()] for record in records]

    shaped = [(shape, values, flat.literal_ids(literals).reshape(len(values), -1))
              for shape, values, literals in by_shape.values()]
    n_paths, n_texts = len(flat.paths), len(flat.texts)
    pair_base = np.int64(n_paths)  # codes: a path key is its path id; path\0text is n_paths + path * texts + text
    n = len(distinct)
    key_counts = np.zeros(n, dtype=np.int64)
    record_counts = np.zeros(n, dtype=np.int64)
    pieces = []  # (values, their codes (values x width), record widths)
    for shape, values, lit in shaped:
        values_arr = np.array(values, dtype=np.int64)
        columns = []
        for record in shape.records:
            for path, scalar, const in record:
                tid = lit[:, scalar] if scalar >= 0 else np.full(len(values), const, dtype=np.int64)
                columns.append(np.full(len(values), path, dtype=np.int64))
                columns.append(pair_base + path * n_texts + tid)
        codes = np.stack(columns, axis=1) if columns else np.zeros((len(values), 0), dtype=np.int64)
        key_counts[values_arr] = shape.width
        record_counts[values_arr] = len(shape.records)
        pieces.append((values_arr, codes, np.array([2 * len(r) for r in shape.records], dtype=np.int64)))
    for v, records in slow_records.items():
        codes = [c for record in records for p, t in record for c in (p, pair_base + p * n_texts + t)]
        key_counts[v] = len(codes)
        record_counts[v] = len(records)
        pieces.append((np.array([v], dtype=np.int64), np.array([codes], dtype=np.int64).reshape(1, -1),
                       np.array([2 * len(r) for r in records], dtype=np.int64)))
    key_starts = np.cumsum(key_counts) - key_counts
    record_starts = np.cumsum(record_counts) - record_counts
    all_codes = np.empty(int(key_counts.sum()), dtype=np.int64)
    all_widths = np.empty(int(record_counts.sum()), dtype=np.int64)
    for values_arr, codes, widths in pieces:
        if codes.shape[1]:
            all_codes[(key_starts[values_arr][:, None] + np.arange(codes.shape[1])).reshape(-1)] = codes.reshape(-1)
        if len(widths):
            all_widths[(record_starts[values_arr][:, None] + np.arange(len(widths))).reshape(-1)] = \
                np.tile(widths, len(values_arr))
    # the posting keys: strings for the distinct codes only, in Java String order
    used, inverse = np.unique(all_codes, return_inverse=True)
    paths = list(flat.paths)
    texts = list(flat.texts)
    keys = []
    for code in used.tolist():
        if code < n_paths:
            keys.append(paths[code])
        else:
            path, text = divmod(code - n_paths, n_texts)
            keys.append(paths[path] + KEY_VALUE_SEPARATOR + texts[text])
    # Java orders Strings by UTF-16 units: the code point order unless a key holds a character above U+E000
    # (after the surrogates) or beyond the BMP
    java_order = _AFTER_SURROGATES.search("".join(keys)) is not None
    order = sorted(range(len(keys)), key=(lambda i: java_sort_key(keys[i])) if java_order else keys.__getitem__)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.array(order, dtype=np.int64)] = np.arange(len(keys), dtype=np.int64)
    sorted_keys = [keys[i] for i in order]
    return (sorted_keys, rank[inverse.reshape(-1)], all_widths, key_starts, key_counts, record_starts,
            record_counts)


# --- the index file --------------------------------------------------------------------------------------


def build_json_index(distinct: list[str], doc_values: np.ndarray, config: JsonIndexSettings,
                     column: str) -> bytes:
    """The ``.json.idx`` payload; ``distinct``: the column's distinct values, ``doc_values``: each doc's index
    into them (segment order). Each distinct value is flattened once."""
    keys, key_ids, widths, key_starts, key_counts, record_starts, record_counts = _flatten_distinct(
        list(distinct), doc_values, config, column)
    doc_values = np.asarray(doc_values, dtype=np.int64)
    counts = record_counts[doc_values]
    flat_docs = np.repeat(np.arange(len(doc_values), dtype=np.int32), counts)
    if len(flat_docs) >= 2**31:
        raise ColumnValueError(f"column {column!r}: more than {2**31 - 1} flattened JSON records")
    doc_key_ids = key_ids[_ragged(key_starts[doc_values], key_counts[doc_values])]
    row_lengths = widths[_ragged(record_starts[doc_values], counts)]
    encoded = [key.encode("utf-8") for key in keys]
    lengths = np.array([len(b) for b in encoded], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    dictionary = var_length_bytes(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)
    inverted = (bytes(inverted_index(doc_key_ids, len(keys), row_lengths)) if keys
                else struct.pack(">i", 4))
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
