"""Command-line options for reaching a controller, shared by the ``pinot-sink`` subcommands.

Secrets can come from the environment (``PINOT_PASSWORD``, ``PINOT_TOKEN``, ``PINOT_AUTH_HEADER``) so
they stay out of shell history and ``ps``; a ``--user`` without any password prompts on a terminal.
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys

from .auth import Auth
from .client import ControllerClient
from .config import ClientConfig, validate_controller_url
from .errors import ControllerConfigError
from .retry import RetryPolicy


def add_controller_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("controller")
    group.add_argument("--url", default=os.environ.get("PINOT_CONTROLLER_URL"),
                       help="controller URL, e.g. http://localhost:9000 (env PINOT_CONTROLLER_URL)")
    group.add_argument("--table", required=True, help="table name, raw or with _OFFLINE")
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
        )
    except ControllerConfigError as error:
        raise SystemExit(_as_flags(error)) from None


# The data source option an error names -> the flag a CLI user typed.
FLAGS = {"url": "--url", "tls.client-cert": "--client-cert", "tls.client-key": "--client-key",
         "timeout.connect": "--connect-timeout", "timeout.read": "--read-timeout"}


def _as_flags(error: ControllerConfigError) -> str:
    return f"{FLAGS.get(error.option, error.option)}: {error.message}" if error.option else str(error)
