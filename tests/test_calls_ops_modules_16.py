"""Issue 19, round 16 (family_recall_14: f4 call indirection, f5 whole-keeping ops, f7 cross-module), in
sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a convention cache with its blocks first (rules/conventions.toml `planes = false`: lmdeploy's k_cache /
  v_cache, vLLM MLA's kv_c_and_k_pe_cache): a constant index is one block, not a K/V plane;
- an element of an engine's table of scalars ([index_values] scalar_element_attributes: TRT-LLM's
  `mgr.layer_offsets[i]`, sglang's `full_attention_layer_id_mapping[lid]`) indexes as a scalar, so
  `pool[:, mgr.layer_offsets[i]]` keeps every block;
- a literal slice within the plane count of an engine's entry (`self.gpu_cache[i][:2]`) is planes of
  every block, unpacked into whole caches;
- a repeated display (`(dt,) * 2`, `2 * [dt]`) has its elements by position (CL002 plan dtypes); vLLM's
  metadata builder's `kv_cache_spec` puts a KV-cache dtype in reach;
- the pruner sends a file to the analysis when a converting def is held as a value and a pool is passed
  to a callable read off an object (`self.meta.kv_transform(kv)`);
- under `follow-imports = "uses"`, a small class whose methods convert is linked to the sibling modules
  that construct it where they name a pool (a record holding a whole buffer, built in another module).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check
from package_cases import write_tree
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

CASES = {
    "blocks_first_lmdeploy": """\
import torch


class TritonPagedDecodeImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        whole_k = k_cache.to(torch.float32)  # positive: CL001
        heads = v_cache[..., 0, :].half()  # positive: CL001
        one_block = k_cache[0].to(torch.float32)  # negative: one block
        last_block = v_cache[-1].half()  # negative: one block
        rows = k_cache[attn_metadata.block_offsets[0]].float()  # negative: gathered blocks
        return whole_k, heads, one_block, last_block, rows
""",
    "blocks_first_vllm_mla": """\
import torch


class TorchMLAFallbackImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = kv_c_and_k_pe_cache[..., :512].to(q.dtype)  # positive: CL001
        first = kv_c_and_k_pe_cache[0].to(q.dtype)  # negative: one block
        tables = attn_metadata.decode.block_table.to(torch.int64)  # negative: block table
        return latent, first, tables


class FlashFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        value_plane = kv_cache[1].to(query.dtype)  # positive: CL001
        return value_plane
""",
    "scalar_table_trtllm": """\
import torch


class ColumnFallbackAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        kv_mgr = metadata.kv_cache_manager
        whole = kv_mgr.get_unique_primary_pool()
        col = whole[:, kv_mgr.layer_offsets[self.layer_idx], 1].float()  # positive: CL001
        blocks = whole[:, kv_mgr.block_ids_per_seq[self.layer_idx]].float()  # negative: indices
        ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs]
        used = whole[ids, kv_mgr.layer_offsets[self.layer_idx]].float()  # negative: gathered blocks
        return col, blocks, used
""",
    "scalar_table_sglang": """\
class HybridFallbackBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        idx = pool.full_attention_layer_id_mapping[layer.layer_id]
        kb = pool.full_kv_pool.k_buffer[idx].to(q.dtype)  # positive: CL001
        rows = pool.full_kv_pool.v_buffer[idx][forward_batch.out_cache_loc].to(q.dtype)  # negative: rows
        return kb, rows
""",
    "entry_planes_slice_lmdeploy": """\
import torch


class SwapFallbackRunner:
    def __init__(self, cache_engine, dtype=torch.bfloat16):
        self.gpu_cache = cache_engine.gpu_cache
        self.dtype = dtype

    def _layer(self, i):
        k_cache, v_cache = self.gpu_cache[i][0:2]
        return k_cache.to(self.dtype), v_cache.to(self.dtype)  # positive: CL001

    def _first_blocks(self, i, offsets):
        k_rows = self.gpu_cache[i][0][offsets].to(self.dtype)  # negative: gathered blocks
        return k_rows

    async def async_forward(self, inputs, swap_in_map, swap_out_map):
        pairs = [self._layer(i) for i in range(len(self.gpu_cache))]
        return pairs, self._first_blocks(0, inputs.block_offsets)
