import torch


class HiCacheController:
    def __init__(self, device_pool, host_pool):
        self.device_pool = device_pool
        self.host_pool = host_pool

    def write_back_layer(self, layer_id, host_indices, device_indices):
        src = self.device_pool.get_key_buffer(layer_id)[device_indices]
        self.host_pool.k_buffer[layer_id][host_indices] = src.to(self.host_pool.dtype)  # negative: only evicted rows

    def mirror_layer(self, layer_id):
        dev = self.device_pool.get_kv_buffer(layer_id)
        return dev[0].to(torch.float16), dev[1].to(torch.float16)  # positive: f1 CL001 whole device layer mirrored each step


class HiRadixBackend:
    def __init__(self, model_runner, host_pool):
        self.ctrl = HiCacheController(model_runner.token_to_kv_pool, host_pool)

    def forward_extend(self, q, k, v, layer, forward_batch):
        if forward_batch.evicted_host_indices is not None:
            self.ctrl.write_back_layer(layer.layer_id, forward_batch.evicted_host_indices, forward_batch.evicted_device_indices)
        if layer.layer_id % 4 == 0:
            self.ctrl.mirror_layer(layer.layer_id)
        return q
