"""Intel AMX (CPU) style backend: the FP8 pool upcast inside the kernel calls' arguments."""
import torch


class AmxAttnBackend:
    def __init__(self, model_runner):
        self.kv_is_fp8 = model_runner.kv_cache_dtype in (torch.float8_e4m3fn, torch.float8_e5m2)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache, v_cache = pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention_cpu(
            q,
            k_cache.to(torch.bfloat16) if self.kv_is_fp8 else k_cache,  # positive: f6 CL001 whole key buffer upcast in the call
            v_cache.to(torch.bfloat16) if self.kv_is_fp8 else v_cache,  # positive: f6 CL001 whole value buffer upcast in the call
            o,
            forward_batch.req_to_token_pool.req_to_token,
            forward_batch.req_pool_indices.to(torch.int64),  # negative: request indices
            forward_batch.seq_lens.to(torch.int64),  # negative: lengths
            layer.scaling,
        )
        return o
