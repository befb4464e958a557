"""The client: configuration, authentication, one request with its retries, rate limits and paging."""
from __future__ import annotations

import http.client
import json
import logging
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Callable, Iterator, Mapping, Optional, Tuple

from ._generated import LIST_OPERATIONS, Operations
from ._version import __version__
from .errors import APIConnectionError, DbmonError, error_from_answer
from .paging import next_link
from .retries import Failure, RetryPolicy, retry_after_seconds, retry_delay

DEFAULT_BASE_URL = "http://127.0.0.1:7117/v1"

_log = logging.getLogger("dbmon")


@dataclass(frozen=True)
class RateLimit:
    """The X-RateLimit-* headers of the latest answer: the hour's budget, what is left, when it resets (Unix seconds)."""

    limit: int
    remaining: int
    reset: int


@dataclass(frozen=True)
class Response:
    """The latest answer's status and headers (``headers.get`` ignores case)."""

    status: int
    headers: Message

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("X-Request-Id")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as it is: following one could carry the credential to another host."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects)


class Client(Operations):
    """A client of the dbmon API; every operation of the API is a method (see ``dbmon._generated``).

    The credential is ``api_key`` or ``access_token`` (an OAuth access token), else the environment's
    DBMON_API_KEY or DBMON_ACCESS_TOKEN; the base URL is ``base_url``, else DBMON_BASE_URL, else
    ``http://127.0.0.1:7117/v1``. A client keeps the latest answer's ``rate_limit`` and
    ``last_response``, so one client belongs to one thread at a time.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        access_token: Optional[str] = None,
        base_url: Optional[str] = None,
        max_retries: int = 2,
        max_retry_wait: float = 60.0,
        timeout: float = 60.0,
    ) -> None:
        if api_key is not None and access_token is not None:
            raise ValueError("give an api_key or an access_token, not both")
        self._credential = api_key or access_token or os.environ.get("DBMON_API_KEY") or os.environ.get("DBMON_ACCESS_TOKEN")
        self.base_url = (base_url or os.environ.get("DBMON_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.retry_policy = RetryPolicy(max_retries=max_retries, max_retry_wait=max_retry_wait)
        self.timeout = timeout
        self.rate_limit: Optional[RateLimit] = None
        self.last_response: Optional[Response] = None

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"

    def paginate(self, list_method: Callable[..., Any], *args: Any, **params: Any) -> Iterator[Any]:
        """Every item of a list operation across its pages: ``client.paginate(client.list_databases, per_page=50)``.

        Takes the list method's own arguments and follows each answer's Link rel="next".
        """
        if getattr(list_method, "__self__", None) is not self or getattr(list_method, "__name__", None) not in LIST_OPERATIONS:
            raise TypeError(f"paginate takes a list method of this client ({', '.join(sorted(LIST_OPERATIONS))})")
        return self._pages(list_method, args, params)

    def _pages(self, list_method: Callable[..., Any], args: Tuple[Any, ...], params: Mapping[str, Any]) -> Iterator[Any]:
        page = list_method(*args, **params)
        while True:
            assert self.last_response is not None  # the answer of the page just read
            following = next_link(self.last_response.headers.get("Link"))
            yield from page["data"]
            if following is None:
                return
            page = self._request("GET", self._same_origin(following), None, None)

    def _call(
        self,
        method: str,
        path: str,
        *,
        path_parameters: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        form: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        for name, value in (path_parameters or {}).items():
            path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        url = self.base_url + path
        sent_query = {name: _query_value(value) for name, value in (query or {}).items() if value is not None}
        if sent_query:
            url += "?" + urllib.parse.urlencode(sent_query)
        data: Optional[bytes] = None
        content_type: Optional[str] = None
        if form is not None:
            data, content_type = urllib.parse.urlencode(dict(form)).encode(), "application/x-www-form-urlencoded"
        elif json is not None:
            data, content_type = _json_bytes(json), "application/json"
        return self._request(method, url, data, content_type)

    def _same_origin(self, url: str) -> str:
        """A Link to another origin is refused: following it would send the credential there."""
        target, base = urllib.parse.urlsplit(url), urllib.parse.urlsplit(self.base_url)
        if (target.scheme, target.netloc) != (base.scheme, base.netloc):
            raise DbmonError(f"refusing to follow a Link to another origin: {target.scheme}://{target.netloc}")
        return url

    def _request(self, method: str, url: str, data: Optional[bytes], content_type: Optional[str]) -> Any:
        headers = {"Accept": "application/json", "User-Agent": f"dbmon-python/{__version__}"}
        if self._credential:
            headers["Authorization"] = f"Bearer {self._credential}"
        if content_type is not None:
            headers["Content-Type"] = content_type
        retry_number = 0
        while True:
            try:
                status, answer_headers, raw = self._send(urllib.request.Request(url, data=data, headers=headers, method=method))
            except APIConnectionError as error:
                delay = retry_delay(self.retry_policy, method, retry_number, Failure(request_sent=error.request_sent))
                if delay is None:
                    raise
                why = str(error)
            else:
                self._remember(status, answer_headers)
                if 200 <= status < 300:
                    return _decode(raw, answer_headers)
                retry_after = retry_after_seconds(answer_headers)
                delay = retry_delay(self.retry_policy, method, retry_number, Failure(status=status, retry_after=retry_after))
                if delay is None:
                    raise error_from_answer(status, _decode(raw, answer_headers), answer_headers.get("X-Request-Id"), retry_after)
                why = f"HTTP {status}" + ("" if retry_after is None else f", Retry-After {answer_headers.get('Retry-After')}")
            _log.info("retry %d of %s %s in %.3f s (%s)", retry_number + 1, method, url, delay, why)
            time.sleep(delay)
            retry_number += 1

    def _send(self, request: urllib.request.Request) -> Tuple[int, Message, bytes]:
        try:
            with _opener.open(request, timeout=self.timeout) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as answer:
            with answer:
                return answer.code, answer.headers, answer.read()
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = error.reason if isinstance(error, urllib.error.URLError) else error
            raise APIConnectionError(f"{request.get_method()} {request.full_url}: {reason}", request_sent=not isinstance(reason, ConnectionRefusedError)) from error

    def _remember(self, status: int, headers: Message) -> None:
        self.last_response = Response(status, headers)
        values = [headers.get(f"X-RateLimit-{name}") for name in ("Limit", "Remaining", "Reset")]
        if all(value is not None and value.isdigit() for value in values):
            self.rate_limit = RateLimit(*(int(value) for value in values))  # type: ignore[union-attr]


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _decode(raw: bytes, headers: Message) -> Any:
    if not raw:
        return None
    if (headers.get_content_type() or "").endswith("json"):
        return json.loads(raw)
    return raw.decode("utf-8", "replace")
