"""The credential is sent only to the base URL's origin: not along a redirect, nor a Link to elsewhere."""
from __future__ import annotations

import json
import unittest

from dbmon import APIError, Client, DbmonError
from dbmon.paging import next_link

from .recorder import Handler, start_recorder


def one_item_page(handler: Handler, link: str) -> None:
    body = json.dumps({"data": [{"id": handler.path}], "pagination": {"total": 2, "page": 1, "per_page": 1}}).encode()
    handler.send(200, body, headers={"Link": link})


class CredentialStaysHomeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.elsewhere = start_recorder(lambda handler: handler.send(200, b'{"data": [], "pagination": {}}'))
        self.addCleanup(self.elsewhere.stop)

    def test_a_link_to_another_origin_is_not_followed(self) -> None:
        home = start_recorder(lambda handler: one_item_page(handler, f'<{self.elsewhere.url}/v1/databases?page=2>; rel="next"'))
        self.addCleanup(home.stop)
        client = Client("dbm_secret", base_url=f"{home.url}/v1")
        with self.assertRaisesRegex(DbmonError, "another origin"):
            list(client.paginate(client.list_databases))
        self.assertEqual(self.elsewhere.requests, [])

    def test_a_redirect_is_not_followed(self) -> None:
        home = start_recorder(lambda handler: handler.send(302, headers={"Location": f"{self.elsewhere.url}/v1/databases"}))
        self.addCleanup(home.stop)
        with self.assertRaises(APIError) as raised:
            Client("dbm_secret", base_url=f"{home.url}/v1").list_databases()
        self.assertEqual(raised.exception.status, 302)
        self.assertEqual([(request.path, request.headers["Authorization"]) for request in home.requests], [("/v1/databases", "Bearer dbm_secret")])
        self.assertEqual(self.elsewhere.requests, [])


class NextLinkTest(unittest.TestCase):
    def test_the_next_url_is_read_among_the_other_relations(self) -> None:
        header = '<http://h/v1/x?per_page=2&page=3>; rel="next", <http://h/v1/x?per_page=2&page=1>; rel="prev", <http://h/v1/x?per_page=2&page=1>; rel="first"'
        self.assertEqual(next_link(header), "http://h/v1/x?per_page=2&page=3")
        self.assertEqual(next_link('<http://h/a>; rel="prev", <http://h/b>;rel=next'), "http://h/b")

    def test_no_next_relation_is_the_last_page(self) -> None:
        self.assertIsNone(next_link('<http://h/v1/x?page=1>; rel="first", <http://h/v1/x?page=1>; rel="last"'))
        self.assertIsNone(next_link('<http://h/v1/x?page=2>; rel="nextish"'))
        self.assertIsNone(next_link(None))
        self.assertIsNone(next_link(""))
