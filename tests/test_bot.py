"""`castlint bot` against a real HTTP server on 127.0.0.1 that implements the GitHub REST endpoints it uses.

The server keeps issue comments, review comments, reviews and check runs in
memory, paginates with Link headers (at most 2 items a page, so every list
takes several pages), checks the token, answers like GitHub (JSON bodies,
x-ratelimit-* headers), and can be told to answer the next matching request
with a rate limit, a server error, or a read-only token's 403. The bot runs as
`python -m castlint bot` in a subprocess, in a real git checkout of a pull request.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml

from castlint.bot.client import GitHubClient, GitHubError, RateLimited

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "ghs_castlintTestToken0123456789abcdefXYZ"
REPO = "octo/engine"
PR = 42
GIT_ENV = {
    "GIT_AUTHOR_NAME": "dev",
    "GIT_AUTHOR_EMAIL": "dev@example.invalid",
    "GIT_COMMITTER_NAME": "dev",
    "GIT_COMMITTER_EMAIL": "dev@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}

BASE_BACKEND = """\
import torch


class FlashMLABackend:
    def forward_decode(self, q, layer, forward_batch):
        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
        return self.decode_wrapper.run(q, k_buffer)

    def forward_extend(self, q, layer, loc):
        return q
"""
# The pull request adds a cast-before-gather (fixable) and another whole-pool cast.
PR_BACKEND = BASE_BACKEND.replace(
    "    def forward_extend(self, q, layer, loc):\n        return q\n",
    "    def forward_extend(self, q, layer, loc):\n"
    "        rows = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"
    "        return q @ rows.T\n"
    "\n"
    "    def forward_idle(self, q, layer):\n"
    "        v_buffer = self.token_to_kv_pool.get_value_buffer(layer.layer_id).to(q.dtype)\n"
    "        return v_buffer\n",
)
CL003_LINE = 10
CL001_NEW_LINE = 14
FIXED_ROW = "        rows = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)"


# -- the fake GitHub ------------------------------------------------------------


class FakeGitHub:
    def __init__(self, pr_files, head_sha):
        self.pr_files = pr_files
        self.head_sha = head_sha
        self.issue_comments = [self._comment(i, f"Looks good to me #{i}", "reviewer") for i in (1, 2, 3)]
        self.review_comments = [
            {
                "id": 77,
                "body": "nit: naming",
                "path": "engine/backend.py",
                "line": 5,
                "user": {"login": "reviewer", "type": "User"},
            }
        ]
        self.reviews, self.check_runs = [], []
        self.log = []
        self.queue = []  # (method, path regex, status, headers, body): answers for the next matching requests
        self.read_only = False
        self.next_id = 5000
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _do(self):
                fake.handle(self)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _do

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self):  # GitHub Enterprise layout
        return self.origin + "/api/v3"

    def _comment(self, n, body, login):
        return {
            "id": 900 + n,
            "node_id": f"IC_{n}",
            "body": body,
            "user": {"login": login, "type": "User"},
            "html_url": f"https://github.example.com/{REPO}/pull/{PR}#issuecomment-{900 + n}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "author_association": "MEMBER",
        }

    def new_id(self):
        self.next_id += 1
        return self.next_id

    def requests(self, method=None, pattern=""):
        return [(m, p, q) for m, p, q, _ in self.log if (method is None or m == method) and re.search(pattern, p)]

    # -- HTTP -------------------------------------------------------------
    def send(self, h, status, body, headers=None):
        if callable(body):  # a test's own answer (a trickle, say)
            return body(h)
        data = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        h.send_header("X-GitHub-Api-Version-Selected", "2022-11-28")
        h.send_header("x-ratelimit-limit", "5000")
        h.send_header("x-ratelimit-remaining", "4990")
        h.send_header("x-ratelimit-reset", str(int(time.time()) + 3600))
        h.send_header("x-ratelimit-resource", "core")
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def paginate(self, h, path, query, items):
        per_page = min(int(query.get("per_page", ["30"])[0]), 2)
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        url = f"{self.api_url}{path}?per_page={query.get('per_page', ['30'])[0]}&page="
        if page < last:
            links += [f'<{url}{page + 1}>; rel="next"', f'<{url}{last}>; rel="last"']
        if page > 1:
            links += [f'<{url}{page - 1}>; rel="prev"', f'<{url}1>; rel="first"']
        self.send(h, 200, chunk, {"Link": ", ".join(links)} if links else None)

    def handle(self, h):
        parts = urlsplit(h.path)
        path, query = parts.path, parse_qs(parts.query)
        length = int(h.headers.get("Content-Length") or 0)
        body = json.loads(h.rfile.read(length)) if length else None
        with self.lock:
            self.log.append((h.command, path, parts.query, body))
            if h.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self.send(
                    h, 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
                )
            for i, (method, pattern, status, headers, answer) in enumerate(self.queue):
                if method == h.command and re.search(pattern, path):
                    del self.queue[i]
                    return self.send(h, status, answer, headers)
            if not path.startswith("/api/v3/"):
                return self.send(h, 404, {"message": "Not Found"})
            path = path[len("/api/v3") :]
            if h.command != "GET" and self.read_only:
                return self.send(
                    h,
                    403,
                    {
                        "message": "Resource not accessible by integration",
                        "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                        "status": "403",
                    },
                    {"x-accepted-github-permissions": "issues=write; pull_requests=write"},
                )
            return self.route(h, h.command, path, query, body)

    def route(self, h, method, path, query, body):
        base = f"/repos/{REPO}"
        if method == "GET" and path == f"{base}/pulls/{PR}/files":
            return self.paginate(h, path, query, self.pr_files)
        if method == "GET" and path == f"{base}/issues/{PR}/comments":
            return self.paginate(h, path, query, self.issue_comments)
        if method == "POST" and path == f"{base}/issues/{PR}/comments":
            c = self._comment(self.new_id() - 900, body["body"], "github-actions[bot]")
            c["user"]["type"] = "Bot"
            self.issue_comments.append(c)
            return self.send(h, 201, c)
        m = re.fullmatch(rf"{base}/issues/comments/(\d+)", path)
        if method == "PATCH" and m:
            for c in self.issue_comments:
                if c["id"] == int(m.group(1)):
                    c["body"] = body["body"]
                    c["updated_at"] = "2026-01-02T00:00:00Z"
                    return self.send(h, 200, c)
            return self.send(h, 404, {"message": "Not Found"})
        if method == "GET" and path == f"{base}/pulls/{PR}/comments":
            return self.paginate(h, path, query, self.review_comments)
        if method == "POST" and path == f"{base}/pulls/{PR}/reviews":
            diff_lines = {f["filename"]: added_lines(f.get("patch", "")) for f in self.pr_files}
            for c in body.get("comments", []):
                lines = range(c.get("start_line", c["line"]), c["line"] + 1)
                if not all(n in diff_lines.get(c["path"], ()) for n in lines):
                    return self.send(
                        h,
                        422,
                        {
                            "message": "Unprocessable Entity",
                            "errors": ["Pull request review thread line must be part of the diff"],
                        },
                    )
            review = {
                "id": self.new_id(),
                "state": "COMMENTED",
                "commit_id": body["commit_id"],
                "body": body.get("body", ""),
            }
            self.reviews.append(review)
            for c in body.get("comments", []):
                self.review_comments.append(
                    dict(
                        c,
                        id=self.new_id(),
                        pull_request_review_id=review["id"],
                        user={"login": "github-actions[bot]", "type": "Bot"},
                    )
                )
            return self.send(h, 200, review)
        if method == "POST" and path == f"{base}/check-runs":
            if len(body["output"].get("annotations", [])) > 50:
                return self.send(h, 422, {"message": "Only 50 annotations are allowed per request"})
            run = dict(body, id=self.new_id())
            self.check_runs.append(run)
            return self.send(h, 201, run)
        m = re.fullmatch(rf"{base}/check-runs/(\d+)", path)
        if method == "PATCH" and m:
            run = next(r for r in self.check_runs if r["id"] == int(m.group(1)))
            run["output"]["annotations"] = run["output"].get("annotations", []) + body["output"]["annotations"]
            return self.send(h, 200, run)
        return self.send(h, 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

    def bot_comments(self):
        return [c for c in self.issue_comments if c["body"].startswith("<!-- castlint-bot v1")]


def added_lines(patch: str) -> set:
    out, n = set(), 0
    for line in patch.split("\n"):
        if line.startswith("@@"):
            n = int(re.match(r"@@ -\S+ \+(\d+)", line).group(1))
        elif line.startswith("+"):
            out.add(n)
            n += 1
        elif not line.startswith(("-", "\\")):
            n += 1
    return out


# -- a pull request in a real git checkout ---------------------------------------


def git(repo, *args) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=dict(os.environ, **GIT_ENV), check=True, capture_output=True, text=True
    ).stdout


def pr_files(repo, base, head) -> list:
    """The /pulls/N/files answer for base..head, as GitHub builds it."""
    out = []
    for line in git(repo, "diff", "--name-status", "-M", base, head).splitlines():
        status, *names = line.split("\t")
        name = names[-1]
        patch = git(repo, "diff", "-M", base, head, "--", *names)
        hunks = patch[patch.index("@@") :] if "@@" in patch else None
        kind = {"A": "added", "M": "modified", "D": "removed"}.get(status[0], "renamed")
        item = {
            "sha": "0" * 40,
            "filename": name,
            "status": kind,
            "additions": sum(1 for x in (hunks or "").split("\n") if x.startswith("+")),
            "deletions": sum(1 for x in (hunks or "").split("\n") if x.startswith("-")),
            "blob_url": f"https://github.example.com/{REPO}/blob/{head}/{name}",
            "raw_url": f"https://github.example.com/{REPO}/raw/{head}/{name}",
            "contents_url": f"https://api.github.example.com/repos/{REPO}/contents/{name}?ref={head}",
        }
        item["changes"] = item["additions"] + item["deletions"]
        if hunks is not None:
            item["patch"] = hunks.rstrip("\n")
        if kind == "renamed":
            item["previous_filename"] = names[0]
        out.append(item)
    return out


@pytest.fixture()
def pr(tmp_path):
    repo = tmp_path / "engine"
    (repo / "engine").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "engine" / "backend.py").write_text(BASE_BACKEND)
    (repo / "engine" / "old_backend.py").write_text(BASE_BACKEND)
    (repo / "README.md").write_text("engine\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "engine" / "backend.py").write_text(PR_BACKEND)
    (repo / "engine" / "old_backend.py").unlink()
    (repo / "README.md").write_text("engine, faster\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return {"repo": repo, "base": base, "tmp": tmp_path}


def push(pr, text: str, message: str) -> str:
    (pr["repo"] / "engine" / "backend.py").write_text(text)
    git(pr["repo"], "commit", "-q", "-am", message)
    return git(pr["repo"], "rev-parse", "HEAD").strip()


def head(pr) -> str:
    return git(pr["repo"], "rev-parse", "HEAD").strip()


def run_bot(pr, gh, *args, token=TOKEN, fork=False, command=(sys.executable, "-m", "castlint")):
    event = {
        "action": "synchronize",
        "number": PR,
        "pull_request": {
            "number": PR,
            "state": "open",
            "title": "Faster extend",
            "head": {"sha": head(pr), "ref": "feature", "repo": {"full_name": "someone/engine" if fork else REPO}},
            "base": {"sha": pr["base"], "ref": "main", "repo": {"full_name": REPO}},
        },
        "repository": {"full_name": REPO},
    }
    event_path = pr["tmp"] / "event.json"
    event_path.write_text(json.dumps(event))
    summary = pr["tmp"] / "step_summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(
        GITHUB_TOKEN=token,
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_PATH=str(event_path),
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_API_URL=gh.api_url,
        GITHUB_SERVER_URL="https://github.example.com",
        GITHUB_WORKSPACE=str(pr["repo"]),
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_SHA=head(pr),
    )
    proc = subprocess.run(
        [*command, "bot", *args], cwd=pr["repo"], env=env, capture_output=True, text=True, timeout=300
    )
    assert TOKEN not in proc.stdout + proc.stderr  # never, whatever happened
    proc.summary = summary.read_text() if summary.exists() else ""
    return proc


def serve(pr):
    gh = FakeGitHub(pr_files(pr["repo"], pr["base"], head(pr)), head(pr))
    return gh


# -- the bot ------------------------------------------------------------------------


def test_first_run_posts_comment_suggestion_and_check_run(pr):
    with serve(pr) as gh:
        proc = run_bot(pr, gh)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    # one comment, with the marker, the cost table, links and the suggested diff
    (comment,) = gh.bot_comments()
    body = comment["body"]
    assert body.startswith("<!-- castlint-bot v1 findings=2 -->")
    assert "## castlint: 2 findings on the lines this pull request changes" in body
    # forward_extend is a hot path (error), forward_idle is not (warning)
    assert "| 🔴 | CL003 cast-before-gather |" in body and "| 🟠 | CL001 whole-pool-cast |" in body
    # the one hot-path cast is in forward_extend, which a decode step does not run (issue 12, bug 5)
    assert "per decode step**" not in body
    assert "**Sum of the rows**" in body
    assert "| 856.3 MB | 66.8 GB |" in body and "| **1.7 GB** | **133.6 GB** |" in body
    link = f"https://github.example.com/{REPO}/blob/{head(pr)}/engine/backend.py#L{CL003_LINE}"
    assert f"[`engine/backend.py:{CL003_LINE}`]({link})" in body
    assert f"-{PR_BACKEND.splitlines()[CL003_LINE - 1]}\n+{FIXED_ROW}\n" in body  # the diff block
    assert "backend.py:6`" not in body  # the finding that predates the PR is not reported
    # the fixable finding as a GitHub suggestion block, on the PR's line
    (review,) = gh.reviews
    assert review["commit_id"] == head(pr)
    (suggestion,) = [c for c in gh.review_comments if c.get("pull_request_review_id") == review["id"]]
    assert suggestion["path"] == "engine/backend.py" and suggestion["line"] == CL003_LINE
    assert suggestion["side"] == "RIGHT"
    assert f"```suggestion\n{FIXED_ROW}\n```" in suggestion["body"]
    # a check run with one annotation per finding
    (check,) = gh.check_runs
    assert check["head_sha"] == head(pr) and check["conclusion"] == "failure"
    levels = sorted((a["start_line"], a["annotation_level"]) for a in check["output"]["annotations"])
    assert levels == [(CL003_LINE, "failure"), (CL001_NEW_LINE, "warning")]
    # every list was read page by page (2 items a page)
    assert any("page=2" in q for _, _, q in gh.requests("GET", r"/pulls/42/files$"))
    assert any("page=2" in q for _, _, q in gh.requests("GET", r"/issues/42/comments$"))
    # the job log: workflow-command annotations, and the step summary holds the comment
    assert f"::error file=engine/backend.py,line={CL003_LINE}," in proc.stdout
    assert "castlint: 2 findings on the lines this pull request changes" in proc.summary
    assert "posted the castlint comment" in proc.stderr


def test_second_run_edits_the_same_comment(pr):
    with serve(pr) as gh:
        assert run_bot(pr, gh).returncode == 1
        (first,) = gh.bot_comments()
        # a new push: a comment line above the findings moves them down by one
        new_sha = push(pr, PR_BACKEND.replace("import torch\n", "import torch  # the engine\n"), "touch")
        gh.pr_files = pr_files(pr["repo"], pr["base"], new_sha)
        posts_before = len(gh.requests("POST", r"/issues/42/comments$"))
        proc = run_bot(pr, gh)
    assert proc.returncode == 1, proc.stderr
    assert len(gh.requests("POST", r"/issues/42/comments$")) == posts_before == 1
    (patch,) = gh.requests("PATCH", r"/issues/comments/\d+$")
    assert patch[1].endswith(f"/issues/comments/{first['id']}")
    (comment,) = gh.bot_comments()
    assert comment["id"] == first["id"]
    assert (
        f"/blob/{new_sha}/engine/backend.py#L{CL003_LINE}" in comment["body"]
    )  # same line: import line changed in place
    assert f"commit `{new_sha[:7]}`" in comment["body"]
    assert len(gh.reviews) == 1  # the same suggestion is not posted twice
    assert "already on the pull request" in proc.stderr
    assert len(gh.check_runs) == 2  # a check run per head commit


def test_clean_run_marks_the_comment_clean(pr):
    with serve(pr) as gh:
        assert run_bot(pr, gh).returncode == 1
        fixed = PR_BACKEND.replace(PR_BACKEND.splitlines()[CL003_LINE - 1], FIXED_ROW).replace(
            "get_value_buffer(layer.layer_id).to(q.dtype)", "get_value_buffer(layer.layer_id)"
        )
        new_sha = push(pr, fixed, "fix the casts")
        gh.pr_files = pr_files(pr["repo"], pr["base"], new_sha)
        proc = run_bot(pr, gh)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (comment,) = gh.bot_comments()
    assert comment["body"].startswith("<!-- castlint-bot v1 findings=0 -->")
    assert "## ✅ castlint: clean" in comment["body"]
    assert "All 2 findings reported earlier are fixed" in comment["body"]
    assert "| 🔴 |" not in comment["body"]
    assert gh.check_runs[-1]["conclusion"] == "success"
    assert "updated the castlint comment (clean)" in proc.stderr


def test_clean_pull_request_without_earlier_comment_posts_nothing(pr):
    clean = PR_BACKEND.replace(PR_BACKEND.splitlines()[CL003_LINE - 1], FIXED_ROW).replace(
        "get_value_buffer(layer.layer_id).to(q.dtype)", "get_value_buffer(layer.layer_id)"
    )
    push(pr, clean, "clean from the start")
    with serve(pr) as gh:
        proc = run_bot(pr, gh)
        assert proc.returncode == 0
        assert gh.bot_comments() == [] and "nothing posted" in proc.stderr
        assert gh.check_runs[-1]["conclusion"] == "success"
        again = run_bot(pr, gh, "--always-comment")
    assert again.returncode == 0
    assert "## ✅ castlint: clean" in gh.bot_comments()[0]["body"]


def test_rate_limit_then_success(pr):
    with serve(pr) as gh:
        reset = str(int(time.time()) + 1)
        gh.queue.append(
            (
                "GET",
                r"/pulls/42/files$",
                403,
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset, "x-ratelimit-limit": "1000"},
                {
                    "message": "API rate limit exceeded for installation ID 4242.",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                },
            )
        )
        gh.queue.append(
            (
                "POST",
                r"/issues/42/comments$",
                429,
                {"retry-after": "1"},
                {"message": "You have exceeded a secondary rate limit."},
            )
        )
        proc = run_bot(pr, gh)
    assert proc.returncode == 1, proc.stderr
    assert len(gh.requests("GET", r"/pulls/42/files$")) >= 3  # the 403, then both pages
    assert len(gh.requests("POST", r"/issues/42/comments$")) == 2  # the 429, then the post
    assert len(gh.bot_comments()) == 1
    assert proc.stderr.count("rate limited by GitHub") == 2


def test_server_error_is_retried(pr):
    with serve(pr) as gh:
        gh.queue.append(("GET", r"/issues/42/comments$", 502, None, {"message": "Server Error"}))
        proc = run_bot(pr, gh, "--no-check-run", "--no-review")
    assert proc.returncode == 1, proc.stderr
    assert "GitHub answered 502" in proc.stderr
    assert len(gh.bot_comments()) == 1 and gh.check_runs == [] and gh.reviews == []


def test_read_only_token_degrades_to_log_and_annotations(pr):
    with serve(pr) as gh:
        gh.read_only = True
        proc = run_bot(pr, gh, fork=True)
    assert proc.returncode == 1  # the findings still fail the job; the bot itself did not fail
    assert gh.bot_comments() == [] and gh.check_runs == [] and gh.reviews == []
    assert len(gh.requests("POST", r"/issues/42/comments$")) == 1  # a permission error is not retried
    assert gh.requests("POST", r"/reviews$") == [] and gh.requests("POST", r"/check-runs$") == []
    assert (
        "the token cannot comment on this pull request (HTTP 403: Resource not accessible by integration)"
        in proc.stderr
    )
    assert "read-only GITHUB_TOKEN" in proc.stderr
    assert f"::error file=engine/backend.py,line={CL003_LINE}," in proc.stdout  # the annotations remain
    assert "::warning title=castlint bot::castlint could not comment on the pull request" in proc.stdout


def test_bad_token_is_a_clear_error(pr):
    with serve(pr) as gh:
        proc = run_bot(pr, gh, token="ghs_wrong")
    assert proc.returncode == 2
    assert "HTTP 401: Bad credentials" in proc.stderr
    assert "ghs_wrong" not in proc.stdout + proc.stderr


def test_token_never_appears_in_output(pr):
    """Even when the server echoes it back in an error message, the bot prints *** instead."""
    with serve(pr) as gh:
        gh.queue.append(
            (
                "POST",
                r"/issues/42/comments$",
                422,
                None,
                {"message": f"Validation Failed: token {TOKEN} may not post here"},
            )
        )
        proc = run_bot(pr, gh)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2
    assert TOKEN not in out
    assert "Validation Failed: token *** may not post here" in out


def test_dry_run_posts_nothing(pr):
    with serve(pr) as gh:
        proc = run_bot(pr, gh, "--dry-run")
        assert proc.returncode == 1
        assert "<!-- castlint-bot v1 findings=2 -->" in proc.stdout
        assert all(m == "GET" for m, _, _ in gh.requests())


def test_pull_request_code_is_parsed_never_run(pr):
    """A PR whose code would leave a mark if imported or executed, including modules named like
    castlint's own dependencies at the top of the checkout: the `castlint` command parses only."""
    marker = pr["tmp"] / "pwned"
    payload = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in ("typer.py", "rich.py", "libcst.py", "sitecustomize.py", "conftest.py"):
        (pr["repo"] / name).write_text(payload)
    (pr["repo"] / "engine" / "backend.py").write_text(payload + PR_BACKEND)
    (pr["repo"] / "engine" / "__init__.py").write_text(payload)
    git(pr["repo"], "add", "-A")
    git(pr["repo"], "commit", "-q", "-m", "booby-trapped")
    castlint_command = Path(sys.executable).parent / ("castlint.exe" if os.name == "nt" else "castlint")
    assert castlint_command.exists()
    with serve(pr) as gh:
        proc = run_bot(pr, gh, command=(str(castlint_command),))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CL003" in gh.bot_comments()[0]["body"]
    assert not marker.exists(), marker.read_text()