""",
    "repeated_plan_dtypes_sglang": """\
class MLADecodeUpdater:
    def __init__(self, model_runner):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def update(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, heads, scale):
        q_t, kv_t = 2 * [self.data_type]
        wrapper.plan(  # positive: CL002
            qo_indptr, kv_indptr, kv_indices, kv_lens, heads, 512, 64, 1, False, scale, q_t, kv_t,
        )


class NativeMLADecodeUpdater(MLADecodeUpdater):
    def update(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, heads, scale):
        q_t, kv_t = (self.data_type, self.kv_cache_dtype) * 1
        wrapper.plan(  # negative: the pool's dtype for kv
            qo_indptr, kv_indptr, kv_indices, kv_lens, heads, 512, 64, 1, False, scale, q_t, kv_t,
        )
""",
    "spec_dtype_builder_vllm": """\
class MLAFallbackMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.kv_cache_spec = kv_cache_spec
        self.compute_dtype = vllm_config.model_config.dtype

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        if self.kv_cache_spec.dtype == self.compute_dtype:
            self.wrapper.plan(  # negative: kv planned in the spec's dtype
                m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, 0.1,
                q_data_type=self.compute_dtype, kv_data_type=self.kv_cache_spec.dtype,
            )
        else:
            self.wrapper.plan(  # positive: CL002
                m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, 0.1,
                q_data_type=self.compute_dtype, kv_data_type=self.compute_dtype,
            )
        return m
""",
    "held_converter_trtllm": """\
from dataclasses import dataclass
from typing import Callable

import torch


def _widen(buf):
    return buf.to(torch.float32)  # positive: CL001


def _q_cast(t):
    return t.to(torch.bfloat16)  # negative: only given the queries


@dataclass
class StepPlan:
    on_cache: Callable
    on_query: Callable


class PlannedFallbackAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx
        self.step = StepPlan(on_cache=_widen, on_query=_q_cast)

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = self.step.on_cache(buf)
        qq = self.step.on_query(q)
        return dense, qq
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


PACKAGES = {
    "record_class_sglang": {
        "pkg/__init__.py": "",
        "pkg/holders.py": """
            import torch


            class LatentHolder:
                def __init__(self, latent, loc=None):
                    self.latent = latent
                    self.loc = loc

                def widened(self, dtype):
                    return self.latent[..., :512].to(dtype)  # positive: CL001

                def rows(self, dtype):
                    return self.latent[self.loc].to(dtype)  # negative: rows gathered

                def lengths(self):
                    return self.loc.to(torch.int32)  # negative: indices
        """,
        "pkg/backend.py": """
            from .holders import LatentHolder


            class HolderFallbackBackend:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    held = LatentHolder(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))
                    return held.widened(q.dtype)

                def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    held = LatentHolder(buf, forward_batch.out_cache_loc)
                    return held.rows(q.dtype), held.lengths()
        """,
    },
    "record_class_query_only_vllm": {
        "pkg/__init__.py": "",
        "pkg/wrap.py": """
            class Widener:
                def __init__(self, t):
                    self.t = t

                def apply(self, dtype):
                    return self.t.to(dtype)  # negative: only ever built with the query
        """,
        "pkg/impl.py": """
            from .wrap import Widener


            class WidenImpl:
                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    wq = Widener(query).apply(kv_cache.dtype)
                    return wq
        """,
    },
}


@pytest.mark.usefixtures("_own_tree_cache")
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_packages_under_uses(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    found = _findings(tmp_path, "uses")
    positives, negatives = _marked(tmp_path, "# positive"), _marked(tmp_path, "# negative")
    assert negatives
    assert positives <= found
    assert found & negatives == set()
    assert _findings(tmp_path, "uses", prune=False) == found
