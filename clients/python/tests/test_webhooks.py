"""Signature and timestamp checks of verify_webhook (real deliveries: test_live.py)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import unittest
from typing import Dict, Literal, get_args, get_origin, get_type_hints

from dbmon import WEBHOOK_EVENTS, WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdefghijklmn").decode()
NOW = 1_790_000_000
PAYLOAD = json.dumps({"id": "evt_1", "type": "webhook.test", "created_at": "2026-09-21T12:00:00.000Z", "data": {"object": {"id": "wh_1"}}})


def signed_headers(payload: str = PAYLOAD, timestamp: int = NOW, secret: str = SECRET, message_id: str = "msg_1") -> Dict[str, str]:
    key = base64.b64decode(secret[len("whsec_"):])
    digest = hmac.new(key, f"{message_id}.{timestamp}.{payload}".encode(), hashlib.sha256).digest()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": "v1," + base64.b64encode(digest).decode()}


class VerifyWebhookTest(unittest.TestCase):
    def assert_refused(self, payload: object, headers: Dict[str, str], why: str, **options: object) -> None:
        with self.assertRaisesRegex(WebhookVerificationError, why):
            verify_webhook(payload, headers, SECRET, now=NOW, **options)  # type: ignore[arg-type]

    def test_a_well_signed_delivery_gives_its_event_from_bytes_or_text(self) -> None:
        self.assertEqual(verify_webhook(PAYLOAD, signed_headers(), SECRET, now=NOW)["type"], "webhook.test")
        self.assertEqual(verify_webhook(PAYLOAD.encode(), signed_headers(), SECRET, now=NOW)["data"], {"object": {"id": "wh_1"}})

    def test_header_names_are_matched_whatever_their_case(self) -> None:
        headers = {name.title(): value for name, value in signed_headers().items()}
        self.assertEqual(verify_webhook(PAYLOAD, headers, SECRET, now=NOW)["id"], "evt_1")

    def test_any_of_several_space_separated_signatures_may_match(self) -> None:
        headers = signed_headers()
        headers["webhook-signature"] = "v1,bm90IGl0 v2,whatever " + headers["webhook-signature"]
        self.assertEqual(verify_webhook(PAYLOAD, headers, SECRET, now=NOW)["id"], "evt_1")

    def test_a_tampered_payload_id_or_timestamp_is_refused(self) -> None:
        self.assert_refused(PAYLOAD.replace("wh_1", "wh_2"), signed_headers(), "no webhook-signature matches")
        self.assert_refused(PAYLOAD, {**signed_headers(), "webhook-id": "msg_2"}, "no webhook-signature matches")
        self.assert_refused(PAYLOAD, {**signed_headers(), "webhook-timestamp": str(NOW - 1)}, "no webhook-signature matches")

    def test_another_secret_or_version_is_refused(self) -> None:
        other = "whsec_" + base64.b64encode(b"another secret of 24 byt").decode()
        self.assert_refused(PAYLOAD, signed_headers(secret=other), "no webhook-signature matches")
        headers = signed_headers()
        headers["webhook-signature"] = headers["webhook-signature"].replace("v1,", "v2,")
        self.assert_refused(PAYLOAD, headers, "no webhook-signature matches")

    def test_a_timestamp_outside_the_tolerance_either_way_is_refused(self) -> None:
        self.assert_refused(PAYLOAD, signed_headers(timestamp=NOW - 301), "too old")
        self.assert_refused(PAYLOAD, signed_headers(timestamp=NOW + 301), "too new")
        self.assertEqual(verify_webhook(PAYLOAD, signed_headers(timestamp=NOW - 300), SECRET, now=NOW)["id"], "evt_1")
        self.assertEqual(verify_webhook(PAYLOAD, signed_headers(timestamp=NOW + 300), SECRET, now=NOW)["id"], "evt_1")
        self.assert_refused(PAYLOAD, signed_headers(timestamp=NOW - 11), "too old", tolerance=10)

    def test_the_tolerance_is_checked_against_this_clock_by_default(self) -> None:
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(PAYLOAD, signed_headers(), SECRET)

    def test_missing_or_malformed_headers_are_refused(self) -> None:
        for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
            headers = signed_headers()
            del headers[name]
            self.assert_refused(PAYLOAD, headers, f"the {name} header is missing")
        self.assert_refused(PAYLOAD, {**signed_headers(), "webhook-timestamp": "12.5"}, "not Unix seconds")

    def test_a_secret_that_is_not_base64_is_refused(self) -> None:
        with self.assertRaisesRegex(WebhookVerificationError, "not whsec_ and base64"):
            verify_webhook(PAYLOAD, signed_headers(), "whsec_not base64!", now=NOW)

    def test_a_signed_payload_that_is_not_an_event_object_is_refused(self) -> None:
        self.assert_refused("[1]", signed_headers(payload="[1]"), "not an event object")


class WebhookEventTypesTest(unittest.TestCase):
    def test_every_event_type_has_its_typed_dict_whose_type_key_names_it(self) -> None:
        self.assertEqual(
            set(WEBHOOK_EVENTS),
            {"alert.triggered", "alert.resolved", "database.status_changed", "optimization.ready", "optimization.applied", "optimization.failed", "webhook.test"},
        )
        for event_type, model in WEBHOOK_EVENTS.items():
            type_hint = get_type_hints(model)["type"]
            self.assertIs(get_origin(type_hint), Literal)
            self.assertEqual(get_args(type_hint), (event_type,))
        previous = get_type_hints(get_type_hints(get_type_hints(WEBHOOK_EVENTS["database.status_changed"])["data"])["previous_attributes"])["status"]
        self.assertIn("healthy", get_args(previous))

