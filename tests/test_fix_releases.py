"""`castlint fix` on every supported sglang release (fetched, never committed)."""

import difflib
import json
import shutil

import pytest

from conftest import corpus_fix_diff, run_castlint, sglang_tree

MLA = "srt/layers/attention/flashinfer_mla_backend.py"
RELEASES = ["0.4.6.post5", "0.4.9", "0.5.1", "0.5.4", "0.5.10", "0.5.16", "0.5.23"]
# the budget of the backend's own diff (issue 20): lines `git diff --numstat` counts as added
ADDED_LINES = {"full": 40, "minimal": 20}


def copy_backend(version, tmp_path):
    """A minimal sglang tree: the backend plus version.py, so the fix can read the release."""
    src = sglang_tree(version)
    dst = tmp_path / "sglang"
    (dst / "srt/layers/attention").mkdir(parents=True)
    for name in ("version.py", "_version.py"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)
    shutil.copy(src / MLA, dst / MLA)
    return dst / MLA


def mla_findings(path):
    proc = run_castlint("check", "--format", "json", "--no-cache", path)
    return json.loads(proc.stdout)["findings"]


# what the fix removes: the cast, and the callee of each plan (it becomes an argument)
ALLOWED_REMOVED = (
    "get_key_buffer(layer.layer_id).to(",
    "q.dtype",
    ")",
    ".plan(",
    "fast_mla_decode_plan(",
    "fast_mla_prefill_plan(",
)
# what the fix adds to the backend: the read choice and its plumbing, in neutral names (its
# machinery is in the module it adds beside the backend, mla_kv_read.py)
ADDED_WORDS = ("kv_read", "get_key_buffer(layer.layer_id)", "MlaKvRead", ".plan,", "_plan,")


