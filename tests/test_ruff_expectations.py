"""issue 22: where a ruff user expects castlint to behave like ruff.

Each test here failed on the code before issue 22 (the wrong results 1-9 and the
missing flags): per-file nearest config, explicitly named paths, unparsable files,
--diff --exit-zero, Ctrl-C's line, unknown subcommands, the step total's backends,
help at 80 columns, and the new flags."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run_castlint

CAST = (
    "def forward_decode(self, q, layer, idx):\n"
    "    k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
    "    g = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)[idx]\n"
    "    return k, g\n"
)
GATHER = (
    "def forward_decode(self, q, layer, idx):\n"
    "    g = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)[idx]\n"
    "    return g\n"
)


def codes(proc) -> list:
    """(path, code) of every finding line of a -q text report."""
    out = []
    for line in proc.stdout.splitlines():
        parts = line.split(": ", 2)
        if len(parts) >= 2 and parts[1][:2] == "CL":
            out.append((parts[0].rsplit(":", 2)[0], parts[1].split()[0]))
    return sorted(out)


# -- 1. the nearest config of each file ----------------------------------------------


def _two_configs(tmp_path: Path) -> Path:
    p = tmp_path / "p"
    (p / "pkg" / "sub").mkdir(parents=True)
    (p / "pyproject.toml").write_text('[tool.castlint]\nignore = ["CL003"]\n')
    (p / "pkg" / "castlint.toml").write_text('ignore = ["CL001"]\n')
    (p / "top.py").write_text(CAST)
    (p / "pkg" / "sub" / "b.py").write_text(CAST)
    return p


def test_each_file_gets_its_nearest_config_whatever_the_order(tmp_path):
    _two_configs(tmp_path)
    one = run_castlint("check", "-q", "p/pkg/sub/b.py", "p/top.py", cwd=tmp_path)
    two = run_castlint("check", "-q", "p/top.py", "p/pkg/sub/b.py", cwd=tmp_path)
    assert codes(one) == codes(two) == [("p/pkg/sub/b.py", "CL003"), ("p/top.py", "CL001")]
    walked = run_castlint("check", "-q", "p", cwd=tmp_path)  # a walk too: each file its own config
    assert codes(walked) == [("p/pkg/sub/b.py", "CL003"), ("p/top.py", "CL001")]


def test_config_file_and_isolated_give_every_file_one_config(tmp_path):
    p = _two_configs(tmp_path)
    forced = run_castlint(
        "check", "-q", "--config", str(p / "pkg" / "castlint.toml"), "p/top.py", "p/pkg/sub/b.py", cwd=tmp_path
    )
    assert codes(forced) == [("p/pkg/sub/b.py", "CL003"), ("p/top.py", "CL003")]
    isolated = run_castlint("check", "-q", "--isolated", "p/top.py", "p/pkg/sub/b.py", cwd=tmp_path)
    assert {c for _, c in codes(isolated)} == {"CL001", "CL003"}
    assert len(codes(isolated)) == 4


# -- 2. explicitly named paths -------------------------------------------------------


def _ignored_tree(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored/\nloose.py\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "a.py").write_text(GATHER)
    (tmp_path / "loose.py").write_text(GATHER)
    (tmp_path / "third").mkdir()
    (tmp_path / "third" / "t.py").write_text(GATHER)
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nexclude = ["third"]\n')
    return tmp_path


def test_a_named_gitignored_directory_is_checked(tmp_path):
    _ignored_tree(tmp_path)
    proc = run_castlint("check", "-q", "ignored/", cwd=tmp_path)
    assert proc.returncode == 1 and codes(proc) == [("ignored/a.py", "CL003")], proc.stderr
    inside = run_castlint("check", "-q", ".", cwd=tmp_path / "ignored")
    assert inside.returncode == 1 and "no Python files" not in inside.stderr
    assert run_castlint("check", "-q", ".", cwd=tmp_path).returncode == 0  # a walk from the top skips it


def test_named_ignored_and_excluded_files_are_checked(tmp_path):
    _ignored_tree(tmp_path)
    proc = run_castlint("check", "-q", "loose.py", "third/t.py", "third", cwd=tmp_path)
    assert codes(proc) == [("loose.py", "CL003"), ("third/t.py", "CL003")]


def test_force_exclude_skips_and_names_the_rule(tmp_path):
    _ignored_tree(tmp_path)
    proc = run_castlint("check", "-q", "--force-exclude", "loose.py", "third/t.py", "ignored", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    err = proc.stderr
    assert "loose.py: skipped (--force-exclude): ignored by" in err and ".gitignore:2 ('loose.py')" in err
    assert "third/t.py: skipped (--force-exclude): matches the exclude pattern 'third'" in err
    assert "pyproject.toml: exclude" in err
    assert "ignored: skipped (--force-exclude)" in err and "('ignored/')" in err
    assert "no Python files found" not in err


def test_the_pre_commit_hooks_pass_force_exclude():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entries = [line for line in hooks.splitlines() if line.strip().startswith("entry:")]
    assert entries and all("--force-exclude" in line for line in entries)


# -- 3. a file that does not parse is reported, trigger words or not -------------------


def test_unparsable_file_without_trigger_words_is_an_error(tmp_path):
    (tmp_path / "s.py").write_text("def f(:\n")
    proc = run_castlint("check", "--no-cache", "s.py", cwd=tmp_path)
    assert proc.returncode == 2 and "All checks passed" not in proc.stdout
    assert "s.py:1: error syntax error" in proc.stdout
    # named or walked, cached or not, the verdict is the same
    for args in ((".",), ("s.py",), ("s.py",), (".",)):
        assert run_castlint("check", *args, cwd=tmp_path).returncode == 2, args
    (tmp_path / "t.py").write_text("def f(self, layer):\n    return self.pool.get_key_buffer(layer.layer_id).to(\n")
    assert run_castlint("check", ".", cwd=tmp_path).returncode == 2  # with a trigger word too


def _broken_tree(tmp_path: Path) -> Path:
    """A directory with a trigger-free file that does not parse, among files that do."""
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "bad.py").write_text("import os\n\n\ndef f(:\n    return os\n")
    (d / "ok.py").write_text("x = 1\n")
    for i in range(20):  # enough files for the worker pool's scan (16 or more), as in a real tree
        (d / "sub" / f"m{i}.py").write_text(f"def g{i}(a):\n    return a + {i}\n")
    return d


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_unparsable_file_found_by_a_walk_is_an_error(tmp_path, jobs):
    _broken_tree(tmp_path)
    proc = run_castlint("check", "--no-cache", "-j", jobs, "d", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "All checks passed" not in proc.stdout
    line = next(x for x in proc.stdout.splitlines() if "bad.py" in x)
    assert line.startswith(os.path.join("d", "bad.py") + ":4: error syntax error"), line
    assert "ok.py" not in proc.stdout and "m0.py" not in proc.stdout


def test_a_walks_syntax_errors_are_cached_and_a_fixed_file_passes(tmp_path):
    d = _broken_tree(tmp_path)
    first = run_castlint("check", "d", cwd=tmp_path)
    assert first.returncode == 2 and "bad.py:4: error syntax error" in first.stdout
    again = run_castlint("check", "d", cwd=tmp_path)  # warm: every file from the cache
    assert again.returncode == 2 and again.stdout == first.stdout
    assert run_castlint("check", "d/bad.py", cwd=tmp_path).returncode == 2  # named: same verdict
    (d / "bad.py").write_text("import os\n\n\ndef f():\n    return os\n")
    assert run_castlint("check", "d", cwd=tmp_path).returncode == 0


def test_a_warm_walk_takes_unchanged_files_from_the_cache(tmp_path, monkeypatch):
    from castlint.config import load_config
    from castlint.discover import discover
    from castlint.engine import check_paths
    from castlint.tables import load_tables

    _broken_tree(tmp_path)
    monkeypatch.chdir(tmp_path)  # the config's root, where .castlint_cache/ goes
    config, tables = load_config(["d"]), load_tables()
    files, _ = discover(["d"], config)
    cold = check_paths(files, tables, config, jobs=1, cache=True)
    warm = check_paths(files, tables, config, jobs=1, cache=True)
    assert cold.stats["cached"] == 0 and warm.stats["cached"] == len(files) == 22
    assert [e.line for e in warm.all_errors] == [e.line for e in cold.all_errors] == [4]


@pytest.mark.filterwarnings("error")
def test_the_walks_syntax_check_reports_only_what_does_not_parse(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "escape.py").write_text('x = "\\d"\n')  # an invalid escape: a warning (an error under -W error)
    (d / "nonlocal.py").write_text("nonlocal x\n")  # parses (symtable alone rejects it), as with trigger words
    (d / "bad.py").write_text("print 'x'\n")
    proc = run_castlint("check", "--no-cache", "-q", "d", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == ""
    assert [line.split(": ")[0] for line in proc.stdout.splitlines()] == [os.path.join("d", "bad.py") + ":1"]
    assert "looks like Python 2" in proc.stdout


def test_unparsable_stdin_without_trigger_words_is_an_error():
    proc = run_castlint("check", "-", input="x = (\n")
    assert proc.returncode == 2 and "syntax error" in proc.stdout and "All checks passed" not in proc.stdout
    assert run_castlint("check", "-", input="x = 1\n").returncode == 0


# -- 4. --diff --exit-zero -------------------------------------------------------------


def test_diff_exit_zero_exits_0(tmp_path):
    (tmp_path / "g.py").write_text(GATHER)
    proc = run_castlint("check", "--fix", "--diff", "--exit-zero", "g.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("---")
    assert run_castlint("check", "--fix", "--diff", "g.py", cwd=tmp_path).returncode == 1
    stdin = run_castlint("check", "--diff", "--exit-zero", "--stdin-filename", "g.py", "-", input=GATHER)
    assert stdin.returncode == 0 and "+++" in stdin.stdout


# -- 5. Ctrl-C's line ---------------------------------------------------------------------


def test_keyboard_interrupt_inside_typer_prints_interrupted(monkeypatch, tmp_path):
    """typer turns a KeyboardInterrupt into exit 130; the user still gets the one line."""
    import castlint.engine

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(castlint.engine, "check_paths", interrupted)
    (tmp_path / "g.py").write_text(GATHER)
    proc = run_castlint("check", "g.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "castlint: interrupted"


# -- 6. unknown subcommands -----------------------------------------------------------------


def test_unknown_subcommand_suggests_the_nearest(tmp_path):
    (tmp_path / "x.py").write_text("x = 1\n")
    proc = run_castlint("chekc", "x.py", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "unrecognized subcommand 'chekc'" in proc.stderr and "did you mean `castlint check`?" in proc.stderr
    assert "no such file" not in proc.stderr
    assert run_castlint("x.py", cwd=tmp_path).returncode == 0  # `castlint PATHS` still means check
    assert run_castlint("missing.py", cwd=tmp_path).returncode == 2  # a path: reported missing
    proc = run_castlint("bogus", cwd=tmp_path)
    assert "unrecognized subcommand 'bogus'" in proc.stderr and "did you mean" not in proc.stderr


def test_server_is_a_subcommand():
    proc = run_castlint("server", "--help")
    assert proc.returncode == 0 and "Language Server Protocol" in proc.stdout


# -- 7. the step total: memory-pool classes are not backends -----------------------------------


def test_step_total_leaves_pool_accessors_out_of_the_backends():
    from castlint.models import Cost, Finding, Position, Severity, step_total

    def finding(function, per_step, accessor=None):
        return Finding(
            "CL001",
            "whole-pool-cast",
            Severity.ERROR,
            "x.py",
            Position(1, 1),
            Position(1, 2),
            "m",
            cost=Cost(per_step // 78, per_step, "glm-5", 1),
            function=function,
            accessor=accessor,
        )

    total = step_total(
        [
            finding("MLABackend.forward_decode", 66),
            finding("XPUBackend.forward_decode", 66),
            finding("MHATokenToKVPool._get_key_buffer", 114, accessor="MHATokenToKVPool._get_key_buffer"),
        ]
    )
    assert total.bytes_per_step == 66 and total.alternatives == 2


def test_an_accessor_finding_says_so_and_is_no_backend(tmp_path):
    (tmp_path / "pool.py").write_text(
        textwrap.dedent("""\
        class FP4Pool:
            def get_key_buffer(self, layer_id):
                return self.k_buffer[layer_id].to(torch.bfloat16)

            def forward_decode(self, q, layer):
                return self.get_key_buffer(layer.layer_id)
        """)
    )
    data = json.loads(run_castlint("check", "-f", "json", "pool.py", cwd=tmp_path).stdout)
    inside = [f for f in data["findings"] if f.get("accessor")]
    assert inside and inside[0]["accessor"] == "FP4Pool.get_key_buffer"
    text = run_castlint("check", "pool.py", cwd=tmp_path).stdout
    assert "costliest of" not in text


def test_sarif_and_rdjson_link_the_project_repository():
    from castlint.tomlcompat import loads

    urls = loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    bad = FIXTURES / "check" / "fa3_backend.py"
    sarif = json.loads(run_castlint("check", "-f", "sarif", bad).stdout)
    assert sarif["runs"][0]["tool"]["driver"]["informationUri"] == urls["Repository"]
    rdjson = json.loads(run_castlint("check", "-f", "rdjson", bad).stdout)
    assert rdjson["source"]["url"] == urls["Repository"]
    assert "pypi.org" not in json.dumps(sarif) + json.dumps(rdjson)


# -- 9. help at 80 columns --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "fix", "validate", "trace", "bot"])
def test_help_is_whole_at_80_columns(command):
    proc = run_castlint(command, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "…" not in proc.stdout
    import typer.main

    from castlint.cli import app  # every option name is printed whole

    click_command = typer.main.get_command(app).commands[command]
    for param in click_command.params:
        if getattr(param, "hidden", False):
            continue
        for name in getattr(param, "opts", []) + getattr(param, "secondary_opts", []):
            if name.startswith("-"):
                assert name in proc.stdout, name


# -- the new flags ------------------------------------------------------------------------------


def test_per_file_ignores_on_the_command_line(tmp_path):
    (tmp_path / "a.py").write_text(CAST)
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nper-file-ignores = { "a.py" = ["CL003"] }\n')
    assert {c for _, c in codes(run_castlint("check", "-q", "a.py", cwd=tmp_path))} == {"CL001"}
    replaced = run_castlint("check", "-q", "--per-file-ignores", "a.py:CL001", "a.py", cwd=tmp_path)
    assert {c for _, c in codes(replaced)} == {"CL003"}
    extended = run_castlint("check", "-q", "--extend-per-file-ignores", "*.py:CL001", "a.py", cwd=tmp_path)
    assert extended.returncode == 0 and codes(extended) == []
    bad = run_castlint("check", "--per-file-ignores", "a.py", "a.py", cwd=tmp_path)
    assert bad.returncode == 2 and "--per-file-ignores: 'a.py' is not GLOB:CODE" in bad.stderr


def test_file_level_noqa_and_ignore_noqa(tmp_path):
    (tmp_path / "all.py").write_text("# castlint: noqa\n" + CAST)
    (tmp_path / "some.py").write_text("# castlint: noqa: CL003\n" + CAST)
    (tmp_path / "line.py").write_text(GATHER.replace("[idx]\n", "[idx]  # noqa: CL003\n"))
    proc = run_castlint("check", "-q", "all.py", "some.py", "line.py", cwd=tmp_path)
    assert codes(proc) == [("some.py", "CL001")]
    loud = run_castlint("check", "-q", "--ignore-noqa", "all.py", "some.py", "line.py", cwd=tmp_path)
    assert codes(loud) == [
        ("all.py", "CL001"),
        ("all.py", "CL003"),
        ("line.py", "CL003"),
        ("some.py", "CL001"),
        ("some.py", "CL003"),
    ]
    assert "CL900" not in loud.stdout


def test_add_noqa_with_a_reason(tmp_path):
    (tmp_path / "g.py").write_text(GATHER)
    proc = run_castlint("check", "--add-noqa=adopted, see #22", "g.py", cwd=tmp_path)
    assert proc.returncode == 0 and "Added 1 noqa directive." in proc.stdout
    line = (tmp_path / "g.py").read_text().splitlines()[1]
    assert line.endswith("[idx]  # noqa: CL003 adopted, see 22")
    assert run_castlint("check", "-q", "g.py", cwd=tmp_path).returncode == 0


def test_config_key_value_overrides(tmp_path):
    (tmp_path / "a.py").write_text(CAST)
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nignore = ["CL003"]\n')
    proc = run_castlint("check", "-q", "--config", 'ignore = ["CL001"]', "a.py", cwd=tmp_path)
    assert {c for _, c in codes(proc)} == {"CL003"}
    model = run_castlint(
        "check", "--show-settings", "-f", "json", "--config", "model.pool-tokens = 1024", ".", cwd=tmp_path
    )
    data = json.loads(model.stdout)
    assert data["model"]["pool_tokens"] == 1024 and data["ignore"] == ["CL003"]
    assert data["config_overrides"] == ["model.pool-tokens = 1024"]
    bad = run_castlint("check", "--config", "selekt = []", "a.py", cwd=tmp_path)
    assert bad.returncode == 2 and "--config: selekt: unknown key" in bad.stderr


def test_show_settings_tells_default_select_from_all(tmp_path):
    default = json.loads(run_castlint("check", "--show-settings", "-f", "json", ".", cwd=tmp_path).stdout)
    every = json.loads(
        run_castlint("check", "--show-settings", "-f", "json", "--select", "ALL", ".", cwd=tmp_path).stdout
    )
    assert default["select"] == "default" and default["select_source"] == "default"
    assert "CL005" in every["select"] and every["select_source"] == "--select ALL"
    assert "CL005" not in default["enabled_rules"] and "CL005" in every["enabled_rules"]
    text = run_castlint("check", "--show-settings", ".", cwd=tmp_path).stdout
    assert 'select = "default"' in text and "ALL" not in text


def test_watch_checks_again_on_change(tmp_path):
    (tmp_path / "w.py").write_text("x = 1\n")
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "castlint", "check", "-q", "--no-cache", "--watch", "w.py"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(proc, "Watching for file changes.")
        time.sleep(0.05)
        (tmp_path / "w.py").write_text(GATHER)
        _wait_for(proc, "File change detected")
        _wait_for(proc, "Watching for file changes.")
        time.sleep(0.05)
        (tmp_path / "castlint.toml").write_text('ignore = ["CL003"]\n')  # a config change is read too
        _wait_for(proc, "File change detected")
        _wait_for(proc, "no findings. Watching for file changes.")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        finally:
            proc.kill()
        out = proc.stdout.read()
    assert proc.returncode == 0
    assert out.count("w.py:2:9: CL003") == 1


def _wait_for(proc, text: str, timeout: float = 20.0) -> None:
    """Read proc's stderr (in a thread: a silent process never blocks the test) until text."""
    import queue
    import threading

    lines = getattr(proc, "_lines", None)
    if lines is None:
        lines = proc._lines = queue.Queue()

        def pump():
            for line in proc.stderr:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        if text in line:
            return
    raise AssertionError(f"{text!r} never appeared")


