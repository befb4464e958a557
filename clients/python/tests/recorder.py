"""A loopback HTTP server whose answers a test scripts, recording what each request carried."""
from __future__ import annotations

import http.server
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

Answer = Callable[["Handler"], None]


@dataclass
class Recorded:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


@dataclass
class Recorder:
    server: http.server.ThreadingHTTPServer
    requests: List[Recorded] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def wait_for_request(self, timeout: float) -> Recorded:
        deadline = time.monotonic() + timeout
        while not self.requests:
            if time.monotonic() > deadline:
                raise AssertionError(f"no request within {timeout} s")
            time.sleep(0.05)
        return self.requests[0]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Handler(http.server.BaseHTTPRequestHandler):
    answer: Answer
    recorder: Recorder

    def _record_and_answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.recorder.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body))
        self.answer()

    do_GET = do_POST = _record_and_answer

    def send(self, status: int, body: bytes = b"", content_type: str = "application/json", headers: Optional[Dict[str, str]] = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def start_recorder(answer: Answer) -> Recorder:
    """``answer(handler)`` answers each request; stop() the recorder at the end."""
    handler = type("ScriptedHandler", (Handler,), {"answer": answer})
    recorder = Recorder(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler))
    handler.recorder = recorder
    threading.Thread(target=recorder.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return recorder
