"""A layered KV wrapper exposing per-layer buffers via __getitem__ and via a callable object."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class LayeredKV:
    def __init__(self, pool):
        self.pool = pool

    def __getitem__(self, layer_id):
        return self.pool.k_buffer[layer_id - self.pool.start_layer]

    def __call__(self, layer_id):
        return self.pool.v_buffer[layer_id - self.pool.start_layer]

    def __len__(self):
        return len(self.pool.k_buffer)


class WrapperBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.layers = LayeredKV(model_runner.token_to_kv_pool)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.layers[layer.layer_id].to(self.dtype)  # positive: f1 CL001 __getitem__ returns the layer buffer
        v_cache = self.layers(layer.layer_id).to(self.dtype)  # positive: f1 CL001 __call__ returns the layer buffer
        return k_cache, v_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        k_new = self.layers[layer.layer_id][loc].to(self.dtype)  # negative: gather rows after getitem
        n = len(self.layers)  # negative: only the layer count
        return k_new, n
