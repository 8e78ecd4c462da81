"""Per-layer (K, V) pairs built in __init__ and a per-layer entry list."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PairListBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        self.kv_pairs = []
        for i in range(pool.start_layer, pool.end_layer):
            self.kv_pairs.append((pool.get_key_buffer(i), pool.get_value_buffer(i)))
        self.start_layer = pool.start_layer
        self.staging = [torch.empty((model_runner.max_bs, 8, 128), dtype=torch.bfloat16) for _ in self.kv_pairs]  # negative: batch-sized staging

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self.kv_pairs[layer.layer_id - self.start_layer]
        k_cache = k_cache.to(q.dtype)  # positive: f3 CL001 unpacked pair from init list
        v_cache = self.kv_pairs[layer.layer_id - self.start_layer][1].to(q.dtype)  # positive: f3 CL001 pair element
        return k_cache, v_cache

    def upcast_all_layers(self):
        return [(kc.float(), vc.float()) for kc, vc in self.kv_pairs]  # positive: f3 CL001 every layer in a comprehension

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc, vc = self.kv_pairs[layer.layer_id - self.start_layer]
        bs = forward_batch.batch_size
        buf = self.staging[layer.layer_id - self.start_layer][:bs]
        buf.copy_(kc[forward_batch.out_cache_loc[:bs]])  # negative: copy of gathered rows into batch staging
        return buf