def _black_on_written_lines(path, before: str, after: str) -> None:
    """Black (line length 88, sglang's) changes nothing on the lines the fix wrote: the original's
    own formatting is not castlint's to judge."""
    import subprocess
    import sys

    ranges = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(None, before.splitlines(), after.splitlines()).get_opcodes():
        if op in ("replace", "insert") and j2 > j1:
            ranges += ["--line-ranges", f"{j1 + 1}-{j2}"]
    proc = subprocess.run(
        [sys.executable, "-m", "black", "--check", "--diff", "-q", "-l", "88", *ranges, str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _statements(lines):
    """Added lines joined into logical lines (a call Black laid out over several lines is one)."""
    out, pending, depth = [], "", 0
    for line in lines:
        text = line.strip()
        pending = f"{pending} {text}".strip() if pending else text
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            out.append(pending)
            pending, depth = "", 0
    return out + ([pending] if pending else [])


@pytest.mark.network
@pytest.mark.parametrize("version", RELEASES)
def test_fix_release(version, tmp_path):
    path = copy_backend(version, tmp_path)
    before = path.read_text()
    proc = run_castlint("fix", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = path.read_text()
    compile(after, str(path), "exec")
    # no whole-pool cast and no model-dtype plan left at the MLA sites
    assert [f for f in mla_findings(path) if f["code"] in ("CL001", "CL002")] == []
    # the diff touches only the cast and plan sites, plus the init and the guard
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
    removed = [line[1:].strip() for line in diff if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    kept = {line.strip() for line in added}  # difflib may show a moved `else:` as removed and added
    assert removed and all(any(r.endswith(p) or r == p for p in ALLOWED_REMOVED) or r in kept for r in removed), removed
    for text in _statements(added):
        assert any(word in text for word in ADDED_WORDS) or text in ("", ")") or text.startswith("#"), text
    assert len(added) <= ADDED_LINES["full"], len(added)  # small call-site edits
    _black_on_written_lines(path, before, after)
    module = path.parent / "mla_kv_read.py"
    assert module.is_file() and "class MlaKvRead" in module.read_text()
    assert "castlint" not in "\n".join(added)  # an upstream-ready patch: no tool names
    # every MLA plan goes through the read choice, its arguments as they were; both forwards
    # read the pool as the plan chose and give run() the scales of that read
    assert after.count("self.kv_read.call_plan(") >= 3
    assert after.count("= self.kv_read.convert(") == 2 and after.count("**self.kv_read.scales(") == 2
    # a second fix is a no-op
    proc = run_castlint("fix", "--diff", path)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout


@pytest.mark.network
def test_no_native_rewrite_before_the_cast(tmp_path):
    """0.4.6.post4 has no cast: its plan declares q in the KV-cache dtype. Nothing to make native."""
    path = copy_backend("0.4.6.post4", tmp_path)
    before = path.read_bytes()
    proc = run_castlint("fix", path)
    assert path.read_bytes() == before
    assert proc.returncode == 1  # the CL002 findings remain
    found = mla_findings(path)
    assert [f["code"] for f in found] == ["CL002", "CL002"]
    assert all(not f["fixable"] and "nothing to make native" in f["unfixable_reason"] for f in found)


@pytest.mark.network
def test_fix_diff_on_whole_tree_touches_only_the_mla_and_paged_backends(tmp_path):
    """The whole-tree `castlint fix --diff` of 0.5.23 that tests/test_corpus.py's
    test_fix_diff_whole_tree_and_idempotent reads (conftest.corpus_fix_diff: one run per session,
    from the tree's parent, on the cache the cold whole-tree check left). This test used to make a
    second, warm fix --diff of `srt/layers` alone, which analysed and fixed the same fixable
    backends again; the attention backends the whole-tree run touches, and the modules it adds,
    are the same claim on the whole release (the files under srt/layers are all this test pins;
    the rest of the whole-tree diff is test_corpus's)."""
    tree = sglang_tree("0.5.23")
    proc = corpus_fix_diff("sglang==0.5.23")
    assert proc.returncode == 1, proc.stderr
    touched = sorted(line.split("/srt/")[-1] for line in proc.stdout.splitlines() if line.startswith("+++ "))
    added = sorted(p for p in touched if not (tree / "srt" / p).exists())
    assert added == ["layers/attention/mla_kv_read.py", "mem_cache/kv_rows_read.py"], added
    # the FlashInfer MLA rewrite, the paged read of FA3/FA4 and xpu, the rows read of the Triton
    # backend and of aiter's Triton extend kernel, and the modules the paged and rows reads add
    # (the latter next to the pools), with the flag they read (environ.py); wave's
    # decode_attention_fwd is another kernel: untouched
    assert [p for p in touched if p.startswith("layers/") or p in added or p == "environ.py"] == [
        "environ.py",
        "layers/attention/aiter_backend.py",
        "layers/attention/flashattention_backend.py",
        "layers/attention/flashinfer_mla_backend.py",
        "layers/attention/mla_kv_read.py",
        "layers/attention/triton_backend.py",
        "layers/attention/xpu_backend.py",
        "mem_cache/kv_rows_read.py",
    ], touched


@pytest.mark.network
def test_keyword_api_on_0_5_23(tmp_path):
    path = copy_backend("0.5.23", tmp_path)
    proc = run_castlint("fix", "--flashinfer-api", "keyword", path)
    assert proc.returncode == 0, proc.stderr
    after = path.read_text()
    compile(after, str(path), "exec")
    assert after.count("query=(") == 2 and after.count("kv_cache=(") == 2
    # sglang rebinds wrapper.plan to fast_mla_*_plan: plans stay positional, and castlint says so
    assert "metadata=MLAPlanMetadata" not in after
    assert "kept positional" in proc.stderr


def _numstat(tree, profile):
    """(added, removed) lines of the backend, as `git diff --numstat` counts them, after
    `castlint fix --no-cache --profile PROFILE` in a git-initialised copy of the release tree."""
    import subprocess

    def git(*args):
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tree,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "release")
    proc = run_castlint("fix", "--no-cache", "--profile", profile, tree / "sglang" / MLA)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    line = git("diff", "--numstat", "--", f"sglang/{MLA}")
    added, removed, _ = line.split("\t")
    return int(added), int(removed)


@pytest.mark.network
@pytest.mark.parametrize("profile", ["full", "minimal"])
@pytest.mark.parametrize("version", ["0.5.16", "0.5.23"])
def test_backend_diff_is_within_its_budget(version, profile, tmp_path):
    """Issue 20: the fix's own edits to the backend are at most 40 added lines in the full
    profile and 20 in the minimal one (the machinery is in the module it adds)."""
    copy_backend(version, tmp_path)
    environ = sglang_tree(version) / "srt" / "environ.py"
    if environ.exists():  # where the switch is declared
        shutil.copy(environ, tmp_path / "sglang" / "srt" / "environ.py")
    added, removed = _numstat(tmp_path, profile)
    assert 0 < added <= ADDED_LINES[profile], (added, removed)
    assert removed <= added
