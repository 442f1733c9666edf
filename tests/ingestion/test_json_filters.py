"""JSON path filters ``[?(...)]`` against Jayway JsonPath 2.9's documented and tested results.

The bookstore cases are the examples of Jayway's README; the predicate cases are the facts of its
FilterTest (Criteria API) written in the path syntax, on the same document; the rest are consequences of
its EvaluatorFactory / ValueNodes that differ from a naive reading (number/string equality, rejected items
under ``!``, a read that fails as a whole).
"""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

from pinot_sink.ingestion.evaluate import Expression
from pinot_sink.ingestion.expression import ExpressionError
from javalib.jsonpath import JsonPathError, compile_path, read_path
from pinot_sink.ingestion.values import Context

BOOKSTORE = {
    "store": {
        "book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3",
             "price": 8.99},
            {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings",
             "isbn": "0-395-19395-8", "price": 22.99},
        ],
        "bicycle": {"color": "red", "price": 19.95},
    },
    "expensive": 10,
}
SAYINGS, SWORD, MOBY, RINGS = "Sayings of the Century", "Sword of Honour", "Moby Dick", "The Lord of the Rings"

FILTER_TEST = {
    "int-key": 1, "long-key": 3000000000, "double-key": 10.1, "boolean-key": True, "null-key": None,
    "string-key": "string", "string-key-empty": "", "char-key": "c", "arr-empty": [], "int-arr": [0, 1, 2, 3, 4],
    "string-arr": ["a", "b", "c", "d", "e"], "obj": {"foo": "bar"},
}


def read(document, path: str):
    steps, definite = compile_path(path)
    return read_path(document, steps, definite)


def holds(condition: str, document=None) -> bool:
    """Whether the filter accepts the document itself (a filter on an object keeps or drops it)."""
    found = read(FILTER_TEST if document is None else document, f"$[?({condition})]")
    assert found in ([], [FILTER_TEST if document is None else document])
    return bool(found)


@pytest.mark.parametrize("path, titles", [
    ("$..book[?(@.isbn)]", [MOBY, RINGS]),
    ("$.store.book[?(@.price < 10)]", [SAYINGS, MOBY]),
    ("$..book[?(@.price <= $['expensive'])]", [SAYINGS, MOBY]),
    ("$..book[?(@.author =~ /.*REES/i)]", [SAYINGS]),
    ("$.store.book[?(@.price > 10)]", [SWORD, RINGS]),
    ("$.store.book[?(@.price < 10 && @.category == 'fiction')]", [MOBY]),
    ("$.store.book[?(@.category == 'reference' || @.price > 10)]", [SAYINGS, SWORD, RINGS]),
    ("$.store.book[?(!(@.price < 10 && @.category == 'fiction'))]", [SAYINGS, SWORD, RINGS]),
    ("$.store.book[?(@.category in ['reference', 'fiction'])]", [SAYINGS, SWORD, MOBY, RINGS]),
])
def test_jayway_readme_bookstore_examples(path, titles):
    assert [book["title"] for book in read(BOOKSTORE, path)] == titles


def test_a_filter_makes_the_path_indefinite_and_continues():
    assert read(BOOKSTORE, "$.store.book[?(@.isbn)].author") == ["Herman Melville", "J. R. R. Tolkien"]
    assert read(BOOKSTORE, "$.store[?(@.bicycle)].bicycle.color") == ["red"]  # on an object: kept or dropped
    assert read(BOOKSTORE, "$.store[?(@.car)].bicycle.color") == []
    assert compile_path("$.store.book[?(@.isbn)]")[1] is False


