"""Pool subclasses whose accessors return a converted buffer (CL004)."""
import torch

from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool


class UpcastReadPool(MHATokenToKVPool):
    def get_key_buffer(self, layer_id: int):
        buf = super().get_key_buffer(layer_id)
        return buf.to(self.dtype)  # positive: f2 CL004 overridden accessor converts the whole layer buffer

    def get_value_buffer(self, layer_id: int):
        return super().get_value_buffer(layer_id).to(self.dtype)  # positive: f2 CL004 overridden accessor converts the whole layer buffer

    def get_kv_buffer(self, layer_id: int):
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)


class ViewReadPool(MHATokenToKVPool):
    def get_key_buffer(self, layer_id: int):
        if self.store_dtype != self.dtype:
            return self.k_buffer[layer_id - self.start_layer].view(self.dtype)  # negative: view reinterpret
        return self.k_buffer[layer_id - self.start_layer]

    def get_cpu_copy(self, indices):
        out = []
        for i in range(self.layer_num):
            out.append(self.k_buffer[i][indices].to("cpu", non_blocking=True))  # negative: gathered rows, device move
        return out
