"""HiCache-style per-layer write-back to a host pool during extend, with a host dtype."""
import torch


class LayerDoneBackup:
    def __init__(self, device_pool, host_pool, host_dtype=torch.bfloat16):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.host_dtype = host_dtype

    def on_layer_end(self, layer_id, device_indices, host_indices):
        k = self.device_pool.get_key_buffer(layer_id)
        v = self.device_pool.get_value_buffer(layer_id)
        if self.host_pool.full_layer_backup:
            self.host_pool.k_buffer[layer_id] = k.to("cpu", self.host_dtype, non_blocking=True)  # positive: f6 CL001 whole key layer to host in the host dtype
            self.host_pool.v_buffer[layer_id] = v.to("cpu", self.host_dtype, non_blocking=True)  # positive: f6 CL001 whole value layer to host
        else:
            self.host_pool.k_buffer[layer_id][host_indices] = k[device_indices].to("cpu", self.host_dtype)  # negative: the step's rows
            self.host_pool.v_buffer[layer_id][host_indices] = v[device_indices].to("cpu", self.host_dtype)  # negative: the step's rows
        if self.host_pool.debug_snapshot:
            self.host_pool.snapshot[layer_id] = self.device_pool.get_key_buffer(layer_id).cpu()  # negative: a device move, dtype kept


class HiCacheExtendBackend:
    def __init__(self, model_runner, backup: LayerDoneBackup):
        self.backup = backup

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        o = self._extend(q, k, v, layer, forward_batch)
        self.backup.on_layer_end(layer.layer_id, forward_batch.out_cache_loc, forward_batch.host_indices)
        return o
