"""`pinot-sink build`: build one segment tarball from Parquet, CSV or JSON-lines files.

    pinot-sink build --schema S.json --table-config T.json --input FILE [FILE...] --out DIR
                     [--name NAME] [--creation-time MILLIS] [--keep-dir] [--segment-version v1|v3]
                     [--skip-unsupported-indexes] [--no-sort]

The files are read with pyarrow, converted to Pinot's stored form by ``type_mapping.convert`` (the
same conversion the Spark writer uses) and built by ``pinot_sink.segment.build_segment``. Without
``--name`` the segment is named like Pinot's SimpleSegmentNameGenerator:
``<table>_<minTime>_<maxTime>_0`` (``<table>_0`` without a time column).
"""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

_FORMATS = {
    ".parquet": "parquet", ".pq": "parquet",
    ".csv": "csv",
    ".json": "json", ".jsonl": "json", ".ndjson": "json",
}


def register(subparsers):
    parser = subparsers.add_parser("build", help="build a Pinot segment tarball from Parquet/CSV/JSON-lines files")
    parser.add_argument("--schema", required=True, type=Path, help="Pinot schema JSON file")
    parser.add_argument("--table-config", required=True, type=Path, help="Pinot table config JSON file")
    parser.add_argument("--input", required=True, nargs="+", type=Path, metavar="FILE",
                        help="input files (.parquet, .csv, .json/.jsonl); all go into one segment")
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--name", help="segment name (default: <table>_<minTime>_<maxTime>_0)")
    parser.add_argument("--creation-time", type=int, metavar="MILLIS", help="creation time (default: now)")
    parser.add_argument("--keep-dir", action="store_true", help="also leave the untarred segment directory")
    parser.add_argument("--segment-version", choices=("v1", "v3"), help="override the table's segment version")
    parser.add_argument("--skip-unsupported-indexes", action="store_true",
                        help="leave indexes this builder does not write to the server instead of failing")
    parser.add_argument("--no-sort", action="store_true", help="keep the input row order (no sortedColumn sort)")
    parser.set_defaults(func=run)


def read_input(path: Path) -> pa.Table:
    kind = _FORMATS.get(path.suffix.lower())
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    if kind == "csv":
        import pyarrow.csv as pacsv

        return pacsv.read_csv(path)
    if kind == "json":
        import pyarrow.json as pajson

        return pajson.read_json(path)
    raise ValueError(f"{path}: unknown input format (use .parquet, .csv, .json, .jsonl or .ndjson)")


def default_segment_name(raw_table: str, columns, time_column: str | None) -> str:
    import pyarrow.compute as pc

    if time_column and time_column in columns.table.column_names:
        bounds = pc.min_max(columns.table.column(time_column))
        return f"{raw_table}_{bounds['min'].as_py()}_{bounds['max'].as_py()}_0"
    return f"{raw_table}_0"


def run(args) -> int:
    from type_mapping.convert import to_pinot_columns
    from type_mapping.reconcile import plan_write
    from type_mapping.pinot_schema import PinotSchema

    from ..segment import BuildOptions, build_segment
    from ..segment.table_config import raw_table_name

    schema = PinotSchema.from_json(json.loads(args.schema.read_text()))
    table_config = json.loads(args.table_config.read_text())
    tables = [read_input(path) for path in args.input]
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    columns = to_pinot_columns(table, schema, plan_write(table.schema, schema, table_config=table_config))
    time_column = (table_config.get("segmentsConfig") or {}).get("timeColumnName")
    name = args.name or default_segment_name(
        raw_table_name(str(table_config.get("tableName") or schema.name)), columns, time_column
    )
    options = BuildOptions(
        segment_version=args.segment_version,
        keep_dir=args.keep_dir,
        sort_by_sorted_column=not args.no_sort,
        unsupported_indexes="skip" if args.skip_unsupported_indexes else "error",
    )
    built = build_segment(columns, schema, table_config, args.out, name, args.creation_time, options)
    print(json.dumps({
        "segment": built.name,
        "tarball": str(built.tar_path),
        "directory": str(built.dir_path) if built.dir_path else None,
        "rows": built.rows,
        "bytes": built.tar_bytes,
        "crc": built.crc,
        "timeColumn": built.time_column,
        "startTime": built.start_time,
        "endTime": built.end_time,
        "timeUnit": built.time_unit,
        "skippedIndexes": built.skipped_indexes,
    }, indent=2))
    return 0