@pytest.mark.parametrize("condition, expected", [
    # EQ / NE, numbers and strings (1 == '1' reads the string as a BigDecimal)
    ("@['int-key'] == 1", True), ("@['int-key'] == 666", False), ("@['int-key'] == '1'", True),
    ("1 == '1'", True), ("'1' == 1", True), ("1 === '1'", False), ("'1' === 1", False), ("1 === 1", True),
    ("@['long-key'] == 3000000000", True), ("@['long-key'] == 666", False),
    ("@['double-key'] == 10.1", True), ("@['double-key'] == 10.10", True), ("@['double-key'] == 10.11", False),
    ("@['string-key'] == 'string'", True), ("@['string-key'] == '666'", False),
    ("@['boolean-key'] == true", True), ("@['boolean-key'] == false", False),
    ("@['null-key'] == null", True), ("@['null-key'] == '666'", False), ("@['string-key'] == null", False),
    ("@['arr-empty'] == []", True), ("@['int-arr'] == [0,1,2,3,4]", True), ("@['int-arr'] == [0,1,2,3]", False),
    ("@['int-arr'] == [0,1,2,3,4,5]", False),
    ("@['int-key'] != 1", False), ("@['int-key'] != 666", True), ("@['double-key'] != 10.10", False),
    ("@['null-key'] != null", False), ("@['null-key'] != '666'", True), ("@['string-key'] != null", True),
    # LT / LTE / GT / GTE
    ("@['int-key'] < 10", True), ("@['int-key'] < 0", False), ("@['long-key'] < 4000000000", True),
    ("@['long-key'] < 666", False), ("@['double-key'] < 100.1", True), ("@['double-key'] < 1.1", False),
    ("@['char-key'] < 'x'", True), ("@['char-key'] < 'a'", False),
    ("@['int-key'] <= 1", True), ("@['int-key'] <= 0", False), ("@['long-key'] <= 3000000000", True),
    ("@['double-key'] <= 10.1", True), ("@['int-key'] > 10", False), ("@['int-key'] > 0", True),
    ("@['char-key'] > 'x'", False), ("@['char-key'] > 'a'", True), ("@['int-key'] >= 1", True),
    ("@['double-key'] >= 100.1", False), ("@['double-key'] >= 10.1", True),
    # regex: strings, any element of an array; nothing else matches a non-empty pattern
    ("@['string-key'] =~ /^string$/", True), ("@['string-key'] =~ /^tring$/", False),
    ("@['null-key'] =~ /^string$/", False), ("@['int-key'] =~ /^string$/", False),
    ("@['string-arr'] =~ /^d$/", True), ("@['string-arr'] =~ /^q$/", False), ("@.obj =~ /^foo$/", False),
    # in / nin
    ("@['string-key'] in ['a', null, 'string']", True), ("@['string-key'] in ['a', null]", False),
    ("@['null-key'] in ['a', null]", True), ("@['null-key'] in ['a', 'b']", False),
    ("@['string-arr'] in ['a']", False),
    ("@['string-key'] nin ['a', null, 'string']", False), ("@['string-key'] nin ['a', null]", True),
    ("@['null-key'] nin ['a', null]", False), ("@['null-key'] nin ['a', 'b']", True),
    ("@['string-arr'] nin ['a']", True),
    # size
    ("@['string-arr'] size 5", True), ("@['string-arr'] size 7", False), ("@['string-key'] size 6", True),
    ("@['string-key'] size 7", False), ("@['int-key'] size 6", False), ("@['null-key'] size 6", False),
    # subsetof / anyof / noneof
    ("@['string-arr'] subsetof ['a', 'b', 'c', 'd', 'e', 'f', 'g']", True),
    ("@['string-arr'] subsetof ['e', 'd', 'b', 'c', 'a']", True),
    ("@['string-arr'] subsetof ['a', 'b', 'c', 'd']", False),
    ("@['string-arr'] anyof ['a', 'z']", True), ("@['string-arr'] anyof ['z', 'b', 'a']", True),
    ("@['string-arr'] anyof ['x', 'y', 'z']", False),
    ("@['string-arr'] noneof ['a', 'z']", False), ("@['string-arr'] noneof ['z', 'b', 'a']", False),
    ("@['string-arr'] noneof ['x', 'y', 'z']", True),
    # exists
    ("@['string-key']", True), ("!@['string-key']", False), ("@['missing-key']", False), ("!@['missing-key']", True),
    ("@['null-key']", True),
    # empty
    ("@['string-key'] empty false", True), ("@['string-key-empty'] empty false", False),
    ("@['int-arr'] empty false", True), ("@['arr-empty'] empty false", False), ("@['null-key'] empty false", False),
    ("@['string-key'] empty true", False), ("@['string-key-empty'] empty true", True),
    ("@['int-arr'] empty true", False), ("@['arr-empty'] empty true", True), ("@['null-key'] empty true", False),
])
def test_jayway_filter_test_facts(condition, expected):
    assert holds(condition) is expected


def test_logical_operators_and_grouping():
    person = {"firstname": "Bob", "surname": "Smith", "age": 30}
    assert not holds("(@.firstname == 'Bob' || @.firstname == 'Jane') && @.surname == 'Doe'", person)
    assert holds("(@.firstname == 'Bob' || @.firstname == 'Jane') && @.surname == 'Smith'", person)
    assert holds("!(@.age < 18) && !@.nickname", person)
    assert holds("@.age>=30&&@.age<=30", person)  # no blanks around operators


