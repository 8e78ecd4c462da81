import torch


class MusaMLABackend:
    """MUSA: the pool keeps latent and rope in separate fp8 buffers; the kernel wants one
    packed bf16 [slots, 1, 576] tensor."""

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        latent = self.pool.get_latent_buffer(layer.layer_id)
        rope = self.pool.get_rope_buffer(layer.layer_id)
        packed = torch.concatenate((latent, rope), axis=-1).to(q.dtype)  # positive: f5 CL001 concatenate on the last axis keeps every slot
        loc = forward_batch.out_cache_loc
        new = torch.concatenate((latent[loc], rope[loc]), axis=-1).to(q.dtype)  # negative: rows of the batch
        return self._flash_mla_musa(q, packed, new, forward_batch, layer.scaling)
