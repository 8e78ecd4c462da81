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
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Set, TextIO

from castlint.bot import comment as comment_mod
from castlint.bot.client import GitHubClient, GitHubError, PermissionDenied
from castlint.common.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from castlint.common.paths import display_path
from castlint.config import Config
from castlint.gitdiff import GitDiffError, all_lines, changed_lines, keep_changed

if TYPE_CHECKING:
    from castlint.fixes.edit_set import FindingFix
    from castlint.tables import Tables

ANNOTATION_LEVEL = {"error": "failure", "warning": "warning", "note": "notice"}
FORK_HELP = (
    "Pull requests from forks get a read-only GITHUB_TOKEN, so the report stays in this job log "
    "and its annotations. See docs/workflows.md, 'Pull requests from forks'."
)


class BotError(Exception):
    """Bad input (environment, event): reported as a clear message, exit 2."""


@dataclass
class Context:
    repo: str
    api_url: str
    server_url: str
    token: Optional[str] = field(repr=False)  # never in a repr, an error or a log line
    pr_number: Optional[int]
    head_sha: str
    base_sha: Optional[str]
    event_name: str
    workspace: str


@dataclass
class Output:
    """Where the bot writes; every line is redacted of the token."""

    out: TextIO
    err: TextIO
    secrets: List[str] = field(default_factory=list)

    def redact(self, text: str) -> str:
        """text with the token in any form (as is, stripped, repr, percent-encoded, ...) as ***."""
        from castlint.bot.secrets import redact

        return redact(text, self.secrets)

    def print(self, text: str = "") -> None:
        self.out.write(self.redact(text) + ("" if text.endswith("\n") else "\n"))
        self.out.flush()

    def info(self, text: str) -> None:
        self.err.write(self.redact(f"castlint bot: {text}") + "\n")
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
    pull_request = event.get("pull_request") if isinstance(event, dict) else None
    number = head_sha = base_sha = None
    if isinstance(pull_request, dict):
        number = pull_request.get("number") or event.get("number")
        head = _as_dict(pull_request.get("head"))
        base = _as_dict(pull_request.get("base"))
        head_sha, base_sha = _as_str(head.get("sha")) or None, _as_str(base.get("sha")) or None
        if number is not None and (type(number) is not int or number <= 0):
            raise BotError(
                f"the event file GITHUB_EVENT_PATH={event_path} has a pull request number that is not "
                f"a positive integer ({number!r:.40})"
            )
    return Context(
        repo=repo,
        api_url=(env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
        server_url=(env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
        token=(env.get("GITHUB_TOKEN") or "").strip() or None,  # a token read from a file ends in a newline
        pr_number=int(number) if number else None,
        head_sha=head_sha or env.get("GITHUB_SHA") or "HEAD",
        base_sha=base_sha,
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        workspace=env.get("GITHUB_WORKSPACE") or os.getcwd(),
    )


def pr_changed_lines(client: GitHubClient, ctx: Context) -> Dict[str, Set[int]]:
    """Absolute real path -> added/changed lines, from the PR's files (paginated)."""
    files = client.paginate(f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/files")
    out: Dict[str, Set[int]] = {}
    for item in files:
        name = item.get("filename")
        if not name or item.get("status") == "removed":
            continue
        if not isinstance(name, str) or not isinstance(item.get("patch"), (str, type(None))):
            raise GitHubError(
                0,
                "GET",
                f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/files",
                "unexpected answer: a file entry whose filename or patch is not a string",
            )
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


def _as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _as_str(value) -> str:
    """A string field of an API answer ('' when missing or not a string)."""
    return value if isinstance(value, str) else ""


def _object_id(obj: dict, method: str, path: str) -> int:
    value = obj.get("id")
    if type(value) is not int:
        raise GitHubError(0, method, path, f"unexpected answer: an object without an integer id (id={value!r:.40})")
    return value


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]


@dataclass
class BotOptions:
    """The `castlint bot` command line."""

    paths: List[str]
    diff_base: Optional[str]
    dry_run: bool
    exit_zero: bool
    config_file: Optional[str]
    review: bool
    check_run: bool
    always_comment: bool
    max_wait: float


@dataclass
class CheckedChanges:
    """The check of the pull request's files, kept to the lines it changes (every line when unknown)."""

    findings: list
    errors: list
    files_checked: int
    changed: Optional[Dict[str, Set[int]]]  # real path -> changed lines; None: unknown
    scope: str  # "on the lines this pull request changes" or "in the checked files"
    tables: Tables
    config: Config


class Suggestion(NamedTuple):
    """A GitHub suggestion block for one finding, posted once (key) as a review comment."""

    key: str
    finding: object
    path: str
    first_line: int
    last_line: int
    text: str


@dataclass
class PullRequestReport:
    """What the bot reports: findings with their repo-relative paths and suggested fixes."""

    checked: CheckedChanges
    paths: Dict[int, str]  # finding index -> repo-relative path
    fixes: Dict[int, FindingFix]
    links: comment_mod.Links
    version: str

    def body(self, previous: Optional[int]) -> str:
        """The PR comment (and the step summary)."""
        checked = self.checked
        return comment_mod.render(
            checked.findings,
            checked.errors,
            paths=self.paths,
            links=self.links,
            fixes=self.fixes,
            files_checked=checked.files_checked,
            previous=previous,
            version=self.version,
            scope=checked.scope,
            step_exclude=checked.tables.decode_step_exclude_words,
        )


def run_bot(
    paths: Optional[Sequence[str]] = None,
    diff_base: Optional[str] = None,
    dry_run: bool = False,
    exit_zero: bool = False,
    config_file: Optional[str] = None,
    review: bool = True,
    check_run: bool = True,
    always_comment: bool = False,
    max_wait: float = 300.0,
    env=None,
    out: Optional[TextIO] = None,
    err: Optional[TextIO] = None,
) -> int:
    env = os.environ if env is None else env
    output = Output(out or sys.stdout, err or sys.stderr, secrets=[env.get("GITHUB_TOKEN", "")])
    options = BotOptions(
        paths=list(paths or []),
        diff_base=diff_base,
        dry_run=dry_run,
        exit_zero=exit_zero,
        config_file=config_file,
        review=review,
        check_run=check_run,
        always_comment=always_comment,
        max_wait=max_wait,
    )
    try:
        return _run(output, env, options)
    except (BotError, GitHubError) as exc:
        output.info(f"error: {exc}")
        return EXIT_ERROR


def _run(output: Output, env, options: BotOptions) -> int:
    from castlint import __version__
    from castlint.fixes.edit_set import finding_fixes

    ctx = load_context(env)
    client = None
    if ctx.token:
        client = GitHubClient(
            ctx.api_url, ctx.token, user_agent=f"castlint-bot/{__version__}", max_wait=options.max_wait, log=output.info
        )
    if ctx.pr_number is None:
        output.info(
            f"the event ({ctx.event_name or 'unknown'}) is not a pull request; the report goes to the job log only"
        )
    changed = _changed_lines(ctx, client, options.diff_base, output)
    checked = _check_changes(ctx, options, changed)
    _print_job_log(output, env, checked)
    findings, errors = checked.findings, checked.errors
    report = PullRequestReport(
        checked=checked,
        paths={i: display_path(f.path, ctx.workspace) for i, f in enumerate(findings)},
        fixes=finding_fixes(findings),
        links=comment_mod.Links(ctx.server_url, ctx.repo, ctx.head_sha),
        version=__version__,
    )
    status = EXIT_ERROR if errors else (EXIT_FINDINGS if findings and not options.exit_zero else EXIT_CLEAN)
    _write_step_summary(output, env, report)
    if options.dry_run:
        output.print(report.body(None))
        output.info("dry run: nothing was posted")
        return status
    if client is None:
        output.info("GITHUB_TOKEN is not set: the report is in the job log only")
        return status
    if ctx.pr_number is None:
        return status
    _publish(client, ctx, output, env, options, report)
    return status


def _changed_lines(
    ctx: Context, client: Optional[GitHubClient], diff_base: Optional[str], output: Output
) -> Optional[Dict[str, Set[int]]]:
    """Which lines does the pull request change? None when that cannot be told."""
    if diff_base:
        try:
            return changed_lines(diff_base, ctx.workspace)
        except GitDiffError as exc:
            raise BotError(str(exc)) from None
    if client is not None and ctx.pr_number is not None:
        return pr_changed_lines(client, ctx)
    if ctx.base_sha:
        try:
            return changed_lines(ctx.base_sha, ctx.workspace)
        except GitDiffError as exc:
            output.info(f"cannot tell the changed lines ({exc}); reporting every finding")
    return None


def _check_changes(ctx: Context, options: BotOptions, changed: Optional[Dict[str, Set[int]]]) -> CheckedChanges:
    """Check the changed files (parse only: nothing from the PR is imported or executed)."""
    from castlint.session import CommandLine, FixOptions, Session, SessionError

    targets = list(options.paths)
    if not targets:
        targets = sorted(p for p in (changed or {}) if p.endswith((".py", ".pyi")) and os.path.isfile(p))
        if changed is None:
            targets = [ctx.workspace]
    # one config for the run: the one nearest the first target (or --config)
    try:
        session = Session(
            CommandLine(config_file=options.config_file), targets or [ctx.workspace], trusted=targets, per_file=False
        )
        config, tables = session.settings()
        # the PR's changed files are named one by one, as pre-commit names them: exclude and
        # .gitignore still apply to them (ruff's --force-exclude)
        edits = FixOptions(dry_run=True)  # the fixes' edits: suggestions and diffs
        outcome = session.check(targets, force_exclude=changed is not None, edits=edits) if targets else None
    except SessionError as exc:
        raise BotError(str(exc)) from None
    files, findings = (outcome.files, outcome.findings) if outcome is not None else ([], [])
    if changed is not None:
        findings = keep_changed(findings, changed)
    errors = outcome.errors() if outcome is not None else []
    scope = "on the lines this pull request changes" if changed is not None else "in the checked files"
    return CheckedChanges(findings, errors, len(files), changed, scope, tables, config)


def _print_job_log(output: Output, env, checked: CheckedChanges) -> None:
    """The job log: annotations under Actions, plain lines elsewhere."""
    from castlint.report import github as github_format
    from castlint.report import text as text_format

    meta = {"files": checked.files_checked, "step_total_exclude": checked.tables.decode_step_exclude_words}
    if env.get("GITHUB_ACTIONS") == "true":
        output.print(github_format.render(checked.findings, checked.errors, meta))
    else:
        output.print(text_format.render(checked.findings, checked.errors, meta, quiet=True))


def _write_step_summary(output: Output, env, report: PullRequestReport) -> None:
    summary_path = env.get("GITHUB_STEP_SUMMARY")
    if not summary_path:
        return
    try:
        with open(summary_path, "a", encoding="utf-8") as fh:
            fh.write(output.redact(report.body(None)) + "\n")
    except OSError as exc:
        output.info(f"cannot write the step summary: {exc}")


def _publish(
    client: GitHubClient, ctx: Context, output: Output, env, options: BotOptions, report: PullRequestReport
) -> None:
    """The PR comment (edited in place), suggestion blocks as review comments, a check run."""
    from castlint.report import github as github_format

    checked = report.checked
    writable = True
    try:
        _upsert_comment(
            client,
            ctx,
            output,
            report.body,
            clean=not checked.findings and not checked.errors,
            always=options.always_comment,
        )
    except PermissionDenied as exc:
        writable = False
        why = f"HTTP {exc.status}: {exc.api_message}"
        output.info(f"the token cannot comment on this pull request ({why}). " + FORK_HELP)
        if env.get("GITHUB_ACTIONS") == "true":
            output.print(
                github_format.command(
                    "warning",
                    f"castlint could not comment on the pull request ({why}). " + FORK_HELP,
                    title="castlint bot",
                )
            )
    if writable and options.review:
        _post_review(client, ctx, output, _review_suggestions(report))
    if options.check_run and writable:
        try:
            _check_run(client, ctx, output, report, options.exit_zero)
        except PermissionDenied as exc:
            output.info(
                f"the token may not create check runs (HTTP {exc.status}: {exc.api_message}); "
                "annotations are in the job log only (grant `checks: write` for check-run annotations)"
            )


def _review_suggestions(report: PullRequestReport) -> List[Suggestion]:
    """A suggestion block for each fix of one block that lies on lines of the diff."""
    from castlint.bot.suggestions import github_suggestion

    changed = report.checked.changed
    suggestions = []
    for i, f in enumerate(report.checked.findings):
        fix = report.fixes.get(i)
        if fix is None or fix.whole_file or len(fix.blocks) != 1:
            continue
        shaped = github_suggestion(fix.blocks[0], fix.old_lines)
        if shaped is None:
            continue
        first, last, text = shaped
        lines_changed = (changed or {}).get(os.path.realpath(f.path))
        if changed is not None and not (lines_changed and all(n in lines_changed for n in range(first, last + 1))):
            continue  # GitHub accepts review comments only on lines of the diff
        path = report.paths[i]
        key = _fingerprint(path, f.code, "".join(fix.blocks[0].old_lines), text)
        suggestions.append(Suggestion(key, f, path, first, last, text))
    return suggestions


def _post_review(client: GitHubClient, ctx: Context, output: Output, suggestions: List[Suggestion]) -> None:
    if not suggestions:
        return
    try:
        _post_suggestions(client, ctx, output, suggestions)
    except PermissionDenied as exc:
        output.info(f"cannot post suggestions as review comments (HTTP {exc.status}: {exc.api_message})")
    except GitHubError as exc:
        if exc.status != 422:
            raise
        output.info(f"GitHub refused the review comments (422: {exc.api_message}); the diffs are in the comment")


def _upsert_comment(client: GitHubClient, ctx: Context, output: Output, body_for, clean: bool, always: bool) -> None:
    comments = client.paginate(f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments")
    ours = [c for c in comments if comment_mod.is_ours(_as_str(c.get("body")))]
    if not ours:
        if clean and not always:
            output.info("clean, and no earlier castlint comment: nothing posted")
            return
        created = client.post_dict(f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments", {"body": body_for(None)})
        output.info(f"posted the castlint comment: {_as_str(created.get('html_url'))}")
        return
    target = ours[0]
    previous = comment_mod.previous_count(_as_str(target.get("body")))
    body = body_for(previous if clean else None)
    if target.get("body") == body:
        output.info(f"the castlint comment is up to date: {_as_str(target.get('html_url'))}")
        return
    comment_id = _object_id(target, "GET", f"/repos/{ctx.repo}/issues/{ctx.pr_number}/comments")
    client.patch(f"/repos/{ctx.repo}/issues/comments/{comment_id}", {"body": body})
    output.info(f"updated the castlint comment{' (clean)' if clean else ''}: {_as_str(target.get('html_url'))}")


def _post_suggestions(client: GitHubClient, ctx: Context, output: Output, suggestions: List[Suggestion]) -> None:
    existing = client.paginate(f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/comments")
    posted = {
        _as_str(c.get("body")).split(" -->", 1)[0][len(comment_mod.SUGGESTION_MARKER) :]
        for c in existing
        if _as_str(c.get("body")).startswith(comment_mod.SUGGESTION_MARKER)
    }
    comments = []
    for suggestion in suggestions:
        if suggestion.key in posted:
            continue
        item = {
            "path": suggestion.path,
            "line": suggestion.last_line,
            "side": "RIGHT",
            "body": comment_mod.suggestion_body(suggestion.finding, suggestion.path, suggestion.text, suggestion.key),
        }
        if suggestion.first_line != suggestion.last_line:
            item.update(start_line=suggestion.first_line, start_side="RIGHT")
        comments.append(item)
    if not comments:
        output.info("suggested fixes are already on the pull request")
        return
    client.post(
        f"/repos/{ctx.repo}/pulls/{ctx.pr_number}/reviews",
        {
            "commit_id": ctx.head_sha,
            "event": "COMMENT",
            "body": f"castlint suggests {len(comments)} fix{'es' if len(comments) != 1 else ''} "
            "(each is bit-identical; commit them from here or run `castlint fix`).",
            "comments": comments,
        },
    )
    output.info(f"posted {len(comments)} suggested fix{'es' if len(comments) != 1 else ''} as review comments")


def _annotations(ctx: Context, report: PullRequestReport) -> List[dict]:
    """Check-run annotations: one per finding (with its fix's diff), one per file that could not be checked."""
    annotations = []
    for i, f in enumerate(report.checked.findings):
        path = report.paths[i]
        annotation = {
            "path": path,
            "start_line": f.start.line,
            "end_line": max(f.end.line, f.start.line),
            "annotation_level": ANNOTATION_LEVEL[f.severity.value],
            "title": f"castlint ({f.code} {f.name})",
            "message": f.message[:64000],
        }
        if f.start.line == f.end.line:
            annotation.update(start_column=f.start.column, end_column=max(f.end.column, f.start.column))
        fix = report.fixes.get(i)
        if fix is not None:
            annotation["raw_details"] = fix.unified_diff(path)[:64000]
        annotations.append(annotation)
    for e in report.checked.errors:
        annotations.append(
            {
                "path": display_path(e.path, ctx.workspace),
                "start_line": max(e.line, 1),
                "end_line": max(e.line, 1),
                "annotation_level": "failure",
                "title": f"castlint ({e.kind} error)",
                "message": e.message[:64000],
            }
        )
    return annotations


def _check_run(client: GitHubClient, ctx: Context, output: Output, report: PullRequestReport, exit_zero: bool) -> None:
    findings, errors = report.checked.findings, report.checked.errors
    annotations = _annotations(ctx, report)
    if errors:
        conclusion = "failure"
    elif findings:
        conclusion = "neutral" if exit_zero else "failure"
    else:
        conclusion = "success"
    title = (
        f"{len(findings)} finding{'s' if len(findings) != 1 else ''} on changed lines"
        if findings
        else ("files could not be checked" if errors else "clean")
    )
    summary = f"castlint checked the lines this pull request changes: {title}."
    batches = [annotations[k : k + 50] for k in range(0, len(annotations), 50)] or [[]]
    created = client.post_dict(
        f"/repos/{ctx.repo}/check-runs",
        {
            "name": "castlint",
            "head_sha": ctx.head_sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": {"title": title, "summary": summary, "annotations": batches[0]},
        },
    )
    run_id = _object_id(created, "POST", f"/repos/{ctx.repo}/check-runs") if len(batches) > 1 else None
    for batch in batches[1:]:  # the API takes 50 annotations per request
        client.patch(
            f"/repos/{ctx.repo}/check-runs/{run_id}",
            {"output": {"title": title, "summary": summary, "annotations": batch}},
        )
    output.info(f"check run '{title}' with {len(annotations)} annotation{'s' if len(annotations) != 1 else ''}")
