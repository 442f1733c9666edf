"""`pinot-sink build`: build segment tarballs from Parquet, CSV or JSON-lines files, as the data source does.

    pinot-sink build --schema S.json --table-config T.json --input FILE [FILE...] --out DIR
                     [--name NAME] [--creation-time TIME] [--keep-dir] [--segment-version v1|v3]
                     [--no-sort] [--max-rows N] [--max-size SIZE]
                     [--option convert.on-oversize-string=pinot ...] [--option ingestion.unsupported=skip]
                     [--option build.unsupported-indexes=defer|error]

The files are read batch by batch and handed to the data source's own loop, ``pinot_sink.partition_writer``
(ingestion steps, conversion with the ``convert.*`` policies, buffering until ``--max-rows`` rows or
``--max-size`` bytes, whose defaults are the data source's ``sink.buffer-flush.*``, building); ``--option``
values are parsed by the data source's parser. Progress goes to stderr, a JSON summary to stdout. Segments
are named as the data source names them (Pinot's SimpleSegmentNameGenerator,
``<table>_<minTime>_<maxTime>_<sequence>``, min/max printed as Java prints them, Pinot's name rules) without
the write tags; ``--name`` names a single segment, or ``<name>_<sequence>`` when the input makes several.
Tarballs get the umask's file mode, as the data source's published ones do.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from ..options import OPTIONS

_FORMATS = {
    ".parquet": "parquet", ".pq": "parquet",
    ".csv": "csv",
    ".json": "json", ".jsonl": "json", ".ndjson": "json",
}
# Options of the data source that apply to a local build (docs/options.md).
_CLI_OPTIONS = ("convert.on-overflow", "convert.on-fraction", "convert.on-oversize-string",
                "convert.on-sub-millisecond", "convert.on-null-time", "ingestion.unsupported",
                "build.unsupported-indexes", "build.sort", "schema.unknown-columns", "schema.case-sensitive",
                "table.create", "table.time-column", "table.metric-columns", "table.sorted-column",
                "table.inverted-index-columns", "table.range-index-columns", "table.bloom-filter-columns")
# The data source's defaults (sink.buffer-flush.*), one home: pinot_sink.options.OPTIONS.
DEFAULT_MAX_ROWS = int(OPTIONS["sink.buffer-flush.max-rows"][0])
DEFAULT_MAX_SIZE = OPTIONS["sink.buffer-flush.max-size"][0]
_BATCH_ROWS = 65_536


def register(subparsers):
    parser = subparsers.add_parser("build", help="build Pinot segment tarballs from Parquet/CSV/JSON-lines files")
    parser.add_argument("--schema", type=Path, help="Pinot schema JSON file (or --option table.create=if-missing)")
    parser.add_argument("--table-config", type=Path, help="Pinot table config JSON file")
    parser.add_argument("--table", metavar="NAME",
                        help="with --option table.create=if-missing and no --schema: the table whose schema and "
                             "config are derived from the input (written to --out as schema.json and "
                             "table_config.json, for pinot-sink push --create-table)")
    parser.add_argument("--input", required=True, nargs="+", type=Path, metavar="FILE",
                        help="input files (.parquet, .csv, .json/.jsonl), read in this order")
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    # Several segments are numbered, not refused (unlike the data source's segment-name.type=fixed): a build
    # cut by --max-rows/--max-size is one named batch, and a file's row count should not decide whether it runs.
    parser.add_argument("--name", help="segment name when the input makes one segment; when it makes several "
                                       "(--max-rows, --max-size) they are NAME_0, NAME_1, ... "
                                       "(default: <table>_<minTime>_<maxTime>_<sequence>)")
    parser.add_argument("--creation-time", type=_creation_time, metavar="TIME",
                        help="creation time: epoch millis or ISO-8601, as the creation-time option "
                             "(epoch seconds or micros are an error; default: now)")
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


def parse_cli_options(pairs: list[str]) -> dict[str, str]:
    from ..options import OptionError, suggest

    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lower()
        if not sep or not value.strip():
            raise OptionError(f"--option {pair!r}: write KEY=VALUE, e.g. convert.on-oversize-string=pinot")
        if key not in _CLI_OPTIONS:
            hint = "" if key in OPTIONS else suggest(key)  # a write option it does not take: not "did you mean" itself
            raise OptionError(f"--option {key!r} does not apply to pinot-sink build{hint} "
                              f"(these do: {', '.join(_CLI_OPTIONS)})")
        options[key] = value.strip()
    return options


class _OutputFolder:
    """The CLI's stage: segments are built straight into ``--out``, and given the mode the data source's
    published tarballs get (the umask's, 0644 under 022: Pinot's servers read them as another user)."""

    def __init__(self, out: Path) -> None:
        self.build_dir = out

    def stage(self, built) -> str:
        from ..storage.files import public_file_mode

        Path(built.tar_path).chmod(public_file_mode())
        return str(built.tar_path)


def _creation_time(text: str) -> int:
    """The data source's rule (epoch millis or ISO-8601): the flag refused '2024-01-01T00:00:00Z', which the
    creation-time option takes."""
    import argparse

    from ..options import OptionError, parse_creation_time

    try:
        return parse_creation_time(text)
    except OptionError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("option 'creation-time': ", "")) from None


def _schema_and_config(args) -> tuple[dict, dict]:
    """``--schema`` / ``--table-config``, or (``--option table.create=if-missing`` and ``--table``) the ones
    the data source would derive from the input's columns, also written to ``--out``."""
    from ..options import OptionError, WriteOptions, load_json_option
    from ..table_create import derived_schema, derived_table_config

    if args.schema is not None:
        if args.table_config is None:
            raise OptionError("--table-config is needed with --schema")
        # load_json_option names the flag: a bare JSONDecodeError / FileNotFoundError said neither which file
        return (load_json_option(str(args.schema), "--schema"),
                load_json_option(str(args.table_config), "--table-config"))
    options = WriteOptions.parse({"table-name": args.table or "?", **parse_cli_options(args.option)})
    if options.table_create.mode != "if-missing" or not args.table:
        raise OptionError("give --schema and --table-config, or --table NAME with --option table.create=if-missing "
                          "to derive them from the input")
    arrow_schema = next(read_batches(args.input[0])).schema
    schema_json = derived_schema(args.table, arrow_schema, options.table_create)
    table_config = derived_table_config(args.table, schema_json, options.table_create)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "schema.json").write_text(json.dumps(schema_json, indent=2))
    (args.out / "table_config.json").write_text(json.dumps(table_config, indent=2))
    return schema_json, table_config


