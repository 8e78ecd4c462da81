"""Issue 19, round 19 (family_recall_17: f5's dimension-aware selections, same-dtype targets, f6's accessor
buffers), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a layout's slot dimensions (rules/accessors.toml and rules/conventions.toml `slot_dims`): a selection along
  another dimension keeps every slot (`buf[:, :, perm]`, `index_select(-1, i)`, `select(-2, 0)`), one along a
  slot dimension keeps some (`buf.split(n, dim=0)[0]`, `kv_cache.chunk(4, dim=1)[0]` where the function reads
  dimension 0 as the planes);
- `index_select(d, i)` and `select(d, i)` with negative or keyword dims read as the subscripts they are;
- a piece of a split along a literal dimension is that dimension's selection (a plane, or some slots), unless
  the split is into one piece or sized by the pool's own extent.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "trailing_dims_sglang": """\
import torch


class HeadPermuteBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        order = torch.randperm(kb.shape[-1], device=kb.device)
        a = vb[:, :, order].to(q.dtype)  # positive: CL001 a head-dim permutation, every slot
        b = torch.index_select(kb, -1, order).float()  # positive: CL001 last-dim selection, every slot
        c = kb.index_select(dim=2, index=order).half()  # positive: CL001 keyword dims, the head dim
        d = vb[:, order].bfloat16()  # positive: CL001 the heads of every slot
        rows = forward_batch.out_cache_loc
        e = kb.index_select(0, rows).to(q.dtype)  # negative: the step's rows
        f = vb[rows, :, order].to(q.dtype)  # negative: rows first
        g = torch.index_select(kb, dim=0, index=rows).float()  # negative: rows, keyword dims
        return a, b, c, d, e, f, g
""",
    "pieces_sglang": """\
import torch


class PieceBackend:
    def __init__(self, model_runner):
        self.piece = 4096

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        head = torch.split(kb, self.piece)[0].to(q.dtype)  # negative: the first piece of the slots
        tail = kb.chunk(3)[2].float()  # negative: a third of the slots
        one = kb.tensor_split(1)[0].half()  # positive: CL001 one piece is every slot
        dims = kb.chunk(2, dim=-1)[1].to(q.dtype)  # positive: CL001 half the width of every slot
        every = torch.cat([p.bfloat16() for p in kb.split(self.piece)])  # positive: CL001 every piece
        return head, tail, one, dims, every
""",
    "planes_evidence_vllm": """\
import torch


class PlanesFirstImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_plane, v_plane = kv_cache.unbind(0)
        k_wide = k_plane.to(query.dtype)  # positive: CL001 the key plane of every block
        block0 = kv_cache[:, 0].to(query.dtype)  # negative: block 0 of both planes
        some = kv_cache.tensor_split(8, dim=1)[0].float()  # negative: an eighth of the blocks
        col = kv_cache.select(2, 0).half()  # positive: CL001 dim 2 may be the flat width: every block
        heads = torch.select(kv_cache, -2, 0).to(query.dtype)  # positive: CL001 one head of every slot
        return k_wide, v_plane, block0, some, col, heads


class BlocksSecondUnknownImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_half = kv_cache.select(1, 0).to(query.dtype)  # positive: CL001 K of a [num_blocks, 2, ...] cache
        return k_half
""",
    "trtllm_lmdeploy_dims": """\
import torch


class VanillaDims:
    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        keys = buf.chunk(2, dim=1)[0].to(q.dtype)  # positive: CL001 the key plane of every block
        pos0 = buf[:, :, 0].float()  # negative: the first token of every block
        dims = buf[..., self.perm].half()  # positive: CL001 a head-dim permutation
        return keys, pos0, dims


class LmdeployDims:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        rot = k_cache[:, :, :, self.perm].to(query.dtype)  # positive: CL001 head dim of every block
        offs = k_cache[:, attn_metadata.offsets].to(query.dtype)  # negative: positions within the blocks
        first = torch.split(v_cache, 16)[0].float()  # negative: the first sixteen blocks
        return rot, offs, first
""",
    "pool_dtype_targets": """\
import torch


class SamePoolBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv_pool = forward_batch.token_to_kv_pool
        kb = kv_pool.get_key_buffer(layer.layer_id)
        vb = kv_pool.get_value_buffer(layer.layer_id)
        same = kb.to(vb)  # negative: the other plane of the same pool, one dtype
        too = vb.type_as(kv_pool.get_key_buffer(layer.layer_id))  # negative: same pool
        wide = vb.type_as(q)  # positive: CL001 the query's dtype
        return same, too, wide


class ManagerDtypeAttention:
    def forward(self, q, k, v, metadata):
        cache = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        own = cache.to(dtype=metadata.kv_cache_manager.dtype)  # negative: the manager's own dtype
        wide = cache.to(q.dtype)  # positive: CL001 to the query's dtype
        return own, wide
""",
    "scalar_scale_lists_sglang": """\
import torch


class ScaledFp8Pool:
    def __init__(self, size, head_num, head_dim, layer_num, device, dtype):
        self.dtype = dtype
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.k_scale = [torch.ones((), device=device) for _ in range(layer_num)]
        self.v_zero = [torch.zeros([], device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id].view(torch.float8_e4m3fn).to(self.dtype)  # positive: CL004 the whole layer

    def get_key_scale(self, layer_id):
        return self.k_scale[layer_id].to(self.dtype)  # negative: a 0-dim scale

    def get_value_zero(self, layer_id):
        return self.v_zero[layer_id].float()  # negative: a 0-dim zero point
""",
    "manager_override_trtllm": """\
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class Bf16ReadManager(KVCacheManager):
    def get_buffers(self, layer_idx: int, kv_layout: str = "NHD"):
        return super(Bf16ReadManager, self).get_buffers(layer_idx, kv_layout).bfloat16()  # positive: CL004 whole layer

    def get_rows(self, layer_idx, block_ids):
        return super().get_buffers(layer_idx)[block_ids].bfloat16()  # negative: gathered blocks first


class PassThroughManager(KVCacheManager):
    def get_buffers(self, layer_idx, kv_layout="NHD"):
        buf = super().get_buffers(layer_idx, kv_layout)
        return buf.view(torch.uint8)  # negative: a reinterpret, no conversion
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
