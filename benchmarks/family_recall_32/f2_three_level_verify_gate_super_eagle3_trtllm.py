"""TRT-LLM one-model EAGLE3: three levels; the leaf widens only under target verify, the middle gathers."""
import torch


class SpecAttentionBase:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def _kv(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    def forward(self, q, metadata):
        return self._attend(q, self._kv(metadata), metadata)

    def _attend(self, q, kv, metadata):
        return q, kv


class Eagle3DraftAttention(SpecAttentionBase):
    def _kv(self, metadata):
        buf = super()._kv(metadata)
        return buf[metadata.draft_block_ids].to(self.dtype)  # negative: block gather before the cast


class Eagle3TargetVerifyAttention(Eagle3DraftAttention):
    def _kv(self, metadata):
        if metadata.spec_metadata.is_target_verify:
            return SpecAttentionBase._kv(self, metadata).to(self.dtype)  # positive: f2 CL001 whole target layer under verify, past the middle class's gather
        return super()._kv(metadata)

    def _attend(self, q, kv, metadata):
        mask = metadata.spec_metadata.tree_mask.to(q.device)  # negative: tree mask device move
        return q.to(self.dtype), kv, mask  # negative: query
