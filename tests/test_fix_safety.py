"""A fix must be safe: output parses, stale files are not overwritten, bytes are kept."""
import os
import shutil
import stat

import pytest

from castlint.config import Config
from castlint.fixes import FixError, FixOptions, fix_files, fix_source
from castlint.fixes import write as write_module
from castlint.fixes.write import StaleFileError, atomic_write, read_snapshot
from castlint.tables import load_tables

from conftest import FIXTURES, run_castlint

TABLES = load_tables()
GATHER = (FIXTURES / "fix" / "cast_before_gather.in.py").read_bytes()


def test_stale_file_is_not_overwritten(tmp_path):
    target = tmp_path / "x.py"
    target.write_bytes(GATHER)
    data, snapshot = read_snapshot(str(target))
    target.write_bytes(GATHER + b"# edited by someone else\n")
    with pytest.raises(StaleFileError):
        atomic_write(str(target), b"x = 1\n", snapshot)
    assert target.read_bytes().endswith(b"# edited by someone else\n")


def test_stale_file_during_fix_files_is_reported(tmp_path, monkeypatch):
    target = tmp_path / "x.py"
    target.write_bytes(GATHER)
    real = write_module.atomic_write

    def edit_then_write(path, data, snapshot):
        with open(path, "ab") as fh:
            fh.write(b"# concurrent edit\n")
        return real(path, data, snapshot)

    monkeypatch.setattr("castlint.fixes.atomic_write", edit_then_write)
    outcome = fix_files([str(target)], TABLES, Config(), FixOptions(), jobs=1)
    assert outcome.changed == [] and "changed on disk" in outcome.errors[0].message
    assert target.read_bytes() == GATHER + b"# concurrent edit\n"


def test_output_that_does_not_parse_leaves_the_file_untouched(tmp_path, monkeypatch):
    import libcst as cst
    from castlint.fixes import cast_after_gather

    # a codemod whose output compile() rejects (a return outside a function)
    def invalid(module, ctx, allowed, unsafe):
        return cst.parse_module(module.code + "\nreturn 1\n"), ["x"], []

    monkeypatch.setattr(cast_after_gather, "rewrite", invalid)
    target = tmp_path / "x.py"
    target.write_bytes(GATHER)
    with pytest.raises(FixError):
        fix_source(GATHER, str(target), TABLES, FixOptions())
    monkeypatch.undo()  # run_castlint may run in this process
    proc = run_castlint("fix", target)  # a real run, with the real codemod, works
    assert proc.returncode == 1 and b"[loc].to(torch.bfloat16)" in target.read_bytes()


def test_fix_keeps_mode_bom_and_crlf(tmp_path):
    target = tmp_path / "x.py"
    crlf = b"\xef\xbb\xbf" + GATHER.replace(b"\n", b"\r\n")
    target.write_bytes(crlf)
    os.chmod(target, 0o750)
    proc = run_castlint("fix", target)
    assert proc.returncode == 1, proc.stderr
    out = target.read_bytes()
    assert out.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in out and b"\n" not in out.replace(b"\r\n", b"")
    assert b"[loc].to(torch.bfloat16)" in out
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    # everything but the fixed lines is byte-identical
    changed = [(a, b) for a, b in zip(crlf.split(b"\r\n"), out.split(b"\r\n")) if a != b]
    assert len(changed) == 6 and len(crlf.split(b"\r\n")) == len(out.split(b"\r\n"))


def test_latin1_cookie_is_kept(tmp_path):
    target = tmp_path / "x.py"
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n".encode("latin-1") + GATHER
    target.write_bytes(source)
    run_castlint("fix", target)
    out = target.read_bytes()
    assert out.startswith("# -*- coding: latin-1 -*-\n# caf\xe9\n".encode("latin-1"))
    assert b"[loc].to(torch.bfloat16)" in out


def test_symlinked_file_is_written_through_the_link(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(GATHER)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    fix_files([str(link)], TABLES, Config(), FixOptions(), jobs=1)
    assert link.is_symlink() and b"[loc].to(torch.bfloat16)" in real.read_bytes()
