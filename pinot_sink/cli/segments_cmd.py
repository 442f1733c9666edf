"""`pinot-sink segments` (placeholder until its issue lands)."""


def register(subparsers):
    parser = subparsers.add_parser("segments", help="(not implemented yet)")
    parser.set_defaults(func=lambda args: print("pinot-sink segments: not implemented yet") or 2)
