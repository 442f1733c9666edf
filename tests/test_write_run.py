"""WriteRun, the one model of which write this is: the names and folders it gives, and a micro-batch's run
worked out the same in its tasks and its commit."""
from __future__ import annotations

import pickle

from pinot_sink.naming import name_tags, run_tag, write_tag
from pinot_sink.write_run import APPEND, TABLE, WINDOW, WriteRun, batch_write_id

ROOT = "file:///tmp/out"


def run(replaces=APPEND, *, write_id="day-1", rerun=True) -> WriteRun:
    return WriteRun("events", write_id, run_tag(1_700_000_000_000, replaces=replaces), replaces, rerun, ROOT)


def test_a_run_names_its_folder_staging_and_segments_from_its_tags():
    one = run()
    assert one.write_tag == write_tag("day-1") and one.folder == f"{one.write_tag}_{one.run_tag}"
    assert one.staging == f"{ROOT}/events/_staging/{one.folder}"
    assert one.attempt_staging(3, 7) == f"{one.staging}/p3_a7"
    name = f"events_{one.postfix('mine', 3)}_0"
    assert name == f"events_mine_{one.write_tag}_{one.run_tag}_3_0" and name_tags(name) == (one.write_tag, one.run_tag)
    assert one.owns(name) and not run(write_id="day-2").owns(name)


def test_a_micro_batchs_run_is_the_same_in_its_tasks_and_its_commit():
    template = run(write_id=None)
    assert template.write_tag is None
    task_side, commit_side = template.for_batch("q-1", 4), pickle.loads(pickle.dumps(template)).for_batch("q-1", 4)
    assert task_side == commit_side and task_side.write_id == batch_write_id("q-1", 4) == "stream:q-1:4"
    assert task_side.write_tag == write_tag("stream:q-1:4") and task_side.run_tag == template.run_tag
    assert task_side.rerun and template.for_batch("q-1", 5).write_tag != task_side.write_tag


def test_what_a_run_may_replace():
    assert not run(rerun=False).may_replace  # a plain append: a fresh write tag no segment carries
    assert run(rerun=True).may_replace  # write.id given, or a micro-batch: its earlier runs
    assert run(TABLE, rerun=False).may_replace and run(WINDOW, rerun=False).may_replace
    assert run(TABLE).run_tag[0] == "o" and run(WINDOW).run_tag[0] == "t" and run().run_tag[0] == "r"


def test_the_plan_lists_coerced_columns():
    """Issue 32 item 10: a double into a STRING column, numeric strings into an INT column: converted as Pinot
    converts them, and listed (the write's summary says them); natural kinds are not."""
    import pyarrow as pa

    from type_mapping import PinotSchema
    from type_mapping.reconcile import plan_write

    schema = PinotSchema.from_json({"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "s", "dataType": "STRING"}, {"name": "i", "dataType": "INT"}, {"name": "l", "dataType": "LONG"},
        {"name": "d", "dataType": "DOUBLE"}, {"name": "tags", "dataType": "INT", "singleValueField": False}]})
    source = pa.schema([("s", pa.float64()), ("i", pa.string()), ("l", pa.int32()), ("d", pa.int64()),
                        ("tags", pa.list_(pa.string()))])
    plan = plan_write(source, schema)
    assert plan.coerced == ("s (double -> STRING)", "i (string -> INT)", "tags (array<string> -> INT multi-value)")
