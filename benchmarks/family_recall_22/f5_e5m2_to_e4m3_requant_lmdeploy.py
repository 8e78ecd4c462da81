import torch


def requant_cache(cache: torch.Tensor, scale: float) -> torch.Tensor:
    wide = cache.to(torch.float16)  # positive: f5 CL001 whole e5m2 cache widened before re-quantizing
    return (wide / scale).to(torch.float8_e4m3fn)  # negative: already converted tensor (not labelled twice)


class FP8PagedAttention(torch.nn.Module):
    def forward(self, query, k_cache, v_cache, attn_metadata, k_scale=1.0):
        k8 = requant_cache(k_cache, k_scale)
        v8 = v_cache.view(torch.uint8)  # negative: reinterpret
        tail = k_cache[-1:].to(torch.float16)  # negative: last block only
        return k8, v8, tail
