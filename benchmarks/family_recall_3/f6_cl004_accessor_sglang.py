"""Pool classes (not subclasses of sglang's) whose accessors convert (CL004)."""
import torch


class UpcastOnReadPool:
    def __init__(self, size, head_num, head_dim, layer_num, device, start_layer=0):
        self.start_layer = start_layer
        self.dtype = torch.bfloat16
        self.store_dtype = torch.float8_e4m3fn
        self.k_buffer = [torch.zeros((size, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id: int):
        return self.k_buffer[layer_id - self.start_layer].to(self.dtype)  # positive: f6 CL004 accessor converts the whole per-layer buffer

    def get_value_buffer(self, layer_id: int):
        buf = self.v_buffer[layer_id - self.start_layer]
        if buf.dtype != self.dtype:
            buf = buf.to(self.dtype)  # positive: f6 CL004 accessor converts the whole per-layer buffer
        return buf

    def get_kv_buffer(self, layer_id: int):
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)

    def get_raw_key_buffer(self, layer_id: int):
        return self.k_buffer[layer_id - self.start_layer].view(torch.uint8)  # negative: dtype view

    def get_rows(self, layer_id: int, loc: torch.Tensor):
        return self.k_buffer[layer_id - self.start_layer][loc].to(self.dtype)  # negative: rows gathered first
