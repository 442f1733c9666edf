"""Pinot's ingestion expression language, parsed into a small tree.

Pinot parses a ``transformFunction`` / ``filterFunction`` with its SQL parser (Calcite) and turns it into
function calls (``CalciteSqlParser.compileFunctionExpression``): ``a * b`` is ``times(a, b)``, ``a - b``
``minus(a, b)``, ``a >= b`` ``greaterthanorequal(a, b)``, ``NOT x`` ``not(x)``, ``x IS NULL`` ``isnull(x)``,
``CASE WHEN c1 THEN v1 ... ELSE e END`` ``case(c1, v1, ..., e)`` (``null`` when there is no ELSE),
``CAST(x AS INT)`` ``cast(x, 'INT')``, and
chains of AND / OR are flattened into one call. Function names are canonical as in ``FunctionRegistry``
(lower case, underscores removed). Literals keep their Java type: whole numbers INT (or LONG when they do
not fit), other numbers DOUBLE, quoted text STRING, TRUE/FALSE BOOLEAN, NULL null.

What Pinot's grammar rejects is rejected here too, e.g. ``minus(a, b)`` (MINUS is a reserved word of the SQL
grammar; ``sub(a, b)`` and ``a - b`` work).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union
from type_mapping.errors import PinotSinkError


class ExpressionError(PinotSinkError, ValueError):
    """An expression Pinot would not accept; the message quotes the expression and the position."""


@dataclass(frozen=True)
class Literal:
    value: Any  # int / float / str / bool / None
    java_type: str  # INT, LONG, DOUBLE, STRING, BOOLEAN, NULL


@dataclass(frozen=True)
class Identifier:
    name: str


@dataclass(frozen=True)
class Call:
    name: str  # canonical: lower case, no underscores
    args: tuple["Node", ...]
    text: str = ""  # the name as written, for messages


Node = Union[Literal, Identifier, Call]


def canonicalize(name: str) -> str:
    """``FunctionRegistry.canonicalize``: underscores removed, lower case."""
    return name.replace("_", "").lower()


def arguments(node: Node) -> list[str]:
    """Column names the expression reads, in first-seen order (``FunctionEvaluator.getArguments``)."""
    out: list[str] = []

    def walk(n: Node) -> None:
        if isinstance(n, Identifier):
            if n.name not in out:
                out.append(n.name)
        elif isinstance(n, Call):
            for a in n.args:
                walk(a)

    walk(node)
    return out


# --- tokenizer ---------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<backquoted>`(?:[^`]|``)*`)
  | (?P<word>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op><>|!=|>=|<=|\|\||[-+*/%(),=<>.])
    """,
    re.VERBOSE,
)

# SQL keywords that cannot name a function or a column without quotes in Pinot's grammar.
_RESERVED = {
    "AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "IS", "NULL", "TRUE", "FALSE", "IN",
    "BETWEEN", "LIKE", "MINUS", "SELECT", "FROM", "WHERE", "AS",
}
# Reserved words Pinot's parser also accepts as a function name before "(" (Calcite's function forms).
_KEYWORD_FUNCTIONS = {"AND", "OR", "BETWEEN", "LIKE"}
# Functions with SQL syntax of their own (keywords inside the parentheses), as Calcite parses them.
_SQL_SYNTAX_FUNCTIONS = {"EXTRACT", "TRIM", "OVERLAY", "SUBSTRING", "TRANSLATE"}
_COMPARISONS = {
    "=": "equals", "<>": "notequals", "!=": "notequals", ">": "greaterthan", ">=": "greaterthanorequal",
    "<": "lessthan", "<=": "lessthanorequal",
}
_ADDITIVE = {"+": "plus", "-": "minus"}
_MULTIPLICATIVE = {"*": "times", "/": "divide", "%": "mod"}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class _Tok:
    kind: str  # number, string, ident, keyword, op, end
    value: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ExpressionError(f"unexpected character {text[pos]!r} at position {pos} in {text!r}")
        kind = match.lastgroup
        value = match.group()
        if kind == "string":
            tokens.append(_Tok("string", value[1:-1].replace("''", "'"), pos))
        elif kind == "quoted":
            tokens.append(_Tok("ident", value[1:-1].replace('""', '"'), pos))
        elif kind == "backquoted":
            tokens.append(_Tok("ident", value[1:-1].replace("``", "`"), pos))
        elif kind == "word":
            upper = value.upper()
            tokens.append(_Tok("keyword", upper, pos) if upper in _RESERVED else _Tok("word", value, pos))
        elif kind != "ws":
            tokens.append(_Tok(kind, value, pos))
        pos = match.end()
    tokens.append(_Tok("end", "", len(text)))
    return tokens


