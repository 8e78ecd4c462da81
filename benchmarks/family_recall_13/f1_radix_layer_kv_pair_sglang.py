import torch


class TorchNativeFallbackBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
        k_all = k_cache.to(q.dtype)  # positive: f1 CL001 key half of get_kv_buffer, whole layer
        v_all = v_cache.to(q.dtype)  # positive: f1 CL001 value half of get_kv_buffer, whole layer
        loc = forward_batch.out_cache_loc.to(torch.int64)  # negative: the step's cache locations
        req_tokens = forward_batch.req_to_token_pool.req_to_token
        rows = req_tokens[forward_batch.req_pool_indices].to(torch.int64)  # negative: gathered index rows
        return self._sdpa(q, k_all, v_all, rows, loc, layer)

    def _sdpa(self, q, k, v, rows, loc, layer):
        return q
