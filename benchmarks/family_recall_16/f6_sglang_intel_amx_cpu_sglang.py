import torch


class IntelAMXAttnBackend:
    """CPU backend; the AMX decode kernel takes bf16 caches only."""

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kv_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        v_buf = self.pool.get_value_buffer(layer.layer_id)
        if self.kv_dtype != torch.bfloat16:
            k_buf = k_buf.to(torch.bfloat16)  # positive: f6 CL001 whole key layer for the AMX kernel
            v_buf = v_buf.to(torch.bfloat16)  # positive: f6 CL001 whole value layer for the AMX kernel
        q = q.to(torch.bfloat16)  # negative: query
        return torch.ops.sgl_kernel.decode_attention_cpu(q, k_buf, v_buf, forward_batch.req_to_token_pool.req_to_token)
