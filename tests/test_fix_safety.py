"""A fix must be safe: output parses, stale files are not overwritten, bytes are kept."""

import os
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

    monkeypatch.setattr("castlint.fixes.write.atomic_write", edit_then_write)
    outcome = fix_files([str(target)], TABLES, Config(), FixOptions(), jobs=1)
    assert outcome.changed == [] and "changed on disk" in outcome.errors[0].message
    assert target.read_bytes() == GATHER + b"# concurrent edit\n"


def test_output_that_does_not_parse_leaves_the_file_untouched(tmp_path, monkeypatch):
    import libcst as cst

    from castlint.checks.cast_before_gather import fix as cast_after_gather
    from castlint.fixes import CodemodResult

    # a codemod whose output compile() rejects (a return outside a function)
    def invalid(self, module, ctx, findings, options):
        return CodemodResult(cst.parse_module(module.code + "\nreturn 1\n"), ["x"], [])

    monkeypatch.setattr(cast_after_gather.CastAfterGather, "apply", invalid)
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


# -- CL003: the cast moves only when that provably keeps the result --------------------------

import textwrap  # noqa: E402

import libcst as cst  # noqa: E402

from castlint.checks.cast_before_gather import CastBeforeGather  # noqa: E402
from castlint.engine import module_context  # noqa: E402

HEAD = "import torch\n\n\nclass Backend:\n"


def cl003(body: str):
    """(safety or None, reason) of each CL003 finding in a method body of an engine-style class."""
    source = HEAD + textwrap.indent(textwrap.dedent(body), "    ")
    module = cst.parse_module(source)
    ctx = module_context(module, "backend.py", TABLES, Config().cost_model(TABLES))
    out = []
    for f in CastBeforeGather().check(ctx):
        out.append((f.fix.safety.value if f.fix else None, f.fix.description if f.fix else f.unfixable_reason))
    return out


DEF = "def forward_decode(self, q, layer, forward_batch):\n"
CAST = "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
READ = "    return latent[forward_batch.kv_indices]\n"

