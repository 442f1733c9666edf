"""When and how long to retry controller calls (tenacity underneath).

Retried: transport failures (refused, reset, timeout), 5xx, 429 (waiting at least ``Retry-After``) and 409
from parallel-push protection, i.e. every ``ControllerError`` whose ``retryable`` is true. Not retried:
other 4xx, which cannot succeed by repetition. Bounded twice: by attempts and by total elapsed time; the
last sleep is clipped so that no attempt starts after the time budget, and each attempt is told how much
of the budget remains (the client clips its read timeout to it).
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

import tenacity

from .errors import ControllerError, RetriesExhaustedError

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: attempt n waits ``min(max_backoff_s, initial_backoff_s * 2**(n-1))``
    scaled by a random factor in ``[1 - jitter, 1]`` (``jitter`` 0 = deterministic, 1 = full jitter)."""

    max_attempts: int = 5
    max_elapsed_s: float = 300.0
    initial_backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be at least 1")
        if self.max_elapsed_s <= 0 or self.initial_backoff_s < 0 or self.max_backoff_s < 0:
            raise ValueError("RetryPolicy times must be positive")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("RetryPolicy.jitter must be within [0, 1]")

    @classmethod
    def none(cls) -> "RetryPolicy":
        """One attempt only."""
        return cls(max_attempts=1)

    def backoff_s(self, attempt: int) -> float:
        """The sleep after failed attempt number ``attempt`` (1-based), before Retry-After and clipping."""
        base = min(self.max_backoff_s, self.initial_backoff_s * (2 ** (attempt - 1)))
        return base * random.uniform(1.0 - self.jitter, 1.0)

    def call(self, attempt_fn: Callable[[float], T], *, describe: str = "controller call") -> T:
        """Run ``attempt_fn(remaining_s)`` until it returns, raises a non-retryable error, or the budget ends.

        Raises the non-retryable ``ControllerError`` as is, or ``RetriesExhaustedError`` wrapping the last
        retryable one."""
        started = time.monotonic()

        def remaining() -> float:
            return self.max_elapsed_s - (time.monotonic() - started)

        planned: dict[int, float] = {}

        def plan(state: tenacity.RetryCallState) -> float:
            """The sleep after this attempt, drawn once (tenacity asks for wait and stop separately)."""
            if state.attempt_number not in planned:
                error = state.outcome.exception() if state.outcome else None
                wait = self.backoff_s(state.attempt_number)
                retry_after = getattr(error, "retry_after_s", None)
                if retry_after is not None:
                    wait = max(wait, retry_after)
                planned[state.attempt_number] = wait
            return planned[state.attempt_number]

        def stop(state: tenacity.RetryCallState) -> bool:
            # Out of attempts, or the sleep alone (e.g. a long Retry-After) would use up the budget.
            return state.attempt_number >= self.max_attempts or remaining() - plan(state) <= 0

        def wait(state: tenacity.RetryCallState) -> float:
            return max(0.0, min(plan(state), remaining()))

        def before_sleep(state: tenacity.RetryCallState) -> None:
            error = state.outcome.exception()
            log.warning(
                "%s failed (attempt %d of %d): %s; retrying in %.2fs",
                describe, state.attempt_number, self.max_attempts, error, state.next_action.sleep,
            )

        retrying = tenacity.Retrying(
            stop=stop,
            wait=wait,
            retry=tenacity.retry_if_exception(lambda e: isinstance(e, ControllerError) and e.retryable),
            before_sleep=before_sleep,
            reraise=False,
        )
        try:
            return retrying(lambda: attempt_fn(max(0.0, remaining())))
        except tenacity.RetryError as exhausted:
            last = exhausted.last_attempt.exception()
            raise RetriesExhaustedError(
                last, exhausted.last_attempt.attempt_number, time.monotonic() - started
            ) from last
