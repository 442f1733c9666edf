"""`pinot-sink push` (placeholder until its issue lands)."""


def register(subparsers):
    parser = subparsers.add_parser("push", help="(not implemented yet)")
    parser.set_defaults(func=lambda args: print("pinot-sink push: not implemented yet") or 2)
