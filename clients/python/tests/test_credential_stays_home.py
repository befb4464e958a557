"""The credential is sent only to the base URL's origin: not along a redirect, nor a Link to elsewhere."""
from __future__ import annotations

import http.server
import json
import threading
import unittest
from typing import Callable, List, Optional, Tuple

from dbmon import APIError, Client, DbmonError
from dbmon.paging import next_link


class _Recorder(http.server.BaseHTTPRequestHandler):
    answer: Callable[["_Recorder"], None]
    seen: List[Tuple[str, str]]

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization", "")))
        self.answer()

    def log_message(self, format: str, *args: object) -> None:
        pass


def start(answer: Callable[[_Recorder], None]) -> Tuple[http.server.HTTPServer, List[Tuple[str, str]]]:
    seen: List[Tuple[str, str]] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Recorder,), {"answer": answer, "seen": seen}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


class CredentialStaysHomeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.elsewhere, self.seen_elsewhere = start(lambda handler: self._list_page(handler, None))
        self.elsewhere_url = f"http://127.0.0.1:{self.elsewhere.server_address[1]}"

    def tearDown(self) -> None:
        self.elsewhere.shutdown()
        self.elsewhere.server_close()

    @staticmethod
    def _list_page(handler: _Recorder, link: Optional[str]) -> None:
        body = json.dumps({"data": [{"id": handler.path}], "pagination": {"total": 2, "page": 1, "per_page": 1}}).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if link is not None:
            handler.send_header("Link", link)
        handler.end_headers()
        handler.wfile.write(body)

    def test_a_link_to_another_origin_is_not_followed(self) -> None:
        home, _ = start(lambda handler: self._list_page(handler, f'<{self.elsewhere_url}/v1/databases?page=2>; rel="next"'))
        client = Client("dbm_secret", base_url=f"http://127.0.0.1:{home.server_address[1]}/v1")
        try:
            with self.assertRaisesRegex(DbmonError, "another origin"):
                list(client.paginate(client.list_databases))
        finally:
            home.shutdown()
            home.server_close()
        self.assertEqual(self.seen_elsewhere, [])

    def test_a_redirect_is_not_followed(self) -> None:
        def redirect(handler: _Recorder) -> None:
            handler.send_response(302)
            handler.send_header("Location", f"{self.elsewhere_url}/v1/databases")
            handler.end_headers()

        home, seen_home = start(redirect)
        try:
            with self.assertRaises(APIError) as raised:
                Client("dbm_secret", base_url=f"http://127.0.0.1:{home.server_address[1]}/v1").list_databases()
        finally:
            home.shutdown()
            home.server_close()
        self.assertEqual(raised.exception.status, 302)
        self.assertEqual(seen_home, [("/v1/databases", "Bearer dbm_secret")])
        self.assertEqual(self.seen_elsewhere, [])


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
