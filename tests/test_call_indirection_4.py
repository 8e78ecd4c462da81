"""Issue 19, round 4: call indirection (f4) and whole-keeping ops (f5). Each case is a small
engine-styled module whose marked lines must be exactly the findings, whole and pruned."""

from __future__ import annotations

import textwrap

import pytest

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

TABLES = load_tables()
FILLER = "".join(f"\n\ndef unrelated_{i}(x):\n    y = x + {i}\n    return y.half()\n" for i in range(40))

CASES = {
    # -- f4: getattr with a name held in a class attribute ---------------------------
    "getattr_class_constant_sglang": """
        class ConstBackend:
            READ = "get_value_buffer"
            WIDEN = "float"

            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = forward_batch.token_to_kv_pool
                vb = getattr(pool, self.READ)(layer.layer_id)
                wide = getattr(vb, type(self).WIDEN)()  # positive: CL001
                qw = getattr(q, self.WIDEN)()  # negative: batch q
                return wide, qw
        """,
    "getattr_classname_constant_lmdeploy": """
        class NamedConst:
            CAST = "half"

            def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
                kc = getattr(k_cache, NamedConst.CAST)()  # positive: CL001
                qh = getattr(query, NamedConst.CAST)()  # negative: the batch query
                return kc, qh
        """,
    # -- f5: view attributes, repeat, full vs bounded slices -------------------------
    "transpose_attribute_trtllm": """
        import torch

        class TAttention:
            def forward(self, q, k, v, metadata, **kwargs):
                a = metadata.kv_cache_manager.get_buffers(self.layer_idx)
                t = a.select(1, 0).mT
                o = t.unsqueeze(0).to(torch.bfloat16)  # positive: CL001
                s = a[metadata.block_ids].mT.to(torch.bfloat16)  # negative: gathered blocks first
                return o, s
        """,
    "einops_repeat_vllm": """
        import torch
        from einops import repeat

        class RepeatImpl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                r = repeat(kv_cache, "t b s h d -> t b s (h g) d", g=2).half()  # positive: CL001
                kq = repeat(key, "t h d -> t (h g) d", g=2).half()  # negative: batch key
                return r, kq
        """,
    "batch_sized_slice_sglang": """
        class SliceBackend:
            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                src = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                whole = src[: src.shape[0]].to(q.dtype)  # positive: CL001
                first = src[: forward_batch.batch_size].to(q.dtype)  # negative: batch-sized prefix
                return whole, first
        """,
    "copy_into_own_dtype_sglang": """
        import torch

        class Mirror:
            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                src = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                wide = torch.empty(src.shape, dtype=torch.float32, device=src.device)
                wide.copy_(src)  # positive: CL001
                host = torch.empty(src.shape, dtype=src.dtype, device="cpu")
                host.copy_(src)  # negative: the pool's own dtype, a device copy
                return wide, host
        """,
    "vllm_call_convention": """
        import torch

        class CallImpl:
            def __call__(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                bt = attn_metadata.block_table.flatten()
                sel = torch.index_select(kv_cache.float(), 1, bt)  # positive: CL003
                ok = torch.index_select(kv_cache, 1, bt).float()  # negative: gather first
                return sel, ok
        """,
}


# the pruner follows view attributes (`t = a.mT`: rules/accessors.toml [views] attributes) since round 5
PRUNER_GAPS: dict = {}


def _findings(path, prune):
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start.line, f.message) for f in result.findings]


def _marks(text):
    positives, negatives = {}, set()
    for i, line in enumerate(text.splitlines(), 1):
        if "# positive: " in line:
            positives[i] = line.split("# positive: ")[1].split()[0]
        elif "# negative" in line:
            negatives.add(i)
    return positives, negatives


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_marked_lines_are_the_findings(tmp_path, name, filler):
    text = textwrap.dedent(CASES[name]).lstrip("\n")
    path = tmp_path / f"{name}.py"
    path.write_text(text + (FILLER if filler else ""))
    positives, negatives = _marks(text)
    assert positives and negatives
    whole = _findings(path, False)
    found = {line: code for code, line, _ in whole}
    assert found == positives, whole
    if name in PRUNER_GAPS:
        pytest.xfail(PRUNER_GAPS[name])
    assert _findings(path, True) == whole
