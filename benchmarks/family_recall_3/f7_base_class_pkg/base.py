import torch


class KVReadingBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype

    def _kv_for(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    def _scale_for(self, layer):
        return layer.k_scale
