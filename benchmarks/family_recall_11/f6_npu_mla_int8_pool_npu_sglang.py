import torch


class AscendMLAInt8Backend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.kv_lora_rank = 512

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = pool.get_key_buffer(layer.layer_id)
        if layer.qk_head_dim != layer.v_head_dim:
            k_nope = k_cache[..., : self.kv_lora_rank].view(-1, self.page_size, 1, self.kv_lora_rank)
            k_nope = k_nope.to(torch.float16)  # positive: f6 CL001 every page's latent part of the int8 pool
            s = layer.k_scale.to(torch.float16)  # negative: per-layer scale
            return k_nope * s
        bt = forward_batch.block_tables.to(torch.int32)  # negative: block table
        return k_cache.view(-1, self.page_size, 1, k_cache.shape[-1]), bt

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            pool = forward_batch.token_to_kv_pool
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(torch.int8), v)  # negative: writer, the step's keys
        return q.to(torch.float16)  # negative: the step's q
