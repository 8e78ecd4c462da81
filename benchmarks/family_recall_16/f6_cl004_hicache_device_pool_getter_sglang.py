import torch


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, host_dtype=torch.bfloat16):
        self.device_pool = device_pool
        self.host_dtype = host_dtype

    def get_flat_data_device(self, layer_id):
        k = self.device_pool.k_buffer[layer_id]
        return k.to(self.host_dtype)  # positive: f6 CL004 accessor widens the whole device layer; the write-back path calls it per step

    def get_rows_device(self, layer_id, indices):
        return self.device_pool.k_buffer[layer_id][indices].to(self.host_dtype)  # negative: rows


class HiCacheBackend:
    def __init__(self, model_runner, host_pool):
        self.host_pool = host_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        if forward_batch.hicache_backup_layer == layer.layer_id:
            self.host_pool.get_flat_data_device(layer.layer_id)  # note: per-step caller of the labelled accessor
        return self.host_pool.get_rows_device(layer.layer_id, forward_batch.out_cache_loc)