def make_writer(args, *, progress=None, on_segment=None):
    """The ``PartitionWriter`` for these arguments, prepared as a Spark write prepares
    (``pinot_sink.prepare``): the data source's option parsing, the schema and table config checks, the index
    plan, the ingestion steps and write plan for each input's columns, naming; its defaults and file modes."""
    from ..buffer import BucketBuffer, PartitionBuffer
    from ..naming import SegmentNameError
    from ..options import OptionError, WriteOptions, parse_int, parse_size
    from ..partition_writer import PartitionWriter, SegmentSpec
    from ..partitioning import SegmentKeys, partitioned_columns
    from ..prepare import parse_table, prepare_table

    for path in args.input:
        if path.suffix.lower() not in _FORMATS:
            raise ValueError(f"{path}: unknown input format (use .parquet, .csv, .json, .jsonl or .ndjson)")
    schema, table_config = parse_table(*_schema_and_config(args))
    raw_table = table_config.raw_table_name
    raw_options = {"table-name": raw_table, **parse_cli_options(args.option)}
    if args.skip_unsupported_indexes:
        raw_options["build.unsupported-indexes"] = "defer"
    # The data source's parser, so every value means (and fails) the same here as in a Spark write.
    prepared = prepare_table(WriteOptions.parse(raw_options), schema, table_config)
    options = prepared.options
    max_rows = parse_int(str(args.max_rows), "--max-rows")
    max_bytes = parse_size(args.max_size, "--max-size")
    for line in prepared.index_plan.deferred_lines():
        print(f"pinot-sink build: {line}", file=sys.stderr, flush=True)
    build_options = replace(options.build, segment_version=args.segment_version, keep_dir=args.keep_dir,
                            sort_by_sorted_column=options.build.sort_by_sorted_column and not args.no_sort)
    try:
        namer = prepared.namer(name=args.name)
    except SegmentNameError as exc:
        raise OptionError(f"--name: {exc}" if args.name else f"table {raw_table}: {exc}") from None
    # A name too long for a file name failed in the build as '[Errno 36] File name too long' (the data source
    # checks it on the driver, job._check_name_length).
    from ..segment.format import FILE_NAME_MAX_BYTES, SEGMENT_NAME_MAX_BYTES

    longest = namer.longest_bytes()  # the sequence included
    if longest > SEGMENT_NAME_MAX_BYTES:
        raise OptionError(f"{'--name' if args.name else f'table {raw_table}'}: segment names would be up to {longest} "
                          f"bytes, but a file name holds {FILE_NAME_MAX_BYTES} and a segment name at most "
                          f"{SEGMENT_NAME_MAX_BYTES}: shorten {'--name' if args.name else 'the table name'}")

    args.out.mkdir(parents=True, exist_ok=True)
    # now() / ago() give the build's start, one instant for every row and segment of this run
    instant_ms = int(time.time() * 1000)
    spec = SegmentSpec(schema, table_config, build_options, args.creation_time, namer, single_name=args.name)
    # One partition id per segment, as a Spark task cuts them: Pinot refuses an OFFLINE upsert segment with two
    # ids, and a partitioned table's broker prunes by the one id each segment records.
    partitioned = partitioned_columns(table_config, schema)
    buffer = (BucketBuffer(max_rows, max_bytes, SegmentKeys(table_config, schema, partitioned)) if partitioned
              else PartitionBuffer(max_rows, max_bytes))
    return PartitionWriter(spec, rules=prepared.rules, conversion=options.conversion,
                           buffer=buffer, stage=_OutputFolder(args.out),
                           where=f"table {raw_table}", rows_of="the input", max_bytes=max_bytes,
                           on_segment=on_segment, progress=progress, instant_ms=instant_ms)


