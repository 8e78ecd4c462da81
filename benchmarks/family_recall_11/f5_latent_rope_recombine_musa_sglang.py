import torch


class MusaSplitRecombineBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        ckv, kpe = kbuf.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        ckv_c = ckv.contiguous().to(q.dtype)  # positive: f5 CL001 latent part of every slot made contiguous, then converted
        kpe_c = kpe.to(q.dtype)  # positive: f5 CL001 rope part of every slot
        merged = torch.cat([ckv_c, kpe_c], dim=-1)
        q_nope = q[..., : self.kv_lora_rank].to(torch.float32)  # negative: the step's q
        return merged, q_nope

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        loc = forward_batch.out_cache_loc
        ckv, kpe = kbuf[loc].split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        return ckv.to(q.dtype), kpe.to(q.dtype)  # negative: split of rows gathered at the step's slots
