"""`pinot-sink schema`: print a Pinot schema JSON for a Spark or Flink column list, ready to POST to
the controller (``POST /schemas``).

    pinot-sink schema --from-flink-ddl "id BIGINT NOT NULL, ts TIMESTAMP(3), tags ARRAY<STRING>" \\
        --name events --time-column ts --metric-columns amount

The DDL may be given inline, as ``@path`` (a file) or ``-`` (standard input); a whole
``CREATE TABLE ... ( ... ) WITH (...)`` statement is accepted too.
"""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print a Pinot schema JSON for Spark or Flink column definitions",
        description=__doc__.split("\n\n", 1)[0],
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from-spark-ddl", metavar="DDL",
                        help='Spark column list, e.g. "id BIGINT NOT NULL, s STRUCT<a: INT>" (@file or - for stdin)')
    source.add_argument("--from-flink-ddl", metavar="DDL",
                        help='Flink column list or CREATE TABLE statement (@file or - for stdin)')
    parser.add_argument("--name", required=True, help="the schema name (usually the table name)")
    parser.add_argument("--time-column", metavar="C",
                        help="the time column (Flink: defaults to the WATERMARK column)")
    parser.add_argument("--metric-columns", metavar="A,B", default="", help="numeric columns to declare as metrics")
    parser.add_argument("--json-columns", metavar="A,B", default="",
                        help="columns to store as Pinot JSON (STRING holding JSON, arrays of rows)")
    parser.add_argument("--compact", action="store_true", help="one line instead of indented JSON")
    parser.set_defaults(func=run)


def _read(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    if value.startswith("@"):
        with open(value[1:], encoding="utf-8") as handle:
            return handle.read()
    return value


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def run(args: argparse.Namespace) -> int:
    from type_mapping.flink_ddl import flink_ddl_to_pinot
    from type_mapping.pinot_schema import SchemaError
    from type_mapping.reconcile import same_names
    from type_mapping.spark_types import spark_schema_to_pinot

    from ..options import OptionError, validate_table_name

    try:  # the schema is named as its table: a name Pinot refuses (POST /schemas) is refused here
        validate_table_name(args.name)
    except OptionError as exc:
        raise SystemExit(f"pinot-sink schema: --name: {str(exc).split(': ', 1)[1]}") from None
    options = dict(time_column=args.time_column, metric_columns=_names(args.metric_columns),
                   json_columns=_names(args.json_columns))
    try:
        if args.from_spark_ddl is not None:
            schema = spark_schema_to_pinot(_read(args.from_spark_ddl), args.name, **options)
        else:
            schema = flink_ddl_to_pinot(_read(args.from_flink_ddl), args.name, **options)
    except ValueError as exc:  # the mapping names its keyword arguments: name the flags typed instead
        text = str(exc)
        for keyword in options:
            text = text.replace(f"{keyword}:", f"--{keyword.replace('_', '-')}:")
        try:
            renamed = type(exc)(text)
        except Exception:  # an error type that wants more than a message: as it came
            raise exc from None
        raise renamed from None
    if args.from_spark_ddl is not None:
        # Spark's column names are case-insensitive, and a write (its default schema.case-sensitive=false)
        # refuses 'a' and 'A' side by side: a schema it would refuse is refused here, before it is posted.
        for first, second in same_names(list(schema.column_names))[:1]:
            raise SchemaError(f"--from-spark-ddl: columns {first!r} and {second!r} have the same name ignoring case, "
                              "which a Spark write refuses: rename one")
    print(json.dumps(schema.to_json(), indent=None if args.compact else 2, ensure_ascii=False))
    return 0
