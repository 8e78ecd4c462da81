import torch


class AscendAttnBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.npu_fp8_mla = getattr(model_runner.server_args, "npu_fp8_mla", False)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.npu_fp8_mla:
            return k_buf.view(torch.uint8)  # negative: native path, reinterpret view
        k_nope = k_buf[..., : self.kv_lora_rank].to(torch.bfloat16)  # positive: f6 CL001 latent part of every slot for the bf16 NPU kernel
        k_rope = k_buf[..., self.kv_lora_rank:].to(torch.bfloat16)  # positive: f6 CL001 rope part of every slot
        return k_nope, k_rope

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        prefix = k_buf[forward_batch.extend_prefix_loc].to(torch.bfloat16)  # negative: prefix rows
        return prefix
