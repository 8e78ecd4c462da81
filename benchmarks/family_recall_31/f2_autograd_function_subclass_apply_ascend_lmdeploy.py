# lmdeploy on Ascend (dlinfer): the paged decode for an int8 cache goes through torch.autograd.Function
# wrappers; the widening Function subclasses the identity one and is chosen when the op lacks int8 KV.
import torch


class _KVIdentity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cache, dtype):
        return cache

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class _KVWiden(_KVIdentity):
    @staticmethod
    def forward(ctx, cache, dtype):
        return cache.to(dtype)  # positive: f2 CL001 whole layer cache, reached through _KVWiden.apply (key and value, one line)


class AscendPagedAttentionImpl:
    def __init__(self, kv_quant_policy, op_supports_int8_kv: bool):
        self.kv_fn = _KVIdentity if op_supports_int8_kv else _KVWiden
        self.kv_quant_policy = kv_quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k = self.kv_fn.apply(k_cache, query.dtype)
        v = self.kv_fn.apply(v_cache, query.dtype)
        k_scale = attn_metadata.k_scales_zeros.to(query.dtype)  # negative: scales and zeros
        new_k = key.to(k_cache.dtype)  # negative: new tokens for the writer
        return self.paged_decode(query, k, v, k_scale, new_k, attn_metadata.block_offsets)
