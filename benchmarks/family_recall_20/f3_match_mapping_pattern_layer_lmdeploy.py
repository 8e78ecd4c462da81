import torch


class DlinferMusaAttention(torch.nn.Module):
    """MUSA via dlinfer: no quantized paged kernel, the layer record is widened by layout."""

    def __init__(self, layer_idx, compute_dtype=torch.float16):
        super().__init__()
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, step_record, attn_metadata):
        match step_record["caches"][self.layer_idx]:
            case {"k": k_cache, "v": v_cache, "k_scale": k_scale}:
                k = k_cache.to(self.compute_dtype) * k_scale  # positive: f3 CL001 whole key cache bound by a mapping pattern, widened
                v = v_cache.to(self.compute_dtype)  # positive: f3 CL001 whole value cache bound by the same pattern
                s = k_scale.to(self.compute_dtype)  # negative: the scale
            case {"k": k_cache, "v": v_cache}:
                k, v, s = k_cache, v_cache, None
            case _:
                raise ValueError("unknown cache record")
        q = query.to(self.compute_dtype)  # negative: the query
        return q, k, v, s
