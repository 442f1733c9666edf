"""The data source's options: parsed once on the driver from Spark's string options, typed and validated.

Spark hands a Python data source its options as a case-insensitive dict of strings. ``WriteOptions.parse``
turns them into typed values, rejects unknown or misspelled keys (suggesting the closest valid one), and
keeps secrets out of ``repr``. Every option is documented in docs/options.md; the ``OPTIONS`` table below
is the single source of names, defaults and one-line descriptions.
"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Mapping

REDACTED = "<redacted>"


class OptionError(ValueError):
    """An option that is missing, unknown or malformed; the message names the option."""


# name -> (default as the user would write it, description). None = no default.
OPTIONS: dict[str, tuple[str | None, str]] = {
    "table-name": (None, "Pinot table (raw name, without _OFFLINE); required"),
    "url": (None, "controller base URL; without it segments only go to output-uri (embedded mode)"),
    "table-type": ("OFFLINE", "only OFFLINE tables are written"),
    "push-mode": ("tar", "tar (upload the tarball) | uri (controller fetches from output-uri) | metadata"),
    "output-uri": (None, "where tarballs go: a local directory or a deep-store URI (fsspec)"),
    "push-parallelism": ("4", "concurrent uploads when the driver pushes (overwrite mode)"),
    "sink.buffer-flush.max-size": ("5mb", "cut a segment when the buffered rows reach this size"),
    "sink.buffer-flush.max-rows": ("1000", "cut a segment when this many rows are buffered"),
    "sink.parallelism": (None, "repartition to N before writing (pinot_sink.write applies it)"),
    "segment-name.type": ("simple", "simple | normalizedDate | fixed"),
    "segment.name": (None, "the segment name for segment-name.type=fixed"),
    "segment.name.prefix": (None, "name prefix for normalizedDate (default: the table name)"),
    "segment.name.postfix": (None, "name postfix, before the partition id and sequence"),
    "segment-version": ("v3", "segment format version: v3 (single columns.psf) or v1"),
    "creation-time": (None, "segment creation time (epoch millis or ISO-8601); default: job start"),
    "schema": (None, "Pinot schema as JSON or a path to a JSON file (instead of the controller's)"),
    "table-config": (None, "table config as JSON or a path to a JSON file (instead of the controller's)"),
    "schema.unknown-columns": ("fail", "fail | ignore: DataFrame columns that the Pinot schema lacks"),
    "schema.case-sensitive": ("false", "match DataFrame columns to Pinot columns case-sensitively"),
    "convert.on-overflow": ("error", "number outside the Pinot type's range: error | null"),
    "convert.on-fraction": ("error", "fraction into an INT/LONG column: error | truncate | null"),
    "convert.on-oversize-string": ("error", "STRING over maxLength (no strategy in the schema): error | pinot"),
    "convert.on-sub-millisecond": ("floor", "microseconds into a millisecond column: floor | error"),
    "convert.on-null-time": ("error", "null in the time column with an out-of-range default: error | pinot"),
    "build.unsupported-indexes": ("error", "indexes this builder cannot write: error | skip (server builds them)"),
    "build.sort": ("true", "sort each segment by the table's sortedColumn"),
    "auth.username": (None, "basic auth user (with auth.password)"),
    "auth.password": (None, "basic auth password"),
    "auth.token": (None, "bearer token"),
    "auth.header-token": (None, "the whole Authorization header value, e.g. 'Basic dXNlcjpwYXNz'"),
    "database": (None, "Pinot database (sent as the 'database' header)"),
    "tls.verify": ("true", "verify the controller's TLS certificate: true | false | path to a CA bundle"),
    "timeout.connect": ("10s", "controller connect timeout"),
    "timeout.read": ("300s", "controller read timeout (an upload of a large segment takes a while)"),
    "retry.max-attempts": ("5", "attempts per controller call"),
    "retry.max-elapsed": ("300s", "time budget per controller call, retries included"),
    "retry.initial-backoff": ("1s", "first backoff; doubles per attempt"),
    "retry.max-backoff": ("30s", "largest backoff"),
}
# Prefixes whose keys pass through: extra HTTP headers for the controller.
PREFIX_OPTIONS = {"header.": "extra HTTP header sent to the controller, e.g. header.X-Team=ads"}
# Keys Spark itself sets (save(path), streaming) that are not ours to reject.
SPARK_OWNED = {"path", "checkpointlocation", "queryname"}
# Test-only: "P" or "P:N" makes attempt 0 of partition P fail after writing its N-th segment (default 1).
TEST_FAIL_OPTION = "_test.fail-partition"

SECRET_OPTIONS = {"auth.password", "auth.token", "auth.header-token"}
SEGMENT_NAME_TYPES = {"simple": "simple", "normalizeddate": "normalizedDate", "fixed": "fixed"}
PUSH_MODES = ("tar", "uri", "metadata")

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2,
               "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "t": 1024**4, "tb": 1024**4, "tib": 1024**4}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$", re.IGNORECASE)
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_size(text: str, option: str = "size") -> int:
    """``5mb`` -> 5242880. Units b, kb, mb, gb, tb (1024-based, like Flink's MemorySize); bare numbers are bytes."""
    match = _SIZE.match(str(text))
    unit = (match.group(2) or "").lower() if match else None
    if not match or unit not in _SIZE_UNITS:
        raise OptionError(f"option {option!r}: {text!r} is not a size (examples: 5mb, 512kb, 1gb, 1048576)")
    value = int(float(match.group(1)) * _SIZE_UNITS[unit])
    if value <= 0:
        raise OptionError(f"option {option!r}: must be positive, got {text!r}")
    return value


def parse_duration(text: str, option: str) -> float:
    """``10s``, ``500ms``, ``2m``, ``1h`` or bare seconds -> seconds."""
    match = _DURATION.match(str(text))
    if not match:
        raise OptionError(f"option {option!r}: {text!r} is not a duration (examples: 500ms, 10s, 2m)")
    return float(match.group(1)) * _DURATION_UNITS[(match.group(2) or "").lower()]


def parse_int(text: str, option: str, minimum: int = 1) -> int:
    try:
        value = int(str(text).replace("_", "").strip())
    except ValueError:
        raise OptionError(f"option {option!r}: {text!r} is not an integer") from None
    if value < minimum:
        raise OptionError(f"option {option!r}: must be at least {minimum}, got {value}")
    return value


def parse_bool(text: str, option: str) -> bool:
    lowered = str(text).strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise OptionError(f"option {option!r}: {text!r} is not true or false")


def parse_creation_time(text: str) -> int:
    """Epoch millis, or an ISO-8601 timestamp (UTC when it has no offset)."""
    stripped = str(text).strip()
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    try:
        parsed = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise OptionError(
            f"option 'creation-time': {text!r} is neither epoch millis nor ISO-8601 (2024-01-31T00:00:00Z)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return int(parsed.timestamp() * 1000)


def load_json_option(text: str, option: str) -> dict:
    """A JSON object given inline or as a path to a file holding it."""
    stripped = str(text).strip()
    if not stripped.startswith("{"):
        path = os.path.expanduser(stripped)
        if not os.path.isfile(path):
            raise OptionError(f"option {option!r}: neither inline JSON nor an existing file: {text!r}")
        with open(path, encoding="utf-8") as handle:
            stripped = handle.read()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise OptionError(f"option {option!r}: invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise OptionError(f"option {option!r}: expected a JSON object")
    return value


def suggest(name: str) -> str:
    """' (did you mean 'x'?)' for the closest valid option name, or ''."""
    candidates = list(OPTIONS) + [p + "<name>" for p in PREFIX_OPTIONS]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not close:
        # Separators are the usual slip: compare with dots/dashes/underscores removed.
        squash = {re.sub(r"[-._]", "", c): c for c in OPTIONS}
        hit = squash.get(re.sub(r"[-._]", "", name))
        close = [hit] if hit else []
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclass(frozen=True)
class WriteOptions:
    """Typed write options. Build with ``WriteOptions.parse(spark_options)``."""

    table_name: str
    url: str | None = None
    table_type: str = "OFFLINE"
    push_mode: str = "tar"
    output_uri: str | None = None
    push_parallelism: int = 4
    max_bytes: int = 5 * 1024**2
    max_rows: int = 1000
    parallelism: int | None = None
    segment_name_type: str = "simple"
    segment_name: str | None = None
    segment_name_prefix: str | None = None
    segment_name_postfix: str | None = None
    segment_version: str = "v3"
    creation_time_ms: int | None = None
    schema_json: dict | None = None
    table_config_json: dict | None = None
    ignore_unknown_columns: bool = False
    case_sensitive: bool = False
    auth_username: str | None = None
    auth_password: str | None = field(default=None, repr=False)
    auth_token: str | None = field(default=None, repr=False)
    auth_header: str | None = field(default=None, repr=False)
    database: str | None = None
    tls_verify: bool | str = True
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    retry_max_attempts: int = 5
    retry_max_elapsed_s: float = 300.0
    retry_initial_backoff_s: float = 1.0
    retry_max_backoff_s: float = 30.0
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    conversion: dict[str, str] = field(default_factory=dict)
    unsupported_indexes: str = "error"
    sort_by_sorted_column: bool = True
    test_fail_partition: tuple[int, int] | None = None

    @property
    def embedded(self) -> bool:
        """No controller: segments are only written to output-uri."""
        return not self.url

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "WriteOptions":
        raw = {str(k).lower(): ("" if v is None else str(v)) for k, v in options.items()}
        known = {k.lower(): k for k in OPTIONS}
        for key in raw:
            if key in known or key in SPARK_OWNED or key == TEST_FAIL_OPTION:
                continue
            if any(key.startswith(prefix) and len(key) > len(prefix) for prefix in PREFIX_OPTIONS):
                continue
            raise OptionError(f"unknown option {key!r}{suggest(key)}; see docs/options.md")

        def get(name: str) -> str | None:
            value = raw.get(name)
            if value is None or value.strip() == "":
                return None
            return value.strip()

        table_name = get("table-name")
        if not table_name:
            raise OptionError("option 'table-name' is required (the Pinot table to write)")
        if table_name.upper().endswith(("_OFFLINE", "_REALTIME")):
            raise OptionError(f"option 'table-name': give the raw table name, without the type suffix: {table_name!r}")

        table_type = (get("table-type") or "OFFLINE").upper()
        if table_type != "OFFLINE":
            raise OptionError(f"option 'table-type': only OFFLINE tables can be written, got {table_type!r}")
        push_mode = (get("push-mode") or "tar").lower()
        if push_mode not in PUSH_MODES:
            raise OptionError(f"option 'push-mode': {push_mode!r} is not one of {', '.join(PUSH_MODES)}")

        url = get("url")
        output_uri = get("output-uri") or get("path")
        if url and push_mode in ("uri", "metadata") and not output_uri:
            raise OptionError(
                f"option 'push-mode'={push_mode} needs 'output-uri' (a deep-store location the controller can read)"
            )

        name_type_raw = get("segment-name.type") or "simple"
        name_type = SEGMENT_NAME_TYPES.get(name_type_raw.lower())
        if name_type is None:
            raise OptionError(
                f"option 'segment-name.type': {name_type_raw!r} is not one of simple, normalizedDate, fixed"
            )
        segment_name = get("segment.name")
        if name_type == "fixed" and not segment_name:
            raise OptionError("option 'segment-name.type'=fixed needs 'segment.name'")
        if segment_name and name_type != "fixed":
            raise OptionError("option 'segment.name' is only used with 'segment-name.type'=fixed")

        version = (get("segment-version") or "v3").lower()
        if version not in ("v1", "v3"):
            raise OptionError(f"option 'segment-version': {version!r} is not v1 or v3")

        unknown_columns = (get("schema.unknown-columns") or "fail").lower()
        if unknown_columns not in ("fail", "ignore"):
            raise OptionError(f"option 'schema.unknown-columns': {unknown_columns!r} is not fail or ignore")

        username, password = get("auth.username"), get("auth.password")
        token, header = get("auth.token"), get("auth.header-token")
        if (username is None) != (password is None):
            raise OptionError("options 'auth.username' and 'auth.password' go together")
        if sum(x is not None for x in (username, token, header)) > 1:
            raise OptionError("give only one of 'auth.username'/'auth.password', 'auth.token', 'auth.header-token'")

        verify_raw = get("tls.verify") or "true"
        try:
            tls_verify: bool | str = parse_bool(verify_raw, "tls.verify")
        except OptionError:
            if not os.path.exists(os.path.expanduser(verify_raw)):
                raise OptionError(
                    f"option 'tls.verify': {verify_raw!r} is neither true/false nor an existing CA bundle path"
                ) from None
            tls_verify = os.path.expanduser(verify_raw)

        headers = {}
        for key, value in raw.items():
            for prefix in PREFIX_OPTIONS:
                if key.startswith(prefix):
                    headers[key[len(prefix):]] = value

        conversion = {}
        for name in OPTIONS:
            if name.startswith("convert.") and get(name):
                conversion[name[len("convert."):].replace("-", "_")] = get(name).lower()
        if conversion:
            from type_mapping.convert import ConversionOptions

            try:
                ConversionOptions(**conversion)
            except ValueError as exc:
                raise OptionError(f"option convert.*: {exc}") from None
        unsupported = (get("build.unsupported-indexes") or "error").lower()
        if unsupported not in ("error", "skip"):
            raise OptionError(f"option 'build.unsupported-indexes': {unsupported!r} is not error or skip")

        test_fail = None
        if get(TEST_FAIL_OPTION):
            partition, _, nth = get(TEST_FAIL_OPTION).partition(":")
            test_fail = (int(partition), int(nth or 1))

        def sized(name: str) -> int:
            return parse_size(get(name) or OPTIONS[name][0], name)

        def integer(name: str, minimum: int = 1) -> int:
            return parse_int(get(name) or OPTIONS[name][0], name, minimum)

        def seconds(name: str) -> float:
            value = parse_duration(get(name) or OPTIONS[name][0], name)
            if value <= 0:
                raise OptionError(f"option {name!r}: must be positive")
            return value

        return cls(
            table_name=table_name,
            url=url.rstrip("/") if url else None,
            table_type=table_type,
            push_mode=push_mode,
            output_uri=output_uri,
            push_parallelism=integer("push-parallelism"),
            max_bytes=sized("sink.buffer-flush.max-size"),
            max_rows=integer("sink.buffer-flush.max-rows"),
            parallelism=parse_int(get("sink.parallelism"), "sink.parallelism") if get("sink.parallelism") else None,
            segment_name_type=name_type,
            segment_name=segment_name,
            segment_name_prefix=get("segment.name.prefix"),
            segment_name_postfix=get("segment.name.postfix"),
            segment_version=version,
            creation_time_ms=parse_creation_time(get("creation-time")) if get("creation-time") else None,
            schema_json=load_json_option(get("schema"), "schema") if get("schema") else None,
            table_config_json=load_json_option(get("table-config"), "table-config") if get("table-config") else None,
            ignore_unknown_columns=unknown_columns == "ignore",
            case_sensitive=parse_bool(get("schema.case-sensitive") or "false", "schema.case-sensitive"),
            auth_username=username,
            auth_password=password,
            auth_token=token,
            auth_header=header,
            database=get("database"),
            tls_verify=tls_verify,
            connect_timeout_s=seconds("timeout.connect"),
            read_timeout_s=seconds("timeout.read"),
            retry_max_attempts=integer("retry.max-attempts"),
            retry_max_elapsed_s=seconds("retry.max-elapsed"),
            retry_initial_backoff_s=parse_duration(get("retry.initial-backoff") or "1s", "retry.initial-backoff"),
            retry_max_backoff_s=parse_duration(get("retry.max-backoff") or "30s", "retry.max-backoff"),
            headers=headers,
            conversion=conversion,
            unsupported_indexes=unsupported,
            sort_by_sorted_column=parse_bool(get("build.sort") or "true", "build.sort"),
            test_fail_partition=test_fail,
        )

    def __repr__(self) -> str:
        parts = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is None or value == {} or spec.name in ("schema_json", "table_config_json"):
                continue
            if spec.name in ("auth_password", "auth_token", "auth_header"):
                value = REDACTED
            elif spec.name == "headers":
                value = {k: REDACTED for k in value}
            parts.append(f"{spec.name}={value!r}")
        return f"WriteOptions({', '.join(parts)})"

    __str__ = __repr__


def redact_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Spark options with secret values replaced, for log lines and error messages."""
    out = {}
    for key, value in options.items():
        lowered = str(key).lower()
        secret = lowered in SECRET_OPTIONS or lowered.startswith("header.")
        out[key] = REDACTED if secret else value
    return out
