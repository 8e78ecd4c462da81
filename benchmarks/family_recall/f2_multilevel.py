"""Three-level hierarchy: root returns the cache, middle passes it through, leaf converts it."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class RootKVBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.pool = model_runner.token_to_kv_pool

    def kv_of(self, layer_id):
        return self.pool.get_kv_buffer(layer_id)

    def k_of(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class PagedKVBackend(RootKVBackend):
    def k_of(self, layer_id):
        return super().k_of(layer_id)

    def page_k(self, layer_id, page_size):
        return self.k_of(layer_id).view(-1, page_size, *self.k_of(layer_id).shape[1:])


class LeafFP8FallbackBackend(PagedKVBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_bf16 = self.k_of(layer.layer_id).to(torch.bfloat16)  # positive: f2 CL001 two-level override chain
        paged = self.page_k(layer.layer_id, 64).to(torch.bfloat16)  # positive: f2 CL001 paged view of whole buffer from grandparent
        k_pair, v_pair = self.kv_of(layer.layer_id)
        v_bf16 = v_pair.to(torch.bfloat16)  # positive: f2 CL001 tuple from grandparent method
        return k_bf16, paged, v_bf16

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sz = self.k_of(layer.layer_id).shape[0]  # negative: only reads the size
        k_live = self.k_of(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather first
        return sz, k_live
