"""A small GitHub REST client on urllib: pagination, retries, rate limits, no token leaks.

- Pagination follows `Link: <...>; rel="next"`, only to the API's own origin.
- 5xx answers and network errors are retried with exponential backoff.
- Rate limits (403/429) are honoured: `retry-after` first, else
  `x-ratelimit-remaining: 0` with `x-ratelimit-reset` (epoch seconds), else one
  minute for a secondary limit; a wait longer than max_wait raises RateLimited.
- Other 401/403/404 answers raise PermissionDenied at once (no retry).
- The token goes only to the API's origin, in an Authorization header that is
  never copied into exceptions or logs; redirects to other hosts are refused.
- `timeout` is one deadline for a whole exchange (connecting, sending, the
  status line, headers and body), not a limit per socket read: a server that
  trickles its answer a byte at a time is cut off when the deadline passes (a
  watchdog shuts the socket down), and that attempt counts as a network error.
- An answer that is not JSON, or not the shape an endpoint returns, is a
  GitHubError with one clear line, never a traceback.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

API_VERSION = "2022-11-28"
RETRY_STATUS = {500, 502, 503, 504}
LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
MAX_PAGES = 200


class GitHubError(Exception):
    def __init__(self, status: int, method: str, path: str, message: str):
        self.status, self.method, self.path, self.api_message = status, method, path, message
        where = f"{method} {path}" + (f": HTTP {status}" if status else "")
        super().__init__(f"GitHub API {where}: {message}")


class PermissionDenied(GitHubError):
    """The token may not do this (401/403 other than a rate limit, or 404 on a write)."""


class RateLimited(GitHubError):
    """Rate-limited for longer than the client is willing to wait."""


@dataclass
class Response:
    status: int
    headers: Dict[str, str]
    data: Any


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # surfaced as HTTPError; request() decides whether to follow


class _Deadline:
    """One deadline for one HTTP exchange: a timer shuts down every socket the
    exchange opened, so a read blocked on a trickling server returns at once."""

    _local = threading.local()

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.expires = time.monotonic() + seconds
        self.expired = False
        self._sockets: list = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def __enter__(self):
        _Deadline._local.current = self
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._timer.cancel()
        _Deadline._local.current = None
        return False

    @classmethod
    def current(cls) -> Optional["_Deadline"]:
        return getattr(cls._local, "current", None)

    def remaining(self) -> float:
        return max(self.expires - time.monotonic(), 0.001)

    def watch(self, sock) -> None:
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        self._shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            self._shut(sock)

    @staticmethod
    def _shut(sock) -> None:
        try:  # the plain socket call, also under TLS: the fd stops, the SSL object is left alone
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except (OSError, ValueError, TypeError):
            pass


def _watched(cls):
    """An HTTP(S)Connection whose sockets the current _Deadline can shut down, and
    whose connect waits no longer than the deadline leaves."""

    class Watched(cls):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            create = self._create_connection

            def create_watched(*a, **kw):  # the raw socket, before any TLS handshake or proxy tunnel
                sock = create(*a, **kw)
                deadline = _Deadline.current()
                if deadline is not None:
                    deadline.watch(sock)
                return sock

            self._create_connection = create_watched

        def connect(self):
            deadline = _Deadline.current()
            if deadline is not None:
                own = self.timeout if isinstance(self.timeout, (int, float)) else None
                self.timeout = deadline.remaining() if own is None else min(own, deadline.remaining())
            super().connect()
            if deadline is not None:
                deadline.watch(self.sock)

    Watched.__name__ = f"Watched{cls.__name__}"
    return Watched


_WatchedHTTP = _watched(http.client.HTTPConnection)
_WatchedHTTPS = _watched(http.client.HTTPSConnection)


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_WatchedHTTP, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(_WatchedHTTPS, req, context=self._context)


def _origin(url: str) -> tuple:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


class GitHubClient:
    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        user_agent: str = "castlint-bot",
        max_retries: int = 5,
        max_wait: float = 300.0,
        backoff: float = 1.0,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        log: Optional[Callable[[str], None]] = None,
    ):
        self.api_url = api_url.rstrip("/")
        self._token = token.strip()  # a token read from a file ends in a newline; no header may carry one
        self.user_agent = user_agent
        self.max_retries, self.max_wait, self.backoff, self.timeout = max_retries, max_wait, backoff, timeout
        self._sleep = sleep
        self._log = log or (lambda message: None)
        self._opener = urllib.request.build_opener(_NoRedirect, _HTTPHandler, _HTTPSHandler)
        self.requests = 0

    def __repr__(self) -> str:  # never show the token
        return f"GitHubClient({self.api_url!r})"

    # -- plumbing -------------------------------------------------------------
    def _url(self, path: str, params: Optional[dict]) -> str:
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        return url

    @staticmethod
    def _display(url: str) -> str:
        parts = urllib.parse.urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def _rate_limit_wait(self, status: int, headers: Dict[str, str], message: str) -> Optional[float]:
        """Seconds to wait before retrying, if this 403/429 is a rate limit."""
        retry_after = headers.get("retry-after")
        if retry_after is not None:
            try:
                return max(float(retry_after), 0.0)
            except ValueError:
                pass
        if headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset"):
            try:
                return max(float(headers["x-ratelimit-reset"]) - time.time(), 0.0) + 1.0
            except ValueError:
                return 60.0
        if status == 429 or "rate limit" in message.lower():
            return 60.0
        return None

    def request(self, method: str, path: str, *, params: Optional[dict] = None, body: Any = None) -> Response:
        """One API call (retried, paginated by the caller). A GitHubError never carries the
        token, in any form (castlint.bot.secrets), whatever the server or http.client said."""
        try:
            return self._request(method, path, params=params, body=body)
        except GitHubError as exc:
            raise self._scrubbed(exc) from None

    def _scrubbed(self, exc: GitHubError) -> GitHubError:
        from castlint.bot.secrets import redact

        clean = type(exc).__new__(type(exc))
        GitHubError.__init__(
            clean, exc.status, exc.method, redact(exc.path, [self._token]), redact(exc.api_message, [self._token])
        )
        return clean

    def _outgoing(self, body: Any) -> bytes:
        """The request body as JSON, with no form of the token in it: what the bot posts (a
        comment quoting the checked code) is public on the pull request."""
        from castlint.bot.secrets import redact

        text = json.dumps(body)
        return redact(text, [self._token]).encode("utf-8") if self._token else text.encode("utf-8")

    def _say(self, message: str) -> None:
        from castlint.bot.secrets import redact

        self._log(redact(message, [self._token]))

    def _request(self, method: str, path: str, *, params: Optional[dict] = None, body: Any = None) -> Response:
        url = self._url(path, params)
        if _origin(url) != _origin(self.api_url):
            raise GitHubError(0, method, self._display(url), "refusing to send the token to another host")
        if any(ord(c) < 32 or ord(c) == 127 for c in self._token):
            raise GitHubError(
                0,
                method,
                self._display(url),
                "the token holds a line break or another control character; it cannot be sent (check GITHUB_TOKEN)",
            )
        data = None if body is None else self._outgoing(body)
        attempt, delay = 0, self.backoff
        while True:
            attempt += 1
            req = urllib.request.Request(url, data=data, method=method)
            req.add_header("Accept", "application/vnd.github+json")
            req.add_header("X-GitHub-Api-Version", API_VERSION)
            req.add_header("User-Agent", self.user_agent)
            if data is not None:
                req.add_header("Content-Type", "application/json")
            req.add_unredirected_header("Authorization", f"Bearer {self._token}")
            self.requests += 1
            shown = self._display(url)
            try:
                with _Deadline(self.timeout) as deadline:
                    try:
                        status, headers, raw = self._exchange(req, deadline)
                    except urllib.error.HTTPError:
                        raise
                    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
                        if deadline.expired:
                            raise TimeoutError(f"no complete answer within {self.timeout:g} s") from None
                        raise urllib.error.URLError(exc) from None
                    if deadline.expired:
                        raise TimeoutError(f"no complete answer within {self.timeout:g} s")
                return Response(status, headers, _json(raw, status, method, shown))
            except urllib.error.HTTPError as exc:
                headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
                payload = _error_payload(exc)
                message = str(payload.get("message") or exc.reason or "error") if isinstance(payload, dict) else "error"
                status = exc.code
                if status in (301, 302, 307, 308) and headers.get("location"):
                    target = urllib.parse.urljoin(url, headers["location"])
                    if _origin(target) != _origin(self.api_url):
                        raise GitHubError(status, method, shown, "redirect to another host refused") from None
                    if attempt > self.max_retries:
                        raise GitHubError(status, method, shown, "too many redirects") from None
                    url = target
                    continue
                if status in (403, 429):
                    wait = self._rate_limit_wait(status, headers, message)
                    if wait is not None:
                        if wait > self.max_wait or attempt > self.max_retries:
                            raise RateLimited(
                                status,
                                method,
                                shown,
                                f"rate limited ({message}); retry in {wait:.0f} s exceeds the "
                                f"{self.max_wait:.0f} s this job waits",
                            ) from None
                        self._say(f"rate limited by GitHub ({status}); waiting {wait:.0f} s")
                        self._sleep(wait)
                        continue
                if status in (401, 403) or (status == 404 and method != "GET"):
                    raise PermissionDenied(status, method, shown, message) from None
                if status in RETRY_STATUS and attempt <= self.max_retries:
                    self._say(f"GitHub answered {status} to {method} {shown}; retrying in {delay:.0f} s")
                    self._sleep(delay)
                    delay = min(delay * 2, 60.0)
                    continue
                raise GitHubError(status, method, shown, message) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                if attempt <= self.max_retries:
                    self._say(f"cannot reach GitHub ({reason}); retrying in {delay:.0f} s")
                    self._sleep(delay)
                    delay = min(delay * 2, 60.0)
                    continue
                raise GitHubError(0, method, shown, f"cannot reach the API: {reason}") from None

    def _exchange(self, req, deadline: "_Deadline") -> tuple:
        """Send req and read the whole answer, within the deadline. HTTPError for 4xx/5xx
        (its body already read, so the deadline covers it too)."""
        try:
            with self._opener.open(req, timeout=deadline.remaining()) as resp:
                raw = resp.read()
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, raw
        except urllib.error.HTTPError as exc:
            try:
                exc.castlint_body = exc.read()
            except (OSError, http.client.HTTPException, ValueError):
                exc.castlint_body = b""
            if deadline.expired:
                raise TimeoutError(f"no complete answer within {self.timeout:g} s") from None
            raise

    def get(self, path: str, **params) -> Any:
        return self.request("GET", path, params=params or None).data

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, body=body).data

    def patch(self, path: str, body: Any) -> Any:
        return self.request("PATCH", path, body=body).data

    def post_dict(self, path: str, body: Any) -> dict:
        return _expect_dict(self.post(path, body), "POST", path)

    def paginate(self, path: str, **params) -> List[Any]:
        """Every item of a list endpoint, following Link rel="next"."""
        params.setdefault("per_page", 100)
        items: List[Any] = []
        url: Optional[str] = self._url(path, params)
        for _ in range(MAX_PAGES):
            if url is None:
                break
            resp = self.request("GET", url)
            page = resp.data
            if isinstance(page, dict):  # e.g. {"total_count": .., "check_runs": [...]}
                page = next((v for v in page.values() if isinstance(v, list)), [])
            if page is None:
                page = []
            if not isinstance(page, list) or not all(isinstance(item, dict) for item in page):
                raise GitHubError(
                    resp.status,
                    "GET",
                    self._display(url),
                    f"unexpected answer: expected a list of objects, got {_shape(page)}",
                )
            items.extend(page)
            match = LINK_NEXT.search(resp.headers.get("link", ""))
            url = match.group(1) if match else None
        return items


def _error_payload(exc) -> Any:
    raw = getattr(exc, "castlint_body", b"")
    try:
        return json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return {}


def _json(raw: bytes, status: int, method: str, shown: str) -> Any:
    """The body as JSON, or a one-line GitHubError that says what came back."""
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        preview = raw[:60].decode("utf-8", "replace").replace("\n", " ").replace("\r", " ")
        raise GitHubError(
            status, method, shown, f"the answer is not valid JSON ({len(raw)} bytes, starting {preview!r})"
        ) from None


def _shape(value: Any) -> str:
    if isinstance(value, list):
        kinds = sorted({type(v).__name__ for v in value})
        return f"a list of {', '.join(kinds)}" if kinds else "an empty list"
    return "null" if value is None else f"a {type(value).__name__}"


def _expect_dict(value: Any, method: str, path: str) -> dict:
    if not isinstance(value, dict):
        raise GitHubError(0, method, path, f"unexpected answer: expected a JSON object, got {_shape(value)}")
    return value
