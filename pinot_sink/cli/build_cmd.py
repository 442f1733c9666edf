"""`pinot-sink build`: build segment tarballs from Parquet, CSV or JSON-lines files, as the data source does.

    pinot-sink build --schema S.json --table-config T.json --input FILE [FILE...] --out DIR
                     [--name NAME] [--creation-time MILLIS] [--keep-dir] [--segment-version v1|v3]
                     [--no-sort] [--max-rows N] [--max-size SIZE]
                     [--option convert.on-oversize-string=pinot ...] [--option ingestion.unsupported=skip]
                     [--option build.unsupported-indexes=defer|error]

The files are read batch by batch, go through the table config's ingestion steps (complex types,
transforms, filter: ``pinot_sink.ingestion``), are converted to Pinot's stored form by
``type_mapping.convert`` with the ``convert.*`` policies (the same conversion the Spark writer uses) and
are buffered until ``--max-rows`` rows or ``--max-size`` bytes, where a segment is cut and built by
``pinot_sink.segment.build_segment``; so at most one segment's rows are held. Progress goes to stderr, a
JSON summary to stdout. Segments are named like Pinot's SimpleSegmentNameGenerator,
``<table>_<minTime>_<maxTime>_<sequence>`` (``<table>_<sequence>`` without a time column); ``--name`` names a
single segment, or ``<name>_<sequence>`` when the input makes several.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterator

import pyarrow as pa

_FORMATS = {
    ".parquet": "parquet", ".pq": "parquet",
    ".csv": "csv",
    ".json": "json", ".jsonl": "json", ".ndjson": "json",
}
# Options of the data source that apply to a local build (docs/options.md).
_CLI_OPTIONS = ("convert.on-overflow", "convert.on-fraction", "convert.on-oversize-string",
                "convert.on-sub-millisecond", "convert.on-null-time", "ingestion.unsupported",
                "build.unsupported-indexes")
DEFAULT_MAX_ROWS = 5_000_000
DEFAULT_MAX_SIZE = "512mb"
_BATCH_ROWS = 65_536


def register(subparsers):
    parser = subparsers.add_parser("build", help="build Pinot segment tarballs from Parquet/CSV/JSON-lines files")
    parser.add_argument("--schema", required=True, type=Path, help="Pinot schema JSON file")
    parser.add_argument("--table-config", required=True, type=Path, help="Pinot table config JSON file")
    parser.add_argument("--input", required=True, nargs="+", type=Path, metavar="FILE",
                        help="input files (.parquet, .csv, .json/.jsonl), read in this order")
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--name", help="segment name (default: <table>_<minTime>_<maxTime>_<sequence>)")
    parser.add_argument("--creation-time", type=int, metavar="MILLIS", help="creation time (default: now)")
    parser.add_argument("--keep-dir", action="store_true", help="also leave the untarred segment directories")
    parser.add_argument("--segment-version", choices=("v1", "v3"), help="override the table's segment version")
    parser.add_argument("--skip-unsupported-indexes", action="store_true",
                        help="the former name of --option build.unsupported-indexes=defer (now the default)")
    parser.add_argument("--no-sort", action="store_true", help="keep the input row order (no sortedColumn sort)")
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, metavar="N",
                        help=f"cut a segment at this many rows (default {DEFAULT_MAX_ROWS})")
    parser.add_argument("--max-size", default=DEFAULT_MAX_SIZE, metavar="SIZE",
                        help=f"cut a segment when its converted rows reach this size, e.g. 256mb "
                             f"(default {DEFAULT_MAX_SIZE})")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help=f"a data source option that applies here: {', '.join(_CLI_OPTIONS)}")
    parser.set_defaults(func=run)


def read_input(path: Path) -> pa.Table:
    """A whole input file as one table (kept for callers that want that)."""
    return pa.Table.from_batches(list(read_batches(path)))


def read_batches(path: Path) -> Iterator[pa.RecordBatch]:
    """An input file batch by batch, so that a large file is never held whole.

    Text formats keep date-like text as text: pyarrow would infer timestamps from ISO-8601 strings, where
    Pinot's JSON and CSV readers hand the text to the ingestion transforms (``fromDateTime``) as it is.
    """
    kind = _FORMATS.get(path.suffix.lower())
    if kind == "parquet":
        import pyarrow.parquet as pq

        yield from pq.ParquetFile(path).iter_batches(batch_size=_BATCH_ROWS)
    elif kind == "csv":
        import pyarrow.csv as pacsv

        inferred = pacsv.open_csv(path).schema
        text = {f.name: pa.string() for f in inferred if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)}
        yield from pacsv.open_csv(path, convert_options=pacsv.ConvertOptions(column_types=text))
    elif kind == "json":
        import pyarrow.json as pajson

        inferred = pajson.open_json(path).schema
        if any(_has_timestamp(f.type) for f in inferred):
            explicit = pa.schema([pa.field(f.name, _timestamps_as_text(f.type)) for f in inferred])
            yield from pajson.open_json(path, parse_options=pajson.ParseOptions(explicit_schema=explicit))
        else:
            yield from pajson.open_json(path)
    else:
        raise ValueError(f"{path}: unknown input format (use .parquet, .csv, .json, .jsonl or .ndjson)")


def _has_timestamp(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return True
    if pa.types.is_struct(t):
        return any(_has_timestamp(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_timestamp(t.value_type)
    return False


def _timestamps_as_text(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return pa.string()
    if pa.types.is_struct(t):
        return pa.struct([pa.field(t.field(i).name, _timestamps_as_text(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_list(t):
        return pa.list_(_timestamps_as_text(t.value_type))
    return t


def default_segment_name(raw_table: str, columns, time_column: str | None, sequence: int = 0) -> str:
    import pyarrow.compute as pc

    if time_column and time_column in columns.table.column_names:
        bounds = pc.min_max(columns.table.column(time_column))
        return f"{raw_table}_{bounds['min'].as_py()}_{bounds['max'].as_py()}_{sequence}"
    return f"{raw_table}_{sequence}"


def parse_cli_options(pairs: list[str]) -> dict[str, str]:
    from ..options import OptionError, suggest

    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lower()
        if not sep or not value.strip():
            raise OptionError(f"--option {pair!r}: write KEY=VALUE, e.g. convert.on-oversize-string=pinot")
        if key not in _CLI_OPTIONS:
            raise OptionError(f"--option {key!r} does not apply to pinot-sink build{suggest(key)} "
                              f"(these do: {', '.join(_CLI_OPTIONS)})")
        options[key] = value.strip().lower()
    return options


def _conversion_options(options: dict[str, str]):
    from type_mapping.convert import ConversionOptions

    from ..options import OptionError

    fields = {k[len("convert."):].replace("-", "_"): v for k, v in options.items() if k.startswith("convert.")}
    try:
        return ConversionOptions(**fields)
    except ValueError as exc:
        raise OptionError(f"--option convert.*: {exc}") from None


def run(args) -> int:
    from type_mapping.convert import to_pinot_columns
    from type_mapping.reconcile import plan_write
    from type_mapping.pinot_schema import PinotSchema

    from ..buffer import PartitionBuffer
    from ..ingestion import IngestionPipeline
    from ..options import OptionError, parse_size
    from ..segment import BuildOptions, build_segment
    from ..segment.index_policy import normalise_mode, plan_indexes
    from ..segment.table_config import TableConfig

    options = parse_cli_options(args.option)
    conversion = _conversion_options(options)
    unsupported = options.get("ingestion.unsupported", "error")
    if unsupported not in ("error", "skip"):
        raise OptionError(f"--option ingestion.unsupported: {unsupported!r} is not error or skip")
    if args.max_rows < 1:
        raise OptionError(f"--max-rows must be positive, got {args.max_rows}")
    max_bytes = parse_size(args.max_size, "--max-size")
    for path in args.input:
        if path.suffix.lower() not in _FORMATS:
            raise ValueError(f"{path}: unknown input format (use .parquet, .csv, .json, .jsonl or .ndjson)")

    schema = PinotSchema.from_json(json.loads(args.schema.read_text()))
    table_config = TableConfig.from_json(json.loads(args.table_config.read_text()), schema)
    time_column, raw_table = table_config.time_column, table_config.raw_table_name
    try:
        index_mode = normalise_mode(options.get("build.unsupported-indexes", "defer"))
    except ValueError as exc:
        raise OptionError(f"--option {exc}") from None
    index_plan = plan_indexes(table_config, schema, index_mode)
    for line in index_plan.deferred_lines():
        print(f"pinot-sink build: {line}", file=sys.stderr, flush=True)
    build_options = BuildOptions(
        segment_version=args.segment_version,
        keep_dir=args.keep_dir,
        sort_by_sorted_column=not args.no_sort,
        unsupported_indexes=index_mode,
        index_plan=index_plan,
    )
    buffer = PartitionBuffer(args.max_rows, max_bytes)
    built: list = []
    pending: list = []  # with --name, the first segment waits until we know whether a second one follows
    counts = {"read": 0, "filtered": 0, "errors": 0}

    def build(columns, sequence: int, single: bool):
        if args.name:
            name = args.name if single else f"{args.name}_{sequence}"
        else:
            name = default_segment_name(raw_table, columns, time_column, sequence)
        segment = build_segment(columns, schema, table_config, args.out, name, args.creation_time, build_options)
        built.append(segment)
        print(f"pinot-sink build: segment {sequence} {segment.name}: {segment.rows} rows, {segment.tar_bytes} bytes "
              f"(read {counts['read']} rows, filtered {counts['filtered']}, errors {counts['errors']})",
              file=sys.stderr, flush=True)

    def cut(columns) -> None:
        if args.name and not built and not pending:
            pending.append(columns)
            return
        if pending:
            build(pending.pop(), 0, single=False)
        build(columns, len(built), single=False)

    pipelines: dict[pa.Schema, tuple[IngestionPipeline, object]] = {}
    for path in args.input:
        for batch in read_batches(path):
            if batch.schema not in pipelines:
                pipeline = IngestionPipeline.from_configs(schema, table_config, batch.schema, unsupported=unsupported)
                pipelines[batch.schema] = (pipeline, plan_write(pipeline.output_schema, schema,
                                                                table_config=table_config))
            pipeline, plan = pipelines[batch.schema]
            result = pipeline.apply(batch, counts["read"])
            counts["read"] += batch.num_rows
            counts["filtered"] += result.filtered_rows
            counts["errors"] += result.error_rows
            if result.table.num_rows == 0:
                continue
            columns = to_pinot_columns(result.table, schema, plan, options=conversion,
                                       row_offset=counts["read"] - batch.num_rows)
            for full in buffer.add(columns):
                cut(full)
    rest = buffer.drain()
    if pending:
        if rest is None:
            build(pending.pop(), 0, single=True)
        else:
            cut(rest)
    elif rest is not None:
        build(rest, len(built), single=not built)
    elif not built:
        raise ValueError(f"no rows to build a segment from (read {counts['read']}, filtered {counts['filtered']})")

    summaries = [_summary(segment) for segment in built]
    totals = {"rowsRead": counts["read"], "filteredRows": counts["filtered"], "errorRows": counts["errors"]}
    out = {**summaries[0], **totals} if len(summaries) == 1 else {
        "segments": summaries, "rows": sum(s["rows"] for s in summaries), **totals}
    print(json.dumps(out, indent=2))
    return 0


def _summary(built) -> dict:
    return {
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
        "deferredIndexes": built.skipped_indexes,
    }
