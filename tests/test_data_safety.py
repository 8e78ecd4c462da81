"""Data loss and process hygiene: concurrent writers, symlinks, temp files, the cache, killed runs.

Each test here failed before the change it guards (issue 10, "Data loss and
process hygiene"); each runs in a second or two.
"""

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

from castlint import cache as cachemod
from castlint.config import Config
from castlint.engine import check_paths
from castlint.fixes import FixOptions, fix_files
from castlint.fixes import write as write_module
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
GATHER = (FIXTURES / "fix" / "cast_before_gather.in.py").read_bytes()
GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process and file semantics")


# -- a concurrent editor ------------------------------------------------------------------------

# An editor in its own process. Each checked file sits alone in its folder, so a
# castlint temp file in a folder says which file castlint is writing: the editor
# then saves that file at once (its own version, unfixed, marked "# v<N>"), in place
# or by rename. It also saves each file castlint has fixed again, so castlint always has work.
# Before each save it reads the file back: a marker older than its last save means
# castlint overwrote a save of the editor. That is a lost write.
EDITOR = textwrap.dedent(r"""
    import json, os, re, sys, time
    folders, seconds, mode, source = sys.argv[1].split(os.pathsep), float(sys.argv[2]), sys.argv[3], sys.argv[4]
    races = int(sys.argv[5])  # stop after this many saves during a castlint write (or after seconds)
    source = open(source, "rb").read()
    last = {f: 0 for f in folders}
    last_data = {f: None for f in folders}
    seen, lost, saves, raced = set(), [], 0, 0

    def marker(folder):
        with open(os.path.join(folder, "m.py"), "rb") as fh:
            found = re.findall(rb"# v(\d+)\n", fh.read())
        return int(found[-1]) if found else -1

    def save(folder):
        global saves
        if marker(folder) < last[folder]:
            lost.append(folder)
        saves += 1
        data = source + b"# v%d\n" % saves
        target = os.path.join(folder, "m.py")
        if mode == "in-place" or (mode == "both" and saves % 2):
            with open(target, "wb") as fh:
                fh.write(data)
        else:
            tmp = os.path.join(folder, "editor.swp")
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        last[folder], last_data[folder] = saves, data

    print("ready", flush=True)
    end = time.monotonic() + seconds
    next_round = 0.0
    while time.monotonic() < end and raced < races:
        for folder in folders:
            temps = [n for n in os.listdir(folder) if n.startswith(".castlint-") and (folder, n) not in seen]
            if temps:
                seen.update((folder, n) for n in temps)
                raced += 1
                save(folder)
        if time.monotonic() > next_round:  # keep castlint busy: save again what it fixed
            next_round = time.monotonic() + 0.02
            for folder in folders:
                with open(os.path.join(folder, "m.py"), "rb") as fh:
                    if fh.read() != last_data[folder]:
                        save(folder)
    time.sleep(0.3)  # let a castlint write in flight land
    lost += [f for f in folders if marker(f) < last[f]]
    print(json.dumps({"saves": saves, "raced": raced, "lost": sorted(set(lost))}))
""")


