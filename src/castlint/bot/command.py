"""`castlint bot`: check a pull request's changed lines and report on the PR.

Inside a CI job on a `pull_request` event it:
1. reads GITHUB_REPOSITORY, GITHUB_EVENT_PATH (the PR number and head sha),
   GITHUB_API_URL/GITHUB_SERVER_URL (GitHub Enterprise works) and GITHUB_TOKEN;
2. lists the PR's files through the API (paginated), or uses git with --diff-base,
   to learn which lines the PR adds or changes;
3. checks the changed Python files (castlint parses them with libcst and never
   imports or runs them) and keeps the findings on those lines;
4. prints the report to the job log (as workflow-command annotations under
   GitHub Actions) and to the step summary;
5. creates or edits its one PR comment (a hidden marker finds it again), posts
   GitHub suggestion blocks for fixable findings as review comments (once per
   suggestion), and creates a check run with annotations when the token may.

With a read-only token (pull requests from forks) the writes fail with 403;
the bot says so plainly and the job log and annotations remain. The token is
never printed: every line the bot writes passes through a redactor.

Exit status: 0 clean, 1 findings on changed lines (unless --exit-zero), 2 when
castlint could not do its job (bad input, files that cannot be checked, the
API failing after retries).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, TextIO

from castlint.bot import comment as comment_mod
from castlint.bot.client import GitHubClient, GitHubError, PermissionDenied
from castlint.gitdiff import GitDiffError, all_lines, changed_lines, keep_changed

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
LEVEL = {"error": "failure", "warning": "warning", "note": "notice"}
FORK_HELP = ("Pull requests from forks get a read-only GITHUB_TOKEN, so the report stays in this job log "
             "and its annotations. See docs/workflows.md, 'Pull requests from forks'.")


class BotError(Exception):
    """Bad input (environment, event): reported as a clear message, exit 2."""


@dataclass
class Context:
    repo: str
    api_url: str
    server_url: str
    token: Optional[str]
    pr_number: Optional[int]
    head_sha: str
    base_sha: Optional[str]
    head_repo: Optional[str]
    event_name: str
    workspace: str

    @property
    def from_fork(self) -> bool:
        return bool(self.head_repo) and self.head_repo != self.repo


@dataclass
class Output:
    """Where the bot writes; every line is redacted of the token."""

    out: TextIO
    err: TextIO
    secrets: List[str] = field(default_factory=list)

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, "***")
        return text

    def print(self, text: str = "") -> None:
        self.out.write(self._clean(text) + ("" if text.endswith("\n") else "\n"))
        self.out.flush()

    def info(self, text: str) -> None:
        self.err.write(self._clean(f"castlint bot: {text}") + "\n")
        self.err.flush()


def load_context(env) -> Context:
    repo = env.get("GITHUB_REPOSITORY", "")
    if not repo or repo.count("/") != 1:
        raise BotError("GITHUB_REPOSITORY must be set to owner/name (GitHub Actions sets it)")
    event_path = env.get("GITHUB_EVENT_PATH")
    event: dict = {}
    if event_path:
        try:
            with open(event_path, encoding="utf-8") as fh:
                event = json.load(fh)
        except (OSError, ValueError) as exc:
            raise BotError(f"cannot read the event file GITHUB_EVENT_PATH={event_path}: {exc}") from None
    pr = event.get("pull_request") if isinstance(event, dict) else None
    number = head_sha = base_sha = head_repo = None
    if isinstance(pr, dict):
        number = pr.get("number") or event.get("number")
        head = _obj(pr.get("head"))
        base = _obj(pr.get("base"))
        head_sha, base_sha = _text(head.get("sha")) or None, _text(base.get("sha")) or None
        head_repo = _text(_obj(head.get("repo")).get("full_name")) or None
        if number is not None and (type(number) is not int or number <= 0):
            raise BotError(f"the event file GITHUB_EVENT_PATH={event_path} has a pull request number that is not "
                           f"a positive integer ({number!r:.40})")
    return Context(
        repo=repo,
        api_url=(env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
        server_url=(env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
        token=env.get("GITHUB_TOKEN") or None,
        pr_number=int(number) if number else None,
        head_sha=head_sha or env.get("GITHUB_SHA") or "HEAD",
        base_sha=base_sha,
        head_repo=head_repo,
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        workspace=env.get("GITHUB_WORKSPACE") or os.getcwd(),
    )


def _rel(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return rel.replace(os.sep, "/")


def pr_changed_lines(client: GitHubClient, ctx: Context) -> Dict[str, Set[int]]:
    """Absolute real path -> added/changed lines, from the PR's files (paginated)."""
    files = client.paginate(f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/files")
    out: Dict[str, Set[int]] = {}
    for item in files:
        name = item.get("filename")
        if not name or item.get("status") == "removed":
            continue
        if not isinstance(name, str) or not isinstance(item.get("patch"), (str, type(None))):
            raise GitHubError(0, "GET", f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/files",
                              "unexpected answer: a file entry whose filename or patch is not a string")
        full = os.path.realpath(os.path.join(ctx.workspace, name))
        if not full.startswith(os.path.realpath(ctx.workspace) + os.sep):
            continue  # a path that escapes the workspace is not ours to read
        patch = item.get("patch")
        if patch is None:  # binary, or too large for the API to show: every line counts as changed
            out[full] = all_lines(full)
        else:
            out[full] = _added_lines(patch)
    return out


def _added_lines(patch: str) -> Set[int]:
    added: Set[int] = set()
    new_line = 0
    for raw in patch.split("\n"):
        if raw.startswith("@@"):
            try:
                new_line = int(raw.split("+", 1)[1].split(" ", 1)[0].split(",", 1)[0])
            except (IndexError, ValueError):
                new_line = 0
        elif raw.startswith("+"):
            added.add(new_line)
            new_line += 1
        elif raw.startswith("-") or raw.startswith("\\"):
            continue
        else:
            new_line += 1
    return added


def _obj(value) -> dict:
    return value if isinstance(value, dict) else {}


def _text(value) -> str:
    """A string field of an API answer ('' when missing or not a string)."""
    return value if isinstance(value, str) else ""


def _id(obj: dict, method: str, path: str) -> int:
    value = obj.get("id")
    if type(value) is not int:
        raise GitHubError(0, method, path, f"unexpected answer: an object without an integer id (id={value!r:.40})")
    return value


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def run_bot(paths: Optional[Sequence[str]] = None, diff_base: Optional[str] = None, dry_run: bool = False,
            exit_zero: bool = False, config_file: Optional[str] = None, review: bool = True,
            check_run: bool = True, always_comment: bool = False, max_wait: float = 300.0,
            env=None, out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    env = os.environ if env is None else env
    io = Output(out or sys.stdout, err or sys.stderr, secrets=[env.get("GITHUB_TOKEN", "")])
    try:
        return _run(io, env, paths, diff_base, dry_run, exit_zero, config_file, review, check_run,
                    always_comment, max_wait)
    except BotError as exc:
        io.info(f"error: {exc}")
        return EXIT_ERROR
    except GitHubError as exc:
        io.info(f"error: {exc}")
        return EXIT_ERROR


def _run(io: Output, env, paths, diff_base, dry_run, exit_zero, config_file, review, check_run,
         always_comment, max_wait) -> int:
    from castlint import __version__
    from castlint.bot.suggestions import fixes_for, github_suggestion
    from castlint.config import ConfigError, load_config
    from castlint.discover import discover
    from castlint.engine import check_paths
    from castlint.report import github as github_format
    from castlint.tables import TableError, load_tables

    ctx = load_context(env)
    client = None
    if ctx.token:
        client = GitHubClient(ctx.api_url, ctx.token, user_agent=f"castlint-bot/{__version__}",
                              max_wait=max_wait, log=io.info)
    if ctx.pr_number is None:
        io.info(f"the event ({ctx.event_name or 'unknown'}) is not a pull request; "
                "the report goes to the job log only")

    # 1. Which lines does the pull request change?
    changed: Optional[Dict[str, Set[int]]] = None
    scope = "on the lines this pull request changes"
    if diff_base:
        try:
            changed = changed_lines(diff_base, ctx.workspace)
        except GitDiffError as exc:
            raise BotError(str(exc)) from None
    elif client is not None and ctx.pr_number is not None:
        changed = pr_changed_lines(client, ctx)
    elif ctx.base_sha:
        try:
            changed = changed_lines(ctx.base_sha, ctx.workspace)
        except GitDiffError as exc:
            io.info(f"cannot tell the changed lines ({exc}); reporting every finding")
    if changed is None:
        scope = "in the checked files"

    # 2. Check (parse only: nothing from the PR is imported or executed).
    targets = list(paths or [])
    if not targets:
        targets = sorted(p for p in (changed or {}) if p.endswith((".py", ".pyi")) and os.path.isfile(p))
        if changed is None:
            targets = [ctx.workspace]
    try:
        config = load_config(targets or [ctx.workspace], Path(config_file) if config_file else None)
        tables = load_tables(config.extend_rules)
        config.cost_model(tables)
    except (ConfigError, TableError) as exc:
        raise BotError(str(exc)) from None
    files, walk_errors = discover(targets, config) if targets else ([], [])
    run = check_paths(files, tables, config)
    findings = run.findings
    if changed is not None:
        findings = keep_changed(findings, changed)
    errors = sorted(list(walk_errors) + list(run.all_errors), key=lambda e: (e.path, e.line))
    meta = {"files": len(files), "config": config, "tables": tables,
            "step_total_exclude": tables.decode_step_exclude_words}

    # 3. The job log: annotations under Actions, plain lines elsewhere.
    from castlint.report import text as text_format
    log = github_format.render(findings, errors, meta) if env.get("GITHUB_ACTIONS") == "true" \
        else text_format.render(findings, errors, meta, quiet=True)
    io.print(log)

    fixes = fixes_for(findings, meta)
    rel_paths = {i: _rel(f.path, ctx.workspace) for i, f in enumerate(findings)}
    links = comment_mod.Links(ctx.server_url, ctx.repo, ctx.head_sha)
    status = EXIT_ERROR if errors else (EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN)

    def body_for(previous: Optional[int], note: str = "") -> str:
        return comment_mod.render(findings, errors, paths=rel_paths, links=links, fixes=fixes,
                                  files_checked=len(files), previous=previous, version=__version__,
                                  scope=scope, note=note, step_exclude=tables.decode_step_exclude_words)

    summary_path = env.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        try:
            with open(summary_path, "a", encoding="utf-8") as fh:
                fh.write(io._clean(body_for(None)) + "\n")
        except OSError as exc:
            io.info(f"cannot write the step summary: {exc}")

    if dry_run:
        io.print(body_for(None))
        io.info("dry run: nothing was posted")
        return status
    if client is None:
        io.info("GITHUB_TOKEN is not set: the report is in the job log only")
        return status
    if ctx.pr_number is None:
        return status

    # 4. The PR comment, edited in place.
    writable = True
    try:
        _upsert_comment(client, ctx, io, body_for, clean=not findings and not errors, always=always_comment)
    except PermissionDenied as exc:
        writable = False
        why = f"HTTP {exc.status}: {exc.api_message}"
        io.info(f"the token cannot comment on this pull request ({why}). " + FORK_HELP)
        if env.get("GITHUB_ACTIONS") == "true":
            io.print(github_format.command("warning", f"castlint could not comment on the pull request ({why}). "
                                           + FORK_HELP, title="castlint bot"))

    # 5. Suggestion blocks as review comments, once each.
    if writable and review:
        suggestions = []
        for i, f in enumerate(findings):
            fix = fixes.get(i)
            if fix is None or fix.whole_file or len(fix.blocks) != 1:
                continue
            got = github_suggestion(fix.blocks[0], fix.old_text)
            if got is None:
                continue
            first, last, text = got
            lines_changed = (changed or {}).get(os.path.realpath(f.path))
            if changed is not None and not (lines_changed and all(n in lines_changed for n in range(first, last + 1))):
                continue  # GitHub accepts review comments only on lines of the diff
            key = _fingerprint(rel_paths[i], f.code, "".join(fix.blocks[0].old_lines), text)
            suggestions.append((key, f, rel_paths[i], first, last, text))
        if suggestions:
            try:
                _post_suggestions(client, ctx, io, suggestions)
            except PermissionDenied as exc:
                io.info(f"cannot post suggestions as review comments (HTTP {exc.status}: {exc.api_message})")
            except GitHubError as exc:
                if exc.status != 422:
                    raise
                io.info(f"GitHub refused the review comments (422: {exc.api_message}); the diffs are in the comment")

    # 6. A check run with annotations.
    if check_run and writable:
        try:
            _check_run(client, ctx, io, findings, errors, rel_paths, fixes, exit_zero)
        except PermissionDenied as exc:
            io.info(f"the token may not create check runs (HTTP {exc.status}: {exc.api_message}); "
                    "annotations are in the job log only (grant `checks: write` for check-run annotations)")
    return status


def _upsert_comment(client: GitHubClient, ctx: Context, io: Output, body_for, clean: bool, always: bool) -> None:
    comments = client.paginate(f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments")
    ours = [c for c in comments if comment_mod.is_ours(_text(c.get("body")))]
    if not ours:
        if clean and not always:
            io.info("clean, and no earlier castlint comment: nothing posted")
            return
        created = client.post_dict(f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments", {"body": body_for(None)})
        io.info(f"posted the castlint comment: {_text(created.get('html_url'))}")
        return
    target = ours[0]
    previous = comment_mod.previous_count(_text(target.get("body")))
    body = body_for(previous if clean else None)
    if target.get("body") == body:
        io.info(f"the castlint comment is up to date: {_text(target.get('html_url'))}")
        return
    comment_id = _id(target, "GET", f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments")
    client.patch(f"/repos/{ctx.repo}/issues/comments/{comment_id}", {"body": body})
    io.info(f"updated the castlint comment{' (clean)' if clean else ''}: {_text(target.get('html_url'))}")


def _post_suggestions(client: GitHubClient, ctx: Context, io: Output, suggestions) -> None:
    existing = client.paginate(f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/comments")
    posted = {_text(c.get("body")).split(" -->", 1)[0][len(comment_mod.SUGGESTION_MARKER):]
              for c in existing if _text(c.get("body")).startswith(comment_mod.SUGGESTION_MARKER)}
    comments = []
    for key, f, path, first, last, text in suggestions:
        if key in posted:
            continue
        item = {"path": path, "line": last, "side": "RIGHT",
                "body": comment_mod.suggestion_body(f, path, text, key)}
        if first != last:
            item.update(start_line=first, start_side="RIGHT")
        comments.append(item)
    if not comments:
        io.info("suggested fixes are already on the pull request")
        return
    client.post(f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/reviews", {
        "commit_id": ctx.head_sha, "event": "COMMENT",
        "body": f"castlint suggests {len(comments)} fix{'es' if len(comments) != 1 else ''} "
                "(each is bit-identical; commit them from here or run `castlint fix`).",
        "comments": comments,
    })
    io.info(f"posted {len(comments)} suggested fix{'es' if len(comments) != 1 else ''} as review comments")


def _check_run(client: GitHubClient, ctx: Context, io: Output, findings, errors, rel_paths, fixes, exit_zero) -> None:
    annotations = []
    for i, f in enumerate(findings):
        a = {"path": rel_paths[i], "start_line": f.start.line, "end_line": max(f.end.line, f.start.line),
             "annotation_level": LEVEL[f.severity.value], "title": f"castlint ({f.code} {f.name})",
             "message": f.message[:64000]}
        if f.start.line == f.end.line:
            a.update(start_column=f.start.column, end_column=max(f.end.column, f.start.column))
        fix = fixes.get(i)
        if fix is not None:
            a["raw_details"] = fix.unified_diff(rel_paths[i])[:64000]
        annotations.append(a)
    for e in errors:
        annotations.append({"path": _rel(e.path, ctx.workspace), "start_line": max(e.line, 1),
                            "end_line": max(e.line, 1), "annotation_level": "failure",
                            "title": f"castlint ({e.kind} error)", "message": e.message[:64000]})
    if errors:
        conclusion = "failure"
    elif findings:
        conclusion = "neutral" if exit_zero else "failure"
    else:
        conclusion = "success"
    title = (f"{len(findings)} finding{'s' if len(findings) != 1 else ''} on changed lines" if findings
             else ("files could not be checked" if errors else "clean"))
    summary = f"castlint checked the lines this pull request changes: {title}."
    batches = [annotations[k:k + 50] for k in range(0, len(annotations), 50)] or [[]]
    created = client.post_dict(f"/repos/{ctx.repo}/check-runs", {
        "name": "castlint", "head_sha": ctx.head_sha, "status": "completed", "conclusion": conclusion,
        "output": {"title": title, "summary": summary, "annotations": batches[0]},
    })
    run_id = _id(created, "POST", f"/repos/{ctx.repo}/check-runs") if len(batches) > 1 else None
    for batch in batches[1:]:  # the API takes 50 annotations per request
        client.patch(f"/repos/{ctx.repo}/check-runs/{run_id}",
                     {"output": {"title": title, "summary": summary, "annotations": batch}})
    io.info(f"check run '{title}' with {len(annotations)} annotation{'s' if len(annotations) != 1 else ''}")
