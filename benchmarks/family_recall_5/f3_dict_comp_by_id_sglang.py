"""A dict comprehension maps layer ids to (k, v) planes of the pool."""

import torch


class LayerIdTable:
    def __init__(self, pool, layer_ids):
        self.by_id = {
            lid: (kb, vb) for lid, kb, vb in zip(layer_ids, pool.k_buffer, pool.v_buffer)
        }
        self.len_by_id = {lid: torch.zeros(1, dtype=torch.int32) for lid in layer_ids}


class LayerIdBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.table = LayerIdTable(pool, range(pool.start_layer, pool.end_layer))
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.table.by_id[layer.layer_id]
        kx = kb.to(self.dtype)  # positive: f3 CL001 key plane from a comprehension-built dict keyed by layer id
        vx = vb.to(self.dtype)  # positive: f3 CL001 value plane from the same dict entry
        n = self.table.len_by_id[layer.layer_id].to(torch.int64)  # negative: one-element length tensor
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, kx, vx, o, n, forward_batch.out_cache_loc)
        return o

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, _ = self.table.by_id[layer.layer_id]
        rows = kb.index_select(0, forward_batch.out_cache_loc).to(self.dtype)  # negative: gather-then-cast
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(q, rows, o, forward_batch.seq_lens)
        return o
