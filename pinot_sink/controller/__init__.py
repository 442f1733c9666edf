"""Pinot controller client: table config / schema lookup, segment listing and selection by time, upload in
three push modes, deletion, consistent push (segment lineage), retries, deadlines, auth and TLS.

Layers, low to high: ``config`` / ``auth`` / ``errors`` / ``retry`` < ``transport`` (HTTP) < ``client``
(REST endpoints) < ``push`` / ``consistent_push`` (policy). The tarball layout and copying into a deep store
are ``pinot_sink.storage``'s (``layout``, ``files``), which ``push`` uses.
See ``docs/controller.md``."""
from .auth import Auth, redact_headers, redact_text, redact_url
from .client import ControllerClient, offline_raw_name
from .config import ClientConfig, validate_controller_url
from .consistent_push import ConsistentPush
from .errors import (
    CommitOutcomeUnknownError,
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
    RetryRefusedError,
    SegmentConflictError,
)
from .push import PUSH_MODES, PushResult, controller_download_uri, metadata_tarball, push_segment, push_segments
from .retry import RetryPolicy

__all__ = [
    "Auth", "redact_headers", "redact_text", "redact_url",
    "ControllerClient", "offline_raw_name",
    "ClientConfig", "validate_controller_url",
    "ConsistentPush",
    "CommitOutcomeUnknownError", "ConsistentPushError", "ControllerAuthError", "ControllerConfigError",
    "ControllerError", "ControllerNotFoundError", "ControllerRedirectError", "ControllerRequestError",
    "ControllerResponseError", "ControllerTLSError", "ControllerUnavailableError",
    "DeepStoreError", "RetriesExhaustedError", "RetryRefusedError", "SegmentConflictError",
    "PUSH_MODES", "PushResult", "controller_download_uri", "metadata_tarball", "push_segment", "push_segments",
    "RetryPolicy",
]
