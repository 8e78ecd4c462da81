"""A test backend that is both the pool and the backend (multiple inheritance)."""

import torch


class TinyMLAPool:
    def __init__(self, size, layer_num, dim, dtype, device):
        self.store_dtype = torch.uint8 if dtype == torch.float8_e4m3fn else dtype
        self.kv_buffer = [
            torch.zeros(size + 1, 1, dim, dtype=self.store_dtype, device=device)
            for _ in range(layer_num)
        ]
        self.dtype = dtype

    def latent(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)


class TinyBackendBase:
    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_decode():
            return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)


class PoolBackend(TinyMLAPool, TinyBackendBase):
    def __init__(self, size, layer_num, dim, model_dtype):
        TinyMLAPool.__init__(self, size, layer_num, dim, torch.float8_e4m3fn, "cuda")
        self.model_dtype = model_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.latent(layer.layer_id).to(self.model_dtype)  # positive: f2 CL001 self is the pool, its accessor's whole layer cast
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, lat, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        raw = self.kv_buffer[layer.layer_id]
        up = raw.view(self.dtype).to(self.model_dtype)  # positive: f2 CL001 own kv_buffer reinterpreted then cast whole
        bytes_view = raw.view(torch.int8)  # negative: view(dtype) reinterpret
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, up, bytes_view, o, forward_batch.extend_seq_lens)
        return o