# (body, expected safety: "safe" | "unsafe" | None = not offered, a word of the reason)
CASES = {
    # -- the dtype expression is rebound between the cast and a gather: not offered
    "rebind-assign": (DEF + CAST + "    q = q.float()\n" + READ, None, "`q` is rebound"),
    "rebind-augassign": (DEF + CAST + "    q *= 2\n" + READ, None, "`q` is rebound"),
    "rebind-for": (DEF + CAST + "    for q in forward_batch.chunks:\n        pass\n" + READ, None, "rebound"),
    "rebind-walrus": (DEF + CAST + "    if (q := q.float()) is not None:\n        pass\n" + READ, None, "rebound"),
    "rebind-with": (DEF + CAST + "    with forward_batch.ctx() as q:\n        pass\n" + READ, None, "rebound"),
    "rebind-del": (DEF + CAST + "    del q\n" + READ, None, "rebound"),
    "rebind-except": (
        DEF + CAST + "    try:\n        pass\n    except ValueError as q:\n        pass\n" + READ,
        None,
        "rebound",
    ),
    "rebind-in-loop-after-use": (
        DEF + "    outs = []\n" + CAST + "    for loc in forward_batch.locs:\n"
        "        outs.append(latent[loc])\n        q = q.float()\n    return outs\n",
        None,
        "rebound",
    ),
    "rebind-attribute": (
        DEF + "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(self.dtype)\n"
        "    self.dtype = torch.float16\n" + READ,
        None,
        "`self.dtype` is assigned",
    ),
    "shadow-comprehension": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    return rows, [latent[q] for q in forward_batch.locs]\n",
        None,
        "different variable",
    ),
    "shadow-lambda-param": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    pick = lambda q: latent[q]\n    return rows, pick\n",
        None,
        "different variable",
    ),
    "walrus-in-direct-index": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)[(q := forward_batch.loc)]\n",
        None,
        "rebound",
    ),
    # -- a write to the pool between: not offered
    "set-kv-buffer": (
        DEF + CAST + "    forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n" + READ,
        None,
        "stores into a KV pool",
    ),
    "set-mla-kv-buffer": (
        DEF + CAST + "    self.token_to_kv_pool.set_mla_kv_buffer(layer, loc, k, r)\n" + READ,
        None,
        "stores into a KV pool",
    ),
    "index-put-alias": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    buf[forward_batch.out_cache_loc] = k\n" + READ,
        None,
        "writes into the pool",
    ),
    "index-put-view": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    buf[:, :, :512][forward_batch.loc] = k\n" + READ,
        None,
        "writes into the pool",
    ),
    "augassign-alias": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    buf += 1\n" + READ,
        None,
        "in place",
    ),
    "copy_": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    buf.copy_(other)\n" + READ,
        None,
        "in place",
    ),
    "index_copy_": (
        DEF + CAST + "    self.token_to_kv_pool.get_key_buffer(layer.layer_id).index_copy_(0, loc, k)\n" + READ,
        None,
        "in place",
    ),
    "inplace-function": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    torch.index_put_(buf, (loc,), k)\n" + READ,
        None,
        "in place",
    ),
    "write-converted": (
        DEF + CAST + "    latent[forward_batch.out_cache_loc] = k\n" + READ,
        None,
        "writes into the converted pool",
    ),
    "inplace-converted-rows": (DEF + CAST + "    latent[forward_batch.loc[0]].zero_()\n" + READ, None, "in place"),
    "use-before-cast": (
        DEF + "    outs = []\n    for step in range(2):\n        if step:\n"
        "            outs.append(latent[forward_batch.kv_indices])\n"
        "        latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
        "    return outs\n",
        None,
        "before the line that converts it",
    ),
    "conditional-cast-in-loop": (
        DEF + "    outs = []\n    for step in range(2):\n        if step == 0:\n"
        "            latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
        "        outs.append(latent[forward_batch.kv_indices])\n"
        "        forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n"
        "    return outs\n",
        None,
        "stores into a KV pool",
    ),
    "cast-in-loop-use-after": (
        DEF + "    for step in range(2):\n"
        "        forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n"
        "        latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
        "        forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n" + READ,
        None,
        "stores into a KV pool",
    ),
    "lambda-then-store": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    pick = lambda i: latent[i]\n"
        "    forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n"
        "    return rows, pick(loc)\n",
        None,
        "stores into a KV pool",
    ),
    "whole-read-in-lambda": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    whole = lambda: latent.sum()\n    return rows, whole\n",
        None,
        "not as a gather",
    ),
    "direct-store": (
        DEF + "    self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)[forward_batch.loc] = q\n",
        None,
        "assigned to",
    ),
    "direct-augassign": (
        DEF + "    self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()[forward_batch.loc] += 1\n",
        None,
        "assigned to",
    ),
    "direct-del": (
        DEF + "    del self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()[forward_batch.loc]\n",
        None,
        "assigned to",
    ),
    "f-string": (
        DEF + "    return f'{self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()[forward_batch.loc]}'\n",
        None,
        "f-string",
    ),
    # -- undecidable: unsafe (--unsafe-fixes)
    "helper-on-self": (DEF + CAST + "    self._store(layer, forward_batch)\n" + READ, "unsafe", "may write"),
    "owner-method": (DEF + CAST + "    self.token_to_kv_pool.transfer(layer.layer_id)\n" + READ, "unsafe", "may write"),
    "pool-passed": (
        DEF + "    buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)\n"
        "    latent = buf.to(q.dtype)\n    refresh(buf)\n" + READ,
        "unsafe",
        "passes the pool",
    ),
    "owner-passed": (DEF + CAST + "    refresh(self.token_to_kv_pool)\n" + READ, "unsafe", "passes the pool"),
    "dtype-owner-call": (
        DEF + "    latent = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(self.compute_dtype)\n    self.update_dtype()\n" + READ,
        "unsafe",
        "rebind",
    ),
    "lambda": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n    pick = lambda i: latent[i]\n"
        "    return rows, pick\n",
        "unsafe",
        "lambda",
    ),
    "nested-def": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n\n    def pick(i):\n"
        "        return latent[i]\n\n    return rows, pick\n",
        "unsafe",
        "nested function",
    ),
    "lazy-generator": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    more = (latent[i] for i in forward_batch.locs)\n    return rows, more\n",
        "unsafe",
        "generator",
    ),
    "await": ("async " + DEF + CAST + "    await forward_batch.ready()\n" + READ, "unsafe", "suspends"),
    "device-move": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(self.device, torch.bfloat16)[forward_batch.kv_indices]\n",
        "unsafe",
        "device",
    ),
    "device-keyword": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(device='cpu', dtype=torch.bfloat16)[forward_batch.kv_indices]\n",
        "unsafe",
        "device",
    ),
    "to-other-tensor": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q)[forward_batch.kv_indices]\n",
        "unsafe",
        "another tensor",
    ),
    "dtype-expression-call": (
        DEF + "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(dtype=self.dtypes[layer.layer_id])\n" + READ,
        "unsafe",
        "not a plain name",
    ),
    # issue 19: an attention wrapper's run() writes its output and workspace, and nothing proves that
    # `self.decode_wrapper` holds no view of the pool (it was "safe" while it received neither)
    "wrapper-run-between": (
        DEF + CAST + "    o = self.decode_wrapper.run(q, q, q, q)\n" + READ,
        "unsafe",
        "line 7 calls `self.decode_wrapper.run(...)`",
    ),
    "index-calls-self": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)"
        "[self._locs(forward_batch)]\n",
        "unsafe",
        "may write",
    ),
    # -- safe
    "plain": (DEF + CAST + READ, "safe", ""),
    "other-names-rebound": (
        DEF + CAST + "    k = k.float()\n    q_nope = (q * 1)[..., :512]\n    q_nope.mul_(2)\n" + READ,
        "safe",
        "",
    ),
    "store-before-cast": (
        DEF + "    forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n" + CAST + READ,
        "safe",
        "",
    ),
    "store-after-last-gather": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n"
        "    return rows\n",
        "safe",
        "",
    ),
    "comprehensions": (
        DEF + "    locs = list(forward_batch.locs)\n" + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    more = [latent[i] for i in locs]\n"
        "    by = {i: latent[i] for i in locs}\n"
        "    return torch.cat([rows] + more + list(latent[i] for i in locs)), by\n",
        "safe",
        "",
    ),
    "comprehension-over-an-attribute": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    more = [latent[i] for i in forward_batch.locs]\n"
        "    return torch.cat([rows] + more)\n",
        "unsafe",
        "iterates `forward_batch.locs`, which is not proven a builtin container",
    ),
    "gathered-rows-passed-on": (
        DEF + CAST + "    rows = latent[forward_batch.kv_indices]\n"
        "    out = self.attend(q, latent[forward_batch.prefix_loc], rows)\n"
        "    return out\n",
        "safe",
        "",
    ),
    "loop-per-layer": (
        DEF + "    outs = []\n    for lid in forward_batch.layer_ids:\n"
        "        kv = self.token_to_kv_pool.get_key_buffer(lid).to(q.dtype)\n"
        "        outs.append(kv[forward_batch.kv_indices])\n"
        "        forward_batch.token_to_kv_pool.set_kv_buffer(layer, loc, k, v)\n"
        "    return outs\n",
        "safe",
        "",
    ),
    "direct-non-blocking": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(q.dtype, non_blocking=True)[forward_batch.kv_indices]\n",
        "safe",
        "",
    ),
    "direct-index-select": (
        DEF + "    return self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()"
        ".index_select(0, forward_batch.kv_indices)\n",
        "safe",
        "",
    ),
    "torch-dtype-with-torch-calls": (
        DEF + "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id)"
        ".to(torch.bfloat16)\n    z = torch.zeros(3)\n" + READ,
        "safe",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cl003_fix_safety_classes(name):
    body, safety, word = CASES[name]
    got = cl003(body)
    assert len(got) == 1, got
    assert got[0][0] == safety, got
    assert word in (got[0][1] or ""), got


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[1] is not None))
def test_cl003_offered_fixes_apply_and_leave_nothing_offered(name):
    """[*] (and [unsafe fix]) only when the codemod applies it: after the fix no CL003 is left
    with a fix of the same safety, and the output compiles."""
    body, safety, _ = CASES[name]
    source = (HEAD + textwrap.indent(textwrap.dedent(body), "    ")).encode()
    result = fix_source(source, "backend.py", TABLES, FixOptions(unsafe=safety == "unsafe"))
    assert result.changed, result.skipped
    compile(result.new_source, "backend.py", "exec")
    module = cst.parse_module(result.new_source)
    ctx = module_context(module, "backend.py", TABLES, Config().cost_model(TABLES))
    assert [f for f in CastBeforeGather().check(ctx) if f.fix] == []


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[1] is None))
def test_cl003_refused_fixes_are_not_applied_even_unsafe(name):
    source = (HEAD + textwrap.indent(textwrap.dedent(CASES[name][0]), "    ")).encode()
    assert fix_source(source, "backend.py", TABLES, FixOptions(unsafe=True)).new_source == source


