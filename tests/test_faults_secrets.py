"""Hostile input: no secret reaches an output, no write leaves the tree, no control byte
reaches a terminal.

- the bot's token, in every form a message can carry it (a trailing newline, repr,
  percent-encoding, JSON, base64, http.client's own messages);
- an extend-rules table outside the tree: its errors name the setting, never its content;
- `--add-noqa` through a symlink that leaves the tree: refused, as `fix` refuses it;
- ESC, CR, LF and other controls in file names, code frames and cached messages are
  spelled out in every text output, so nothing can recolour the terminal or forge a line.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from pathlib import Path

import pytest

from castlint.bot.client import GitHubClient, GitHubError
from castlint.bot.command import Context
from castlint.bot.secrets import redact, secret_forms
from conftest import run_castlint
from test_bot import PR, REPO, TOKEN, head, pr, serve  # noqa: F401 - pr is a fixture

GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"


# -- the token ------------------------------------------------------------------------------


def _forms(token: str) -> dict:
    raw = token.encode()
    return {
        "as is": token,
        "stripped": token.strip(),
        "repr": repr(token),
        "bytes repr": repr(b"Bearer " + raw),
        "json": json.dumps({"t": token}),
        "percent": urllib.parse.quote(token, safe=""),
        "plus": urllib.parse.quote_plus(token),
        "base64": base64.b64encode(raw.strip()).decode(),
        "basic auth": base64.b64encode(b"x-access-token:" + raw.strip()).decode(),
    }


@pytest.mark.parametrize("suffix", ["", "\n", "\r\n", "  \t\n"], ids=["plain", "newline", "crlf", "whitespace"])
def test_every_form_of_the_token_is_redacted(suffix):
    token = TOKEN + suffix
    for name, form in _forms(token).items():
        text = redact(f"error: header {form} refused", [token])
        assert TOKEN not in text and token.strip() not in text, (name, text)
        assert "***" in text, name


def test_a_token_over_several_lines_is_redacted_line_by_line():
    token = "ghp_firstHalfOfAToken\nsecondHalfOfTheToken"
    text = redact("got ghp_firstHalfOfAToken then secondHalfOfTheToken", [token])
    assert "firstHalf" not in text and "secondHalf" not in text
    assert all(len(f) >= 4 for f in secret_forms(token))
    assert redact("a b c", [""]) == "a b c" and redact("x", ["ab"]) == "x"  # nothing to hide, nothing hidden


def test_the_token_is_in_no_repr():
    ctx = Context(
        repo=REPO,
        api_url="https://api.github.com",
        server_url="https://github.com",
        token=TOKEN,
        pr_number=1,
        head_sha="h",
        base_sha=None,
        event_name="pull_request",
        workspace=".",
    )
    assert TOKEN not in repr(ctx)
    assert TOKEN not in repr(GitHubClient("https://api.github.com", TOKEN))


def test_http_client_messages_are_scrubbed(monkeypatch):
    """http.client refuses a header with a line break and shows it in repr form; whatever an
    exchange raises, the GitHubError that leaves the client carries no form of the token."""
    client = GitHubClient("https://api.example.com", TOKEN, sleep=lambda s: None, max_retries=1)
    said = []
    client._log = said.append

    def refuse(req, deadline):
        value = req.get_header("Authorization").encode() + b"\n"
        raise ValueError(f"Invalid header value {value!r}; {urllib.parse.quote(TOKEN)}")

    monkeypatch.setattr(client, "_exchange", refuse)
    with pytest.raises(GitHubError) as info:
        client.get("/repos/o/r")
    text = str(info.value) + info.value.api_message + " ".join(said)
    assert "Invalid header value" in text and "***" in text
    assert TOKEN not in text and urllib.parse.quote(TOKEN) not in text


def test_a_token_with_a_line_break_inside_is_never_sent():
    client = GitHubClient("https://api.example.com", "ghs_abcdefgh\nijklmnop", sleep=lambda s: None)
    with pytest.raises(GitHubError, match="the token holds a line break") as info:
        client.get("/repos/o/r")
    assert "abcdefgh" not in str(info.value) and "ijklmnop" not in str(info.value)


def _bot(repo, gh, token: str):
    import io

    from castlint.bot.command import run_bot

    event = {
        "number": PR,
        "pull_request": {
            "number": PR,
            "head": {"sha": head(repo), "repo": {"full_name": REPO}},
            "base": {"sha": repo["base"], "repo": {"full_name": REPO}},
        },
    }
    event_path = repo["tmp"] / "event.json"
    event_path.write_text(json.dumps(event))
    env = dict(
        GITHUB_TOKEN=token,
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_PATH=str(event_path),
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_API_URL=gh.api_url,
        GITHUB_WORKSPACE=str(repo["repo"]),
    )
    out, err = io.StringIO(), io.StringIO()
    status = run_bot(env=env, out=out, err=err, max_wait=5)
    return status, out.getvalue() + err.getvalue()


def test_a_token_read_from_a_file_works_and_is_never_printed(pr):  # noqa: F811 - the fixture
    """GITHUB_TOKEN with a trailing newline (read from a file): the bot strips it, and when
    the server echoes the token back in any form, the job log shows *** instead."""
    token = TOKEN + "\n"
    with serve(pr) as gh:
        echoed = "; ".join(_forms(token).values())
        gh.queue.append(("POST", r"/issues/42/comments$", 422, None, {"message": f"Validation Failed: {echoed}"}))
        status, text = _bot(pr, gh, token)
    assert status == 2 and "Validation Failed: ***" in text, text
    for name, form in _forms(token).items():
        assert form.strip() not in text, name
    assert TOKEN not in text


# -- extend-rules outside the tree ------------------------------------------------------------

SECRET = "hunter2-SECRET-VALUE"
SECRET_TABLE = f'schema = 1\n[[accessor]]\nname = "get_x"\nreturns = "{SECRET}"\n'


def _outside_tree(tmp_path: Path, rules_entry: str, table: str = SECRET_TABLE) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "secret.toml").write_text(table)
    (tree / "pyproject.toml").write_text(f'[tool.castlint]\nextend-rules = ["{rules_entry}"]\n')
    (tree / "a.py").write_text(GOOD)
    return tree


@pytest.mark.parametrize("where", ["relative", "absolute", "symlink"])
@pytest.mark.parametrize("table", ["bad value", "unknown key", "bad TOML", "nested"])
def test_an_outside_rule_table_is_never_quoted(tmp_path, where, table):
    text = {
        "bad value": SECRET_TABLE,
        "unknown key": f"schema = 1\n{SECRET} = 1\n",
        "bad TOML": f"{SECRET} = = {SECRET}\n",
        "nested": f"{SECRET} = " + "[" * 50_000 + "]" * 50_000 + "\n",
    }[table]
    entry = {"relative": "../secret.toml", "absolute": str(tmp_path / "secret.toml"), "symlink": "rules.toml"}[where]
    tree = _outside_tree(tmp_path, entry, text)
    if where == "symlink":  # a link inside the tree to a file outside it is outside too
        (tree / "rules.toml").symlink_to(tmp_path / "secret.toml")
    for command in (("check", tree), ("check", "--show-settings", tree), ("fix", "--diff", tree)):
        proc = run_castlint(*command, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert SECRET not in proc.stdout + proc.stderr, proc.stderr
        assert "RecursionError" not in proc.stderr and "Traceback" not in proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1, proc.stderr
        assert "pyproject.toml: extend-rules: the rule table" in lines[0] and "is outside the checked tree" in lines[0]


def test_an_outside_rule_table_that_is_valid_is_used(tmp_path):
    tree = _outside_tree(tmp_path, "../secret.toml", 'schema = 1\n[[accessor]]\nname = "get_x"\nreturns = "tensor"\n')
    proc = run_castlint("check", "-q", tree, cwd=tmp_path)
    assert proc.returncode == 1 and "CL001" in proc.stdout


def test_a_rule_table_inside_the_tree_still_says_what_is_wrong(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "rules.toml").write_text(SECRET_TABLE)
    (tree / "pyproject.toml").write_text('[tool.castlint]\nextend-rules = ["rules.toml"]\n')
    proc = run_castlint("check", tree, cwd=tmp_path)
    assert proc.returncode == 2 and f"got '{SECRET}'" in proc.stderr  # the project's own file: the value helps
    (tree / "rules.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    proc = run_castlint("check", tree, cwd=tmp_path)
    assert proc.returncode == 2 and "rules.toml: invalid TOML: nested too deeply to read" in proc.stderr


def test_a_config_nested_too_deeply_names_its_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.castlint]\na = " + "[" * 50_000 + "]" * 50_000 + "\n")
    (tmp_path / "a.py").write_text(GOOD)
    proc = run_castlint("check", tmp_path, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'pyproject.toml'}: invalid TOML: nested too deeply to read"
    ]


# -- --add-noqa and symlinks out of the tree ------------------------------------------------


def test_add_noqa_does_not_write_through_a_symlink_out_of_the_tree(tmp_path):
    tree, elsewhere = tmp_path / "tree", tmp_path / "elsewhere"
    tree.mkdir()
    elsewhere.mkdir()
    (elsewhere / "shared.py").write_text(GOOD)
    (tree / "link.py").symlink_to(elsewhere / "shared.py")
    (tree / "own.py").write_text(GOOD)
    (tree / "inside.py").symlink_to(tree / "own.py")  # within the tree: written through
    proc = run_castlint("check", "--add-noqa", "--no-cache", "tree", cwd=tmp_path)
    assert (elsewhere / "shared.py").read_text() == GOOD
    assert (
        f"tree/link.py: not written: a symlink to {elsewhere / 'shared.py'}, outside the checked paths" in proc.stderr
    )
    assert "# noqa: CL001" in (tree / "own.py").read_text()
    assert (tree / "link.py").is_symlink() and (tree / "inside.py").is_symlink()
    proc = run_castlint("check", "--add-noqa", "--no-cache", "--follow-symlinks-outside", "tree", cwd=tmp_path)
    assert "# noqa: CL001" in (elsewhere / "shared.py").read_text() and (tree / "link.py").is_symlink()


def test_add_noqa_under_a_linked_directory_out_of_the_tree(tmp_path):
    tree, elsewhere = tmp_path / "tree", tmp_path / "elsewhere"
    tree.mkdir()
    elsewhere.mkdir()
    (elsewhere / "shared.py").write_text(GOOD)
    (tree / "vendor").symlink_to(elsewhere, target_is_directory=True)
    proc = run_castlint("check", "--add-noqa", "--no-cache", tree / "vendor" / "shared.py", cwd=tmp_path)
    # a file named on the command line is its own root: the user chose it
    assert "# noqa: CL001" in (elsewhere / "shared.py").read_text(), proc.stderr


# -- control bytes on the terminal --------------------------------------------------------------

HOSTILE = "evil\x1b[2J\x1b]0;pwned\x07\rfake.py:1:1: CL001 forged\nline\u202e.py"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202e]")


def _no_raw_controls(text: str) -> None:
    assert not RAW.search(text), repr(text)


def test_control_bytes_in_a_file_name_are_spelled_out(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / HOSTILE).write_text(GOOD)
    (tree / (HOSTILE + "bad.py")).write_text("def f(:\n    self.pool.get_key_buffer(1).to(x)\n")
    for args in (("check",), ("check", "--show-files"), ("check", "--statistics"), ("fix", "--diff")):
        proc = run_castlint(*args, "--no-cache", tree, cwd=tmp_path)
        _no_raw_controls(proc.stdout + proc.stderr)
        assert not any(line.startswith("fake.py") for line in (proc.stdout + proc.stderr).splitlines())
    proc = run_castlint("check", "--no-cache", "-q", tree, cwd=tmp_path)
    assert "evil\\x1b[2J\\x1b]0;pwned\\x07\\rfake.py:1:1: CL001 forged\\nline\\u202e.py:2:9: CL001" in proc.stdout
    report = json.loads(run_castlint("check", "--no-cache", "-f", "json", tree, cwd=tmp_path).stdout)
    assert HOSTILE in {Path(f["path"]).name for f in report["findings"]}  # machine formats keep the exact name


def test_control_bytes_in_a_code_frame_are_spelled_out(tmp_path):
    source = GOOD.replace("(q.dtype)\n", "(q.dtype)  # \x1b[31mred\x1b[0m \x9b1m\n") + "# \x1b]52;c;cGF5bG9hZA==\x07\n"
    (tmp_path / "a.py").write_text(source)
    proc = run_castlint("check", "--no-cache", "a.py", cwd=tmp_path)
    _no_raw_controls(proc.stdout + proc.stderr)
    assert "# \\x1b[31mred\\x1b[0m \\x9b1m" in proc.stdout
    stdin = run_castlint("check", "--stdin-filename", "a.py", "-", input=source, cwd=tmp_path)
    _no_raw_controls(stdin.stdout + stdin.stderr)


def test_control_bytes_in_cached_messages_are_spelled_out(tmp_path):
    """The cache is a file anyone can write; what comes out of it is escaped like the rest."""
    (tmp_path / "a.py").write_text(GOOD)
    first = run_castlint("check", "a.py", cwd=tmp_path)
    assert first.returncode == 1
    cache = next((tmp_path / ".castlint_cache").glob("v1-*.json"))
    data = json.loads(cache.read_text())
    text = json.dumps(data)
    forged = "\x1b[2K\rb.py:9:9: CL001 forged\n"
    text = text.replace("whole-pool cast to", json.dumps(forged + "whole-pool cast to")[1:-1], 1)
    assert text != json.dumps(data)
    cache.write_text(text)
    again = run_castlint("check", "a.py", cwd=tmp_path)
    assert "forged" in again.stdout  # it was read from the cache ...
    _no_raw_controls(again.stdout + again.stderr)  # ... and printed harmless
    assert not any(line.startswith("b.py") for line in again.stdout.splitlines())


def test_control_bytes_in_error_lines_on_stderr(tmp_path):
    name = "x\x1b[1mbad\n.py"
    (tmp_path / name).write_text("def f(:\n    self.pool.get_key_buffer(1).to(x)\n")
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nextend-rules = ["gone\x1b[5m.toml"]\n')
    proc = run_castlint("check", "--no-cache", tmp_path, cwd=tmp_path)
    assert proc.returncode == 2
    _no_raw_controls(proc.stderr)
    (tmp_path / "pyproject.toml").unlink()
    proc = run_castlint("fix", "--no-cache", tmp_path, cwd=tmp_path)
    _no_raw_controls(proc.stdout + proc.stderr)
    assert "x\\x1b[1mbad\\n.py:1: error syntax error" in proc.stdout


def test_terminal_safe_spells_every_control():
    from castlint.common.terminal import terminal_safe

    assert terminal_safe("a\tb") == "a\tb"
    assert terminal_safe("\x00\x1b\r\n\x7f\x85\u2028\u202e") == "\\x00\\x1b\\r\\n\\x7f\\x85\\u2028\\u202e"
    assert terminal_safe("plain ünïcode 名前") == "plain ünïcode 名前"


def test_the_token_is_never_posted(monkeypatch):
    """A comment quotes the checked code; should that code hold the token, the post carries ***."""
    client = GitHubClient("https://api.example.com", TOKEN, sleep=lambda s: None)
    sent = []

    def capture(req, deadline):
        sent.append(req.data)
        return 201, {}, b'{"id": 1}'

    monkeypatch.setattr(client, "_exchange", capture)
    client.post("/repos/o/r/issues/1/comments", {"body": f"code: token = {TOKEN!r} # {urllib.parse.quote(TOKEN)}"})
    assert sent and TOKEN.encode() not in sent[0] and b"***" in sent[0]
