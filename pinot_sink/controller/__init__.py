"""Pinot controller client: table config / schema lookup, segment upload in three push modes, deletion,
consistent push (segment lineage), retries, auth and TLS. See ``docs/controller.md``."""
from .auth import Auth, redact_headers, redact_options
from .client import ClientConfig, ControllerClient, raw_table_name, segment_name_from_path
from .consistent_push import ConsistentPush
from .deep_store import copy_to_deep_store, segment_destination
from .errors import (
    ConsistentPushError,
    ControllerAuthError,
    ControllerError,
    ControllerNotFoundError,
    ControllerRequestError,
    ControllerTLSError,
    ControllerUnavailableError,
    DeepStoreError,
    RetriesExhaustedError,
    SegmentConflictError,
)
from .push import PUSH_MODES, PushResult, metadata_tarball, push_segment, push_segments
from .retry import RetryPolicy

__all__ = [
    "Auth", "redact_headers", "redact_options",
    "ClientConfig", "ControllerClient", "raw_table_name", "segment_name_from_path",
    "ConsistentPush",
    "copy_to_deep_store", "segment_destination",
    "ConsistentPushError", "ControllerAuthError", "ControllerError", "ControllerNotFoundError",
    "ControllerRequestError", "ControllerTLSError", "ControllerUnavailableError", "DeepStoreError",
    "RetriesExhaustedError",
    "SegmentConflictError",
    "PUSH_MODES", "PushResult", "metadata_tarball", "push_segment", "push_segments",
    "RetryPolicy",
]
