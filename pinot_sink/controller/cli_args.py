"""Command-line options for reaching a controller, shared by the ``pinot-sink`` subcommands.

Secrets can come from the environment (``PINOT_PASSWORD``, ``PINOT_TOKEN``, ``PINOT_AUTH_HEADER``) so
they stay out of shell history and ``ps``; a ``--user`` without any password prompts on a terminal.
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys
import time

from .auth import Auth
from .client import REALTIME_SUFFIX, ControllerClient, offline_raw_name
from .config import ClientConfig, validate_controller_url
from .errors import ControllerConfigError, ControllerError, ControllerNotFoundError, RetriesExhaustedError
from .retry import RetryPolicy


def add_controller_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("controller")
    group.add_argument("--url", default=os.environ.get("PINOT_CONTROLLER_URL"),
                       help="controller URL, e.g. http://localhost:9000 (env PINOT_CONTROLLER_URL)")
    group.add_argument("--table", required=True, help="table name, raw or with _OFFLINE; with _REALTIME: the "
                                                       "REALTIME table (its uploaded segments, as table-type=REALTIME)")
    group.add_argument("--user", help="basic auth user (password from --password, env PINOT_PASSWORD, or a prompt)")
    group.add_argument("--password", help="basic auth password (prefer env PINOT_PASSWORD)")
    group.add_argument("--token", help="bearer token (prefer env PINOT_TOKEN)")
    group.add_argument("--auth-header", help="raw Authorization header value (prefer env PINOT_AUTH_HEADER)")
    group.add_argument("--header", action="append", default=[], metavar="NAME=VALUE", help="extra header (repeat)")
    group.add_argument("--database", help="database of a multi-database cluster (sent as the 'database' header)")
    group.add_argument("--ca-bundle", help="CA bundle file to verify the controller's TLS certificate")
    group.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    group.add_argument("--client-cert", metavar="PEM", help="client certificate for mutual TLS (with --client-key, "
                                                            "or one PEM holding both)")
    group.add_argument("--client-key", metavar="PEM", help="private key of --client-cert")
    group.add_argument("--connect-timeout", type=float, default=ClientConfig.connect_timeout, metavar="S",
                       help=f"TCP connect timeout (default {ClientConfig.connect_timeout:g})")
    group.add_argument("--read-timeout", type=float, default=ClientConfig.read_timeout, metavar="S",
                       help="longest wait for a complete answer once a request is sent "
                            f"(default {ClientConfig.read_timeout:g})")
    group.add_argument("--retries", type=int, default=RetryPolicy.max_attempts, metavar="N",
                       help=f"attempts per call (default {RetryPolicy.max_attempts})")
    group.add_argument("--retry-time", type=float, default=RetryPolicy.max_elapsed_s, metavar="S",
                       help=f"deadline of one call, attempts included (default {RetryPolicy.max_elapsed_s:g})")


def auth_from_args(args: argparse.Namespace) -> Auth | None:
    token = args.token or os.environ.get("PINOT_TOKEN")
    header = args.auth_header or os.environ.get("PINOT_AUTH_HEADER")
    chosen = [name for name, value in (("--user", args.user), ("--token", token), ("--auth-header", header)) if value]
    if len(chosen) > 1:
        raise SystemExit(f"choose one way to authenticate, got {' and '.join(chosen)}")
    if args.user:
        password = args.password or os.environ.get("PINOT_PASSWORD")
        if password is None:
            if not sys.stdin.isatty():
                raise SystemExit("--user needs a password: --password or env PINOT_PASSWORD")
            password = getpass.getpass(f"Password for {args.user}: ")
        return Auth.basic(args.user, password)
    if token:
        return Auth.bearer(token)
    if header:
        return Auth.header(header)
    return None


def client_from_args(args: argparse.Namespace, *, pool_size: int = ClientConfig.pool_size) -> ControllerClient:
    if not args.url:
        raise SystemExit("no controller: pass --url or set PINOT_CONTROLLER_URL")
    try:
        validate_controller_url(args.url)
    except ControllerConfigError as error:
        raise SystemExit(_as_flags(error)) from None
    if args.client_key and not args.client_cert:
        raise SystemExit("--client-key needs --client-cert")
    headers = {}
    for item in args.header:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"--header wants NAME=VALUE, got {item.split('=')[0]!r}...")
        headers[name.strip()] = value
    verify: bool | str = False if args.insecure else (args.ca_bundle or True)
    cert = (args.client_cert, args.client_key) if args.client_key else args.client_cert
    try:
        return ControllerClient(
            args.url,
            auth=auth_from_args(args),
            headers=headers,
            database=args.database,
            verify=verify,
            cert=cert,
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
            retry=RetryPolicy(max_attempts=max(1, args.retries), max_elapsed_s=args.retry_time),
            pool_size=pool_size,
            table_type=table_type_of(getattr(args, "table", None)),
        )
    except ControllerConfigError as error:
        raise SystemExit(_as_flags(error)) from None


def table_type_of(table: str | None) -> str:
    """The type a command's ``--table`` names: REALTIME for ``events_REALTIME`` (the REALTIME upsert/dedup
    tables a write with table-type=REALTIME fills: their history, undo and recover), else OFFLINE."""
    return "REALTIME" if (table or "").strip().endswith(REALTIME_SUFFIX) else "OFFLINE"


# The data source option an error names -> the flag a CLI user typed.
FLAGS = {"url": "--url", "tls.client-cert": "--client-cert", "tls.client-key": "--client-key",
         "timeout.connect": "--connect-timeout", "timeout.read": "--read-timeout"}


def _as_flags(error: ControllerConfigError) -> str:
    return f"{FLAGS.get(error.option, error.option)}: {error.message}" if error.option else str(error)


# A refused connection is what a wrong port gives, but also a controller restarting: a few seconds of quick
# retries let a restart pass and still stop a wrong URL early. Every command that talks to a controller
# probes it first under this budget, whatever --retries and --retry-time allow its later calls.
REFUSED_GRACE_S = 5.0


def probe_controller(client: ControllerClient, table: str) -> None:
    """GET the table once the controller answers, retried under the client's policy; a failed name lookup,
    or connections refused for longer than ``REFUSED_GRACE_S``, stop it early (a wrong URL). Raises the
    ``ControllerError`` as it came (``ControllerNotFoundError`` for a missing table)."""
    raw = offline_raw_name(table, client.table_type)
    started = time.monotonic()

    def once(_remaining: float):
        try:
            return client.request("GET", f"/tables/{raw}", params={"type": client.table_type.lower()}, table=raw,
                                  operation="reach the controller", retry=RetryPolicy.none())
        except RetriesExhaustedError as exhausted:  # one attempt made: the retrying is ours
            error = exhausted.last_error
        kind = getattr(error, "never_connected", None)
        if kind == "name lookup" or (kind == "refused" and time.monotonic() - started >= REFUSED_GRACE_S):
            error.retryable = False  # a wrong URL: stop here, in one line
        raise error

    client.config.retry.call(once, describe=f"reach the controller {raw}")


def never_connected(error: ControllerError) -> bool:
    """No connection was made at all (refused, no such host): the URL is the likely culprit."""
    last = error.last_error if isinstance(error, RetriesExhaustedError) else error
    return getattr(last, "never_connected", None) is not None


def unreachable_line(client: ControllerClient, error: ControllerError) -> str:
    """The one line for a controller never reached: its URL, the reason, and the option to check."""
    last = error.last_error if isinstance(error, RetriesExhaustedError) else error
    reason = last.message.removeprefix(f"cannot reach the controller at {client.url}: ")
    return f"cannot reach the controller at {client.url}: {reason} (check --url)"


def reach_controller(client: ControllerClient, table: str) -> None:
    """A command's pre-flight: a controller never reached stops it in one line (``SystemExit``) within
    ``REFUSED_GRACE_S``, as ``push`` does; a missing table is left to the command, which says what that means
    to it; other failures raise as they came."""
    try:
        probe_controller(client, table)
    except ControllerNotFoundError:
        pass
    except ControllerError as error:
        if never_connected(error):
            raise SystemExit(unreachable_line(client, error)) from None
        raise
