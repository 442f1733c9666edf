"""``pinot-sink undo --table T --write-id X [--url URL] [--output-uri URI] [--dry-run]``: revert a committed
write through its lineage entry: after an overwrite the rows it replaced come back, after an append its rows
go (``pinot_sink.history.undo_write``; refused, with the reason, when that is no longer possible)."""
from __future__ import annotations

from pinot_sink.controller.cli_args import add_controller_arguments, client_from_args, reach_controller


def register(subparsers) -> None:
    parser = subparsers.add_parser("undo", help="revert a committed write (its lineage entry)",
                                   description="Revert the latest committed run of a write: its segments go, the "
                                               "segments it replaced come back (Pinot's revertReplaceSegments).")
    parser.add_argument("--write-id", required=True, metavar="WRITE",
                        help="the write: its write.id, its write tag (wXXXXXXXXXX) or a run tag, as history shows")
    parser.add_argument("--output-uri", help="the write's output-uri: its manifest is marked undone, so a later "
                                             "`pinot-sink push` of the folder does not publish it again")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    add_controller_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    from pinot_sink.history import undo_folder_write, undo_write

    if not args.url and args.output_uri:  # embedded mode: an append's files go
        done = undo_folder_write(args.output_uri, args.table, args.write_id, dry_run=args.dry_run)
    else:
        with client_from_args(args) as client:
            reach_controller(client, args.table)
            done = undo_write(client, args.table, args.write_id, output_uri=args.output_uri, dry_run=args.dry_run)
    verb = "would revert" if args.dry_run else "reverted"
    entry = f", lineage entry {done.run.lineage_id}" if done.run.lineage_id else ""
    print(f"{verb} write {done.run.write_id or done.run.write_tag} run {done.run.run_tag} ({done.run.mode}{entry}): "
          f"{len(done.removed)} segment(s) out, {len(done.restored)} back")
    if done.live_again is not None:
        print(f"run {done.live_again.run_tag} of the same write is live again; undo again to take it out too")
    return 0
