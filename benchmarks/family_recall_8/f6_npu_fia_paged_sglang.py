import torch


class AscendMLABackendLite:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.kv_lora_rank = 512

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        paged = k_cache.view(-1, self.page_size, 1, k_cache.shape[-1])
        nope = paged[..., : self.kv_lora_rank].to(torch.float16)  # positive: f6 CL001 npu-style paged latent of every page
        rope = paged[..., self.kv_lora_rank :].to(torch.float16)  # positive: f6 CL001 rope part of every page
        tables = forward_batch.block_tables.to(torch.int32)  # negative: block tables
        return nope, rope, tables

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        v_cache = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        return v_cache.to(torch.float16)  # positive: f6 CL001 whole value buffer
