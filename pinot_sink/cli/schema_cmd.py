"""`pinot-sink schema` (placeholder until its issue lands)."""


def register(subparsers):
    parser = subparsers.add_parser("schema", help="(not implemented yet)")
    parser.set_defaults(func=lambda args: print("pinot-sink schema: not implemented yet") or 2)
