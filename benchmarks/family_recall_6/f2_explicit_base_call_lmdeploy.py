"""Overrides that call the base accessor by class name (Base.method(self, ...)) instead of super()."""
import torch


class BaseCacheView:
    def __init__(self, caches):
        self.caches = caches

    def key_cache(self, layer_idx):
        return self.caches[layer_idx][0]

    def value_cache(self, layer_idx):
        return self.caches[layer_idx][1]


class FlatCacheView(BaseCacheView):
    def key_cache(self, layer_idx):
        return BaseCacheView.key_cache(self, layer_idx).flatten(0, 1)


class ActiveBlocksView(BaseCacheView):
    def __init__(self, caches, block_offsets):
        BaseCacheView.__init__(self, caches)
        self.block_offsets = block_offsets

    def value_cache(self, layer_idx):
        return BaseCacheView.value_cache(self, layer_idx)[self.block_offsets]


class TritonPagedAttention(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, past_key_values, attn_metadata):
        flat = FlatCacheView(past_key_values)
        act = ActiveBlocksView(past_key_values, attn_metadata.block_offsets)
        k = flat.key_cache(self.layer_idx).to(query.dtype)  # positive: f2 CL001 the override flattens the whole key cache
        v = BaseCacheView.value_cache(flat, self.layer_idx).to(query.dtype)  # positive: f2 CL001 base accessor called by class name
        v_act = act.value_cache(self.layer_idx).to(query.dtype)  # negative: override gathers this batch's blocks
        kv_lens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        k_win = flat.key_cache(self.layer_idx)[: attn_metadata.num_used_slots].to(query.dtype)  # negative: slots in use
        return k, v, v_act, kv_lens
