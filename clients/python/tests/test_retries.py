"""Retry decisions, and the client's retries against real sockets on this machine."""
from __future__ import annotations

import socket
import threading
import time
import unittest
from typing import List

from dbmon import APIConnectionError, Client
from dbmon.retries import Failure, RetryPolicy, backoff_delay, is_retryable, retry_after_seconds, retry_delay

POLICY = RetryPolicy()


class RetryDecisionTest(unittest.TestCase):
    def test_a_429_is_retried_for_every_method(self) -> None:
        for method in ("GET", "POST", "PATCH", "PUT", "DELETE"):
            self.assertTrue(is_retryable(method, Failure(status=429)), method)

    def test_a_5xx_is_retried_only_for_idempotent_methods(self) -> None:
        for method in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS"):
            self.assertTrue(is_retryable(method, Failure(status=503)), method)
        for method in ("POST", "PATCH"):
            self.assertFalse(is_retryable(method, Failure(status=500)), method)

    def test_other_answers_are_final(self) -> None:
        for status in (400, 401, 403, 404, 409):
            self.assertFalse(is_retryable("GET", Failure(status=status)), status)

    def test_no_answer_is_retried_for_a_post_only_when_the_connection_was_refused(self) -> None:
        self.assertTrue(is_retryable("POST", Failure(request_sent=False)))
        self.assertFalse(is_retryable("POST", Failure(request_sent=True)))
        self.assertFalse(is_retryable("PATCH", Failure(request_sent=True)))
        self.assertTrue(is_retryable("GET", Failure(request_sent=True)))

    def test_retry_after_is_honoured_exactly_up_to_the_max_wait(self) -> None:
        self.assertEqual(retry_delay(POLICY, "POST", 0, Failure(status=429, retry_after=7)), 7)
        self.assertEqual(retry_delay(POLICY, "GET", 1, Failure(status=503, retry_after=60)), 60)
        self.assertIsNone(retry_delay(POLICY, "GET", 0, Failure(status=429, retry_after=61)))
        self.assertIsNone(retry_delay(RetryPolicy(max_retry_wait=5), "GET", 0, Failure(status=429, retry_after=6)))

    def test_retries_stop_after_max_retries(self) -> None:
        self.assertIsNotNone(retry_delay(POLICY, "GET", 1, Failure(status=503)))
        self.assertIsNone(retry_delay(POLICY, "GET", 2, Failure(status=503)))
        self.assertIsNone(retry_delay(RetryPolicy(max_retries=0), "GET", 0, Failure(status=429, retry_after=1)))

    def test_backoff_is_exponential_with_full_jitter_and_capped(self) -> None:
        self.assertEqual([backoff_delay(POLICY, n, lambda: 0.999999) // 0.001 / 1000 for n in range(6)], [0.499, 0.999, 1.999, 3.999, 7.999, 7.999])
        self.assertEqual(backoff_delay(POLICY, 3, lambda: 0.0), 0.0)
        self.assertEqual(backoff_delay(POLICY, 2, lambda: 0.5), 1.0)
        self.assertEqual(retry_delay(POLICY, "GET", 1, Failure(status=502), lambda: 0.25), 0.25)

    def test_retry_after_is_read_as_seconds(self) -> None:
        self.assertEqual(retry_after_seconds({"Retry-After": "3"}), 3)
        self.assertEqual(retry_after_seconds({"Retry-After": "0"}), 0)
        self.assertIsNone(retry_after_seconds({}))
        self.assertIsNone(retry_after_seconds({"Retry-After": "-1"}))
        self.assertIsNone(retry_after_seconds({"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}))


class ConnectionRetriesTest(unittest.TestCase):
    """A listener that accepts and closes each connection at once: the request was sent, no answer came."""

    def setUp(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.accepted: List[float] = []
        self.thread = threading.Thread(target=self._hang_up, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def tearDown(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the listening thread
        self.listener.close()
        self.thread.join(5)

    def _hang_up(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            connection.recv(65536)
            self.accepted.append(time.monotonic())
            connection.close()

    def test_a_get_without_answer_is_tried_three_times(self) -> None:
        with self.assertRaises(APIConnectionError) as raised:
            Client("key", base_url=self.base_url).list_databases()
        self.assertTrue(raised.exception.request_sent)
        self.assertEqual(len(self.accepted), 3)

    def test_a_post_that_reached_the_server_is_never_retried(self) -> None:
        with self.assertRaises(APIConnectionError):
            Client("key", base_url=self.base_url).create_database({"name": "x", "type": "postgresql", "connection": {"host": "h", "database": "d", "username": "u"}})
        time.sleep(0.2)
        self.assertEqual(len(self.accepted), 1)



class RefusedConnectionTest(unittest.TestCase):
    def test_a_refused_post_is_retried_and_then_raised(self) -> None:
        with socket.socket() as bound_not_listening:
            bound_not_listening.bind(("127.0.0.1", 0))
            base_url = f"http://127.0.0.1:{bound_not_listening.getsockname()[1]}/v1"
            with self.assertLogs("dbmon", "INFO") as logs, self.assertRaises(APIConnectionError) as raised:
                Client("key", base_url=base_url).create_database({"name": "x", "type": "postgresql", "connection": {"host": "h", "database": "d", "username": "u"}})
        self.assertFalse(raised.exception.request_sent)
        self.assertEqual(len(logs.output), 2, "two retries")
