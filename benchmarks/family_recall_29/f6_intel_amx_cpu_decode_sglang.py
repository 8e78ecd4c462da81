"""sglang Intel AMX (CPU) backend: the decode kernel takes bf16 KV, so an fp8 pool is widened whole."""
import torch


class IntelAMXAttnBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        if self.kv_cache_dtype != self.model_dtype:
            k_buf = k_buf.to(self.model_dtype)  # positive: f6 CL001 whole key buffer for the AMX decode kernel
            v_buf = v_buf.to(self.model_dtype)  # positive: f6 CL001 whole value buffer
        o = torch.empty_like(q, dtype=self.model_dtype)  # negative: output allocation shaped like the query
        req_to_token = forward_batch.req_to_token_pool.req_to_token.to(torch.int64)  # negative: index table
        self._decode_cpu(q, k_buf, v_buf, o, req_to_token, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._extend_cpu(q, k.to(self.model_dtype), v.to(self.model_dtype), forward_batch)  # negative: new tokens
