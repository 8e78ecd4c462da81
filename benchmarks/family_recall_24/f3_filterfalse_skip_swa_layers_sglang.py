# sglang HiCache layer-wise write-back: full-attention layers only; SWA layers are
# skipped with itertools.filterfalse.
import itertools

import torch


class HostWriteBack:
    def __init__(self, device_pool, host_pool, swa_layer_ids):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.swa_layer_ids = frozenset(swa_layer_ids)

    def _layers(self):
        return ((i, self.device_pool.get_key_buffer(i)) for i in range(self.device_pool.layer_num))

    def write_step(self, host_indices, device_indices):
        full = itertools.filterfalse(lambda item: item[0] in self.swa_layer_ids, self._layers())
        for layer_id, k_buf in full:
            if self.host_pool.dtype != k_buf.dtype:
                staged = k_buf.to(self.host_pool.dtype)  # positive: f3 CL001 whole key buffer per full layer
                self.host_pool.k_buffer[layer_id][host_indices] = staged[device_indices]
            else:
                rows = k_buf[device_indices].to(self.host_pool.dtype)  # negative: rows first, same dtype
                self.host_pool.k_buffer[layer_id][host_indices] = rows
