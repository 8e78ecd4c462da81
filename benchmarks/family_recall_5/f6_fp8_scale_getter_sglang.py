"""MLA pool with a dequantizing getter that multiplies by the scale."""

import torch


class ScaledMLAPool:
    def __init__(self, size, kv_lora_rank, rope_dim, layer_num, device):
        self.dtype = torch.float8_e4m3fn
        self.kv_buffer = [
            torch.zeros(size + 1, 1, kv_lora_rank + rope_dim, dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]
        self.k_scale = torch.ones(layer_num, dtype=torch.float32, device=device)

    def latent_fp8(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)

    def latent_bf16(self, layer_id):
        raw = self.kv_buffer[layer_id].view(self.dtype)
        return raw.to(torch.bfloat16) * self.k_scale[layer_id]  # positive: f6 CL004 dequantizing getter converts the whole layer

    def latent_rows_bf16(self, layer_id, loc):
        return self.kv_buffer[layer_id][loc].view(self.dtype).to(torch.bfloat16)  # negative: gather-then-cast getter

    def scale_of(self, layer_id):
        return self.k_scale[layer_id].to(torch.bfloat16)  # negative: one scale


class ScaledGetterBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.pool.latent_bf16(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, kv, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv8 = self.pool.latent_fp8(layer.layer_id)
        kvx = kv8.to(self.dtype)  # positive: f6 CL001 the fp8 getter's whole layer view cast in extend
        s = self.pool.scale_of(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, kvx * s, o, forward_batch.extend_seq_lens)
        return o