# --- parser (Calcite's precedence: OR < AND < NOT < comparison < +,- < *,/,% < unary) ---------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    @property
    def tok(self) -> _Tok:
        return self.tokens[self.i]

    def _error(self, message: str) -> ExpressionError:
        return ExpressionError(f"{message} at position {self.tok.pos} in {self.text!r}")

    def _accept(self, kind: str, value: str | None = None) -> _Tok | None:
        tok = self.tok
        if tok.kind == kind and (value is None or tok.value == value):
            self.i += 1
            return tok
        return None

    def _expect(self, kind: str, value: str | None = None) -> _Tok:
        tok = self._accept(kind, value)
        if tok is None:
            found = self.tok.value or "end of expression"
            raise self._error(f"expected {value or kind} but found {found!r}")
        return tok

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise self._error("empty expression")
        node = self._or()
        if self.tok.kind != "end":
            raise self._error(f"unexpected {self.tok.value!r}")
        return node

    def _or(self) -> Node:
        operands = [self._and()]
        while self._accept("keyword", "OR"):
            operands.append(self._and())
        return operands[0] if len(operands) == 1 else Call("or", tuple(operands), "OR")

    def _and(self) -> Node:
        operands = [self._not()]
        while self._accept("keyword", "AND"):
            operands.append(self._not())
        return operands[0] if len(operands) == 1 else Call("and", tuple(operands), "AND")

    def _not(self) -> Node:
        if self._accept("keyword", "NOT"):
            return Call("not", (self._not(),), "NOT")
        return self._comparison()

    def _comparison(self) -> Node:
        left = self._additive()
        while True:
            if self.tok.kind == "op" and self.tok.value in _COMPARISONS:
                op = self._expect("op").value
                left = Call(_COMPARISONS[op], (left, self._additive()), op)
            elif self._accept("keyword", "IS"):
                negated = self._accept("keyword", "NOT") is not None
                if self.tok.kind == "word" and self.tok.value.upper() == "DISTINCT":
                    # a IS [NOT] DISTINCT FROM b: Calcite's operator, which Pinot names by its kind
                    # (isDistinctFrom / isNotDistinctFrom)
                    self.i += 1
                    self._expect("keyword", "FROM")
                    name = "isnotdistinctfrom" if negated else "isdistinctfrom"
                    left = Call(name, (left, self._additive()), "IS DISTINCT FROM")
                    continue
                self._expect("keyword", "NULL")
                left = Call("isnotnull" if negated else "isnull", (left,), "IS NULL")
            elif self.tok.kind == "keyword" and self.tok.value in ("BETWEEN", "NOT", "IN", "LIKE"):
                negated = self._accept("keyword", "NOT") is not None
                word = self._expect("keyword").value
                if word == "BETWEEN":
                    low = self._additive()
                    self._expect("keyword", "AND")
                    node: Node = Call("between", (left, low, self._additive()), "BETWEEN")
                elif word == "IN":
                    self._expect("op", "(")
                    items = [self._or()]
                    while self._accept("op", ","):
                        items.append(self._or())
                    self._expect("op", ")")
                    node = Call("in", (left, *items), "IN")
                elif word == "LIKE":
                    node = Call("like", (left, self._additive()), "LIKE")
                else:
                    raise self._error(f"unexpected {word}")
                left = Call("not", (node,), "NOT") if negated else node
            else:
                return left

    def _additive(self) -> Node:
        left = self._multiplicative()
        while self.tok.kind == "op" and self.tok.value in (*_ADDITIVE, "||"):
            if self.tok.value == "||":
                raise self._error("the || operator is not accepted by Pinot's ingestion expressions (use concat(a, b))")
            op = self._expect("op").value
            right = self._multiplicative()
            left = Call(_ADDITIVE[op], (left, right), op)
        return left

    def _multiplicative(self) -> Node:
        left = self._unary()
        while self.tok.kind == "op" and self.tok.value in _MULTIPLICATIVE:
            op = self._expect("op").value
            left = Call(_MULTIPLICATIVE[op], (left, self._unary()), op)
        return left

    def _unary(self) -> Node:
        if self.tok.kind == "op" and self.tok.value == "-" and self.tokens[self.i + 1].kind == "number" and \
                re.fullmatch(r"\d+", self.tokens[self.i + 1].value):
            # a signed whole number is one literal for Calcite (-9223372036854775808 is a LONG, not a double)
            self.i += 2
            return _number_literal(-int(self.tokens[self.i - 1].value))
        if self._accept("op", "-"):
            operand = self._unary()
            if isinstance(operand, Literal) and operand.java_type in ("INT", "LONG", "DOUBLE"):
                # Calcite folds a signed numeric literal, as a BigDecimal: -0.0 is 0.0 there (no negative zero)
                return _number_literal(-operand.value if operand.value != 0 else operand.value)
            return Call("negate", (operand,), "-")
        if self._accept("op", "+"):
            return self._unary()
        return self._primary()

    def _primary(self) -> Node:
        tok = self.tok
        if self._accept("number"):
            return _parse_number(tok.value)
        if self._accept("string"):
            return Literal(tok.value, "STRING")
        if tok.kind == "keyword":
            if tok.value in _KEYWORD_FUNCTIONS and self.tokens[self.i + 1].kind == "op" and \
                    self.tokens[self.i + 1].value == "(":  # and(a, b), or(a, b), between(x, lo, hi), like(s, p)
                self.i += 2
                return self._call(tok.value)
            if self._accept("keyword", "TRUE"):
                return Literal(True, "BOOLEAN")
            if self._accept("keyword", "FALSE"):
                return Literal(False, "BOOLEAN")
            if self._accept("keyword", "NULL"):
                return Literal(None, "NULL")
            if self._accept("keyword", "CASE"):
                return self._case()
            raise self._error(f"{tok.value} is a reserved word of Pinot's SQL grammar and cannot be used here"
                              + (" (use sub(a, b) or a - b)" if tok.value == "MINUS" else ""))
        if self._accept("op", "("):
            node = self._or()
            self._expect("op", ")")
            return node
        if tok.kind in ("word", "ident"):
            self.i += 1
            if tok.kind == "word" and self._accept("op", "("):
                special = tok.value.upper()
                if special == "CAST":
                    return self._cast()
                if special in _UNIT_KEYWORD_CALLS:
                    return self._unit_keyword_call(tok.value)
                if special in _SQL_SYNTAX_FUNCTIONS:
                    return getattr(self, "_" + special.lower())(tok.value)
                return self._call(tok.value)
            name = tok.value
            while self._accept("op", "."):  # a dotted column name (a flattened field, e.g. a.b.c)
                part = self.tok
                if part.kind not in ("word", "ident"):
                    raise self._error("expected a name after '.'")
                self.i += 1
                name += "." + part.value
            return Identifier(name)
        raise self._error(f"unexpected {tok.value or 'end of expression'!r}")

    def _call(self, name: str) -> Node:
        args: list[Node] = []
        if not self._accept("op", ")"):
            args.append(self._or())
            while self._accept("op", ","):
                args.append(self._or())
            self._expect("op", ")")
        return Call(canonicalize(name), tuple(args), name)

    def _unit_keyword_call(self, name: str) -> Node:
        """``TIMESTAMPADD(DAY, n, t)`` / ``TIMESTAMPDIFF(DAY, t1, t2)``: SQL keywords in Pinot's grammar whose
        first argument is a time-unit keyword (passed on as its name); a quoted unit does not parse there."""
        unit = self.tok
        if unit.kind != "word" or unit.value.upper() not in _TIME_UNIT_KEYWORDS:
            raise self._error(f"{name.upper()} takes a time unit keyword first ({', '.join(sorted(_TIME_UNIT_KEYWORDS))}"
                              f"), not {unit.value or 'nothing'!r}; dateAdd / dateDiff take the unit as text")
        self.i += 1
        self._expect("op", ",")
        node = self._call(name)
        return Call(node.name, (Literal(unit.value.upper(), "STRING"),) + node.args, node.text)

    def _refuse(self, name: str, form: str) -> ExpressionError:
        return self._error(f"{name}(...) with commas is not accepted by Pinot's SQL parser; write {form}")

    def _extract(self, name: str) -> Node:
        """``EXTRACT(unit FROM t)`` is ``extract('UNIT', t)``."""
        unit = self.tok
        if unit.kind not in ("word", "keyword"):
            raise self._error("EXTRACT needs a time unit (EXTRACT(YEAR FROM t))")
        self.i += 1
        self._expect("keyword", "FROM")
        value = self._or()
        self._expect("op", ")")
        return Call("extract", (Literal(unit.value.upper(), "STRING"), value), name)

    def _trim(self, name: str) -> Node:
        """``TRIM(s)``, ``TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)`` (``trim('BOTH', chars, s)``; the
        characters default to a space, ``TRIM(s)``'s too); ``trim(a, b, c)`` with commas does not parse in Pinot."""
        side = None
        if self.tok.kind == "word" and self.tok.value.upper() in ("BOTH", "LEADING", "TRAILING"):
            side = self.tok.value.upper()
            self.i += 1
        chars: Node | None = None
        if not (self.tok.kind == "keyword" and self.tok.value == "FROM"):
            chars = self._or()
        if self._accept("keyword", "FROM"):
            value = self._or()
            self._expect("op", ")")
            return Call("trim", (Literal(side or "BOTH", "STRING"), chars or Literal(" ", "STRING"), value), name)
        if side is not None or chars is None:
            raise self._error("expected FROM in TRIM(... FROM s)")
        if self.tok.kind == "op" and self.tok.value == ",":
            raise self._refuse(name, "TRIM(BOTH chars FROM s)")
        self._expect("op", ")")
        # Calcite reads TRIM(s) as TRIM(BOTH ' ' FROM s): spaces only, not String.trim's characters up to U+0020
        # (Pinot keeps trim('\t x') as it is)
        return Call("trim", (Literal("BOTH", "STRING"), Literal(" ", "STRING"), chars), name)

    def _overlay(self, name: str) -> Node:
        """``OVERLAY(s PLACING r FROM n [FOR len])`` is ``overlay(s, r, n[, len])``."""
        value = self._or()
        if not (self.tok.kind == "word" and self.tok.value.upper() == "PLACING"):
            raise self._refuse(name, "OVERLAY(s PLACING r FROM n [FOR len])")
        self.i += 1
        replacement = self._or()
        self._expect("keyword", "FROM")
        args = [value, replacement, self._or()]
        if self.tok.kind == "word" and self.tok.value.upper() == "FOR":
            self.i += 1
            args.append(self._or())
        self._expect("op", ")")
        return Call("overlay", tuple(args), name)

    def _substring(self, name: str) -> Node:
        """``SUBSTRING(s FROM a [FOR len])`` and ``substring(s, a[, len])``."""
        value = self._or()
        if self._accept("keyword", "FROM"):
            args = [value, self._or()]
            if self.tok.kind == "word" and self.tok.value.upper() == "FOR":
                self.i += 1
                args.append(self._or())
            self._expect("op", ")")
            return Call("substring", tuple(args), name)
        args = [value]
        while self._accept("op", ","):
            args.append(self._or())
        self._expect("op", ")")
        return Call("substring", tuple(args), name)

    def _translate(self, name: str) -> Node:
        raise self._error("translate(...) is not accepted by Pinot's SQL parser (TRANSLATE is a SQL keyword "
                          "taking TRANSLATE(s USING name))")

    def _cast(self) -> Node:
        """``CAST(x AS TYPE)`` is ``cast(x, 'TYPE')`` (a length or precision after the type is ignored)."""
        value = self._or()
        self._expect("keyword", "AS")
        type_name = self._expect("word").value.upper()
        if self._accept("op", "("):
            while not self._accept("op", ")"):
                if self.tok.kind == "end":
                    raise self._error("unclosed '(' in CAST type")
                self.i += 1
        self._expect("op", ")")
        return Call("cast", (value, Literal(type_name, "STRING")), "CAST")

    def _case(self) -> Node:
        operands: list[Node] = []
        if self.tok.kind == "keyword" and self.tok.value == "WHEN":
            subject = None
        else:
            subject = self._or()  # simple CASE x WHEN v THEN ...: each WHEN is x = v
        while self._accept("keyword", "WHEN"):
            condition = self._or()
            if subject is not None:
                condition = Call("equals", (subject, condition), "=")
            self._expect("keyword", "THEN")
            operands += [condition, self._or()]
        if not operands:
            raise self._error("CASE needs at least one WHEN")
        operands.append(self._or() if self._accept("keyword", "ELSE") else Literal(None, "NULL"))
        self._expect("keyword", "END")
        return Call("case", tuple(operands), "CASE")


