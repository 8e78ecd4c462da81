"""sglang-style FlashInfer MLA backend reading FP8 KV natively only on SM90; other parts widen the pool."""
import torch


def native_fp8_mla_supported(capability, head_dim_ckv=512, head_dim_kpe=64):
    return capability[0] == 9 and head_dim_ckv == 512 and head_dim_kpe in (0, 64)


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner, prefill_wrapper_paged, decode_wrapper):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.native_fp8 = model_runner.kv_cache_dtype == torch.float8_e4m3fn and native_fp8_mla_supported(
            torch.cuda.get_device_capability()
        )
        self.prefill_wrapper_paged = prefill_wrapper_paged
        self.decode_wrapper = decode_wrapper

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.attn_dcp_metadata is not None:
            k_buf = forward_batch.attn_dcp_metadata.dcp_kv_buffer.to(q.dtype)  # negative: per-batch DCP buffer, not the pool
        elif self.native_fp8:
            k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)  # negative: native FP8 read, no conversion
        else:
            k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 no FP8-KV MLA route on this part
        return self.prefill_wrapper_paged.run(q, k_buf[..., : self.kv_lora_rank], k_buf[..., self.kv_lora_rank :])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if not self.native_fp8:
            k_buf = k_buf.to(q.dtype)  # positive: f6 CL001 whole latent layer widened each decode step
        scale = layer.k_scale_float if self.native_fp8 else None
        return self.decode_wrapper.run(q, k_buf[..., : self.kv_lora_rank], k_buf[..., self.kv_lora_rank :], ckv_scale=scale)
