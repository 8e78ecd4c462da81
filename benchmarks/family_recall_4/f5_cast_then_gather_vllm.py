"""Cast-then-gather on vLLM's per-layer kv_cache, next to gather-then-cast look-alikes."""
import torch


class CastGatherImpl:
    def __init__(self, num_heads, head_size, num_kv_heads, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.num_kv_heads = num_kv_heads
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        bt = attn_metadata.block_table
        k_blocks = kv_cache[0].half()[bt[0]]  # positive: f5 CL003 whole key plane cast, then one sequence's blocks indexed
        flat = kv_cache.flatten(1, 2)
        v_rows = flat[1].float().index_select(0, attn_metadata.slot_mapping)  # positive: f5 CL003 whole flattened value plane cast, then index_select
        rows_ok = flat[1].index_select(0, attn_metadata.slot_mapping).float()  # negative: index_select then cast
        idx = attn_metadata.slot_mapping.view(-1, 1, 1).expand(-1, self.num_kv_heads, self.head_size)
        g = torch.gather(kv_cache[0].flatten(0, 1).to(query.dtype), 0, idx)  # positive: f5 CL003 torch.gather over a cast of the whole key plane
        g_ok = torch.gather(kv_cache[0].flatten(0, 1), 0, idx).to(query.dtype)  # negative: gather then cast
        return self._attend(query, k_blocks, v_rows, rows_ok, g, g_ok, output)

    def __call__(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        bt = attn_metadata.block_table.flatten()
        sel = torch.index_select(kv_cache.to(torch.bfloat16), 1, bt)  # positive: f5 CL003 torch.index_select of the cast whole cache
        good = torch.index_select(kv_cache, 1, bt).to(torch.bfloat16)  # negative: index_select then cast
        q32 = query.float()[attn_metadata.query_start_loc[:-1]]  # negative: batch query
        return sel, good, q32

    def _attend(self, query, *tensors):
        return torch.empty_like(query)


def reshape_and_cache(key, value, kv_cache, slot_mapping):
    flat = kv_cache.flatten(1, 2)
    flat[0].index_copy_(0, slot_mapping, key.to(kv_cache.dtype))  # negative: batch key written to the cache
    flat[1].index_copy_(0, slot_mapping, value.to(kv_cache.dtype))  # negative: batch value written to the cache
    return kv_cache


def block_rows(kv_cache, block_table):
    return kv_cache[:, block_table.flatten()]
