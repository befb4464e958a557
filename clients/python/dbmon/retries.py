"""When a failed request is tried again, and after how long."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

#: Methods whose repetition does no more than the first request did.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` tries after the first; a Retry-After above ``max_retry_wait`` seconds is not waited for."""

    max_retries: int = 2
    max_retry_wait: float = 60.0
    base_delay: float = 0.5
    max_delay: float = 8.0


@dataclass(frozen=True)
class Failure:
    """What went wrong with one try: an answer's status (and Retry-After), or no answer at all.

    ``request_sent`` is False only when the connection was refused, so the server cannot have acted.
    """

    status: Optional[int] = None
    retry_after: Optional[float] = None
    request_sent: bool = True


def retry_after_seconds(headers: Mapping[str, str]) -> Optional[float]:
    """The Retry-After header in seconds, or None when absent or not a number of seconds."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def backoff_delay(policy: RetryPolicy, retry_number: int, uniform: Callable[[], float] = random.random) -> float:
    """Exponential backoff with full jitter: anywhere in [0, min(cap, base * 2^n)) seconds."""
    return uniform() * min(policy.max_delay, policy.base_delay * 2**retry_number)


def is_retryable(method: str, failure: Failure) -> bool:
    """A 429 always (the server did not act); a 5xx or no answer only when repeating it is harmless."""
    if failure.status == 429:
        return True
    if failure.status is not None and failure.status < 500:
        return False
    return method.upper() in IDEMPOTENT_METHODS or not failure.request_sent


def retry_delay(policy: RetryPolicy, method: str, retry_number: int, failure: Failure, uniform: Callable[[], float] = random.random) -> Optional[float]:
    """Seconds to wait before retry ``retry_number`` (0-based), or None when the failure is final."""
    if retry_number >= policy.max_retries or not is_retryable(method, failure):
        return None
    if failure.retry_after is not None:
        return failure.retry_after if failure.retry_after <= policy.max_retry_wait else None
    return backoff_delay(policy, retry_number, uniform)
