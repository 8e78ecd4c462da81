"""NSA/DSA-style backend helper that requantizes a whole cache each call."""

import torch


def requantize_cache(kv_cache, block_size=64):
    f = kv_cache.to(torch.float32)  # positive: f6 CL001 every caller passes a whole layer cache; helper upcasts it
    amax = f.view(-1, block_size, f.shape[-1]).abs().amax(dim=1, keepdim=True).clamp(min=1e-4)
    return (f.view(-1, block_size, f.shape[-1]) / amax).to(torch.float8_e4m3fn), amax  # note: the result is derived from the upcast copy; one finding per helper


def quantize_index_keys(keys):
    return keys.to(torch.float8_e4m3fn)  # negative: batch index keys of this step


class SparseIndexBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.index_k = [torch.zeros(64, 128, dtype=torch.bfloat16) for _ in range(4)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        q8, scale = requantize_cache(self.pool.get_key_buffer(layer.layer_id))
        idx_keys = quantize_index_keys(k)
        topk = torch.ops.sgl_kernel.nsa_topk(q, idx_keys, forward_batch.seq_lens)
        return torch.ops.sgl_kernel.sparse_mla(q, q8, scale, topk)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        q8, scale = requantize_cache(self.pool.get_key_buffer(layer.layer_id), block_size=128)
        tiny = self.index_k[0].to(torch.float32)  # negative: 64-row index scratch
        return torch.ops.sgl_kernel.sparse_mla(q, q8, scale, tiny)
