# vLLM v1 torch SDPA fallback backend for an unsupported GPU: the conversion happens in
# the argument list of scaled_dot_product_attention.
import torch
import torch.nn.functional as F


class TorchSDPAFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        out = F.scaled_dot_product_attention(
            query.transpose(0, 1).unsqueeze(0),
            key_cache.flatten(0, 1).transpose(0, 1).unsqueeze(0).to(query.dtype),  # positive: f5 CL001 whole key plane in the call
            value_cache.flatten(0, 1).transpose(0, 1).unsqueeze(0).to(query.dtype),  # positive: f5 CL001 whole value plane in the call
            attn_mask=attn_metadata.dense_mask.to(query.dtype),  # negative: mask
            scale=self.scale,
        )
        return output.copy_(out.squeeze(0).transpose(0, 1))
