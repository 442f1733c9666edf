"""The table, rows and configs of the comparison with Pinot's SegmentProcessorFramework (CONCAT), shared by
``tools/pinot_spf/make_fixture.py`` (which asks Pinot and keeps its answers in ``tests/fixtures/compaction/spf``)
and ``test_compact_spf.py`` (which runs our compaction on the same input segments and compares).

A quickstart-like flights table: dictionary and raw columns, single- and multi-value, null handling on (null
vectors), an inverted index, a time column; four input segments (Pinot-built, 240 rows each) over two UTC days,
the third straddling midnight, so one compaction group makes one segment per day. Three table configs at
compaction time: sorted by the unique ``id``, sorted by ``carrier`` (ties), no sorted column, partitioned,
more indexes, columns the schema gained since; and the same rows with a text (SIMPLE_DATE_FORMAT) time column.
"""
from __future__ import annotations

import contextlib
import json
import random
import types
import uuid
from datetime import datetime, timezone
from pathlib import Path
from unittest import mock

DAY0_MS = 1_709_251_200_000  # 2024-03-01T00:00:00Z
CREATION_MS = 1_709_424_000_000  # the creation time both sides are given (2024-03-03T00:00:00Z)
WRITE_UUID = uuid.UUID("5bf0c0de-0000-4000-8000-000000000033")  # our compaction's write id, fixed for the test
TABLE = "flights"
ROWS_EACH = 240
# The inputs' time spans (hours from DAY0): the third straddles midnight and links the two days in one group.
SPANS_H = ((0, 10), (10, 20), (20, 28), (28, 36))
INPUTS = tuple(f"flights_in_{i}" for i in range(len(SPANS_H)))

SCHEMA = {
    "schemaName": TABLE,
    "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"},
        {"name": "carrier", "dataType": "STRING"},
        {"name": "origin", "dataType": "STRING"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "legs", "dataType": "INT", "singleValueField": False},
        {"name": "note", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [
        {"name": "arrDelay", "dataType": "INT"},
        {"name": "distance", "dataType": "DOUBLE"},
    ],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}


# The same table with its time column as text ("2024-03-01 10:00:00"): Pinot's framework names such segments with
# the normalizedDate generator (the text does not fit in a name), and so does ours.
SDF_SCHEMA = {**SCHEMA, "dateTimeFieldSpecs": [{
    "name": "ts", "dataType": "STRING", "format": "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm:ss",
    "granularity": "1:SECONDS"}]}
# Columns the schema gained after the inputs were written (single- and multi-value, dimension and metric): both
# merge them as every row's default null value, null.
GAINED_SCHEMA = {**SCHEMA,
                 "dimensionFieldSpecs": SCHEMA["dimensionFieldSpecs"] + [
                     {"name": "gate", "dataType": "STRING"},
                     {"name": "seats", "dataType": "INT", "singleValueField": False}],
                 "metricFieldSpecs": SCHEMA["metricFieldSpecs"] + [{"name": "fuel", "dataType": "DOUBLE"}]}
# Fixture folder -> the schema of its input segments and which of the four it holds. inputs_gained: the last two
# inputs written after the schema gained its columns (the third has none of their values, the fourth most).
INPUT_SETS = {"inputs": (SCHEMA, (0, 1, 2, 3)), "inputs_sdf": (SDF_SCHEMA, (0, 1, 2, 3)),
              "inputs_gained": (GAINED_SCHEMA, (2, 3))}


