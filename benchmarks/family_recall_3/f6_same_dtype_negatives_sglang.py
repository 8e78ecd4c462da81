"""Near misses: conversions to the dtype the buffer provably already has."""
import torch


class BF16OnlyPool:
    def __init__(self, size, head_num, head_dim, layer_num, device):
        self.k_buf = [torch.zeros((size, head_num, head_dim), dtype=torch.bfloat16, device=device) for _ in range(layer_num)]
        self.v_buf = [torch.zeros((size, head_num, head_dim), dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]

    def keys_of(self, layer_id: int) -> torch.Tensor:
        return self.k_buf[layer_id]

    def values_of(self, layer_id: int) -> torch.Tensor:
        return self.v_buf[layer_id]


class SameDtypeBackend:
    def __init__(self, model_runner):
        self.pool: BF16OnlyPool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.pool.keys_of(layer.layer_id)
        kb = kb.to(torch.bfloat16)  # negative: the buffer is allocated bfloat16, a no-op
        same = kb.to(kb.dtype)  # negative: to its own dtype
        vb = self.pool.values_of(layer.layer_id).to(torch.bfloat16)  # positive: f6 CL001 fp8 value buffer of an in-tree pool upcast
        return kb, same, vb
