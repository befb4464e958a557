"""A free plan's 429 against the real server: raised at once without retries, else waited out."""
from __future__ import annotations

import re
import time
import unittest
import urllib.request

from dbmon import Client, RateLimitError

from .fixture import fixture_env


def end_rate_window_in(seconds: int) -> None:
    request = urllib.request.Request(f"{fixture_env('DBMON_TEST_CONTROL_URL')}/rate-window?ends_in={seconds}", method="POST")
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 204


class FreePlanRateLimitTest(unittest.TestCase):
    def test_a_429_is_retried_after_retry_after_and_raised_when_retries_are_off(self) -> None:
        free_key = fixture_env("DBMON_TEST_FREE_API_KEY")
        no_retries = Client(free_key, max_retries=0)
        no_retries.get_organization()
        assert no_retries.rate_limit is not None
        self.assertEqual(no_retries.rate_limit.limit, 100)
        for _ in range(no_retries.rate_limit.remaining):
            no_retries.get_organization()
        self.assertEqual(no_retries.rate_limit.remaining, 0)

        end_rate_window_in(3)
        with self.assertRaises(RateLimitError) as raised:
            no_retries.get_organization()
        error = raised.exception
        self.assertEqual((error.status, error.code), (429, "rate_limited"))
        self.assertTrue(error.request_id)
        self.assertIsNotNone(error.retry_after)
        self.assertTrue(1 <= (error.retry_after or 0) <= 3, error.retry_after)

        with self.assertRaises(RateLimitError):
            Client(free_key, max_retry_wait=0.5).get_organization()

        retrying = Client(free_key)
        started = time.monotonic()
        with self.assertLogs("dbmon", "INFO") as logs:
            organization = retrying.get_organization()
        elapsed = time.monotonic() - started
        self.assertEqual(organization["plan"], "free")
        waits = [float(match.group(1)) for match in (re.search(r" in ([0-9.]+) s \(HTTP 429, Retry-After (\d+)\)", line) for line in logs.output) if match]
        self.assertEqual(len(waits), 1, logs.output)
        self.assertGreaterEqual(waits[0], 1)
        self.assertEqual(waits[0], int(waits[0]), "Retry-After is waited exactly, without jitter")
        self.assertGreaterEqual(elapsed, waits[0])
        assert retrying.rate_limit is not None
        self.assertEqual(retrying.rate_limit.remaining, 99)