# -- the client, in process, against the same server ---------------------------------


def test_client_waits_as_told_and_gives_up_past_max_wait(pr):
    waits = []
    with serve(pr) as gh:
        client = GitHubClient(gh.api_url, TOKEN, sleep=waits.append)
        gh.queue.append(("GET", r"/issues/42/comments$", 429, {"retry-after": "7"}, {"message": "slow down"}))
        comments = client.paginate(f"/repos/{REPO}/issues/{PR}/comments")
        assert waits == [7.0] and len(comments) == 3
        gh.queue.append(("GET", r"/issues/42/comments$", 403, {"retry-after": "9999"}, {"message": "slow down"}))
        with pytest.raises(RateLimited, match="exceeds the 300 s"):
            client.get(f"/repos/{REPO}/issues/{PR}/comments")
        assert TOKEN not in repr(client)


def test_client_never_follows_links_to_another_host(pr):
    with serve(pr) as gh:
        client = GitHubClient(gh.api_url, TOKEN, sleep=lambda s: None)
        evil = f"http://localhost:{gh.server.server_address[1]}/api/v3/steal"
        gh.queue.append(("GET", r"/issues/42/comments$", 200, {"Link": f'<{evil}>; rel="next"'}, []))
        with pytest.raises(GitHubError, match="refusing to send the token to another host"):
            client.paginate(f"/repos/{REPO}/issues/{PR}/comments")
        assert not gh.requests("GET", r"/steal$")


