"""`castlint fix --pr-body / --patch / --validate-json / --profile`: the pull request a fix makes.

The tree is fixtures/pr/tree (an sglang-shaped tree whose MLA backend is
fixtures/fix/mla_backend.in.py): the fix rewrites its backend, updates its
environ.py and adds a module. The patch must turn a copy of the original tree
into what `castlint fix` writes, byte for byte; the PR body's numbers must be the
findings' costs, the rules tables' rows and the validate report's cells.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from castlint.models import human_bytes
from castlint.pr import PrContext, PrError, load_validate_json
from castlint.pr.changes import FileChange, package_root, tree_root
from castlint.pr.patch import diffstat, render_patch
from castlint.tables import load_tables
from conftest import FIXTURES, run_castlint

PR = FIXTURES / "pr"
BACKEND = "sglang/srt/layers/attention/flashinfer_mla_backend.py"


def _assembled_tree() -> Path:
    """fixtures/pr/tree with the MLA backend fixture (fixtures/fix/mla_backend.in.py) in its
    place, assembled once per session in a temporary folder (removed at exit)."""
    import atexit
    import tempfile

    folder = tempfile.mkdtemp(prefix="castlint-pr-tree-")
    atexit.register(shutil.rmtree, folder, True)
    root = Path(folder) / "tree"
    shutil.copytree(PR / "tree", root)
    shutil.copy(FIXTURES / "fix" / "mla_backend.in.py", root / BACKEND)
    return root


TREE = _assembled_tree()
GIT = shutil.which("git")
TABLES = load_tables()


def _files(root: Path) -> dict:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".castlint_cache" not in p.parts
    }


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(TREE, dest)
    return dest


@pytest.fixture(scope="module")
def previewed(tmp_path_factory):
    """`castlint fix --diff` with --pr-body, --patch and a sweep report: (tree, pr body, patch, result)."""
    tmp = tmp_path_factory.mktemp("pr")
    tree = _copy(tmp, "tree")
    out = tmp / "out"
    out.mkdir()
    result = run_castlint(
        "fix",
        "--diff",
        "--jobs",
        "1",
        "--no-cache",
        "sglang",
        "--pr-body",
        out / "pr.md",
        "--patch",
        out / "fix.patch",
        "--validate-json",
        PR / "sweep-cpu.json",
        cwd=tree,
    )
    return (
        tree,
        (out / "pr.md").read_text(encoding="utf-8"),
        (out / "fix.patch").read_text(encoding="utf-8"),
        result,
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """`castlint fix` (writing the tree) with --pr-body and --patch: (fixed tree, pr body, patch, result)."""
    tmp = tmp_path_factory.mktemp("prw")
    tree = _copy(tmp, "tree")
    result = run_castlint(
        "fix",
        "--jobs",
        "1",
        "--no-cache",
        "--profile",
        "full",
        "sglang",
        "--pr-body",
        tmp / "pr.md",
        "--patch",
        tmp / "fix.patch",
        cwd=tree,
    )
    return (
        tree,
        (tmp / "pr.md").read_text(encoding="utf-8"),
        (tmp / "fix.patch").read_text(encoding="utf-8"),
        result,
    )


def _patched_paths(patch: str) -> list:
    return re.findall(r"^diff --git a/(\S+) b/\1$", patch, flags=re.MULTILINE)


# -- the patch ---------------------------------------------------------------------


def test_diff_writes_the_pr_files_and_leaves_the_tree(previewed):
    tree, body, patch, result = previewed
    assert result.returncode == 1, result.stderr  # --diff: 1 when there is a change
    assert _files(tree) == _files(TREE)  # nothing written to the tree
    assert body.startswith("# ") and patch.startswith("From ")
    assert "wrote: " in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_the_patch_turns_the_original_tree_into_the_fixed_one(previewed, written, tmp_path):
    """git apply (and patch -p1) on a copy of the original: the same bytes as `castlint fix` wrote."""
    fixed_tree = written[0]
    for patch in (previewed[2], written[2]):  # the same patch, with or without --diff
        target = _copy(tmp_path, f"apply{len(list(tmp_path.iterdir()))}")
        (tmp_path / "fix.patch").write_text(patch, encoding="utf-8")
        check = subprocess.run(
            [GIT, "apply", "--check", "-v", str(tmp_path / "fix.patch")],
            cwd=target,
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stderr
        subprocess.run([GIT, "apply", str(tmp_path / "fix.patch")], cwd=target, check=True)
        assert _files(target) == _files(fixed_tree)
    if shutil.which("patch"):
        target = _copy(tmp_path, "by-patch")
        done = subprocess.run(
            ["patch", "-p1", "--batch", "-i", str(tmp_path / "fix.patch")],
            cwd=target,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert _files(target) == _files(fixed_tree)


def test_the_patch_names_each_change_from_the_tree_root(written):
    fixed_tree, _, patch, result = written
    assert result.returncode == 0, result.stderr
    original, fixed = _files(TREE), _files(fixed_tree)
    changed = sorted(p for p in fixed if original.get(p) != fixed[p])
    assert BACKEND in changed and len(changed) >= 2  # the backend and what the fix adds or updates
    assert _patched_paths(patch) == changed
    head, _, _ = patch.partition("\ndiff --git ")
    assert re.match(
        r"From 0{40} Mon Sep 17 00:00:00 2001\nFrom: .+\nDate: .+\nSubject: \[PATCH\] .+\n",
        head,
    )
    for path in changed:
        section = patch.split(f"diff --git a/{path} b/{path}\n", 1)[1].split("\ndiff --git ", 1)[0]
        if path in original:
            assert section.startswith("index ") and f"--- a/{path}\n+++ b/{path}\n" in section
        else:  # a module the fix adds
            assert section.startswith("new file mode 100644\n") and f"--- /dev/null\n+++ b/{path}\n" in section
            assert f" create mode 100644 {path}\n" in head


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_the_diffstat_counts_what_git_counts(written, tmp_path):
    patch = written[2]
    (tmp_path / "fix.patch").write_text(patch, encoding="utf-8")
    numstat = subprocess.run(
        [GIT, "apply", "--numstat", str(tmp_path / "fix.patch")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for line in filter(None, numstat):
        added, removed, path = line.split("\t")
        total = int(added) + int(removed)
        assert re.search(rf"^ {re.escape(path)} +\| +{total} [+-]*$", patch, flags=re.MULTILINE), (path, total)
    n = len(list(filter(None, numstat)))
    assert f" {n} files changed, " in patch


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_patch_keeps_bytes_crlf_and_a_missing_final_newline(tmp_path):
    old = b"a = 1\r\nb = '\xe9'\r\nc = 3"  # CRLF, latin-1 bytes, no final newline
    new = b"a = 1\r\nb = '\xe9'\r\nc = 4\r\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_bytes(old)
    changes = [
        FileChange("pkg/m.py", old, new),
        FileChange("pkg/added.py", None, b"x = 1"),
    ]
    patch = render_patch(changes, "subject", "a message", date="Thu, 01 Jan 2026 00:00:00 +0000")
    (tmp_path / "p.patch").write_text(patch, encoding="utf-8", errors="surrogateescape", newline="")
    subprocess.run([GIT, "apply", str(tmp_path / "p.patch")], cwd=tmp_path, check=True)
    assert (tmp_path / "pkg" / "m.py").read_bytes() == new
    assert (tmp_path / "pkg" / "added.py").read_bytes() == b"x = 1"
    assert "\\ No newline at end of file\n" in patch
    assert diffstat(changes).endswith(
        " 2 files changed, 2 insertions(+), 1 deletion(-)\n create mode 100644 pkg/added.py\n"
    )


def test_the_tree_root_holds_the_top_level_package():
    assert package_root(str(TREE / BACKEND)) == str(TREE)
    assert tree_root([str(TREE / BACKEND), str(TREE / "sglang/srt/environ.py")]) == str(TREE)
    assert package_root(str(PR / "README.md")) == str(PR)  # in no package: its own folder


# -- the PR body -------------------------------------------------------------------------


def _findings(tree: Path) -> list:
    result = run_castlint("check", "--format", "json", "--jobs", "1", "--no-cache", BACKEND, cwd=tree)
    data = json.loads(result.stdout)
    return data if isinstance(data, list) else data["findings"]


def test_body_lists_the_changes_the_cost_the_switch_and_the_flashinfer_rows(written):
    _fixed_tree, body, patch, _ = written
    changed = _patched_paths(patch)
    files = body.split("## Files", 1)[1].split("\n## ", 1)[0]
    for path in changed:
        kind = "added" if not (TREE / path).exists() else "rewritten" if path == BACKEND else "updated"
        assert re.search(rf"^\| `{re.escape(path)}` \| {kind}", files, flags=re.MULTILINE), (path, files)
    # the cost of each finding the fix removed, as the check computes it (the original tree)
    costed = [f for f in _findings(TREE) if f["cost"]]
    assert costed
    for f in costed:
        row = (
            f"| `{BACKEND}:{f['start']['line']}` | `{f['function']}` | {f['code']} {f['name']} | "
            f"{human_bytes(f['cost']['bytes_per_layer'])} | {human_bytes(f['cost']['bytes_per_step'])} |"
        )
        assert row in body
    decode = [f for f in costed if "extend" not in f["function"] and "prefill" not in f["function"]]
    step = sum(f["cost"]["bytes_per_step"] for f in decode)
    assert f"**{human_bytes(step)} per decode step**" in body
    assert body.splitlines()[0].endswith(f"({human_bytes(step)} per decode step, glm-5)")
    # the measured cost: the crossover row in force for the tree's pin (0.5.20 pins 0.6.18)
    row = next(r for r in TABLES.mla_kv_read if r["since"] == "0.6.18")
    one = row["cast_ms_per_pool_token"] * costed[0]["cost"]["pool_tokens"]
    assert f"**{one:.3f} ms per layer**" in body
    assert f"**{one * 78 * len(decode):.1f} ms per decode step**" in body
    # the switch, from rules/sglang.toml
    switch = TABLES.kv_read_switch
    section = body.split("## The switch", 1)[1].split("\n## ", 1)[0]
    assert f"`{switch['variable']}`" in section
    assert [v for v in switch["values"] if f"- `{v}`" in section] == switch["values"]
    assert f"`{switch['values'][0]}` (default)" in section
    assert f"To turn it off: `{switch['variable']}=off`." in section
    # the FlashInfer rows
    flashinfer = body.split("## FlashInfer versions", 1)[1].split("\n## ", 1)[0]
    assert "sglang 0.5.20 pins FlashInfer 0.6.18" in flashinfer
    for fp8 in TABLES.fp8_kv_mla:
        assert f"| {fp8['since']} | " in flashinfer
    for measured in TABLES.mla_kv_read:
        assert f"| {measured['since']} | {measured['gpu']} | {measured['measured']} |" in flashinfer
    assert "Fix profile: `full`" in body
    assert "castlint fix --profile full sglang" in body  # how to reproduce


def test_body_shows_the_sweep_as_validate_renders_it(previewed, tmp_path):
    from castlint.pr.body import sweep_cells
    from castlint.validate.sweep import markdown, verdict

    _, body, _, _ = previewed
    report = json.loads((PR / "sweep-cpu.json").read_text())
    cells = sweep_cells(report)
    assert len(cells) == len(report["cells"])
    assert markdown(cells) in body and f"**{verdict(cells)}**" in body
    grid = body.split("Speed-up per cell", 1)[1]
    for cell in report["cells"]:
        speed = f"{cell['speedup']:.2f}x"
        assert (
            f"| {cell['label']} | {cell['shape']} | {speed}{'' if cell['status'] == 'pass' else ' ' + cell['status']} |"
            in grid
        )
    # the heat map beside the body, castlint.validate.sweep's own
    svg = Path(re.search(r"!\[speed-up heat map\]\((.+)\)", body).group(1))
    assert svg.name == "pr.heatmap.svg"


def test_body_shows_a_single_validation_report(tmp_path):
    tree = _copy(tmp_path, "tree")
    result = run_castlint(
        "fix",
        "--diff",
        "--jobs",
        "1",
        "--no-cache",
        "sglang",
        "--pr-body",
        tmp_path / "pr.md",
        "--validate-json",
        PR / "validate-cpu.json",
        cwd=tree,
    )
    assert result.returncode == 1, result.stderr
    body = (tmp_path / "pr.md").read_text()
    assert not (tmp_path / "pr.heatmap.svg").exists()  # a heat map is a sweep's
    report = json.loads((PR / "validate-cpu.json").read_text())
    section = body.split("## Validation", 1)[1].split("\n## ", 1)[0]
    for site in report["sites"]:
        o, p = (
            site["original"]["timing"]["median_ms"],
            site["patched"]["timing"]["median_ms"],
        )
        assert f"| {site['site']} | {site['status']} | {o:.4f} | {p:.4f} | {site['speedup']:.2f}x |" in section
    assert ("**PASS**" if report["passed"] else "**FAIL**") in section
    assert report["environment"]["gpu"] in section
    assert "--json-file validate-cpu.json" in body and "--sweep" not in body.split("## Reproduce", 1)[1]


def test_body_without_a_report_says_it_was_not_validated(written):
    body = written[1]
    assert "Not validated in this run" in body and "--validate-json" in body


# -- the flags -------------------------------------------------------------------------


def _one_error(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_bad_inputs_are_one_line_and_exit_2_before_anything_is_fixed(tmp_path):
    tree = _copy(tmp_path, "tree")
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text(json.dumps({"schema": 1, "tool": "something else"}))
    cases = [
        (["--pr-body", tmp_path / "missing" / "pr.md"], ["--pr-body", "missing"]),
        (["--patch", tmp_path], ["--patch", str(tmp_path), "directory"]),
        (
            [
                "--pr-body",
                tmp_path / "pr.md",
                "--validate-json",
                tmp_path / "nowhere.json",
            ],
            ["--validate-json", "nowhere.json", "cannot read"],
        ),
        (
            ["--pr-body", tmp_path / "pr.md", "--validate-json", tmp_path / "bad.json"],
            ["bad.json", "not JSON"],
        ),
        (
            [
                "--pr-body",
                tmp_path / "pr.md",
                "--validate-json",
                tmp_path / "other.json",
            ],
            ["other.json", "report"],
        ),
        (["--validate-json", PR / "sweep-cpu.json"], ["--validate-json", "--pr-body"]),
        (["--pr-body", tmp_path / "same", "--patch", tmp_path / "same"], ["same file"]),
        (["--profile", "fastest"], ["--profile", "'fastest'", "full", "minimal"]),
    ]
    for flags, words in cases:
        _one_error(
            run_castlint("fix", "--jobs", "1", "--no-cache", "sglang", *flags, cwd=tree),
            *words,
        )
    assert _files(tree) == _files(TREE)  # refused before the fix wrote anything
    assert not (tmp_path / "pr.md").exists()


def test_profile_is_checked_on_check_and_validate_and_pr_flags_need_a_fix(tmp_path):
    _one_error(
        run_castlint("check", "--fix", "--profile", "max", str(TREE / BACKEND)),
        "--profile",
        "'max'",
    )
    _one_error(run_castlint("validate", str(TREE), "--profile", "max"), "--profile", "'max'")
    _one_error(
        run_castlint("check", str(TREE / BACKEND), "--pr-body", tmp_path / "pr.md"),
        "--pr-body",
        "--fix",
    )
    _one_error(
        run_castlint("fix", "-", "--pr-body", tmp_path / "pr.md", input="x = 1\n"),
        "stdin",
    )


def test_profile_reaches_the_fix_options(monkeypatch, tmp_path):
    """--profile on fix and check --fix ends in FixOptions.profile; on validate, in its in-memory fix."""
    import castlint.session
    from castlint.validate import command

    seen = []
    real = castlint.session.LazyFixer.__init__  # (it loads castlint.fixes.Fixer where a file needs it)

    def record(self, options):
        seen.append(options.profile)
        real(self, options)

    monkeypatch.setattr(castlint.session.LazyFixer, "__init__", record)
    tree = _copy(tmp_path, "tree")
    run_castlint(
        "fix",
        "--diff",
        "--jobs",
        "1",
        "--no-cache",
        "--profile",
        "minimal",
        BACKEND,
        cwd=tree,
    )
    run_castlint(
        "check",
        "--fix",
        "--diff",
        "--jobs",
        "1",
        "--no-cache",
        "--profile",
        "minimal",
        BACKEND,
        cwd=tree,
    )
    run_castlint("fix", "--diff", "--jobs", "1", "--no-cache", BACKEND, cwd=tree)
    assert seen == ["minimal", "minimal", "full"]

    given = {}
    monkeypatch.setattr(command, "run_validate", lambda **kwargs: given.update(kwargs) or 0)
    assert run_castlint("validate", str(tree), "--device", "cpu", "--profile", "minimal").returncode == 0
    assert given["fix_profile"] == "minimal" and given["profile"] is True  # --no-profile is another flag

    used = []

    def fake_fix_source(source, path, tables, options, config=None):
        used.append(options.profile)
        raise castlint.fixes.FixError(0, "stop")

    monkeypatch.setattr(castlint.fixes, "fix_source", fake_fix_source)
    with pytest.raises(command._Refused):
        command._fixed_in_memory(b"x = 1\n", tree / BACKEND, TABLES, None, "auto", None, "minimal")
    assert used == ["minimal"]


def test_load_validate_json_reads_both_reports():
    assert "cells" in load_validate_json(str(PR / "sweep-cpu.json"))
    assert "sites" in load_validate_json(str(PR / "validate-cpu.json"))
    with pytest.raises(PrError, match="--validate-json .*README.md"):
        load_validate_json(str(PR / "README.md"))


def test_body_is_generic_over_the_changes():
    """A context with no MLA rewrite: no switch, FlashInfer or cost section; the files still listed."""
    from castlint.pr.body import render_body

    ctx = PrContext(
        changes=[
            FileChange("pkg/a.py", b"x = 1\n", b"x = 2\n"),
            FileChange("pkg/b.py", None, b"y\n"),
        ],
        root="/tree",
        tables=TABLES,
        paths=["pkg"],
        version="9.9",
    )
    body = render_body(ctx)
    assert "| `pkg/a.py` | updated" in body and "| `pkg/b.py` | added | +1 -0 |" in body
    assert "## The switch" not in body and "## FlashInfer versions" not in body and "## Cost" not in body
    assert "castlint fix --profile full pkg --pr-body pr.md --patch fix.patch" in body
    assert body.rstrip().endswith("Produced with castlint 9.9.")


def test_the_root_of_a_tree_with_namespace_packages(tmp_path):
    """sglang's wheel has no sglang/srt/__init__.py: the root is still the parent of sglang/."""
    layers = tmp_path / "sglang" / "srt" / "layers"
    layers.mkdir(parents=True)
    (tmp_path / "sglang" / "__init__.py").write_text("")
    (layers / "__init__.py").write_text("")
    (layers / "x.py").write_text("")
    assert package_root(str(layers / "x.py"), "sglang") == str(tmp_path)
    assert package_root(str(layers / "x.py")) == str(tmp_path / "sglang" / "srt")


