"""Per-step attention path (staging copy per step trtllm).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class HostStagingAttention:
    def forward(self, q, k, v, attn_metadata, kv_cache_manager, layer_idx):
        buf = kv_cache_manager.get_buffers(layer_idx)
        staging = torch.empty(buf.shape[0] + 8, *buf.shape[1:], dtype=torch.bfloat16, device=buf.device)
        staging[: buf.shape[0]].copy_(buf)  # positive: f5 CL001 whole layer copied into a wider bf16 staging buffer each step
        wide = buf.new_empty(buf.shape, dtype=torch.float32)
        wide.copy_(buf)  # positive: f5 CL001 new_empty(float32).copy_ of the whole layer per step
        same = torch.empty_like(buf)
        same.copy_(buf)  # negative: same dtype copy
        ids = attn_metadata.kv_cache_block_offsets[0, 0]
        part = torch.empty(len(ids), *buf.shape[1:], dtype=torch.bfloat16, device=buf.device)
        part.copy_(buf[ids])  # negative: chosen blocks only
        return staging, wide, same, part
