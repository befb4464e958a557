"""The errors the client raises: one class per error `type` of the API contract."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type


class DbmonError(Exception):
    """Base of every error this library raises.

    For an error answer of the API, ``status`` is the HTTP status and ``type``, ``code``, ``param``
    and ``request_id`` (the X-Request-Id header) come from the answer; otherwise they are None.
    """

    def __init__(
        self,
        message: str,
        *,
        type: Optional[str] = None,
        code: Optional[str] = None,
        param: Optional[str] = None,
        status: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.status = status
        self.request_id = request_id

    def __str__(self) -> str:
        details = [f"{name}={value}" for name, value in (("status", self.status), ("code", self.code), ("param", self.param), ("request_id", self.request_id)) if value is not None]
        return f"{self.message} ({', '.join(details)})" if details else self.message


class AuthenticationError(DbmonError):
    """authentication_error: the API key or access token is missing, malformed, unknown, expired or revoked."""


class PermissionDeniedError(DbmonError):
    """permission_error: the credential is valid but may not do this."""


class NotFoundError(DbmonError):
    """not_found: no such resource in the organization."""


class ConflictError(DbmonError):
    """conflict: the resource's state does not allow the request."""


class RateLimitError(DbmonError):
    """rate_limit_exceeded: the hourly budget is spent; ``retry_after`` is the seconds to wait (Retry-After)."""

    def __init__(self, message: str, *, retry_after: Optional[float] = None, **details: Any) -> None:
        super().__init__(message, **details)
        self.retry_after = retry_after


class InvalidRequestError(DbmonError):
    """invalid_request: a parameter or the body is wrong; ``param`` names it."""


class APIError(DbmonError):
    """api_error, or an answer whose error type this version of the library does not know."""


class APIConnectionError(DbmonError):
    """No answer: the connection was refused, reset or timed out.

    ``request_sent`` is False when the connection was refused, so the server cannot have acted.
    """

    def __init__(self, message: str, *, request_sent: bool) -> None:
        super().__init__(message)
        self.request_sent = request_sent


_ERROR_CLASSES: Dict[str, Type[DbmonError]] = {
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "rate_limit_exceeded": RateLimitError,
    "invalid_request": InvalidRequestError,
    "api_error": APIError,
}


def error_from_answer(status: int, body: Any, request_id: Optional[str], retry_after: Optional[float]) -> DbmonError:
    """The typed error of a non-2xx answer; a body without the contract's error object gives APIError."""
    error: Mapping[str, Any] = body["error"] if isinstance(body, dict) and isinstance(body.get("error"), dict) else {}
    error_type = error.get("type")
    error_class = _ERROR_CLASSES.get(error_type, APIError) if isinstance(error_type, str) else APIError
    details: Dict[str, Any] = {
        "type": error_type,
        "code": error.get("code"),
        "param": error.get("param"),
        "status": status,
        "request_id": request_id,
    }
    message = error.get("message") if isinstance(error.get("message"), str) else f"HTTP {status} without an error object"
    if error_class is RateLimitError:
        return RateLimitError(message, retry_after=retry_after, **details)
    return error_class(message, **details)
