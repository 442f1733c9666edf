"""`pinot-sink inspect` (placeholder until its issue lands)."""


def register(subparsers):
    parser = subparsers.add_parser("inspect", help="(not implemented yet)")
    parser.set_defaults(func=lambda args: print("pinot-sink inspect: not implemented yet") or 2)
