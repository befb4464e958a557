"""The client against the real server the root suite starts (test/clients/client-fixture.ts)."""
from __future__ import annotations

import inspect
import json
import re
import unittest
import urllib.request

import dbmon
from dbmon import Client, InvalidRequestError, NotFoundError, PermissionDeniedError

from .fixture import fixture_client, fixture_env, monitored_database_id, new_database_body


def snake_case(operation_id: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", operation_id.replace("OAuth", "Oauth")).lower()


class ServedDocumentTest(unittest.TestCase):
    def test_every_v1_operation_of_the_served_document_is_a_method_with_its_parameters(self) -> None:
        with urllib.request.urlopen(fixture_env("DBMON_BASE_URL") + "/openapi.json") as answer:
            document = json.load(answer)
        client = fixture_client()
        checked = 0
        for path, item in document["paths"].items():
            if not path.startswith("/v1/"):
                continue
            for method, operation in item.items():
                if method not in ("get", "put", "post", "delete", "patch"):
                    continue
                name = snake_case(operation["operationId"])
                with self.subTest(operation=operation["operationId"]):
                    self.assertTrue(hasattr(client, name), f"no method {name} for {method.upper()} {path}")
                    accepted = set(inspect.signature(getattr(client, name)).parameters)
                    for parameter in operation.get("parameters", []):
                        python_name = parameter["name"] + ("_" if parameter["name"] == "from" else "")
                        self.assertIn(python_name, accepted, f"{name} takes no {parameter['name']}")
                    self.assertEqual("body" in accepted, "requestBody" in operation, f"{name}'s body")
                checked += 1
        self.assertGreater(checked, 70)


class DatabasesTest(unittest.TestCase):
    def test_create_read_update_and_delete_a_database(self) -> None:
        client = fixture_client()
        created = client.create_database(new_database_body("py-crud"))  # type: ignore[arg-type]
        self.assertTrue(created["id"].startswith("db_"))
        self.assertEqual(client.last_response.status if client.last_response else None, 201)

        read = client.get_database(created["id"])
        self.assertEqual(read["name"], created["name"])
        self.assertEqual(read["connection"]["host"], fixture_env("DBMON_TEST_POSTGRES_HOST"))

        updated = client.update_database(created["id"], {"name": created["name"] + "-renamed", "monitoring": {"interval_seconds": 120}})
        self.assertEqual(updated["name"], created["name"] + "-renamed")
        self.assertEqual(client.get_database(created["id"])["monitoring"]["interval_seconds"], 120)

        self.assertIsNone(client.delete_database(created["id"]))
        with self.assertRaises(NotFoundError):
            client.get_database(created["id"])

    def test_paging_follows_the_link_header_across_pages_with_the_list_filters(self) -> None:
        client = fixture_client()
        created = [client.create_database(new_database_body("py-page")) for _ in range(3)]  # type: ignore[arg-type]
        try:
            listed = client.list_databases(type="postgresql", per_page=100)
            expected = [database["id"] for database in listed["data"]]
            self.assertGreaterEqual(listed["pagination"]["total"], 4)

            requests_before = client.rate_limit.remaining if client.rate_limit else 0
            paged = [database["id"] for database in client.paginate(client.list_databases, type="postgresql", per_page=2)]
            self.assertEqual(paged, expected)
            pages = -(-len(expected) // 2)
            self.assertEqual(requests_before - (client.rate_limit.remaining if client.rate_limit else 0), pages, "one request a page")
            self.assertEqual(list(client.paginate(client.list_databases, type="mysql", per_page=2)), [])
        finally:
            for database in created:
                client.delete_database(database["id"])

    def test_paginate_takes_only_a_list_method_of_its_own_client(self) -> None:
        client = fixture_client()
        with self.assertRaises(TypeError):
            client.paginate(client.get_database, monitored_database_id())
        with self.assertRaises(TypeError):
            client.paginate(fixture_client().list_databases)


class MetricsTest(unittest.TestCase):
    def test_current_metrics_and_history_of_the_monitored_database(self) -> None:
        client = fixture_client()
        database_id = monitored_database_id()
        current = client.get_current_metrics(database_id)
        self.assertEqual(current["database_id"], database_id)
        self.assertIsNotNone(current["timestamp"])
        self.assertIsInstance(current["metrics"]["connections"]["max"], (int, float))

        history = client.get_metrics_history(database_id, range="1h", resolution="raw", metrics="connections.max")
        self.assertEqual(history["resolution"], "raw")
        self.assertGreaterEqual(len(history["data"]), 1)
        self.assertIn("connections.max", history["data"][0]["metrics"])


class AccessTokenTest(unittest.TestCase):
    def test_an_oauth_access_token_a_user_granted_acts_within_its_scopes(self) -> None:
        application = Client(access_token=fixture_env("DBMON_TEST_ACCESS_TOKEN"), base_url=fixture_env("DBMON_BASE_URL"))
        self.assertEqual(application.get_database(monitored_database_id())["name"], "monitored")
        with self.assertRaises(PermissionDeniedError):
            application.list_alert_rules()  # alerts is not a granted scope


class AlertRulesTest(unittest.TestCase):
    def test_create_an_alert_rule_and_read_it_back(self) -> None:
        client = fixture_client()
        rule = client.create_alert_rule({
            "name": "py client: too many connections",
            "database_id": monitored_database_id(),
            "metric": "connections.total",
            "operator": ">",
            "threshold": 500,
            "severity": "warning",
        })
        self.assertEqual(client.get_alert_rule(rule["id"])["metric"], "connections.total")
        self.assertIn(rule["id"], [listed["id"] for listed in client.paginate(client.list_alert_rules, database_id=monitored_database_id())])
        client.delete_alert_rule(rule["id"])


class ErrorsTest(unittest.TestCase):
    def test_a_404_is_a_not_found_error_with_status_code_and_request_id(self) -> None:
        client = fixture_client()
        with self.assertRaises(NotFoundError) as raised:
            client.get_database("db_doesnotexist")
        error = raised.exception
        self.assertEqual((error.status, error.type, error.code), (404, "not_found", "resource_missing"))
        self.assertTrue(error.request_id)
        self.assertEqual(error.request_id, client.last_response.request_id if client.last_response else None)
        self.assertIsInstance(error, dbmon.DbmonError)

    def test_a_400_is_an_invalid_request_error_naming_the_parameter(self) -> None:
        client = fixture_client()
        body = new_database_body("py-invalid")
        body["type"] = "oracle"
        with self.assertRaises(InvalidRequestError) as raised:
            client.create_database(body)  # type: ignore[arg-type]
        error = raised.exception
        self.assertEqual((error.status, error.code, error.param), (400, "invalid_parameter", "type"))
        self.assertTrue(error.request_id)

    def test_a_bad_key_is_an_authentication_error(self) -> None:
        client = dbmon.Client("dbm_live_notakey", base_url=fixture_env("DBMON_BASE_URL"))
        with self.assertRaises(dbmon.AuthenticationError) as raised:
            client.list_databases()
        self.assertEqual(raised.exception.status, 401)