def test_root_help_lists_every_command_whole():
    proc = run_castlint("--help", env={"COLUMNS": "80"})
    commands = proc.stdout.split("Commands:", 1)[1].strip().splitlines()
    assert {line.split()[0] for line in commands} >= {
        "check",
        "fix",
        "rules",
        "rule",
        "validate",
        "bot",
        "trace",
        "server",
    }
    assert not any(line.rstrip().endswith("...") for line in commands), commands


def test_server_without_pygls_says_which_extra(monkeypatch):
    """`castlint server` with the lsp extra missing: one line and exit 2, no traceback."""
    import castlint.server.protocol  # noqa: F401 - loaded first, then hidden

    monkeypatch.setitem(sys.modules, "castlint.server.protocol", None)
    proc = run_castlint("server")
    assert proc.returncode == 2 and "pip install 'castlint[lsp]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_nested_config_excludes_below_its_folder(tmp_path):
    """A walk honours each folder's own config: inner/castlint.toml's exclude applies under inner/."""
    (tmp_path / "pyproject.toml").write_text("[tool.castlint]\n")
    (tmp_path / "inner" / "gen").mkdir(parents=True)
    (tmp_path / "inner" / "castlint.toml").write_text('exclude = ["gen"]\n')
    (tmp_path / "inner" / "gen" / "g.py").write_text(GATHER)
    (tmp_path / "inner" / "k.py").write_text(GATHER)
    assert run_castlint("check", "--show-files", ".", cwd=tmp_path).stdout == "./inner/k.py\n"
    assert (
        run_castlint("check", "--show-files", "--isolated", ".", cwd=tmp_path).stdout
        == "./inner/gen/g.py\n./inner/k.py\n"
    )


def test_a_config_written_between_two_runs_is_read(tmp_path):
    """The nearest-config memory lasts one run (the tests, an editor and --watch run many in one process)."""
    (tmp_path / "a.py").write_text(GATHER)
    assert run_castlint("check", "-q", "a.py", cwd=tmp_path).returncode == 1
    (tmp_path / "castlint.toml").write_text('ignore = ["CL003"]\n')
    assert run_castlint("check", "-q", "a.py", cwd=tmp_path).returncode == 0
