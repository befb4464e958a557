"""Credentials, base URL and headers from arguments or the environment; the client's 5xx retries."""
from __future__ import annotations

import os
import unittest
from typing import ContextManager, Dict, Iterator
from unittest import mock

from dbmon import DEFAULT_BASE_URL, APIConnectionError, APIError, Client, __version__

from .recorder import Handler, Recorder, start_recorder

ENVIRONMENT = ("DBMON_API_KEY", "DBMON_ACCESS_TOKEN", "DBMON_BASE_URL")


def environment(**values: str) -> ContextManager[object]:
    """The DBMON_* variables as given, the others of them empty, for the block's duration."""
    return mock.patch.dict(os.environ, {**{name: "" for name in ENVIRONMENT}, **values})


class ConfigurationTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = start_recorder(lambda handler: handler.send(200, b'{"id": "org_1"}'))
        self.addCleanup(self.server.stop)

    def sent_headers(self) -> Iterator[Dict[str, str]]:
        return (request.headers for request in self.server.requests)

    def test_the_environment_gives_base_url_and_api_key(self) -> None:
        with environment(DBMON_BASE_URL=f"{self.server.url}/v1/", DBMON_API_KEY="dbm_from_env", DBMON_ACCESS_TOKEN="dbo_ignored"):
            self.assertEqual(Client().get_organization(), {"id": "org_1"})
        request = self.server.requests[0]
        self.assertEqual((request.method, request.path), ("GET", "/v1/org"))
        self.assertEqual(request.headers["Authorization"], "Bearer dbm_from_env")
        self.assertEqual(request.headers["User-Agent"], f"dbmon-python/{__version__}")

    def test_an_access_token_from_the_environment_when_there_is_no_key(self) -> None:
        with environment(DBMON_ACCESS_TOKEN="dbo_token"):
            Client(base_url=f"{self.server.url}/v1").get_organization()
        self.assertEqual(self.server.requests[0].headers["Authorization"], "Bearer dbo_token")

    def test_arguments_win_over_the_environment(self) -> None:
        with environment(DBMON_BASE_URL="http://127.0.0.1:9/v1", DBMON_API_KEY="dbm_from_env"):
            Client(access_token="dbo_argument", base_url=f"{self.server.url}/v1").get_organization()
            Client("dbm_argument", base_url=f"{self.server.url}/v1").get_organization()
        self.assertEqual([headers["Authorization"] for headers in self.sent_headers()], ["Bearer dbo_argument", "Bearer dbm_argument"])

    def test_no_credential_sends_no_authorization_and_the_default_base_url_is_local(self) -> None:
        with environment():
            self.assertEqual(Client().base_url, DEFAULT_BASE_URL)
            Client(base_url=f"{self.server.url}/v1").get_organization()
        self.assertNotIn("Authorization", self.server.requests[0].headers)

    def test_a_key_and_a_token_together_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            Client("dbm_key", access_token="dbo_token")

    def test_the_credential_is_not_in_the_client_repr(self) -> None:
        self.assertNotIn("dbm_secret", repr(Client("dbm_secret", base_url=self.server.url)))


class ServerErrorRetriesTest(unittest.TestCase):
    def start(self, failures: int) -> Recorder:
        def answer(handler: Handler) -> None:
            if len(recorder.requests) <= failures:
                handler.send(503, b"<html>upstream unavailable</html>", "text/html")
            else:
                handler.send(200, b'{"data": [], "pagination": {"total": 0, "page": 1, "per_page": 20}}')

        recorder = start_recorder(answer)
        self.addCleanup(recorder.stop)
        return recorder

    def test_a_get_is_retried_through_5xx_answers(self) -> None:
        recorder = self.start(failures=2)
        with self.assertLogs("dbmon", "INFO") as logs:
            self.assertEqual(Client("k", base_url=recorder.url).list_databases()["data"], [])
        self.assertEqual(len(recorder.requests), 3)
        self.assertRegex(logs.output[0], r"retry 1 of GET .* \(HTTP 503\)")

    def test_a_post_meeting_a_5xx_is_not_retried(self) -> None:
        recorder = self.start(failures=1)
        with self.assertRaises(APIError) as raised:
            Client("k", base_url=recorder.url).create_webhook({"url": "https://example.com/hook"})
        self.assertEqual((raised.exception.status, raised.exception.message), (503, "HTTP 503 without an error object"))
        self.assertEqual(len(recorder.requests), 1)

    def test_after_max_retries_the_last_5xx_is_raised(self) -> None:
        recorder = self.start(failures=5)
        with self.assertRaises(APIError):
            Client("k", base_url=recorder.url, max_retries=1).list_databases()
        self.assertEqual(len(recorder.requests), 2)


class TruncatedAnswerTest(unittest.TestCase):
    def test_an_answer_cut_short_is_a_connection_error_after_the_retries(self) -> None:
        def cut_short(handler: Handler) -> None:
            handler.send_response(200)
            handler.send_header("Content-Length", "100")
            handler.end_headers()
            handler.wfile.write(b'{"data": [')
            handler.close_connection = True

        recorder = start_recorder(cut_short)
        self.addCleanup(recorder.stop)
        with self.assertRaises(APIConnectionError) as raised:
            Client("k", base_url=recorder.url, max_retries=1).list_databases()
        self.assertTrue(raised.exception.request_sent)
        self.assertEqual(len(recorder.requests), 2)
