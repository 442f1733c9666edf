"""A parser of Flink SQL (and Spark SQL) column definitions, and Flink DDL -> Pinot schema.

Accepts what goes between the parentheses of ``CREATE TABLE t ( ... )`` (or the whole statement):

* column definitions ``name type [NOT NULL | NULL] [PRIMARY KEY NOT ENFORCED] [COMMENT '...']``, names bare
  or backtick-quoted (a doubled backtick inside is one backtick);
* types with precision and nesting: ``DECIMAL(10, 2)``, ``TIMESTAMP(3) WITH LOCAL TIME ZONE``,
  ``ARRAY<T>`` and ``T ARRAY``, ``MAP<K, V>``, ``MULTISET<T>``, ``ROW<a INT, b STRING>``, ``ROW(a INT, b STRING)``,
  (Spark) ``STRUCT<a: INT, b: STRING>``; ``NOT NULL`` inside element types;
* ``-- line`` and ``/* block */`` comments;
* table constraints: ``[CONSTRAINT n] PRIMARY KEY (a, b) NOT ENFORCED`` (kept as the primary key; without
  ``NOT ENFORCED`` Flink rejects it, and so does this parser), ``WATERMARK FOR c AS expr`` (its column is
  the event time: the default Pinot time column);
* metadata columns ``name type METADATA [FROM 'key'] [VIRTUAL]`` (kept unless VIRTUAL, which a sink never
  writes); computed columns ``name AS expr`` are rejected: compute them in the DataFrame.

Types become Arrow types (what a writer is handed), then Pinot field specs through
``arrow_to_pinot.arrow_field_to_spec``, the one mapping both dialects share.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

import pyarrow as pa

from .pinot_schema import PinotSchema, SchemaError
from .arrow_to_pinot import SourceColumn, UnsupportedTypeError, columns_to_pinot


class DDLError(SchemaError):
    """A column definition list that does not parse; the message gives the position and the column."""


# --- tokens ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tok:
    kind: str  # "word", "quoted", "string", "number", "punct", "end"
    text: str
    pos: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


_WORD = re.compile(r"[^\W\d][\w$]*")  # letters (any script), digits, _ and $
_NUMBER = re.compile(r"[0-9]+")


def _read_quoted(text: str, start: int) -> tuple[str, int]:
    """The `name` or 'string' opening at ``start`` (a doubled quote stands for itself), and the index after it."""
    quote = text[start]
    out, j = [], start + 1
    while True:
        if j >= len(text):
            what = "`quoted name`" if quote == "`" else "'string'"
            raise DDLError(f"unterminated {what} starting at position {start}")
        if text[j] == quote:
            if text.startswith(quote * 2, j):
                out.append(quote)
                j += 2
                continue
            return "".join(out), j + 1
        out.append(text[j])
        j += 1


def _tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise DDLError(f"unterminated /* comment starting at position {i}")
            i = end + 2
        elif ch in "`'":
            start = i
            value, i = _read_quoted(text, i)
            if ch == "`" and not value:
                raise DDLError(f"empty `` quoted name at position {start}")
            tokens.append(_Tok("quoted" if ch == "`" else "string", value, start))
        elif (m := _WORD.match(text, i)) is not None:
            tokens.append(_Tok("word", m.group(0), i))
            i = m.end()
        elif (m := _NUMBER.match(text, i)) is not None:
            tokens.append(_Tok("number", m.group(0), i))
            i = m.end()
        else:
            tokens.append(_Tok("punct", ch, i))
            i += 1
    tokens.append(_Tok("end", "", n))
    return tokens


# --- types -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SqlType:
    """A parsed SQL type: ``name`` upper-case canonical (INT, DECIMAL, ROW, ...), parameters, children."""

    name: str
    params: tuple[int, ...] = ()
    fields: tuple["SqlField", ...] = ()  # ROW / STRUCT
    element: "SqlType | None" = None  # ARRAY / MULTISET
    key: "SqlType | None" = None  # MAP
    value: "SqlType | None" = None  # MAP
    nullable: bool = True
    time_zone: str | None = None  # TIMESTAMP: None, "LOCAL" or "ZONED"

    def __str__(self) -> str:
        if self.name in ("ARRAY", "MULTISET"):
            text = f"{self.name}<{self.element}>"
        elif self.name == "MAP":
            text = f"MAP<{self.key}, {self.value}>"
        elif self.name == "ROW":
            text = "ROW<" + ", ".join(f"{quote_name(f.name)} {f.type}" for f in self.fields) + ">"
        else:
            text = self.name + (f"({', '.join(map(str, self.params))})" if self.params else "")
            if self.time_zone == "LOCAL":
                text += " WITH LOCAL TIME ZONE"
            elif self.time_zone == "ZONED":
                text += " WITH TIME ZONE"
        return text + ("" if self.nullable else " NOT NULL")


def quote_name(name: str) -> str:
    """A name as DDL would quote it: in backticks, a backtick doubled."""
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class SqlField:
    name: str
    type: SqlType
    comment: str | None = None


_ALIASES = {
    "INTEGER": "INT", "DEC": "DECIMAL", "NUMERIC": "DECIMAL", "BYTE": "TINYINT", "SHORT": "SMALLINT",
    "LONG": "BIGINT", "REAL": "FLOAT", "STRUCT": "ROW", "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "VOID": "NULL",
}
_SIMPLE = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "STRING", "BYTES", "NULL",
    "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DECIMAL", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "TIMESTAMP_NTZ",
}
_MAX_LENGTH = 2147483647  # VARCHAR(MAX) is STRING


class _Parser:
    def __init__(self, text: str, dialect: str) -> None:
        self.text = text
        self.dialect = dialect
        self.tokens = _tokenize(text)
        self.i = 0
        self.column: str | None = None  # for messages

    # token helpers
    @property
    def tok(self) -> _Tok:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> _Tok:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> _Tok:
        tok = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def at_word(self, *words: str) -> bool:
        return self.tok.kind == "word" and self.tok.upper in words

    def at_punct(self, ch: str) -> bool:
        return self.tok.kind == "punct" and self.tok.text == ch

    def error(self, message: str) -> DDLError:
        tok = self.tok
        near = self.text[tok.pos:tok.pos + 25].split("\n")[0] if tok.kind != "end" else "the end"
        where = f"column {self.column!r}: " if self.column else ""
        return DDLError(f"{where}{message} at position {tok.pos} (near {near!r})")

    def expect_punct(self, ch: str) -> None:
        if not self.at_punct(ch):
            raise self.error(f"expected {ch!r}")
        self.next()

    def expect_word(self, *words: str) -> str:
        if not self.at_word(*words):
            raise self.error(f"expected {' or '.join(words)}")
        return self.next().upper

    def name(self, what: str = "a column name") -> str:
        tok = self.tok
        if tok.kind in ("word", "quoted"):
            self.next()
            return tok.text
        raise self.error(f"expected {what}")

    def integer(self) -> int:
        if self.tok.kind != "number":
            raise self.error("expected a number")
        return int(self.next().text)

    # types
    def sql_type(self) -> SqlType:
        base = self._base_type()
        while self.at_word("ARRAY", "MULTISET") and not (self.peek().kind == "punct" and self.peek().text == "<"):
            # postfix form: INT ARRAY, STRING MULTISET
            kind = self.next().upper
            base = SqlType(kind, element=base)
        if self.at_word("NOT") and self.peek().upper == "NULL":
            self.next()
            self.next()
            base = _with_nullable(base, False)
        elif self.at_word("NULL"):
            self.next()
        return base

    def _base_type(self) -> SqlType:
        tok = self.tok
        if tok.kind != "word":
            raise self.error("expected a type")
        word = _ALIASES.get(tok.upper, tok.upper)
        self.next()
        if word == "DOUBLE" and self.at_word("PRECISION"):
            self.next()
        if word == "CHARACTER" or (word == "CHAR" and self.at_word("VARYING")):
            if self.at_word("VARYING"):
                self.next()
                word = "VARCHAR"
            else:
                word = "CHAR"
        if word in ("ARRAY", "MULTISET"):
            self.expect_punct("<")
            element = self.sql_type()
            self.expect_punct(">")
            return SqlType(word, element=element)
        if word == "MAP":
            self.expect_punct("<")
            key = self.sql_type()
            self.expect_punct(",")
            value = self.sql_type()
            self.expect_punct(">")
            return SqlType("MAP", key=key, value=value)
        if word == "ROW":
            return SqlType("ROW", fields=self._row_fields())
        if word == "INTERVAL":
            return self._interval()
        if word == "RAW":
            raise self.error("RAW types have no Pinot mapping")
        if word not in _SIMPLE:
            raise self.error(f"unknown type {tok.text!r}")
        params: tuple[int, ...] = ()
        if self.at_punct("("):
            self.next()
            values = [self.integer()]
            while self.at_punct(","):
                self.next()
                values.append(self.integer())
            self.expect_punct(")")
            params = tuple(values)
        time_zone = None
        if word == "TIMESTAMP" and self.at_word("WITH", "WITHOUT"):
            with_ = self.next().upper == "WITH"
            local = False
            if with_ and self.at_word("LOCAL"):
                self.next()
                local = True
            self.expect_word("TIME")
            self.expect_word("ZONE")
            time_zone = ("LOCAL" if local else "ZONED") if with_ else None
        if word == "TIMESTAMP_LTZ":
            word, time_zone = "TIMESTAMP", "LOCAL"
        if word == "TIMESTAMP_NTZ":
            word = "TIMESTAMP"
        if word == "TIMESTAMP" and self.dialect == "spark" and tok.upper == "TIMESTAMP":
            time_zone = "LOCAL"  # Spark's TIMESTAMP is the session-zone instant type
        if word == "TIME" and self.at_word("WITHOUT"):
            self.next()
            self.expect_word("TIME")
            self.expect_word("ZONE")
        self._check_params(word, params)
        return SqlType(word, params, time_zone=time_zone)

    def _check_params(self, word: str, params: tuple[int, ...]) -> None:
        allowed = {"DECIMAL": 2, "CHAR": 1, "VARCHAR": 1, "BINARY": 1, "VARBINARY": 1, "TIME": 1, "TIMESTAMP": 1,
                   "TIMESTAMP_LTZ": 1, "FLOAT": 1}
        if len(params) > allowed.get(word, 0):
            raise self.error(f"{word} takes at most {allowed.get(word, 0)} parameters, got {params}")
        if word == "DECIMAL" and params:
            precision = params[0]
            scale = params[1] if len(params) > 1 else 0
            if not 1 <= precision <= 38 or not 0 <= scale <= precision:
                raise self.error(f"DECIMAL({precision}, {scale}) needs 1 <= precision <= 38 and 0 <= scale <= "
                                 f"precision")
        if word in ("TIME", "TIMESTAMP") and params and not 0 <= params[0] <= 9:
            raise self.error(f"{word} precision must be 0..9, got {params[0]}")
        if word in ("CHAR", "VARCHAR", "BINARY", "VARBINARY") and params and params[0] < 1:
            raise self.error(f"{word} length must be positive")

    def _interval(self) -> SqlType:
        # INTERVAL YEAR [TO MONTH], INTERVAL DAY(p) TO SECOND(p), ...: parsed only to name it in the error.
        parts = ["INTERVAL"]
        while self.tok.kind == "word" and self.tok.upper in ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND",
                                                             "TO"):
            parts.append(self.next().upper)
            if self.at_punct("("):
                while not self.at_punct(")") and self.tok.kind != "end":
                    self.next()
                self.expect_punct(")")
        return SqlType(" ".join(parts))

    def _row_fields(self) -> tuple[SqlField, ...]:
        if self.at_punct("<"):
            close = ">"
        elif self.at_punct("("):
            close = ")"
        else:
            raise self.error("expected '<' or '(' after ROW")
        self.next()
        fields: list[SqlField] = []
        if self.at_punct(close):
            raise self.error("a ROW needs at least one field")
        while True:
            name = self.name("a field name")
            if self.at_punct(":"):  # Spark: STRUCT<a: INT>
                self.next()
            ftype = self.sql_type()
            comment = None
            if self.at_word("COMMENT"):
                self.next()
                comment = self._string()
            elif self.tok.kind == "string":  # Flink: ROW<a INT 'description'>
                comment = self.next().text
            if any(f.name == name for f in fields):
                raise self.error(f"ROW field {name!r} appears twice")
            fields.append(SqlField(name, ftype, comment))
            if self.at_punct(","):
                self.next()
                continue
            self.expect_punct(close)
            return tuple(fields)

    def _string(self) -> str:
        if self.tok.kind != "string":
            raise self.error("expected a 'quoted string'")
        return self.next().text

    # columns and constraints
    def parse(self) -> "ParsedColumns":
        self._skip_create_table()
        columns: list[FlinkColumn] = []
        primary_key: list[str] = []
        watermark: str | None = None
        if self.tok.kind == "end":
            raise DDLError("no column definitions")
        while True:
            self.column = None
            if (self.at_word("PRIMARY") and self.peek().upper == "KEY") or (
                    self.at_word("CONSTRAINT") and self.peek(2).upper == "PRIMARY"):
                if primary_key:
                    raise self.error("a second PRIMARY KEY")
                primary_key = self._primary_key()
            elif self.at_word("WATERMARK") and self.peek().upper == "FOR":
                self.next()
                self.next()
                watermark = self.name("the watermark column")
                self.expect_word("AS")
                self._skip_expression()
            else:
                column, is_key = self._column()
                if column is not None:
                    if any(c.name == column.name for c in columns):
                        raise DDLError(f"column {column.name!r} is defined twice")
                    columns.append(column)
                    if is_key:
                        if primary_key:
                            raise self.error("a second PRIMARY KEY")
                        primary_key = [column.name]
            if self.at_punct(","):
                self.next()
                if self.tok.kind == "end" or self.at_punct(")"):
                    raise self.error("a trailing ','")
                continue
            if self._at_table_end():
                break
            raise self.error("expected ',' or the end of the column list")
        names = [c.name for c in columns]
        for key in primary_key:
            if key not in names:
                raise DDLError(f"PRIMARY KEY column {key!r} is not a column (columns: {names})")
        if watermark is not None and watermark not in names:
            raise DDLError(f"WATERMARK column {watermark!r} is not a column (columns: {names})")
        return ParsedColumns(columns, primary_key, watermark)

    def _skip_create_table(self) -> None:
        self._wrapped = False
        if not self.at_word("CREATE"):
            return
        start = self.i
        while self.tok.kind != "end" and not self.at_punct("("):
            self.next()
        words = [t.upper for t in self.tokens[start:self.i]]
        if "TABLE" not in words:
            self.i = start
            raise self.error("expected CREATE [TEMPORARY] TABLE name ( ... )")
        self.expect_punct("(")
        self._wrapped = True

    def _at_table_end(self) -> bool:
        if getattr(self, "_wrapped", False):
            if self.at_punct(")"):
                self.next()
                return True  # WITH (...) and the rest of the statement are connector options
            return False
        return self.tok.kind == "end"

    def _primary_key(self) -> list[str]:
        if self.at_word("CONSTRAINT"):
            self.next()
            self.name("a constraint name")
        self.expect_word("PRIMARY")
        self.expect_word("KEY")
        self.expect_punct("(")
        keys = [self.name()]
        while self.at_punct(","):
            self.next()
            keys.append(self.name())
        self.expect_punct(")")
        self._not_enforced()
        return keys

    def _not_enforced(self) -> None:
        if not (self.at_word("NOT") and self.peek().upper == "ENFORCED"):
            raise self.error("Flink only accepts PRIMARY KEY ... NOT ENFORCED")
        self.next()
        self.next()

    def _skip_expression(self) -> None:
        depth = 0
        while self.tok.kind != "end":
            if self.at_punct("(") or self.at_punct("<"):
                depth += 1
            elif self.at_punct(")") or self.at_punct(">"):
                if depth == 0:
                    return
                depth -= 1
            elif self.at_punct(",") and depth == 0:
                return
            self.next()

    def _column(self) -> tuple["FlinkColumn | None", bool]:
        name = self.name()
        self.column = name
        if self.at_word("AS"):
            raise self.error("computed columns (AS ...) are not data; compute the value in the DataFrame or "
                             "query instead")
        ctype = self.sql_type()
        nullable = ctype.nullable
        is_key = False
        metadata = virtual = False
        comment = None
        while True:
            if self.at_word("METADATA"):
                self.next()
                metadata = True
                if self.at_word("FROM"):
                    self.next()
                    self._string()
                if self.at_word("VIRTUAL"):
                    self.next()
                    virtual = True
            elif self.at_word("PRIMARY"):
                self.next()
                self.expect_word("KEY")
                self._not_enforced()
                is_key = True
                nullable = False  # a key column is NOT NULL in Flink
            elif self.at_word("COMMENT"):
                self.next()
                comment = self._string()
            elif self.at_word("NOT") and self.peek().upper == "NULL":
                self.next()
                self.next()
                nullable = False
            else:
                break
        if virtual:
            return None, False  # not written by a sink
        return FlinkColumn(name, _with_nullable(ctype, nullable), nullable, comment, metadata), is_key


def _with_nullable(t: SqlType, nullable: bool) -> SqlType:
    return SqlType(t.name, t.params, t.fields, t.element, t.key, t.value, nullable, t.time_zone)


# --- the model -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlinkColumn:
    name: str
    type: SqlType
    nullable: bool = True
    comment: str | None = None
    metadata: bool = False

    def to_arrow(self) -> pa.DataType:
        return sql_type_to_arrow(self.type, self.name)

    def to_source_column(self) -> SourceColumn:
        max_length = None
        if self.type.name in ("CHAR", "VARCHAR") and self.type.params and self.type.params[0] < _MAX_LENGTH:
            max_length = self.type.params[0]
        return SourceColumn(self.name, self.to_arrow(), self.nullable, max_length, str(self.type))


@dataclass
class ParsedColumns:
    columns: list[FlinkColumn]
    primary_key: list[str] = field(default_factory=list)
    watermark_column: str | None = None


def _timestamp_unit(precision: int) -> str:
    return "s" if precision == 0 else "ms" if precision <= 3 else "us" if precision <= 6 else "ns"


def sql_type_to_arrow(t: SqlType, column: str) -> pa.DataType:
    """A parsed SQL type -> the Arrow type its values arrive as."""
    name = t.name
    simple = {
        "BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(),
        "BIGINT": pa.int64(), "DOUBLE": pa.float64(), "DATE": pa.date32(), "STRING": pa.string(),
        "CHAR": pa.string(), "VARCHAR": pa.string(), "BYTES": pa.binary(), "BINARY": pa.binary(),
        "VARBINARY": pa.binary(), "NULL": pa.null(),
    }
    if name in simple:
        return simple[name]
    if name == "FLOAT":  # FLOAT(p): p <= 24 single precision, as in standard SQL
        return pa.float64() if t.params and t.params[0] > 24 else pa.float32()
    if name == "DECIMAL":
        precision = t.params[0] if t.params else 10
        scale = t.params[1] if len(t.params) > 1 else 0
        return pa.decimal128(precision, scale)
    if name == "TIMESTAMP":
        unit = _timestamp_unit(t.params[0] if t.params else 6)
        return pa.timestamp(unit, tz="UTC" if t.time_zone else None)
    if name == "TIME":
        precision = t.params[0] if t.params else 0
        return pa.time32("ms") if precision <= 3 else pa.time64("us" if precision <= 6 else "ns")
    if name == "ARRAY":
        return pa.list_(pa.field("element", sql_type_to_arrow(t.element, column), t.element.nullable))
    if name == "MULTISET":  # Flink hands a multiset as a map of element -> count
        return pa.map_(sql_type_to_arrow(t.element, column), pa.int32())
    if name == "MAP":
        return pa.map_(sql_type_to_arrow(t.key, column), sql_type_to_arrow(t.value, column))
    if name == "ROW":
        return pa.struct([pa.field(f.name, sql_type_to_arrow(f.type, column), f.type.nullable) for f in t.fields])
    if name.startswith("INTERVAL"):
        return pa.month_day_nano_interval()
    raise UnsupportedTypeError(f"column {column!r}: type {t} has no Pinot mapping")  # pragma: no cover


# --- public API ------------------------------------------------------------------------------------


def parse_columns(ddl: str, *, dialect: str = "flink") -> list[FlinkColumn]:
    """Column definitions (or a CREATE TABLE statement) -> columns; ``dialect`` "flink" or "spark"."""
    return parse_table(ddl, dialect=dialect).columns


def parse_table(ddl: str, *, dialect: str = "flink") -> ParsedColumns:
    if dialect not in ("flink", "spark"):
        raise ValueError(f"dialect must be 'flink' or 'spark', got {dialect!r}")
    if not ddl or not ddl.strip():
        raise DDLError("no column definitions")
    return _Parser(ddl, dialect).parse()


def parse_flink_columns(ddl: str) -> list[FlinkColumn]:
    """Flink SQL column definitions -> columns (see the module docstring for what is accepted)."""
    return parse_columns(ddl, dialect="flink")


def flink_ddl_to_pinot(ddl: str, name: str, *, time_column: str | None = None,
                       metric_columns: Iterable[str] = (), json_columns: Iterable[str] = (),
                       dialect: str = "flink") -> PinotSchema:
    """Flink column definitions -> a Pinot schema. The WATERMARK column is the time column unless given;
    a PRIMARY KEY becomes ``primaryKeyColumns``."""
    parsed = parse_table(ddl, dialect=dialect)
    time_column = time_column or parsed.watermark_column
    schema = columns_to_pinot([c.to_source_column() for c in parsed.columns], name, time_column=time_column,
                              metric_columns=metric_columns, json_columns=json_columns)
    schema.primary_key_columns = list(parsed.primary_key)
    return schema
