"""Conversions spelled as tensor constructors: torch.as_tensor / torch.asarray with a dtype."""
import torch


class CtorConvertImpl:
    def __init__(self, compute_dtype=torch.bfloat16):
        self.compute_dtype = compute_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = torch.as_tensor(kv_cache, dtype=self.compute_dtype)  # positive: f5 CL001 the whole kv_cache through as_tensor(dtype=)
        key_cache, value_cache = kv_cache.unbind(0)
        vd = torch.asarray(value_cache, dtype=query.dtype)  # positive: f5 CL001 every block's V through asarray(dtype=)
        kd = torch.as_tensor(key_cache, dtype=torch.float32, device=query.device)  # positive: f5 CL001 every block's K, dtype and device
        bt = torch.as_tensor(attn_metadata.block_table, device=query.device)  # negative: block table, no dtype
        same = torch.as_tensor(key_cache)  # negative: no conversion
        lens = torch.asarray(attn_metadata.seq_lens, dtype=torch.int32)  # negative: lengths
        return dense, vd, kd, bt, same, lens
