"""``pinot-sink push PATH... --url URL --table T``: upload built segment tarballs, many in parallel."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from pinot_sink.controller import PUSH_MODES, ConsistentPush, push_segments
from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, table_type_of
from pinot_sink.storage.layout import MANIFEST_DIR, STAGING_DIR, segment_name_from_path
from pinot_sink.storage.manifests import manifests_of_table, not_live, publishing
from pinot_sink.controller.store import ControllerStore
from pinot_sink.storage.tarballs import SegmentTarballError, tarball_time_range
from pinot_sink.time_window import (DYNAMIC, INSIDE, TimeWindow, TimeWindowError, classify, format_ms,
                                    parse_time_range, select_replaced)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "push", help="upload segment tarballs to a Pinot controller",
        description="Upload built segments (<name>.tar.gz files, or directories holding them).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="segment tarball or a directory of them")
    parser.add_argument("--push-mode", choices=PUSH_MODES, default="tar",
                        help="tar: send the tarball; uri: deep store then tell the URI; metadata: deep store then "
                             "send only the metadata (default tar)")
    parser.add_argument("--deep-store", metavar="URI", help="deep store URI for uri/metadata modes "
                                                            "(<URI>/<rawTable>/<segment>.tar.gz)")
    parser.add_argument("--copy-to-deep-store", action="store_true",
                        help="metadata mode: let the controller copy the tarball into its own deep store")
    parser.add_argument("--parallel", type=int, default=4, metavar="N", help="uploads in flight (default 4)")
    parser.add_argument("--consistent", action="store_true",
                        help="replace every current segment of the table atomically (segment lineage); "
                             "any failure reverts")
    parser.add_argument("--replace-time-range", metavar="START/END",
                        help="replace, in one lineage entry, the table's segments whose time range lies in this "
                             "window (end exclusive; ISO dates, datetimes or epoch millis, UTC unless an offset "
                             "is given) by the pushed ones, which must lie in it too; any failure reverts")
    parser.add_argument("--include-straddling", action="store_true",
                        help="with --replace-time-range: replace segments straddling the window's edges whole "
                             "(default: they are an error)")
    parser.add_argument("--create-table", nargs=2, metavar=("SCHEMA", "TABLE_CONFIG"), type=Path,
                        help="when the controller has no such table, create it first from these files (the "
                             "schema.json and table_config.json that pinot-sink build --option "
                             "table.create=if-missing writes)")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def find_tarballs(paths: list[str]) -> list[Path]:
    """The tarballs to push: files given, and the ``*.tar.gz`` under each folder given, except in a write's own
    folders (``_staging``: tarballs never published; ``_manifests``) and those a write's manifest in that
    folder marks as not committed (a failed, withdrawn or unknown write's: ``manifest.not_live``). A file given
    by name (a shell glob: ``out/events/*.tar.gz``) is held to the same records: one they mark as not live is
    refused, not pushed."""
    found: list[Path] = []
    records: dict[Path, set[str]] = {}  # a glob names many files of one folder: read its records once
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found.extend(_committed_tarballs(path))
        elif path.is_file():
            found.append(_committed_file(path, records))
        else:
            raise SystemExit(f"no such file or directory: {item}")
    if not found:
        raise SystemExit("no segment tarballs (*.tar.gz) found")
    names = [segment_name_from_path(p) for p in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SystemExit(f"the same segment name appears twice: {', '.join(duplicates[:5])}")
    # A file that is no tarball reached the controller, whose HTTP 500 ('No Compressor found') was retried for
    # each; its first bytes say so here, before anything is pushed.
    from pinot_sink.segment.read.tar_source import is_tarball
    from type_mapping.errors import PinotSinkError

    for path in found:
        try:
            is_tarball(path, required=True)
        except PinotSinkError as exc:
            raise SystemExit(f"{exc}; nothing was pushed") from None
    return found


def _not_live_in(folder: Path) -> set[str]:
    """The names the write records in ``folder/_manifests/`` say are not live (none: no records). Refuses a
    folder whose records cannot all be read, or one of which says a write is publishing there."""
    if not (folder / MANIFEST_DIR).is_dir():
        return set()
    unreadable: list[str] = []
    documents = manifests_of_table(folder.resolve().as_uri(), unreadable=unreadable)
    if unreadable:  # it may mark some of these tarballs as not committed: never guess
        raise SystemExit(
            f"{folder}: cannot read the write record(s) {', '.join(Path(u).name for u in unreadable)} in "
            f"{MANIFEST_DIR}/ (truncated or corrupted), so which tarballs are committed is unknown; nothing was "
            "pushed. Restore or remove the file once you have checked the table (`pinot-sink recover` lists it)")
    running = sorted(Path(uri).name for uri, d in documents.items() if publishing(d))
    if running:  # an unknown write that replaces others: whether those are live is the controller's to say
        raise SystemExit(
            f"{folder}: a write into this folder is publishing, stopped while publishing, or replaced segments with "
            f"an unknown outcome ({', '.join(running)} in {MANIFEST_DIR}/): wait for it to end, or settle it first "
            f"with `pinot-sink recover --table "
            f"<table> --output-uri <the folder above it> --apply`")
    return not_live(documents.values())


def _committed_file(path: Path, records: dict[Path, set[str]]) -> Path:
    if STAGING_DIR in path.resolve().parts:
        raise SystemExit(f"{path}: a write's staged tarball (under {STAGING_DIR}/), never published by it: not pushed")
    if path.parent not in records:
        records[path.parent] = _not_live_in(path.parent)
    if segment_name_from_path(path) in records[path.parent]:
        raise SystemExit(f"{path}: the write records in {path.parent / MANIFEST_DIR} say this segment is not live "
                         "(not committed, or replaced by a committed write); nothing was pushed")
    return path


def _committed_tarballs(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in (STAGING_DIR, MANIFEST_DIR) and not d.startswith("."))
        tarballs = sorted(Path(folder) / f for f in files if f.endswith(".tar.gz") and not f.startswith("."))
        if not tarballs:
            continue
        skipped = _not_live_in(Path(folder))
        kept = [p for p in tarballs if segment_name_from_path(p) not in skipped]
        if len(kept) < len(tarballs):
            print(f"{folder}: skipping {len(tarballs) - len(kept)} tarball(s) its manifests say are not live (not "
                  "committed, or replaced)",
                  file=sys.stderr)
        found.extend(kept)
    return found


class Progress:
    """Upload progress through tqdm (segments, bytes, rate) on stderr; a failed segment is printed as a
    failure when it fails, and counted as one at the end."""

    def __init__(self, total: int, total_bytes: int, stream=None) -> None:
        from tqdm import tqdm

        self.total, self.total_bytes = total, total_bytes
        self.stream = stream or sys.stderr
        self.done = self.failed = self.skipped = self.bytes = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._bar = tqdm(total=total_bytes, unit="B", unit_scale=True, unit_divisor=1024, desc="push",
                         file=self.stream, disable=None, dynamic_ncols=True, postfix=self._postfix())

    def _postfix(self) -> str:
        return f"{self.done}/{self.total} segments" + (f", {self.failed} FAILED" if self.failed else "")

    def __call__(self, result) -> None:
        with self._lock:
            self.done += 1
            self.failed += 0 if result.ok else 1
            self.bytes += result.tar_bytes
            if getattr(result, "skipped", False):
                self.skipped += 1  # summarised once at the end, not a line each
            elif not result.ok:
                self._bar.write(f"FAILED {result.segment}: {result.error}", file=self.stream)
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(result.tar_bytes)

    def finish(self) -> str:
        self._bar.close()
        elapsed = max(time.monotonic() - self.started, 1e-9)
        failed = f"; {self.failed} FAILED" if self.failed else ""
        if self.skipped:
            failed += (f" ({self.skipped} not tried: the controller could not be reached, so the push stopped "
                       f"early)")
        return (f"pushed {self.done - self.failed} of {self.total} segments ({self.bytes / 1e6:.1f} MB) in "
                f"{elapsed:.1f}s: {self.done / elapsed:.1f} segments/s, {self.bytes / elapsed / 1e6:.1f} MB/s{failed}")


def _create_table(client, table: str, schema_path: Path, config_path: Path) -> None:
    """--create-table: the schema and OFFLINE table, when the controller has no such table."""
    import json

    from pinot_sink.controller import ControllerError
    from pinot_sink.controller.errors import ControllerNotFoundError
    from pinot_sink.segment.format import raw_table_name
    from pinot_sink.table_create import create_table

    try:
        client.get_table_config(table)
        return
    except ControllerNotFoundError:
        pass
    except ControllerError as exc:
        raise SystemExit(f"cannot reach the controller at {client.url}: {exc}; nothing was pushed") from None
    schema, config = json.loads(schema_path.read_text()), json.loads(config_path.read_text())
    # Pinot names the table after its config and looks its schema up by that name: files naming another
    # table would create (or find) that one, and the push would then stop on "--table does not exist".
    raw = raw_table_name(table.strip())
    named = {"schemaName": (schema_path, schema.get("schemaName") if isinstance(schema, dict) else None),
             "tableName": (config_path, config.get("tableName") if isinstance(config, dict) else None)}
    for key, (path, name) in named.items():
        if not isinstance(name, str) or raw_table_name(name.strip()) != raw:
            raise SystemExit(f"--create-table: {path} has {key} {name!r}, not the --table {raw!r}: push with "
                             f"--table {name}, or set {key} to {raw!r} in it; nothing was pushed")
    create_table(client, table, schema, config)  # says "created table ..." (INFO, the CLI's log) when it did


def _preflight(client, table: str) -> None:
    """Before any upload: the controller answers and has the table, or the push stops in one line ending
    "nothing was pushed" (a controller that cannot be reached would otherwise fail every segment, one retry
    cycle each). Transient failures (5xx, timeouts, resets) get the push's own budget (--retries,
    --retry-time); only a 4xx, a failed name lookup, or connections refused for longer than
    ``REFUSED_GRACE_S`` (``cli_args``) stop it early. Not ``cli_args.reach_controller``, which the read-only
    commands share: those leave a missing table to the command and let other failures raise as they came."""
    from pinot_sink.controller import ControllerError
    from pinot_sink.controller.cli_args import never_connected, probe_controller, unreachable_line
    from pinot_sink.controller.client import offline_raw_name
    from pinot_sink.controller.errors import ControllerNotFoundError

    raw = offline_raw_name(table)
    try:
        probe_controller(client, table)
        client.get_table_config(table)
    except ControllerNotFoundError:
        raise SystemExit(f"table {raw}_OFFLINE does not exist on {client.url}: nothing was pushed") from None
    except ControllerError as exc:
        line = unreachable_line(client, exc) if never_connected(exc) else \
            f"cannot reach the controller at {client.url}: {exc}"
        raise SystemExit(f"{line}; nothing was pushed") from None


def run(args) -> int:
    if args.push_mode != "tar" and not args.deep_store:
        raise SystemExit(f"--push-mode {args.push_mode} needs --deep-store URI")
    if args.parallel < 1:
        raise SystemExit("--parallel must be at least 1")
    if table_type_of(args.table) == "REALTIME":  # the one command --table X_REALTIME does not serve
        raise SystemExit(f"--table {args.table}: push uploads to OFFLINE tables; a REALTIME upsert or dedup "
                         f"table's backfill is written with table-type=REALTIME (pinot_sink.write), which names "
                         f"its segments as Pinot requires (docs/primary-key-tables.md)")
    tarballs = find_tarballs(args.paths)
    window = _window(args, tarballs)
    with client_from_args(args, pool_size=max(args.parallel, 4)) as client:
        if args.create_table:
            _create_table(client, args.table, *args.create_table)
        _preflight(client, args.table)
        progress = Progress(len(tarballs), sum(p.stat().st_size for p in tarballs))
        options = dict(push_mode=args.push_mode, deep_store_uri=args.deep_store,
                       copy_to_deep_store=args.copy_to_deep_store, parallel=args.parallel, on_result=progress)
        if window is not None:
            return _replace_window(client, args, window, tarballs, progress, options)
        if args.consistent:
            return _consistent_push(client, args.table, tarballs, progress, options)
        _refuse_compacted_writes(client, args.table, tarballs)
        results = push_segments(client, args.table, tarballs, raise_on_error=False, **options)
        print(progress.finish(), file=sys.stderr)
    failures = [r for r in results if not r.ok]
    if failures:
        print(f"pinot-sink push: {len(failures)} of {len(results)} segment(s) FAILED (listed above); the others "
              f"were pushed", file=sys.stderr)
    return 1 if failures else 0


def _refuse_compacted_writes(client, table: str, tarballs: list[Path]) -> None:
    """A plain push adds (or refreshes) segments by name. A writer's tarball whose write a live compacted segment
    lists (``custom.pinotSinkSourceWrites``) has its rows in that segment: a controller's compaction leaves the
    writes' output-uri as it was, and once retention deleted the merged segments, pushing that folder added its
    rows a second time. The rule of a rerun of a compacted write (``compaction.provenance``), before any upload."""
    from pinot_sink.compaction.provenance import SOURCE_WRITES_KEY, is_compacted, parse_writes, write_tag_of

    by_write: dict[str, list[str]] = {}
    for path in tarballs:
        name = segment_name_from_path(path)
        tag = write_tag_of(name)
        if tag is not None and not is_compacted(name):
            by_write.setdefault(tag, []).append(name)
    compacted = sorted(n for n in client.list_segments(table, exclude_replaced=True) if is_compacted(n)) \
        if by_write else []
    if not compacted:
        return
    held: dict[str, str] = {}  # write tag -> the first live compacted segment listing it
    custom = ControllerStore.over(client, table).custom_metadata(compacted)
    for name in compacted:
        for tag in parse_writes((custom.get(name) or {}).get(SOURCE_WRITES_KEY)):
            held.setdefault(tag, name)
    hit = sorted((name, held[tag]) for tag, names in by_write.items() if tag in held for name in names)
    if hit:
        into = sorted({segment for _, segment in hit})
        raise SystemExit(
            f"table {table}: {len(hit)} tarball(s) hold rows of writes a compaction merged into live segment "
            f"{into[0]}{f' (and {len(into) - 1} more)' if len(into) > 1 else ''}, so pushing them would count those "
            f"rows twice: {', '.join(name for name, _ in hit[:3])}{', ...' if len(hit) > 3 else ''}; nothing was "
            f"pushed. Leave them out (name the other tarballs one by one): their rows are in the table")


def _window(args, tarballs: list[Path]) -> TimeWindow | None:
    """The window of --replace-time-range; every tarball must lie in it (checked before any upload)."""
    if args.replace_time_range is None:
        if args.include_straddling:
            raise SystemExit("--include-straddling only applies with --replace-time-range")
        return None
    if args.consistent:
        raise SystemExit("--replace-time-range already replaces atomically; drop --consistent")
    try:
        window = parse_time_range(args.replace_time_range)
        if window == DYNAMIC:
            raise TimeWindowError("'dynamic' needs the rows' days (use the data source); give START/END")
        outside = []
        for path in tarballs:
            start, end = tarball_time_range(path)
            if classify(start, end, window) != INSIDE:
                span = "no time range" if start == end == -1 else f"{format_ms(start)} .. {format_ms(end)}"
                outside.append(f"{path.name} ({span})")
    except (TimeWindowError, SegmentTarballError) as exc:
        raise SystemExit(f"--replace-time-range: {exc}") from None
    if outside:
        raise SystemExit(f"--replace-time-range {window}: {len(outside)} segment(s) hold rows outside the window "
                         f"(end exclusive), nothing was pushed: {', '.join(outside[:10])}")
    return window


def _replace_window(client, args, window: TimeWindow, tarballs: list[Path], progress: Progress, options) -> int:
    """--replace-time-range: the live segments inside the window (Pinot's rule, from their ZK time ranges)."""
    names = [segment_name_from_path(p) for p in tarballs]
    store = ControllerStore.over(client, args.table)
    try:
        replaced = select_replaced(store.time_ranges(store.list()), [window],
                                   include_straddling=args.include_straddling,
                                   straddling_hint="--include-straddling")
    except TimeWindowError as exc:
        raise SystemExit(f"table {args.table}: nothing was pushed: {exc}") from None
    # Pinot refuses a replacement whose new names are in the table already, live or replaced (a 500, which the
    # start would retry for a minute): the same tarballs pushed again, say. Named here, before anything starts.
    taken = sorted(set(names) & set(client.list_segments(args.table, exclude_replaced=False)))
    if taken:
        raise SystemExit(f"table {args.table}: nothing was pushed: {len(taken)} segment name(s) are in the table "
                         f"already ({', '.join(taken[:3])}{', ...' if len(taken) > 3 else ''}); a replacement needs "
                         f"new names: build the segments again (a new --name), or push without "
                         f"--replace-time-range")
    return _consistent_push(client, args.table, tarballs, progress, options,
                            segments_from=sorted(replaced - set(names)), window=window)


def _consistent_push(client, table: str, tarballs: list[Path], progress: Progress, options, *,
                     segments_from: list[str] | None = None, window: TimeWindow | None = None) -> int:
    """One lineage entry: the tarballs replace ``segments_from`` (default: every live segment)."""
    push = ConsistentPush(client, table, segments_to=[segment_name_from_path(p) for p in tarballs],
                          segments_from=segments_from)
    try:
        push.run(tarballs, **options)
    finally:
        print(progress.finish(), file=sys.stderr)
    print(f"table {push.table}: {len(tarballs)} segments replaced {len(push.segments_from or [])}"
          f"{f' in {window}' if window else ''} (lineage entry {push.lineage_id})")
    return 0
