from .pool import ActivePool, CheckedPool


class MixinBackend:
    def __init__(self, layers, size, width):
        self.pool = CheckedPool(layers, size, width)
        self.active = ActivePool(layers, size, width)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        whole = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f7 CL001 mixin from mixins.py forwards the whole layer
        part = self.active.get_key_buffer(layer.layer_id).to(q.dtype)  # negative: rows mixin gathers
        return whole, part
