"""What the tests read from the environment the root suite's client fixture gives them."""
from __future__ import annotations

import os
import unittest
import uuid
from typing import Dict

from dbmon import Client


def fixture_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set: run through test/clients/python-client.test.ts")
    return value


def monitored_database_id() -> str:
    return fixture_env("DBMON_TEST_DATABASE_ID")


def fixture_client() -> Client:
    """A client configured from DBMON_BASE_URL and DBMON_API_KEY, as a user's would be."""
    fixture_env("DBMON_API_KEY")
    return Client()


def new_database_body(name_prefix: str) -> Dict[str, object]:
    return {
        "name": f"{name_prefix}-{uuid.uuid4().hex[:8]}",
        "type": "postgresql",
        "connection": {
            "host": fixture_env("DBMON_TEST_POSTGRES_HOST"),
            "port": int(fixture_env("DBMON_TEST_POSTGRES_PORT")),
            "database": fixture_env("DBMON_TEST_POSTGRES_DATABASE"),
            "username": fixture_env("DBMON_TEST_POSTGRES_USERNAME"),
        },
        "monitoring": {"enabled": False},
    }
