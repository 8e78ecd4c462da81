import torch


class MusaMLABackend:
    """Stores the pool on each attention layer at first use, reads it back later."""

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = 512

    def _attach(self, layer):
        if getattr(layer, "_kv_pool_ref", None) is None:
            layer._kv_pool_ref = self.pool
        return layer

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layer = self._attach(layer)
        if forward_batch.forward_mode.is_target_verify():
            return self._verify(q, layer, forward_batch)
        return k.to(q.dtype)  # negative: ragged prefill keys of the batch

    def _verify(self, q, layer, forward_batch):
        cache = layer._kv_pool_ref.get_key_buffer(layer.layer_id)
        ckv = cache[..., : self.kv_lora_rank].to(q.dtype)  # positive: f1 CL001 latent part of every slot, pool read back from the layer
        kpe = cache[forward_batch.out_cache_loc, :, self.kv_lora_rank :].to(q.dtype)  # negative: rope part gathered at the step's slots
        return ckv, kpe

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layer = self._attach(layer)
        cache = layer._kv_pool_ref.get_key_buffer(layer.layer_id)
        return cache.to(q.dtype)  # positive: f1 CL001 whole latent buffer through the layer's pool reference