def test_minimal_body_lists_only_the_findings_it_fixed(tmp_path):
    """--profile minimal: the extend cast and the prefill plans are left as they were, so the body
    lists their findings under "Left as it was", not among the findings the fix addressed."""
    from castlint.fixes import fix_source
    from castlint.fixoptions import FixOptions

    source = (FIXTURES / "fix" / "mla_backend.in.py").read_bytes()
    full = fix_source(source, str(tmp_path / "backend.py"), TABLES, FixOptions())
    minimal = fix_source(source, str(tmp_path / "backend.py"), TABLES, FixOptions(profile="minimal"))
    assert {f.function for f in full.fixed} > {f.function for f in minimal.fixed}
    assert all("extend" not in (f.function or "") and "Prefill" not in (f.function or "") for f in minimal.fixed)
    assert {f.code for f in minimal.fixed} == {"CL001", "CL002"}
    tree = _copy(tmp_path, "tree")
    run_castlint(
        "fix",
        "--diff",
        "--jobs",
        "1",
        "--no-cache",
        "--profile",
        "minimal",
        "sglang",
        "--pr-body",
        tmp_path / "pr.md",
        cwd=tree,
    )
    body = (tmp_path / "pr.md").read_text(encoding="utf-8")
    changed = body.split("## What changed and why", 1)[1].split("The fix:", 1)[0]
    assert "forward_extend" not in changed and "forward_decode" in changed
    assert "keeps the whole-pool cast" in body.split("Left as it was:", 1)[1]
