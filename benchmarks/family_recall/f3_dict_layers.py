"""Backend that snapshots per-layer pool buffers into a dict of lists at init."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class DictCacheBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        pool = model_runner.token_to_kv_pool
        n = model_runner.model_config.num_hidden_layers
        self.caches = {
            "k": [pool.get_key_buffer(i) for i in range(n)],
            "v": [pool.get_value_buffer(i) for i in range(n)],
        }
        self.sizes = {"k": pool.get_key_buffer(0).shape, "tokens": pool.size}  # negative: dict of sizes
        self.compute_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.caches["k"][layer.layer_id].to(self.compute_dtype)  # positive: f3 CL001 dict of per-layer lists
        v_list = self.caches["v"]
        v_cache = v_list[layer.layer_id].to(self.compute_dtype)  # positive: f3 CL001 list pulled out of the dict
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        k_rows = torch.index_select(self.caches["k"][layer.layer_id].to(q.dtype), 0, loc)  # positive: f3 CL003 cast before index_select
        v_rows = self.caches["v"][layer.layer_id][loc].to(q.dtype)  # negative: gather first
        numel = self.sizes["k"].numel()  # negative: size arithmetic
        return k_rows, v_rows, numel
