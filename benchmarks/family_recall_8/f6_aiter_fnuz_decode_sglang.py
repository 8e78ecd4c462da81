import torch

_is_fp8_fnuz = True
fp8_dtype = torch.float8_e4m3fnuz if _is_fp8_fnuz else torch.float8_e4m3fn


class AiterMLADecodeLite:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.kv_cache_dtype == fp8_dtype:
            k_buffer = k_buffer.to(torch.bfloat16)  # positive: f6 CL001 aiter-style FP8 upcast of the key buffer
        kv_indptr = forward_batch.kv_indptr.to(torch.int32)  # negative: indptr
        return k_buffer, kv_indptr

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        viewed = k_buffer.view(-1, 1, 1, k_buffer.shape[-1])
        mla_input = viewed.to(q.dtype)  # positive: f6 CL001 aiter-style paged view upcast
        scale = layer.k_scale.float() if layer.k_scale is not None else None  # negative: scale
        return mla_input, scale
