"""Pinot controller client: table config / schema lookup, segment listing and selection by time, upload in
three push modes, deletion, consistent push (segment lineage), retries, deadlines, auth and TLS.

Layers, low to high: ``config`` / ``auth`` / ``errors`` / ``retry`` < ``transport`` (HTTP) < ``client``
(REST endpoints) < ``push`` / ``consistent_push`` (policy); ``deep_store`` owns the tarball layout.
See ``docs/controller.md``."""
from .auth import Auth, redact_headers, redact_options, redact_text, redact_url
from .client import ControllerClient, offline_raw_name
from .config import ClientConfig, validate_controller_url
from .consistent_push import ConsistentPush
from .deep_store import (
    child_uri,
    copy_to_deep_store,
    list_segment_uris,
    segment_name_from_path,
    segment_name_from_uri,
    segment_uri,
    table_uri,
    tarball_uri,
    uri_to_fs,
)
from .errors import (
    ConsistentPushError,
    ControllerAuthError,
    ControllerConfigError,
    ControllerError,
    ControllerNotFoundError,
    ControllerRedirectError,
    ControllerRequestError,
    ControllerResponseError,
    ControllerTLSError,
    ControllerUnavailableError,
    DeepStoreError,
    RetriesExhaustedError,
    SegmentConflictError,
)
from .push import PUSH_MODES, PushResult, controller_download_uri, metadata_tarball, push_segment, push_segments
from .retry import RetryPolicy

__all__ = [
    "Auth", "redact_headers", "redact_options", "redact_text", "redact_url",
    "ControllerClient", "offline_raw_name",
    "ClientConfig", "validate_controller_url",
    "ConsistentPush",
    "child_uri", "copy_to_deep_store", "list_segment_uris", "segment_name_from_path",
    "segment_name_from_uri", "segment_uri", "table_uri", "tarball_uri", "uri_to_fs",
    "ConsistentPushError", "ControllerAuthError", "ControllerConfigError", "ControllerError",
    "ControllerNotFoundError", "ControllerRedirectError", "ControllerRequestError",
    "ControllerResponseError", "ControllerTLSError", "ControllerUnavailableError",
    "DeepStoreError", "RetriesExhaustedError", "SegmentConflictError",
    "PUSH_MODES", "PushResult", "controller_download_uri", "metadata_tarball", "push_segment", "push_segments",
    "RetryPolicy",
]
