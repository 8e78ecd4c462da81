import torch


class TorchFlexAttnBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.block_masks = []

    def init_forward_metadata(self, forward_batch):
        self.block_masks = [self._mask(forward_batch, i) for i in range(forward_batch.batch_size)]

    def _mask(self, forward_batch, i):
        return None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        key = pool.get_key_buffer(layer.layer_id).to(q.dtype).movedim(0, 1)  # positive: f6 CL001 flex attention needs q's dtype; whole key buffer
        val = pool.get_value_buffer(layer.layer_id).movedim(0, 1).to(q.dtype)  # positive: f6 CL001 whole value buffer
        k_new = k.to(q.dtype)  # negative: the step's own keys
        return self._flex(q, key, val, k_new)

    def _flex(self, q, key, val, k_new):
        return q