# -- the composite action and the documented workflow -----------------------------------


def vendored_schema(name: str) -> dict:
    return json.loads((importlib.resources.files("check_jsonschema.builtin_schemas.vendor") / name).read_text())


def validate(doc, schema):
    cls = jsonschema.validators.validator_for(schema)
    errors = list(cls(schema).iter_errors(doc))
    assert not errors, [e.message for e in errors[:5]]


def test_action_metadata_is_valid():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    validate(action, vendored_schema("github-actions.json"))
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        # inputs reach scripts through env, never pasted into the script (script injection)
        assert "${{" not in step.get("run", "")


def test_documented_workflows_are_valid():
    text = (ROOT / "docs" / "workflows.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    workflows = [yaml.safe_load(b) for b in blocks]
    workflows = [w for w in workflows if isinstance(w, dict) and "jobs" in w]
    assert len(workflows) >= 4
    schema = vendored_schema("github-workflows.json")
    for w in workflows:
        if True in w:  # PyYAML (YAML 1.1) reads the key `on` as True
            w["on"] = w.pop(True)
        validate(w, schema)
        triggers = w["on"] if isinstance(w["on"], (dict, list)) else [w["on"]]
        assert "pull_request_target" not in triggers
        for job in w["jobs"].values():
            for step in job["steps"]:
                if step.get("uses", "").startswith("actions/checkout"):
                    assert step["with"]["persist-credentials"] is False
                    assert "ref" not in step["with"]
    bot = workflows[0]
    assert bot["permissions"] == {"contents": "read", "pull-requests": "write", "checks": "write"}
    assert any(step.get("with", {}).get("mode") == "bot" for step in bot["jobs"]["castlint"]["steps"])


def action_script(mode, tmp_path, paths="", extra=None):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    script = next(s["run"] for s in action["runs"]["steps"] if s.get("id") == "run")
    venv_bin = tmp_path / "runner" / "castlint-venv" / "bin"
    venv_bin.mkdir(parents=True, exist_ok=True)
    (venv_bin / "castlint").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m castlint "$@"\n')
    (venv_bin / "castlint").chmod(0o755)
    output = tmp_path / "github_output"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(
        RUNNER_TEMP=str(tmp_path / "runner"),
        GITHUB_OUTPUT=str(output),
        CASTLINT_MODE=mode,
        CASTLINT_PATHS=paths,
        CASTLINT_DIFF_BASE="",
        CASTLINT_SARIF="out.sarif",
        CASTLINT_EXIT_ZERO="false",
        GITHUB_TOKEN="",
        GITHUB_ACTIONS="true",
        GITHUB_WORKSPACE=str(tmp_path / "ws"),
        **(extra or {}),
    )
    proc = subprocess.run(
        ["bash", "-e", "-c", script], cwd=tmp_path / "ws", env=env, capture_output=True, text=True, timeout=120
    )
    return proc, output


def test_action_script_modes(tmp_path):
    (tmp_path / "ws" / "engine").mkdir(parents=True)
    (tmp_path / "ws" / "engine" / "backend.py").write_text(PR_BACKEND)
    proc, output = action_script("sarif", tmp_path, paths="engine")
    assert proc.returncode == 0, proc.stderr  # SARIF mode leaves the gate to code scanning
    assert output.read_text() == "sarif-file=out.sarif\n"
    sarif = json.loads((tmp_path / "ws" / "out.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"CL001", "CL003"}
    proc, _ = action_script("check", tmp_path, paths="engine/backend.py")
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=engine/backend.py,line=6,")
    proc, _ = action_script("bogus; rm -rf /", tmp_path)
    assert proc.returncode == 2 and "unknown mode" in proc.stdout


def test_whole_file_fix_diff_is_shown_once(tmp_path):
    """The FlashInfer MLA rewrite fixes four findings with one change set: one diff, three references."""
    import io

    from castlint.bot.command import run_bot as bot

    fixtures = ROOT / "fixtures" / "fix"
    target = tmp_path / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    target.parent.mkdir(parents=True)
    target.write_text((fixtures / "mla_backend.in.py").read_text())
    out, err = io.StringIO(), io.StringIO()
    env = {"GITHUB_REPOSITORY": REPO, "GITHUB_WORKSPACE": str(tmp_path), "GITHUB_SHA": "f" * 40}
    status = bot(paths=[str(tmp_path / "srt")], dry_run=True, env=env, out=out, err=err)
    body = out.getvalue()
    assert status == 1, err.getvalue()
    assert "<!-- castlint-bot v1 findings=4 -->" in body
    assert body.count("```diff") == 1
    assert body.count("Fixed by the diff under finding 1") == 3
    assert "GITHUB_TOKEN is not set" not in err.getvalue() and "dry run: nothing was posted" in err.getvalue()


# -- answers that are not what GitHub sends: one clear line, exit 2, never a traceback or a hang ----


def run_bot_in_process(pr, gh):
    """run_bot as the CLI calls it, in this process (fast): (exit status, stdout, stderr)."""
    import io

    from castlint.bot.command import run_bot as run

    event = {
        "number": PR,
        "pull_request": {
            "number": PR,
            "head": {"sha": head(pr), "repo": {"full_name": REPO}},
            "base": {"sha": pr["base"], "repo": {"full_name": REPO}},
        },
    }
    event_path = pr["tmp"] / "event.json"
    event_path.write_text(json.dumps(event))
    env = dict(
        GITHUB_TOKEN=TOKEN,
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_PATH=str(event_path),
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_API_URL=gh.api_url,
        GITHUB_WORKSPACE=str(pr["repo"]),
    )
    out, err = io.StringIO(), io.StringIO()
    status = run(env=env, out=out, err=err, max_wait=5)
    return status, out.getvalue(), err.getvalue()


def test_client_answers_that_are_not_json_are_one_clear_error(pr):
    with serve(pr) as gh:
        client = GitHubClient(gh.api_url, TOKEN, sleep=lambda s: None)
        for method, status, raw in (
            ("GET", 200, b"<html>502 Bad Gateway</html>"),
            ("POST", 201, b'{"id": 1, "ht'),
            ("GET", 200, b"[\xff\xfe]"),
            ("PATCH", 200, b"{" * 100000 + b"}" * 100000),
        ):
            gh.queue.append((method, r"/issues/42/comments$", status, {}, raw))
            with pytest.raises(
                GitHubError,
                match=rf"^GitHub API {method} /api/v3/repos/octo/engine/issues/42/comments: "
                rf"HTTP {status}: the answer is not valid JSON \(\d+ bytes, starting ",
            ):
                client.request(method, f"/repos/{REPO}/issues/{PR}/comments", body={} if method != "GET" else None)


BAD_ANSWERS = {
    "html-200": ("GET", r"/issues/42/comments$", 200, b"<html>502 Bad Gateway</html>", "not valid JSON"),
    "list-of-numbers": ("GET", r"/issues/42/comments$", 200, [1, 2], "expected a list of objects"),
    "comment-is-a-list": ("POST", r"/issues/42/comments$", 201, ["created"], "expected a JSON object"),
    "check-run-is-null": ("POST", r"/check-runs$", 201, b"null", "expected a JSON object"),
    "file-name-not-a-string": (
        "GET",
        r"/pulls/42/files$",
        200,
        [{"filename": 5, "status": "added"}],
        "filename or patch is not a string",
    ),
    "comment-without-id": (
        "GET",
        r"/issues/42/comments$",
        200,
        [{"body": "<!-- castlint-bot v1 -->\nold", "id": "x"}],
        "without an integer id",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_ANSWERS))
def test_malformed_or_wrongly_shaped_answers_are_one_clear_error(pr, case):
    method, pattern, status, answer, message = BAD_ANSWERS[case]
    with serve(pr) as gh:
        gh.queue.append((method, pattern, status, {}, answer))
        code, out, err = run_bot_in_process(pr, gh)
    errors = [line for line in err.splitlines() if "error:" in line]
    assert code == 2, err
    assert len(errors) == 1 and message in errors[0], err
    assert errors[0].startswith("castlint bot: error: GitHub API ")
    assert "Traceback" not in out + err and TOKEN not in out + err


def trickle(h, pause=0.15, seconds=8.0):
    """An answer a byte at a time: every read gets something, the whole never comes."""
    data = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + b" " * 100000
    end = time.monotonic() + seconds
    try:
        for byte in data:
            if time.monotonic() > end:
                break
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
            time.sleep(pause)
    except OSError:
        pass  # the client hung up: what it should do
    h.close_connection = True


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_trickling_server_hits_one_deadline_per_request(pr, where):
    def body_trickle(h):
        h.send_response(200)
        h.send_header("Content-Length", "100000")
        h.end_headers()
        end = time.monotonic() + 8.0
        try:
            while time.monotonic() < end:
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.15)
        except OSError:
            pass

    with serve(pr) as gh:
        client = GitHubClient(gh.api_url, TOKEN, timeout=0.5, max_retries=1, sleep=lambda s: None)
        for _ in range(2):  # the first attempt and its retry
            gh.queue.append(("GET", r"/issues/42/comments$", 200, {}, trickle if where == "headers" else body_trickle))
        start = time.monotonic()
        with pytest.raises(GitHubError, match=r"cannot reach the API: no complete answer within 0.5 s"):
            client.get(f"/repos/{REPO}/issues/{PR}/comments")
        assert time.monotonic() - start < 3.0  # two attempts of 0.5 s, not 8 s of trickle each
        assert client.get(f"/repos/{REPO}/issues/{PR}/comments")  # the client still works afterwards
