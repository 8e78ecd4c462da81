"""Per-step attention path (torch where whole cache lmdeploy).

Look-alikes sit beside each whole-cache conversion.

"""
import torch


class NanGuardAttention(torch.nn.Module):
    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        zero = torch.zeros((), dtype=hidden_states.dtype, device=k_cache.device)
        k = torch.where(torch.isnan(k_cache.float()), zero, k_cache.to(hidden_states.dtype))  # positive: f5 CL001 where over the whole cache (one finding for the line)
        mask = attn_metadata.block_offsets >= 0
        v = torch.where(mask[..., None, None, None], v_cache[attn_metadata.block_offsets], 0).to(hidden_states.dtype)  # negative: gathered blocks
        ok = torch.isfinite(k_cache).all()  # negative: no conversion
        return k, v, ok
