"""Per-step attention path (to other tensor forms vllm).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class ReferenceImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kc, vc = kv_cache[0], kv_cache[1]
        a = kc.to(query)  # positive: f5 CL001 to(other tensor) takes the query dtype
        b = vc.to(kc)  # negative: to a tensor of the cache's own dtype
        c = vc.to(query.device, query.dtype, non_blocking=True)  # positive: f5 CL001 device and dtype positional
        d = kc.to(device=query.device, non_blocking=True)  # negative: device only
        e = vc.half()  # positive: f5 CL001 half() of the whole value cache
        f = torch.as_tensor(kc, dtype=torch.float32)  # positive: f5 CL001 as_tensor with a new dtype copies the whole cache
        return a, b, c, d, e, f