def _editor_race(tmp_path: Path, monkeypatch, mode: str, races: int = 6, seconds: float = 30.0) -> dict:
    folders = []
    for i in range(6):
        folder = tmp_path / f"f{i}"
        folder.mkdir()
        (folder / "m.py").write_bytes(GATHER + b"# v0\n")
        folders.append(folder)
    (tmp_path / "source.py").write_bytes(GATHER)
    real_fsync = os.fsync

    def slow_fsync(fd):  # a disk where fsync takes a few ms, as most do
        real_fsync(fd)
        time.sleep(0.005)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    editor = subprocess.Popen(
        [
            sys.executable,
            "-c",
            EDITOR,
            os.pathsep.join(map(str, folders)),
            str(seconds),
            mode,
            str(tmp_path / "source.py"),
            str(races),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert editor.stdout.readline() == "ready\n"
    files = [str(f / "m.py") for f in folders]
    config = Config(root=tmp_path, cache=False)
    written = stale = 0
    try:
        while editor.poll() is None:
            outcome = fix_files(files, TABLES, config, FixOptions(), jobs=1)
            written += len(outcome.changed)
            stale += sum(
                1
                for e in outcome.errors
                if "changed on disk" in e.message or "rewritten by another program" in e.message
            )
    finally:
        out, _ = editor.communicate(timeout=30)
    report = json.loads(out)
    report.update(written=written, stale=stale)
    assert not [n for f in folders for n in os.listdir(f) if n.startswith(".castlint-")]  # no temp file left
    return report


@linux_only
def test_concurrent_editor_loses_no_write(tmp_path, monkeypatch):
    """An editor that saves exactly while castlint writes: before, most of those saves
    were lost; now each is kept (castlint reports the file instead, or the editor's
    later save wins)."""
    report = _editor_race(tmp_path, monkeypatch, "both")
    assert report["raced"] >= 6, report  # the editor really saved while castlint wrote
    assert report["lost"] == [], report


@linux_only
def test_concurrent_in_place_editor_loses_no_write_without_rename_exchange(tmp_path, monkeypatch):
    """Where the file system cannot exchange two names, the hard link to the old file
    still catches a writer that writes in place."""
    monkeypatch.setattr(write_module, "USE_EXCHANGE", False)
    report = _editor_race(tmp_path, monkeypatch, "in-place", races=3)
    assert report["raced"] >= 3, report
    assert report["lost"] == [], report


def test_a_save_between_the_last_check_and_the_rename_is_put_back(tmp_path, monkeypatch):
    """Deterministic: another program replaces the file right after castlint's last check."""
    target = tmp_path / "x.py"
    target.write_bytes(GATHER)
    data, snapshot = write_module.read_snapshot(str(target))
    real_read_at = write_module._read_at
    calls = []

    def read_then_editor_saves(path):
        result = real_read_at(path)
        if not calls and path == str(target):  # the last look before the rename
            calls.append(path)
            (tmp_path / "swap").write_bytes(b"# the editor's save\n")
            os.replace(tmp_path / "swap", target)
        return result

    monkeypatch.setattr(write_module, "_read_at", read_then_editor_saves)
    with pytest.raises(write_module.StaleFileError, match="rewritten by another program"):
        write_module.atomic_write(str(target), b"x = 1\n", snapshot)
    assert target.read_bytes() == b"# the editor's save\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.py"]


# -- symlinks out of the tree --------------------------------------------------------------------


def test_fix_does_not_write_through_a_symlink_out_of_the_checked_paths(tmp_path):
    tree, elsewhere = tmp_path / "tree", tmp_path / "elsewhere"
    tree.mkdir()
    elsewhere.mkdir()
    (elsewhere / "shared.py").write_bytes(GATHER)
    (tree / "link.py").symlink_to(elsewhere / "shared.py")
    (tree / "own.py").write_bytes(GATHER)
    (tree / "inside.py").symlink_to(tree / "own.py")  # a link within the tree is fine
    config = Config(root=tmp_path, cache=False)
    files = [str(tree / n) for n in ("inside.py", "link.py", "own.py")]
    outcome = fix_files(files, TABLES, config, FixOptions(), jobs=1, roots=[str(tree)])
    assert (elsewhere / "shared.py").read_bytes() == GATHER
    notes = [(Path(p).name, why) for p, line, why in outcome.notes if "symlink" in why]
    assert notes == [
        (
            "link.py",
            f"not written: a symlink to {elsewhere / 'shared.py'}, outside the checked "
            "paths (--follow-symlinks-outside writes through it)",
        )
    ]
    assert (tree / "link.py").is_symlink() and b"[loc].to(torch.bfloat16)" in (tree / "own.py").read_bytes()

    outcome = fix_files(
        [str(tree / "link.py")], TABLES, config, FixOptions(), jobs=1, roots=[str(tree)], follow_symlinks_outside=True
    )
    assert outcome.changed == [str(tree / "link.py")]
    assert (tree / "link.py").is_symlink() and b"[loc].to(torch.bfloat16)" in (elsewhere / "shared.py").read_bytes()


def test_fix_cli_names_the_file_it_does_not_write_through(tmp_path, castlint):
    (tmp_path / "tree").mkdir()
    (tmp_path / "shared.py").write_bytes(GATHER)
    (tmp_path / "tree" / "link.py").symlink_to(tmp_path / "shared.py")
    proc = castlint("fix", "--no-cache", "tree", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert (
        f"tree/link.py:0: not written: a symlink to {tmp_path / 'shared.py'}, outside the checked paths" in proc.stderr
    )
    assert (tmp_path / "shared.py").read_bytes() == GATHER
    proc = castlint("fix", "--no-cache", "--follow-symlinks-outside", "tree", cwd=tmp_path)
    assert proc.returncode == 1 and b"[loc].to(torch.bfloat16)" in (tmp_path / "shared.py").read_bytes()


# -- temp files of a killed write ------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temp_files_of_a_killed_write_are_removed_at_the_next_fix(tmp_path):
    target = tmp_path / "x.py"
    target.write_bytes(GATHER)
    old = time.time() - 60
    dead, alive = _dead_pid(), os.getpid()
    ours_dead = tmp_path / f".castlint-{dead}-abcd1234.tmp"
    legacy_old = tmp_path / ".castlint-k3j_9zzq.tmp"  # before the pid was in the name
    keep = {
        tmp_path / f".castlint-{alive}-abcd1234.tmp": old,  # its writer is alive (maybe writing now)
        tmp_path / f".castlint-{dead}-abcd5678.tmp": None,  # dead writer, but written a moment ago
        tmp_path / ".castlint-notes.tmp": old,  # not our pattern
        tmp_path / f".castlint-{dead}-abcd1234.tmp.bak": old,
        tmp_path / "castlint-1-abcd1234.tmp": old,
    }
    for path in [ours_dead, legacy_old, *keep]:
        path.write_bytes(b"half a file")
    os.utime(ours_dead, (old, old))
    os.utime(legacy_old, (old - 7200, old - 7200))
    for path, when in keep.items():
        if when is not None:
            os.utime(path, (when, when))
    link = tmp_path / f".castlint-{dead}-zzzz0000.tmp"
    link.symlink_to(tmp_path / "x.py")  # a link of our name: never removed (nor followed)
    os.utime(link, (old, old), follow_symlinks=False)

    outcome = fix_files([str(target)], TABLES, Config(root=tmp_path, cache=False), FixOptions(), jobs=1)
    assert outcome.changed == [str(target)]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["x.py", link.name, *(p.name for p in keep)]), names
    assert target.read_bytes() != GATHER


def test_write_temp_names_carry_the_pid(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace
    monkeypatch.setattr(write_module, "USE_EXCHANGE", False)
    monkeypatch.setattr(os, "replace", lambda a, b, **kw: (seen.append(os.path.basename(a)), real_replace(a, b, **kw)))
    target = tmp_path / "x.py"
    target.write_bytes(b"x = 1\n")
    data, snap = write_module.read_snapshot(str(target))
    write_module.atomic_write(str(target), b"x = 2\n", snap)
    assert target.read_bytes() == b"x = 2\n"
    assert len(seen) == 1 and write_module.TEMP_RE.fullmatch(seen[0]) and f"-{os.getpid()}-" in seen[0]


# -- the cache ------------------------------------------------------------------------------------


def _cached_tree(tmp_path: Path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    config = Config(root=tmp_path)
    files = [str(tree / "good.py")]
    cold = check_paths(files, TABLES, config, jobs=1)
    (cache_file,) = (tmp_path / ".castlint_cache").glob("v1-*.json")
    return config, files, cold, cache_file


CORRUPTIONS = {
    "line-as-string": lambda e: e[2][1][0]["start"].update(line="2"),
    "column-as-float": lambda e: e[2][1][0]["end"].update(column=3.0),
    "severity-unknown": lambda e: e[2][1][0].update(severity="fatal"),
    "cost-as-list": lambda e: e[2][1][0].update(cost=[1, 2]),
    "fix-safety-unknown": lambda e: e[2][1][0].update(fix={"codemod": "x", "safety": "maybe", "description": "d"}),
    "extra-key": lambda e: e[2][1][0].update(path="/etc/passwd"),
    "message-as-number": lambda e: e[2][1][0].update(message=5),
    "error-line-as-string": lambda e: e[2].__setitem__(2, [["1", "m", "parse"]]),
    "skipped-as-string": lambda e: e[2].__setitem__(0, "no"),
    "findings-as-dict": lambda e: e[2].__setitem__(1, {}),
    "signature-too-short": lambda e: e.__setitem__(0, [1, 2]),
    "entry-as-dict": lambda e: (e.clear(), e.extend([{}, "x", []])),
    "negative-line": lambda e: e[2][1][0]["start"].update(line=-1),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_cache_entry_with_a_wrong_field_type_is_dropped_and_recomputed(tmp_path, case):
    config, files, cold, cache_file = _cached_tree(tmp_path)
    data = json.loads(cache_file.read_text())
    CORRUPTIONS[case](data["entries"][files[0]])
    cache_file.write_text(json.dumps(data))
    warm = check_paths(files, TABLES, config, jobs=1)
    assert warm.stats["cached"] == 0  # not trusted
    assert [f.to_dict() for f in warm.findings] == [f.to_dict() for f in cold.findings]
    for f in warm.findings:
        assert f.sort_key() > (f.path, 0, 0, "")  # comparable: the types are right
        assert type(f.start.line) is int and type(f.end.column) is int
    again = check_paths(files, TABLES, config, jobs=1)  # the bad entry was replaced on disk
    assert again.stats["cached"] == 1


def test_symlinked_cache_directory_is_never_followed(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    for i in range(10):
        (victim / f"v1-{i}.json").write_text("{}")  # names like castlint's, not castlint's
        (victim / f"v1-{i:020x}.json").write_text("{}")  # even castlint's exact pattern
    (tmp_path / ".castlint_cache").symlink_to(victim)
    before = sorted(p.name for p in victim.iterdir())
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    config = Config(root=tmp_path)
    for _ in range(2):
        run = check_paths([str(tree / "good.py")], TABLES, config, jobs=1)
        assert [f.code for f in run.findings] == ["CL001"]
    assert sorted(p.name for p in victim.iterdir()) == before
    err = capsys.readouterr().err
    assert err.count(".castlint_cache is a symbolic link") <= 1 and "cache is off" in err


def test_cache_trim_deletes_only_its_own_files_in_its_own_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(cachemod, "KEEP_FILES", 1)
    folder = tmp_path / ".castlint_cache"
    folder.mkdir()
    (folder / "notes.json").write_text("mine")  # a directory castlint did not make
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    config = Config(root=tmp_path)
    files = [str(tree / "good.py")]
    for options in ((1,), (2,)):
        store = cachemod.open_cache(config, TABLES, options)
        store.store(
            files[0],
            cachemod.signature(files[0]),
            b"0" * 16,
            check_paths(files, TABLES, config, jobs=1, cache=False).results[0],
        )
        store.save()
    assert len(list(folder.glob("v1-*.json"))) == 2 and (folder / "notes.json").exists()  # not ours: no trim
    assert not (folder / "CACHEDIR.TAG").exists()

    import shutil

    shutil.rmtree(folder)
    for options in ((1,), (2,), (3,)):
        store = cachemod.open_cache(config, TABLES, options)
        store.store(
            files[0],
            cachemod.signature(files[0]),
            b"0" * 16,
            check_paths(files, TABLES, config, jobs=1, cache=False).results[0],
        )
        store.save()
        for name in ("v1-0123.json", "v1-notes.json", "v2-0123456789abcdef0123.json"):
            (folder / name).write_text("{}")  # placed by someone else, in castlint's directory
    own = list(folder.glob("v1-" + "[0-9a-f]" * 20 + ".json"))
    assert len(own) == 1  # trimmed to KEEP_FILES
    assert {"v1-0123.json", "v1-notes.json", "v2-0123456789abcdef0123.json"} <= {p.name for p in folder.iterdir()}


# -- a killed run leaves no worker ------------------------------------------------------------------


def _children(pid: int) -> set:
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            out.add(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


@linux_only
def test_sigkill_of_castlint_leaves_no_worker_holding_the_pipe(tmp_path):
    """`castlint fix` starts the same pool (and fix_files' own pool runs the same guard)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    command, body = "check", GOOD.encode() + GATHER
    for i in range(120):
        (tree / f"m{i:03d}.py").write_bytes(body + b"\n" * i)
    proc = subprocess.Popen(
        [sys.executable, "-m", "castlint", command, "--no-cache", "-j", "2", str(tree)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(os.environ, NO_COLOR="1"),
    )
    workers: set = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.01)
    assert len(workers) >= 2, "the pool never started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.02)
    orphans = [w for w in workers if _alive(w)]
    for pid in orphans:  # a failing run must not leave them behind
        os.kill(pid, signal.SIGKILL)
    assert not orphans, "a worker outlived the killed castlint"
    import select

    fd = proc.stdout.fileno()
    end = time.monotonic() + 5
    while time.monotonic() < end:  # the caller's pipe reaches EOF: nobody holds it any more
        ready, _, _ = select.select([fd], [], [], max(end - time.monotonic(), 0))
        if ready and not os.read(fd, 65536):
            break
    else:
        pytest.fail("the pipe never reached EOF")
    proc.stdout.close()
