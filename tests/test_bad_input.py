"""Every bad input the suite knows, in one sweep: exit 2, one error line, never a traceback.

The exit status 1 means "findings"; a crash must never exit 1 and never print a
Python traceback (issue 10, "Crashes and exit codes"). This sweeps the bad inputs
found across tests/ (configs, flags, rule tables, files, the cache, the bot's
environment and API answers) through the CLI as users run it, and checks each
gives exit 2 and exactly one error line. Input castlint can recover from (a
corrupt or hostile cache) must give the normal answer instead. A crash inside
castlint is one `error: internal error: ...` line and exit 2; `--verbose` adds
the traceback.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import run_castlint

GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
TRIGGER = "x = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)\n"
ERROR_LINE = re.compile(r"^(castlint bot: )?error: |^\S.*:\d+: error ")


def error_lines(proc) -> list:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if ERROR_LINE.search(line)]


def assert_one_error(proc, needle: str = ""):
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and 'File "' not in out, out
    assert proc.returncode == 2, out
    lines = error_lines(proc)
    assert len(lines) == 1, out
    assert needle in lines[0], lines[0]


def _config(text, name="pyproject.toml"):
    return lambda root: (root / name).write_text(text)


def _file(name, data):
    return lambda root: (root / "tree" / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def _symlink(name, target):
    return lambda root: os.symlink(target, root / "tree" / name)


def _fifo(root):
    os.mkfifo(root / "tree" / "fifo.py")


def _socket(root):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "tree" / "sock.py"))
    sock.close()


# (make the bad input, extra CLI arguments, text the error line names)
CASES = {
    # configuration (tests/test_cli.py, tests/test_selectors.py)
    "config-unknown-key": (_config("[tool.castlint]\nselec = ['CL001']\n"), [], "selec: unknown key"),
    "config-not-a-list": (_config("[tool.castlint]\nselect = 'CL001'\n"), [], "select: must be a list"),
    "config-invalid-toml": (_config("[tool.castlint\n"), [], "invalid TOML"),
    "config-unknown-preset": (_config("[tool.castlint.model]\npreset = 'gpt-9'\n"), [], "unknown preset"),
    "config-negative-layers": (_config("[tool.castlint.model]\nlayers = -3\n"), [], "model.layers"),
    "config-missing-rule-table": (_config("[tool.castlint]\nextend-rules = ['missing.toml']\n"), [], "missing.toml"),
    "config-markup-key": (_config('[tool.castlint]\n"a[/]b" = 1\n'), [], "a[/]b: unknown key"),
    "config-select-nothing": (_config('[tool.castlint]\nselect = ["CL7"]\n'), [], "'CL7' selects no rule"),
    "castlint-toml-bad": (_config("cache = 'yes'\n", "castlint.toml"), [], "cache"),
    "rule-table-bad": (
        lambda root: (
            (root / "bad.toml").write_text("schema = 1\n[[accessor]]\nname = 'x'\nreturns = 'list'\n"),
            (root / "pyproject.toml").write_text("[tool.castlint]\nextend-rules = ['bad.toml']\n"),
        ),
        [],
        "accessor[0].returns",
    ),
    "rule-table-not-toml": (
        lambda root: (
            (root / "bad.toml").write_text("not toml = = =\n"),
            (root / "pyproject.toml").write_text("[tool.castlint]\nextend-rules = ['bad.toml']\n"),
        ),
        [],
        "invalid TOML",
    ),
    # flags
    "flag-select-nothing": (None, ["--select", "CL7"], "'CL7' selects no rule"),
    "flag-markup": (None, ["--select", "[red]CL"], "'[red]CL' is not a rule code"),
    "flag-flashinfer-api": (None, ["--fix", "--flashinfer-api", "sideways"], "--flashinfer-api"),
    "flag-missing-config": (None, ["--config", "no-such.toml"], "no-such.toml"),
    "flag-output-file-dir": (None, ["-o", "no/such/dir/report.txt"], "--output-file"),
    "flag-diff-base": (None, ["--diff-base", "no-such-revision"], ""),
    "flag-with-trace": (None, ["--with-trace", "no-such-trace.json"], "no-such-trace.json"),
    # files (tests/test_robustness.py)
    "file-syntax-error": (_file("bad.py", "def f(self, layer):\n    " + TRIGGER[:-2] + "\n\n"), [], "bad.py:2: error"),
    "file-not-utf8": (_file("bad.py", TRIGGER.encode() + b"s = '\xff'\n"), [], "bad.py:2: error"),
    "file-unknown-cookie": (_file("bad.py", "# -*- coding: klingon -*-\n" + TRIGGER), [], "bad.py:1: error"),
    "file-cookie-mismatch": (
        _file("bad.py", b"# coding: ascii\n" + TRIGGER.encode() + b"# \xc3\xa9\n"),
        [],
        "bad.py:3: error",
    ),
    "file-nul": (_file("bad.py", b"\x00" + TRIGGER.encode()), [], "bad.py:1: error"),
    "file-too-big": (
        lambda root: (_config("[tool.castlint]\nmax-file-size = 100\n")(root), _file("bad.py", TRIGGER * 2)(root)),
        [],
        "max-file-size",
    ),
    "file-python2": (_file("bad.py", "print 'x'\n" + TRIGGER), [], "Python 2"),
    "file-symlink-loop": (_symlink("loop.py", "loop.py"), [], "loop.py:0: error"),
    "file-broken-symlink": (_symlink("broken.py", "missing.py"), [], "broken.py:0: error"),
    "file-fifo": (_fifo, [], "fifo.py:0: error"),
    "file-socket": (_socket, [], "sock.py:0: error"),
    "file-directory-named-py": (lambda root: (root / "tree" / "dir.py").mkdir(), [], "dir.py:0: error"),
    "file-missing-path": (None, ["no-such-file.py"], "no-such-file.py:0: error"),
    "file-name-not-utf8": (
        _file(os.fsdecode(b"b\xffad.py"), "def f(self, layer):\n    " + TRIGGER[:-2] + "\n"),
        ["-f", "json"],
        "",
    ),
}
JSON_ERRORS = {"file-name-not-utf8"}  # the error is in the JSON report, not a text line


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_exit_2_and_one_error_line(tmp_path, case):
    make, args, needle = CASES[case]
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "good.py").write_text(GOOD)
    if make is not None:
        make(tmp_path)
    paths = [a for a in args if a.endswith(".py") and not a.startswith("-")]
    args = [a for a in args if a not in paths]
    proc = run_castlint("check", "--no-cache", *args, *(paths or ["tree"]), cwd=tmp_path)
    if case in JSON_ERRORS:
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        report = json.loads(proc.stdout)
        assert len(report["errors"]) == 1 and report["errors"][0]["path_uri"] == "tree/b%FFad.py"
        return
    assert_one_error(proc, needle)


# -- the cache: bad, but recoverable: the normal answer, no error ----------------------------


def _corrupt_entry(folder: Path):
    for cache_file in folder.glob("v1-*.json"):
        data = json.loads(cache_file.read_text())
        for entry in data["entries"].values():
            for finding in entry[2][1]:
                finding["start"]["line"] = str(finding["start"]["line"])  # the case
        cache_file.write_text(json.dumps(data))


def _truncate(folder: Path):
    for cache_file in folder.glob("v1-*.json"):
        cache_file.write_text('{"format": 1, "entries": {"x": [1, 2]')


def _replace_with_file(folder: Path):
    import shutil

    shutil.rmtree(folder)
    folder.write_text("not a directory")


def _replace_with_symlink(folder: Path):
    import shutil

    shutil.rmtree(folder)
    (folder.parent / "elsewhere").mkdir()
    folder.symlink_to(folder.parent / "elsewhere")


@pytest.mark.parametrize("damage", [_corrupt_entry, _truncate, _replace_with_file, _replace_with_symlink])
def test_bad_cache_gives_the_normal_answer(tmp_path, damage):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "good.py").write_text(GOOD)
    first = run_castlint("check", "--format", "json", "tree", cwd=tmp_path)
    damage(tmp_path / ".castlint_cache")
    for _ in range(2):  # the damaged run, and the one after it
        again = run_castlint("check", "--format", "json", "tree", cwd=tmp_path)
        assert again.returncode == first.returncode == 1, again.stderr
        assert again.stdout == first.stdout and "Traceback" not in again.stderr
        assert not error_lines(again)


# -- the bot: its environment and the API's answers ------------------------------------------


class _Garbage(BaseHTTPRequestHandler):
    answers = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = self.answers.get("GET", b"<html>oops</html>")
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def garbage_api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    _Garbage.answers = {}


BOT_CASES = {
    "no-repository": ({"GITHUB_REPOSITORY": ""}, None, "GITHUB_REPOSITORY"),
    "event-not-json": ({}, "{not json", "GITHUB_EVENT_PATH"),
    "event-number-not-an-integer": (
        {},
        json.dumps({"pull_request": {"number": "forty-two"}}),
        "not a positive integer",
    ),
    "api-not-json": ({}, None, "not valid JSON"),
    "api-wrong-shape": ({}, None, "expected a list of objects"),
}


@pytest.mark.parametrize("case", sorted(BOT_CASES))
def test_bot_bad_input_is_exit_2_and_one_error_line(tmp_path, garbage_api, case):
    env_extra, event_text, needle = BOT_CASES[case]
    if case == "api-wrong-shape":
        _Garbage.answers = {"GET": b'["a", "b"]'}
    event = tmp_path / "event.json"
    event.write_text(
        event_text
        if event_text is not None
        else json.dumps({"number": 42, "pull_request": {"number": 42, "head": {"sha": "abc"}}})
    )
    env = {
        "GITHUB_TOKEN": "ghs_test",
        "GITHUB_REPOSITORY": "octo/engine",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_API_URL": garbage_api,
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    env.update(env_extra)
    proc = run_castlint("bot", cwd=tmp_path, env=env)
    assert_one_error(proc, needle)
    assert "ghs_test" not in proc.stdout + proc.stderr


# -- a crash inside castlint -------------------------------------------------------------------


def test_a_crash_is_exit_2_one_line_and_verbose_shows_the_traceback(tmp_path, monkeypatch):
    import castlint.engine

    def broken(*args, **kwargs):
        raise RuntimeError("analyzer exploded\non two lines")

    monkeypatch.setattr(castlint.engine, "check_paths", broken)
    (tmp_path / "x.py").write_text(GOOD)
    proc = run_castlint("check", "x.py", cwd=tmp_path)
    assert_one_error(proc, "internal error: RuntimeError: analyzer exploded on two lines")
    assert "--verbose" in error_lines(proc)[0]
    assert proc.stderr.count("\n") == 1
    verbose = run_castlint("check", "--verbose", "x.py", cwd=tmp_path)
    assert verbose.returncode == 2
    assert "Traceback (most recent call last)" in verbose.stderr and "analyzer exploded" in verbose.stderr
    fix = run_castlint("fix", "x.py", cwd=tmp_path)  # the same for every command
    assert_one_error(fix, "internal error: RuntimeError")


def test_a_crash_in_a_real_process_is_exit_2_too(tmp_path):
    """The real entry point, no test harness around main(): the issue's cache entry (a line
    stored as a string) made every run raise TypeError, exit 1, until the cache was deleted."""
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "good.py").write_text(GOOD)
    run_castlint("check", "tree", cwd=tmp_path)
    _corrupt_entry(tmp_path / ".castlint_cache")
    proc = run_castlint("check", "tree", cwd=tmp_path, subprocess=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and not error_lines(proc), proc.stderr
    assert "tree/good.py:2:9: CL001" in proc.stdout