def test_java_semantics_that_a_naive_reading_gets_wrong():
    doc = {"n": 1.0, "s": "1", "t": "1.0", "missing_is_not_null": None, "list": ["'q'", "$.n", 1]}
    assert holds("1.0 == @.s", doc)  # a number equals a string read as a BigDecimal...
    assert not holds("@.s == 1.0", doc)  # ...but a string equals a number's BigDecimal text, here "1.0"
    assert not holds("'1' == @.n", doc) and not holds("1.0 === @.s", doc)
    assert holds("@.t == @.n", doc)
    assert holds("@.nothing != 1", doc) and not holds("@.nothing == null", doc)  # undefined equals nothing
    assert holds("@.nothing =~ /.*/", doc)  # a missing value matches as ""
    assert holds("'q' in @.list", doc)  # a quoted list element loses its quotes
    assert not holds("'$.n' in @.list", doc)  # an element that reads as a path equals nothing
    assert holds("1 in @.list", doc) and holds("'1' in @.list", doc)
    # an operand of the wrong kind makes the item fail the filter, whatever the negation
    assert not holds("@.s in 'x'", doc) and not holds("@.s nin 'x'", doc) and not holds("!(@.s in 'x')", doc)
    assert not holds("@.s empty 1", doc)
    # string order is Java's, by UTF-16 units: U+FF61 sorts after U+1F600 (a surrogate pair, 0xD83D...)
    assert holds("@.a > @.b", {"a": "\uff61", "b": "\U0001F600"})


def test_filters_on_primitives_and_reads_that_fail_as_a_whole():
    assert read(BOOKSTORE, "$.expensive[?(@ > 1)]") == []  # definite upstream: the read fails (suppressed)
    assert read({"a": [[1, 5], 7, [9]]}, "$.a[*][?(@ > 4)]") == [5, 9]  # indefinite upstream: 7 is skipped
    tagged = {"a": [{"tags": ["x"]}, {"tags": [{"o": 1}]}]}
    assert read(tagged, "$.a[?(@.tags anyof ['x'])]") == []  # an object element cannot become a value node
    assert read({"a": [{"tags": ["x"]}, {"tags": ["y"]}]}, "$.a[?(@.tags anyof ['x'])]") == [{"tags": ["x"]}]


@pytest.mark.parametrize("path, why", [
    ("$.a[?(@.b all [1])]", "operator 'all'"),
    ("$.a[?(@.b type 'x')]", "operator 'type'"),
    ("$..[?(@.b)]", "straight into a filter"),
    ("$.a[?(@.b == {'x': 1})]", "object literals"),
    ("$.a[?(@.b =~ /x/m)]", "flag 'm'"),
    ("$.a[?(@.b =~ /\\p{L}+/)]", "escape"),
    ("$.a[?(@.b =~ /a++/)]", "possessive"),
    ("$.a[?(@.b.length() > 1)]", "functions"),
    ("$.a[?(@.* > 1)]", "definite"),
    ("$.a[?(@..b > 1)]", "definite"),
    ("$.a[?(@.b > 1]", "must be written"),
    ("$.a[?(@.b == abc)]", "value was expected"),
    ("$.a[?(@.b ==)]", "value was expected"),
])
def test_what_cannot_be_made_exact_is_rejected_when_read(path, why):
    with pytest.raises(JsonPathError, match=why):
        compile_path(path)
    with pytest.raises(ExpressionError, match="not supported|expected|must be|definite"):
        Expression(f"jsonPathString(j, '{path.replace(chr(39), chr(39) * 2)}')")


def test_filters_through_the_json_functions():
    rows = [json.dumps(BOOKSTORE), json.dumps({"store": {"book": []}}), None, "not json"]
    text = "jsonPathArray(j, '$.store.book[?(@.price < 10)].title')"
    ctx = Context(len(rows), 0, True)
    out = Expression(text).evaluate_array({"j": pa.array(rows)}, ctx).to_pylist()
    assert out == [[SAYINGS, MOBY], [], None, None] and ctx.errors.tolist() == [False, False, False, True]
    text = "jsonPathString(j, '$.store.book[?(@.author =~ /.*(Rees|Waugh)/)].price', 'none')"
    out = Expression(text).evaluate_array({"j": pa.array(rows)}, Context(len(rows))).to_pylist()
    assert out == ["[8.95,12.99]", "[]", "none", "none"]
