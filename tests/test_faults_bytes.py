"""The fix keeps every byte it does not mean to change, and what the file is beyond its bytes.

- line endings: the lines a codemod inserts (the MLA rewrite builds them from templates in
  LF) get the file's own ending, in a BOM + CRLF file and a CR-only file too; a line changed
  in place keeps its own; a file with mixed endings keeps the lines the fix did not touch;
- the final byte: libcst drops the last CR of a CR-only file; the fix puts it back;
- hard links: a rewrite renames a new file over the name, which would split the link (the
  other names keep the old bytes), so a file with a second link is not written (an error
  naming it, exit 2), by `fix` and by `--add-noqa`;
- owner, group, mode and extended attributes are kept; a rewrite that cannot keep the
  owner or group (another user's file) is refused instead of taking the file over.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from castlint.fixes.write import NotWritten, Snapshot, atomic_write, dominant_ending, keep_line_endings
from conftest import FIXTURES, run_castlint

MLA = (FIXTURES / "fix" / "mla_backend.in.py").read_bytes().replace(b"\r\n", b"\n")
MLA_FIXED = (FIXTURES / "fix" / "mla_backend.out.py").read_bytes().replace(b"\r\n", b"\n")
GATHER = (
    b"import torch\n\ndef forward_decode(self, layer, loc):\n"
    b"    x = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n    return x\n"
)
GATHER_FIXED = GATHER.replace(b".to(torch.bfloat16)[loc]", b"[loc].to(torch.bfloat16)")
GOOD = b"def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"


def _endings(data: bytes) -> dict:
    crlf = data.count(b"\r\n")
    return {"crlf": crlf, "lf": data.count(b"\n") - crlf, "cr": data.count(b"\r") - crlf}


def _fix(tmp_path: Path, name: str, data: bytes) -> bytes:
    target = tmp_path / name
    target.write_bytes(data)
    proc = run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    again = run_castlint("fix", "--diff", "--no-cache", target, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == "", again.stdout  # a second fix is a no-op
    return target.read_bytes()


@pytest.mark.parametrize("variant", ["bom+crlf", "crlf", "cr", "bom+cr", "lf"])
def test_inserted_lines_get_the_files_line_ending_and_the_final_byte_is_kept(tmp_path, variant):
    newline = b"\r\n" if "crlf" in variant else b"\r" if "cr" in variant else b"\n"
    bom = b"\xef\xbb\xbf" if "bom" in variant else b""
    fixed = _fix(tmp_path, "flashinfer_mla_backend.py", bom + MLA.replace(b"\n", newline))
    assert fixed == bom + MLA_FIXED.replace(b"\n", newline)  # byte for byte: the LF fix in this file's endings
    assert fixed.endswith(newline)


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_the_cast_after_gather_fix_keeps_endings_and_the_final_byte(tmp_path, newline):
    assert _fix(tmp_path, "g.py", GATHER.replace(b"\n", newline)) == GATHER_FIXED.replace(b"\n", newline)
    no_final = GATHER.replace(b"\n", newline)[: -len(newline)]
    assert _fix(tmp_path, "h.py", no_final) == GATHER_FIXED.replace(b"\n", newline)[: -len(newline)]


def test_a_file_with_mixed_endings_keeps_the_lines_the_fix_did_not_touch(tmp_path):
    lines = MLA.split(b"\n")
    mixed = b"".join(line + (b"\n" if i % 7 == 3 else b"\r\n") for i, line in enumerate(lines[:-1]))
    fixed = _fix(tmp_path, "flashinfer_mla_backend.py", mixed)
    old_lines = mixed.splitlines(keepends=True)
    fixed_lf = MLA_FIXED.split(b"\n")
    untouched = [
        line
        for line in old_lines
        if not line.endswith(b"\r\n")
        and line.strip()
        and fixed_lf.count(line[:-1]) == 1
        and MLA.split(b"\n").count(line[:-1]) == 1
    ]
    assert len(untouched) >= 5
    new_lines = fixed.splitlines(keepends=True)
    for line in untouched:  # every LF line of the original the fix kept is still there, still LF
        assert line in new_lines, line
    new_content = [line for line in new_lines if line.rstrip(b"\r\n") not in MLA.split(b"\n")]
    old_lf = [line for line in old_lines if not line.endswith(b"\r\n")]
    assert len(new_content) > 15  # the call-site edits (the machinery is in the module the fix adds)
    for line in new_content:  # inserted lines: the dominant CRLF; a line edited in place (an argument): its own
        assert line.endswith(b"\r\n") or any(old.startswith(line.split(b"=")[0] + b"=") for old in old_lf), line
    assert _endings(fixed)["cr"] == 0


def test_every_fix_path_keeps_line_endings(tmp_path):
    """fix_source (stdin, --diff, the bot's suggestions) goes through the same apply step."""
    from castlint.fixes import fix_source
    from castlint.tables import load_tables

    source = b"\xef\xbb\xbf" + MLA.replace(b"\n", b"\r\n")
    new = fix_source(source, "flashinfer_mla_backend.py", load_tables()).new_source
    assert new == b"\xef\xbb\xbf" + MLA_FIXED.replace(b"\n", b"\r\n")
    proc = run_castlint("fix", "--stdin-filename", "flashinfer_mla_backend.py", "-", input=source, cwd=tmp_path)
    assert proc.returncode in (0, 1) and proc.stdout.count("self.kv_read.call_plan(") >= 2, proc.stderr


def test_keep_line_endings_unit():
    assert dominant_ending(b"a\r\nb\r\nc\n") == b"\r\n" and dominant_ending(b"abc") is None
    assert keep_line_endings(b"a\r\nb\r\n", b"a\r\nx\ny\nb\r\n") == b"a\r\nx\r\ny\r\nb\r\n"
    assert keep_line_endings(b"a\rb\r", b"a\rb2") == b"a\rb2\r"  # libcst dropped the final CR
    assert keep_line_endings(b"a\rb", b"a\rb2") == b"a\rb2"  # no final break: none added
    assert keep_line_endings(b"a\nb\r\nc\r\n", b"a\nB\r\nc\r\n") == b"a\nB\r\nc\r\n"
    assert keep_line_endings(b"a\nb\r\nc\r\n", b"A\nb\r\nc\r\n") == b"A\nb\r\nc\r\n"  # changed in place: its own
    assert keep_line_endings(b"x = 1\n", b"x = 2\n") == b"x = 2\n"
    assert keep_line_endings(b"", b"x\n") == b"x\n"


# -- hard links ------------------------------------------------------------------------------


def test_a_file_with_a_second_hard_link_is_not_split(tmp_path):
    target = tmp_path / "g.py"
    target.write_bytes(GATHER)
    os.link(target, tmp_path / "other_name.py")
    proc = run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    assert proc.returncode == 2
    assert "g.py has 2 hard links" in proc.stdout and "not written" in proc.stdout
    assert target.read_bytes() == GATHER and (tmp_path / "other_name.py").read_bytes() == GATHER
    assert os.stat(target).st_nlink == 2  # still one file
    os.unlink(tmp_path / "other_name.py")
    run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    assert target.read_bytes() == GATHER_FIXED


def test_add_noqa_does_not_split_a_hard_link_either(tmp_path):
    target = tmp_path / "a.py"
    target.write_bytes(GOOD)
    os.link(target, tmp_path / "b.txt")
    proc = run_castlint("check", "--add-noqa", "--no-cache", target, cwd=tmp_path)
    assert proc.returncode == 2 and "has 2 hard links" in proc.stderr + proc.stdout
    assert target.read_bytes() == GOOD


# -- owner, group, mode, extended attributes -------------------------------------------------


def test_mode_and_extended_attributes_are_kept(tmp_path):
    target = tmp_path / "g.py"
    target.write_bytes(GATHER)
    target.chmod(0o640)
    try:
        os.setxattr(target, "user.castlint.test", b"kept")
    except OSError:
        pytest.skip("no user extended attributes on this file system")
    run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    assert target.read_bytes() == GATHER_FIXED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.getxattr(target, "user.castlint.test") == b"kept"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_owner_and_group_are_kept_when_root_rewrites_another_users_file(tmp_path):
    target = tmp_path / "g.py"
    target.write_bytes(GATHER)
    os.chown(target, 12345, 23456)
    target.chmod(0o2755)  # set-id bits survive the chown
    run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    st = target.stat()
    assert target.read_bytes() == GATHER_FIXED
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (12345, 23456, 0o2755)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to switch users")
def test_another_users_file_is_not_taken_over():
    """A user who may write someone else's file (a shared group, a world-writable folder)
    would become its owner by an atomic rewrite: castlint refuses and says why."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="castlint-owner-", dir="/tmp"))  # pytest's tmp_path is root-only
    try:
        _refused_as_another_user(folder)
    finally:
        shutil.rmtree(folder)


def _refused_as_another_user(folder: Path) -> None:
    folder.chmod(0o777)
    target = folder / "g.py"
    target.write_bytes(GATHER)
    target.chmod(0o666)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become another user, then write as castlint would
        os.close(read)
        code = 0
        try:
            os.setgid(54321)
            os.setuid(54321)
            data = target.read_bytes()
            try:
                atomic_write(str(target), GATHER_FIXED, Snapshot.of(str(target), data))
                message = b"written"
            except NotWritten as exc:
                message = str(exc).encode()
            os.write(write, message)
        except BaseException:  # noqa: BLE001 - report, never run the parent's code in the child
            code = 3
        os._exit(code)
    os.close(write)
    message = os.read(read, 4096).decode()
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert "belongs to uid 0, gid 0; castlint runs as uid 54321" in message and "not written" in message
    assert target.read_bytes() == GATHER and target.stat().st_uid == 0
    assert [p.name for p in folder.iterdir()] == ["g.py"]  # no temp file left
