"""A small GitHub REST client on urllib: pagination, retries, rate limits, no token leaks.

- Pagination follows `Link: <...>; rel="next"`, only to the API's own origin.
- 5xx answers and network errors are retried with exponential backoff.
- Rate limits (403/429) are honoured: `retry-after` first, else
  `x-ratelimit-remaining: 0` with `x-ratelimit-reset` (epoch seconds), else one
  minute for a secondary limit; a wait longer than max_wait raises RateLimited.
- Other 401/403/404 answers raise PermissionDenied at once (no retry).
- The token goes only to the API's origin, in an Authorization header that is
  never copied into exceptions or logs; redirects to other hosts are refused.
"""
from __future__ import annotations

import json
import re
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
        where = f"{method} {path}"
        super().__init__(f"GitHub API {where}: HTTP {status}: {message}" if status else f"GitHub API {where}: {message}")


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


def _origin(url: str) -> tuple:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


class GitHubClient:
    def __init__(self, api_url: str, token: str, *, user_agent: str = "castlint-bot",
                 max_retries: int = 5, max_wait: float = 300.0, backoff: float = 1.0,
                 timeout: float = 30.0, sleep: Callable[[float], None] = time.sleep,
                 log: Optional[Callable[[str], None]] = None):
        self.api_url = api_url.rstrip("/")
        self._token = token
        self.user_agent = user_agent
        self.max_retries, self.max_wait, self.backoff, self.timeout = max_retries, max_wait, backoff, timeout
        self._sleep = sleep
        self._log = log or (lambda message: None)
        self._opener = urllib.request.build_opener(_NoRedirect)
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
        url = self._url(path, params)
        if _origin(url) != _origin(self.api_url):
            raise GitHubError(0, method, self._display(url), "refusing to send the token to another host")
        data = None if body is None else json.dumps(body).encode("utf-8")
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
            try:
                with self._opener.open(req, timeout=self.timeout) as resp:
                    raw = resp.read()
                    headers = {k.lower(): v for k, v in resp.headers.items()}
                    return Response(resp.status, headers, json.loads(raw) if raw.strip() else None)
            except urllib.error.HTTPError as exc:
                headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
                try:
                    raw = exc.read()
                    payload = json.loads(raw) if raw.strip() else {}
                except (ValueError, OSError):
                    payload = {}
                message = str(payload.get("message") or exc.reason or "error") if isinstance(payload, dict) else "error"
                status = exc.code
                shown = self._display(url)
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
                            raise RateLimited(status, method, shown,
                                              f"rate limited ({message}); retry in {wait:.0f} s exceeds the "
                                              f"{self.max_wait:.0f} s this job waits") from None
                        self._log(f"rate limited by GitHub ({status}); waiting {wait:.0f} s")
                        self._sleep(wait)
                        continue
                if status in (401, 403) or (status == 404 and method != "GET"):
                    raise PermissionDenied(status, method, shown, message) from None
                if status in RETRY_STATUS and attempt <= self.max_retries:
                    self._log(f"GitHub answered {status} to {method} {shown}; retrying in {delay:.0f} s")
                    self._sleep(delay)
                    delay = min(delay * 2, 60.0)
                    continue
                raise GitHubError(status, method, shown, message) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                if attempt <= self.max_retries:
                    self._log(f"cannot reach GitHub ({reason}); retrying in {delay:.0f} s")
                    self._sleep(delay)
                    delay = min(delay * 2, 60.0)
                    continue
                raise GitHubError(0, method, self._display(url), f"cannot reach the API: {reason}") from None

    def get(self, path: str, **params) -> Any:
        return self.request("GET", path, params=params or None).data

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, body=body).data

    def patch(self, path: str, body: Any) -> Any:
        return self.request("PATCH", path, body=body).data

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
            items.extend(page or [])
            match = LINK_NEXT.search(resp.headers.get("link", ""))
            url = match.group(1) if match else None
        return items