class BuildProgress:
    """The build's progress bar (tqdm, on stderr when it is a terminal): rows read of the input's rows
    (known for Parquet), segments built, their bytes, the rate; driven by the ``PartitionWriter``'s
    progress callback."""

    def __init__(self, total_rows: int | None, stream=None) -> None:
        from tqdm import tqdm

        self.stream = stream or sys.stderr
        self._bar = tqdm(total=total_rows, unit=" rows", unit_scale=True, desc="build", file=self.stream,
                         disable=None, dynamic_ncols=True, postfix="0 segments")

    def __call__(self, progress) -> None:
        self._bar.set_postfix_str(f"{progress.segments_built} segments, {progress.bytes_built / 1024**2:.1f} MB",
                                  refresh=False)
        self._bar.update(progress.rows_in - self._bar.n)

    def write(self, line: str) -> None:
        """A line above the bar (the bar is redrawn below it)."""
        self._bar.write(line, file=self.stream)

    def close(self) -> None:
        self._bar.close()


def input_rows(paths: list[Path]) -> int | None:
    """The rows of the input when the files say so without being read (Parquet footers), else None."""
    total = 0
    for path in paths:
        if _FORMATS.get(path.suffix.lower()) != "parquet":
            return None
        import pyarrow.parquet as pq

        total += pq.ParquetFile(path).metadata.num_rows
    return total


def run(args) -> int:
    writer = None
    bar = BuildProgress(input_rows(args.input))

    def said(segment) -> None:
        built = segment.built
        bar.write(f"pinot-sink build: segment {segment.sequence} {built.name}: {built.rows} rows, {built.tar_bytes} "
                  f"bytes (read {writer.rows_in} rows, filtered {writer.filtered_rows}, errors {writer.error_rows})")

    writer = make_writer(args, on_segment=said, progress=bar)
    try:
        built = [segment.built for segment in writer.write(_all_batches(args.input))]
    finally:
        bar.close()
    if not built:
        raise ValueError(f"no rows to build a segment from (read {writer.rows_in}, filtered {writer.filtered_rows})")
    summaries = [_summary(segment) for segment in built]
    totals = {"rowsRead": writer.rows_in, "filteredRows": writer.filtered_rows, "errorRows": writer.error_rows}
    out = {**summaries[0], **totals} if len(summaries) == 1 else {
        "segments": summaries, "rows": sum(s["rows"] for s in summaries), **totals}
    print(json.dumps(out, indent=2))
    return 0


def _all_batches(paths: list[Path]) -> Iterator[pa.RecordBatch]:
    for path in paths:
        yield from read_batches(path)


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
