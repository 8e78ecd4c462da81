# sglang torch-native attention backend for an FP8 pool: per-layer entries are small dict subclasses with
# attribute access (entry.k, entry.v, entry.req_to_token) built at each forward.
import torch


class _Entry(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


class TorchNativeAttnBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def _entry(self, layer, forward_batch):
        return _Entry(
            k=self.pool.get_key_buffer(layer.layer_id),
            v=self.pool.get_value_buffer(layer.layer_id),
            req_to_token=forward_batch.req_to_token_pool.req_to_token,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        e = self._entry(layer, forward_batch)
        k_cache = e.k.to(q.dtype)  # positive: f3 CL001 the entry's whole key buffer
        v_cache = e.v.to(q.dtype)  # positive: f3 CL001 the entry's whole value buffer
        first_req = e.req_to_token[forward_batch.req_pool_indices[0]]
        seq_k = e.k[first_req].to(q.dtype)  # negative: one request's rows
        return self._run_sdpa_forward_decode(q, k_cache, v_cache, seq_k, forward_batch)