def test_cl003_reasons_show_in_check_output(tmp_path):
    target = tmp_path / "backend.py"
    target.write_bytes((FIXTURES / "fix" / "cast_after_gather_refused.in.py").read_bytes())
    proc = run_castlint("check", target)
    assert proc.returncode == 1 and "[*]" not in proc.stdout and "[unsafe fix]" not in proc.stdout
    assert "no fix: the cast cannot move after the gather: `q` is rebound at line 16" in " ".join(proc.stdout.split())
    target.write_bytes((FIXTURES / "fix" / "cast_after_gather_unsafe.in.py").read_bytes())
    proc = run_castlint("fix", target)
    assert "not fixed" in proc.stderr and "self._store(...)" in proc.stderr and "--unsafe-fixes" in proc.stderr


def test_cl003_plan_is_the_same_on_a_pruned_file(tmp_path):
    """The check may analyse a pruned copy of a big file: the verdicts (and reasons) must not change."""
    from castlint.engine import check_file

    source = (FIXTURES / "fix" / "cast_after_gather_refused.in.py").read_text()
    filler = "".join(f"\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(60))
    path = tmp_path / "backend.py"
    path.write_text(source + filler)
    config = Config(root=tmp_path)
    cm = config.cost_model(TABLES)
    whole = check_file(str(path), TABLES, config, cm, prune=False)
    pruned = check_file(str(path), TABLES, config, cm, prune=True)
    key = lambda r: [(f.code, f.start, f.fix, f.unfixable_reason) for f in r.findings]  # noqa: E731
    assert key(whole) == key(pruned) and any(f.unfixable_reason for f in whole.findings)


def test_cl003_rewrite_keys_variables_by_assignment_not_name(tmp_path):
    """Two methods with a `latent` each, converted to different dtypes: each keeps its own cast."""
    body = (
        DEF + "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()\n" + READ + "\n"
        "def forward_extend(self, q, layer, forward_batch):\n"
        "    latent = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()\n" + READ
    )
    source = (HEAD + textwrap.indent(body, "    ")).encode()
    out = fix_source(source, "backend.py", TABLES, FixOptions()).new_source.decode()
    assert "latent[forward_batch.kv_indices].half()" in out and "latent[forward_batch.kv_indices].float()" in out
