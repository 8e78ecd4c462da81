import torch


class RelayMLABackend:
    """The pool is fetched in one method, passed through two more, converted in a fourth."""

    def __init__(self, model_runner):
        self.kv_lora_rank = 512
        self.scaling = model_runner.model_config.scaling

    def _pool_of(self, forward_batch):
        return forward_batch.token_to_kv_pool

    def _layer_inputs(self, pool, layer, forward_batch):
        return {"cache": pool.get_key_buffer(layer.layer_id), "loc": forward_batch.out_cache_loc}

    def _split(self, inputs):
        cache = inputs["cache"]
        return cache[..., : self.kv_lora_rank], cache[..., self.kv_lora_rank :], inputs["loc"]

    def _attend(self, q, ckv, kpe, loc):
        ckv_c = ckv.to(q.dtype)  # positive: f4 CL001 latent part of every slot, after three hand-offs
        kpe_c = kpe.to(q.dtype)  # positive: f4 CL001 rope part of every slot
        last = ckv[loc].to(q.dtype)  # negative: the step's slots gathered first
        return ckv_c, kpe_c, last

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._pool_of(forward_batch)
        ckv, kpe, loc = self._split(self._layer_inputs(pool, layer, forward_batch))
        return self._attend(q, ckv, kpe, loc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_target_verify():
            return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return k.to(q.dtype)  # negative: ragged keys of the step
