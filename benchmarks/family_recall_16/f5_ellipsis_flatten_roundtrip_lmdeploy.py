"""Per-step attention path (ellipsis flatten roundtrip lmdeploy).

Look-alikes sit beside each whole-cache conversion.

"""
import torch


class PagedDecodeTorch(torch.nn.Module):
    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k = k_cache[...].to(hidden_states.dtype)  # positive: f5 CL001 Ellipsis keeps the whole cache
        v = v_cache.flatten(0, 1).unflatten(0, v_cache.shape[:2]).to(hidden_states.dtype)  # positive: f5 CL001 flatten/unflatten round trip keeps every slot
        k_last = k_cache[..., -1, :].to(hidden_states.dtype)  # positive: f5 CL001 last head of every block
        k_b0 = k_cache[0, ...].to(hidden_states.dtype)  # negative: block 0 only
        hs = hidden_states[...].float()  # negative: hidden states
        return k, v, k_last, k_b0, hs
