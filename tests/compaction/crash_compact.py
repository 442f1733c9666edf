"""Run a compaction in this process and die (``os._exit``, as SIGKILL would: no clean-up runs) at one phase.

    python crash_compact.py PHASE (--url URL | --output-uri DIR --schema S --table-config T) --target-size SIZE
        [--table T (default events)]

Phases: ``read`` (the third segment read), ``built`` (every new segment staged, before the commit),
``started`` (the lineage entry opened), ``uploaded`` (every new segment uploaded, the entry not ended),
``ended`` (the entry ended, nothing after), ``half-published`` (embedded: one new tarball moved in),
``published`` (embedded: every new tarball in place, nothing deleted), ``deleting`` (embedded: one merged
tarball deleted)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def die() -> None:
    sys.stdout.flush()
    os._exit(9)


def after(owner, name: str, *, calls: int = 1, before: bool = False) -> None:
    original = getattr(owner, name)
    seen = {"n": 0}

    def wrapper(*args, **kwargs):
        seen["n"] += 1
        if before and seen["n"] >= calls:
            die()
        result = original(*args, **kwargs)
        if seen["n"] >= calls:
            die()
        return result

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("phase")
    parser.add_argument("--url")
    parser.add_argument("--output-uri")
    parser.add_argument("--schema")
    parser.add_argument("--table-config")
    parser.add_argument("--target-size", default="64kb")
    parser.add_argument("--table", default="events")
    args = parser.parse_args()

    from pinot_sink import commit
    from pinot_sink.compaction import merge, run
    from pinot_sink.controller.client import ControllerClient
    from pinot_sink.controller.consistent_push import ConsistentPush
    from pinot_sink.storage.stores import DirectoryStore

    phase = args.phase
    if phase == "read":
        after(merge, "read_rows", calls=3)
    elif phase == "built":
        after(run, "commit_job", before=True)
    elif phase == "started":
        after(ControllerClient, "start_replace")
    elif phase == "uploaded":
        after(ConsistentPush, "upload")
    elif phase == "ended":
        after(ControllerClient, "end_replace")
    elif phase in ("half-published", "published"):
        original = commit.publish_into_directory

        def publish(root, table, staged, options=None):
            if phase == "half-published":
                first = dict(list(staged.items())[:1])
                original(root, table, first, options)
                die()
            original(root, table, staged, options)
            die()

        commit.publish_into_directory = publish
    elif phase == "deleting":
        original_delete = DirectoryStore.delete

        def delete(self, names):
            names = sorted(names)
            original_delete(self, names[:1])
            die()

        DirectoryStore.delete = delete
    else:
        raise SystemExit(f"unknown phase {phase}")
    options = {}
    if args.schema:
        options = {"schema": args.schema, "table-config": args.table_config}
    if args.url:
        options.update({"retry.initial-backoff": "10ms", "retry.max-backoff": "50ms"})
    run.compact(args.table, url=args.url, output_uri=args.output_uri, target_size=args.target_size, options=options)
    print("the compaction ended without reaching its phase", file=sys.stderr)
    os._exit(3)


if __name__ == "__main__":
    main()
