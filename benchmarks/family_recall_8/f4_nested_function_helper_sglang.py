import torch


class NestedHelperBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        def dense(layer_id):
            buf = self.pool.get_key_buffer(layer_id)
            return buf.to(self.dtype)  # positive: f4 CL001 nested function reads and converts the layer

        def rows(layer_id, locs):
            return self.pool.get_key_buffer(layer_id)[locs].to(self.dtype)  # negative: gathered rows

        return dense(layer.layer_id), rows(layer.layer_id, forward_batch.out_cache_loc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        def outer():
            def inner(t):
                return t.half()  # positive: f4 CL001 inner function only ever gets the whole layer
            return inner(self.pool.get_value_buffer(layer.layer_id))
        return outer()
