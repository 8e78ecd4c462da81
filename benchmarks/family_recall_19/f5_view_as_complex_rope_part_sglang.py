import torch


class MLARopeReapply:
    """YaRN rescale experiments: rotate the rope part of every cached latent again."""

    kv_lora_rank = 512

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        rope = buf[..., self.kv_lora_rank:]
        rope_c = torch.view_as_complex(rope.float().unflatten(-1, (-1, 2)))  # positive: f5 CL001 rope part of every slot to fp32
        latent = buf[..., : self.kv_lora_rank].to(q.dtype)  # positive: f5 CL001 latent part of every slot
        real = torch.view_as_real(rope_c)  # negative: already converted tensor
        rows = rope[forward_batch.out_cache_loc].float()  # negative: rows
        return rope_c, latent, real, rows
