"""sglang EAGLE: the draft model runner overrides get_kv_pool() to return the target's pool; the draft backend reads through it."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class DraftModelRunnerBase:
    def get_kv_pool(self):
        return self.token_to_kv_pool


class EagleDraftModelRunner(DraftModelRunnerBase):
    def __init__(self, target_runner):
        self.target_runner = target_runner

    def get_kv_pool(self):
        return self.target_runner.token_to_kv_pool


class EagleDraftTorchBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.runner = model_runner

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.runner.get_kv_pool()
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(pool.dtype), v.to(pool.dtype))  # negative: writer of new tokens
        k_buf = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole layer of the pool the override returns
        v_buf = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole value layer
        idx = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]
        return torch.ops.sgl.sdpa_paged(q, k_buf, v_buf, idx, layer.scaling)
