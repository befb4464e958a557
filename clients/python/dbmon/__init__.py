"""The dbmon API client: ``Client``, its errors, and webhook verification."""
from ._generated import WEBHOOK_EVENTS
from ._version import __version__
from .client import DEFAULT_BASE_URL, Client, RateLimit, Response
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    ConflictError,
    DbmonError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
)
from .webhooks import WebhookEvent, WebhookVerificationError, verify_webhook

__all__ = [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "Client",
    "ConflictError",
    "DEFAULT_BASE_URL",
    "DbmonError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimit",
    "RateLimitError",
    "Response",
    "WEBHOOK_EVENTS",
    "WebhookEvent",
    "WebhookVerificationError",
    "__version__",
    "verify_webhook",
]
