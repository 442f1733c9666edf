"""`pinot-sink build` (placeholder until its issue lands)."""


def register(subparsers):
    parser = subparsers.add_parser("build", help="(not implemented yet)")
    parser.set_defaults(func=lambda args: print("pinot-sink build: not implemented yet") or 2)
