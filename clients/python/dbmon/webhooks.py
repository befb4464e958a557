"""Verifying a webhook delivery (Standard Webhooks) and reading its event."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Mapping, Optional, Union

from ._generated import WebhookEvent
from .errors import DbmonError

_SECRET_PREFIX = "whsec_"


class WebhookVerificationError(DbmonError):
    """The delivery is not proven to come from the server: a header, the signature or the timestamp is wrong."""


def verify_webhook(
    payload: Union[bytes, str],
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: float = 300,
    now: Optional[float] = None,
) -> WebhookEvent:
    """The event of a delivery whose signature matches ``secret`` (``whsec_...``) and whose timestamp
    is within ``tolerance`` seconds of ``now`` (default: this machine's clock), either way.

    ``payload`` is the request body exactly as received; parse it only through this function. The
    event is typed by its ``type`` (``WebhookEvent``: one TypedDict per event type, listed in
    ``WEBHOOK_EVENTS``); ``data["object"]`` is the resource the event is about.
    """
    body = payload.encode() if isinstance(payload, str) else payload
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = _required(lowered, "webhook-id")
    timestamp = _required(lowered, "webhook-timestamp")
    signatures = _required(lowered, "webhook-signature")
    if not timestamp.isdigit():
        raise WebhookVerificationError(f"webhook-timestamp is not Unix seconds: {timestamp!r}")
    age = (time.time() if now is None else now) - int(timestamp)
    if age > tolerance:
        raise WebhookVerificationError(f"the delivery is too old: signed {age:.0f} s ago, tolerance {tolerance} s")
    if -age > tolerance:
        raise WebhookVerificationError(f"the delivery is too new: signed {-age:.0f} s ahead of this clock, tolerance {tolerance} s")
    expected = _signature(secret, f"{message_id}.{timestamp}.".encode() + body)
    if not any(_matches(candidate, expected) for candidate in signatures.split(" ")):
        raise WebhookVerificationError("no webhook-signature matches the secret")
    event = json.loads(body)
    if not isinstance(event, dict):
        raise WebhookVerificationError("the payload is not an event object")
    return event  # type: ignore[return-value]


def _required(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name)
    if not value:
        raise WebhookVerificationError(f"the {name} header is missing")
    return value


def _signature(secret: str, signed: bytes) -> bytes:
    encoded = secret[len(_SECRET_PREFIX):] if secret.startswith(_SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise WebhookVerificationError("the secret is not whsec_ and base64") from error
    return base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())


def _matches(candidate: str, expected: bytes) -> bool:
    version, _, signature = candidate.partition(",")
    return version == "v1" and hmac.compare_digest(signature.encode(), expected)
