"""`pinot-sink inspect PATH [--rows N] [--columns A,B] [--json]`: what is inside a Pinot segment.

PATH is a segment directory, a ``.tar.gz``, a ``v3`` directory's contents, or a bare ``metadata.properties``.
Prints the segment metadata, one line per column (types, cardinality, encoding, sortedness, nulls, min/max)
with its indexes and their sizes, each JSON index's flattened paths (docs and distinct values per path), then
the first N rows decoded natively (no Java needed).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import decimal
import json
import math
import os
import shlex
import sys
from typing import Any

import numpy as np

from pinot_sink.segment.json_index import json_index_paths
from pinot_sink.segment.read.reader import SegmentFormatError, SegmentReader, open_segment
from pinot_sink.segment.read.startree import read_star_trees

CELL_WIDTH = 32


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="show a segment's metadata, columns, indexes and rows",
        description=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument("path", help="segment directory, .tar.gz, or metadata.properties")
    parser.add_argument("--rows", type=int, default=10, metavar="N", help="rows to print (default 10, 0 for none)")
    parser.add_argument("--columns", metavar="A,B", help="only these columns (comma separated)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.rows < 0:
        raise ValueError("--rows must be >= 0")
    _refuse_a_folder_of_segments(args.path)
    with open_segment(args.path) as reader:
        columns = _selected_columns(reader, args.columns)
        report = inspect_segment(reader, columns, args.rows)
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n" if args.json else render_text(report)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `pinot-sink inspect ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _refuse_a_folder_of_segments(path: str) -> None:
    """A table's folder (tarballs, or segment folders, inside) is not one segment: it was told 'metadata.properties
    is missing'; name what is inside and how to inspect one."""
    from pinot_sink.segment.format import METADATA_FILE
    from pinot_sink.segment.read.tar_source import TARBALL_SUFFIXES

    if not os.path.isdir(path) or any(os.path.exists(os.path.join(path, p, METADATA_FILE)) for p in ("", "v3")):
        return
    inside = sorted(name for name in os.listdir(path) if name.endswith(TARBALL_SUFFIXES)
                    or os.path.exists(os.path.join(path, name, METADATA_FILE))
                    or os.path.exists(os.path.join(path, name, "v3", METADATA_FILE)))
    if inside:
        raise SegmentFormatError(f"{path} is a folder of {len(inside)} segment(s), not a segment: inspect one, "
                                 f"e.g. pinot-sink inspect {shlex.quote(os.path.join(path, inside[0]))}")


def _selected_columns(reader: SegmentReader, names: str | None) -> list[str]:
    if not names:
        return reader.column_names
    selected = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in selected if n not in reader.metadata.columns]
    if unknown:
        raise ValueError(f"no such columns in the segment: {unknown} (it has {reader.column_names})")
    return selected