_UNIT_KEYWORD_CALLS = {"TIMESTAMPADD", "TIMESTAMPDIFF"}
# the time-unit keywords Pinot's grammar accepts there (Calcite's TimeUnit); only Pinot's nine
# (DateTimeUtils.getTimestampField) evaluate, the others throw on every row
_TIME_UNIT_KEYWORDS = {"NANOSECOND", "MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "DAYOFWEEK",
                       "DAYOFYEAR", "WEEK", "MONTH", "QUARTER", "YEAR"}


def _number_literal(value: int | float) -> Literal:
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return Literal(value, "INT")
        if LONG_MIN <= value <= LONG_MAX:
            return Literal(value, "LONG")
        return Literal(float(value), "DOUBLE")
    return Literal(value, "DOUBLE")


def _parse_number(text: str) -> Literal:
    if re.fullmatch(r"\d+", text):
        return _number_literal(int(text))
    return Literal(float(text), "DOUBLE")


def parse_expression(text: str) -> Node:
    """Parse a transform or filter function; raise ExpressionError naming the position."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, got {text!r}")
    return _Parser(text).parse()


def is_groovy(text: str) -> bool:
    """``FunctionEvaluatorFactory.isGroovyExpression``: the expression starts with ``Groovy(``."""
    return text.startswith("Groovy(")
