import torch


class MHATokenToKVPoolFP8Compat:
    """FP8 pool for devices whose attention kernels only take 16-bit KV."""

    def __init__(self, size, head_num, head_dim, layer_num, dtype, compute_dtype, device):
        self.dtype = dtype
        self.compute_dtype = compute_dtype
        self.store_dtype = torch.uint8
        self.k_buffer = [torch.zeros((size, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]

    @torch.no_grad()
    def get_kv_buffer(self, layer_id):
        k = self.k_buffer[layer_id].view(self.dtype)  # negative: .view(dtype) reinterpret
        v = self.v_buffer[layer_id].view(self.dtype)
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f6 CL004 the pool's accessor converts both whole per-layer buffers

    def get_kv_rows(self, layer_id, loc):
        return self.k_buffer[layer_id][loc].view(self.dtype).to(self.compute_dtype)  # negative: rows selected before the cast

    def set_kv_buffer(self, layer, loc, cache_k, cache_v, k_scale=None, v_scale=None):
        self.k_buffer[layer.layer_id][loc] = cache_k.to(self.dtype).view(self.store_dtype)  # negative: writer of new tokens


class TorchNativeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all, v_all = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        return k_all, v_all
