"""CL004: an MHA pool whose pair accessor converts both halves in a generator, and an unbound-to value accessor."""
import torch


class UpcastingMHAPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, store_dtype=torch.uint8, device="cuda"):
        self.dtype = dtype
        self.store_dtype = store_dtype
        self.k_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=store_dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id].view(torch.float8_e4m3fn)  # negative: reinterpret of the uint8 store

    def get_value_buffer(self, layer_id):
        return torch.Tensor.to(self.v_buffer[layer_id].view(torch.float8_e4m3fn), self.dtype)  # positive: f6 CL004 accessor returns the converted whole V layer

    def get_kv_buffer(self, layer_id):
        return tuple(t.view(torch.float8_e4m3fn).to(self.dtype) for t in (self.k_buffer[layer_id], self.v_buffer[layer_id]))  # positive: f6 CL004 pair accessor converts both whole halves


class PairReadingBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb, vb = pool.get_kv_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor, not labelled again
        raw = pool.get_key_buffer(layer.layer_id)
        rows = raw[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return q, kb, vb, rows
