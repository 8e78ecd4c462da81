"""Round 28 (family_recall_26), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- axis bookkeeping through a dimension-moving view held in a name or a self attribute (`self.by_layer =
  kv.transpose(0, 1)` in register_kv_caches, then `self.by_layer[layer_idx]`): an index of a dimension the
  tokens moved behind keeps every token;
- the pieces of a whole split spread into a join (`torch.cat([*k.chunk(2, dim=2)], dim=2)`): the whole again;
- a target model's cache lent to a draft agent through an object whose class is known only by the method it
  defines (`self.lender.layer(i)[:2]` of `return self._engine.gpu_cache[i]`): the entry's layout follows;
- a holder's `__getitem__` (its class allocates nothing, it reads another object's accessor) converting the
  whole layer converts for its caller (CL001), as a learnt holder does; a manager's own stays CL004.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "movedim_layers_first_attr_trtllm": """\
import torch


class OffloadConnectorWorker:
    def __init__(self, config):
        self.offload_dtype = torch.float16
        self.kv = None
        self.layers_first = None

    def register_kv_caches(self, kv_cache_tensor):
        self.kv = kv_cache_tensor
        self.layers_first = torch.movedim(kv_cache_tensor, 1, 0)

    def start_load_kv(self, stream):
        return stream

    def save_kv_layer(self, layer_idx, stream):
        whole = self.layers_first[layer_idx].to(self.offload_dtype)  # positive: CL001 every block of one layer
        one = self.kv[layer_idx].to(self.offload_dtype)  # negative: one block of every layer
        head = self.layers_first[layer_idx, :16].to(self.offload_dtype)  # negative: the first blocks of one layer
        return whole, one, head
""",
    "permute_heads_first_name_sglang": """\
import torch


class HeadMajorDumpBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.pool.get_key_buffer(layer.layer_id)
        by_head = buf.permute(1, 0, 2)
        head_id = layer.tp_q_head_num
        out = by_head[head_id].float()  # positive: CL001 one head of every slot
        rows = buf[forward_batch.out_cache_loc].permute(1, 0, 2)[head_id].float()  # negative: rows gathered first
        moved = by_head.to(q.device)  # negative: a device move
        return out, rows, moved
""",
    "swapaxes_kv_heads_lmdeploy": """\
import torch


class HeadSliceGraphRunner:
    def __init__(self, cache_engine):
        self.engine = cache_engine
        self.warm = [c[0].swapaxes(0, 2).half() for c in cache_engine.gpu_cache]  # negative: setup, in __init__

    def forward(self, inputs, head):
        outs = []
        for k_cache, v_cache in self.engine.gpu_cache:
            heads_first = k_cache.swapaxes(0, 2)
            outs.append(heads_first[head].float())  # positive: CL001 one head of every block
            outs.append(heads_first[head, :, inputs.block_offsets].float())  # negative: the request's blocks
        return outs
""",
    "cat_spread_chunks_lmdeploy": """\
import torch


class TwoGroupReplayRunner:
    def __init__(self, cache_engine):
        self.engine = cache_engine
        self.static = [torch.cat([*k.chunk(2, dim=2)], 2).half() for k, _ in cache_engine.gpu_cache]  # negative: init

    def forward(self, inputs):
        for (k, v), sk in zip(self.engine.gpu_cache, self.static):
            joined = torch.cat([*k.chunk(2, dim=2)], dim=2).half()  # positive: CL001 split on heads, joined back
            sk.copy_(joined)
            picked = torch.cat([*k[inputs.block_offsets].chunk(2, dim=2)], dim=2).half()  # negative: rows first
            moved = torch.cat([*v.chunk(2, dim=2)], dim=2).to(inputs.device)  # negative: a device move
            del picked, moved
        return inputs
""",
    "stack_spread_unbind_vllm": """\
import torch


class HeadwiseFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        rebuilt = torch.stack([*key_cache.unbind(2)], 2).float()  # positive: CL001 every head, stacked back
        rows = torch.stack([*key_cache[attn_metadata.block_table[0]].unbind(2)], 2).float()  # negative: rows first
        return rebuilt, rows
""",
    "cat_spread_split_sglang": """\
import torch


class LatentRopeDumpBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.pool.get_key_buffer(layer.layer_id)
        whole = torch.cat((*buf.split([512, 64], dim=-1),), dim=-1).to(torch.bfloat16)  # positive: CL001
        rows = buf[forward_batch.out_cache_loc]
        some = torch.cat((*rows.split([512, 64], dim=-1),), dim=-1).to(torch.bfloat16)  # negative: rows first
        return whole, some
""",
    "draft_donor_entry_lmdeploy": """\
import torch


class TargetCacheDonor:
    def __init__(self, cache_engine):
        self.engine = cache_engine

    def entry(self, layer_id):
        return self.engine.gpu_cache[layer_id]


class DraftStepAgent:
    def __init__(self, draft_model, donor):
        self.model = draft_model
        self.donor = donor

    def step(self, inputs, layer_ids):
        caches = []
        for layer_id in layer_ids:
            got = self.donor.entry(layer_id)
            k_cache = got[0].half()  # positive: CL001 the target's whole key cache, per draft step
            scales = got[2].float()  # negative: the entry's scales/zeros
            rows = got[1][inputs.block_offsets[0]].half()  # negative: the request's blocks first
            caches.append((k_cache, scales, rows))
        return self.model(inputs.input_ids, caches)
""",
    "draft_borrow_runner_vllm": """\
import torch


class TargetKVBorrower:
    def __init__(self, runner):
        self.runner = runner

    def borrow(self, index):
        return self.runner.kv_caches[index]


class MedusaLikeProposer:
    def __init__(self, vllm_config, borrower):
        self.borrower = borrower
        self.dtype = vllm_config.model_config.dtype

    def propose(self, target_hidden_states, common_attn_metadata, layer_index):
        kv = self.borrower.borrow(layer_index)
        k_plane, v_plane = kv[:2]
        k = k_plane.to(self.dtype)  # positive: CL001 every block's key of the target layer, per propose
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        tail = kv[0][common_attn_metadata.block_table_tensor[:, -1]].to(self.dtype)  # negative: blocks first
        return k, hidden, tail, v_plane
""",
    "getitem_holder_trtllm": """\
import torch


class LayerComputeView:
    def __init__(self, kv_cache_manager, dtype=torch.float16):
        self.manager = kv_cache_manager
        self.dtype = dtype

    def __getitem__(self, layer_idx):
        return self.manager.get_buffers(layer_idx).to(self.dtype)  # positive: CL001 the holder converts for its caller

    def rows(self, layer_idx, block_ids):
        return self.manager.get_buffers(layer_idx)[block_ids].to(self.dtype)  # negative: blocks first


class ComputeManager:
    def __init__(self, impl, dtype):
        self.impl = impl
        self.dtype = dtype

    def get_buffers(self, layer_idx):
        return self.impl.get_primary_pool_data(layer_idx)

    def __getitem__(self, layer_idx):
        return self.get_buffers(layer_idx).float()  # positive: CL004 the manager's own item accessor
""",
    "getitem_holder_sglang": """\
import torch


class KeyBufferView:
    def __init__(self, token_to_kv_pool):
        self.pool = token_to_kv_pool

    def __getitem__(self, layer_id):
        return self.pool.get_key_buffer(layer_id).to(torch.bfloat16)  # positive: CL001 converts for its caller

    def rows(self, layer_id, loc):
        return self.pool.get_key_buffer(layer_id)[loc].to(torch.bfloat16)  # negative: rows first
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
