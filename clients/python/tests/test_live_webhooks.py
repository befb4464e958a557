"""A real delivery of the server's webhook dispatcher, verified with verify_webhook."""
from __future__ import annotations

import http.server
import queue
import threading
import unittest
from datetime import datetime
from typing import Dict, Tuple

from dbmon import WebhookVerificationError, verify_webhook

from .fixture import fixture_client

Delivery = Tuple[bytes, Dict[str, str]]


class _Receiver(http.server.BaseHTTPRequestHandler):
    deliveries: "queue.Queue[Delivery]"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.deliveries.put((body, dict(self.headers.items())))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class WebhookDeliveryTest(unittest.TestCase):
    def setUp(self) -> None:
        deliveries: "queue.Queue[Delivery]" = queue.Queue()
        handler = type("Receiver", (_Receiver,), {"deliveries": deliveries})
        self.deliveries = deliveries
        self.receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.receiver.serve_forever, daemon=True).start()

    def tearDown(self) -> None:
        self.receiver.shutdown()
        self.receiver.server_close()

    def test_a_test_delivery_signed_by_the_server_verifies_and_a_tampered_one_does_not(self) -> None:
        client = fixture_client()
        webhook = client.create_webhook({"url": f"http://127.0.0.1:{self.receiver.server_address[1]}/hooks/dbmon", "description": "python client test"})
        try:
            delivery = client.test_webhook(webhook["id"])
            body, headers = self.deliveries.get(timeout=30)

            # The fixture's server clock runs ahead of this one once the rate-limit test moved it on.
            server_now = datetime.fromisoformat(delivery["created_at"].replace("Z", "+00:00")).timestamp()
            event = verify_webhook(body, headers, webhook["secret"], now=server_now)
            self.assertEqual(event["id"], delivery["event_id"])
            self.assertEqual(event["type"], "webhook.test")
            self.assertEqual(headers["webhook-id"], delivery["event_id"])

            tampered = body.replace(b"webhook.test", b"alert.triggered")
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(tampered, headers, webhook["secret"], now=server_now)
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(body, headers, client.create_webhook({"url": webhook["url"]})["secret"], now=server_now)
        finally:
            for listed in list(client.paginate(client.list_webhooks)):
                client.delete_webhook(listed["id"])
