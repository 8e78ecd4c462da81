import torch


class DeterministicDecodeBackend:
    """Batch-invariant mode: a torch reference decode over the whole pool."""

    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_all = pool.get_key_buffer(layer.layer_id)
        if self.kv_cache_dtype != self.dtype:
            k_all = k_all.to(self.dtype)  # positive: f6 CL001 whole key buffer widened per decode step
        v_all = pool.get_value_buffer(layer.layer_id)
        v_req = v_all[forward_batch.req_to_token[0]].to(self.dtype)  # negative: one request's rows
        return k_all, v_req, k.to(self.dtype)  # negative: new-token key
