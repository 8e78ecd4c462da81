"""Static accessors reached through type(self) and self.__class__ in subclasses."""
import torch


class MLABackendBase:
    compute_dtype = torch.bfloat16

    @staticmethod
    def latent_of(pool, layer_id):
        return pool.get_key_buffer(layer_id)

    @staticmethod
    def written_of(pool, layer_id, loc):
        return pool.get_key_buffer(layer_id)[loc]

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank


class TritonMLABackend(MLABackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch):
        cls = type(self)
        lat = cls.latent_of(self.token_to_kv_pool, layer.layer_id)
        dense = lat.to(cls.compute_dtype)  # positive: f2 CL001 the static accessor returns the whole latent buffer
        qc = q.to(cls.compute_dtype)  # negative: batch query
        return dense

    def forward_extend(self, q, k, v, layer, forward_batch):
        lat = self.__class__.latent_of(self.token_to_kv_pool, layer.layer_id)
        nope = lat[..., : self.kv_lora_rank].to(q.dtype)  # positive: f2 CL001 every token's latent part
        new = type(self).written_of(self.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        new_dense = new.to(q.dtype)  # negative: gathered at the step's out_cache_loc
        same = lat.to(lat.dtype)  # negative: cast to the buffer's own dtype
        return nope, new_dense, same