def inspect_segment(reader: SegmentReader, columns: list[str], rows: int) -> dict[str, Any]:
    """The report as JSON-ready data (the text output renders this same dict)."""
    meta = reader.metadata
    segment = {
        "name": meta.name,
        "table": meta.table_name,
        "path": reader.path,
        "layout": reader.layout,
        "version": meta.version,
        "totalDocs": meta.total_docs,
        "crc": meta.crc,
        "dataCrc": meta.data_crc,
        "creationTimeMillis": meta.creation_time_ms,
        "creationTime": _iso(meta.creation_time_ms),
        "timeColumn": meta.time_column,
        "timeUnit": meta.time_unit,
        "startTime": meta.start_time,
        "endTime": meta.end_time,
        "startTimeIso": _iso(meta.start_time_ms),
        "endTimeIso": _iso(meta.end_time_ms),
        "custom": meta.custom,
        "starTreeCount": meta.star_tree_count,
        "undescribedColumns": list(meta.undescribed_columns),
    }
    readable = reader.layout != "metadata-only" and _has_index_data(reader)
    segment["indexDataAvailable"] = readable
    computed = reader.compute_crcs() if readable else None
    segment["computedCrc"], segment["computedDataCrc"] = computed if computed else (None, None)
    report: dict[str, Any] = {"segment": segment, "columns": [], "rows": None}
    segment["starTrees"] = _star_trees(reader) if readable and meta.star_tree_count else []
    for name in columns:
        column = reader.column(name)
        entry = {
            "name": name,
            "fieldType": column.field_type,
            "dataType": column.data_type,
            "storedType": column.stored_type,
            "singleValue": column.single_value,
            "cardinality": column.cardinality,
            "encoding": column.forward_index_encoding,
            "sorted": column.sorted,
            "bitsPerElement": column.bits_per_element,
            "totalNumberOfEntries": column.total_number_of_entries,
            "maxNumberOfMultiValues": column.max_number_of_multi_values,
            "lengthOfLongestElement": column.length_of_longest_element,
            "minValue": _json_value(column.min_value, column.stored_type),
            "maxValue": _json_value(column.max_value, column.stored_type),
            "defaultNullValue": _json_value(column.default_null_value, column.stored_type),
            "partitionFunction": column.partition_function,
            "numPartitions": column.num_partitions,
            "partitions": list(column.partitions) if column.partitions is not None else None,
            "indexes": reader.index_sizes(name),
            "nullCount": None,
        }
        if readable:
            mask = reader.null_mask(name)
            entry["nullCount"] = int(mask.sum()) if mask is not None else None
            payload = reader.index_buffer(name, "json_index") if "json_index" in entry["indexes"] else None
            if payload is not None:
                entry["jsonIndex"] = json_index_paths(payload)
        report["columns"].append(entry)
    if rows and readable:
        shown = min(rows, meta.total_docs)
        values = {name: reader.values(name).slice(0, shown).to_pylist() for name in columns}
        stored = {name: reader.column(name).stored_type for name in columns}
        report["rows"] = [
            {name: _json_value(values[name][i], stored[name]) for name in columns} for i in range(shown)
        ]
    return report


def _star_trees(reader: SegmentReader) -> list[dict[str, Any]]:
    """Per star-tree: its split order, function pairs, leaf size, records and nodes."""
    try:
        trees = read_star_trees(reader, decode=False)
    except (OSError, KeyError, ValueError) as exc:
        return [{"error": f"star-tree files unreadable: {exc}"}]
    return [{
        "index": t.index,
        "dimensionsSplitOrder": t.dimensions,
        "skipStarNodeCreationForDimensions": t.skip_star_node_creation,
        "functionColumnPairs": t.function_column_pairs,
        "maxLeafRecords": t.max_leaf_records,
        "numDocs": t.num_docs,
        "numNodes": t.num_nodes,
        "numStarNodes": int((t.nodes[1:, 1] == -1).sum()),
    } for t in trees]


def _has_index_data(reader: SegmentReader) -> bool:
    if not reader.column_names:
        return False
    try:
        reader.index_buffer(reader.column_names[0], "forward_index")
        return True
    except SegmentFormatError:
        return False


