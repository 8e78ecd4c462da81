"""Pools whose accessors convert: a store-dtype view (fine) vs an upcast (whole layer)."""
import torch


class ByteStoredKVPool:
    """Stores FP8 as uint8 (index_put does not support fp8) and views back on read."""

    def __init__(self, size, dtype, head_num, head_dim, layer_num, start_layer=0):
        self.dtype = dtype
        self.store_dtype = torch.uint8 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) else dtype
        self.start_layer = start_layer
        self.k_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=self.store_dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=self.store_dtype, device="cuda") for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        if self.store_dtype != self.dtype:
            return self.k_buffer[layer_id - self.start_layer].view(self.dtype)  # negative: view reinterprets, no conversion
        return self.k_buffer[layer_id - self.start_layer]

    def get_value_buffer(self, layer_id):
        if self.store_dtype != self.dtype:
            return self.v_buffer[layer_id - self.start_layer].view(self.dtype)  # negative: view reinterprets, no conversion
        return self.v_buffer[layer_id - self.start_layer]


class UpcastingKVPool(ByteStoredKVPool):
    """A compat pool for kernels without FP8 support: hands out compute-dtype layers."""

    def __init__(self, *args, compute_dtype=torch.bfloat16, **kwargs):
        super().__init__(*args, **kwargs)
        self.compute_dtype = compute_dtype

    def get_key_buffer(self, layer_id):
        raw = self.k_buffer[layer_id - self.start_layer].view(self.dtype)
        return raw.to(self.compute_dtype)  # positive: f6 CL001 conversion inside an accessor

    def get_value_buffer(self, layer_id):
        return super().get_value_buffer(layer_id).to(self.compute_dtype)  # positive: f6 CL001 conversion inside an accessor override

    def get_key_rows(self, layer_id, loc):
        return self.k_buffer[layer_id - self.start_layer][loc].view(self.dtype).to(self.compute_dtype)  # negative: gather first
