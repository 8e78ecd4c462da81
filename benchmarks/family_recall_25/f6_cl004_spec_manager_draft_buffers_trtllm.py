import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class DraftKVCacheManager(KVCacheManager):
    """One-model spec decoding: the draft layers keep bf16 even when the target pool is FP8."""

    draft_dtype = torch.bfloat16

    def get_draft_buffers(self, draft_layer_idx: int) -> torch.Tensor:
        buf = self.get_buffers(draft_layer_idx)
        if buf.dtype != self.draft_dtype:
            buf = buf.to(self.draft_dtype)  # positive: f6 CL004 manager accessor widens the whole layer buffer
        return buf

    def get_draft_scales(self, draft_layer_idx: int) -> torch.Tensor:
        return self.kv_cache_scales[draft_layer_idx].to(self.draft_dtype)  # negative: scales

    def get_draft_block(self, draft_layer_idx: int, block_id: int) -> torch.Tensor:
        return self.get_buffers(draft_layer_idx)[block_id].to(self.draft_dtype)  # negative: one block selected first