def _iso(millis: int | None) -> str | None:
    if millis is None or millis == -(2**63):
        return None
    moment = _dt.datetime.fromtimestamp(millis / 1000, tz=_dt.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_value(value: Any, stored_type: str) -> Any:
    """JSON-safe: bytes as hex, non-finite floats as Java spells them, timestamps ISO, decimals as text."""
    if value is None:
        return None
    if isinstance(value, list):
        return [_json_value(v, stored_type) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, _dt.datetime):
        return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if stored_type == "FLOAT":
            return float(str(np.float32(value)))  # shortest float32 digits, as Pinot prints it
    return value


# --- text rendering -------------------------------------------------------------------------------


def render_text(report: dict[str, Any]) -> str:
    seg = report["segment"]
    lines = [
        f"segment     {seg['name']}   table {seg['table']}   {seg['totalDocs']} docs   "
        f"layout {seg['layout']} (segment.index.version {seg['version']})",
        f"path        {seg['path']}",
    ]
    if seg["crc"] is not None:
        data_crc = seg["dataCrc"] if seg["dataCrc"] is not None else "-"
        check = ""
        if seg["computedCrc"] is not None:
            # A server-converted v3 segment keeps its v1 CRC; a difference is not always corruption.
            check = ("   (matches the files)" if seg["computedCrc"] == seg["crc"]
                     else f"   (the files give crc {seg['computedCrc']})")
        lines.append(f"created     {seg['creationTime']}   crc {seg['crc']}   data crc {data_crc}{check}")
    if seg["timeColumn"]:
        span = ""
        if seg["startTime"] is not None:
            span = (f"   {seg['startTime']} .. {seg['endTime']} {seg['timeUnit']}"
                    f"   ({seg['startTimeIso']} .. {seg['endTimeIso']})")
        lines.append(f"time        {seg['timeColumn']}{span}")
    for key, value in seg["custom"].items():
        lines.append(f"custom      {key} = {value}")
    if seg["starTreeCount"]:
        lines.append(f"star-trees  {seg['starTreeCount']}")
        for tree in seg.get("starTrees") or []:
            if "error" in tree:
                lines.append(f"  {tree['error']}")
                continue
            skip = tree["skipStarNodeCreationForDimensions"]
            lines.append(f"  tree {tree['index']}    split {' > '.join(tree['dimensionsSplitOrder'])}"
                         + (f" (no star node: {', '.join(skip)})" if skip else "")
                         + f"   {tree['numNodes']} nodes ({tree['numStarNodes']} star)   {tree['numDocs']} records"
                         + f"   max leaf {tree['maxLeafRecords']}")
            lines.append(f"            {len(tree['functionColumnPairs'])} function pairs: "
                         + ", ".join(tree["functionColumnPairs"]))
    if seg["undescribedColumns"]:
        lines.append(f"warning     listed without column metadata: {', '.join(seg['undescribedColumns'])}")
    lines.append("")

    header = ["column", "type", "field", "card", "encoding", "sorted", "bits", "nulls", "min", "max", "indexes"]
    table = []
    for c in report["columns"]:
        data_type = c["dataType"] + ("" if c["singleValue"] else "[]")
        nulls = "-" if c["nullCount"] is None else str(c["nullCount"])
        indexes = ", ".join(f"{k} {_size(v)}" for k, v in sorted(c["indexes"].items())) or "-"
        table.append([
            c["name"], data_type, c["fieldType"], str(c["cardinality"]), c["encoding"],
            "yes" if c["sorted"] else "no", str(c["bitsPerElement"]) if c["bitsPerElement"] >= 0 else "-",
            nulls, _cell(c["minValue"]), _cell(c["maxValue"]), indexes,
        ])
    lines.extend(_aligned(header, table))
    lines.append("")
    for c in report["columns"]:
        if c.get("jsonIndex"):
            summary = c["jsonIndex"]
            lines.append(f"json index  {c['name']}: {len(summary['paths'])} paths, {summary['flattenedDocs']} flattened "
                         f"docs (max posting key {summary['maxValueLength']} bytes)")
            lines.extend(_aligned(["path", "docs", "values"],
                                  [[p["path"] or "(top-level value)", str(p["docs"]), str(p["values"])]
                                   for p in summary["paths"]]))
            lines.append("")

    rows = report["rows"]
    if rows is None:
        if not seg["indexDataAvailable"]:
            lines.append("(metadata only: no index data to show rows from)")
    elif rows:
        names = [c["name"] for c in report["columns"]]
        lines.append(f"rows 0..{len(rows) - 1} of {seg['totalDocs']}")
        lines.extend(_aligned(["doc"] + names, [[str(i)] + [_cell(r[n]) for n in names] for i, r in enumerate(rows)]))
    return "\n".join(lines) + "\n"


def _size(size: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if size < 1024 or unit == "MiB":
            return f"{size} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


def _cell(value: Any) -> str:
    if value is None:
        text = "null"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)  # quotes make empty strings and spaces visible
    else:
        text = json.dumps(value, ensure_ascii=False) if isinstance(value, list) else str(value)
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    render = lambda row: "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()  # noqa: E731
    return [render(header)] + [render(row) for row in rows]


# Re-exported for tests and callers that want the report without printing.
__all__ = ["register", "run", "inspect_segment", "render_text"]
