"""A real delivery of the server's webhook dispatcher, verified with verify_webhook."""
from __future__ import annotations

import unittest
from datetime import datetime
from typing import Any, List, get_type_hints

from dbmon import WEBHOOK_EVENTS, WebhookVerificationError, verify_webhook

from .fixture import fixture_client
from .recorder import start_recorder


def missing_keys(value: Any, model: Any, where: str = "") -> List[str]:
    """The keys a TypedDict (and the TypedDicts it nests) requires that ``value`` lacks, as dotted paths."""
    missing = [where + key for key in sorted(model.__required_keys__) if key not in value]
    for key, hint in get_type_hints(model).items():
        if hasattr(hint, "__required_keys__") and isinstance(value.get(key), dict):
            missing += missing_keys(value[key], hint, f"{where}{key}.")
    return missing


class WebhookDeliveryTest(unittest.TestCase):
    def test_a_test_delivery_signed_by_the_server_verifies_and_a_tampered_one_does_not(self) -> None:
        receiver = start_recorder(lambda handler: handler.send(204))
        self.addCleanup(receiver.stop)
        client = fixture_client()
        webhook = client.create_webhook({"url": f"{receiver.url}/hooks/dbmon", "description": "python client test"})
        try:
            delivery = client.test_webhook(webhook["id"])
            received = receiver.wait_for_request(timeout=30)

            # The fixture's server clock runs ahead of this one once the rate-limit test moved it on.
            server_now = datetime.fromisoformat(delivery["created_at"].replace("Z", "+00:00")).timestamp()
            event = verify_webhook(received.body, received.headers, webhook["secret"], now=server_now)
            self.assertEqual(event["id"], delivery["event_id"])
            self.assertEqual(event["type"], "webhook.test")
            self.assertEqual(missing_keys(event, WEBHOOK_EVENTS[event["type"]]), [], "the delivery has every key its TypedDict requires")
            if event["type"] == "webhook.test":
                self.assertEqual(event["data"]["object"]["id"], webhook["id"])
            self.assertEqual(received.headers["webhook-id"], delivery["event_id"])

            tampered = received.body.replace(b"webhook.test", b"alert.triggered")
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(tampered, received.headers, webhook["secret"], now=server_now)
            another_secret = client.create_webhook({"url": webhook["url"]})["secret"]
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(received.body, received.headers, another_secret, now=server_now)
        finally:
            for listed in list(client.paginate(client.list_webhooks)):
                client.delete_webhook(listed["id"])
