"""`castlint fix` on a released sglang parses each fixable file once.

A counter on libcst.parse_module (the only way castlint turns source into a tree)
records what every parse read. The fix run checks and fixes each file from one
analysis: a fixable file's bytes are parsed once, the rewritten module is
re-checked without parsing it, and nothing else of the file is parsed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections import Counter

import libcst

from castlint.config import Config
from castlint.discover import discover
from castlint.fixes import FixOptions, fix_files
from castlint.tables import load_tables
from conftest import sglang_tree


def test_fix_on_sglang_0_5_23_parses_each_fixable_file_once(tmp_path, monkeypatch):
    # every fixable file of the release - the attention backends the fix rewrites, the pools'
    # folder (and the other files there, fixed or not) - with the version file the fix reads: the
    # whole tree is tests/test_corpus.py's
    source, tree = sglang_tree("0.5.23"), tmp_path / "sglang"
    for folder in ("srt/mem_cache", "srt/hardware_backend/musa/attention"):
        shutil.copytree(source / folder, tree / folder)
    backends = ("flashinfer_mla_backend", "flashattention_backend", "xpu_backend", "triton_backend")
    for name in (*backends, "base_attn_backend", "flashinfer_backend", "__init__"):
        if (source / "srt/layers/attention" / f"{name}.py").exists():
            (tree / "srt/layers/attention").mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / "srt/layers/attention" / f"{name}.py", tree / "srt/layers/attention" / f"{name}.py")
    for name in (
        "version.py",
        "__init__.py",
        "srt/__init__.py",
        "srt/layers/__init__.py",
        "srt/hardware_backend/__init__.py",
        "srt/hardware_backend/musa/__init__.py",
    ):
        if (source / name).exists():  # the package the added modules are placed in
            shutil.copy2(source / name, tree / name)
    config = Config(root=tmp_path)
    config.cache = False
    tables = load_tables()
    files, _ = discover([str(tree)], config)
    before = {path: open(path, "rb").read() for path in files}

    # The counter runs where the parse does: in the run's two forked workers (they inherit the
    # patched libcst), each parse appending the digest of what it read to one file (O_APPEND,
    # one short write per parse). In this process with -j 1 it took about twice the wall time.
    log = tmp_path / "parsed.log"
    real = libcst.parse_module

    def counting(source, *args, **kwargs):
        data = source if isinstance(source, bytes) else source.encode("utf-8")
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, hashlib.sha256(data).hexdigest().encode() + b"\n")
        finally:
            os.close(fd)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    monkeypatch.delenv("CASTLINT_IN_PROCESS", raising=False)  # in workers, as users run it
    outcome = fix_files(files, tables, config, FixOptions(), jobs=2)
    digests = Counter(log.read_text().split())
    parsed = _ByBytes(digests)

    assert outcome.errors == []
    changed = sorted(outcome.changed)
    assert {os.path.basename(p)[: -len(".py")] for p in changed} >= {*backends, "memory_pool"}, changed
    added = [p for p in changed if p not in before]
    # the modules the paged read and the rows read add
    assert sorted(os.path.basename(p) for p in added) == ["kv_rows_read.py", "mla_kv_read.py"], added
    for path in (p for p in changed if p in before):
        assert parsed[before[path]] == 1, path  # the original bytes, once
        assert parsed[open(path, "rb").read()] == 0, path  # the fixed file is re-checked from its tree
    # no other file is parsed whole more than once (files with equal bytes count together)
    copies = Counter(before.values())
    assert all(parsed[data] <= copies[data] for data in before.values())


class _ByBytes:
    """parsed[data]: how many parses read data (counted by digest)."""

    def __init__(self, digests: Counter):
        self.digests = digests

    def __getitem__(self, data: bytes) -> int:
        return self.digests[hashlib.sha256(data).hexdigest()]


def test_two_codemods_in_one_file_share_one_parse(tmp_path, monkeypatch):
    """The MLA rewrite and a cast moved after its gather, in one file: the second codemod
    finds its site again on the rewritten tree (analysed, not parsed)."""
    from conftest import FIXTURES

    source = (FIXTURES / "fix" / "mla_backend.in.py").read_bytes() + (
        b"\n\nclass Gatherer:\n    def read(self, layer, loc):\n"
        b"        return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"
    )
    target = tmp_path / "both.py"
    target.write_bytes(source)
    parsed = []
    real = libcst.parse_module

    def counting(text, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    monkeypatch.setenv("CASTLINT_IN_PROCESS", "1")  # parse here, not in a worker, so that the counter sees it
    config = Config(root=tmp_path)
    config.cache = False
    outcome = fix_files([str(target)], load_tables(), config, FixOptions(), jobs=1)
    fixed = target.read_bytes()
    assert outcome.changed == [str(target), str(tmp_path / "mla_kv_read.py")] and outcome.errors == []
    assert b"[loc].to(torch.bfloat16)" in fixed and b"self.kv_read.call_plan(" in fixed  # both codemods
    assert sum(1 for text in parsed if text == source) == 1
    assert not any(text == fixed for text in parsed)