def table_config(sorted_column: str | None, partitions: int | None = None) -> dict:
    index = {"loadMode": "MMAP", "nullHandlingEnabled": True, "invertedIndexColumns": ["origin"],
             "noDictionaryColumns": ["note", "distance"]}
    if sorted_column:
        index["sortedColumn"] = [sorted_column]
    if partitions:
        index["segmentPartitionConfig"] = {"columnPartitionMap": {
            "id": {"functionName": "Modulo", "numPartitions": partitions}}}
    return {"tableName": f"{TABLE}_OFFLINE", "tableType": "OFFLINE", "tenants": {},
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tableIndexConfig": index, "metadata": {}}


def indexed_config() -> dict:
    """More index types at compaction time than the inputs had: star-tree, range, bloom filter."""
    config = table_config("id")
    config["tableIndexConfig"].update({
        "rangeIndexColumns": ["arrDelay"], "bloomFilterColumns": ["origin"],
        "starTreeIndexConfigs": [{"dimensionsSplitOrder": ["carrier", "origin"], "maxLeafRecords": 10,
                                  "functionColumnPairs": ["SUM__arrDelay", "COUNT__*", "MAX__distance"]}]})
    return config


INPUT_CONFIG = table_config(None)  # what the inputs were built with
CASES = {"sorted_id": table_config("id"), "sorted_carrier": table_config("carrier"), "unsorted": table_config(None),
         "partitioned": table_config(None, 3), "indexed": indexed_config(), "sdf_time": table_config(None),
         "gained_columns": table_config("id"), "gained_some": table_config("id")}
# The fixture folder of each input a case merges (the others merge "inputs"), and the schema it is compacted with
# (the others: their inputs').
CASE_INPUTS = {"sdf_time": ("inputs_sdf",) * 4, "gained_some": ("inputs", "inputs", "inputs_gained", "inputs_gained")}
CASE_SCHEMA = {"gained_columns": GAINED_SCHEMA, "gained_some": GAINED_SCHEMA}
# Where Pinot and we write the same bytes; in sorted_carrier rows whose carrier is equal are in another order
# (Pinot's unstable quicksort of the sort fields; ours is stable), docs/compaction.md says why.
BYTE_EQUAL = ("sorted_id", "unsorted", "partitioned", "indexed", "sdf_time", "gained_columns", "gained_some")
# Kept as Pinot's segment names and row counts only (segments.json): its split by record count, the order in
# which it numbers 12 partitions' segments (its partition keys are strings: "<bucket>_10" before "<bucket>_2"),
# and the rows a filterConfig drops again.
SPLIT_RECORDS = 200
PARTITIONS_12 = table_config(None, 12)
# A filterConfig the table config has at compaction time (the inputs were built without it): Pinot's framework
# runs the table's ingestion transformers, the filter included, over the stored rows again; ours does not.
FILTERED = {**table_config(None), "ingestionConfig": {"filterConfig": {"filterFunction": "startsWith(carrier, 'A')"}}}
FILES = ("columns.psf", "index_map", "metadata.properties", "creation.meta")

CARRIERS = ("AA", "DL", "UA", "WN", "B6", "AS")
AIRPORTS = ("ATL", "ORD", "DFW", "DEN", "LAX", "SFO", "SEA", "JFK", "BOS", "MIA", "PHX", "IAH")
TAGS = ("red-eye", "direct", "codeshare", "charter", "cargo")


def inputs_of(case: str) -> tuple[list[tuple[str, str]], dict]:
    """The inputs a case merges, (fixture folder, segment name) each, and the schema it is compacted with."""
    folders = CASE_INPUTS.get(case, ("inputs",) * len(INPUTS))
    return list(zip(folders, INPUTS)), CASE_SCHEMA.get(case, INPUT_SETS[folders[0]][0])


def input_rows(index: int, schema: dict = SCHEMA) -> list[dict]:
    """The rows of input ``index``, one JSON object each (pinot-verify's builder takes them as JSON lines)."""
    rng = random.Random(33_000 + index)
    first_h, last_h = SPANS_H[index]
    start, stop = DAY0_MS + first_h * 3_600_000, DAY0_MS + last_h * 3_600_000
    ids = list(range(index * ROWS_EACH, (index + 1) * ROWS_EACH))
    rng.shuffle(ids)  # so that a sort by id reorders the rows
    rows = []
    for n, id_ in enumerate(ids):
        row = {"id": id_, "carrier": rng.choice(CARRIERS), "origin": rng.choice(AIRPORTS),
               "ts": start + (stop - start) * n // ROWS_EACH + rng.randrange(0, 1000),
               "distance": round(rng.uniform(100, 3000), 3)}
        if rng.random() < 0.85:
            row["tags"] = rng.sample(TAGS, rng.randint(1, 3))
        if rng.random() < 0.9:
            row["legs"] = [rng.randint(1, 4) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.7:
            row["note"] = f"flight {id_} {rng.choice(('on time', 'delayed', 'diverted', 'late crew'))}"
        if rng.random() < 0.8:
            row["arrDelay"] = rng.randint(-30, 240)
        if schema is GAINED_SCHEMA and index == 3 and n % 3:
            row.update(gate=f"G{n % 7}", seats=[n % 5, 3], fuel=n * 1.5)
        if schema is SDF_SCHEMA:
            row["ts"] = datetime.fromtimestamp(row["ts"] // 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        rows.append(row)
    return rows


def fixture_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "fixtures" / "compaction" / "spf"


@contextlib.contextmanager
def fixed_run():
    """Our compaction with a fixed clock and write id, so that its segment names (run tag, write tag) and
    creation time are the ones the fixture's Pinot run was given."""
    from pinot_sink.compaction import run as run_module

    real = run_module.time
    clock = types.SimpleNamespace(time=lambda: CREATION_MS / 1000, monotonic=real.monotonic)
    with mock.patch.object(run_module, "time", clock), \
            mock.patch.object(run_module, "uuid", types.SimpleNamespace(uuid4=lambda: WRITE_UUID)):
        yield


def compact_folder(root: Path, config: dict, schema: dict = SCHEMA, **extra):
    """Our embedded compaction of the table folder ``root/flights`` with ``config``, one group, every input."""
    import pinot_sink

    options = {"schema": json.dumps(schema), "table-config": json.dumps(config)}
    with fixed_run():
        return pinot_sink.compact(TABLE, output_uri=str(root), target_size=extra.pop("target_size", "64mb"),
                                  min_segment_size="64mb", options=options, **extra)
